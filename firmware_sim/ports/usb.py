"""A simulated USB bus: a pyusb backend on which simulated devices are plugged and unplugged.

Why a backend: there is no kernel USB on the machines that run the tests and ``croupier sim`` (no
dummy_hcd gadget, no USB/IP), so no /dev/bus/usb node can exist for a simulated device. The bus
therefore sits where libusb sits: it implements ``usb.backend.IBackend``, so
``usb.core.find(backend=bus)`` returns a real ``usb.core.Device`` and every pyusb call above the
backend (descriptor parsing, string descriptors, interface claiming, endpoint lookup, read and
write) is pyusb's own, the code a table PC runs.

What the backend imitates is libusb on Linux, including the parts a driver trips over in the field:
a kernel driver bound to the interface until it is detached (claiming or re-configuring before that
fails with EBUSY), errors raised as pyusb raises libusb's (``USBError`` carrying the
``LIBUSB_ERROR_*`` code and its errno, ``USBTimeoutError`` for timeouts), open handles that fail
with ENODEV once the cable is pulled, a new bus address on every replug, stalled endpoints (EPIPE)
until ``clear_halt``, and files the service account may not open (EACCES without a udev rule).

Each simulated device looks like a small full-speed microcontroller: USB 2.0, class defined per
interface, one configuration with one vendor-specific interface (class 0xFF), a bulk OUT endpoint
0x01 and a bulk IN endpoint 0x81 of 64-byte packets, and manufacturer, product and serial number
strings in US English.
"""

from __future__ import annotations

import array
import errno
import itertools
import struct
import threading
import time
from dataclasses import dataclass, field
from urllib.parse import quote

import usb.backend
import usb.core
import usb.util
from usb.backend.libusb1 import (
    LIBUSB_ERROR_ACCESS,
    LIBUSB_ERROR_BUSY,
    LIBUSB_ERROR_INVALID_PARAM,
    LIBUSB_ERROR_NO_DEVICE,
    LIBUSB_ERROR_NOT_FOUND,
    LIBUSB_ERROR_PIPE,
    LIBUSB_ERROR_TIMEOUT,
)

from firmware_sim.device import SimulatedDevice

DEFAULT_VID = 0x1209  # pid.codes, the open-source hardware vendor id
DEFAULT_PID = 0x0001  # pid.codes test PID: for development only, never on shipped equipment
ENDPOINT_OUT = 0x01
ENDPOINT_IN = 0x81
PACKET_SIZE = 64  # the largest bulk packet at full speed
LANGID_EN_US = 0x0409
IN_BUFFER_SIZE = 4096  # device output the host has not read yet; more is an overrun, as on a wire

_GET_DESCRIPTOR = 0x06
_STANDARD_DEVICE_IN = usb.util.CTRL_IN | usb.util.CTRL_TYPE_STANDARD | usb.util.CTRL_RECIPIENT_DEVICE
_STRING_MANUFACTURER, _STRING_PRODUCT, _STRING_SERIAL = 1, 2, 3

# libusb's messages and the errno pyusb attaches to each code (usb/backend/libusb1.py).
_LIBUSB_ERRORS = {
    LIBUSB_ERROR_INVALID_PARAM: (errno.EINVAL, "Invalid parameter"),
    LIBUSB_ERROR_ACCESS: (errno.EACCES, "Access denied (insufficient permissions)"),
    LIBUSB_ERROR_NO_DEVICE: (errno.ENODEV, "No such device (it may have been disconnected)"),
    LIBUSB_ERROR_NOT_FOUND: (errno.ENOENT, "Entity not found"),
    LIBUSB_ERROR_BUSY: (errno.EBUSY, "Resource busy"),
    LIBUSB_ERROR_TIMEOUT: (errno.ETIMEDOUT, "Operation timed out"),
    LIBUSB_ERROR_PIPE: (errno.EPIPE, "Pipe error"),
}


def _usb_error(code: int) -> usb.core.USBError:
    """The exception pyusb's libusb1 backend raises for a libusb error code."""
    number, text = _LIBUSB_ERRORS[code]
    cls = usb.core.USBTimeoutError if code == LIBUSB_ERROR_TIMEOUT else usb.core.USBError
    return cls(text, code, number)


