"""Simulated devices brought up over their real transports, shared by every game's simulated table.

Each device is a SimulatedDevice behind a pseudo-terminal (the serial driver) or on the simulated
USB bus (the USB driver), reached through a DeviceConnection with the same supervisor and device
rules as real equipment. Bringing them up is the same for every game, and so is taking them down:
connections stopped and ports closed whatever happened, then ``TableWorld.check`` proves that no
card was created or lost while they ran.
"""

from __future__ import annotations

import contextlib
import random
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from croupier.tables.assembly import assemble
from drivers.connection import DeviceConnection, SupervisorSettings
from drivers.protocol.core import DeviceClass
from drivers.transport.base import Transport
from drivers.transport.serial import SerialTransport
from drivers.transport.usb import UsbTransport
from firmware_sim.device import SimulatedDevice
from firmware_sim.ports import Port
from firmware_sim.ports.pty import PtyPort
from firmware_sim.ports.usb import SimulatedUsbBus, UsbPort
from firmware_sim.shoe import ShoePersonality
from firmware_sim.shuffler import ShufflerPersonality
from firmware_sim.world import TableWorld
from vocabulary.operators import Operator, Role

TableT = TypeVar("TableT")
DealerT = TypeVar("DealerT")

#: How long a device has to answer its first poll: generous, the machine may be busy.
READY_TIMEOUT = 10.0

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
    devices: dict[str, SimulatedDevice]
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


@contextlib.asynccontextmanager
async def connected_devices(
    world: TableWorld,
    specs: Sequence[DeviceSpec],
    *,
    settings: SupervisorSettings,
    ready_timeout: float = READY_TIMEOUT,
) -> AsyncIterator[dict[str, DeviceConnection]]:
    """Serve each device on its port, connect to it and wait until every connection is ready;
    yield the connections by name. Afterwards stop the connections, close the ports, and check the
    world (its card count balanced)."""
    bus = SimulatedUsbBus()
    ports: dict[str, Port] = {}
    connections: dict[str, DeviceConnection] = {}
    try:
        for spec in specs:
            port: Port = UsbPort(spec.device, bus) if spec.usb else PtyPort(spec.device)
            ports[spec.name] = port.start()
            # The host holds each simulated device's approved image: every check is a challenge.
            image = spec.device.call(lambda engine: engine.personality.firmware_image)
            connections[spec.name] = DeviceConnection(
                _transport(ports[spec.name], bus if spec.usb else None),
                name=spec.name,
                expected_class=spec.expected_class,
                firmware_images=(image,),
                settings=spec.settings or settings,
            )
        for conn in connections.values():
            await conn.start()
        for conn in connections.values():
            await conn.wait_ready(ready_timeout)
        yield connections
    finally:
        for conn in connections.values():
            await conn.stop()
        for port in ports.values():
            port.stop()
    world.check()


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
    **options: Any,  # Any: TOML values
) -> AsyncIterator[SimulatedTable[Any, DealerT]]:  # Any: any game's table
    """Every game's table comes up the same way: its devices connected (``connected_devices``),
    the table assembled on the connections as real equipment's is (``assemble``: a simulated
    device's name is its kind), dealt by ``hands``, running and opened by ``floorperson``.
    ``options`` go to ``assemble``; ``shuffler_seed``: the simulator's seeded shuffle, which the
    table then accepts (``croupier sim --seed``)."""
    async with connected_devices(world, specs, settings=settings or SupervisorSettings()) as connections:
        table = assemble(game, connections, dealer=hands, allow_seeded=shuffler_seed is not None, **options)
        async with table.running():
            await table.open(floorperson)
            devices = {spec.name: spec.device for spec in specs}
            yield SimulatedTable(table, world, hands, devices, connections)
