"""What a developer watches while the simulator plays: a live view of the felt, the shoe, the meters
and the devices, redrawn with plain ANSI codes when stdout is a terminal, or a one-line progress bar
on stderr for a batch run. Plain text rather than a TUI library: nothing to install, and a pipe or a
log file never receives escape codes (the command only draws on a terminal, never with --json).
"""

from __future__ import annotations

import sys
from typing import Any, TextIO

from croupier.tables.events import HeardRound, RoundListener
from firmware_sim.world import DISCARD, SHOE
from games.common.records import Record
from simulator.summary import Tally

CLEAR = "\x1b[H\x1b[2J"
WIDTH = 30


def _money(cents: int) -> str:
    return f"{'-' if cents < 0 else ''}${abs(cents) / 100:,.2f}"


class LiveView(RoundListener):
    """A table listener that redraws the whole screen after each record: the round's last records
    (the felt), the card counts (the shoe and rack), the house meters and each device's state."""

    def __init__(
        self, sim: Any, tally: Tally, *, game: str, rounds: int, out: TextIO = sys.stdout  # Any: any table
    ) -> None:
        self.sim, self.tally, self.game, self.rounds, self.out = sim, tally, game, rounds, out
        self.recent: list[str] = []

    def round_began(self, round_: HeardRound) -> None:
        self.recent = []

    def record(self, record: Record) -> None:
        if record.kind.value == "state":
            return
        detail = " ".join(f"{k}={v}" for k, v in record.fields.items() if k not in ("clause", "rule"))
        self.recent = [*self.recent[-11:], f"  {record.kind.value:<14} {detail}"[:110]]
        self.draw(record.round)

    def round_ended(self, round_: HeardRound) -> None:
        self.draw(round_.number)

    def draw(self, number: int) -> None:
        world, tally = self.sim.world, self.tally
        lines = [
            f"croupier sim - {self.game} - round {number} of {self.rounds}",
            "",
            "felt:",
            *self.recent,
            "",
            f"shoe: {world.count(SHOE)} cards   rack: {world.count(DISCARD)} cards",
            "meters (house): "
            + ", ".join(f"{wager} {_money(net)}" for wager, net in sorted(tally.house.items()))
            + f"   total {_money(sum(tally.house.values()))}",
            *self._progressive(),
            f"irregularities: {sum(tally.irregularities.values())}   faults: {sum(tally.faults.values())}",
            "devices: "
            + ", ".join(f"{name} {conn.state.value}" for name, conn in sorted(self.sim.connections.items())),
        ]
        self.out.write(CLEAR + "\n".join(lines) + "\n")
        self.out.flush()

    def _progressive(self) -> list[str]:
        """The progressive meters as the table last read them (a table with a progressive only):
        each level's value, hits and whether a hit froze it."""
        progressive = getattr(self.sim.table, "progressive", None)
        if progressive is None:
            return []
        levels = [
            f"L{level} {_money(info.value_cents)} ({info.hits} hits{', FROZEN' if info.frozen else ''})"
            for level, info in sorted(progressive.levels.items())
        ]
        return ["meters (progressive): " + ", ".join(levels)]


class ProgressBar(RoundListener):
    """A table listener drawing one line on stderr: how many rounds are done, of how many."""

    def __init__(self, rounds: int, out: TextIO = sys.stderr) -> None:
        self.rounds, self.out, self.done = rounds, out, 0

    def round_ended(self, round_: HeardRound) -> None:
        self.done += 1
        filled = WIDTH * self.done // max(self.rounds, 1)
        self.out.write(f"\r[{'#' * filled}{'.' * (WIDTH - filled)}] {self.done}/{self.rounds} rounds")
        if self.done >= self.rounds:
            self.out.write("\n")
        self.out.flush()
