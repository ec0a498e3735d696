"""USB transport: a device's bulk endpoints as a byte stream, through pyusb and libusb.

Frames cross the bulk OUT and IN endpoints exactly as they cross a serial line: as a byte stream
with no boundaries of its own. A frame longer than a 64-byte packet spans packets, one read may
return the end of one frame and the start of the next, and the frame decoder
(drivers.protocol.frame) finds frames by sync marker, length and CRC either way. Everything above
the transport is therefore the same code for serial and USB.

A device is named by URL: ``usb://VID:PID`` or ``usb://VID:PID?serial=...`` (VID and PID as four
hex digits, as ``lsusb`` prints them). Without a serial number the first device with that VID:PID
is used; name the serial whenever a table has two devices of one kind.

Threading (docs/decisions/0006): blocking pyusb calls never run on the event loop. One worker
thread owns the ``usb.core.Device`` from ``find`` to ``dispose_resources``: it opens the device
(find, detach the kernel driver, set the configuration, claim the interface), then reads the bulk IN
endpoint with a finite timeout (``read_poll_ms``; a timeout is the normal idle case), handing data
to the loop with ``call_soon_threadsafe``. A second thread, started and joined by the worker, only
writes to the bulk OUT endpoint, woken as soon as the loop queues bytes. pyusb prepares each
transfer under its resource manager's lock and libusb runs transfers on different endpoints
concurrently, so the two never step on each other; a single thread alternating write and read made
every command wait out the read in progress (a 20 ms round trip at a 20 ms poll).

A USB error (ENODEV when the cable is pulled, EPIPE on a stall, a write the device does not accept
within ``write_timeout_ms``) is reported once through ``on_lost`` and ends both threads. ``close``
raises a flag the worker sees within one poll; the worker releases the interface and the handle.
``write`` only appends to a buffer under a condition, so it never blocks the loop.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import enum
import errno
import re
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar
from urllib.parse import parse_qs, urlsplit

import libusb_package
import usb.backend
import usb.core
import usb.util

from drivers.errors import (
    DeviceNotFound,
    LinkLost,
    PortBusy,
    PortPermissionDenied,
    TransportError,
)
from drivers.transport.base import DataCallback, LostCallback, Transport

INTERFACE = 0
_READ_SIZE = 512  # a multiple of the packet size: libusb reports an overflow if a packet overruns a read
_SERIAL_READ_TIMEOUT_MS = 200  # reading a candidate's serial number must not stall the caller for long
_HEX4 = re.compile(r"[0-9A-Fa-f]{4}")
_T = TypeVar("_T")


@dataclass(frozen=True)
class UsbAddress:
    """Which device a ``usb://`` URL names."""

    vid: int
    pid: int
    serial: str | None = None

    def __str__(self) -> str:
        ids = f"{self.vid:04x}:{self.pid:04x}"
        return ids if self.serial is None else f"{ids} with serial number {self.serial!r}"


def parse_usb_url(url: str) -> UsbAddress:
    """Parse ``usb://VID:PID[?serial=...]``; a ValueError names what is wrong."""
    parts = urlsplit(url)
    if parts.scheme != "usb":
        raise ValueError(f"{url}: not a usb:// URL")
    if parts.path or parts.fragment:
        raise ValueError(f"{url}: nothing may follow VID:PID but ?serial=...")
    vid, sep, pid = parts.netloc.partition(":")
    if not sep:
        raise ValueError(f"{url}: expected usb://VID:PID, e.g. usb://1209:0001")
    for name, value in (("VID", vid), ("PID", pid)):
        if not _HEX4.fullmatch(value):
            raise ValueError(f"{url}: {name} must be 4 hex digits")
    query = parse_qs(parts.query, keep_blank_values=True)
    unknown = sorted(set(query) - {"serial"})
    if unknown:
        raise ValueError(f"{url}: unknown parameter(s) {', '.join(unknown)}; only serial= is accepted")
    serials = query.get("serial")
    if serials is not None and len(serials) != 1:
        raise ValueError(f"{url}: serial given {len(serials)} times")
    if serials is not None and not serials[0]:
        raise ValueError(f"{url}: serial must not be empty")
    return UsbAddress(int(vid, 16), int(pid, 16), serials[0] if serials else None)


class _State(enum.Enum):
    CLOSED = "closed"  # never opened, or closed
    OPEN = "open"
    LOST = "lost"  # the worker reported the loss and ended; close() is still due