# -- descriptors: the attributes pyusb reads, and the bytes GET_DESCRIPTOR returns --------------------
@dataclass(frozen=True)
class _DeviceDescriptor:
    """libusb_get_device_descriptor's answer, with the bus position pyusb reads alongside it."""

    idVendor: int
    idProduct: int
    bus: int
    address: int
    port_number: int
    bcdDevice: int = 0x0100
    bLength: int = 18
    bDescriptorType: int = usb.util.DESC_TYPE_DEVICE
    bcdUSB: int = 0x0200
    bDeviceClass: int = 0x00  # the class is given per interface
    bDeviceSubClass: int = 0x00
    bDeviceProtocol: int = 0x00
    bMaxPacketSize0: int = 64
    iManufacturer: int = _STRING_MANUFACTURER
    iProduct: int = _STRING_PRODUCT
    iSerialNumber: int = _STRING_SERIAL
    bNumConfigurations: int = 1
    speed: int = usb.util.SPEED_FULL

    @property
    def port_numbers(self) -> tuple[int, ...]:
        """The path from the root hub: the device sits directly on a root port."""
        return (self.port_number,)

    def pack(self) -> bytes:
        return struct.pack(
            "<BBHBBBBHHHBBBB",
            self.bLength,
            self.bDescriptorType,
            self.bcdUSB,
            self.bDeviceClass,
            self.bDeviceSubClass,
            self.bDeviceProtocol,
            self.bMaxPacketSize0,
            self.idVendor,
            self.idProduct,
            self.bcdDevice,
            self.iManufacturer,
            self.iProduct,
            self.iSerialNumber,
            self.bNumConfigurations,
        )


@dataclass(frozen=True)
class _EndpointDescriptor:
    bEndpointAddress: int
    bLength: int = 7
    bDescriptorType: int = usb.util.DESC_TYPE_ENDPOINT
    bmAttributes: int = usb.util.ENDPOINT_TYPE_BULK
    wMaxPacketSize: int = PACKET_SIZE
    bInterval: int = 0
    bRefresh: int = 0
    bSynchAddress: int = 0
    extra_descriptors: tuple[int, ...] = ()

    def pack(self) -> bytes:
        return struct.pack(
            "<BBBBHB",
            self.bLength,
            self.bDescriptorType,
            self.bEndpointAddress,
            self.bmAttributes,
            self.wMaxPacketSize,
            self.bInterval,
        )


@dataclass(frozen=True)
class _InterfaceDescriptor:
    bLength: int = 9
    bDescriptorType: int = usb.util.DESC_TYPE_INTERFACE
    bInterfaceNumber: int = 0
    bAlternateSetting: int = 0
    bNumEndpoints: int = 2
    bInterfaceClass: int = 0xFF  # vendor specific: the Croupier protocol, no kernel class driver
    bInterfaceSubClass: int = 0x00
    bInterfaceProtocol: int = 0x00
    iInterface: int = 0
    extra_descriptors: tuple[int, ...] = ()

    def pack(self) -> bytes:
        return struct.pack(
            "<BBBBBBBBB",
            self.bLength,
            self.bDescriptorType,
            self.bInterfaceNumber,
            self.bAlternateSetting,
            self.bNumEndpoints,
            self.bInterfaceClass,
            self.bInterfaceSubClass,
            self.bInterfaceProtocol,
            self.iInterface,
        )


@dataclass(frozen=True)
class _ConfigurationDescriptor:
    bLength: int = 9
    bDescriptorType: int = usb.util.DESC_TYPE_CONFIG
    wTotalLength: int = 9 + 9 + 7 + 7  # configuration, interface, two endpoints
    bNumInterfaces: int = 1
    bConfigurationValue: int = 1
    iConfiguration: int = 0
    bmAttributes: int = 0x80  # bus powered, no remote wake-up
    bMaxPower: int = 50  # 100 mA, in 2 mA units
    extra_descriptors: tuple[int, ...] = ()

    def pack(self) -> bytes:
        return struct.pack(
            "<BBHBBBBB",
            self.bLength,
            self.bDescriptorType,
            self.wTotalLength,
            self.bNumInterfaces,
            self.bConfigurationValue,
            self.iConfiguration,
            self.bmAttributes,
            self.bMaxPower,
        )


_CONFIGURATION = _ConfigurationDescriptor()
_INTERFACE = _InterfaceDescriptor()
_ENDPOINTS = (_EndpointDescriptor(ENDPOINT_OUT), _EndpointDescriptor(ENDPOINT_IN))
_CONFIGURATION_BYTES = _CONFIGURATION.pack() + _INTERFACE.pack() + b"".join(e.pack() for e in _ENDPOINTS)


