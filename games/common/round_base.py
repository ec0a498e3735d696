"""The methods every game's Round shares (used by all four games): taking a message through the
shared machine (which a round never joins), saying what it accepts, its records and each player's
net, recording changes of state and irregularities, holding the round, and the supervisor's ruling
on a held round (decision 0008: only a supervisor resolves one). A game's Round names its own machine, clauses
module, record kinds and refusals.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Mapping, Sequence
from types import ModuleType
from typing import ClassVar, Generic, Protocol, TypeVar

from transitions import EventData, Machine

from games.common.holds import Hold, Kind
from games.common.machine_parts import BETTING, COMPLETE, message_of, triggers_by_state
from games.common.messages import Arrival, Message, Resolution
from games.common.movement import Action
from games.common.pickup import Pickup
from games.common.records import Record, RoundLog
from vocabulary.cards import Card
from vocabulary.operators import SUPERVISOR_CLEARS, Role
from vocabulary.rules import Irregularity, RuleViolation


class SharedKinds(Protocol):
    """The record kinds the shared steps write, which every game's RecordKind has."""

    @property
    def STATE(self) -> enum.StrEnum: ...

    @property
    def SETTLEMENT(self) -> enum.StrEnum: ...

    @property
    def IRREGULARITY(self) -> enum.StrEnum: ...

    @property
    def RESOLUTION(self) -> enum.StrEnum: ...


#: The game's settlement Action.
A = TypeVar("A", bound=Action)


class RoundBase(Generic[A]):
    """Mixed into each game's Round, which sets the class attributes below and ``number``, ``log``
    and ``hold`` in its ``__init__``."""

    #: Every round starts betting (the machine's initial state, machine_parts.definition); the
    #: machine sets it from then on. A round never joins its machine (``_fire``), so nothing else would.
    state: str = BETTING
    number: int
    log: RoundLog
    hold: Hold | None
    positions: Mapping[int, object]
    actions: list[A]
    set_aside: list[Pickup]  # cards a ruling took out of play, for the rack after the hands
    pickup: Sequence[Pickup]  # the pick-up order recorded
    #: The game's one Machine, which every round joins (machine.py).
    shared_machine: ClassVar[staticmethod[[], Machine]]
    #: The game's clauses module: PROCEDURE_ORDER refuses a message out of turn, HELD a ruling not offered.
    clauses: ClassVar[ModuleType]
    #: The game's record kinds (STATE, IRREGULARITY among them).
    kinds: ClassVar[SharedKinds]
    #: Requests refused outright so that the refusal names its clause: trigger -> (states, guard).
    refusals: ClassVar[Mapping[str, tuple[list[str], str]]] = {}

    @property
    def expected(self) -> object | None:
        """The card (or place) due next, or None when no card is due (the game's RoundState)."""
        raise NotImplementedError

    def pickup_order(self) -> Sequence[Pickup]:
        """Every card of the round in the order it goes to the discard rack (the game's RoundState,
        where the game records one)."""
        raise NotImplementedError

    def _cover_card_aside(self) -> None:
        """The cover card to the side (a shoe game's, games.common.shoe_steps)."""
        raise NotImplementedError

    def handle(self, message: Message) -> tuple[Record, ...]:
        """Apply one message; returns the records it produced, the only way they leave the round
        (the table writes them to the audit trail, then publishes them: decision 0031). Raises
        RuleViolation (nothing changed) for an input the rules refuse."""
        start = len(self.log)
        accepted = self.state != COMPLETE and self._fire(message)
        if not accepted:
            clauses = self.clauses
            raise RuleViolation(
                clauses.PROCEDURE_ORDER,
                f"{message.trigger} is not accepted while round {self.number} is {self.state}; "
                f"it accepts {', '.join(self.accepts) or 'nothing more'}",
            )
        return self.log.since(start)

    def _fire(self, message: Message) -> bool:
        """The message's trigger through the shared machine's event. A round never joins the machine
        (``add_model``): the event takes the round as its model, and joining and leaving it cost a
        round more than a tenth of a math round's time (decision 0042)."""
        machine = self.shared_machine()
        if message.trigger not in triggers_by_state(machine)[self.state]:
            return False
        return machine.events[message.trigger].trigger(self, message)

    @property
    def accepts(self) -> tuple[str, ...]:
        """The messages (by trigger) the round takes in its present state: a card arriving is always
        taken (as an irregularity if none is due); requests refused outright are not listed."""
        if self.state == COMPLETE:
            return ()
        triggers = triggers_by_state(self.shared_machine())[self.state]
        return tuple(sorted(t for t in triggers if self.state not in self.refusals.get(t, ((), None))[0]))

    @property
    def records(self) -> tuple[Record, ...]:
        return tuple(self.log)

    def net(self, seat: int) -> int:
        """What the player at ``seat`` has won (+) or lost (-) so far, in cents."""
        return sum(action.net for action in self.actions if action.seat == seat)

    def __repr__(self) -> str:
        return f"<Round {self.number} {self.state}, seats {sorted(self.positions)}>"

    def record_state(self, event: EventData) -> None:
        assert event.transition is not None, "a change of state comes with its transition"
        source, dest = event.transition.source, event.transition.dest
        if dest is not None and dest != source:
            self.log.add(self.kinds.STATE, source=source, dest=dest, trigger=event.event.name)

    def resolution_is_offered(self, event: EventData) -> bool:
        """Decision 0008: only a supervisor rules on a held round, and only as the kind offers."""
        message = message_of(event)
        if message.operator.role is not Role.SUPERVISOR:
            raise RuleViolation(
                SUPERVISOR_CLEARS,
                f"{message.operator.ident} ({message.operator.role.value}) may not resolve a held round",
            )
        assert self.hold is not None, "only a held round is ruled on"
        offered = self.hold.resolutions
        if message.resolution not in offered:
            clauses = self.clauses
            raise RuleViolation(
                clauses.HELD,
                f"{message.resolution.value} is not offered for {self.hold.kind.code}; "
                f"offered: {', '.join(sorted(r.value for r in offered))}",
            )
        return True

    def resolution_is_void(self, event: EventData) -> bool:
        """Decision 0008: a supervisor, not the dealer, voids a held round."""
        return message_of(event).resolution is Resolution.VOID

    def _hold(
        self,
        kind: Kind,
        irregularity: Irregularity,
        *,
        items: Iterable[Arrival] = (),
        shown: Card | None = None,
    ) -> None:
        self.hold = Hold(kind, irregularity, self.state, list(items), shown)
        self._record_irregularity(kind, irregularity)

    def _record_actions(self, actions: Iterable[A], **cited: str) -> None:
        """Take each settlement action into the round's totals and record it (``cited``: the clause
        of the settlement order, where the game's section sets one)."""
        for action in actions:
            self.actions.append(action)
            self.log.add(
                self.kinds.SETTLEMENT,
                seat=action.seat,
                wager=action.wager.value,
                movement=action.movement.value,
                amount=action.amount,
                net=action.net,
                clause=action.rule.clause,
                **action.details(),
                **cited,
            )

    def _record_irregularity(self, kind: Kind, irregularity: Irregularity) -> None:
        self.log.add(
            self.kinds.IRREGULARITY,
            code=kind.code,
            clause=irregularity.rule.clause,
            rule=irregularity.rule.summary,
            detail=irregularity.detail,
            outcome=kind.outcome.value,
        )
