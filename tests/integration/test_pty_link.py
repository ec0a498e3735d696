"""The full driver stack against a simulated device over a real pseudo-terminal, under every
injected fault: each command completes, or fails with a clear error within its bound, and a
card-moving command executes exactly once."""

from __future__ import annotations

import asyncio
import dataclasses
import os
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from devices.equipment import Equipment
from drivers.connection import ConnectionState, DeviceRebooted, EventsHeldBack
from drivers.driver import Driver
from drivers.errors import (
    CommandTimeout,
    DeviceNotFound,
    DeviceRefused,
    LinkLost,
    NotConnected,
    OutcomeUnknown,
    PortBusy,
)
from drivers.protocol.core import (
    ClearFault,
    CounterValue,
    DeviceClass,
    DiagnosticEvent,
    Echo,
    FaultCleared,
    FaultCode,
    FaultRaised,
    IncrementTestCounter,
    ReadTestCounter,
    RequestDiagnosticEvents,
)
from drivers.protocol.message import Command, Reply
from drivers.transport.serial import SerialTransport
from firmware_sim.device import SimulatedDevice
from firmware_sim.engine import DeviceEngine
from firmware_sim.faults import ChannelFaults, FaultPlan
from firmware_sim.personality import DiagnosticPersonality
from firmware_sim.ports.pty import PtyPort
from tests.links import FAST, connected, next_event, run, wait_for_state


@dataclass
class RecordingPersonality(DiagnosticPersonality):
    """Records every increment it executes, so a test can see an execution repeated."""

    executed: list[int] = field(default_factory=list)
    door_open: bool = False

    def handle(self, command: Command, engine: DeviceEngine) -> Reply:
        if isinstance(command, IncrementTestCounter):
            self.executed.append(command.amount)
        return super().handle(command, engine)

    def condition_persists(self, code: FaultCode) -> bool:
        return code is FaultCode.DOOR_OPEN and self.door_open


def pty(faults: FaultPlan | None = None) -> PtyPort:
    return PtyPort(SimulatedDevice(RecordingPersonality(), faults=faults, seed=3)).start()


def test_handshake_reports_identity_and_echo_round_trips():
    async def scenario():
        async with connected(pty(), SerialTransport, expected_class=DeviceClass.DIAGNOSTIC) as rig:
            identity = rig.conn.identity
            assert identity.model == "SIM-DIAG" and identity.protocol_version == 1
            assert identity.firmware_hash == rig.device.engine.personality.firmware_hash
            reply = await rig.conn.request(Echo(bytes(range(200))))
            assert reply.data == bytes(range(200))

    run(scenario())


DETERMINISTIC_FAULTS = {
    "drop-response": FaultPlan(outbound=ChannelFaults(drop_next=1)),
    "drop-command": FaultPlan(inbound=ChannelFaults(drop_next=1)),
    "corrupt-response": FaultPlan(outbound=ChannelFaults(corrupt_next=1)),
    "corrupt-command": FaultPlan(inbound=ChannelFaults(corrupt_next=1)),
    "duplicate-response": FaultPlan(outbound=ChannelFaults(duplicate_next=2)),
    "duplicate-command": FaultPlan(inbound=ChannelFaults(duplicate_next=2)),
    "delay-past-timeout": FaultPlan(outbound=ChannelFaults(delay=0.15)),
    "split-bytewise": FaultPlan(outbound=ChannelFaults(split_size=1, split_gap=0.002)),
    "split-command": FaultPlan(inbound=ChannelFaults(split_size=3, split_gap=0.005)),
    "merge-writes": FaultPlan(outbound=ChannelFaults(merge=True)),
}