class UsbTransport(Transport):
    """The bulk endpoints of interface 0 of one USB device.

    ``backend`` is a pyusb backend; None means libusb from the libusb-package wheel (tests pass a
    firmware_sim SimulatedUsbBus). Timeouts are in milliseconds and always finite: libusb reads
    0 as "wait for ever", and a worker that never returns cannot be stopped. ``read_poll_ms``
    bounds only how long ``close`` waits for the worker (decision 0006); each expired poll wakes the
    worker through pyusb, which was over half of an idle table's CPU at 50 ms, hence 100 ms
    (decision 0041).
    """

    def __init__(
        self,
        url: str,
        *,
        backend: usb.backend.IBackend | None = None,
        write_timeout_ms: int = 1000,
        read_poll_ms: int = 100,
    ) -> None:
        self.address = parse_usb_url(url)
        if write_timeout_ms <= 0 or read_poll_ms <= 0:
            raise ValueError("USB timeouts must be positive (libusb takes 0 as no timeout at all)")
        self.url = url
        self.write_timeout_ms = write_timeout_ms
        self.read_poll_ms = read_poll_ms
        self._backend = backend
        self._state = _State.CLOSED
        self._loop: asyncio.AbstractEventLoop | None = None
        self._on_data: DataCallback | None = None
        self._on_lost: LostCallback | None = None
        self._thread: threading.Thread | None = None
        self._stop = threading.Event()
        self._outgoing = bytearray()
        self._outgoing_ready = threading.Condition()

    # -- Transport --------------------------------------------------------------------------------
    async def open(self, on_data: DataCallback, on_lost: LostCallback) -> None:
        if self._thread is not None:
            return
        backend = self._resolve_backend()
        self._loop = asyncio.get_running_loop()
        self._on_data, self._on_lost = on_data, on_lost
        opened: concurrent.futures.Future[None] = concurrent.futures.Future()
        stop = self._stop = threading.Event()  # one per worker: a cancelled open's worker keeps its own
        thread = threading.Thread(
            target=self._work, args=(backend, opened, stop), name=f"usb-{self.url}", daemon=True
        )
        thread.start()
        try:
            await asyncio.wrap_future(opened)
        except asyncio.CancelledError:
            stop.set()  # the worker releases the device as soon as its open returns
            raise
        except Exception:
            await asyncio.to_thread(thread.join)  # it ends right after reporting the failure
            raise
        self._thread = thread
        self._state = _State.OPEN

    def write(self, data: bytes) -> None:
        """Queue bytes for the worker. After a loss (already reported through ``on_lost``) the
        bytes are dropped, as a serial line drops them; writing to a closed transport is an error."""
        if self._state is _State.CLOSED:
            raise LinkLost(f"{self.url}: not open")
        if self._state is _State.OPEN:
            with self._outgoing_ready:
                self._outgoing += data
                self._outgoing_ready.notify()

    async def close(self) -> None:
        self._state = _State.CLOSED
        self._stop.set()
        thread, self._thread = self._thread, None
        if thread is not None:
            await asyncio.to_thread(thread.join)

    def present(self) -> bool:
        """Whether a matching device is on the bus, from a find of its own: the worker's Device is
        not touched, and a candidate opened to read its serial number is closed again."""
        try:
            backend = self._resolve_backend()
            device, _ = _find(backend, self.address)
        except (TransportError, usb.core.USBError):
            return False
        if device is None:
            return False
        usb.util.dispose_resources(device)
        return True

    # -- loop side ---------------------------------------------------------------------------------
    def _resolve_backend(self) -> usb.backend.IBackend:
        backend = self._backend if self._backend is not None else libusb_package.get_libusb1_backend()
        if backend is None:
            raise TransportError(
                f"{self.url}: libusb is unavailable: install the libusb-package wheel or libusb-1.0"
            )
        return backend

    def _deliver(self, data: bytes) -> None:
        if self._state is _State.OPEN and self._on_data is not None:
            self._on_data(data)

    def _lost(self, exc: LinkLost) -> None:
        if self._state is _State.OPEN:
            self._state = _State.LOST
            if self._on_lost is not None:
                self._on_lost(exc)

    def _to_loop(self, callback: Callable[[_T], None], arg: _T) -> None:
        assert self._loop is not None
        with contextlib.suppress(RuntimeError):  # the loop is closed: nobody is listening any more
            self._loop.call_soon_threadsafe(callback, arg)

    # -- the worker thread: the only one that touches the Device ---------------------------------------
    def _work(
        self, backend: usb.backend.IBackend, opened: concurrent.futures.Future[None], stop: threading.Event
    ) -> None:
        if not opened.set_running_or_notify_cancel():
            return  # open() was cancelled before the thread began
        try:
            device, ep_out, ep_in = self._open_device(backend)
        except Exception as exc:
            opened.set_exception(exc)
            return
        opened.set_result(None)
        try:
            self._pump(device, ep_out, ep_in, stop)
        finally:
            with contextlib.suppress(usb.core.USBError):
                usb.util.release_interface(device, INTERFACE)
            usb.util.dispose_resources(device)

    def _open_device(self, backend: usb.backend.IBackend) -> tuple[usb.core.Device, int, int]:
        try:
            device, unreadable = _find(backend, self.address)
        except usb.core.USBError as exc:
            raise _classify(self.url, exc) from exc
        if device is None:
            if unreadable is not None and unreadable.errno in (errno.EACCES, errno.EPERM):
                raise _classify(self.url, unreadable) from unreadable
            raise DeviceNotFound(f"{self.url}: no USB device {self.address} on the bus")
        try:
            return (device, *self._claim(device))
        except usb.core.USBError as exc:
            usb.util.dispose_resources(device)
            raise _classify(self.url, exc) from exc
        except TransportError:
            usb.util.dispose_resources(device)
            raise

    def _claim(self, device: usb.core.Device) -> tuple[int, int]:
        """Take the interface and return its bulk (OUT, IN) endpoint addresses.

        The kernel driver is detached before the configuration is set: Linux refuses
        SET_CONFIGURATION (EBUSY) while any driver holds an interface.
        """
        try:
            if device.is_kernel_driver_active(INTERFACE):
                device.detach_kernel_driver(INTERFACE)
        except NotImplementedError:
            pass  # only Linux binds kernel drivers that libusb can detach
        device.set_configuration()
        usb.util.claim_interface(device, INTERFACE)
        interface = device.get_active_configuration()[(INTERFACE, 0)]
        ep_out, ep_in = (_bulk_endpoint(interface, d) for d in (usb.util.ENDPOINT_OUT, usb.util.ENDPOINT_IN))
        if ep_out is None or ep_in is None:
            raise TransportError(
                f"{self.url}: interface {INTERFACE} has no bulk OUT and IN endpoints: not a Croupier device"
            )
        return ep_out, ep_in

    def _pump(self, device: usb.core.Device, ep_out: int, ep_in: int, stop: threading.Event) -> None:
        """Read on this thread; write on a second one, so a command never waits out a read."""
        writer = threading.Thread(
            target=self._write_loop, args=(device, ep_out, stop), name=f"usb-out-{self.url}", daemon=True
        )
        writer.start()
        try:
            self._read_loop(device, ep_in, stop)
        finally:
            stop.set()
            with self._outgoing_ready:
                self._outgoing_ready.notify()
            writer.join()

    def _read_loop(self, device: usb.core.Device, ep_in: int, stop: threading.Event) -> None:
        while not stop.is_set():
            try:
                received = device.read(ep_in, _READ_SIZE, timeout=self.read_poll_ms)
            except usb.core.USBTimeoutError:
                continue  # nothing to read: the idle case
            except usb.core.USBError as exc:
                self._to_loop(self._lost, LinkLost(f"{self.url}: read failed: {exc}"))
                return
            if received:
                self._to_loop(self._deliver, bytes(received))

    def _write_loop(self, device: usb.core.Device, ep_out: int, stop: threading.Event) -> None:
        while True:
            with self._outgoing_ready:
                while not self._outgoing and not stop.is_set():
                    self._outgoing_ready.wait()
                if stop.is_set():
                    return
                data = bytes(self._outgoing)
                self._outgoing.clear()
            try:
                sent = 0
                while sent < len(data):
                    sent += device.write(ep_out, data[sent:], timeout=self.write_timeout_ms)
            except usb.core.USBError as exc:
                self._to_loop(self._lost, LinkLost(f"{self.url}: write failed: {exc}"))
                stop.set()
                return


