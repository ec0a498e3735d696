"""The USB path end to end: real pyusb over the simulated USB bus, then the whole driver stack.

There is no kernel USB here, so the bus is a pyusb backend (firmware_sim.ports.usb); everything
above it, pyusb included, is the code a table PC runs. The last tests load the real libusb from the
libusb-package wheel, to prove that path works too.
"""

from __future__ import annotations

import asyncio
import dataclasses
import errno
import re
import struct
import threading
from collections.abc import Callable

import libusb_package
import pytest
import usb.core
import usb.util

from drivers.connection import ConnectionState
from drivers.errors import (
    DeviceNotFound,
    LinkLost,
    OutcomeUnknown,
    PortBusy,
    PortPermissionDenied,
)
from drivers.host_link import HostLink, LinkTimings, ReplyReceived
from drivers.protocol.core import (
    PROTOCOL_VERSION,
    CounterValue,
    DeviceClass,
    Echo,
    Hello,
    Identity,
    IncrementTestCounter,
    ReadTestCounter,
)
from drivers.transport.usb import UsbTransport
from firmware_sim.device import SimulatedDevice
from firmware_sim.faults import ChannelFaults, FaultPlan
from firmware_sim.personality import DiagnosticPersonality
from firmware_sim.ports.usb import SimulatedUsbBus, UsbPort
from tests.links import FAST, connected, run, wait_for_state

VID, PID = 0x1209, 0x0001
BULK = usb.util.ENDPOINT_TYPE_BULK
NO_HEARTBEAT = dataclasses.replace(FAST, heartbeat_interval=30.0)  # no heartbeat frame to race with


@pytest.fixture
def bus() -> SimulatedUsbBus:
    return SimulatedUsbBus()


def usb_port(bus: SimulatedUsbBus, serial: str = "USB-0001") -> UsbPort:
    device = SimulatedDevice(DiagnosticPersonality(serial_number=serial), seed=5, name=f"usb-{serial}")
    return UsbPort(device, bus).start()


def over(bus: SimulatedUsbBus) -> Callable[[str], UsbTransport]:
    return lambda url: UsbTransport(url, backend=bus)


def ignore(_: object) -> None:
    pass


def hello_round_trip(dev: usb.core.Device) -> Identity:
    """A handshake by hand over raw pyusb bulk transfers."""
    link = HostLink(1)
    link.submit(Hello(session_id=7, protocol_version=PROTOCOL_VERSION), 0.0)
    assert dev.write(0x01, link.data_to_send(), 500) > 0
    while True:
        link.receive(bytes(dev.read(0x81, 512, 500)), 0.0)
        for outcome in link.outcomes():
            assert isinstance(outcome, ReplyReceived)
            assert isinstance(outcome.reply, Identity)
            return outcome.reply


# -- real pyusb over the simulated bus ----------------------------------------------------------------
def test_pyusb_finds_the_device_and_reads_its_descriptors(bus):
    port = usb_port(bus)
    dev = usb.core.find(idVendor=VID, backend=bus)
    try:
        assert dev is not None and (dev.idVendor, dev.idProduct) == (VID, PID)
        assert (dev.bcdUSB, dev.bDeviceClass, dev.bNumConfigurations) == (0x0200, 0, 1)
        assert (dev.bus, dev.address, dev.port_numbers) == (1, port.address, (1,))
        assert dev.speed == usb.util.SPEED_FULL
        assert dev.langids == (0x0409,)
        assert dev.serial_number == "USB-0001"
        assert dev.manufacturer == "Croupier Simulated Devices"
        assert dev.product == "SIM-DIAG"
        raw = dev.ctrl_transfer(0x80, 0x06, 0x0100, 0, 18)  # GET_DESCRIPTOR(device): the wire bytes
        assert len(raw) == 18 and struct.unpack_from("<HHH", raw, 8) == (VID, PID, 0x0100)

        config = dev.get_active_configuration()
        assert (config.bConfigurationValue, config.bNumInterfaces, config.wTotalLength) == (1, 1, 32)
        assert len(dev.ctrl_transfer(0x80, 0x06, 0x0200, 0, 255)) == 32  # the whole bundle
        interface = config[(0, 0)]
        assert (interface.bInterfaceNumber, interface.bInterfaceClass, interface.bNumEndpoints) == (
            0,
            0xFF,
            2,
        )
        endpoints = [
            (e.bEndpointAddress, usb.util.endpoint_type(e.bmAttributes), e.wMaxPacketSize) for e in interface
        ]
        assert endpoints == [(0x01, BULK, 64), (0x81, BULK, 64)]
        with pytest.raises(usb.core.USBError) as stalled:
            usb.util.get_string(dev, 9)  # no such string: the device stalls the request
        assert stalled.value.errno == errno.EPIPE
    finally:
        usb.util.dispose_resources(dev)
        port.stop()


