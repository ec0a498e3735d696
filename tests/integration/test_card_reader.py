"""The hole-card peek end to end: CardReader (devices/) over CardReaderDriver over DeviceConnection,
to a simulated reader behind a real pseudo-terminal and behind the simulated USB bus.

The test is the dealer: it slides a known hole card from the dealer's place into the world's READER
and back (672a.7(g)), and checks the card count after every scenario.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import re
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

import pytest
import structlog.testing

from devices.card_reader import DAILY_INSPECTION, PEEK_ONLY_ON_ACE_OR_TEN, CardReader
from devices.faults import LATCH_BLOCKS
from drivers.card_reader import CardReaderDriver
from drivers.errors import DeviceRefused
from drivers.protocol.classes.card_reader import PeekAnswer
from drivers.protocol.core import DeviceClass, Hello
from drivers.protocol.frame import Frame, FrameDecoder
from drivers.transport.base import Transport
from drivers.transport.serial import SerialTransport
from drivers.transport.usb import UsbTransport
from firmware_sim.card_reader import CardReaderPersonality
from firmware_sim.device import SimulatedDevice
from firmware_sim.faults import ChannelFaults, FaultPlan
from firmware_sim.ports import Port
from firmware_sim.ports.pty import PtyPort
from firmware_sim.ports.usb import SimulatedUsbBus, UsbPort
from firmware_sim.world import DEALER, READER, TableWorld
from tests.links import FAST, connected, run
from vocabulary.cards import Card
from vocabulary.operators import SUPERVISOR_CLEARS, Operator, Role
from vocabulary.rules import RuleViolation

NO_HEARTBEAT = dataclasses.replace(FAST, heartbeat_interval=30.0)  # only the test's own frames
FLOORPERSON = Operator("floor-0042", Role.SUPERVISOR)
DEALER_ON_SHIFT = Operator("dealer-0007", Role.DEALER)
TRANSPORTS = ["pty", "usb"]


@dataclass
class Table:
    """One reader on a table: the simulated device, the world it reads, the host's stack on top."""

    world: TableWorld
    device: SimulatedDevice
    personality: CardReaderPersonality
    reader: CardReader

    @property
    def frames_out(self) -> int:
        return self.reader.driver.conn.link.counters.frames_out

    def slide_in(self, hole: str) -> None:
        """The dealer moves a hole card, face down, into the reader."""
        self.world.add(DEALER, [Card.parse(hole)], "blue", at=0)
        self.world.move(DEALER, READER)

    def take_back(self) -> None:
        self.world.move_all(READER, DEALER)

    async def until(self, state: str, timeout: float = 3.0) -> None:
        """Wait for the event pump to bring the reader to ``state``."""
        async with asyncio.timeout(timeout):
            while self.reader.state != state:
                await asyncio.sleep(0.005)

    async def latched(self, timeout: float = 3.0) -> None:
        """Wait for the event pump to latch a fault (the latch beside the state, decision 0009)."""
        async with asyncio.timeout(timeout):
            while not self.reader.latch:
                await asyncio.sleep(0.005)


async def _pump(reader: CardReader) -> None:
    """What the table service does: apply the driver's events to the rules, in order."""
    while True:
        reader.apply(await reader.driver.next_event())


def _port(transport: str, device: SimulatedDevice) -> tuple[Port, Callable[[str], Transport]]:
    if transport == "pty":
        return PtyPort(device).start(), SerialTransport
    bus = SimulatedUsbBus()
    return UsbPort(device, bus).start(), lambda url: UsbTransport(url, backend=bus)


@contextlib.asynccontextmanager
async def table(
    transport: str, *, settings: object = FAST, wrap: Callable[[str], str] = str, inspect: bool = True
) -> AsyncIterator[Table]:
    """A connected reader, inspected for the day unless told otherwise; cards counted at the end."""
    world = TableWorld()
    personality = CardReaderPersonality(world=world, serial_number="CR-0001")
    device = SimulatedDevice(personality, seed=7, name="card-reader")
    port, make_transport = _port(transport, device)
    async with connected(
        port,
        lambda url: make_transport(wrap(url)),
        settings=settings,  # type: ignore[arg-type]
        expected_class=DeviceClass.CARD_READER,
    ) as rig:
        reader = CardReader(CardReaderDriver(rig.conn), clock=lambda: datetime(2026, 3, 2, 12, 0))
        pump = asyncio.ensure_future(_pump(reader))
        try:
            here = Table(world, device, personality, reader)
            await here.until("uninspected")
            if inspect:
                await reader.record_inspection(FLOORPERSON)
            yield here
        finally:
            pump.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await pump
    world.check()


