"""The parts every game's round machine shares: the state names a held round passes through, the
message a callback was fired with, the guard of a supervisor's CONTINUE, the supervisor-resolution
and new-dealer transitions, and the Machine's keyword arguments. Used by all four games' machine
modules (the new-dealer transitions by the shoe games, Free Bet Blackjack and Over/Under).

Every machine is built with ``auto_transitions=False`` (no ``to_<state>()`` backdoor) and
``send_event=True`` (callbacks receive the EventData, whose first argument is the message), and
records each change of state through the round's ``record_state``.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from transitions import EventData

BETTING = "betting"
SETTLED = "settled"
VOIDED = "voided"
HELD = "held"
COMPLETE = "complete"


def message_of(event: EventData) -> Any:
    """The message from inputs.py a trigger was fired with (Round.handle passes exactly one)."""
    return event.args[0]


class ResumesTo:
    """Guard of a supervisor's CONTINUE: true for the transition to the state the hold resumes to
    (irregularities.py says where, per kind; NOTES.md §3: only a supervisor resumes a held round)."""

    def __init__(self, state: str) -> None:
        self.state = state
        self.__name__ = f"resumes_to_{state}"

    def __call__(self, event: EventData) -> bool:
        return event.model.hold.resume_to == self.state


def resolution_transitions(resumable: Iterable[str]) -> list[dict[str, Any]]:
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


def dealer_change_transitions(sources: list[str]) -> list[dict[str, Any]]:
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


def definition(states: list[str], transitions: list[dict[str, Any]]) -> dict[str, Any]:
    """The keyword arguments of a round's Machine (shared with games.diagrams)."""
    return dict(
        states=states,
        transitions=transitions,
        initial=BETTING,
        auto_transitions=False,
        send_event=True,
        after_state_change="record_state",
    )