def _string_descriptor(text: str) -> bytes:
    """A USB string descriptor: UTF-16LE, at most 126 characters so bLength fits a byte."""
    body = text[:126].encode("utf-16-le")
    return bytes((2 + len(body), usb.util.DESC_TYPE_STRING)) + body


# -- the bus's state ------------------------------------------------------------------------------------
@dataclass(eq=False)
class _Plug:
    """One enumeration of a device: what libusb calls a ``libusb_device``.

    A replug makes a new one with a new address; handles opened on the old one stay dead.
    """

    device: SimulatedDevice
    descriptor: _DeviceDescriptor
    strings: dict[int, str]
    readable: threading.Condition
    access_denied: bool = False
    connected: bool = True
    configuration: int = 1  # the kernel configured the device when it enumerated it...
    kernel_driver: bool = True  # ...and bound a driver to its interface
    claimed_by: _Handle | None = None
    handles: set[_Handle] = field(default_factory=set)
    halted: set[int] = field(default_factory=set)
    fifo: bytearray = field(default_factory=bytearray)


@dataclass(eq=False)
class _Handle:
    """What ``open_device`` returns: libusb's ``libusb_device_handle``."""

    plug: _Plug
    closed: bool = False


class SimulatedUsbBus(usb.backend.IBackend):
    """A USB bus whose devices are simulated; pass it as ``backend=`` to pyusb.

    Thread-safe: one lock guards the bus, and a read blocks on its device's condition (never a busy
    loop) until device output, an unplug, a stall or its timeout. Lock order: a device's own lock,
    then the bus lock (a device calls its sink holding its lock), so the bus never calls into a
    device while it holds the bus lock.
    """

    def __init__(self, bus_number: int = 1) -> None:
        self.bus_number = bus_number
        self._lock = threading.Lock()
        self._plugs: list[_Plug] = []
        self._last_address = 0
        self._hub_ports = itertools.count(1)

    # -- the simulator's side (UsbPort) ---------------------------------------------------------
    def _reserve_hub_port(self) -> int:
        with self._lock:
            return next(self._hub_ports)

    def _plug(
        self,
        device: SimulatedDevice,
        *,
        vid: int,
        pid: int,
        hub_port: int,
        strings: dict[int, str],
        access_denied: bool,
    ) -> _Plug:
        with self._lock:
            descriptor = _DeviceDescriptor(vid, pid, self.bus_number, self._next_address(), hub_port)
            plug = _Plug(device, descriptor, strings, threading.Condition(self._lock), access_denied)
            self._plugs.append(plug)
            self._plugs.sort(key=lambda p: p.descriptor.port_number)
        device.attach(lambda data: self._device_output(plug, data))
        return plug

    def _unplug(self, plug: _Plug) -> None:
        with self._lock:
            plug.connected = False
            plug.fifo.clear()
            if plug in self._plugs:
                self._plugs.remove(plug)
            plug.readable.notify_all()
        plug.device.attach(None)

    def _next_address(self) -> int:
        """The next free address after the last one given, as a host controller assigns them."""
        used = {p.descriptor.address for p in self._plugs}
        address = self._last_address
        for _ in range(127):
            address = address % 127 + 1
            if address not in used:
                self._last_address = address
                return address
        raise RuntimeError(f"bus {self.bus_number} has 127 devices: USB has no address left")

    def _device_output(self, plug: _Plug, data: bytes) -> None:
        """The device's bytes wait in its IN endpoint until the host reads them."""
        with self._lock:
            if not plug.connected:
                return
            room = IN_BUFFER_SIZE - len(plug.fifo)
            plug.fifo += data[:room]
            plug.readable.notify_all()

    def _halt(self, plug: _Plug, endpoint: int) -> None:
        with self._lock:
            plug.halted.add(endpoint)
            plug.readable.notify_all()

    # -- checks shared by the backend calls (call with the lock held) --------------------------------
    @staticmethod
    def _live(handle: _Handle) -> _Plug:
        if handle.closed:
            raise _usb_error(LIBUSB_ERROR_INVALID_PARAM)
        if not handle.plug.connected:
            raise _usb_error(LIBUSB_ERROR_NO_DEVICE)
        return handle.plug

    @staticmethod
    def _check_interface(plug: _Plug, intf: int) -> None:
        if plug.configuration == 0 or intf != _INTERFACE.bInterfaceNumber:
            raise _usb_error(LIBUSB_ERROR_NOT_FOUND)

    def _claim(self, handle: _Handle, intf: int) -> None:
        """Linux usbfs rules: one claimant per interface, and a bound kernel driver is one."""
        plug = self._live(handle)
        self._check_interface(plug, intf)
        if plug.claimed_by is handle:
            return
        if plug.claimed_by is not None or plug.kernel_driver:
            raise _usb_error(LIBUSB_ERROR_BUSY)
        plug.claimed_by = handle

    def _endpoint(self, handle: _Handle, endpoint: int, direction: int) -> _Plug:
        """Check a bulk transfer may start; usbfs claims the interface for a transfer on it."""
        plug = self._live(handle)
        if endpoint not in (e.bEndpointAddress for e in _ENDPOINTS):
            raise _usb_error(LIBUSB_ERROR_INVALID_PARAM)
        if usb.util.endpoint_direction(endpoint) != direction:
            raise _usb_error(LIBUSB_ERROR_INVALID_PARAM)
        self._claim(handle, _INTERFACE.bInterfaceNumber)
        if endpoint in plug.halted:
            raise _usb_error(LIBUSB_ERROR_PIPE)
        return plug

    # -- IBackend: enumeration and descriptors ------------------------------------------------------
    def enumerate_devices(self) -> list[_Plug]:
        with self._lock:
            return list(self._plugs)

    def get_parent(self, dev: _Plug) -> None:
        return None  # the root hub is not modelled

    def get_device_descriptor(self, dev: _Plug) -> _DeviceDescriptor:
        return dev.descriptor  # cached by the host: readable even after an unplug, as in libusb

    def get_configuration_descriptor(self, dev: _Plug, config: int) -> _ConfigurationDescriptor:
        if config != 0:
            raise _usb_error(LIBUSB_ERROR_NOT_FOUND)
        return _CONFIGURATION

    def get_interface_descriptor(self, dev: _Plug, intf: int, alt: int, config: int) -> _InterfaceDescriptor:
        self.get_configuration_descriptor(dev, config)
        if intf >= _CONFIGURATION.bNumInterfaces:
            raise IndexError(f"Invalid interface index {intf}")
        if alt > 0:
            raise IndexError(f"Invalid alternate setting index {alt}")  # pyusb's loop ends on it
        return _INTERFACE

    def get_endpoint_descriptor(
        self, dev: _Plug, ep: int, intf: int, alt: int, config: int
    ) -> _EndpointDescriptor:
        self.get_interface_descriptor(dev, intf, alt, config)
        if ep >= len(_ENDPOINTS):
            raise IndexError(f"Invalid endpoint index {ep}")
        return _ENDPOINTS[ep]

    # -- IBackend: handles, configuration, interfaces -----------------------------------------------
    def open_device(self, dev: _Plug) -> _Handle:
        with self._lock:
            if not dev.connected:
                raise _usb_error(LIBUSB_ERROR_NO_DEVICE)
            if dev.access_denied:
                raise _usb_error(LIBUSB_ERROR_ACCESS)
            handle = _Handle(dev)
            dev.handles.add(handle)
            return handle

    def close_device(self, dev_handle: _Handle) -> None:
        with self._lock:
            plug = dev_handle.plug
            dev_handle.closed = True
            plug.handles.discard(dev_handle)
            if plug.claimed_by is dev_handle:
                plug.claimed_by = None  # closing the file releases its claims
            plug.readable.notify_all()

    def set_configuration(self, dev_handle: _Handle, config_value: int) -> None:
        with self._lock:
            plug = self._live(dev_handle)
            if config_value not in (0, _CONFIGURATION.bConfigurationValue):
                raise _usb_error(LIBUSB_ERROR_NOT_FOUND)
            if plug.claimed_by is not None or plug.kernel_driver:
                # usbfs refuses while any driver, its own claim included, holds an interface.
                raise _usb_error(LIBUSB_ERROR_BUSY)
            if config_value != plug.configuration:
                plug.kernel_driver = config_value != 0  # new interfaces: the kernel probes drivers
            plug.configuration = config_value
            plug.halted.clear()  # SET_CONFIGURATION resets the endpoints...
            plug.fifo.clear()  # ...and the firmware drops what it had queued

    def get_configuration(self, dev_handle: _Handle) -> int:
        with self._lock:
            return self._live(dev_handle).configuration

    def set_interface_altsetting(self, dev_handle: _Handle, intf: int, altsetting: int) -> None:
        with self._lock:
            plug = self._live(dev_handle)
            self._check_interface(plug, intf)
            if plug.claimed_by is not dev_handle or altsetting != 0:
                raise _usb_error(LIBUSB_ERROR_NOT_FOUND)
            plug.halted.clear()

    def claim_interface(self, dev_handle: _Handle, intf: int) -> None:
        with self._lock:
            self._claim(dev_handle, intf)

    def release_interface(self, dev_handle: _Handle, intf: int) -> None:
        with self._lock:
            plug = self._live(dev_handle)
            self._check_interface(plug, intf)
            if plug.claimed_by is not dev_handle:
                raise _usb_error(LIBUSB_ERROR_NOT_FOUND)
            plug.claimed_by = None

    def is_kernel_driver_active(self, dev_handle: _Handle, intf: int) -> bool:
        with self._lock:
            plug = self._live(dev_handle)
            self._check_interface(plug, intf)
            return plug.kernel_driver

    def detach_kernel_driver(self, dev_handle: _Handle, intf: int) -> None:
        with self._lock:
            plug = self._live(dev_handle)
            self._check_interface(plug, intf)
            if not plug.kernel_driver:
                raise _usb_error(LIBUSB_ERROR_NOT_FOUND)
            plug.kernel_driver = False

    def attach_kernel_driver(self, dev_handle: _Handle, intf: int) -> None:
        with self._lock:
            plug = self._live(dev_handle)
            self._check_interface(plug, intf)
            if plug.kernel_driver or plug.claimed_by is not None:
                raise _usb_error(LIBUSB_ERROR_BUSY)
            plug.kernel_driver = True

    # -- IBackend: transfers ------------------------------------------------------------------------
    def bulk_write(self, dev_handle: _Handle, ep: int, intf: int, data: array.array, timeout: int) -> int:
        """The device takes the bytes at once, a packet at a time as its firmware receives them.

        ``timeout`` never expires: the simulated device's receive buffer does not fill.
        """
        payload = data.tobytes()
        with self._lock:
            plug = self._endpoint(dev_handle, ep, usb.util.ENDPOINT_OUT)
        # Outside the bus lock: deliver() may answer at once, through the sink, which takes the bus
        # lock (the order is device lock, then bus lock). An unplug in between lets the device see
        # one last transfer, as a cable pulled mid-transfer can.
        for start in range(0, len(payload), PACKET_SIZE):
            plug.device.deliver(payload[start : start + PACKET_SIZE])
        return len(payload)

    def bulk_read(self, dev_handle: _Handle, ep: int, intf: int, buff: array.array, timeout: int) -> int:
        """Wait up to ``timeout`` ms (0: for ever, as libusb) for device output; return what is there,
        at most the buffer's size."""
        deadline = None if timeout == 0 else time.monotonic() + timeout / 1000
        with self._lock:
            plug = self._endpoint(dev_handle, ep, usb.util.ENDPOINT_IN)
            while not plug.fifo:
                remaining = None if deadline is None else deadline - time.monotonic()
                if remaining is not None and remaining <= 0:
                    raise _usb_error(LIBUSB_ERROR_TIMEOUT)
                plug.readable.wait(remaining)
                self._endpoint(dev_handle, ep, usb.util.ENDPOINT_IN)  # unplugged, closed or stalled?
            count = min(len(buff), len(plug.fifo))
            buff[:count] = array.array("B", plug.fifo[:count])
            del plug.fifo[:count]
            return count

    def ctrl_transfer(
        self,
        dev_handle: _Handle,
        bmRequestType: int,
        bRequest: int,
        wValue: int,
        wIndex: int,
        data: array.array,
        timeout: int,
    ) -> int:
        """GET_DESCRIPTOR, which string descriptors need; a device stalls a request it does not know."""
        with self._lock:
            plug = self._live(dev_handle)
            if bmRequestType != _STANDARD_DEVICE_IN or bRequest != _GET_DESCRIPTOR:
                raise _usb_error(LIBUSB_ERROR_PIPE)
            reply = self._descriptor(plug, wValue >> 8, wValue & 0xFF)
        count = min(len(data), len(reply))
        data[:count] = array.array("B", reply[:count])
        return count

    @staticmethod
    def _descriptor(plug: _Plug, kind: int, index: int) -> bytes:
        if kind == usb.util.DESC_TYPE_DEVICE and index == 0:
            return plug.descriptor.pack()
        if kind == usb.util.DESC_TYPE_CONFIG and index == 0:
            return _CONFIGURATION_BYTES
        if kind == usb.util.DESC_TYPE_STRING and index == 0:
            return struct.pack("<BBH", 4, usb.util.DESC_TYPE_STRING, LANGID_EN_US)
        if kind == usb.util.DESC_TYPE_STRING and index in plug.strings:
            return _string_descriptor(plug.strings[index])  # one language: the LANGID is not checked
        raise _usb_error(LIBUSB_ERROR_PIPE)

    def clear_halt(self, dev_handle: _Handle, ep: int) -> None:
        with self._lock:
            plug = self._live(dev_handle)
            if ep not in (e.bEndpointAddress for e in _ENDPOINTS):
                raise _usb_error(LIBUSB_ERROR_NOT_FOUND)
            plug.halted.discard(ep)

    def reset_device(self, dev_handle: _Handle) -> None:
        """A bus reset: the endpoints start afresh; the descriptors do not change, so the device
        keeps its address and the handle stays valid (libusb_reset_device's common case)."""
        with self._lock:
            plug = self._live(dev_handle)
            plug.halted.clear()
            plug.fifo.clear()


