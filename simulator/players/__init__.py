"""Simulated players for every game, by the game's slug: who sits at a table when nobody does.

``croupier run`` and ``croupier sim --game GAME`` play rounds without people, and the tests play
with the same players. Each game's players answer its table's protocol with plain values
(croupier.tables.inputs) and decide deterministically; only stakes and side wagers are drawn from
the ``random.Random`` given, so a seeded run replays exactly. Players of a game dealt face down see
their own cards through a ``look`` (simulator.players.seen); ``table_options`` wires it, and the
progressive chips, to a simulated table.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from simulator.players import crazy_4_poker, free_bet_blackjack, heads_up_holdem, over_under
from simulator.players.seen import own_cards

#: The players of each game, by the game's slug; ``options`` go to them as keywords.
PLAYERS: dict[str, Callable[..., object]] = {
    "free-bet-blackjack": free_bet_blackjack.BasicStrategyPlayers,
    "over-under": over_under.FirstCardPlayers,
    "heads-up-holdem": heads_up_holdem.StrategyPlayers,
    "crazy-4-poker": crazy_4_poker.StrategyPlayers,
}
GAMES = tuple(PLAYERS)


def simulated_players(game: str, rng: random.Random, **options: Any) -> object:  # Any: TOML values
    """The simulated players of ``game`` (a slug of GAMES), drawing their stakes from ``rng``. An
    unknown slug is a ValueError naming the known ones, so a typo says what would have worked."""
    try:
        players = PLAYERS[game]
    except KeyError:
        raise ValueError(f"unknown game {game!r}; known games: {', '.join(GAMES)}") from None
    return players(rng, **options)


def table_options(game: str, sim: Any) -> dict[str, Any]:  # Any: TOML values of a simulated table
    """The options that seat ``game``'s players at the simulated table ``sim``
    (simulator.tables.SimulatedTable): their own cards from its world, its rules, and at Crazy 4
    Poker the progressive chips onto the simulated controller's sensors."""
    if game not in ("heads-up-holdem", "crazy-4-poker"):
        return {}
    options: dict[str, Any] = {"look": own_cards(sim.world), "rules": sim.table.rules}  # Any: TOML values
    controller = sim.devices.get("progressive")
    if controller is not None:
        options["cover"] = lambda seat: controller.call(lambda engine: engine.personality.cover(engine, seat))
    return options


__all__ = ["GAMES", "PLAYERS", "simulated_players", "table_options"]