@pytest.mark.parametrize("name", sorted(DETERMINISTIC_FAULTS))
def test_card_moving_command_executes_exactly_once_under_fault(name):
    """Armed after the handshake, each fault hits the increments; each still executes once."""

    async def scenario():
        async with connected(pty(), SerialTransport) as rig:
            rig.device.set_faults(DETERMINISTIC_FAULTS[name])
            for step in range(1, 6):
                reply = await rig.conn.request(IncrementTestCounter(step))
                assert reply == CounterValue(sum(range(1, step + 1)))
            assert rig.device.engine.personality.executed == [1, 2, 3, 4, 5]

    run(scenario())


def test_lossy_line_never_repeats_a_card_moving_command():
    """10 % loss and corruption both ways: a command may fail, reported as unknown outcome, but
    no increment ever executes twice and every one reported done did execute."""

    async def scenario():
        lossy = FaultPlan(
            inbound=ChannelFaults(drop_rate=0.1, corrupt_rate=0.1),
            outbound=ChannelFaults(drop_rate=0.1, corrupt_rate=0.1, duplicate_rate=0.1),
        )
        async with connected(pty(), SerialTransport) as rig:
            rig.device.set_faults(lossy)
            done, unknown = [], []
            for step in range(1, 31):
                await rig.conn.wait_ready(10.0)
                try:
                    await rig.conn.request(IncrementTestCounter(step))
                    done.append(step)
                except (OutcomeUnknown, NotConnected):
                    unknown.append(step)
            executed = rig.device.engine.personality.executed
            assert len(executed) == len(set(executed)), f"an increment ran twice: {executed}"
            assert set(done) <= set(executed) <= set(done) | set(unknown)
            assert rig.conn.link.counters.retransmissions > 0

    run(scenario())


def test_silent_device_fails_command_within_bound_then_recovers():
    async def scenario():
        async with connected(pty(), SerialTransport) as rig:
            rig.device.set_silent(True)
            timings = FAST.timings
            bound = timings.response_timeout * (timings.max_retries + 1)
            started = time.monotonic()
            with pytest.raises(CommandTimeout, match="no response after 4 attempts"):
                await rig.conn.request(ReadTestCounter())
            elapsed = time.monotonic() - started
            assert bound * 0.9 <= elapsed <= bound + 1.0
            await wait_for_state(rig.conn, ConnectionState.BACKOFF)
            with pytest.raises(NotConnected, match="link is"):
                await rig.conn.request(ReadTestCounter())
            rig.device.set_silent(False)
            await rig.conn.wait_ready(5.0)
            assert await rig.conn.request(ReadTestCounter()) == CounterValue(0)

    run(scenario())


def test_unplug_mid_card_moving_command_reports_unknown_outcome_and_replug_reconnects_at_once():
    async def scenario():
        settings = FAST.__class__(**{**FAST.__dict__, "backoff_initial": 3.0, "backoff_max": 3.0})
        async with connected(
            pty(FaultPlan(outbound=ChannelFaults(delay=0.05))), SerialTransport, settings=settings
        ) as rig:
            pending = asyncio.ensure_future(rig.conn.request(IncrementTestCounter(1)))
            await asyncio.sleep(0.02)  # the command is on the wire, its response delayed
            rig.port.unplug()
            with pytest.raises(OutcomeUnknown, match="whether it executed is unknown"):
                await pending
            await wait_for_state(rig.conn, ConnectionState.BACKOFF)
            rig.port.replug()
            took = await wait_for_state(rig.conn, ConnectionState.READY)
            assert took < 1.0, "a reappearing device is reconnected at once, not after the backoff"
            assert rig.device.engine.personality.executed == [1]

    run(scenario())


