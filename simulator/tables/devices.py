"""Simulated devices brought up over their real transports, shared by every game's simulated table.

Each device is a SimulatedDevice behind a pseudo-terminal (the serial driver) or on the simulated
USB bus (the USB driver), reached through a DeviceConnection with the same supervisor and device
rules as real equipment. Bringing them up is the same for every game, and so is taking them down:
connections stopped and ports closed whatever happened, then ``TableWorld.check`` proves that no
card was created or lost while they ran.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import random
import subprocess
import sys
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Any, Generic, TypeVar

from croupier.tables.assembly import assemble
from drivers.connection import DeviceConnection, SupervisorSettings
from drivers.protocol.core import DeviceClass
from drivers.transport.base import Transport
from drivers.transport.serial import SerialTransport
from drivers.transport.usb import UsbTransport
from firmware_sim.device import DeviceControl, SimulatedDevice
from firmware_sim.ports import Port
from firmware_sim.ports.pty import PtyPort
from firmware_sim.ports.usb import SimulatedUsbBus, UsbPort
from firmware_sim.remote import Control, RemoteDevice, WorldServer, channels, firmware_image, pack_devices
from firmware_sim.shoe import ShoePersonality
from firmware_sim.shuffler import ShufflerPersonality
from firmware_sim.world import TableWorld
from vocabulary.operators import Operator, Role

TableT = TypeVar("TableT")
DealerT = TypeVar("DealerT")

#: How long a device has to answer its first poll: generous, the machine may be busy.
READY_TIMEOUT = 10.0

#: How long the devices' process has to serve them: it starts a Python interpreter and the ``croupier``
#: command (about a second of CPU), which a loaded machine stretches many times over.
CHILD_START_TIMEOUT = 60.0

#: The floor supervisor who opens a simulated table (the reader's start-of-day inspection).
FLOORPERSON = Operator("FLOOR-1", Role.SUPERVISOR)


@dataclass
class SimulatedTable(Generic[TableT, DealerT]):
    """An opened table and what a test or the simulator reaches into: the world whose cards the
    devices and the dealer move, the simulated dealer, the simulated devices and their connections
    (by name), so a scenario can inject a fault or watch a device as it would on the floor."""

    table: TableT
    world: TableWorld
    dealer: DealerT
    devices: dict[str, DeviceControl]
    connections: dict[str, DeviceConnection] = field(default_factory=dict)


@dataclass(frozen=True)
class DeviceSpec:
    """One device of a table: its name (also its connection's), the simulated firmware, the class
    the driver expects it to report, whether it sits on the USB bus (else behind a pty), and its
    supervisor settings (None: the table's)."""

    name: str
    device: SimulatedDevice
    expected_class: DeviceClass
    usb: bool = False
    settings: SupervisorSettings | None = None


@dataclass(frozen=True)
class Equipment:
    """The connections to a table's simulated devices and the devices' controls, by name: the
    devices themselves when they run in this process, else their RemoteDevices."""

    connections: dict[str, DeviceConnection]
    devices: dict[str, DeviceControl]


@dataclass(frozen=True)
class _Served:
    """A device being served: a fresh transport to it, its approved firmware image, its controls."""

    transport: Callable[[], Transport]
    image: bytes
    control: DeviceControl


@contextlib.asynccontextmanager
async def connected_devices(
    world: TableWorld,
    specs: Sequence[DeviceSpec],
    *,
    settings: SupervisorSettings,
    ready_timeout: float = READY_TIMEOUT,
    in_child: bool = False,
) -> AsyncIterator[Equipment]:
    """Serve each device on its port, connect to it and wait until every connection is ready;
    yield the connections and the devices' controls. ``in_child``: the devices are served by a
    child process (``croupier firmware --serve-table``, firmware_sim.remote), each behind a
    pseudo-terminal (a USB device too: the simulated bus is this process's), their cards still
    ``world``'s. Afterwards stop the connections, close the ports (the child ends), and check the
    world (its card count balanced)."""
    serving = _in_child(world, specs) if in_child else _in_process(specs)
    async with serving as served:
        connections: dict[str, DeviceConnection] = {}
        try:
            for spec in specs:
                # The host holds each simulated device's approved image: every check is a challenge.
                connections[spec.name] = DeviceConnection(
                    served[spec.name].transport,
                    name=spec.name,
                    expected_class=spec.expected_class,
                    firmware_images=(served[spec.name].image,),
                    settings=spec.settings or settings,
                )
            for conn in connections.values():
                await conn.start()
            for conn in connections.values():
                await conn.wait_ready(ready_timeout)
            yield Equipment(connections, {name: device.control for name, device in served.items()})
        finally:
            for conn in connections.values():
                await conn.stop()
    world.check()


@contextlib.asynccontextmanager
async def _in_process(specs: Sequence[DeviceSpec]) -> AsyncIterator[dict[str, _Served]]:
    """Each device on its thread here, behind a pty or on the simulated USB bus; the ports closed
    afterwards."""
    bus = SimulatedUsbBus()
    ports: dict[str, Port] = {}
    served: dict[str, _Served] = {}
    try:
        for spec in specs:
            port: Port = UsbPort(spec.device, bus) if spec.usb else PtyPort(spec.device)
            ports[spec.name] = port.start()
            image = spec.device.call(firmware_image)
            served[spec.name] = _Served(_transport(port, bus if spec.usb else None), image, spec.device)
        yield served
    finally:
        for port in ports.values():
            port.stop()


@contextlib.asynccontextmanager
async def _in_child(world: TableWorld, specs: Sequence[DeviceSpec]) -> AsyncIterator[dict[str, _Served]]:
    """The devices served by a child process, started now and ended afterwards: it takes them
    pickled, serves each behind a pty and answers its world's moves from ``world`` here. The kernel
    ends it if this process dies (firmware_sim.remote.die_with_parent), so no table leaves its
    devices' process behind."""
    packed = pack_devices(world, [spec.device for spec in specs])  # fails before any child starts
    with channels() as ((world_channel, control_channel), fds):
        command = [sys.executable, "-m", "croupier", "--log-level", "warning", "firmware"]
        child = subprocess.Popen(
            [*command, "--serve-table", *map(str, fds), str(os.getpid())],
            pass_fds=fds,
            stdin=subprocess.DEVNULL,
        )
    server = WorldServer(world, world_channel).start()
    control = Control(control_channel)
    try:
        control_channel.send_bytes(packed)
        if not await asyncio.to_thread(control_channel.poll, CHILD_START_TIMEOUT):
            raise RuntimeError(f"the devices' process did not serve them within {CHILD_START_TIMEOUT:g} s")
        try:
            served: list[tuple[str, str, bytes, bool]] = control_channel.recv()
        except EOFError:
            raise RuntimeError(f"the devices' process ended (exit status {child.wait()})") from None
        yield {
            name: _Served(partial(SerialTransport, url), image, RemoteDevice(name, has_door, control))
            for name, url, image, has_door in served
        }
    finally:
        control_channel.close()  # the child stops its ports and ends
        try:
            await asyncio.to_thread(child.wait, READY_TIMEOUT)
        except subprocess.TimeoutExpired:
            child.kill()
            child.wait()
        server.join(READY_TIMEOUT)
        world_channel.close()


def _transport(port: Port, bus: SimulatedUsbBus | None) -> Callable[[], Transport]:
    """The connection's transport factory (a fresh transport on each reconnect): the USB driver on
    the bus, else the serial driver on the pty."""
    if bus is not None:
        return lambda: UsbTransport(port.url, backend=bus)
    return lambda: SerialTransport(port.url)


def shoe_and_shuffler(
    world: TableWorld,
    *,
    shuffler_on_usb: bool = False,
    shoe_settings: SupervisorSettings | None = None,
    shuffler_seed: int | None = None,
) -> list[DeviceSpec]:
    """The shoe (behind a pty) and the shuffler (on the USB bus if ``shuffler_on_usb``) of a table
    dealt from a shoe, both on ``world``: how to serve them. ``shuffler_seed`` seeds the shoe's own
    reshuffles too (Hold 'Em's auto-reshuffling shoe), so a seeded simulation replays exactly."""
    personality = ShoePersonality(world=world, serial_number="SH-SIM-1")
    if shuffler_seed is not None:
        personality.rng = random.Random(shuffler_seed)
    shoe = SimulatedDevice(personality, name="shoe", seed=1)
    return [
        DeviceSpec("shoe", shoe, DeviceClass.SHOE, settings=shoe_settings),
        DeviceSpec(
            "shuffler",
            simulated_shuffler(world, seed=shuffler_seed),
            DeviceClass.SHUFFLER,
            usb=shuffler_on_usb,
        ),
    ]


def simulated_shuffler(world: TableWorld, *, seed: int | None = None) -> SimulatedDevice:
    """A shuffler whose cards are ``world``'s. ``seed``: shuffle from a repeatable generator instead
    of the CSPRNG (``croupier sim --seed``), which the shuffler reports as seeded in every shuffle."""
    personality = ShufflerPersonality(world=world, serial_number="SF-SIM-1", seed=seed)
    return SimulatedDevice(personality, name="shuffler", seed=seed)


@contextlib.asynccontextmanager
async def opened_table(
    game: str,
    world: TableWorld,
    hands: DealerT,
    specs: Sequence[DeviceSpec],
    *,
    settings: SupervisorSettings | None,
    floorperson: Operator = FLOORPERSON,
    shuffler_seed: int | None = None,
    in_child: bool = False,
    **options: Any,  # Any: TOML values
) -> AsyncIterator[SimulatedTable[Any, DealerT]]:  # Any: any game's table
    """Every game's table comes up the same way: its devices connected (``connected_devices``),
    the table assembled on the connections as real equipment's is (``assemble``: a simulated
    device's name is its kind), dealt by ``hands``, running and opened by ``floorperson``.
    ``options`` go to ``assemble``; ``shuffler_seed``: the simulator's seeded shuffle, which the
    table then accepts (``croupier sim --seed``); ``in_child``: the devices served by a child
    process (``connected_devices``)."""
    async with connected_devices(
        world, specs, settings=settings or SupervisorSettings(), in_child=in_child
    ) as equipment:
        connections = equipment.connections
        table = assemble(game, connections, dealer=hands, allow_seeded=shuffler_seed is not None, **options)
        async with table.running():
            await table.open(floorperson)
            yield SimulatedTable(table, world, hands, equipment.devices, connections)
