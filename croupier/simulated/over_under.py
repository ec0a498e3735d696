"""Over/Under on simulated devices: the shoe behind a pseudo-terminal and the shuffler on the
simulated USB bus, both moving the cards of one TableWorld, the simulated dealer's hands between
them. No card reader: every card is dealt face up."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Callable

from croupier.simulated.devices import DeviceSpec, SimulatedTable, connected_devices
from croupier.simulated.free_bet_blackjack import FLOORPERSON
from croupier.tables.over_under import OverUnderTable
from devices.faults import Operator
from devices.shoe import Shoe
from devices.shuffler import Shuffler
from drivers.connection import SupervisorSettings
from drivers.protocol.core import DeviceClass
from drivers.shoe import ShoeDriver
from drivers.shuffler import ShufflerDriver
from firmware_sim.dealer import SimulatedDealer
from firmware_sim.device import SimulatedDevice
from firmware_sim.shoe import ShoePersonality
from firmware_sim.shuffler import ShufflerPersonality
from firmware_sim.world import TableWorld
from games.over_under import RuleSet

OverUnder = SimulatedTable[OverUnderTable, SimulatedDealer]


@contextlib.asynccontextmanager
async def simulated_over_under(
    *,
    rules: RuleSet | None = None,
    name: str = "sim-table",
    dealer: Callable[[TableWorld], SimulatedDealer] = SimulatedDealer,
    settings: SupervisorSettings | None = None,
    backs: tuple[str, str] = ("red", "blue"),
    cover_depth: int | None = None,
    record_events: list[object] | None = None,
    floorperson: Operator = FLOORPERSON,
) -> AsyncIterator[OverUnder]:
    """Bring the shoe and shuffler up, connect them, open the table; stop everything afterwards and
    prove no card was created or lost. ``dealer`` builds the dealer's hands on the world."""
    rules = rules or RuleSet()
    world = TableWorld()
    hands = dealer(world)
    hands.unwrap(backs, rules.decks)
    devices = {
        "shoe": SimulatedDevice(ShoePersonality(world=world, serial_number="SH-SIM-1"), name="shoe", seed=1),
        "shuffler": SimulatedDevice(
            ShufflerPersonality(world=world, serial_number="SF-SIM-1"), name="shuffler"
        ),
    }
    specs = [
        DeviceSpec("shoe", devices["shoe"], DeviceClass.SHOE),
        DeviceSpec("shuffler", devices["shuffler"], DeviceClass.SHUFFLER, usb=True),
    ]
    async with connected_devices(world, specs, settings=settings or SupervisorSettings()) as connections:
        table = OverUnderTable(
            shoe=Shoe(ShoeDriver(connections["shoe"])),
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
