"""The counters a floor reads a table's pace and trouble from (docs/floor.md ``counters``).

A pit boss asks of every table how fast it deals (rounds per hour), how much it dealt (rounds, and
hands: one seat's play in one round), and how often it stopped: faults latched on its devices, rounds
held for a supervisor's ruling, rounds voided; at a progressive table, how many progressive wagers
the progressive system accepted. Each is counted from what the table publishes (its records, its
rounds' ends, its devices' fault latches), as the simulator's tally is, so the floor's figures are
the trail's. Like a gaming device's meters they only go up: the totals are kept in the floor
spool (croupier.floor_link.spool) with each counters message, so a restart of the table service
goes on from them; ``rounds`` is the table's own count, kept in its state database.

``rounds_per_hour`` is the pace over the last hour: the rounds ended in it, or, while the link has
run less than an hour, the rounds ended since it started scaled to an hour (over at least a minute,
so one quick round does not read as hundreds an hour).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Mapping

from croupier.tables.events import RoundEnded
from games.common.machine_parts import HELD, VOIDED
from games.common.records import Record
from vocabulary.events import Event

#: The totals kept in the spool, besides the table's own round count.
KEPT = ("hands", "faults_latched", "held_rounds", "voided_rounds", "progressive_wagers")
HOUR = 3600.0
#: Every counters message's fields, in order.
FIELDS = ("rounds", "rounds_per_hour", *KEPT)
#: The shortest span the pace is measured over.
LEAST_SPAN = 60.0


class Counters:
    """The table's counters from ``kept`` (the totals the spool holds) on, the pace measured from
    ``started`` (seconds, as ``time.monotonic``)."""

    def __init__(self, kept: Mapping[str, int], started: float) -> None:
        self.totals = {name: int(kept.get(name, 0)) for name in KEPT}
        self.started = started
        self._ended: deque[float] = deque()  # when each round of the last hour ended
        self.ends = 0  # rounds ended since the link started

    def heard(self, event: Event, now: float) -> None:
        """One event of the table's hub, at ``now``."""
        match event:
            case RoundEnded(round=round_):
                self.totals["hands"] += len(round_.positions)
                self._ended.append(now)
                self.ends += 1
            case Record(kind="state", fields=fields):  # every game's STATE kind is "state"
                if fields.get("dest") == HELD:
                    self.totals["held_rounds"] += 1
                elif fields.get("dest") == VOIDED:
                    self.totals["voided_rounds"] += 1
            case Record(kind="progressive_locked", fields=fields):  # the system's accepted count
                self.totals["progressive_wagers"] += int(fields["accepted"] or 0)

    def latched(self) -> None:
        """A fault latched on one of the table's devices."""
        self.totals["faults_latched"] += 1

    def per_hour(self, now: float) -> int:
        """Rounds per hour at ``now``: see the module's docstring."""
        while self._ended and self._ended[0] <= now - HOUR:
            self._ended.popleft()
        span = min(HOUR, max(LEAST_SPAN, now - self.started))
        return round(len(self._ended) * HOUR / span)

    def moved(self) -> tuple[int, ...]:
        """What tells a change of count: a round's end, or any total moving."""
        return (self.ends, *self.totals.values())

    def body(self, rounds: int, now: float) -> dict[str, int]:
        """The counters message's fields: ``rounds``, the table's count, the pace and the totals."""
        return {"rounds": rounds, "rounds_per_hour": self.per_hour(now), **self.totals}
