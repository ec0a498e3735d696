"""A simulated device whose reply cannot be encoded answers with a refusal naming it and goes on
answering: before, the error rose out of ``deliver`` and ended the thread of the port that called it,
and the device heard nothing more (a link down until the process ended)."""

from __future__ import annotations

from dataclasses import dataclass

from drivers.protocol.core import PROTOCOL_VERSION, CounterValue, Hello, ReadTestCounter
from drivers.protocol.frame import Frame, FrameDecoder, Kind
from drivers.protocol.message import Command, Reply, Status
from firmware_sim.engine import DeviceEngine
from firmware_sim.personality import DiagnosticPersonality


@dataclass
class Overflowing(DiagnosticPersonality):
    """Counts past what its reply's u32 carries, once."""

    overflow: bool = True

    def handle(self, command: Command, engine: DeviceEngine) -> Reply:
        if isinstance(command, ReadTestCounter) and self.overflow:
            self.overflow = False
            return CounterValue(1 << 32)
        return super().handle(command, engine)


def ask(engine: DeviceEngine, seq: int, command: Command) -> Frame:
    engine.receive(Frame(1, Kind.COMMAND, False, seq, command.MSG_ID, command.to_payload()).encode(), 0.0)
    (reply,) = [item for item in FrameDecoder().feed(engine.data_to_send()) if isinstance(item, Frame)]
    return reply


def test_a_reply_that_cannot_be_encoded_is_refused_and_the_device_answers_on() -> None:
    engine = DeviceEngine(Overflowing())
    ask(engine, 0, Hello(session_id=7, protocol_version=PROTOCOL_VERSION))
    refused = ask(engine, 1, ReadTestCounter())
    assert refused.payload[0] == Status.REFUSED and b"CounterValue cannot be encoded" in refused.payload
    answered = ask(engine, 2, ReadTestCounter())
    assert answered.payload[0] == Status.OK
