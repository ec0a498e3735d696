"""The base of every device-class driver: a typed face over one supervised connection.

A driver turns the device's messages into method calls and typed events; it knows its class's
protocol, nothing of the device's rules (devices/) or of any game (games/).
"""

from __future__ import annotations

from typing import ClassVar, TypeVar

from drivers.connection import ConnectionEvent, DeviceConnection
from drivers.errors import DeviceRefused
from drivers.protocol.core import ClearFault, DeviceClass, DeviceStatus, FaultCode, GetStatus, faults_in
from drivers.protocol.message import Command, Reply, Status

R = TypeVar("R", bound=Reply)


class ProtocolMismatch(RuntimeError):
    """The device answered a command with a reply of another type: a firmware bug."""


class Driver:
    """Shared by the class drivers: requests with checked reply types, status and fault clearing."""

    DEVICE_CLASS: ClassVar[DeviceClass]

    def __init__(self, conn: DeviceConnection) -> None:
        if conn.expected_class not in (None, self.DEVICE_CLASS):
            raise ValueError(
                f"{type(self).__name__} needs a {self.DEVICE_CLASS.name} connection, "
                f"{conn.name} expects a {conn.expected_class.name}"
            )
        self.conn = conn

    @property
    def name(self) -> str:
        return self.conn.name

    async def call(self, command: Command, reply_type: type[R]) -> R:
        """Send ``command``; its reply must be a ``reply_type``."""
        reply = await self.conn.request(command)
        if not isinstance(reply, reply_type):
            raise ProtocolMismatch(
                f"{self.name}: {type(command).__name__} answered with "
                f"{type(reply).__name__}, expected {reply_type.__name__}"
            )
        return reply

    async def status(self) -> DeviceStatus:
        return await self.call(GetStatus(), DeviceStatus)

    async def clear_fault(self, code: FaultCode, operator: str) -> None:
        """Ask the device to clear a latched fault; it refuses while the condition persists.

        A clear refused as REFUSED is checked against the device's status: a fault the device no
        longer holds was cleared by an earlier ClearFault whose answer was lost with the link (the
        device does not remember a request across sessions, docs/protocol.md §5.5), so the clear is
        done — asked again it would be refused for ever, and the table held with it (§7)."""
        try:
            await self.conn.request(ClearFault(int(code), operator))
        except DeviceRefused as refused:
            if refused.status != Status.REFUSED.name or code in faults_in((await self.status()).faults):
                raise

    async def next_event(self) -> ConnectionEvent:
        """The next device event or connection change, in arrival order."""
        return await self.conn.events.get()