def blackjack(up: str, hole: str) -> bool:
    """Two-card 21 by card values (673a.3(d), analog): an ace and a T, J, Q or K."""
    ranks = {up[0], hole[0]}
    return "A" in ranks and bool(ranks & set("TJQK"))


UP_CARDS = ["As", "Td", "Jc", "Qh", "Ks"]
HOLE_CARDS = ["Ac", "Th", "Js", "Qd", "Kc", "2c", "3d", "4h", "5s", "6c", "7d", "8h", "9s"]


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_672a_7_g_peek_answers_blackjack_or_not_for_every_up_and_hole_card(transport):
    async def scenario() -> None:
        async with table(transport) as t:
            for up in UP_CARDS:
                for hole in HOLE_CARDS:
                    t.slide_in(hole)
                    assert await t.reader.peek(Card.parse(up)) is blackjack(up, hole), (up, hole)
                    t.take_back()
                    t.reader.end_round()
            assert t.personality.peeks_since_power_on == len(UP_CARDS) * len(HOLE_CARDS)

    run(scenario())


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_672a_7_g_no_peek_with_a_seven_up_and_not_a_byte_sent(transport):
    async def scenario() -> None:
        async with table(transport, settings=NO_HEARTBEAT) as t:
            t.slide_in("Kh")
            sent = t.frames_out
            with pytest.raises(RuleViolation, match=r"no peek with 7c up") as refused:
                await t.reader.peek(Card.parse("7c"))
            assert refused.value.rule == PEEK_ONLY_ON_ACE_OR_TEN
            assert t.frames_out == sent, "the refusal is the host's: nothing went on the wire"
            assert t.personality.peeks_since_power_on == 0
            t.take_back()

    run(scenario())


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_no_card_in_the_reader_latches_no_card_until_a_supervisor_clears_it(transport):
    async def scenario() -> None:
        async with table(transport) as t:
            with pytest.raises(DeviceRefused, match="no card in the reader: NO_CARD latched"):
                await t.reader.peek(Card.parse("As"))
            await t.latched()
            assert [f.code for f in t.reader.latch.faults] == ["NO_CARD"]
            t.slide_in("Kh")
            with pytest.raises(RuleViolation) as blocked:
                await t.reader.peek(Card.parse("As"))
            assert blocked.value.rule == LATCH_BLOCKS
            with pytest.raises(RuleViolation) as dealer:
                await t.reader.clear("NO_CARD", DEALER_ON_SHIFT)
            assert dealer.value.rule == SUPERVISOR_CLEARS
            await t.reader.clear("NO_CARD", FLOORPERSON)
            assert t.reader.state == "ready", "a missing card does not void the day's inspection"
            assert await t.reader.peek(Card.parse("As")) is True
            t.take_back()

    run(scenario())


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_673a_2_d_tamper_latches_needs_a_supervisor_and_a_new_inspection(transport):
    async def scenario() -> None:
        async with table(transport) as t:
            t.device.call(t.personality.tamper)
            await t.latched()
            assert [f.code for f in t.reader.latch.faults] == ["TAMPER"]
            assert t.reader.inspection is None
            with pytest.raises(RuleViolation) as dealer:
                await t.reader.clear("TAMPER", DEALER_ON_SHIFT)
            assert dealer.value.rule == SUPERVISOR_CLEARS
            with pytest.raises(DeviceRefused, match="TAMPER condition still present"):
                await t.reader.clear("TAMPER", FLOORPERSON)
            t.device.call(lambda engine: t.personality.restore_seal())
            await t.reader.clear("TAMPER", FLOORPERSON)
            assert t.reader.state == "uninspected"
            t.slide_in("Ah")
            with pytest.raises(RuleViolation) as uninspected:
                await t.reader.peek(Card.parse("Td"))
            assert uninspected.value.rule == DAILY_INSPECTION
            t.take_back()  # the self-test needs an empty slot
            record = await t.reader.record_inspection(FLOORPERSON)
            assert record.passed and record.serial_number == "CR-0001"
            t.slide_in("Ah")
            assert await t.reader.peek(Card.parse("Td")) is True
            t.take_back()

    run(scenario())


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_a_peek_whose_response_is_lost_is_answered_from_the_cache(transport):
    async def scenario() -> None:
        async with table(transport, settings=NO_HEARTBEAT) as t:
            t.slide_in("Qs")
            executions = t.device.call(lambda engine: engine.executions)
            retransmissions = t.reader.driver.conn.link.counters.retransmissions
            t.device.set_faults(FaultPlan(outbound=ChannelFaults(drop_next=1)))
            assert await t.reader.peek(Card.parse("Ac")) is True
            assert t.reader.driver.conn.link.counters.retransmissions == retransmissions + 1
            assert t.device.call(lambda engine: engine.executions) == executions + 1
            assert t.personality.peeks_since_power_on == 1
            t.take_back()

    run(scenario())


