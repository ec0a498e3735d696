"""Heads Up Hold 'Em on simulated devices: the shoe behind a pseudo-terminal and the shuffler on the
simulated USB bus, both moving the cards of one TableWorld, the simulated dealer's hands between
them. The shoe does not burn (677a.10) and the shuffler shuffles one deck, not alternate batches."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Callable

from croupier.tables.heads_up_holdem import HeadsUpHoldemTable
from drivers.connection import SupervisorSettings
from firmware_sim.dealer_holdem import SimulatedHoldemDealer
from firmware_sim.world import TableWorld
from games.heads_up_holdem import RuleSet
from simulator.tables.devices import SimulatedTable, opened_table, shoe_and_shuffler

HeadsUpHoldem = SimulatedTable[HeadsUpHoldemTable, SimulatedHoldemDealer]


@contextlib.asynccontextmanager
async def simulated_heads_up_holdem(
    *,
    rules: RuleSet | None = None,
    name: str = "sim-table",
    dealer: Callable[[TableWorld], SimulatedHoldemDealer] = SimulatedHoldemDealer,
    settings: SupervisorSettings | None = None,
    community_first: bool = False,
    record_events: list[object] | None = None,
    shuffler_seed: int | None = None,
) -> AsyncIterator[HeadsUpHoldem]:
    """Bring the shoe and shuffler up, connect them, open the table (its first deck in play); stop
    everything afterwards and prove no card was created or lost. ``community_first``: the shoe
    dispenses the community cards first (677a.10(g))."""
    world = TableWorld()
    hands = dealer(world)
    specs = shoe_and_shuffler(world, shuffler_on_usb=True, shuffler_seed=shuffler_seed)

    async with opened_table(
        "heads-up-holdem",
        world,
        hands,
        specs,
        settings=settings,
        shuffler_seed=shuffler_seed,
        rules=rules or RuleSet.example(),
        name=name,
        community_first=community_first,
        record_events=record_events,
    ) as sim:
        yield sim