def test_a_device_plugged_back_the_instant_the_link_says_backoff_is_reconnected_at_once():
    """The presence is looked at before BACKOFF is announced: a replug that races the announcement is
    a reappearance, not a device taken as present all along and left to the whole backoff."""

    async def scenario():
        settings = FAST.__class__(**{**FAST.__dict__, "backoff_initial": 3.0, "backoff_max": 3.0})
        async with connected(pty(), SerialTransport, settings=settings) as rig:
            announce = rig.conn._set_state

            def replug_on_backoff(state: ConnectionState, reason: str = "") -> None:
                announce(state, reason)
                if state is ConnectionState.BACKOFF:
                    rig.port.replug()

            rig.conn._set_state = replug_on_backoff  # type: ignore[method-assign]
            rig.port.unplug()
            await wait_for_state(rig.conn, ConnectionState.BACKOFF)
            took = await wait_for_state(rig.conn, ConnectionState.READY)
            assert took < 1.0, "a device back as the link went down is reconnected at once"

    run(scenario())


def test_reboot_is_detected_and_the_link_handshakes_again():
    async def scenario():
        async with connected(pty(), SerialTransport) as rig:
            old_boot = rig.conn.identity.boot_id
            rig.device.reboot()
            event = await next_event(rig.conn, DeviceRebooted)
            assert event.old_boot_id == old_boot and event.new_boot_id == rig.device.engine.boot_id
            await rig.conn.wait_ready(5.0)
            assert (await rig.conn.request(Echo(b"back"))).data == b"back"

    run(scenario())


def test_a_command_meeting_a_rebooted_device_is_a_lost_link_not_a_refusal():
    """The device rebooted before the host noticed: the next command meets NO_SESSION, ran
    nothing, and is reported as a lost link (the handshake comes again), so a table holds on it
    as on a pulled cable; after the handshake it is asked again. (A card mover retransmitted into
    the reboot is an unknown outcome instead: test_retransmission_into_a_rebooted_device...)"""

    async def scenario():
        async with connected(pty(), SerialTransport) as rig:
            rig.device.reboot()
            with pytest.raises(LinkLost, match="Echo not run: the device lost its session"):
                await rig.conn.request(Echo(b"are you there"))
            await next_event(rig.conn, DeviceRebooted)  # the new handshake found the new boot
            await rig.conn.wait_ready(5.0)
            assert (await rig.conn.request(Echo(b"back"))).data == b"back"

    run(scenario())


def test_events_arrive_once_and_in_order_despite_lost_acks():
    async def scenario():
        async with connected(pty(), SerialTransport) as rig:
            rig.device.set_faults(
                FaultPlan(inbound=ChannelFaults(drop_rate=0.3), outbound=ChannelFaults(duplicate_rate=0.3))
            )
            rig.device.call(lambda engine: [engine.emit(DiagnosticEvent(n)) for n in range(1, 21)])
            got = [(await next_event(rig.conn, DiagnosticEvent, timeout=10.0)).number for _ in range(20)]
            assert got == list(range(1, 21))

    run(scenario())


def test_latched_fault_blocks_card_movement_until_an_authorised_clear():
    async def scenario():
        async with connected(pty(), SerialTransport) as rig:
            personality = rig.device.engine.personality
            personality.door_open = True
            rig.device.call(lambda engine: engine.raise_fault(FaultCode.DOOR_OPEN, "front door"))
            raised = await next_event(rig.conn, FaultRaised)
            assert raised == FaultRaised(int(FaultCode.DOOR_OPEN), "front door")
            with pytest.raises(DeviceRefused, match=r"FAULT_LATCHED.*DOOR_OPEN"):
                await rig.conn.request(IncrementTestCounter(1))
            with pytest.raises(DeviceRefused, match="must name the authorising operator"):
                await rig.conn.request(ClearFault(int(FaultCode.DOOR_OPEN), ""))
            with pytest.raises(DeviceRefused, match="condition still present"):
                await rig.conn.request(ClearFault(int(FaultCode.DOOR_OPEN), "supervisor-17"))
            personality.door_open = False
            await rig.conn.request(ClearFault(int(FaultCode.DOOR_OPEN), "supervisor-17"))
            assert await next_event(rig.conn, FaultCleared) == FaultCleared(2, "supervisor-17")
            assert await rig.conn.request(IncrementTestCounter(1)) == CounterValue(1)
            assert personality.executed == [1]

    run(scenario())


