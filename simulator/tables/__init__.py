"""Every game's table on simulated devices, over their real transports, as a product: ``croupier
run`` plays on one when no hardware is configured, a simulator can bring up any game by its slug,
and the tests play on the same tables rather than on rigs of their own.

Each game's builder is in its simulator module (simulator/games/<game>.py, ``SIMULATION.table``):
an async context manager yielding a SimulatedTable with the table opened; ``devices`` serves and
connects the simulated devices for all of them, ``shoe_tables`` brings up a shoe game's.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Callable
from typing import Any

from simulator.games.registry import simulation
from simulator.tables.devices import FLOORPERSON, SimulatedTable


@contextlib.asynccontextmanager
async def simulated_table(
    game: str,
    *,
    rules: object | None = None,
    name: str = "sim-table",
    dealer: Callable[..., object] | None = None,
    **options: object,
) -> AsyncIterator[SimulatedTable[Any, Any]]:  # Any: each game's own table and dealer
    """The simulated table of ``game`` (a game's slug, games.registry), opened; ``rules`` are that
    game's RuleSet (None: its default), ``dealer`` builds the dealer's hands (None: the game's
    simulated dealer), and ``options`` go to the game's builder as keywords. An unknown slug is a
    ValueError (games.registry.UnknownGame) naming the known ones, so a typo on the command line
    says what would have worked."""
    build = simulation(game).table
    if dealer is not None:
        options["dealer"] = dealer
    async with build(rules=rules, name=name, **options) as sim:
        yield sim


__all__ = ["FLOORPERSON", "SimulatedTable", "simulated_table"]