def test_pyusb_io_follows_libusb_rules(bus):
    """A bound kernel driver blocks claiming (EBUSY) until detached; idle reads time out; a stall
    fails with EPIPE until cleared; a pulled cable fails the open handle with ENODEV."""
    port = usb_port(bus)
    dev = usb.core.find(idVendor=VID, idProduct=PID, backend=bus)
    try:
        assert dev.is_kernel_driver_active(0)
        for attempt in (lambda: usb.util.claim_interface(dev, 0), dev.set_configuration):
            with pytest.raises(usb.core.USBError) as busy:
                attempt()
            assert (busy.value.errno, busy.value.backend_error_code) == (errno.EBUSY, -6)
        dev.detach_kernel_driver(0)
        dev.set_configuration()
        usb.util.claim_interface(dev, 0)
        assert port.claimed and not port.kernel_driver_active

        assert hello_round_trip(dev).serial_number == "USB-0001"
        with pytest.raises(usb.core.USBTimeoutError) as idle:
            dev.read(0x81, 512, 50)
        assert (idle.value.errno, idle.value.backend_error_code) == (errno.ETIMEDOUT, -7)

        port.stall(0x81)
        with pytest.raises(usb.core.USBError) as halted:
            dev.read(0x81, 512, 50)
        assert halted.value.errno == errno.EPIPE
        dev.clear_halt(0x81)
        with pytest.raises(usb.core.USBTimeoutError):
            dev.read(0x81, 512, 50)

        first_address = port.address
        port.unplug()
        for call in (lambda: dev.read(0x81, 512, 50), lambda: dev.write(0x01, b"x", 50)):
            with pytest.raises(usb.core.USBError) as gone:
                call()
            assert (gone.value.errno, gone.value.backend_error_code) == (errno.ENODEV, -4)
        assert usb.core.find(idVendor=VID, backend=bus) is None
    finally:
        usb.util.dispose_resources(dev)
    port.replug()
    try:
        again = usb.core.find(idVendor=VID, backend=bus)
        assert again.address == port.address != first_address
        assert port.kernel_driver_active and port.open_handles == 0
    finally:
        port.stop()


def test_pyusb_configuration_reset_and_kernel_driver_housekeeping(bus):
    port = usb_port(bus)
    dev = usb.core.find(idVendor=VID, backend=bus)
    try:
        dev.detach_kernel_driver(0)
        dev.set_configuration(0)  # unconfigured: the interface is gone
        with pytest.raises(usb.core.USBError) as gone:
            dev.is_kernel_driver_active(0)
        assert gone.value.errno == errno.ENOENT
        dev.set_configuration()  # a new configuration: the kernel probes and binds its driver again
        assert port.kernel_driver_active
        dev.detach_kernel_driver(0)
        usb.util.claim_interface(dev, 0)
        dev.set_interface_altsetting(0, 0)
        with pytest.raises(usb.core.USBError) as busy:
            dev.attach_kernel_driver(0)
        assert busy.value.errno == errno.EBUSY
        port.stall(0x01)
        dev.reset()  # a bus reset clears the halt
        assert dev.write(0x01, b"\x00", 50) == 1
        usb.util.release_interface(dev, 0)
        dev.attach_kernel_driver(0)
        assert port.kernel_driver_active and not port.claimed
    finally:
        usb.util.dispose_resources(dev)
        port.stop()


# -- the driver stack over USB -----------------------------------------------------------------------
def test_connection_reaches_ready_and_round_trips(bus):
    port = usb_port(bus)

    async def scenario():
        async with connected(port, over(bus), expected_class=DeviceClass.DIAGNOSTIC) as rig:
            assert rig.conn.state is ConnectionState.READY
            assert rig.conn.identity.serial_number == "USB-0001"
            assert port.claimed and not port.kernel_driver_active, "the transport detached the kernel driver"
            assert (await rig.conn.request(Echo(b"ping"))).data == b"ping"
            assert await rig.conn.request(IncrementTestCounter(2)) == CounterValue(2)
            assert await rig.conn.request(ReadTestCounter()) == CounterValue(2)
            await asyncio.sleep(0.25)  # heartbeats keep the link up
            assert rig.conn.state is ConnectionState.READY

    run(scenario())


