"""Serial transport over pyserial: a device path or any pyserial URL.

``socket://``, ``rfc2217://``, ``spy://`` (hex trace) and ``hwgrep://`` (find by VID:PID) come from
pyserial's own URL handlers. A native port is read through the asyncio loop's file-descriptor
watcher (no thread, lowest latency); URL ports, whose reads go through Python code of their own
(the RFC 2217 negotiation, the spy trace), are read by one thread per port.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import os
import socket
import threading
from typing import TypedDict
from urllib.parse import urlsplit

import serial
from serial.tools import list_ports

from drivers.errors import (
    DeviceNotFound,
    LinkLost,
    PortBusy,
    PortPermissionDenied,
    TransportError,
)
from drivers.transport.base import DataCallback, LostCallback, Transport

_READ_CHUNK = 4096
_THREAD_POLL = 0.05  # seconds a reader thread blocks before checking it should stop


class _PortSettings(TypedDict, total=False):
    """The keyword arguments this transport gives pyserial's ``serial_for_url``."""

    baudrate: int
    bytesize: int
    parity: str
    stopbits: float
    timeout: float
    write_timeout: float
    exclusive: bool


class SerialTransport(Transport):
    """One serial port. ``exclusive`` (default) refuses a second exclusive opener of the port.

    Line settings default to 115200 8N1. Over ``rfc2217://`` they reach the device server's UART.
    """

    def __init__(
        self,
        url: str,
        *,
        baudrate: int = 115200,
        bytesize: int = serial.EIGHTBITS,
        parity: str = serial.PARITY_NONE,
        stopbits: float = serial.STOPBITS_ONE,
        exclusive: bool = True,
    ) -> None:
        self.url = url
        self.line: _PortSettings = {
            "baudrate": baudrate,
            "bytesize": bytesize,
            "parity": parity,
            "stopbits": stopbits,
        }
        self.exclusive = exclusive
        self._port: serial.Serial | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._on_data: DataCallback | None = None
        self._on_lost: LostCallback | None = None
        self._fd = -1
        self._thread: threading.Thread | None = None
        self._stop = threading.Event()
        self._pending = bytearray()

    async def open(self, on_data: DataCallback, on_lost: LostCallback) -> None:
        if self._port is not None:
            return
        self._loop = asyncio.get_running_loop()
        self._on_data, self._on_lost = on_data, on_lost
        port = await self._loop.run_in_executor(None, self._open_port)
        self._port = port
        self._stop.clear()
        if type(port) is serial.Serial:
            self._fd = port.fileno()
            os.set_blocking(self._fd, False)
            self._loop.add_reader(self._fd, self._read_fd)
        else:
            self._thread = threading.Thread(target=self._read_thread, name=f"serial-{self.url}", daemon=True)
            self._thread.start()

    def _open_port(self) -> serial.Serial:
        scheme = urlsplit(self.url).scheme
        kwargs: _PortSettings = {**self.line, "timeout": _THREAD_POLL}
        if scheme != "rfc2217":  # pyserial's RFC 2217 client has no write timeout
            kwargs["write_timeout"] = 1.0
        if scheme in ("", "hwgrep"):
            kwargs["exclusive"] = self.exclusive
        try:
            port = serial.serial_for_url(self.url, **kwargs)
        except serial.SerialException as exc:
            raise _classify(self.url, exc) from exc
        except (ValueError, NotImplementedError) as exc:
            raise TransportError(f"{self.url}: bad port setting: {exc}") from exc
        except OSError as exc:
            raise TransportError(f"{self.url}: cannot open: {exc}") from exc
        if scheme == "socket":
            try:
                _send_at_once(port)
            except OSError as exc:
                port.close()
                raise TransportError(f"{self.url}: cannot set the connection up: {exc}") from exc
        return port

    def write(self, data: bytes) -> None:
        if self._port is None:
            raise LinkLost(f"{self.url}: not open")
        if self._stop.is_set():
            return  # lost: the supervisor is closing the port, the bytes go nowhere
        if self._fd >= 0:
            self._write_fd(data)
            return
        try:
            self._port.write(data)
        except (serial.SerialException, OSError) as exc:
            self._lost(LinkLost(f"{self.url}: write failed: {exc}"))

    def _write_fd(self, data: bytes) -> None:
        if self._pending:
            self._pending += data
            return
        try:
            sent = os.write(self._fd, data)
        except BlockingIOError:
            sent = 0
        except OSError as exc:
            self._lost(LinkLost(f"{self.url}: write failed: {exc}"))
            return
        if sent < len(data):
            self._pending += data[sent:]
            assert self._loop is not None
            self._loop.add_writer(self._fd, self._flush_pending)

    def _flush_pending(self) -> None:
        try:
            sent = os.write(self._fd, self._pending)
        except BlockingIOError:
            return
        except OSError as exc:
            self._lost(LinkLost(f"{self.url}: write failed: {exc}"))
            return
        del self._pending[:sent]
        if not self._pending and self._loop is not None:
            self._loop.remove_writer(self._fd)

    def _read_fd(self) -> None:
        try:
            data = os.read(self._fd, _READ_CHUNK)
        except BlockingIOError:
            return
        except OSError as exc:
            self._lost(LinkLost(f"{self.url}: read failed: {exc.strerror or exc}"))
            return
        if not data:
            self._lost(LinkLost(f"{self.url}: device disconnected"))
            return
        assert self._on_data is not None
        self._on_data(data)

    def _read_thread(self) -> None:
        port, loop = self._port, self._loop
        assert port is not None and loop is not None
        while not self._stop.is_set():
            try:
                data = port.read(max(1, port.in_waiting))
            except (serial.SerialException, OSError, TypeError, AttributeError) as exc:
                # pyserial's URL handlers raise TypeError/AttributeError when closed under a read.
                if not self._stop.is_set():
                    loop.call_soon_threadsafe(self._lost, LinkLost(f"{self.url}: read failed: {exc}"))
                return
            if data:
                loop.call_soon_threadsafe(self._deliver, data)

    def _deliver(self, data: bytes) -> None:
        if not self._stop.is_set() and self._on_data is not None:
            self._on_data(data)

    def _lost(self, exc: Exception) -> None:
        """Report the loss once and stop all I/O; the supervisor then calls close()."""
        if self._port is None or self._stop.is_set():
            return
        self._detach()
        if self._on_lost is not None:
            self._on_lost(exc)

    def _detach(self) -> None:
        """Stop reading and writing, without blocking the loop."""
        self._stop.set()
        if self._fd >= 0 and self._loop is not None:
            self._loop.remove_reader(self._fd)
            self._loop.remove_writer(self._fd)
        self._fd = -1
        self._pending.clear()

    async def close(self) -> None:
        """Close the port off the loop: pyserial's socket and RFC 2217 close() sleep and join, and
        every other device on the loop must keep running meanwhile."""
        port, self._port = self._port, None
        self._detach()
        thread, self._thread = self._thread, None
        if port is None and thread is None:
            return
        await asyncio.get_running_loop().run_in_executor(None, _close_port, port, thread)

    def present(self) -> bool:
        scheme = urlsplit(self.url).scheme
        if not scheme:
            return os.path.exists(self.url)
        if scheme == "hwgrep":
            pattern = self.url[len("hwgrep://") :].split("&")[0]
            return any(True for _ in list_ports.grep(pattern))
        return True  # network ports: only a connection attempt can tell