# -- secrecy: what crosses the wire and what is logged -------------------------------------------------
_SPY_LINE = re.compile(r"^\S+ (TX|RX)\s+[0-9A-F]{4}  (.*)$")
_SPY_HEX_COLUMNS = 16 * 3 + 1  # pyserial's hexdump: 16 bytes, an extra space after the eighth


def wire_frames(trace: Path) -> list[tuple[str, Frame]]:
    """Every frame of a spy:// trace, by direction, decoded from its hex dump."""
    streams = {"TX": bytearray(), "RX": bytearray()}
    for line in trace.read_text().splitlines():
        match = _SPY_LINE.match(line)
        if match:
            streams[match[1]] += bytes.fromhex(match[2][:_SPY_HEX_COLUMNS])
    return [
        (direction, item)
        for direction, data in streams.items()
        for item in FrameDecoder().feed(bytes(data))
        if isinstance(item, Frame)
    ]


def peek_session(trace: Path, hole: str) -> tuple[list[tuple[str, Frame]], list[dict[str, object]]]:
    """Peek at ``hole`` with an ace and with a ten up, over a pty traced into ``trace``, logs captured."""

    async def scenario() -> None:
        async with table("pty", settings=NO_HEARTBEAT, wrap=lambda url: f"spy://{url}?file={trace}") as t:
            t.slide_in(hole)
            await t.reader.peek(Card.parse("As"))
            t.reader.end_round()
            await t.reader.peek(Card.parse("Kd"))
            t.reader.end_round()
            t.take_back()

    with structlog.testing.capture_logs() as logs:
        run(scenario())
    return wire_frames(trace), logs


def test_672a_7_g_the_hole_card_reaches_no_wire_byte_and_no_log(tmp_path):
    """Two hole cards that answer alike (a king and a queen: no blackjack under a ten, blackjack
    under an ace) give the same bytes on the wire, apart from the random session id of the Hello:
    nothing sent depends on which card was in the slot. Every Peek answer is the bool alone."""
    king, king_logs = peek_session(tmp_path / "first.txt", "Kh")
    queen, queen_logs = peek_session(tmp_path / "second.txt", "Qd")

    def content(frames: list[tuple[str, Frame]]) -> list[tuple[str, int, int, bytes]]:
        return [(d, f.kind, f.msg, f.payload) for d, f in frames if f.msg != Hello.MSG_ID]

    assert content(king) == content(queen)
    answers = [f.payload for d, f in king if d == "RX" and f.msg == 0x20]
    assert answers == [b"\x00" + PeekAnswer(True).to_payload(), b"\x00" + PeekAnswer(False).to_payload()]
    king_face = Card.parse("Kh").code
    assert all(king_face not in f.payload for _, f in king if 0x20 <= f.msg <= 0x27)

    for logs, hole in ((king_logs, "Kh"), (queen_logs, "Qd")):
        assert logs, "the scenario logs (link states, inspection, peeks)"
        assert hole not in repr(logs)
        answered = [entry for entry in logs if entry["event"] == "peek answered"]
        assert [(set(e) - {"log_level", "device"}, e["blackjack"]) for e in answered] == [
            ({"event", "blackjack"}, True),
            ({"event", "blackjack"}, False),
        ]