@pytest.mark.parametrize("split", [0, 5], ids=["whole", "split-5-bytes"])
def test_frame_larger_than_a_packet_crosses(bus, split):
    """200 bytes each way span four 64-byte packets; the device may also hand its answer over in
    scraps, which reads join in any grouping; the decoder rebuilds the frame either way."""
    port = usb_port(bus)

    async def scenario():
        async with connected(port, over(bus), settings=NO_HEARTBEAT) as rig:
            rig.device.set_faults(FaultPlan(outbound=ChannelFaults(split_size=split)))
            data = bytes(range(200))
            assert (await rig.conn.request(Echo(data))).data == data

    run(scenario())


def test_lost_response_is_retransmitted_and_the_increment_executes_once(bus):
    port = usb_port(bus)

    async def scenario():
        async with connected(port, over(bus), settings=NO_HEARTBEAT) as rig:
            executions = rig.device.call(lambda engine: engine.executions)
            retransmissions = rig.conn.link.counters.retransmissions
            # Armed after the handshake, so the dropped write is the increment's response.
            rig.device.set_faults(FaultPlan(outbound=ChannelFaults(drop_next=1)))
            assert await rig.conn.request(IncrementTestCounter(5)) == CounterValue(5)
            assert rig.conn.link.counters.retransmissions == retransmissions + 1
            assert rig.device.engine.personality.counter == 5
            assert rig.device.call(lambda engine: engine.executions) == executions + 1

    run(scenario())


def test_unplug_mid_command_fails_it_and_replug_reconnects_at_once(bus):
    port = usb_port(bus)
    settings = dataclasses.replace(
        NO_HEARTBEAT,
        backoff_initial=2.0,
        backoff_max=2.0,
        timings=LinkTimings(response_timeout=1.0, max_retries=1, partial_frame_timeout=0.1),
    )

    async def scenario():
        async with connected(port, over(bus), settings=settings) as rig:
            first_address = port.address
            rig.device.set_faults(FaultPlan(outbound=ChannelFaults(delay=0.2)))
            increment = asyncio.ensure_future(rig.conn.request(IncrementTestCounter(1)))
            queued = asyncio.ensure_future(rig.conn.request(Echo(b"behind it")))
            await asyncio.sleep(0.05)  # executed by the device, its response not yet sent
            port.unplug()
            with pytest.raises(OutcomeUnknown, match="whether it executed is unknown"):
                await increment
            with pytest.raises(LinkLost, match="not completed"):
                await queued
            await wait_for_state(rig.conn, ConnectionState.BACKOFF, 2.0)
            assert "No such device" in str(rig.conn.last_error)

            rig.device.set_faults(FaultPlan())
            port.replug()
            took = await wait_for_state(rig.conn, ConnectionState.READY, 2.0)
            assert took < 1.0, "the presence poll reconnects a returning device before the 2 s backoff"
            assert port.address != first_address
            assert await rig.conn.request(ReadTestCounter()) == CounterValue(1)  # it had executed, once

    run(scenario())


def test_serial_number_selects_among_devices_with_one_vid_pid(bus):
    shoe_a, shoe_b = usb_port(bus, "SHOE-A"), usb_port(bus, "SHOE-B")
    assert shoe_a.url == "usb://1209:0001?serial=SHOE-A" and shoe_b.url == "usb://1209:0001?serial=SHOE-B"

    async def scenario():
        async with connected(shoe_a, over(bus)) as a, connected(shoe_b, over(bus)) as b:
            assert a.conn.identity.serial_number == "SHOE-A"
            assert b.conn.identity.serial_number == "SHOE-B"
            await asyncio.gather(
                a.conn.request(IncrementTestCounter(3)), b.conn.request(IncrementTestCounter(4))
            )
            assert shoe_a.device.engine.personality.counter == 3
            assert shoe_b.device.engine.personality.counter == 4

    run(scenario())


