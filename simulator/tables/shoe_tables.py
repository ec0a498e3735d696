"""The tables dealt from a shoe fed by a shuffler (Free Bet Blackjack, Over/Under), simulated: one
way to bring them up, since they share the ShoeTable's devices, dealer and options and differ only
in the game and the devices a game adds (the card reader)."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Callable, Sequence
from typing import Any

from croupier.tables.shoe_table import ShoeRules
from drivers.connection import SupervisorSettings
from firmware_sim.world import TableWorld
from simulator.dealer import SimulatedDealer
from simulator.tables.devices import DeviceSpec, SimulatedTable, opened_table, shoe_and_shuffler


@contextlib.asynccontextmanager
async def simulated_shoe_table(
    game: str,
    *,
    rules: ShoeRules,
    dealer: Callable[[TableWorld], SimulatedDealer],
    settings: SupervisorSettings | None,
    backs: tuple[str, str],
    shoe_settings: SupervisorSettings | None = None,
    shuffler_on_usb: bool = False,
    shuffler_seed: int | None = None,
    in_child: bool = False,
    more_devices: Callable[[TableWorld], Sequence[DeviceSpec]] = lambda world: (),
    **options: Any,  # Any: TOML values
) -> AsyncIterator[SimulatedTable[Any, SimulatedDealer]]:  # Any: any game's table
    """The dealer's hands unwrap the two batches (``backs``, ``rules.decks`` each), the shoe and
    the shuffler come up with ``more_devices``, and ``game``'s table is assembled on them with the
    ShoeTable keywords (``options`` among them, the ``floorperson`` who opens it too).
    ``shuffler_seed``: a repeatable shuffle (the simulator's ``--seed``)."""
    world = TableWorld()
    hands = dealer(world)
    hands.unwrap(backs, rules.decks)
    specs = shoe_and_shuffler(
        world, shuffler_on_usb=shuffler_on_usb, shoe_settings=shoe_settings, shuffler_seed=shuffler_seed
    )
    specs.extend(more_devices(world))
    async with opened_table(
        game,
        world,
        hands,
        specs,
        settings=settings,
        shuffler_seed=shuffler_seed,
        in_child=in_child,
        dealer_on_duty="D-1",
        rules=rules,
        backs=backs,
        **options,
    ) as sim:
        yield sim
