"""The progressive system end to end: controller (0x10) and meter sign (0x11) on ONE RS-485 line.

Both simulated devices run in multi-drop mode on one MultidropBus behind one real pseudo-terminal;
the host opens the pty once, through a SharedLine whose taps give each device its own
DeviceConnection, driver and link. A bus monitor records every frame on the wire in order, so the
line's half-duplex discipline is checked from what really crossed it. Last, the controller alone
over the simulated USB bus, point to point.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import re
import threading
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field

import pytest

from devices.progressive import Progressive
from drivers.connection import ConnectionState, DeviceConnection, SupervisorSettings
from drivers.errors import DeviceRefused
from drivers.host_link import LinkTimings
from drivers.progressive import MeterSignDriver, ProgressiveDriver
from drivers.protocol.classes.meter_sign import Shown
from drivers.protocol.classes.progressive import JackpotHit, SensorChanged, seats_in
from drivers.protocol.core import DeviceClass
from drivers.protocol.frame import Frame, FrameDecoder, Kind
from drivers.transport.serial import SerialTransport
from drivers.transport.shared import SharedLine
from drivers.transport.usb import UsbTransport
from firmware_sim.device import SimulatedDevice, Sink
from firmware_sim.faults import ChannelFaults, FaultPlan
from firmware_sim.multidrop import MultidropBus
from firmware_sim.ports.pty import PtyPort
from firmware_sim.ports.usb import SimulatedUsbBus, UsbPort
from firmware_sim.progressive import ControllerPersonality, SignPersonality
from firmware_sim.world import TableWorld
from tests.conformance.profiles.progressive import PROFILE
from tests.links import FAST, connected, run, wait_for_state
from vocabulary.operators import Operator, Role
from vocabulary.rules import RuleViolation

CONTROLLER, SIGN = 0x10, 0x11
KEY = "PROG-KEY-1"
SUPERVISOR = Operator("supervisor-2", Role.SUPERVISOR)
DEALER = Operator("dealer-7", Role.DEALER)
NO_HEARTBEAT = dataclasses.replace(FAST, heartbeat_interval=30.0)


class Monitor:
    """A logic analyser on the bus: every frame that crosses the wire, in the order it crossed.

    It stands between the port and the bus with the bus's own duck type; host bytes are recorded
    before the devices hear them and device bytes as the devices send them (a device answers on the
    thread that delivered the command), so the order recorded is the order on the wire.
    """

    def __init__(self, bus: MultidropBus) -> None:
        self.bus = bus
        self.name = bus.name
        self.frames: list[Frame] = []
        self._lock = threading.Lock()
        self._decoders = {False: FrameDecoder(), True: FrameDecoder()}

    def start(self) -> None:
        self.bus.start()

    def stop(self) -> None:
        self.bus.stop()

    def attach(self, sink: Sink | None) -> None:
        self.bus.attach(None if sink is None else lambda data: self._record(True, data, sink))

    def deliver(self, data: bytes) -> None:
        self._record(False, data, self.bus.deliver)

    def _record(self, from_device: bool, data: bytes, then: Callable[[bytes], None]) -> None:
        with self._lock:
            self.frames += [f for f in self._decoders[from_device].feed(data) if isinstance(f, Frame)]
        then(data)


@dataclass
class Table:
    port: PtyPort
    monitor: Monitor
    line: SharedLine
    controller: DeviceConnection
    sign: DeviceConnection
    progressive: Progressive
    events: list[object] = field(default_factory=list)

    @property
    def controller_sim(self) -> SimulatedDevice:
        return self.monitor.bus[CONTROLLER]

    @property
    def sign_sim(self) -> SimulatedDevice:
        return self.monitor.bus[SIGN]

    def cover(self, *seats: int) -> None:
        self.controller_sim.call(lambda engine: [engine.personality.cover(engine, seat) for seat in seats])

    async def dealing(self, *seats: int) -> None:
        """A chip on each of ``seats``, the wagers locked, counted and the cards dealing."""
        self.cover(*seats)
        await self.progressive.lock()
        self.progressive.chip_count(len(seats))
        self.progressive.begin_dealing()

    async def settle(self, until: Callable[[], bool] = lambda: True, timeout: float = 5.0) -> None:
        """Feed both links' events to the rules, in order, until ``until()`` holds."""
        async with asyncio.timeout(timeout):
            while True:
                for conn, apply in (
                    (self.controller, self.progressive.apply),
                    (self.sign, self.progressive.apply_sign),
                ):
                    while not conn.events.empty():
                        event = conn.events.get_nowait()
                        self.events.append(event)
                        apply(event)
                if until():
                    return
                await asyncio.sleep(0.01)


