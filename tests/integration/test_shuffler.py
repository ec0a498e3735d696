"""The shuffler end to end: the Shuffler's rules over ShufflerDriver, DeviceConnection and a real
transport (a pseudo-terminal, and pyusb over the simulated USB bus) to a simulated shuffler whose
cards move in a TableWorld. Every scenario ends with the world's card count balanced."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import json
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from devices.shuffler import FAILED_BATCH_OUT_OF_PLAY, RANDOM_ON_OPEN_TABLE, Shuffler
from drivers.errors import DeviceRefused
from drivers.protocol.classes.shuffler import ShuffleCompleted, ShuffleMode
from drivers.protocol.core import PROTOCOL_VERSION, DeviceClass, FaultRaised, Hello
from drivers.protocol.frame import Frame, Kind
from drivers.shuffler import ShufflerDriver
from drivers.transport.base import Transport
from drivers.transport.serial import SerialTransport
from drivers.transport.usb import UsbTransport
from firmware_sim.device import SimulatedDevice
from firmware_sim.engine import DeviceEngine
from firmware_sim.faults import ChannelFaults, FaultPlan
from firmware_sim.ports import Port
from firmware_sim.ports.pty import PtyPort
from firmware_sim.ports.usb import SimulatedUsbBus, UsbPort
from firmware_sim.shuffler import ShufflerPersonality
from firmware_sim.world import ASIDE, FLOOR, SHOE, SHUFFLER_INPUT, SHUFFLER_OUTPUT, TableWorld
from tests.links import FAST, connected, run
from vocabulary.cards import Card
from vocabulary.operators import Operator, Role
from vocabulary.rules import RuleViolation

SUPERVISOR = Operator("super-1", Role.SUPERVISOR)
DEALER = Operator("dealer-7", Role.DEALER)
QUIET = dataclasses.replace(FAST, heartbeat_interval=30.0)  # no heartbeat to take a dropped response
VECTORS = Path(__file__).resolve().parents[1] / "vectors" / "shuffler.json"
TRANSPORTS = ("pty", "usb")


@dataclass
class Table:
    world: TableWorld
    device: SimulatedDevice
    driver: ShufflerDriver
    shuffler: Shuffler

    @property
    def personality(self) -> ShufflerPersonality:
        return self.device.engine.personality  # type: ignore[return-value]

    async def apply_until(self, wanted: Callable[[object], bool], timeout: float = 3.0) -> None:
        """Feed the device's events to the rules until one is ``wanted``."""
        async with asyncio.timeout(timeout):
            while True:
                event = await self.driver.next_event()
                self.shuffler.apply(event)
                if wanted(event):
                    return

    async def load_and_configure(self, back: str = "red", decks: int = 1) -> None:
        self.world.add_batch(SHUFFLER_INPUT, back, decks)
        assert await self.shuffler.configure(decks, 0, back) == 52 * decks


@contextlib.asynccontextmanager
async def table(transport: str, **settings: object) -> AsyncIterator[Table]:
    """A world with a simulated shuffler in it, reached over ``transport``."""
    world = TableWorld()
    device = SimulatedDevice(ShufflerPersonality(world=world), name=f"shuffler-{transport}")
    port: Port
    factory: Callable[[str], Transport]
    if transport == "pty":
        port, factory = PtyPort(device).start(), SerialTransport
    else:
        bus = SimulatedUsbBus()
        port = UsbPort(device, bus).start()
        factory = lambda url: UsbTransport(url, backend=bus)  # noqa: E731
    async with connected(port, factory, expected_class=DeviceClass.SHUFFLER, **settings) as rig:  # type: ignore[arg-type]
        driver = ShufflerDriver(rig.conn)
        yield Table(world, device, driver, Shuffler(driver))
    world.check()


