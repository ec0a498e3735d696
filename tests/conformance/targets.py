"""Where the conformance suite finds a device: simulated firmware over a real transport in CI, or
(on a hardware rig) a real device named by configuration. A target without simulator hooks runs
only the checks that need no injected fault; the others skip and say why."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from typing import Any

from croupier.service.hardware import supervisor_settings, transport_for
from drivers.connection import DeviceConnection, SupervisorSettings
from drivers.driver import Driver
from drivers.transport.base import Transport
from drivers.transport.recording import Recorder, RecordingTransport
from drivers.transport.serial import SerialTransport
from drivers.transport.usb import UsbTransport
from firmware_sim.device import SimulatedDevice
from firmware_sim.ports import Port
from firmware_sim.ports.pty import PtyPort
from firmware_sim.ports.usb import SimulatedUsbBus, UsbPort
from firmware_sim.world import TableWorld
from tests.conformance.profile import ConformanceProfile
from tests.hil import RigTarget
from tests.links import FAST


@dataclass
class Simulation:
    """The simulator side of a target: what the fault-injecting checks reach into."""

    device: SimulatedDevice
    port: Port
    world: TableWorld


@dataclass
class Connected:
    conn: DeviceConnection
    driver: Driver
    transport: Callable[[], Transport]
    sim: Simulation | None


TRANSPORTS = ("pty", "usb")


@contextlib.asynccontextmanager
async def simulated(
    profile: ConformanceProfile,
    transport: str,
    *,
    settings: SupervisorSettings = FAST,
    wait: bool = True,
    **conn_kwargs: object,
) -> AsyncIterator[Connected]:
    """A simulated device of the profile's class over ``transport`` ("pty" or "usb"), connected."""
    world = TableWorld()
    profile.prepare_world(world)
    device = SimulatedDevice(profile.personality(world), seed=11)
    port: Port
    factory: Callable[[], Transport]
    if transport == "pty":
        port = PtyPort(device).start()
        factory = lambda: SerialTransport(port.url)  # noqa: E731
    else:
        bus = SimulatedUsbBus()
        port = UsbPort(device, bus).start()
        factory = lambda: UsbTransport(port.url, backend=bus)  # noqa: E731
    conn = DeviceConnection(
        factory, name=device.name, expected_class=profile.device_class, settings=settings, **conn_kwargs
    )  # type: ignore[arg-type]
    try:
        await conn.start()
        if wait:
            await conn.wait_ready(5.0)
        yield Connected(conn, profile.driver(conn), factory, Simulation(device, port, world))
    finally:
        await conn.stop()
        port.stop()
        world.check()


@contextlib.asynccontextmanager
async def on_rig(
    profile: ConformanceProfile,
    target: RigTarget,
    *,
    settings: SupervisorSettings | None = None,
    wait: bool = True,
    **conn_kwargs: object,
) -> AsyncIterator[Connected]:
    """The rig's real device, connected with its configured line, timing and firmware allow-list;
    its exchanges are recorded when the run asks for it (``--record``)."""
    device = target.device
    if settings is None:
        settings = supervisor_settings(device)
    conn_kwargs.setdefault("firmware_allow_list", device.firmware_allow_list)
    recorder = Recorder(target.recording_path(), device.name, device.url.url) if target.record else None

    def factory() -> Transport:
        transport = transport_for(device)
        return RecordingTransport(transport, recorder) if recorder is not None else transport

    conn = DeviceConnection(
        factory,
        name=device.name,
        address=device.address,
        expected_class=profile.device_class,
        settings=settings,
        **conn_kwargs,  # type: ignore[arg-type]
    )
    try:
        await conn.start()
        if wait:
            await conn.wait_ready(10.0)
        yield Connected(conn, profile.driver(conn), factory, None)
    finally:
        await conn.stop()
        if recorder is not None:
            recorder.close()


@contextlib.asynccontextmanager
async def connect(
    profile: ConformanceProfile, transport: str | RigTarget, **kwargs: Any
) -> AsyncIterator[Connected]:
    """The target a conformance case names: a simulated device over ``transport`` ("pty", "usb"),
    or a rig's real device (``pytest --hil``)."""
    if isinstance(transport, RigTarget):
        async with on_rig(profile, transport, **kwargs) as target:
            yield target
    else:
        async with simulated(profile, transport, **kwargs) as target:
            yield target