# -- the transport on its own ------------------------------------------------------------------------
def test_close_releases_the_interface_and_ends_the_worker(bus):
    port = usb_port(bus)

    async def scenario():
        received = bytearray()
        lost: list[Exception] = []
        transport = UsbTransport(port.url, backend=bus)
        await transport.open(received.extend, lost.append)
        assert port.claimed and port.open_handles == 1
        assert [t for t in threading.enumerate() if t.name == f"usb-{port.url}"]
        link = HostLink(1)
        link.submit(Hello(session_id=1, protocol_version=PROTOCOL_VERSION), 0.0)
        transport.write(link.data_to_send())
        async with asyncio.timeout(2.0):
            while not received:
                await asyncio.sleep(0.01)

        await transport.close()
        await transport.close()
        assert not port.claimed and port.open_handles == 0
        assert not port.kernel_driver_active, "close re-attaches no kernel driver"
        assert not [t for t in threading.enumerate() if t.name.startswith("usb-")]
        assert lost == []
        with pytest.raises(LinkLost, match="not open"):
            transport.write(b"late")

    try:
        run(scenario())
    finally:
        port.stop()


def test_unplug_reports_the_loss_once(bus):
    port = usb_port(bus)

    async def scenario():
        lost: list[Exception] = []
        transport = UsbTransport(port.url, backend=bus)
        await transport.open(ignore, lost.append)
        port.unplug()
        async with asyncio.timeout(2.0):
            while not lost:
                await asyncio.sleep(0.01)
        transport.write(b"dropped, not raised: the loss is already reported")
        await asyncio.sleep(0.1)
        assert len(lost) == 1 and isinstance(lost[0], LinkLost)
        assert "read failed" in str(lost[0]) and "No such device" in str(lost[0])
        await transport.close()

    try:
        run(scenario())
    finally:
        port.stop()


def test_a_second_opener_is_refused_as_busy(bus):
    port = usb_port(bus)

    async def scenario():
        first = UsbTransport(port.url, backend=bus)
        await first.open(ignore, ignore)
        try:
            with pytest.raises(PortBusy, match=re.escape(port.url)):
                await UsbTransport(port.url, backend=bus).open(ignore, ignore)
        finally:
            await first.close()

    try:
        run(scenario())
    finally:
        port.stop()


@pytest.mark.parametrize("url", ["usb://1209:0001?serial=USB-0001", "usb://1209:0001"])
def test_permission_denied_points_at_udev_rules(bus, url):
    """Without a serial the open fails; with one, reading the serial number already does."""
    port = usb_port(bus)
    port.access_denied = True
    try:
        with pytest.raises(PortPermissionDenied, match="udev rule"):
            run(UsbTransport(url, backend=bus).open(ignore, ignore))
    finally:
        port.stop()


@pytest.mark.parametrize("url", ["usb://1209:0001?serial=ABSENT", "usb://1209:0002"])
def test_no_such_device_on_the_simulated_bus(bus, url):
    port = usb_port(bus)
    try:
        transport = UsbTransport(url, backend=bus)
        assert not transport.present()
        with pytest.raises(DeviceNotFound, match=re.escape(url)):
            run(transport.open(ignore, ignore))
        assert port.open_handles == 0, "candidates opened to read their serial numbers are closed"
    finally:
        port.stop()


@pytest.fixture(scope="module")
def libusb_loaded() -> None:
    """Load libusb before the per-test descriptor census: its context (an eventfd, a timerfd and a
    netlink socket) is created once and kept for the process by libusb_package's cache."""
    assert libusb_package.get_libusb1_backend() is not None


def test_no_such_device_through_real_libusb(libusb_loaded):
    """The default backend is libusb from the libusb-package wheel: it loads here, and finds no
    device at an unused test PID (there is no USB on this machine at all)."""
    url = "usb://1209:fff0"
    transport = UsbTransport(url)
    assert not transport.present()
    with pytest.raises(DeviceNotFound, match=re.escape(url)):
        run(transport.open(ignore, ignore))


@pytest.mark.parametrize(
    ("url", "problem"),
    [
        ("usb://12G9:0001", "VID must be 4 hex digits"),
        ("usb://1209:001", "PID must be 4 hex digits"),
        ("usb://1209", "expected usb://VID:PID"),
        ("serial:///dev/ttyUSB0", "not a usb:// URL"),
        ("usb://1209:0001/1", "nothing may follow VID:PID"),
        ("usb://1209:0001?serial=", "serial must not be empty"),
        ("usb://1209:0001?serial=A&serial=B", "serial given 2 times"),
        ("usb://1209:0001?speed=full", "unknown parameter"),
    ],
)
def test_bad_url_names_the_problem(url, problem):
    with pytest.raises(ValueError, match=re.escape(f"{url}: {problem}")):
        UsbTransport(url)


def test_timeouts_must_be_finite():
    with pytest.raises(ValueError, match="positive"):
        UsbTransport("usb://1209:0001", read_poll_ms=0)
