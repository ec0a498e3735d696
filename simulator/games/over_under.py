"""Over/Under on simulated devices: the shoe behind a pseudo-terminal and the shuffler on the
simulated USB bus, both moving the cards of one TableWorld, the simulated dealer's hands between
them. No card reader: every card is dealt face up.

Its simulated players answer the table's players protocol (``croupier.tables.over_under.Players``);
its scripted players answer from a scenario file (docs/scenarios.md), and ``SIMULATION`` declares it
all (simulator.games.registry).
"""

from __future__ import annotations

import contextlib
import random
from collections.abc import AsyncIterator, Callable, Sequence

from croupier.tables.over_under import OverUnderTable
from drivers.connection import SupervisorSettings
from firmware_sim.world import TableWorld
from games.over_under import GAME, RuleSet
from games.over_under.inputs import Choice, PlaceWager
from games.over_under.points import card_points
from games.over_under.positions import Position
from simulator.dealer import SimulatedDealer
from simulator.games.registry import DealerFaults, Simulation, Vocabulary
from simulator.scenario.actors import ScriptedPlayers
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
    in_child: bool = False,
) -> AsyncIterator[OverUnder]:
    """Bring the shoe and shuffler up, connect them, open the table; stop everything afterwards and
    prove no card was created or lost. ``dealer`` builds the dealer's hands on the world."""
    async with simulated_shoe_table(
        GAME.slug,
        rules=rules or RuleSet.example(),
        dealer=dealer,
        settings=settings,
        backs=backs,
        floorperson=floorperson,
        shuffler_seed=shuffler_seed,
        in_child=in_child,
        shuffler_on_usb=True,
        name=name,
        cover_depth=cover_depth,
        record_events=record_events,
    ) as sim:
        yield sim


STAKES = (500, 1000, 2500, 5000)  # cents


class FirstCardPlayers:
    """Every position taken; each player elects by the first card alone (every election comes
    before any additional card, 686a.7(f): first cards are all there is to see): Over 23 on 9 or more
    (ace counts 11), Under 18 on 5 or less, Surrender in between. The only chance is the stakes,
    drawn from ``rng``, so a seeded run replays exactly; a Bonus Wager where the table posts one."""

    def __init__(self, rng: random.Random, *, bonus: int = 0) -> None:
        self.rng = rng
        self.bonus = bonus

    def wagers(self, round_number: int, positions: int) -> Sequence[PlaceWager]:
        return [PlaceWager(seat, self.rng.choice(STAKES), self.bonus) for seat in range(1, positions + 1)]

    def choose(self, position: Position) -> Choice:
        points = card_points(position.cards[0])
        if points >= 9:
            return Choice.OVER_23
        return Choice.UNDER_18 if points <= 5 else Choice.SURRENDER


# -- the game in the simulator (simulator.games.registry) -----------------------------------------
class ScriptedOverUnder(ScriptedPlayers):
    """A scenario's players at Over/Under: each seat's election, as the file gives it."""

    def choose(self, position: Position) -> Choice:
        return Choice(self.next_answer(position.seat, "the election (over_23, under_18 or surrender)").word)


def keyed(seat: int) -> dict[str, int]:
    """A plain wager as the dealer keys it: a $10 ante."""
    return {"seat": seat, "ante": 1000}


SIMULATION = Simulation(
    game=GAME,
    table=simulated_over_under,
    players=FirstCardPlayers,
    keyed=keyed,
    dealer_faults=DealerFaults(irregularities=frozenset({"discard-count", "joker"})),
    joker_in_shoe=True,
    scenario=Vocabulary(
        decisions=("over_23", "under_18", "surrender"),
        stacked="shoe",
        scripted=ScriptedOverUnder,
        dealer_change=True,
    ),
)
