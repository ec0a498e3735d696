"""Every game's simulated table, brought up by its slug the way ``croupier run`` and the simulator
bring it up: opened over its real transports, it plays rounds with that game's simulated players,
and the world's card count balances after each round and after the table is taken down."""

from __future__ import annotations

import random

import pytest

from games import registry
from simulator.players import simulated_players, table_options
from simulator.tables import SimulatedTable, simulated_table
from tests.links import FAST, run
from vocabulary.operators import Operator, Role

GAMES = registry.slugs()

SUPERVISOR = Operator("floor-7", Role.SUPERVISOR)
RESET_KEY = "PROG-KEY-1"  # the simulated controller's reset key


def players_for(game: str, sim: SimulatedTable[object, object]) -> object:
    """The game's simulated players, seeded, as ``croupier run`` seats them."""
    return simulated_players(game, random.Random(7), **table_options(game, sim))


async def reset_frozen_levels(sim: SimulatedTable[object, object]) -> None:
    """A progressive award freezes its level until a keyed reset; the next round waits for it."""
    levels = getattr(getattr(sim.table, "progressive", None), "levels", {})
    for level, info in sorted(levels.items()):
        if info.frozen:
            await sim.table.reset_level(level, RESET_KEY, SUPERVISOR)  # type: ignore[attr-defined]


@pytest.mark.parametrize("in_child", [False, True], ids=["devices-in-process", "devices-in-a-child"])
@pytest.mark.parametrize("game", GAMES)
def test_each_game_plays_three_rounds_on_its_simulated_table(game: str, in_child: bool) -> None:
    """In process, and with the devices in a child process as ``croupier run`` serves them
    (decision 0048): the cards they move are still the world's here, balanced after each round."""

    async def scenario() -> None:
        async with simulated_table(game, name=f"SIM-{game}", settings=FAST, in_child=in_child) as sim:
            players = players_for(game, sim)
            for number in (1, 2, 3):
                round_ = await sim.table.play_round(players)  # type: ignore[attr-defined]
                assert (round_.number, round_.state) == (number, "complete")
                sim.world.check()
                await reset_frozen_levels(sim)
            assert set(sim.devices) == set(sim.connections)
        sim.world.check()

    run(scenario(), timeout=60)


def test_an_unknown_game_is_refused_naming_the_known_ones() -> None:
    async def scenario() -> None:
        async with simulated_table("baccarat"):
            pass  # pragma: no cover

    with pytest.raises(ValueError, match="baccarat") as refused:
        run(scenario())
    assert all(game in str(refused.value) for game in GAMES)
