"""What a table tells its listeners (decision 0031): each round as it begins, every record the
round's ``handle`` returned, its end, and the records the table makes between rounds (a burn card,
672a.7(c), 686a.7(c)); the hub they are published on is the table's ``events``
(vocabulary.events).

The journal subscribes as a durable listener, so each record is in the audit trail before anyone
else hears it; the API's event stream, the run's log line per round and the simulator's live view
and summary listen the same way. A table knows nothing of who listens.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Protocol

from games.common.messages import Message
from games.common.records import Record, RoundLog, Value
from vocabulary.events import Event, Events


class HeardRound(Protocol):
    """What a listener reads from a round of any game (games.common.round_base.RoundBase): its
    number, its state, its positions by seat and each seat's net."""

    @property
    def number(self) -> int: ...

    @property
    def state(self) -> str: ...

    @property
    def positions(self) -> Mapping[int, object]: ...

    def net(self, seat: int) -> int: ...


class PlayedRound(HeardRound, Protocol):
    """What a table needs of a round of any game to play it, besides what its listeners read: the
    round takes each message (``handle``), and has the records it made, each logged as published."""

    @property
    def records(self) -> tuple[Record, ...]: ...

    @property
    def log(self) -> RoundLog: ...

    def handle(self, message: Message) -> tuple[Record, ...]: ...


@dataclass(frozen=True)
class RoundBegan(Event):
    """A round was made, before any wager or card: its number is taken."""

    round: HeardRound


@dataclass(frozen=True)
class RoundEnded(Event):
    """The round is complete, its cards in the rack, settled or voided."""

    round: HeardRound


@dataclass(frozen=True)
class TableRecord(Event):
    """A record of the table's own, made between rounds and belonging to none (a burn): its kind and
    plain fields, in the order made (the journal writes it to the trail as it is)."""

    kind: str
    fields: Mapping[str, Value]


@dataclass(frozen=True)
class Opening(Event):
    """A step of the table's opening for the day, told as it begins (on real equipment an opening
    reads, opens and shuffles for a while, and waits on the dealer's hands): ``state`` is "under way"
    for each step, "held" (the fault as ``step``) when a latched fault holds it until a supervisor's
    clear, then "open" once the table is open or "refused" with the reason as ``step``."""

    step: str
    state: str = "under way"


class Publishing:
    """Mixed into every table: its ``events`` hub, and the one path a round's records take out of
    it. ``handle`` returns them; the table publishes each once, durable listeners (the journal)
    first, then logs its line, before it does anything the message led to or acknowledges it."""

    events: Events

    def _give(self, round_: PlayedRound, message: Message) -> tuple[Record, ...]:
        """Give the round one message; its records are written and published before this returns.
        Raises the round's RuleViolation (nothing changed, nothing published)."""
        return self._published(round_, round_.handle(message))

    def _began(self, round_: PlayedRound) -> None:
        """A new round, told before any of its records (those made as it was, if any, next)."""
        self.events.publish(RoundBegan(round_))
        self._published(round_, round_.records)

    def _opening(self, step: str) -> None:
        """A step of the opening begins: told to whoever shows the table's progress."""
        self.events.publish(Opening(step))

    def _ended(self, round_: HeardRound) -> None:
        self.events.publish(RoundEnded(round_))

    def _published(self, round_: PlayedRound, records: tuple[Record, ...]) -> tuple[Record, ...]:
        for record in records:
            self.events.publish(record)
            round_.log.log_line(record)
        return records


class RoundListener:
    """A listener of a table's events that hears each kind by a method of its own; each hears
    nothing by default and a subclass overrides what it needs."""

    def __call__(self, event: Event, /) -> None:
        if isinstance(event, Record):
            self.record(event)
        elif isinstance(event, RoundBegan):
            self.round_began(event.round)
        elif isinstance(event, RoundEnded):
            self.round_ended(event.round)
        elif isinstance(event, TableRecord):
            self.table_event(event.kind, event.fields)

    def round_began(self, round_: HeardRound) -> None:
        """A round was made, before any wager or card."""

    def record(self, record: Record) -> None:
        """One record of the round in play, once it is in the audit trail."""

    def round_ended(self, round_: HeardRound) -> None:
        """The round is complete."""

    def table_event(self, kind: str, fields: Mapping[str, Value]) -> None:
        """A record of the table's own, between rounds."""
