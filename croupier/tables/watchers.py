"""Who is told of a table's rounds: each round as it begins, every record as it is made, its end,
and the records the table makes between rounds (a burn card, 672a.7(c), 686a.7(c)).

The table service watches to write the audit trail record by record and to mark the round in
progress in the state store; the log line per round and the simulator's summary watch the same way.
A table keeps one ``RoundWatchers`` and tells it of each round; it knows nothing of who watches.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from games.common.records import Record, Value


class RoundWatcher:
    """What a watcher is told; each hears nothing by default and overrides what it needs.

    A ``durable`` watcher makes each record durable (the table service's journal): it is told of
    every record before any other watcher, whatever the order they were added in, so nothing
    publishes or logs a record before it is in the audit trail."""

    durable = False

    def round_began(self, round_: Any) -> None:  # Any: a round of any game
        """A round was made, before any wager or card: its number is taken."""

    def record(self, record: Record) -> None:
        """One record of the round in play, as it is made (RoundLog.attach)."""

    def round_ended(self, round_: Any) -> None:  # Any: a round of any game
        """The round is complete, its cards in the rack, settled or voided."""

    def table_event(self, kind: str, fields: Mapping[str, Value]) -> None:
        """A record of the table's own, made between rounds and belonging to none (a burn): its
        kind and plain fields, in the order made (the journal writes it to the trail as it is)."""


class RoundWatchers:
    """The watchers of one table, told durable ones first, then in the order they were added."""

    def __init__(self) -> None:
        self._watchers: list[RoundWatcher] = []

    def add(self, watcher: RoundWatcher) -> None:
        """Durable watchers go ahead of every other, in the order they were added."""
        if getattr(watcher, "durable", False):  # the journal is a watcher by its methods alone
            self._watchers.insert(sum(1 for w in self._watchers if getattr(w, "durable", False)), watcher)
        else:
            self._watchers.append(watcher)

    def began(self, round_: Any) -> None:  # Any: a round of any game
        for watcher in self._watchers:
            watcher.round_began(round_)
            round_.log.attach(watcher.record)

    def ended(self, round_: Any) -> None:  # Any: a round of any game
        for watcher in self._watchers:
            watcher.round_ended(round_)

    def table_event(self, kind: str, fields: Mapping[str, Value]) -> None:
        for watcher in self._watchers:
            watcher.table_event(kind, fields)