def test_latched_fault_survives_reboot():
    async def scenario():
        async with connected(pty(), SerialTransport) as rig:
            rig.device.call(lambda engine: engine.raise_fault(FaultCode.JAM, "card stuck"))
            rig.device.reboot()
            await next_event(rig.conn, DeviceRebooted)
            await rig.conn.wait_ready(5.0)
            with pytest.raises(DeviceRefused, match="JAM"):
                await rig.conn.request(IncrementTestCounter(1))

    run(scenario())


def test_garbage_on_the_line_is_skipped_and_counted():
    async def scenario():
        async with connected(pty(), SerialTransport) as rig:
            master = rig.port._master
            os.write(master, b"\x00\xff\xa5garbage\xa5\x5a\x09")  # includes a false sync
            assert (await rig.conn.request(Echo(b"ok"))).data == b"ok"
            assert rig.conn.link.counters.noise_bytes >= 10

    run(scenario())


def test_pacing_at_9600_baud_takes_the_time_of_the_bits():
    async def scenario():
        paced = FaultPlan(pace_baud=9600)
        settings = FAST.__class__(
            **{
                **FAST.__dict__,
                "timings": FAST.timings.__class__(
                    response_timeout=1.0, max_retries=1, partial_frame_timeout=0.5
                ),
            }
        )
        async with connected(pty(paced), SerialTransport, settings=settings) as rig:
            started = time.monotonic()
            await rig.conn.request(Echo(bytes(200)))
            reply_bits = (10 + 1 + 1 + 200) * 10
            assert time.monotonic() - started >= 0.9 * reply_bits / 9600

    run(scenario())


def test_second_exclusive_opener_is_refused():
    async def scenario():
        async with connected(pty(), SerialTransport) as rig:
            second = SerialTransport(rig.port.url)
            with pytest.raises(PortBusy, match="another program holds the port"):
                await second.open(lambda data: None, lambda exc: None)
            await second.close()
            assert (await rig.conn.request(Echo(b"still mine"))).data == b"still mine"

    run(scenario())


def test_wrong_device_class_and_unlisted_firmware_are_refused_for_good():
    async def scenario():
        async with connected(pty(), SerialTransport, wait=False, expected_class=DeviceClass.SHOE) as rig:
            await wait_for_state(rig.conn, ConnectionState.FAILED)
            assert "expected a SHOE, the device is a DIAGNOSTIC" in str(rig.conn.last_error)
        async with connected(pty(), SerialTransport, wait=False, firmware_allow_list={bytes(32)}) as rig:
            await wait_for_state(rig.conn, ConnectionState.FAILED)
            assert "not on the allow-list (58 Pa. Code § 605a.4(c)" in str(rig.conn.last_error)

    run(scenario())


def test_events_requested_by_command_are_delivered():
    async def scenario():
        async with connected(pty(), SerialTransport) as rig:
            await rig.conn.request(RequestDiagnosticEvents(3))
            got = [(await next_event(rig.conn, DiagnosticEvent)).number for _ in range(3)]
            assert got == [1, 2, 3]

    run(scenario())


def test_spy_url_traces_the_exchange_in_hex(tmp_path):
    """pyserial's spy:// handler wraps the port: the driver stack runs unchanged over it."""
    trace = tmp_path / "trace.txt"

    async def scenario():
        async with connected(pty(), lambda url: SerialTransport(f"spy://{url}?file={trace}")) as rig:
            await rig.conn.request(Echo(b"\x5a\xa5"))

    run(scenario())
    text = trace.read_text()
    assert "TX" in text and "RX" in text and "A5 5A" in text.upper()