@contextlib.asynccontextmanager
async def table(
    *,
    controller: ControllerPersonality | None = None,
    settings: SupervisorSettings = FAST,
    exchange_timeout: float = 0.05,
    win_deadline: float = 1.0,
) -> AsyncIterator[Table]:
    """Controller and sign on one pty, connected, synced, both links READY."""
    bus = MultidropBus(
        [
            SimulatedDevice(
                controller or ControllerPersonality(), address=CONTROLLER, multidrop=True, seed=1
            ),
            SimulatedDevice(SignPersonality(), address=SIGN, multidrop=True, seed=2),
        ]
    )
    monitor = Monitor(bus)
    port = PtyPort(monitor).start()  # type: ignore[arg-type]
    try:
        async with controller_and_sign(port.url, settings, exchange_timeout) as (line, links):
            progressive = Progressive(
                ProgressiveDriver(links[0]), MeterSignDriver(links[1]), win_deadline=win_deadline
            )
            rig = Table(port, monitor, line, links[0], links[1], progressive)
            await rig.settle()
            await progressive.sync()
            yield rig
    finally:
        port.stop()


@contextlib.asynccontextmanager
async def controller_and_sign(
    url: str, settings: SupervisorSettings = FAST, exchange_timeout: float = 0.05
) -> AsyncIterator[tuple[SharedLine, list[DeviceConnection]]]:
    """The controller's and the sign's connections on the one line at ``url`` (a multidrop pty),
    both READY; stopped on the way out."""
    line = SharedLine(lambda: SerialTransport(url), exchange_timeout=exchange_timeout)
    links = [
        DeviceConnection(
            lambda address=address: line.tap(address),
            name=name,
            address=address,
            expected_class=device_class,
            settings=settings,
        )
        for name, address, device_class in (
            ("controller", CONTROLLER, DeviceClass.PROGRESSIVE_CONTROLLER),
            ("sign", SIGN, DeviceClass.METER_SIGN),
        )
    ]
    try:
        for conn in links:
            await conn.start()
        for conn in links:
            await conn.wait_ready(5.0)
        yield line, links
    finally:
        for conn in links:
            await conn.stop()


def faults(rig: Table) -> set[str]:
    return {fault.code for fault in rig.progressive.latch.faults}


# -- the round over the shared line -------------------------------------------------------------------
def test_sensors_lock_and_a_matching_chip_count_open_the_deal():
    async def scenario():
        async with table() as rig:
            progressive = rig.progressive
            rig.cover(2, 4, 7)
            await rig.settle(lambda: progressive.covered == (2, 4, 7))
            assert seats_in((await progressive.driver.read_sensors()).covered) == (2, 4, 7)
            with pytest.raises(RuleViolation, match=re.escape("657a.9(a)(3)")):
                progressive.require_ready_to_deal()
            round_state = await progressive.lock()
            assert (seats_in(round_state.accepted), round_state.count) == ((2, 4, 7), 3)
            level = progressive.levels[1]
            assert level.in_cents == 300 and level.value_cents == 1_000_000 + 30
            sign = rig.sign_sim.engine.personality
            assert sign.shown[1] == Shown(1, 1_000_030, False, 0) and sign.shown[2] == Shown(
                2, 50_015, False, 0
            )
            progressive.chip_count(3)
            progressive.begin_dealing()
            progressive.require_ready_to_deal()
            assert not progressive.latch

    run(scenario())


def test_a_chip_count_mismatch_latches_for_a_supervisor():
    async def scenario():
        async with table() as rig:
            progressive = rig.progressive
            rig.cover(1, 5)
            await progressive.lock()
            with pytest.raises(
                RuleViolation, match=re.escape("1 value chip(s) counted, 2 progressive wager(s)")
            ):
                progressive.chip_count(1)
            assert faults(rig) == {"CHIP_COUNT_MISMATCH"}
            with pytest.raises(RuleViolation, match="may not clear"):
                await progressive.clear("CHIP_COUNT_MISMATCH", DEALER)
            with pytest.raises(RuleViolation, match="latched CHIP_COUNT_MISMATCH"):
                progressive.require_ready_to_deal()
            await progressive.clear("CHIP_COUNT_MISMATCH", SUPERVISOR)
            progressive.chip_count(2)
            progressive.require_ready_to_deal()

    run(scenario())


