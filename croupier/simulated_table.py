"""A Free Bet Blackjack table with every device simulated over its real transport, on one world.

The shoe and the shuffler are served over pseudo-terminals and the card reader on the simulated
USB bus; each is reached through the same driver, supervisor and device rules as real equipment,
and a simulated dealer makes the physical moves on the shared TableWorld. ``croupier run`` plays on
it when no hardware is configured, and the tests play on it too.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from datetime import datetime

from croupier.tables.free_bet_blackjack import FreeBetBlackjackTable
from devices.card_reader import CardReader
from devices.faults import Operator, Role
from devices.shoe import Shoe
from devices.shuffler import Shuffler
from drivers.card_reader import CardReaderDriver
from drivers.connection import DeviceConnection, SupervisorSettings
from drivers.protocol.core import DeviceClass
from drivers.shoe import ShoeDriver
from drivers.shuffler import ShufflerDriver
from drivers.transport.serial import SerialTransport
from drivers.transport.usb import UsbTransport
from firmware_sim.card_reader import CardReaderPersonality
from firmware_sim.dealer import SimulatedDealer
from firmware_sim.device import SimulatedDevice
from firmware_sim.ports import Port
from firmware_sim.ports.pty import PtyPort
from firmware_sim.ports.usb import SimulatedUsbBus, UsbPort
from firmware_sim.shoe import ShoePersonality
from firmware_sim.shuffler import ShufflerPersonality
from firmware_sim.world import TableWorld
from games.free_bet_blackjack import RuleSet

FLOORPERSON = Operator("FLOOR-1", Role.SUPERVISOR)


@dataclass
class SimulatedTable:
    """The table and what a test or the simulator reaches into: the world, the dealer, the devices."""

    table: FreeBetBlackjackTable
    world: TableWorld
    dealer: SimulatedDealer
    devices: dict[str, SimulatedDevice]
    connections: dict[str, DeviceConnection] = field(default_factory=dict)


@contextlib.asynccontextmanager
async def simulated_free_bet_blackjack(
    *,
    rules: RuleSet | None = None,
    name: str = "sim-table",
    dealer: Callable[[TableWorld], SimulatedDealer] = SimulatedDealer,
    settings: SupervisorSettings | None = None,
    shoe_settings: SupervisorSettings | None = None,
    backs: tuple[str, str] = ("red", "blue"),
    cover_depth: int | None = None,
    record_events: list[object] | None = None,
    reader_clock: Callable[[], datetime] | None = None,
    floorperson: Operator = FLOORPERSON,
) -> AsyncIterator[SimulatedTable]:
    """Bring the simulated devices up, connect them, open the table; stop everything afterwards and
    prove no card was created or lost (``TableWorld.check``)."""
    rules = rules or RuleSet()
    settings = settings or SupervisorSettings()
    world = TableWorld()
    hands = dealer(world)
    hands.unwrap(backs, rules.decks)
    devices = {
        "shoe": SimulatedDevice(ShoePersonality(world=world, serial_number="SH-SIM-1"), name="shoe", seed=1),
        "card-reader": SimulatedDevice(
            CardReaderPersonality(world=world, serial_number="CR-SIM-1"), name="card-reader", seed=2
        ),
        "shuffler": SimulatedDevice(
            ShufflerPersonality(world=world, serial_number="SF-SIM-1"), name="shuffler"
        ),
    }
    bus = SimulatedUsbBus()
    ports: dict[str, Port] = {
        "shoe": PtyPort(devices["shoe"]).start(),
        "card-reader": UsbPort(devices["card-reader"], bus).start(),
        "shuffler": PtyPort(devices["shuffler"]).start(),
    }
    connections = {
        "shoe": DeviceConnection(
            lambda: SerialTransport(ports["shoe"].url),
            name="shoe",
            expected_class=DeviceClass.SHOE,
            settings=shoe_settings or settings,
        ),
        "card-reader": DeviceConnection(
            lambda: UsbTransport(ports["card-reader"].url, backend=bus),
            name="card-reader",
            expected_class=DeviceClass.CARD_READER,
            settings=settings,
        ),
        "shuffler": DeviceConnection(
            lambda: SerialTransport(ports["shuffler"].url),
            name="shuffler",
            expected_class=DeviceClass.SHUFFLER,
            settings=settings,
        ),
    }
    try:
        for conn in connections.values():
            await conn.start()
        for conn in connections.values():
            await conn.wait_ready(10.0)
        reader_options = {"clock": reader_clock} if reader_clock else {}
        table = FreeBetBlackjackTable(
            shoe=Shoe(ShoeDriver(connections["shoe"])),
            reader=CardReader(CardReaderDriver(connections["card-reader"]), **reader_options),
            shuffler=Shuffler(ShufflerDriver(connections["shuffler"])),
            dealer=hands,
            dealer_on_duty="D-1",
            rules=rules,
            name=name,
            backs=backs,
            cover_depth=cover_depth,
            record_events=record_events,
        )
        async with table.running():
            await table.open(floorperson)
            yield SimulatedTable(table, world, hands, devices, connections)
    finally:
        for conn in connections.values():
            await conn.stop()
        for port in ports.values():
            port.stop()
    world.check()
