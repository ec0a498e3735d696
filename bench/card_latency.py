"""Latency from a card frame arriving on the wire to its audit record being durable, against the
raw fsync latency of the same disk.

    python bench/card_latency.py [--count N] [--block N] [--dir PATH]

A simulated shoe (in this process, on its own thread) deals face up over a pty; the clock starts when
the transport hands the first bytes of the response to the supervisor and stops when
``AuditTrail.append`` returns, which is after its fsync (docs/audit.md §5): the time a dealt card
takes to become an acknowledged fact. The floor is a small line written and fsync'd in a loop on a
file in the same directory. The two are measured in alternating blocks in one run, so load changes
on a shared machine affect both alike. Prints median and p99 of each and, last,
``ratio=<card median / fsync median>``.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

import structlog

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.link_rtt import percentile  # noqa: E402
from croupier.audit.writer import AuditTrail  # noqa: E402
from drivers.connection import DeviceConnection, SupervisorSettings  # noqa: E402
from drivers.protocol.core import DeviceClass  # noqa: E402
from drivers.shoe import ShoeDriver  # noqa: E402
from drivers.transport.base import DataCallback, LostCallback  # noqa: E402
from drivers.transport.serial import SerialTransport  # noqa: E402
from firmware_sim.device import SimulatedDevice  # noqa: E402
from firmware_sim.ports.pty import PtyPort  # noqa: E402
from firmware_sim.shoe import ShoePersonality  # noqa: E402
from firmware_sim.world import SHOE, SHOE_TRAY, TableWorld  # noqa: E402

DECKS = 8


class StampedSerial(SerialTransport):
    """A serial transport that notes when the first bytes after ``arm`` arrived: the wire end of
    the measurement, taken before the supervisor sees them."""

    arrived: float | None = None

    def arm(self) -> None:
        self.arrived = None

    async def open(self, on_data: DataCallback, on_lost: LostCallback) -> None:
        def stamped(data: bytes) -> None:
            if self.arrived is None:
                self.arrived = time.perf_counter()
            on_data(data)

        await super().open(stamped, on_lost)


def fsync_once(fd: int) -> float:
    start = time.perf_counter()
    os.write(fd, b'{"kind":"fsync-floor","n":1}\n')
    os.fsync(fd)
    return time.perf_counter() - start


async def measure(directory: Path, count: int, block: int) -> tuple[list[float], list[float]]:
    world = TableWorld()
    world.add_batch(SHOE, "red", DECKS)
    port = PtyPort(SimulatedDevice(ShoePersonality(world=world), name="bench-shoe")).start()
    transports: list[StampedSerial] = []

    def factory() -> StampedSerial:
        transports.append(StampedSerial(port.url))
        return transports[-1]

    conn = DeviceConnection(
        factory,
        name="bench-shoe",
        expected_class=DeviceClass.SHOE,
        settings=SupervisorSettings(heartbeat_interval=3600.0),
    )
    driver = ShoeDriver(conn)
    fd = os.open(directory / "fsync-floor.log", os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    floor: list[float] = []
    cards: list[float] = []
    try:
        with AuditTrail(directory / "audit", "bench-table") as trail:
            await conn.start()
            await conn.wait_ready(10.0)

            async def deal_one() -> float:
                if world.count(SHOE) == 0:
                    world.move_all(SHOE_TRAY, SHOE)  # the same cards again: the shoe never empties
                transports[-1].arm()
                dealt = await driver.dispense(face_up=True)
                trail.append("card_dealt", 1, {"card": dealt.cards[0], "spot": "box-1"})
                end = time.perf_counter()
                assert transports[-1].arrived is not None
                return end - transports[-1].arrived

            for _ in range(50):  # warm-up both paths
                await deal_one()
                fsync_once(fd)
            while len(cards) < count:
                floor += [fsync_once(fd) for _ in range(block)]
                for _ in range(block):
                    cards.append(await deal_one())
    finally:
        await conn.stop()
        port.stop()
        os.close(fd)
    return floor, cards


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--count", type=int, default=2000, help="samples of each kind")
    parser.add_argument("--block", type=int, default=100, help="samples per alternating block")
    parser.add_argument("--dir", type=Path, default=None, help="directory on the disk to measure")
    args = parser.parse_args()
    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(logging.WARNING))
    with tempfile.TemporaryDirectory(dir=args.dir) as tmp:
        floor, cards = asyncio.run(measure(Path(tmp), args.count, args.block))
    for name, samples in (("raw fsync", floor), ("card to audit", cards)):
        print(
            f"{name:>13}: median {statistics.median(samples) * 1e6:8.1f} us   "
            f"p99 {percentile(samples, 0.99) * 1e6:8.1f} us   (n={len(samples)})"
        )
    print(f"ratio={statistics.median(cards) / statistics.median(floor):.2f}")


if __name__ == "__main__":
    main()