async def refuses_to_clear(t: Table, code: str) -> None:
    """A latched ``code`` the dealer may not clear, nor a supervisor while its condition is present."""
    shuffler = t.shuffler
    with pytest.raises(RuleViolation, match="may not clear"):
        await shuffler.clear(code, DEALER)
    with pytest.raises(DeviceRefused, match="condition still present"):
        await shuffler.clear(code, SUPERVISOR)


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_shuffle_count_and_deliver_to_the_shoe(transport):
    async def scenario():
        async with table(transport) as t:
            assert "loads-shoe" in t.driver.capabilities and "seeded" not in t.driver.capabilities
            await t.load_and_configure("red", decks=6)
            report = await t.shuffler.shuffle()
            assert (report.count, report.expected, report.foreign, report.back) == (312, 312, 0, "red")
            assert not report.seeded and t.shuffler.state == "ready"
            order = t.shuffler.batch.order
            assert order.opens(report.commitment) and len(order) == 312  # read over two pages
            assert await t.shuffler.deliver_to_shoe() == 312
            assert [card.face for card in t.world.cards(SHOE)] == list(order.unseal())
            assert t.shuffler.state == "idle" and t.world.count(SHUFFLER_OUTPUT) == 0
            await t.apply_until(lambda e: isinstance(e, ShuffleCompleted))

    run(scenario())


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_wrong_count_latches_and_only_a_supervisor_clears_once_the_batch_is_out(transport):
    async def scenario():
        async with table(transport) as t:
            await t.load_and_configure()
            t.world.faults.drop_next = 1  # a card falls while the batch is loaded
            report = await t.shuffler.shuffle()
            assert (report.count, report.expected) == (51, 52) and t.shuffler.state == "failed"
            await t.apply_until(lambda e: isinstance(e, FaultRaised))
            assert {f.code for f in t.shuffler.latch.faults} == {"WRONG_COUNT"}
            with pytest.raises(RuleViolation) as refused:
                await t.shuffler.deliver_to_shoe()
            assert refused.value.rule is FAILED_BATCH_OUT_OF_PLAY
            with pytest.raises(DeviceRefused, match="FAULT_LATCHED"):
                await t.driver.deliver_to_shoe(report.shuffle_id)
            await refuses_to_clear(t, "WRONG_COUNT")
            assert t.world.count(SHOE) == 0
            t.world.remove(SHUFFLER_OUTPUT)  # the deck is taken out of play
            t.world.remove(FLOOR)
            await t.shuffler.clear("WRONG_COUNT", SUPERVISOR)
            assert t.shuffler.state == "idle" and not t.shuffler.latch

    run(scenario())


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_foreign_card_latches_and_the_batch_never_reaches_the_shoe(transport):
    async def scenario():
        async with table(transport) as t:
            await t.load_and_configure()
            t.world.move(SHUFFLER_INPUT, ASIDE)
            t.world.add(SHUFFLER_INPUT, [Card.parse("Qh")], "blue", at=10)
            report = await t.shuffler.shuffle()
            assert (report.count, report.foreign) == (52, 1) and t.shuffler.state == "failed"
            assert {f.code for f in t.shuffler.latch.faults} == {"FOREIGN_CARD"}
            with pytest.raises(RuleViolation):
                await t.shuffler.deliver_to_shoe()
            await refuses_to_clear(t, "FOREIGN_CARD")
            t.world.remove(SHUFFLER_OUTPUT)
            await t.shuffler.clear("FOREIGN_CARD", SUPERVISOR)
            assert t.shuffler.state == "idle" and t.world.count(SHOE) == 0

    run(scenario())


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_sort_mode_refused_while_the_table_is_open(transport):
    async def scenario():
        async with table(transport) as t:
            with pytest.raises(RuleViolation) as refused:
                await t.shuffler.set_mode(ShuffleMode.SORT)
            assert refused.value.rule is RANDOM_ON_OPEN_TABLE
            with pytest.raises(DeviceRefused, match="SORT mode is refused while the table is open"):
                await t.driver.set_mode(ShuffleMode.SORT)
            assert (await t.driver.mode()).checked_mode() is ShuffleMode.RANDOM
            await t.shuffler.close_table()
            await t.shuffler.set_mode(ShuffleMode.SORT)
            with pytest.raises(RuleViolation) as refused:
                await t.shuffler.open_table()
            assert refused.value.rule is RANDOM_ON_OPEN_TABLE
            with pytest.raises(DeviceRefused, match="set RANDOM before the table opens"):
                await t.driver.set_table_open(True)
            await t.shuffler.set_mode(ShuffleMode.RANDOM)
            await t.shuffler.open_table()
            assert (await t.driver.mode()).table_open

    run(scenario())


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_a_shuffle_whose_response_is_lost_shuffles_once(transport):
    async def scenario():
        async with table(transport, settings=QUIET) as t:
            await t.load_and_configure()
            t.device.set_faults(FaultPlan(outbound=ChannelFaults(drop_next=1)))
            report = await t.shuffler.shuffle()
            assert t.driver.conn.link.counters.retransmissions == 1
            assert t.device.call(lambda engine: engine.personality.last.report) == report
            assert report.shuffle_id == 1 and t.shuffler.state == "ready"
            await t.apply_until(lambda e: isinstance(e, ShuffleCompleted))
            assert (await t.driver.counters()).last_shuffle == 1  # one shuffle, one commitment
            assert await t.shuffler.deliver_to_shoe() == 52

    run(scenario())


def test_simulated_shuffler_answers_its_vectors():
    """tests/vectors/shuffler.json: the host's frames, replayed into a seeded simulated shuffler,
    draw exactly the device's frames, byte for byte (the vectors came from this conversation)."""
    vectors = json.loads(VECTORS.read_text(encoding="utf-8"))["vectors"]
    world = TableWorld()
    world.add_batch(SHUFFLER_INPUT, "red", 1)
    engine = DeviceEngine(ShufflerPersonality(world=world, seed=2024))
    engine.receive(
        Frame(1, Kind.COMMAND, False, 0, Hello.MSG_ID, Hello(7, PROTOCOL_VERSION).to_payload()).encode(), 0.0
    )
    engine.data_to_send()
    expected, heard = b"", b""
    for vector in vectors:
        raw = bytes.fromhex(vector["bytes"])
        if vector["frame"]["from_device"]:
            expected += raw
            continue
        engine.receive(raw, 0.0)
        heard += engine.data_to_send()
    assert heard.hex() == expected.hex()
    world.check()