def _find(
    backend: usb.backend.IBackend, address: UsbAddress
) -> tuple[usb.core.Device | None, usb.core.USBError | None]:
    """The first device that matches, or None and the error that hid a candidate's serial number.

    Reading a serial number opens the device (string descriptors come by control transfer), so a
    candidate that does not match is closed again at once.
    """
    unreadable: usb.core.USBError | None = None
    for device in usb.core.find(find_all=True, backend=backend, idVendor=address.vid, idProduct=address.pid):
        if address.serial is None:
            return device, None
        device.default_timeout = _SERIAL_READ_TIMEOUT_MS
        try:
            serial = _serial_number(device)
        except usb.core.USBError as exc:
            serial, unreadable = None, exc
        if serial == address.serial:
            return device, None
        usb.util.dispose_resources(device)
    return None, unreadable


def _serial_number(device: usb.core.Device) -> str | None:
    """The serial number string, or None if the device has none.

    Not ``device.serial_number``: its language-id lookup turns every USBError into "no strings",
    which would hide the EACCES that says a udev rule is missing.
    """
    langids = usb.util.get_langids(device)
    if not langids:
        return None
    serial_number: str | None = usb.util.get_string(device, device.iSerialNumber, langids[0])
    return serial_number


def _bulk_endpoint(interface: usb.core.Interface, direction: int) -> int | None:
    endpoint = usb.util.find_descriptor(
        interface,
        custom_match=lambda e: (
            usb.util.endpoint_type(e.bmAttributes) == usb.util.ENDPOINT_TYPE_BULK
            and usb.util.endpoint_direction(e.bEndpointAddress) == direction
        ),
    )
    return None if endpoint is None else endpoint.bEndpointAddress


def _classify(url: str, exc: usb.core.USBError) -> TransportError:
    """Map libusb's open errors to errors that say who can fix them."""
    if exc.errno in (errno.EACCES, errno.EPERM):
        return PortPermissionDenied(
            f"{url}: permission denied opening the USB device; install the udev rule "
            f"config/udev/99-croupier.rules giving the service user access to this VID:PID ({exc})"
        )
    if exc.errno == errno.EBUSY:
        return PortBusy(f"{url}: another program or kernel driver holds the device's interface ({exc})")
    if exc.errno == errno.ENODEV:
        return DeviceNotFound(f"{url}: the device disappeared while being opened ({exc})")
    return TransportError(f"{url}: cannot open: {exc}")
