"""One registration per game (decision 0029): the registry finds every game package by its
``GAME``, and each game's three parts — the game (games/<game>/), its table
(croupier/tables/<game>.py, ``TABLE``) and its simulation (simulator/games/<game>.py,
``SIMULATION``) — are present and describe the same game."""

from __future__ import annotations

import dataclasses

import pytest

from croupier.config.devices import KINDS
from croupier.tables.registry import TableKind, table_kind
from games import registry
from games.common.messages import PlaceWager
from games.registry import Game, UnknownGame
from simulator.games.registry import Simulation, simulation

FOUR = ("free-bet-blackjack", "over-under", "heads-up-holdem", "crazy-4-poker")


def test_the_registry_finds_exactly_the_four_games_in_their_order():
    assert registry.slugs() == FOUR
    assert [game.position for game in registry.registered()] == sorted(
        {g.position for g in registry.registered()}
    )


@pytest.mark.parametrize("slug", FOUR)
def test_each_games_three_parts_are_present_and_agree(slug):
    game = registry.game(slug)
    assert isinstance(game, Game) and game.slug == slug
    assert game.package == f"games.{game.module}"
    table, simulated = table_kind(slug), simulation(slug)
    assert isinstance(table, TableKind) and table.game is game
    assert isinstance(simulated, Simulation) and simulated.game is game
    assert table.assemble.__module__ == f"croupier.tables.{game.module}"
    assert simulated.table.__module__ == f"simulator.games.{game.module}"
    assert table.players.wager is game.wager and issubclass(game.wager, PlaceWager)
    assert game.devices and set(game.devices) <= set(KINDS)
    assert dataclasses.is_dataclass(game.wager)


def test_an_unknown_slug_names_every_known_game():
    with pytest.raises(UnknownGame) as refused:
        registry.game("poker")
    assert str(refused.value) == f"unknown game 'poker'; known games: {', '.join(FOUR)}"
    with pytest.raises(ValueError):
        simulation("poker")