def test_hwgrep_with_no_matching_port_is_device_not_found():
    async def scenario():
        transport = SerialTransport("hwgrep://1209:FFF0")
        assert not transport.present()
        with pytest.raises(DeviceNotFound, match="hwgrep://1209:FFF0"):
            await transport.open(lambda data: None, lambda exc: None)

    run(scenario())


def test_missing_port_path_is_device_not_found(tmp_path):
    async def scenario():
        transport = SerialTransport(str(tmp_path / "ttyUSB9"))
        assert not transport.present()
        with pytest.raises(DeviceNotFound, match="no device there"):
            await transport.open(lambda data: None, lambda exc: None)

    run(scenario())


def test_retransmission_into_a_rebooted_device_is_an_unknown_outcome():
    """The increment runs, its response is lost, the device reboots: the retransmission meets
    NO_SESSION, which must not read as a refusal, since the first attempt did execute."""

    async def scenario():
        async with connected(pty(), SerialTransport) as rig:
            rig.device.set_faults(FaultPlan(outbound=ChannelFaults(drop_next=1)))
            pending = asyncio.ensure_future(rig.conn.request(IncrementTestCounter(1)))
            while rig.device.engine.personality.executed != [1]:
                await asyncio.sleep(0.005)
            rig.device.reboot()
            with pytest.raises(OutcomeUnknown, match="rebooted device"):
                await pending
            assert rig.device.engine.personality.executed == [1]

    run(scenario())


class DiagnosticDriver(Driver):
    DEVICE_CLASS = DeviceClass.DIAGNOSTIC


def test_5_7_a_device_flooding_events_is_held_back_unacknowledged_and_latches_none_lost():
    """docs/protocol.md §5.7, decision 0017: a device whose events outrun the table cannot grow the
    host's memory: at the device's event_queue (10 here) further events are left unacknowledged, so
    the queue stays at its bound while the device keeps them; once the table has applied half, they
    are acknowledged again and every event arrives exactly once and in order, followed by
    EventsHeldBack with the count held back, which latches EVENT_OVERFLOW naming the device."""
    settings = dataclasses.replace(FAST, event_queue_limit=10)

    async def scenario():
        async with connected(pty(), SerialTransport, settings=settings) as rig:
            while not rig.conn.events.empty():  # the link's own state changes, taken by the table
                rig.conn.events.get_nowait()
            rig.device.call(lambda engine: [engine.emit(DiagnosticEvent(n)) for n in range(1, 41)])
            async with asyncio.timeout(5):
                while not rig.conn.link.counters.events_held:
                    await asyncio.sleep(0.01)
            await asyncio.sleep(0.5)  # the device resends every 0.3 s: still held back, not queued
            assert rig.conn.events.qsize() == 10 and rig.conn.link.counters.events_held >= 2
            assert rig.device.call(lambda engine: engine.pending_events) == 30, "kept on the device"
            got, notices = [], []
            async with asyncio.timeout(15):
                while len(got) < 40 or not notices:
                    event = await rig.conn.events.get()
                    if isinstance(event, DiagnosticEvent):
                        got.append(event.number)
                    elif isinstance(event, EventsHeldBack):
                        notices.append(event)
            assert got == list(range(1, 41))
            assert notices[0].limit == 10 and notices[0].held >= 2
            machine = Equipment(DiagnosticDriver(rig.conn))
            machine.apply(notices[0])
            (fault,) = machine.latch.faults
            assert fault.code == "EVENT_OVERFLOW" and fault.clause == "decision 0017; docs/protocol.md §5.7"
            assert fault.detail.startswith(f"{rig.conn.name}: more than 10 events")
            assert f"{notices[0].held} event frame(s) were left unacknowledged" in fault.detail

    run(scenario())