def test_a_wager_after_the_lock_is_refused_by_the_controller_and_recorded():
    async def scenario():
        async with table() as rig:
            progressive = rig.progressive
            rig.cover(3)
            await progressive.lock()
            rig.cover(6)  # after "no more bets"
            await rig.settle(lambda: bool(progressive.irregularities))  # polled by the heartbeat
            (irregularity,) = progressive.irregularities
            assert irregularity.rule.clause == "657a.9(a)(3)" and "seat 6" in irregularity.detail
            assert (await progressive.driver.read_round()).accepted == 0b100
            progressive.chip_count(1)

    run(scenario())


def test_award_freezes_the_level_until_the_keyed_reset_and_a_wrong_key_is_refused():
    async def scenario():
        async with table() as rig:
            progressive = rig.progressive
            await rig.dealing(1, 2)
            award = await progressive.award(1, 2)
            assert award.amount_cents == 1_000_020
            assert rig.sign_sim.engine.personality.shown[1] == Shown(1, 1_000_020, True, 2)
            await rig.settle(lambda: any(isinstance(e, JackpotHit) for e in rig.events))
            with pytest.raises(RuleViolation, match="jackpot-locked"):
                await progressive.open_round()
            with pytest.raises(DeviceRefused, match="wrong reset key"):
                await progressive.reset_level(1, "NOT-THE-KEY")
            assert progressive.levels[1].frozen
            await progressive.reset_level(1, KEY)
            assert rig.sign_sim.engine.personality.shown[1] == Shown(1, 1_000_000, False, 0)
            assert (await progressive.open_round()).round == 2
            assert not progressive.latch

    run(scenario())


def test_meters_and_the_last_25_hits_after_30_hits():
    async def scenario():
        async with table() as rig:
            progressive = rig.progressive
            rig.cover(*range(1, 7))
            paid = []
            for _ in range(5):  # five rounds, six simultaneous hits each on level 2
                round_state = await progressive.lock()
                progressive.chip_count(round_state.count)
                progressive.begin_dealing()
                for seat in range(1, 7):
                    paid.append((await progressive.award(2, seat)).amount_cents)
                await progressive.reset_level(2, KEY)
                await progressive.open_round()
            level = progressive.levels[2]
            assert (level.hits, level.wins_cents, level.in_cents) == (30, sum(paid), 5 * 6 * 100)
            assert paid[0] == 50_000 + 600 * 500 // 10_000 and paid[1:6] == [50_000] * 5
            hits = await progressive.driver.hits(2)
            assert [hit.number for hit in hits] == list(range(30, 5, -1))
            assert [hit.amount_cents for hit in hits] == paid[:4:-1]
            assert hits[0].round == 5 and hits[-1].round == 1 and hits[-1].seat == 6
            assert not progressive.latch

    run(scenario())


# -- the sign ------------------------------------------------------------------------------------------------
def test_a_silent_sign_latches_sign_link_lost_and_a_win_waits_for_it():
    async def scenario():
        async with table(win_deadline=0.5) as rig:
            progressive = rig.progressive
            await rig.dealing(4)
            rig.sign_sim.set_silent(True)
            award = await progressive.award(1, 4)  # paid; the sign cannot show it
            assert faults(rig) == {"SIGN_LINK_LOST"}
            await wait_for_state(rig.sign, ConnectionState.BACKOFF)
            await rig.settle()
            with pytest.raises(RuleViolation, match="latched SIGN_LINK_LOST"):
                progressive.require_ready_to_deal()
            with pytest.raises(RuleViolation, match="SIGN_LINK_LOST stays"):
                await progressive.clear("SIGN_LINK_LOST", SUPERVISOR)
            assert (await progressive.driver.read_round()).locked, "the controller still answers"
            rig.sign_sim.set_silent(False)
            await rig.sign.wait_ready(5.0)
            await progressive.clear("SIGN_LINK_LOST", SUPERVISOR)
            assert rig.sign_sim.engine.personality.shown[1] == Shown(1, award.amount_cents, True, 4)
            progressive.require_ready_to_deal()

    run(scenario())


# -- exactly once, and the arbiter ------------------------------------------------------------------------
def test_an_award_whose_response_is_lost_pays_once():
    async def scenario():
        async with table(settings=NO_HEARTBEAT) as rig:
            progressive = rig.progressive
            await rig.dealing(5)
            rig.controller_sim.set_faults(FaultPlan(outbound=ChannelFaults(drop_next=1)))
            award = await progressive.award(1, 5)
            assert rig.controller.link.counters.retransmissions == 1
            controller = rig.controller_sim.engine.personality
            assert (controller.levels[0].hits, controller.levels[0].wins) == (1, award.amount_cents)
            await progressive.driver.read_round()  # carries the JackpotHit the lost write held
            await rig.settle(lambda: any(isinstance(e, JackpotHit) for e in rig.events))
            for _ in range(3):
                await progressive.driver.read_round()
            await rig.settle()
            assert [e for e in rig.events if isinstance(e, JackpotHit)] == [
                JackpotHit(1, 5, award.amount_cents, 1)
            ]
            assert progressive.levels[1].wins_cents == award.amount_cents and not progressive.latch

    run(scenario())


