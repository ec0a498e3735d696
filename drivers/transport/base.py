"""The interface every transport offers to the connection supervisor.

Callbacks run on the asyncio loop: ``on_data`` with bytes as they arrive, ``on_lost`` once when the
stream dies. ``write`` never blocks the loop.
"""

from __future__ import annotations

import abc
from collections.abc import Callable

DataCallback = Callable[[bytes], None]
LostCallback = Callable[[Exception], None]


class Transport(abc.ABC):
    """A byte stream to one device."""

    #: Where the device is, for logs and errors ("/dev/serial/by-id/...", "usb://1209:0001").
    url: str

    @abc.abstractmethod
    async def open(self, on_data: DataCallback, on_lost: LostCallback) -> None:
        """Open the stream; raise a TransportError subclass that says why it cannot."""

    @abc.abstractmethod
    def write(self, data: bytes) -> None:
        """Queue bytes for the device; failures arrive through ``on_lost``."""

    @abc.abstractmethod
    async def close(self) -> None:
        """Release the port; safe to call twice or on a transport that never opened."""

    @abc.abstractmethod
    def present(self) -> bool:
        """Cheaply tell whether the device is there to connect to (reconnect polling)."""
