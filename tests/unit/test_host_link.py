"""The host link against the device engine, wired in memory: one layer's logic, no transport."""

from __future__ import annotations

import random

import pytest

from drivers.host_link import (
    CommandTimedOut,
    EventReceived,
    HostLink,
    LineNoise,
    LinkTimings,
    NakReason,
    ReplyReceived,
)
from drivers.protocol.core import (
    DiagnosticEvent,
    GetStatus,
    Hello,
    IncrementTestCounter,
    ReadTestCounter,
    RequestDiagnosticEvents,
)
from drivers.protocol.frame import Frame, FrameDecoder, Kind, Noise, NoiseReason
from firmware_sim.engine import DeviceEngine
from firmware_sim.personality import DiagnosticPersonality


class Wire:
    """Carries bytes between a host link and a device engine, dropping what a test says to drop."""

    def __init__(self, timings: LinkTimings | None = None) -> None:
        self.host = HostLink(1, timings=timings or LinkTimings())
        self.device = DeviceEngine(DiagnosticPersonality(), rng=random.Random(7))
        self.drop_to_host = 0
        self.drop_to_device = 0
        self.now = 0.0

    def run(self, until: float) -> list:
        outcomes = []
        while True:
            for _ in range(10):
                data = self.host.data_to_send()
                if data and self.drop_to_device:
                    self.drop_to_device -= 1
                elif data:
                    self.device.receive(data, self.now)
                self.device.tick(self.now)
                data = self.device.data_to_send()
                if data and self.drop_to_host:
                    self.drop_to_host -= 1
                elif data:
                    self.host.receive(data, self.now)
                self.host.tick(self.now)
            outcomes += self.host.outcomes()
            deadlines = [d for d in (self.host.next_deadline(), self.device.next_deadline()) if d]
            if not deadlines or min(deadlines) > until:
                return outcomes
            self.now = max(self.now, min(deadlines))


def started() -> Wire:
    wire = Wire()
    wire.host.submit(Hello(session_id=1, protocol_version=1), 0.0)
    (outcome,) = wire.run(0.0)
    assert isinstance(outcome, ReplyReceived)
    return wire


def test_lost_response_is_retransmitted_and_executes_once():
    wire = started()
    wire.drop_to_host = 1  # the device executes, its response is lost
    wire.host.submit(IncrementTestCounter(amount=5), wire.now)
    (outcome,) = wire.run(until=5.0)
    assert isinstance(outcome, ReplyReceived) and outcome.reply.value == 5
    assert outcome.request.attempts == 2
    assert wire.device.personality.counter == 5
    assert wire.device.executions == 1


def test_command_fails_after_retry_budget():
    wire = started()
    wire.drop_to_device = 100
    request = wire.host.submit(ReadTestCounter(), wire.now)
    (outcome,) = wire.run(until=10.0)
    assert outcome == CommandTimedOut(request)
    timings = wire.host.timings
    assert request.attempts == timings.max_retries + 1
    assert wire.now <= timings.response_timeout * (timings.max_retries + 1) + 1e-9


def test_events_delivered_once_when_ack_is_lost():
    wire = started()
    wire.host.submit(RequestDiagnosticEvents(count=3), wire.now)
    wire.device.receive(wire.host.data_to_send(), wire.now)
    wire.drop_to_device = 1  # the ACK of the first event is lost: the device sends it again
    outcomes = wire.run(until=5.0)
    events = [o.event for o in outcomes if isinstance(o, EventReceived)]
    assert events == [DiagnosticEvent(1), DiagnosticEvent(2), DiagnosticEvent(3)]
    assert wire.host.counters.duplicate_events == 1


def test_command_before_hello_is_refused_with_no_session():
    wire = Wire()
    wire.host.submit(GetStatus(), 0.0)
    (outcome,) = wire.run(0.0)
    assert outcome.status.name == "NO_SESSION"


def test_event_resent_in_a_new_session_is_not_delivered_twice():
    """The ACK is lost and the link drops; the device sends the event again under a new session
    of the same boot: the host knows it already."""
    wire = started()
    wire.device.emit(DiagnosticEvent(1))
    wire.device.tick(wire.now)
    wire.host.receive(wire.device.data_to_send(), wire.now)
    assert [o.event for o in wire.host.outcomes() if isinstance(o, EventReceived)] == [DiagnosticEvent(1)]
    wire.host.data_to_send()  # the ACK never reaches the device
    wire.host.abort_all()
    wire.host.submit(Hello(session_id=2, protocol_version=1), wire.now)
    outcomes = wire.run(until=1.0)
    assert not [o for o in outcomes if isinstance(o, EventReceived)]
    assert wire.host.counters.duplicate_events == 1
    assert wire.device.pending_events == 0


