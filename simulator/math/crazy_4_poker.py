"""Crazy 4 Poker in math mode: its Round fed as Crazy4PokerTable feeds it, one shuffled deck a
round dealt from the hand, and the simulator's players, without the progressive.

Each round the shuffler's deck is shuffled, its order sealed (games.crazy_4_poker.stacked), reported
and taken in the dealer's left hand (657a.9(a)(1)-(2)); the cards are dealt one at a time to their
places (657a.9(b)), the stub goes to the rack, counted when due (657a.9(c)-(e)), each player Plays or
folds on their own five cards, the sealed order opens the hands and the wagers settle; the cards go
to the rack, counted. The game's own Table keeps what lasts between rounds.

No Progressive Payout Wager is made: its awards are paid from the progressive controller's meters,
which math mode does not model; the progressive, where offered, is locked with no chip accepted,
as at a table where nobody wagers on it. The players are the simulator's
(simulator.games.crazy_4_poker.StrategyPlayers, seeing their own five cards): the usual simple
strategy, random stakes, Queens Up and the Six Card Bonus on some positions.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence

from games.common.machine_parts import SETTLED, VOIDED
from games.crazy_4_poker import RuleSet
from games.crazy_4_poker.evaluator import strength
from games.crazy_4_poker.inputs import (
    DEALER,
    ChooseHand,
    DeckHand,
    Discard,
    NoMoreBets,
    ProgressiveLocked,
    RevealOrder,
    SealedOrder,
    Settle,
    ShuffleReport,
    StubCount,
    StubToRack,
)
from games.crazy_4_poker.machine import DEALING, DECISIONS, LOCKING, SHOWDOWN, STUB
from games.crazy_4_poker.round import Round
from games.crazy_4_poker.rules_config import Shuffler
from games.crazy_4_poker.stacked import StackedShuffler
from games.crazy_4_poker.table_state import Table
from simulator.games.crazy_4_poker import StrategyPlayers
from simulator.math.play import MathError, MathGame
from vocabulary.cards import Card, standard_deck


class Crazy4Dealing:
    """The table without devices: a deck shuffled by ``rng`` for each round, the game's Table for
    what lasts between rounds, and what Crazy4PokerTable.play_round does at each step."""

    def __init__(self, rules: RuleSet, rng: random.Random) -> None:
        self.rules, self.rng = rules, rng
        self.decks = 1
        self.shoes = 0
        self.burns = 0  # dealt from the hand: no card is burned (657a.9)
        self.shuffler = StackedShuffler(standard_deck())
        self.table = Table(rules, self._verify_order, name="math")
        self.table.open()
        self.round: Round | None = None

    def _verify_order(self, sealed: SealedOrder, cards: tuple[Card, ...]) -> bool:
        return self.shuffler.verify(sealed, cards)

    def look(self, seat: int) -> Sequence[Card]:
        """The faces of the five cards at ``seat``, as the player lifts them (simulator.players.seen)."""
        assert self.round is not None, "a player looks during a round"
        return [
            card for card, place in zip(self.shuffler.order, self.round.deal, strict=False) if place == seat
        ]

    def new_round(self, number: int) -> Round:
        order = standard_deck()
        self.rng.shuffle(order)
        self.shuffler = StackedShuffler(order)
        self.shoes += 1
        self.round = self.table.new_round()
        return self.round

    def begin(self, round_: Round) -> None:
        counting = self.rules.shuffler is Shuffler.COUNTING
        report = self.shuffler.report()
        round_.handle(ShuffleReport(count=report.count if counting else None, order=report.order))
        round_.handle(ChooseHand(DeckHand.LEFT))
        round_.handle(NoMoreBets())

    def step(self, round_: Round, players: StrategyPlayers) -> None:
        state = round_.state
        if state == LOCKING:  # nobody wagered on the progressive: no chip accepted
            round_.handle(ProgressiveLocked(()))
        elif state == DEALING:
            self.shuffler.deal(round_)
        elif state == STUB:
            stub = len(self.shuffler.order) - len(round_.deal)
            round_.handle(StubCount(stub) if round_.stub_count_due else StubToRack())
        elif state == DECISIONS:
            for seat in sorted(round_.positions):
                round_.handle(players.decide(seat))
        elif state == SHOWDOWN:
            if not round_.hands:
                round_.handle(RevealOrder(self.shuffler.order))
            round_.handle(Settle())
        elif state in (SETTLED, VOIDED) and not round_.awards:
            round_.handle(Discard(round_.layout_cards))
        else:
            raise MathError(f"round {round_.number} waits in {state}, which math mode does not step")

    def end(self, round_: Round) -> None:
        self.table.round_over(round_)


def staked(round_: Round) -> Iterable[tuple[str, int, int]]:
    """The Play Wager each player made on deciding (published game rules)."""
    return [("play", seat, p.play) for seat, p in round_.positions.items() if p.play]


def observed(round_: Round) -> Iterable[tuple[str, str]]:
    """The dealer's best four-card hand (its category), once the hands are known."""
    cards = round_.hands.get(DEALER)
    if cards is None:
        return []
    return [("dealer hand", strength(cards).category.name.lower().replace("_", " "))]


def simulated(rng: random.Random, rules: RuleSet, dealing: Crazy4Dealing) -> StrategyPlayers:
    return StrategyPlayers(rng, look=dealing.look, rules=rules)


MATH = MathGame(
    dealing=Crazy4Dealing,
    strategies={"simulated": simulated},
    strategy_notes={
        "simulated": "the simulator's players: Play 3x with aces or better, 1x with king-queen or a pair, "
        "else fold; random stakes, Queens Up and the Six Card Bonus on some positions; no progressive"
    },
    observed=observed,
    staked=staked,
)
