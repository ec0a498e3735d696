"""The counters a floor reads a table's pace and trouble from (docs/floor.md ``counters``).

A pit boss asks of every table how fast it deals (rounds per hour), how much it dealt (rounds, and
hands: one seat's play in one round), and how often it stopped: faults latched on its devices, rounds
held for a supervisor's ruling, rounds voided; at a progressive table, how many progressive wagers
the progressive system accepted; and how many messages the table could not spool for the floor
(``unspooled``: its disk failed), the gap the floor would otherwise never see. Each is counted from
what the table publishes (its records, its rounds' ends, its devices' fault latches), as the
simulator's tally is, so the floor's figures are the trail's. Like a gaming device's meters they
only go up: the totals are kept in the floor spool (croupier.floor_link.spool) with each counters
message, so a restart of the table service goes on from them; ``rounds`` is the table's own count,
kept in its state database.

A fault is counted once as it latches, by its device and code. One latched while the table starts,
before the link hears the latches (a round a restart cut off, a device swapped), is counted when the
link starts (``found``); one restored from before the restart was counted when it latched: the
faults counted and still latched are kept in the spool with the totals, so the link can tell them
apart.

``rounds_per_hour`` is the pace over the last hour: the rounds ended in it, or, while the link has
run less than an hour, the rounds ended since it started scaled to an hour (over at least a minute,
so one quick round does not read as hundreds an hour).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Mapping

from croupier.tables.events import RoundEnded
from games.common.machine_parts import HELD, VOIDED
from games.common.records import Record
from vocabulary.events import Event

#: The totals kept in the spool, besides the table's own round count.
KEPT = ("hands", "faults_latched", "held_rounds", "voided_rounds", "progressive_wagers", "unspooled")
#: Kept in the spool beside the totals: each fault counted and still latched, ``LATCHED DEVICE/CODE``.
LATCHED = "latched "
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
        self.counted = {name.removeprefix(LATCHED) for name in kept if name.startswith(LATCHED)}
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

    def latched(self, device: str, code: str) -> None:
        """A fault latched on one of the table's devices."""
        self.totals["faults_latched"] += 1
        self.counted.add(f"{device}/{code}")

    def released(self, device: str, code: str) -> None:
        """A fault released: should it latch again, it is counted again."""
        self.counted.discard(f"{device}/{code}")

    def found(self, latched: Iterable[tuple[str, str]]) -> None:
        """The faults latched as the link starts, by device and code: each not counted already (a
        restored one was, as it latched) is counted now."""
        now = {f"{device}/{code}" for device, code in latched}
        self.counted &= now
        for key in sorted(now - self.counted):
            self.latched(*key.split("/", 1))

    def unspooled(self) -> None:
        """A message for the floor the spool could not take, and nothing will send again."""
        self.totals["unspooled"] += 1

    def kept(self) -> dict[str, int]:
        """What the spool keeps with each counters message: the totals and the faults counted."""
        return {**self.totals, **{f"{LATCHED}{key}": 1 for key in sorted(self.counted)}}

    def per_hour(self, now: float) -> int:
        """Rounds per hour at ``now``: see the module's docstring."""
        while self._ended and self._ended[0] <= now - HOUR:
            self._ended.popleft()
        span = min(HOUR, max(LEAST_SPAN, now - self.started))
        return round(len(self._ended) * HOUR / span)

    def moved(self) -> tuple[object, ...]:
        """What tells a change of count: a round's end, any total moving, a fault counted released
        (kept at once, so one latching again at the next start is counted)."""
        return (self.ends, *self.totals.values(), *sorted(self.counted))

    def body(self, rounds: int, now: float) -> dict[str, int]:
        """The counters message's fields: ``rounds``, the table's count, the pace and the totals."""
        return {"rounds": rounds, "rounds_per_hour": self.per_hour(now), **self.totals}