def test_after_a_reboot_the_event_sequence_starts_again():
    wire = started()
    wire.device.emit(DiagnosticEvent(1))
    assert [o.event for o in wire.run(until=1.0) if isinstance(o, EventReceived)] == [DiagnosticEvent(1)]
    wire.device.reboot(wire.now)
    wire.device.emit(DiagnosticEvent(2))  # sent with sequence 0 again, as the first of the boot
    wire.host.submit(Hello(session_id=2, protocol_version=1), wire.now)
    assert [o.event for o in wire.run(until=1.0) if isinstance(o, EventReceived)] == [DiagnosticEvent(2)]


def test_event_before_the_identity_after_a_reconnect_waits_for_it():
    """The Identity of a rebooted device is lost; its first event (sequence 0, like the last one of
    the previous boot) arrives first: it is neither acknowledged nor dropped as a duplicate, and
    is delivered when the device sends it again after the handshake."""
    wire = started()
    wire.device.emit(DiagnosticEvent(1))
    assert [o.event for o in wire.run(until=1.0) if isinstance(o, EventReceived)] == [DiagnosticEvent(1)]
    wire.host.abort_all()
    wire.device.reboot(wire.now)
    wire.device.emit(DiagnosticEvent(2))
    wire.drop_to_host = 1  # the Identity is lost
    wire.host.submit(Hello(session_id=2, protocol_version=1), wire.now)
    wire.device.receive(wire.host.data_to_send(), wire.now)
    wire.device.data_to_send()  # Identity and event 2: the Identity never arrives...
    wire.device.tick(wire.now + 1.0)
    wire.host.receive(wire.device.data_to_send(), wire.now + 1.0)  # ...the event's resend does
    assert not [o for o in wire.host.outcomes() if isinstance(o, EventReceived)]
    sent = FrameDecoder().feed(wire.host.data_to_send())
    assert not [f for f in sent if isinstance(f, Frame) and f.kind is Kind.ACK]
    wire.drop_to_host = 0
    outcomes = wire.run(until=5.0)
    assert [o.event for o in outcomes if isinstance(o, EventReceived)] == [DiagnosticEvent(2)]


def test_a_frame_with_a_bad_crc_is_reported_as_such_and_the_host_naks_it():
    """A device frame whose CRC fails is line noise of reason BAD_CRC (not garbage or a bad header):
    its first byte dropped and the rest, which holds no other sync, discarded with it as one run; the
    host answers with exactly one NAK frame naming BAD_CRC (docs/protocol.md §3, §5.4)."""
    host = HostLink(1, timings=LinkTimings())
    good = Frame(1, Kind.EVENT, True, 3, 0x40, b"\x01\x02").encode()
    bad = good[:-1] + bytes((good[-1] ^ 0x01,))
    assert FrameDecoder().feed(bad) == [Noise(NoiseReason.BAD_CRC, len(bad))]
    host.receive(bad, 0.0)
    noise = [o for o in host.outcomes() if isinstance(o, LineNoise)]
    assert noise == [LineNoise(NoiseReason.BAD_CRC, len(bad))]
    assert host.counters.naks_out == 1
    nak = Frame(1, Kind.NAK, False, 0, 0, bytes((NakReason.BAD_CRC,)))
    assert host.data_to_send() == nak.encode() == b"\xa5\x5a\x05\xfa\x01\x05\x00\x00\x01" + nak.encode()[-2:]


def test_a_device_address_is_neither_the_hosts_nor_the_reserved_one():
    """docs/protocol.md §2: address 0 is the host's and 0xFF is reserved (no broadcast in version 1);
    a device is addressed 1 to 254."""
    for address in (0x00, 0xFF):
        with pytest.raises(ValueError, match=r"device address must be 0x01\.\.0xfe"):
            HostLink(address, timings=LinkTimings())
    assert HostLink(0xFE, timings=LinkTimings()).address == 0xFE


def test_crc_errors_count_the_corrupted_frames_at_both_ends_and_each_retransmission_is_counted():
    """The link's figures the simulator's summary reports: a corrupted response is a CRC error at
    the device (its NAK), which the host answers by sending the command again; a corrupted response
    one at the host, whose NAK the device answers by sending the response again."""
    wire = started()
    wire.host.submit(IncrementTestCounter(amount=1), wire.now)
    command = wire.host.data_to_send()
    wire.device.receive(command[:-1] + bytes((command[-1] ^ 0x01,)), wire.now)  # the device NAKs it
    wire.run(until=5.0)
    assert (wire.host.counters.crc_errors, wire.host.counters.retransmissions) == (1, 1)
    wire.host.submit(ReadTestCounter(), wire.now)
    wire.device.receive(wire.host.data_to_send(), wire.now)
    response = wire.device.data_to_send()
    wire.host.receive(response[:-1] + bytes((response[-1] ^ 0x01,)), wire.now)  # the host NAKs it
    outcomes = wire.run(until=10.0)
    assert any(isinstance(o, ReplyReceived) and o.reply.value == 1 for o in outcomes)
    assert (wire.host.counters.crc_errors, wire.host.counters.retransmissions) == (2, 1)
