"""Heads Up Hold 'Em on simulated devices: the shoe behind a pseudo-terminal and the shuffler on the
simulated USB bus, both moving the cards of one TableWorld, the simulated dealer's hands between
them. The shoe does not burn (677a.10) and the shuffler shuffles one deck, not alternate batches.

Its simulated players answer the table's players protocol
(``croupier.tables.heads_up_holdem.HoldemPlayers``); its scripted players answer from a scenario
file (docs/scenarios.md), and ``SIMULATION`` declares it all (simulator.games.registry).

The game is Ultimate-style (677a.10, published Heads Up Hold 'Em rules): Ante and equal Odds, then
one Play wager at most: before the flop at the preflop multiple (3x by default), after the flop at
2x, after the river at 1x, or fold there; checking is allowed only before the river.
``StrategyPlayers`` plays it the usual simple way, seeing only their own two cards (``Look``) and
the community cards turned up.
"""

from __future__ import annotations

import contextlib
import random
from collections.abc import AsyncIterator, Callable, Sequence

from croupier.tables.heads_up_holdem import HeadsUpHoldemTable
from drivers.connection import SupervisorSettings
from firmware_sim.world import DEALER_HAND, DISCARD, FLOOR, SHOE_TRAY, TableWorld
from games.common.poker_hands import Category, best_five, evaluate5, high_rank
from games.heads_up_holdem import GAME, RuleSet
from games.heads_up_holdem.inputs import Choice, PlaceWager, PlayerDecision
from games.heads_up_holdem.machine import PREFLOP, RIVER
from games.heads_up_holdem.positions import Position
from simulator.dealer import SimulatedDealer, batch_box
from simulator.games.registry import DealerFaults, Simulation, Vocabulary
from simulator.players import face_down
from simulator.players.seen import Look
from simulator.scenario.actors import ScriptedPlayers
from simulator.tables.devices import SimulatedTable, opened_table, shoe_and_shuffler
from vocabulary.cards import Card

# The simulated dealer of a Heads Up Hold 'Em table: SimulatedDealer's hands, plus the steps of 677a.10
# that a blackjack table does not have.  A new deck is unwrapped for each deck the table puts in play (a
# deck removed under 677a.10(f) leaves the table); a stack of two (or of five community cards, 677a.10(g))
# is placed from the shoe's tray in one move; the stub the shoe lets out into its tray is taken into the
# hand, the community cards are dealt from its top (``deal_card``), and it is counted face down and put in
# the discard rack (677a.10(c)-(e)). As its base, it moves cards only through the world and never looks at
# a face.

DECK = 1  # one 52-card deck per batch (677a.10(e))


class SimulatedHoldemDealer(SimulatedDealer):
    """A dealer's hands over ``world`` at a Hold 'Em table; see croupier.tables.heads_up_holdem
    .HoldemDealer for what each step means."""

    def unwrap_deck(self, back: str) -> None:
        self.world.add_batch(batch_box(back), back, DECK)

    def place_stack(self, place: str, count: int) -> None:
        self.world.move(SHOE_TRAY, place, count)

    def take_stub(self) -> None:
        self.world.move_all(SHOE_TRAY, DEALER_HAND)

    def misdealt(self) -> bool:
        """A wrong count from a card gone astray is no misdeal: the dealer finds none."""
        return False

    def rack_to_shoe(self) -> None:
        """Nothing to move: the simulated shoe takes the rack's cards back itself when told the
        round is over (EndRound, firmware_sim/shoe.py), as a shoe with a discard input would."""

    def remove_deck(self) -> int:
        """The deck in the rack, and any card of it on the floor, taken off the table."""
        with self.world.lock:
            return len(self.world.remove(DISCARD)) + len(self.world.remove(FLOOR))


HeadsUpHoldem = SimulatedTable[HeadsUpHoldemTable, SimulatedHoldemDealer]


@contextlib.asynccontextmanager
async def simulated_heads_up_holdem(
    *,
    rules: RuleSet | None = None,
    name: str = "sim-table",
    dealer: Callable[[TableWorld], SimulatedHoldemDealer] = SimulatedHoldemDealer,
    settings: SupervisorSettings | None = None,
    community_first: bool = False,
    record_events: list[object] | None = None,
    shuffler_seed: int | None = None,
    in_child: bool = False,
) -> AsyncIterator[HeadsUpHoldem]:
    """Bring the shoe and shuffler up, connect them, open the table (its first deck in play); stop
    everything afterwards and prove no card was created or lost. ``community_first``: the shoe
    dispenses the community cards first (677a.10(g))."""
    world = TableWorld()
    hands = dealer(world)
    specs = shoe_and_shuffler(world, shuffler_on_usb=True, shuffler_seed=shuffler_seed)

    async with opened_table(
        GAME.slug,
        world,
        hands,
        specs,
        settings=settings,
        shuffler_seed=shuffler_seed,
        in_child=in_child,
        rules=rules or RuleSet.example(),
        name=name,
        community_first=community_first,
        record_events=record_events,
    ) as sim:
        yield sim


