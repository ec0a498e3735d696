"""Simulated players at a Crazy 4 Poker table (``croupier.tables.crazy_4_poker.Crazy4Players``).

657a.9 and the published game rules: the Ante and the Super Bonus, equal, are required; Queens Up, the
progressive (one value chip on the seat's sensor) and the Five and Six Card Bonus are optional. Each
player looks at their five cards and Plays 1x to 3x the Ante (more than 1x only with a pair of aces
or better in the best four) or folds. The table does not tell the player their cards (they stay
sealed until the showdown), so ``StrategyPlayers`` lifts them through a ``Look``.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence

from games.crazy_4_poker import RuleSet
from games.crazy_4_poker.evaluator import KING, QUEEN, Category, aces_or_better, strength
from games.crazy_4_poker.inputs import Fold, PlaceWagers, Play
from simulator.players.seen import Look
from vocabulary.cards import Card

STAKES = (500, 1000, 2500, 5000)  # cents: the Ante, and the Super Bonus equal to it
QUEENS_UP_STAKE = 500
PROGRESSIVE_CHIP = 100  # one value chip (657a.9(a)(3))
SIX_CARD_BONUS_STAKE = 500


def play_multiple(cards: Sequence[Card], max_multiple: int = 3) -> int:
    """The Play in Antes for five cards, 0 to fold: the most allowed with a pair of aces or better in
    the best four, 1x with king-queen high or better, else fold (the dealer qualifies with king
    high, so less rarely wins)."""
    hand = strength(cards)
    if aces_or_better(hand):
        return max_multiple
    if hand.category > Category.HIGH_CARD:
        return 1
    return 1 if hand.ranks[0] > KING or (hand.ranks[0] == KING and hand.ranks[1] >= QUEEN) else 0


class StrategyPlayers:
    """Every position taken: Ante and Super Bonus equal from STAKES; Queens Up on some positions
    (``queens_up_rate``); where ``rules`` offer them, a Six Card Bonus (``six_card_rate``) and a
    progressive chip (``progressive_rate``) put on the seat's sensor through ``cover``, without
    which no progressive wager is made (the chip count would not match). Decisions follow
    ``play_multiple`` on the seat's own cards, given by ``look``; only the wagers come from ``rng``,
    so a seeded run replays exactly."""

    def __init__(
        self,
        rng: random.Random,
        *,
        look: Look,
        rules: RuleSet | None = None,
        cover: Callable[[int], object] | None = None,
        queens_up_rate: float = 0.3,
        progressive_rate: float = 0.5,
        six_card_rate: float = 0.2,
    ) -> None:
        self.rng = rng
        self.look = look
        self.rules = rules or RuleSet.example()
        self.cover = cover
        self.queens_up_rate = queens_up_rate
        self.progressive_rate = progressive_rate if cover and self.rules.progressive_offered else 0.0
        self.six_card_rate = six_card_rate if self.rules.six_card_bonus_offered else 0.0

    def wagers(self, round_number: int, positions: int) -> Sequence[PlaceWagers]:
        wagers = []
        for seat in range(1, positions + 1):
            stake = self.rng.choice(STAKES)
            queens = QUEENS_UP_STAKE if self.rng.random() < self.queens_up_rate else 0
            progressive = PROGRESSIVE_CHIP if self.rng.random() < self.progressive_rate else 0
            six = SIX_CARD_BONUS_STAKE if self.rng.random() < self.six_card_rate else 0
            if progressive and self.cover is not None:
                self.cover(seat)
            wagers.append(
                PlaceWagers(seat, stake, stake, queens, progressive=progressive, six_card_bonus=six)
            )
        return wagers

    def decide(self, seat: int) -> Play | Fold:
        cards = self.look(seat)
        if len(cards) != 5:  # a card astray: the round will not reach the showdown; fold
            return Fold(seat)
        multiple = play_multiple(cards, self.rules.max_play_multiple)
        return Play(seat, multiple) if multiple else Fold(seat)