def test_a_clear_whose_answer_was_lost_is_found_done_in_the_devices_status():
    """docs/protocol.md §7, decision 0016: a ClearFault the device carried out but whose answer was
    lost with the link leaves the host's latch set; asked again, the device refuses ("not
    latched"). The driver reads the device's status: the fault is no longer latched there, so the
    clear is done (before, the refusal repeated for ever and the table stayed held: found by
    bench/reliability.py). A fault the device still holds is refused as before."""

    async def scenario():
        async with connected(pty(), SerialTransport) as rig:
            driver = DiagnosticDriver(rig.conn)
            rig.device.call(lambda engine: engine.raise_fault(FaultCode.JAM, "card stuck"))
            await next_event(rig.conn, FaultRaised)
            rig.device.call(lambda engine: engine.latched.pop(FaultCode.JAM))  # cleared; answer lost
            await driver.clear_fault(FaultCode.JAM, "supervisor-17")
            rig.device.engine.personality.door_open = True
            rig.device.call(lambda engine: engine.raise_fault(FaultCode.DOOR_OPEN, "door 1 open"))
            with pytest.raises(DeviceRefused, match="condition still present"):
                await driver.clear_fault(FaultCode.DOOR_OPEN, "supervisor-17")
            with pytest.raises(DeviceRefused, match="must name the authorising operator"):
                await driver.clear_fault(FaultCode.DOOR_OPEN, "")

    run(scenario())


class SlowProbe(SerialTransport):
    """A transport whose presence check takes a while, as a thread pool's does on a starved machine."""

    def present(self) -> bool:
        time.sleep(0.5)
        return super().present()


def test_a_command_made_as_the_link_goes_down_is_refused_not_sent_into_the_next_session():
    """Between a lost link and its BACKOFF (the presence probe, slow under load) a command is refused
    at once: none is queued on the dead link, where its retransmissions went to the device ahead of the
    next session's Hello (a card moved while the table held on LINK_LOST) or, timing out, took the
    newly handshaken link down again."""

    async def scenario():
        async with connected(pty(), SlowProbe) as rig:
            rig.device.set_silent(True)
            with pytest.raises(CommandTimeout):
                await rig.conn.request(ReadTestCounter())
            rig.device.set_silent(False)
            await asyncio.sleep(0.2)  # the link dropped; the device's presence still being probed
            assert rig.conn.state is ConnectionState.READY, "BACKOFF not yet announced"
            started = time.monotonic()
            with pytest.raises(NotConnected, match="link lost"):
                await rig.conn.request(IncrementTestCounter(1))
            assert time.monotonic() - started < 0.1, "refused at once"
            await wait_for_state(rig.conn, ConnectionState.BACKOFF)
            await rig.conn.wait_ready(5.0)
            assert await rig.conn.request(ReadTestCounter()) == CounterValue(0)
            assert rig.device.engine.personality.executed == []

    run(scenario())


def test_a_ports_link_directory_left_by_a_killed_process_is_removed_by_the_next(tmp_path, monkeypatch):
    """A port's link lives in a directory named for the process serving it; a process killed before
    ``stop`` leaves it behind. The next port made on the machine removes those of processes that are
    gone, link and all, and leaves alone those of processes still running and any other directory."""
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    gone = subprocess.Popen(["true"])
    gone.wait()
    left = tmp_path / f"croupier-pty-{gone.pid}-abc123"
    left.mkdir()
    (left / "shoe").symlink_to("/dev/pts/999")
    running = tmp_path / f"croupier-pty-{os.getppid()}-def456"
    running.mkdir()
    (running / "shoe").symlink_to("/dev/pts/998")
    other = tmp_path / "croupier-pty-notapid-x"
    other.mkdir()
    port = PtyPort(SimulatedDevice(DiagnosticPersonality(), name="diag")).start()
    try:
        mine = Path(port.path).parent
        assert mine.name.startswith(f"croupier-pty-{os.getpid()}-")
        assert sorted(p.name for p in tmp_path.iterdir()) == sorted([mine.name, running.name, other.name])
    finally:
        port.stop()
    assert not mine.exists(), "a port stopped removes its own"
