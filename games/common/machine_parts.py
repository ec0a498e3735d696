"""The parts every game's round machine shares: the state names a held round passes through, the
message a callback was fired with, the guard of a supervisor's CONTINUE, the transitions every game
builds alike (wagers and the deal, a card while held or irregular, players' decisions, requests
refused outright, the discard rack, a supervisor's ruling, a new dealer), the Machine's keyword
arguments and the one shared Machine. Used by all four games' machine modules (the cover-card and
new-dealer transitions by the shoe games, Free Bet Blackjack and Over/Under; the opening by them and
Heads Up Hold 'Em, whose stacks come from a shoe).

Every machine is built with ``auto_transitions=False`` (no ``to_<state>()`` backdoor) and
``send_event=True`` (callbacks receive the EventData, whose first argument is the message), and
records each change of state through the round's ``record_state``.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

from transitions import EventData, Machine

from vocabulary.machines import DeclaredMachine, Spec

if TYPE_CHECKING:
    from games.common.movement import Action
    from games.common.round_base import RoundBase

BETTING = "betting"
SETTLED = "settled"
VOIDED = "voided"
HELD = "held"
COMPLETE = "complete"


def message_of(event: EventData) -> Any:  # Any: each trigger's own message type, known to its callbacks
    """The message from inputs.py a trigger was fired with (Round.handle passes exactly one, and
    transitions keeps a trigger's arguments as the tuple it was given)."""
    return event.args[0]  # type: ignore[index]  # the stubs say Iterable; it is the tuple given


class ResumesTo:
    """Guard of a supervisor's CONTINUE: true for the transition to the state the hold resumes to
    (irregularities.py says where, per kind; decision 0008: only a supervisor resumes a held round)."""

    def __init__(self, state: str) -> None:
        self.state = state
        self.__name__ = f"resumes_to_{state}"

    def __call__(self, event: EventData) -> bool:
        round_: RoundBase[Action] = event.model  # type: ignore[assignment]  # transitions types a model as object
        assert round_.hold is not None, "only a held round is resumed"
        return round_.hold.resume_to == self.state


def resolution_transitions(resumable: Iterable[str]) -> list[Spec]:
    """A held round waits for a supervisor: VOID, or CONTINUE to the state the hold resumes to (one
    transition per state in ``resumable``)."""
    return [
        dict(
            trigger="supervisor_resolve",
            source=HELD,
            dest=VOIDED,
            conditions=["resolution_is_offered", "resolution_is_void"],
            before="void_round",
        ),
        *(
            dict(
                trigger="supervisor_resolve",
                source=HELD,
                dest=state,
                conditions=["resolution_is_offered", ResumesTo(state)],
                before="continue_round",
            )
            for state in resumable
        ),
    ]


def dealer_change_transitions(sources: list[str]) -> list[Spec]:
    """A new dealer may come to a shoe game's table in any state; the burn card is owed before any
    other card is dealt (e.g. 672a.7(c), 686a.7(c))."""
    return [
        dict(trigger="change_dealer", source=sources, dest=None, before="note_new_dealer"),
        dict(
            trigger="confirm_burn",
            source=sources,
            dest=None,
            conditions="burn_is_done",
            before="clear_burn",
        ),
    ]


def definition(states: list[str], transitions: list[Spec]) -> Spec:
    """The keyword arguments of a round's Machine (shared with games.diagrams)."""
    return dict(
        states=states,
        transitions=transitions,
        initial=BETTING,
        auto_transitions=False,
        send_event=True,
        after_state_change="record_state",
    )


def opening_transitions(deal_to: str, *, deal_trigger: str = "start_deal") -> list[Spec]:
    """Wagers while betting, then the deal (on ``deal_trigger``) once the game's guard allows it
    (e.g. 672a.7(e), 686a.7(e), 677a.10(a)); used by the games dealt from a shoe."""
    return [
        dict(
            trigger="place_wager",
            source=BETTING,
            dest=None,
            conditions="wager_is_valid",
            before="accept_wager",
        ),
        dict(
            trigger=deal_trigger,
            source=BETTING,
            dest=deal_to,
            conditions="deal_may_start",
            before="begin_deal",
        ),
    ]


def decision_transitions(triggers: Iterable[str], source: str | list[str]) -> list[Spec]:
    """A player's decisions (one trigger each) in ``source``, checked by ``decision_is_legal`` and
    applied by ``apply_decision``; the round stays in its state."""
    return [
        dict(
            trigger=trigger,
            source=source,
            dest=None,
            conditions="decision_is_legal",
            before="apply_decision",
        )
        for trigger in triggers
    ]


def refusal_transitions(refusals: dict[str, tuple[list[str], str]]) -> list[Spec]:
    """Requests refused outright, so that the refusal names its clause: for each trigger, in its
    states, a guard that raises (``refusals``: trigger -> (states, guard))."""
    return [
        dict(trigger=trigger, source=states, dest=None, conditions=guard)
        for trigger, (states, guard) in refusals.items()
    ]


def held_arrival_transitions(trigger: str, active: list[str], *, irregular: str, hold: str) -> list[Spec]:
    """A card out while the round is held is set aside; an irregular one while it is active holds
    the round (decision 0008). These come before the trigger's regular transitions."""
    return [
        dict(trigger=trigger, source=HELD, dest=None, before="set_aside_while_held"),
        dict(trigger=trigger, source=active, dest=HELD, conditions=irregular, before=hold),
    ]


def shoe_arrival_transitions(active: list[str]) -> list[Spec]:
    """A card out of the shoe: while held set aside, irregular ones hold the round, the cover card is
    set aside (672a.7(d), 686a.7(d)); the game's transitions for the card due follow."""
    return [
        *held_arrival_transitions(
            "card_arrives", active, irregular="arrival_is_irregular", hold="hold_arrival"
        ),
        dict(
            trigger="card_arrives",
            source=active,
            dest=None,
            conditions="is_cover_card",
            before="set_cover_card_aside",
        ),
    ]


def rack_transitions(trigger: str, *, wrong_count: str, hold: str, record: str) -> list[Spec]:
    """The round's cards to the rack once settled or voided: a wrong count holds the round, a right
    one completes it (e.g. 672a.7(s), 686a.7(n))."""
    return [
        dict(trigger=trigger, source=[SETTLED, VOIDED], dest=HELD, conditions=wrong_count, before=hold),
        dict(trigger=trigger, source=[SETTLED, VOIDED], dest=COMPLETE, before=record),
    ]


@functools.cache
def triggers_by_state(machine: Machine) -> dict[str, frozenset[str]]:
    """The triggers each state of a shared ``machine`` accepts (``get_triggers`` of that state),
    computed once: a round asks on every message, and the machine's transitions never change after
    it is built."""
    return {state: frozenset(machine.get_triggers(state)) for state in machine.states}


def shared_machine_of(definition: Callable[[], Spec]) -> Callable[[], Machine]:
    """A game's one Machine, built on first use from its ``definition``: every round starts in its
    initial state and fires its events, without joining it (no ``add_model``). It binds nothing to a round
    (``model_override=True``; vocabulary/machines.py): a round fires its triggers by name through
    the machine's events, and every callback the machine names is a method its class declares."""
    return functools.cache(lambda: DeclaredMachine(model=None, model_override=True, **definition()))
