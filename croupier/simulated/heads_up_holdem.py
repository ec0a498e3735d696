"""Heads Up Hold 'Em on simulated devices: the shoe behind a pseudo-terminal and the shuffler on the
simulated USB bus, both moving the cards of one TableWorld, the simulated dealer's hands between
them. The shoe does not burn (677a.10) and the shuffler shuffles one deck, not alternate batches."""

from __future__ import annotations

import contextlib
import random
from collections.abc import AsyncIterator, Callable, Sequence

from croupier.simulated.devices import SimulatedTable, one_deck_shuffler, opened_table, shoe_and_shuffler
from croupier.tables.heads_up_holdem import HeadsUpHoldemTable
from devices.shoe import Shoe
from drivers.connection import DeviceConnection, SupervisorSettings
from drivers.shoe import ShoeDriver
from firmware_sim.dealer_holdem import SimulatedHoldemDealer
from firmware_sim.world import TableWorld
from games.heads_up_holdem import RuleSet
from games.heads_up_holdem.inputs import Choice, PlaceWager, PlayerDecision
from games.heads_up_holdem.positions import Position

HeadsUpHoldem = SimulatedTable[HeadsUpHoldemTable, SimulatedHoldemDealer]

#: The Play wager's multiple of the Ante on each street (the most the street allows).
PLAY_MULTIPLE = {"preflop": 3, "flop": 2, "river": 1}


class CoinPlayers:
    """Every position taken, 500 cents Ante and Odds each; each player Plays on a seeded coin (three
    times in ten), else checks, or folds at the river. Plain enough to replay a run exactly, mixed
    enough that rounds see both folds and plays."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def wagers(self, round_number: int, positions: int) -> Sequence[PlaceWager]:
        return [PlaceWager(seat, 500, 500) for seat in range(1, positions + 1)]

    def decide(self, position: Position, street: str, community: Sequence[object]) -> PlayerDecision:
        if self.rng.random() < 0.3:
            return PlayerDecision(position.seat, Choice.PLAY, PLAY_MULTIPLE[street])
        return PlayerDecision(position.seat, Choice.FOLD if street == "river" else Choice.CHECK)


@contextlib.asynccontextmanager
async def simulated_heads_up_holdem(
    *,
    rules: RuleSet | None = None,
    name: str = "sim-table",
    dealer: Callable[[TableWorld], SimulatedHoldemDealer] = SimulatedHoldemDealer,
    settings: SupervisorSettings | None = None,
    community_first: bool = False,
    record_events: list[object] | None = None,
) -> AsyncIterator[HeadsUpHoldem]:
    """Bring the shoe and shuffler up, connect them, open the table (its first deck in play); stop
    everything afterwards and prove no card was created or lost. ``community_first``: the shoe
    dispenses the community cards first (677a.10(g))."""
    world = TableWorld()
    hands = dealer(world)
    devices, specs = shoe_and_shuffler(world, shuffler_on_usb=True)

    def build(connections: dict[str, DeviceConnection]) -> HeadsUpHoldemTable:
        return HeadsUpHoldemTable(
            shoe=Shoe(ShoeDriver(connections["shoe"]), burns=False),
            shuffler=one_deck_shuffler(connections),
            dealer=hands,
            rules=rules,
            name=name,
            community_first=community_first,
            record_events=record_events,
        )

    async with opened_table(
        world, hands, devices, specs, settings=settings, build=build, open_table=HeadsUpHoldemTable.open
    ) as sim:
        yield sim