class UsbPort:
    """Serve ``device`` on ``bus`` as a USB device; ``url`` is what UsbTransport opens.

    A port in the sense of firmware_sim.ports. The port is a socket of the bus's root hub: unplug
    and replug keep the hub port but, as on real hardware, the device comes back at a new address.
    """

    def __init__(
        self,
        device: SimulatedDevice,
        bus: SimulatedUsbBus,
        *,
        vid: int = DEFAULT_VID,
        pid: int = DEFAULT_PID,
        serial: str | None = None,
        manufacturer: str | None = None,
        product: str | None = None,
    ) -> None:
        for name, value in (("vid", vid), ("pid", pid)):
            if not 0 <= value <= 0xFFFF:
                raise ValueError(f"{name} must be 0x0000..0xFFFF, got {value:#x}")
        personality = device.engine.personality
        self.device = device
        self.bus = bus
        self.vid = vid
        self.pid = pid
        self.serial = serial if serial is not None else personality.serial_number
        self._strings = {
            _STRING_MANUFACTURER: manufacturer if manufacturer is not None else personality.vendor,
            _STRING_PRODUCT: product if product is not None else personality.model,
            _STRING_SERIAL: self.serial,
        }
        self._hub_port = bus._reserve_hub_port()
        self._plug: _Plug | None = None
        self._access_denied = False

    @property
    def url(self) -> str:
        return f"usb://{self.vid:04x}:{self.pid:04x}?serial={quote(self.serial, safe='')}"

    @property
    def address(self) -> int | None:
        """The bus address of the current plug-in; None while unplugged."""
        return self._plug.descriptor.address if self._plug is not None else None

    @property
    def kernel_driver_active(self) -> bool:
        return self._plug is not None and self._plug.kernel_driver

    @property
    def claimed(self) -> bool:
        """Whether a program holds the interface."""
        return self._plug is not None and self._plug.claimed_by is not None

    @property
    def open_handles(self) -> int:
        return len(self._plug.handles) if self._plug is not None else 0

    @property
    def access_denied(self) -> bool:
        """Simulates a device node the service account may not open (no udev rule): EACCES."""
        return self._access_denied

    @access_denied.setter
    def access_denied(self, denied: bool) -> None:
        self._access_denied = denied
        if self._plug is not None:
            self._plug.access_denied = denied

    def start(self) -> UsbPort:
        self.device.start()
        self.replug()
        return self

    def replug(self) -> None:
        """The device enumerates again: new address, kernel driver bound, endpoints empty."""
        if self._plug is None:
            self._plug = self.bus._plug(
                self.device,
                vid=self.vid,
                pid=self.pid,
                hub_port=self._hub_port,
                strings=dict(self._strings),
                access_denied=self._access_denied,
            )

    def unplug(self) -> None:
        """The cable is pulled: the device leaves the bus, open handles fail with ENODEV, blocked
        reads wake, and whatever the device sends meanwhile is lost."""
        plug, self._plug = self._plug, None
        if plug is not None:
            self.bus._unplug(plug)

    def stall(self, endpoint: int) -> None:
        """The device halts ``endpoint`` (its firmware's error signal): transfers fail with EPIPE
        until the host clears the halt or sets the configuration again."""
        if endpoint not in (e.bEndpointAddress for e in _ENDPOINTS):
            raise ValueError(f"no endpoint {endpoint:#04x}: the device has 0x01 (OUT) and 0x81 (IN)")
        if self._plug is not None:
            self.bus._halt(self._plug, endpoint)

    def stop(self) -> None:
        self.unplug()
        self.device.stop()
