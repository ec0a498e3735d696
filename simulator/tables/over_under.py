"""Over/Under on simulated devices: the shoe behind a pseudo-terminal and the shuffler on the
simulated USB bus, both moving the cards of one TableWorld, the simulated dealer's hands between
them. No card reader: every card is dealt face up."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Callable

from croupier.tables.over_under import OverUnderTable
from drivers.connection import SupervisorSettings
from firmware_sim.dealer import SimulatedDealer
from firmware_sim.world import TableWorld
from games.over_under import RuleSet
from simulator.tables.devices import FLOORPERSON, SimulatedTable
from simulator.tables.shoe_tables import simulated_shoe_table
from vocabulary.operators import Operator

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
    shuffler_seed: int | None = None,
) -> AsyncIterator[OverUnder]:
    """Bring the shoe and shuffler up, connect them, open the table; stop everything afterwards and
    prove no card was created or lost. ``dealer`` builds the dealer's hands on the world."""
    async with simulated_shoe_table(
        "over-under",
        rules=rules or RuleSet.example(),
        dealer=dealer,
        settings=settings,
        backs=backs,
        floorperson=floorperson,
        shuffler_seed=shuffler_seed,
        shuffler_on_usb=True,
        name=name,
        cover_depth=cover_depth,
        record_events=record_events,
    ) as sim:
        yield sim
