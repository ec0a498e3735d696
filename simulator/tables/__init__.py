"""Every game's table on simulated devices, over their real transports, as a product: ``croupier
run`` plays on one when no hardware is configured, a simulator can bring up any game by its slug,
and the tests play on the same tables rather than on rigs of their own.

Each game has a small module whose builder is an async context manager yielding a SimulatedTable
with the table opened; ``devices`` serves and connects the simulated devices for all of them.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Callable
from typing import Any

from simulator.tables.crazy_4_poker import simulated_crazy_4_poker
from simulator.tables.devices import FLOORPERSON, SimulatedTable
from simulator.tables.free_bet_blackjack import simulated_free_bet_blackjack
from simulator.tables.heads_up_holdem import simulated_heads_up_holdem
from simulator.tables.over_under import simulated_over_under

#: A simulated table of any game, with its dealer.
AnyTable = SimulatedTable[Any, Any]  # Any: each game's table and dealer are its own

#: The builder of each game's simulated table, by the game's slug.
BUILDERS: dict[str, Callable[..., contextlib.AbstractAsyncContextManager[AnyTable]]] = {
    "free-bet-blackjack": simulated_free_bet_blackjack,
    "over-under": simulated_over_under,
    "heads-up-holdem": simulated_heads_up_holdem,
    "crazy-4-poker": simulated_crazy_4_poker,
}
GAMES = tuple(BUILDERS)


@contextlib.asynccontextmanager
async def simulated_table(
    game: str,
    *,
    rules: object | None = None,
    name: str = "sim-table",
    dealer: Callable[..., object] | None = None,
    **options: Any,  # Any: TOML values
) -> AsyncIterator[AnyTable]:
    """The simulated table of ``game`` (a slug of GAMES), opened; ``rules`` are that game's RuleSet
    (None: its default), ``dealer`` builds the dealer's hands (None: the game's simulated dealer),
    and ``options`` go to the game's builder as keywords. An unknown slug is a ValueError naming
    the known ones, so a typo on the command line says what would have worked."""
    try:
        build = BUILDERS[game]
    except KeyError:
        raise ValueError(f"unknown game {game!r}; known games: {', '.join(GAMES)}") from None
    if dealer is not None:
        options["dealer"] = dealer
    async with build(rules=rules, name=name, **options) as sim:
        yield sim


__all__ = [
    "FLOORPERSON",
    "GAMES",
    "SimulatedTable",
    "simulated_crazy_4_poker",
    "simulated_free_bet_blackjack",
    "simulated_heads_up_holdem",
    "simulated_over_under",
    "simulated_table",
]
