"""The wire trace over a real pty to a simulated shuffler: TX and RX lines with frame summaries, the
sealed shuffled order never in the file, switching it off and on without reconnecting, and its one
rotation at the size cap."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

from drivers.protocol.classes.shuffler import ConfigureBatch, ReadShuffledOrder, ShuffledOrderPage
from drivers.protocol.core import CATALOG, DeviceClass, GetStatus
from drivers.protocol.frame import Frame, Kind
from drivers.protocol.message import Status
from drivers.shuffler import ShufflerDriver
from drivers.trace import MASK, Redactor, WireTrace
from drivers.transport.serial import SerialTransport
from firmware_sim.device import SimulatedDevice
from firmware_sim.ports.pty import PtyPort
from firmware_sim.shuffler import ShufflerPersonality
from firmware_sim.world import SHUFFLER_INPUT, TableWorld
from tests.links import Rig, connected, run

DEVICE = "shuffler-trace"
BACK = "red"


@dataclass
class Traced:
    rig: Rig
    trace: WireTrace
    world: TableWorld

    @property
    def personality(self) -> ShufflerPersonality:
        return self.rig.device.engine.personality  # type: ignore[return-value]


@contextlib.asynccontextmanager
async def traced(path: Path, decks: int = 1, **trace_options: object) -> AsyncIterator[Traced]:
    """A simulated shuffler over a pty, configured for ``decks`` decks, its link traced to ``path``."""
    world = TableWorld()
    personality = ShufflerPersonality(world=world, config=ConfigureBatch(decks, 0, BACK))
    port = PtyPort(SimulatedDevice(personality, name=DEVICE)).start()
    # One file per device in a trace directory: the test's ``path`` is that file.
    assert path.name == f"{DEVICE}.trace"
    with WireTrace.in_directory(path.parent, DEVICE, **trace_options) as trace:
        async with connected(port, SerialTransport, expected_class=DeviceClass.SHUFFLER, trace=trace) as rig:
            yield Traced(rig, trace, world)
    world.check()


def lines(path: Path, direction: str) -> list[str]:
    return [line for line in path.read_text().splitlines() if line.split()[1] == direction]


def stream(path: Path, direction: str) -> list[str]:
    """The hex tokens of every chunk line of one direction, in order (``**`` for a masked byte)."""
    return [token for line in lines(path, direction) if line.split()[3] != "=" for token in line.split()[3:]]


def test_handshake_is_traced_both_ways_with_frame_summaries(tmp_path):
    path = tmp_path / f"{DEVICE}.trace"

    async def scenario():
        async with traced(path) as t:
            await t.rig.conn.request(GetStatus())

    run(scenario())
    tx, rx = lines(path, "TX"), lines(path, "RX")
    assert all(line.split()[2] == DEVICE for line in tx + rx)
    assert any(line.endswith(" Hello") and "= COMMAND seq=" in line for line in tx)
    assert any(line.endswith(" Hello->Identity") and "= RESPONSE seq=" in line for line in rx)
    assert any(line.endswith(" GetStatus->DeviceStatus") for line in rx)
    hello = bytes.fromhex("".join(stream(path, "TX")))  # nothing is masked on the way out
    assert hello.startswith(b"\xa5\x5a") and MASK not in stream(path, "TX")
    times = [float(line.split()[0]) for line in tx + rx]
    assert all(t > 0 for t in times)


def test_shuffled_order_pages_are_redacted_with_their_crc(tmp_path):
    path = tmp_path / f"{DEVICE}.trace"

    async def scenario() -> bytes:
        async with traced(path, decks=6) as t:
            t.world.add_batch(SHUFFLER_INPUT, BACK, 6)
            driver = ShufflerDriver(t.rig.conn)
            report = await driver.shuffle()
            order = await driver.read_order(report)  # 312 cards: two pages
            assert len(order) == 312
            return t.personality.last.order  # type: ignore[union-attr]

    order = run(scenario())
    text = path.read_text()
    rx = stream(path, "RX")
    assert text.count("ReadShuffledOrder->ShuffledOrderPage [redacted: ") == 2
    # Every face byte, and the two CRCs, masked: at least one "**" per card plus 2 per page.
    assert rx.count(MASK) >= len(order) + 2 * 2
    # No run of the order's bytes anywhere in what was received, wherever a chunk was cut.
    seen = " ".join(rx)
    windows = {" ".join(f"{b:02x}" for b in order[i : i + 8]) for i in range(len(order) - 7)}
    assert not [w for w in windows if w in seen]
    # Unmasked bytes are still there: the frames around the pages are traced in clear.
    assert any(line.endswith(" Shuffle->ShuffleReport") for line in lines(path, "RX"))


def test_redaction_does_not_depend_on_how_bytes_are_chunked():
    page = ShuffledOrderPage(1, 0, 3, (0x11, 0x22, 0x33), b"\x44" * 16)
    body = bytes([Status.OK]) + page.to_payload()
    frame = Frame(1, Kind.RESPONSE, True, 7, ReadShuffledOrder.MSG_ID, body).encode()
    noise = b"\xa5\x5a\x01"  # a false sync ahead of the frame
    wire = noise + frame + Frame(1, Kind.ACK, True, 8, 0).encode()
    whole = Redactor(CATALOG).mask(wire)
    one_by_one = Redactor(CATALOG)
    assert [m for b in wire for m in one_by_one.mask(bytes([b]))] == whole
    secret_start = len(noise) + 8
    assert [i for i, m in enumerate(whole) if m] == list(range(secret_start, len(noise) + len(frame)))


def test_a_disabled_trace_writes_nothing_until_switched_on(tmp_path):
    path = tmp_path / f"{DEVICE}.trace"

    async def scenario():
        async with traced(path, enabled=False) as t:
            await t.rig.conn.request(GetStatus())
            assert not path.exists()
            t.trace.enabled = True  # no reconnect: the same link
            await t.rig.conn.request(GetStatus())
            t.trace.enabled = False
            size = path.stat().st_size
            await t.rig.conn.request(GetStatus())
            assert path.stat().st_size == size
            return size

    size = run(scenario())
    assert path.stat().st_size == size
    rx = lines(path, "RX")
    assert any(line.endswith(" GetStatus->DeviceStatus") for line in rx)
    assert not any("Hello" in line for line in path.read_text().splitlines())  # handshake was off


def test_the_trace_rotates_once_at_its_cap(tmp_path):
    path = tmp_path / f"{DEVICE}.trace"
    cap = 2000

    async def scenario():
        async with traced(path, max_bytes=cap) as t:
            for _ in range(60):
                await t.rig.conn.request(GetStatus())

    run(scenario())
    rotated = path.with_name(path.name + ".1")
    assert rotated.exists() and not path.with_name(path.name + ".2").exists()
    assert path.stat().st_size <= cap and rotated.stat().st_size <= cap
    older = [float(line.split()[0]) for line in rotated.read_text().splitlines()]
    newer = [float(line.split()[0]) for line in path.read_text().splitlines()]
    assert older and newer and max(older) <= min(newer)
