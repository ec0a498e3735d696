"""Each game's simulation, as its simulator module declares it: ``SIMULATION = Simulation(...)`` in
simulator/games/<game>.py, found by the game's module name (games.registry.Game.module), so adding
a game adds that module and edits no list here (decision 0029, docs/adding-a-game.md).
"""

from __future__ import annotations

import contextlib
import importlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from firmware_sim.device import DeviceControl
from firmware_sim.world import TableWorld
from games import registry
from games.common.config import Configurable
from games.registry import Game


class RuledTable(Protocol):
    """A table of any game, as its players' seating reads it: its rules."""

    @property
    def rules(self) -> Configurable: ...


class SeatedTable(Protocol):
    """What a game's seating (``Simulation.seated``) reads of the simulated table its players sit at
    (simulator.tables.SimulatedTable): the table, the world whose cards they see, the devices."""

    @property
    def table(self) -> RuledTable: ...

    @property
    def world(self) -> TableWorld: ...

    @property
    def devices(self) -> Mapping[str, DeviceControl]: ...


#: The options that seat a game's players (keywords of its ``players``).
Seating = dict[str, object]


def not_seated(sim: SeatedTable) -> Seating:
    """No options: players who see every card they need on the table's own prompts."""
    return {}


@dataclass(frozen=True)
class Vocabulary:
    """What a scenario file (docs/scenarios.md) may say at the game: the words of a ``decide``
    line (``play:N`` takes a multiple), where its ``shoe`` line stacks the cards (``"shoe"``: on
    top of the shoe after the burn, where ``fault foreign-card at card N`` slips a joker too;
    ``"shuffler"``: the shuffled order of the deck dealt from the hand, where a bare ``fault
    foreign-card`` reaches the batch), whether a ``dealer`` line may change the dealer (the game
    burns for a new dealer), whether ``insurance`` lines are answered, whether the dealer reports
    hands (``fault unreported``), and ``scripted``: the game's scripted players
    (simulator.scenario.actors.ScriptedPlayers with the game's prompts)."""

    decisions: tuple[str, ...]
    stacked: Literal["shoe", "shuffler"]
    scripted: type
    dealer_change: bool = False
    insurance: bool = False
    reports_hands: bool = False


@dataclass(frozen=True)
class DealerFaults:
    """What the game's rules make of a fault profile's dealer faults (docs/sim.md: a stub or a
    pickup miscounted, a foreign card): the irregularities recorded, the device faults the floor
    clears (the shuffler's ``FOREIGN_CARD`` where the foreign card reached a batch), and how many
    rounds the rules themselves void on a wrong stub count (a misdeal)."""

    irregularities: frozenset[str]
    cleared: frozenset[str] = frozenset()
    voided: int = 0


@dataclass(frozen=True)
class Simulation:
    """The simulator's part of a game. ``table`` builds its table on simulated devices (an async
    context manager yielding the opened simulator.tables.SimulatedTable; its keywords are the
    game's); ``players`` its simulated players (``players(rng, **options)``), ``seated`` the
    options that seat them at a simulated table (simulator.players.table_options); ``rules`` and
    ``options``: what ``croupier sim`` plays with over the game's example rules (and the table
    options that go with them). ``counts_stub``: the dealer counts a stub (a miscount falls from
    it); ``joker_in_shoe``: a profile's foreign card is a joker in the shoe (else a card in the
    next batch, which the shuffler counts). ``scenario``: the scenario language's words.
    ``keyed``: a plain wager for a seat as the dealer keys it on the screen (the body of the API's
    wager, amounts in cents), what a rehearsal at the screen stakes; ``dealer_faults``: what the
    game's rules make of the dealer's faults, as ``croupier sim --faults`` shows them."""

    game: Game
    table: Callable[..., contextlib.AbstractAsyncContextManager[Any]]  # Any: each game's own SimulatedTable
    players: Callable[..., object]
    scenario: Vocabulary
    keyed: Callable[[int], Mapping[str, int]]
    dealer_faults: DealerFaults
    seated: Callable[[SeatedTable], Seating] = not_seated
    rules: Mapping[str, object] = field(default_factory=dict)
    options: Mapping[str, object] = field(default_factory=dict)
    counts_stub: bool = False
    joker_in_shoe: bool = False


def simulation(slug: str) -> Simulation:
    """The simulation of the game ``slug``; games.registry.UnknownGame if no game has that slug."""
    game = registry.game(slug)
    declared = importlib.import_module(f"{__package__}.{game.module}").SIMULATION
    if not isinstance(declared, Simulation) or declared.game is not game:
        raise TypeError(f"simulator.games.{game.module}.SIMULATION is not {slug}'s Simulation")
    return declared


def example_rules(slug: str) -> Configurable:
    """The rules ``croupier sim`` plays the game ``slug`` with: its example rules and the
    simulation's own."""
    simulated = simulation(slug)
    return simulated.game.rules.example(**simulated.rules)


def simulations() -> tuple[Simulation, ...]:
    """Every game's simulation, in the registry's order."""
    return tuple(simulation(slug) for slug in registry.slugs())
