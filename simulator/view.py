"""What a developer watches while the simulator plays: a live view of the table drawn with rich when
stdout is a terminal (the seats as ``croupier run`` lays them out, croupier.commands.terminal; the
table's own cards, the shoe and rack counts, the meters, the devices, how fast the rounds go and
how long is left), or a one-line progress bar on stderr for a batch run. A pipe or a log file never
receives either (the command draws only on a terminal, never with --json).
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TextIO

from rich.console import Group, RenderableType
from rich.text import Text

from croupier.commands.terminal import Felt, devices_line, money, seat_layout, table_places
from croupier.tables.events import HeardRound, RoundListener
from firmware_sim.world import DISCARD, SHOE
from simulator.summary import Tally

WIDTH = 30


@dataclass(frozen=True)
class Course:
    """How long a run goes on: ``rounds`` (0: no limit) and ``seconds`` (0: no limit), whichever
    ends it first, from ``started`` on ``clock``."""

    rounds: int
    seconds: float
    started: float
    clock: Callable[[], float] = time.monotonic

    def elapsed(self) -> float:
        return self.clock() - self.started

    def done(self, played: int) -> bool:
        out_of_time = bool(self.seconds) and self.elapsed() >= self.seconds
        return bool(self.rounds and played >= self.rounds) or out_of_time

    def share(self, played: int) -> float:
        """How much of the run is done, from 0 to 1."""
        shares = [played / self.rounds] if self.rounds else []
        shares += [self.elapsed() / self.seconds] if self.seconds else []
        return min(1.0, max(shares, default=0.0))

    def left(self, played: int) -> float | None:
        """Seconds left: the time limit's, or the rounds left at the pace so far (None before a
        round is played to measure it)."""
        lefts = [self.seconds - self.elapsed()] if self.seconds else []
        rate = played / self.elapsed() if played and self.elapsed() > 0 else 0.0
        if self.rounds and rate:
            lefts.append((self.rounds - played) / rate)
        return max(0.0, min(lefts)) if lefts else None


class SimView:
    """The simulated table as a rich renderable, read afresh at each redraw: the round and the run's
    pace, the seats and the table's cards (from the records alone, ``felt``: a face-down card is a
    back until its record turns it up), the card counts, the house and progressive meters, the
    irregularities and faults, and each device's link."""

    def __init__(
        self, sim: Any, tally: Tally, felt: Felt, course: Course, *, game: str  # Any: any simulated table
    ) -> None:
        self.sim, self.tally, self.felt, self.course, self.game = sim, tally, felt, course, game

    def __rich__(self) -> RenderableType:
        world, tally, felt, course = self.sim.world, self.tally, self.felt, self.course
        played = tally.rounds
        header = Text(f"croupier sim - {self.game} - round {felt.number}", style="bold")
        header.append(f" of {course.rounds}" if course.rounds else "")
        header.append(f" ({felt.state})", style="")
        elapsed = course.elapsed()
        pace = Text(f"{played / elapsed if elapsed > 0 else 0.0:.2f} rounds/s")
        left = course.left(played)
        pace.append(f" - {_duration(left)} left" if left is not None else "")
        parts: list[RenderableType] = [header, pace, seat_layout(felt)]
        if felt.places:
            parts.append(table_places(felt))
        house = ", ".join(f"{wager} {money(net)}" for wager, net in sorted(tally.house.items()))
        parts += [
            Text(f"shoe: {world.count(SHOE)} cards   rack: {world.count(DISCARD)} cards"),
            Text(f"meters (house): {house or 'none'}   total {money(sum(tally.house.values()))}"),
            *self._progressive(),
            Text(
                f"irregularities: {sum(tally.irregularities.values())}   "
                f"faults: {sum(tally.faults.values())}",
                style="yellow" if tally.irregularities or tally.faults else "",
            ),
            devices_line({name: conn.state.value for name, conn in self.sim.connections.items()}),
        ]
        if felt.outcomes:
            parts.append(Text("last rounds: " + "; ".join(felt.outcomes), style="dim"))
        return Group(*parts)

    def _progressive(self) -> list[Text]:
        """The progressive meters as the table last read them (a table with a progressive only):
        each level's value, hits and whether a hit froze it."""
        progressive = getattr(self.sim.table, "progressive", None)
        if progressive is None:
            return []
        levels = [
            f"L{level} {money(info.value_cents)} ({info.hits} hits{', FROZEN' if info.frozen else ''})"
            for level, info in sorted(progressive.levels.items())
        ]
        return [Text("meters (progressive): " + ", ".join(levels))]


def _duration(seconds: float) -> str:
    minutes, seconds = divmod(round(seconds), 60)
    return f"{minutes}:{seconds:02d}"


class ProgressBar(RoundListener):
    """A table listener drawing one line on stderr: how many rounds are done and how much of the run."""

    def __init__(self, course: Course, out: TextIO = sys.stderr) -> None:
        self.course, self.out, self.done = course, out, 0

    def round_ended(self, round_: HeardRound) -> None:
        self.done += 1
        filled = round(WIDTH * self.course.share(self.done))
        of = f"/{self.course.rounds}" if self.course.rounds else ""
        self.out.write(f"\r[{'#' * filled}{'.' * (WIDTH - filled)}] {self.done}{of} rounds")
        if self.course.done(self.done):
            self.out.write("\n")
        self.out.flush()