def test_concurrent_requests_never_overlap_on_the_line():
    """From the wire: every COMMAND is followed by its RESPONSE before the next COMMAND."""

    async def scenario():
        patient = dataclasses.replace(FAST, timings=LinkTimings(response_timeout=1.0, max_retries=3))
        async with table(settings=patient, exchange_timeout=0.5) as rig:
            rig.monitor.frames.clear()
            await asyncio.gather(
                *(rig.progressive.driver.read_sensors() for _ in range(20)),
                *(rig.progressive.sign.display(1, 1_000_000 + n) for n in range(20)),
            )
            frames = list(rig.monitor.frames)
        commands = [f for f in frames if f.kind is Kind.COMMAND]
        assert {f.address for f in commands} == {CONTROLLER, SIGN} and len(commands) >= 40
        assert rig.line.counters.deferred > 0, "the two links did compete for the line"
        waiting: Frame | None = None
        for frame in frames:
            if frame.kind is Kind.COMMAND:
                assert waiting is None, f"{frame} sent while {waiting} was unanswered"
                waiting = frame
            elif frame.kind is Kind.RESPONSE:
                assert waiting is not None and (frame.address, frame.seq, frame.msg) == (
                    waiting.address,
                    waiting.seq,
                    waiting.msg,
                ), f"{frame} does not answer {waiting}"
                waiting = None

    run(scenario())


def test_the_line_opens_once_and_a_lost_port_reconnects_every_link():
    async def scenario():
        async with table() as rig:
            assert rig.line.is_open
            rig.port.unplug()
            await wait_for_state(rig.controller, ConnectionState.BACKOFF)
            await wait_for_state(rig.sign, ConnectionState.BACKOFF)
            rig.port.replug()
            await rig.controller.wait_ready(5.0)
            await rig.sign.wait_ready(5.0)
            await rig.settle()
            assert {"LINK_LOST", "SIGN_LINK_LOST"} <= faults(rig) and rig.progressive.state == "offline"
            await rig.progressive.sync()
            assert rig.progressive.state == "open_betting"
            await rig.sign.stop()
            assert rig.line.is_open, "the controller still holds the line"
            assert (await rig.progressive.driver.read_round()).round == 1
            await rig.controller.stop()
            assert not rig.line.is_open, "closed with the last tap"

    run(scenario())


def test_sensor_events_arrive_in_order_over_the_polled_line():
    async def scenario():
        async with table() as rig:
            for seat in (1, 2, 3):
                rig.cover(seat)
            await rig.settle(lambda: rig.progressive.covered == (1, 2, 3))
            masks = [e.covered for e in rig.events if isinstance(e, SensorChanged)]
            assert masks == [0b1, 0b11, 0b111]

    run(scenario())


# -- point to point over USB, through the conformance profile ----------------------------------------------
def test_the_controller_alone_over_the_simulated_usb_bus():
    async def scenario():
        usb_bus = SimulatedUsbBus()
        world = TableWorld()
        PROFILE.prepare_world(world)
        device = SimulatedDevice(PROFILE.personality(world), seed=9, name="usb-progressive")
        port = UsbPort(device, usb_bus).start()
        async with connected(
            port, lambda url: UsbTransport(url, backend=usb_bus), expected_class=PROFILE.device_class
        ) as rig:
            driver = PROFILE.driver(rig.conn)
            assert isinstance(driver, ProgressiveDriver)
            assert (await driver.read_round()).count == 7, "it powered up mid-round, seven wagers locked"
            first = await PROFILE.move_one_card(driver)
            second = await PROFILE.move_one_card(driver)
            assert PROFILE.movements(device.engine.personality, world) == 2
            assert (first.level, first.seat) != (second.level, second.seat)
            assert (await driver.hits(first.level))[-1].seat == first.seat
            jackpots = []
            async with asyncio.timeout(5.0):
                while len(jackpots) < 2:  # point to point: events come on the device's own timer
                    event = await driver.next_event()
                    if isinstance(event, JackpotHit):
                        jackpots.append((event.level, event.seat, event.amount_cents))
            assert jackpots == [(r.level, r.seat, r.amount_cents) for r in (first, second)]

    run(scenario())
