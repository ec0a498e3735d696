"""Free Bet Blackjack on simulated devices: the shoe and the shuffler behind pseudo-terminals, the
card reader on the simulated USB bus, all on one TableWorld. ``croupier run`` plays on it when no
hardware is configured, and the tests play on it too."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Callable
from datetime import datetime

from croupier.simulated.devices import DeviceSpec, SimulatedTable, connected_devices
from croupier.tables.free_bet_blackjack import FreeBetBlackjackTable
from devices.card_reader import CardReader
from devices.faults import Operator, Role
from devices.shoe import Shoe
from devices.shuffler import Shuffler
from drivers.card_reader import CardReaderDriver
from drivers.connection import SupervisorSettings
from drivers.protocol.core import DeviceClass
from drivers.shoe import ShoeDriver
from drivers.shuffler import ShufflerDriver
from firmware_sim.card_reader import CardReaderPersonality
from firmware_sim.dealer import SimulatedDealer
from firmware_sim.device import SimulatedDevice
from firmware_sim.shoe import ShoePersonality
from firmware_sim.shuffler import ShufflerPersonality
from firmware_sim.world import TableWorld
from games.free_bet_blackjack import RuleSet

#: Who opens a simulated table (a shoe table's opening is a supervisor's act).
FLOORPERSON = Operator("FLOOR-1", Role.SUPERVISOR)

FreeBetBlackjack = SimulatedTable[FreeBetBlackjackTable, SimulatedDealer]


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
) -> AsyncIterator[FreeBetBlackjack]:
    """Bring the simulated devices up, connect them, open the table; stop everything afterwards and
    prove no card was created or lost. ``dealer`` builds the dealer's hands on the world (a test's
    watching dealer); ``shoe_settings`` overrides ``settings`` for the shoe alone."""
    rules = rules or RuleSet()
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
    specs = [
        DeviceSpec("shoe", devices["shoe"], DeviceClass.SHOE, settings=shoe_settings),
        DeviceSpec("card-reader", devices["card-reader"], DeviceClass.CARD_READER, usb=True),
        DeviceSpec("shuffler", devices["shuffler"], DeviceClass.SHUFFLER),
    ]
    async with connected_devices(world, specs, settings=settings or SupervisorSettings()) as connections:
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
