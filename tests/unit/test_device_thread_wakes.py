"""A simulated device's thread is woken only for a deadline earlier than the one it sleeps to: an
event sent or acknowledged in an exchange moves the device's deadline, and a thread woken for a later
one only went back to sleep, on every such exchange of a simulated round (decision 0048, amended).
An event not acknowledged is still sent again at its deadline."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator

import pytest

from drivers.protocol.core import PROTOCOL_VERSION, Hello, RequestDiagnosticEvents
from drivers.protocol.frame import Frame, FrameDecoder, Kind
from drivers.protocol.message import Command
from firmware_sim.device import SimulatedDevice
from firmware_sim.personality import DiagnosticPersonality

SETTLE = 0.05  # long enough for a woken thread to run its loop once


class Wire:
    """The host's end: the device's bytes as frames, and its thread's ticks counted."""

    def __init__(self, device: SimulatedDevice) -> None:
        self.device = device
        self.frames: list[Frame] = []
        self._decoder = FrameDecoder()
        self.thread_ticks = 0
        tick = device.engine.tick

        def counted(now: float) -> None:
            if threading.current_thread().name.startswith("sim-"):
                self.thread_ticks += 1
            tick(now)

        device.engine.tick = counted  # type: ignore[method-assign]  # counts the device thread's turns
        device.attach(self._heard)

    def _heard(self, data: bytes) -> None:
        self.frames += [item for item in self._decoder.feed(data) if isinstance(item, Frame)]

    def send(self, seq: int, command: Command) -> None:
        self.device.deliver(Frame(1, Kind.COMMAND, False, seq, command.MSG_ID, command.to_payload()).encode())

    def ack(self, event: Frame) -> None:
        self.device.deliver(Frame(1, Kind.ACK, False, event.seq, event.msg).encode())

    @property
    def events(self) -> list[Frame]:
        return [frame for frame in self.frames if frame.kind is Kind.EVENT]


@pytest.fixture
def wire() -> Iterator[Wire]:
    device = SimulatedDevice(DiagnosticPersonality(), seed=1)
    device.start()
    try:
        wire = Wire(device)
        wire.send(0, Hello(session_id=7, protocol_version=PROTOCOL_VERSION))
        yield wire
    finally:
        device.stop()


def test_acknowledged_events_do_not_wake_the_device_thread(wire: Wire) -> None:
    wire.device.engine.event_timeout = 60.0  # no deadline passes during the test, however slow it runs
    wire.send(1, RequestDiagnosticEvents(count=2))  # the first event goes out with the answer
    waited = time.monotonic() + 5
    while not wire.thread_ticks and time.monotonic() < waited:
        time.sleep(0.005)
    time.sleep(SETTLE)
    assert wire.thread_ticks == 1  # woken once: it slept with no deadline, now it has one
    first = wire.events[0]
    wire.ack(first)  # the second event goes out at once: a later deadline than the thread's
    time.sleep(SETTLE)
    wire.ack(wire.events[1])  # nothing is left to send: no deadline at all
    time.sleep(SETTLE)
    assert [event.seq for event in wire.events] == [first.seq, first.seq + 1]
    assert wire.thread_ticks == 1


def test_an_event_not_acknowledged_is_sent_again_at_its_deadline(wire: Wire) -> None:
    timeout = wire.device.engine.event_timeout
    wire.send(1, RequestDiagnosticEvents(count=1))
    time.sleep(timeout + 0.1)
    assert len(wire.events) == 2 and wire.events[0] == wire.events[1]  # the same event, again
    wire.ack(wire.events[0])
    time.sleep(timeout + 0.1)
    assert len(wire.events) == 2
