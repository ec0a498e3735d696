"""Simulated players for every game, by the game's slug: who sits at a table when nobody does.

``croupier run`` and ``croupier sim --game GAME`` play rounds without people, and the tests play
with the same players. Each game's players (in its simulator module, simulator/games/<game>.py)
answer its table's protocol with plain values (croupier.screen.answers) and decide
deterministically; only stakes and side wagers are drawn from the ``random.Random`` given, so a
seeded run replays exactly. Players of a game dealt face down see their own cards through a
``look`` (simulator.players.seen); ``table_options`` wires it, and the progressive chips, to a
simulated table.
"""

from __future__ import annotations

import random
from functools import partial
from typing import Any

from devices.progressive import Progressive
from firmware_sim import remote
from simulator.games.registry import SeatedTable, Seating, simulation
from simulator.players.seen import own_cards


def simulated_players(game: str, rng: random.Random, **options: object) -> object:
    """The simulated players of ``game`` (a game's slug), drawing their stakes from ``rng``. An
    unknown slug is a ValueError (games.registry.UnknownGame) naming the known ones, so a typo says
    what would have worked."""
    return simulation(game).players(rng, **options)


def table_options(game: str, sim: Any) -> dict[str, Any]:  # Any: TOML values of a simulated table
    """The options that seat ``game``'s players at the simulated table ``sim``
    (simulator.tables.SimulatedTable): the game's ``seated`` (simulator.games.registry)."""
    return simulation(game).seated(sim)


def face_down(sim: SeatedTable) -> Seating:
    """The seating of players at a game dealt face down: their own cards from the simulated table's
    world, its rules, and the progressive chips onto the simulated controller's sensors where the
    table has one; ``cover`` says whether the chip went on: a player told that progressive wagers
    are refused (a linked progressive's link lost: decision 0039) keeps it."""
    options: Seating = {"look": own_cards(sim.world), "rules": sim.table.rules}
    controller = sim.devices.get("progressive")
    if controller is not None:
        progressive: Progressive = sim.table.progressive  # type: ignore[attr-defined]  # it has a controller

        def cover(seat: int) -> bool:
            if progressive.wagers_refused() is not None:
                return False
            controller.call(partial(remote.cover, seat))
            return True

        options["cover"] = cover
    return options


__all__ = ["face_down", "simulated_players", "table_options"]
