"""Latency from a card frame arriving on the wire to its audit record being durable, against the
raw fsync latency of the same disk.

    python bench/card_latency.py [--count N] [--block N] [--dir PATH] [--simulated-devices child]

The whole path of the table service: a simulated Free Bet Blackjack table (its shoe behind a pty,
in this process on its own thread, or with ``--simulated-devices child`` in a child process as
``croupier run`` serves it, decision 0048) plays rounds with simulated players, its rounds written by the
service's journal (croupier.service.journal) to a real audit trail and state database. The clock
starts when the shoe's connection receives the bytes of the dispense response (its wire-trace hook,
before the link decodes them) and stops when the journal has written the card's record, after its
fsync (docs/audit.md §5): through the driver, the shoe's rules, the table, the round machine and the
trail — the time a dealt card takes to become an acknowledged fact. The floor is a small line
written and fsync'd in a loop on a file in the same directory. The two are measured in alternating
blocks in one run, so load changes on a shared machine affect both alike. Prints median and p99 of
each and, last, ``ratio=<card median / fsync median>``.
"""

from __future__ import annotations

import argparse
import logging
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

import structlog

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench._common import percentile  # noqa: E402
from croupier.audit.writer import AuditTrail  # noqa: E402
from croupier.commands.run import SIMULATED_DEVICES  # noqa: E402
from croupier.service.journal import TableJournal  # noqa: E402
from croupier.state import TableState  # noqa: E402
from croupier.tables.events import RoundListener  # noqa: E402
from drivers import event_loop  # noqa: E402
from drivers.connection import SupervisorSettings  # noqa: E402
from games.common.records import Record, RecordKind  # noqa: E402
from simulator.players import simulated_players  # noqa: E402
from simulator.tables import simulated_table  # noqa: E402

GAME = "free-bet-blackjack"


class WireStamp:
    """Stands where a connection's wire trace goes: notes when the shoe's last bytes arrived."""

    def __init__(self) -> None:
        self.arrived = 0.0

    def sent(self, data: bytes) -> None:
        pass

    def received(self, data: bytes) -> None:
        self.arrived = time.perf_counter()


class CardClock(RoundListener):
    """A table listener after the journal: a card's record has been written when it is told of it."""

    def __init__(self, stamp: WireStamp) -> None:
        self.stamp, self.samples = stamp, list[float]()

    def record(self, record: Record) -> None:
        if record.kind is RecordKind.CARD:
            self.samples.append(time.perf_counter() - self.stamp.arrived)


def fsync_once(fd: int) -> float:
    start = time.perf_counter()
    os.write(fd, b'{"kind":"fsync-floor","n":1}\n')
    os.fsync(fd)
    return time.perf_counter() - start


async def measure(
    directory: Path, count: int, block: int, in_child: bool = False
) -> tuple[list[float], list[float]]:
    quiet = SupervisorSettings(heartbeat_interval=3600.0)  # no status poll between reply and record
    fd = os.open(directory / "fsync-floor.log", os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    floor: list[float] = []
    try:
        with (
            AuditTrail(directory / "audit", "bench-table") as trail,
            TableState(directory / "state.sqlite3") as state,
        ):
            async with simulated_table(GAME, name="bench-table", settings=quiet, in_child=in_child) as sim:
                stamp = WireStamp()
                sim.connections["shoe"].trace = stamp  # type: ignore[assignment]
                TableJournal(trail, state, table="bench-table", game=GAME).keep(sim.table)
                clock = CardClock(stamp)
                sim.table.events.subscribe(clock)
                players = simulated_players(GAME, random.Random(1))
                for _ in range(5):  # warm-up both paths
                    await sim.table.play_round(players)
                    fsync_once(fd)
                clock.samples.clear()
                while len(clock.samples) < count:  # a block of rounds, then as many fsyncs as cards
                    before = len(clock.samples)
                    while len(clock.samples) < before + block:
                        await sim.table.play_round(players)
                    floor += [fsync_once(fd) for _ in range(len(clock.samples) - before)]
                cards = clock.samples[:count]
                floor = floor[:count]
    finally:
        os.close(fd)
    return floor, cards


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--count", type=int, default=2000, help="samples of each kind")
    parser.add_argument("--block", type=int, default=100, help="card samples per alternating block")
    parser.add_argument("--dir", type=Path, default=None, help="directory on the disk to measure")
    parser.add_argument("--simulated-devices", choices=SIMULATED_DEVICES, default="in-process")
    args = parser.parse_args()
    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(logging.WARNING))
    logging.getLogger().setLevel(logging.WARNING)
    with tempfile.TemporaryDirectory(dir=args.dir) as tmp:
        in_child = args.simulated_devices == "child"
        floor, cards = event_loop.run(measure(Path(tmp), args.count, args.block, in_child))
    for name, samples in (("raw fsync", floor), ("card to audit", cards)):
        print(
            f"{name:>13}: median {statistics.median(samples) * 1e6:8.1f} us   "
            f"p99 {percentile(samples, 0.99) * 1e6:8.1f} us   (n={len(samples)})"
        )
    print(f"ratio={statistics.median(cards) / statistics.median(floor):.2f}")


if __name__ == "__main__":
    main()