def _close_port(port: serial.SerialBase | None, thread: threading.Thread | None) -> None:
    if port is not None:
        with contextlib.suppress(Exception):  # a port that died under us may fail to close
            port.close()
    if thread is not None:
        thread.join(timeout=2)


def _classify(url: str, exc: serial.SerialException) -> TransportError:
    """Map pyserial's open errors to errors that say who can fix them."""
    code = exc.errno if isinstance(exc.errno, int) else None
    text = str(exc)
    if (
        code in (errno.ENOENT, errno.ENODEV, errno.ENXIO)
        or "No such file" in text
        or "No such device" in text
        or "no ports found" in text  # hwgrep:// matched nothing
    ):
        return DeviceNotFound(f"{url}: no device there ({text})")
    if code in (errno.EACCES, errno.EPERM) or "Permission denied" in text:
        return PortPermissionDenied(
            f"{url}: permission denied; add the service user to the port's group (dialout) or "
            f"install config/udev rules ({text})"
        )
    if "exclusively lock" in text or code in (errno.EAGAIN, errno.EBUSY):
        return PortBusy(f"{url}: another program holds the port ({text})")
    if "Connection refused" in text or "timed out" in text:
        return DeviceNotFound(f"{url}: no device server answers ({text})")
    return TransportError(f"{url}: cannot open: {text}")


def _send_at_once(port: serial.Serial) -> None:
    """Turn Nagle's algorithm off on a ``socket://`` port's connection, as pyserial's RFC 2217
    client does on its own. With it on, a command written just after the acknowledgement of a
    device event (two small writes, the first not answered) waited for the device server's delayed
    acknowledgement, some 40 ms."""
    connection = getattr(port, "_socket", None)  # pyserial's protocol_socket keeps it there
    if isinstance(connection, socket.socket):
        connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