STAKES = (500, 1000, 2500, 5000)  # cents: the Ante, and the Odds equal to it
TRIPS_PLUS_STAKE = 500
KING, QUEEN, JACK = 13, 12, 11


def strong_start(hole: Sequence[Card]) -> bool:
    """A starting hand worth the biggest Play: any pair, any ace, or king with jack or better."""
    high, low = sorted((high_rank(card) for card in hole), reverse=True)
    return high == low or high == 14 or (high == KING and low >= JACK)


def made_hand(hole: Sequence[Card], community: Sequence[Card]) -> bool:
    """A pair or better that the player's own cards make: after the flop a pocket pair, a hole card
    paired, or two pairs or better; after the river, a hand of a higher category than the board's
    own (a pair on the board is everyone's, the dealer's too: a better kicker is not worth a bet)."""
    value = best_five([*hole, *community])[0]
    if value.category < Category.PAIR:
        return False
    if len(community) == 5:
        return value.category > evaluate5(community).category
    return value.category > Category.PAIR or value.ranks[0] in {high_rank(card) for card in hole}


class StrategyPlayers:
    """Every position taken, Ante and Odds equal from STAKES; a Trips Plus wager on some positions,
    as ``trips_plus_rate`` says, where ``rules`` offer it. Preflop: Play the largest multiple with
    ``strong_start``; flop: Play 2x with ``made_hand``; river: Play 1x with ``made_hand``, else fold;
    otherwise check. Only the stakes come from ``rng``, so a seeded run replays exactly. ``look``
    gives a seat's own two cards (simulator.players.seen)."""

    def __init__(
        self, rng: random.Random, *, look: Look, rules: RuleSet | None = None, trips_plus_rate: float = 0.25
    ) -> None:
        self.rng = rng
        self.look = look
        self.rules = rules or RuleSet.example()
        self.trips_plus_rate = trips_plus_rate if self.rules.trips_plus_pay_table else 0.0

    def wagers(self, round_number: int, positions: int) -> Sequence[PlaceWager]:
        wagers = []
        for seat in range(1, positions + 1):
            stake = self.rng.choice(STAKES)
            trips = TRIPS_PLUS_STAKE if self.rng.random() < self.trips_plus_rate else 0
            wagers.append(PlaceWager(seat, stake, stake, trips_plus=trips))
        return wagers

    def decide(self, position: Position, street: str, community: Sequence[Card]) -> PlayerDecision:
        hole = self.look(position.seat)
        seen = {*hole, *community}
        # A card astray, or a community card turned up that this seat holds (the round holds on it if
        # the hand is turned up: duplicate-card): no hand to rank; play nothing.
        if len(hole) != 2 or len(seen) != len(hole) + len(community):
            return PlayerDecision(position.seat, Choice.FOLD if street == RIVER else Choice.CHECK)
        plays = strong_start(hole) if street == PREFLOP else made_hand(hole, community)
        if plays:
            return PlayerDecision(position.seat, Choice.PLAY, max(self.rules.multiples(street)))
        return PlayerDecision(position.seat, Choice.FOLD if street == RIVER else Choice.CHECK)


# -- the game in the simulator (simulator.games.registry) -----------------------------------------
class ScriptedHeadsUpHoldem(ScriptedPlayers):
    """A scenario's players at Heads Up Hold 'Em: each seat's decision on each street, as the file
    gives them (``play:N`` the multiple)."""

    def decide(self, position: Position, street: str, community: Sequence[Card]) -> PlayerDecision:
        answer = self.next_answer(position.seat, f"the {street} decision")
        multiple = answer.number if answer.word == "play" else 0
        return PlayerDecision(position.seat, Choice(answer.word), multiple)


def keyed(seat: int) -> dict[str, int]:
    """A plain wager as the dealer keys it: $10 ante and $10 odds."""
    return {"seat": seat, "ante": 1000, "odds": 1000}


SIMULATION = Simulation(
    game=GAME,
    table=simulated_heads_up_holdem,
    players=StrategyPlayers,
    keyed=keyed,
    dealer_faults=DealerFaults(
        irregularities=frozenset({"wrong-count", "collect-count"}),
        cleared=frozenset({"WRONG_COUNT", "FOREIGN_CARD"}),
        voided=1,  # 677a.10(f): a wrong stub count is a misdeal
    ),
    seated=face_down,
    counts_stub=True,
    scenario=Vocabulary(
        decisions=("play:N", "check", "fold"), stacked="shoe", scripted=ScriptedHeadsUpHoldem
    ),
)
