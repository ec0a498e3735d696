"""What a simulated device does with commands; the engine handles the link around it."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from drivers.protocol.core import (
    CounterValue,
    DeviceClass,
    DiagnosticEvent,
    Echo,
    EchoReply,
    FaultCode,
    IncrementTestCounter,
    ReadTestCounter,
    RequestDiagnosticEvents,
)
from drivers.protocol.frame import MAX_PAYLOAD
from drivers.protocol.message import Command, Empty, Reply, Status

MAX_ECHO = MAX_PAYLOAD - 2  # the reply holds the status byte and the data's length byte

if TYPE_CHECKING:
    from firmware_sim.engine import DeviceEngine


class Refusal(Exception):
    """Raised by a personality to answer a command with a non-OK status."""

    def __init__(self, status: Status, detail: str) -> None:
        super().__init__(detail)
        self.status = status
        self.detail = detail


@runtime_checkable
class Door(Protocol):
    """A device with a door or lid someone can open (the shoe's loading gate, the shuffler's lid)."""

    def open_door(self, engine: DeviceEngine) -> None: ...

    def close_door(self, engine: DeviceEngine) -> None: ...


@dataclass
class Personality:
    """Identity and behaviour of one simulated device. Subclasses handle their class's commands."""

    device_class: DeviceClass
    vendor: str = "Croupier Simulated Devices"
    model: str = "SIM"
    serial_number: str = "SIM-0001"
    firmware_version: str = "1.0.0"
    capabilities: tuple[str, ...] = ()
    firmware_image: bytes = b"croupier firmware_sim"
    #: The image actually running when it is not ``firmware_image``: a tampered device that goes on
    #: reporting the approved image's stored hash (``croupier sim``'s ``tamper`` fault). None: intact.
    tampered_image: bytes | None = None

    @property
    def firmware_hash(self) -> bytes:
        """SHA-256 of the firmware image, as reported in the handshake (605a.4(c) authenticity)."""
        return hashlib.sha256(self.firmware_image).digest()

    @property
    def running_image(self) -> bytes:
        """The image a challenge is answered over (docs/protocol.md §6.6): the one that runs."""
        return self.firmware_image if self.tampered_image is None else self.tampered_image

    def tamper_firmware(self) -> None:
        """Alter the running image; the device goes on reporting the approved image's stored hash."""
        self.tampered_image = self.firmware_image + b"\x00patched"

    def reinstall_firmware(self) -> None:
        """The approved image installed again."""
        self.tampered_image = None

    def handle(self, command: Command, engine: DeviceEngine) -> Reply:
        """Execute a class command. The default knows none."""
        raise Refusal(
            Status.UNKNOWN_COMMAND,
            f"{type(command).__name__} is not supported by a {self.device_class.name.lower()}",
        )

    def condition_persists(self, code: FaultCode) -> bool:
        """Whether the physical cause of a fault is still there, so a clear must be refused."""
        return False

    def on_reboot(self) -> None:
        """Volatile state lost at power cycle; persistent state (counters in flash) stays."""


@dataclass
class DiagnosticPersonality(Personality):
    """The minimal device: echo, a counter that must move exactly once, and test events."""

    device_class: DeviceClass = DeviceClass.DIAGNOSTIC
    model: str = "SIM-DIAG"
    capabilities: tuple[str, ...] = ("echo", "test-counter", "test-events")
    counter: int = 0
    events_emitted: int = field(default=0)

    def handle(self, command: Command, engine: DeviceEngine) -> Reply:
        if isinstance(command, Echo):
            if len(command.data) > MAX_ECHO:
                raise Refusal(Status.REFUSED, f"echo of {len(command.data)} bytes exceeds {MAX_ECHO}")
            return EchoReply(command.data)
        if isinstance(command, IncrementTestCounter):
            self.counter += command.amount
            return CounterValue(self.counter)
        if isinstance(command, ReadTestCounter):
            return CounterValue(self.counter)
        if isinstance(command, RequestDiagnosticEvents):
            for _ in range(command.count):
                self.events_emitted += 1
                engine.emit(DiagnosticEvent(self.events_emitted))
            return Empty()
        return super().handle(command, engine)
