"""Simulated players at a Free Bet Blackjack table (``croupier.tables.free_bet_blackjack.Players``).

``BasicStrategyPlayers`` plays Free Bet basic strategy roughly, deterministically: the only chance
is in the wagers, drawn from the ``random.Random`` it is given, so a seeded run replays exactly.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from croupier.tables.free_bet_blackjack import Legal
from games.free_bet_blackjack.decisions import Stake
from games.free_bet_blackjack.hand import card_value, is_ace
from games.free_bet_blackjack.inputs import EvenMoney, Insure, PlaceWager, PlayerAction
from games.free_bet_blackjack.positions import Hand
from vocabulary.cards import Card

STAKES = (500, 1000, 2500, 5000)  # cents
PUSH22_STAKE = 500


class BasicStrategyPlayers:
    """Every position taken, basic strategy for Free Bet, never insured: always the free double and
    the free split; hit below 17 against 7 to ace, stand on 12 to 16 against 2 to 6, hit 11 or less;
    soft hands stand from 18. Push 22 Wagers on some positions, as ``push22_rate`` says."""

    def __init__(self, rng: random.Random, *, push22_rate: float = 0.25) -> None:
        self.rng = rng
        self.push22_rate = push22_rate

    def wagers(self, round_number: int, positions: int) -> Sequence[PlaceWager]:
        return [
            PlaceWager(
                seat,
                self.rng.choice(STAKES),
                PUSH22_STAKE if self.rng.random() < self.push22_rate else 0,
            )
            for seat in range(1, positions + 1)
        ]

    def insurance(self, hand: Hand, dealer_up: Card) -> Insure | EvenMoney | None:
        return None  # basic strategy never insures, nor takes even money

    def decide(self, hand: Hand, dealer_up: Card, legal: Legal) -> PlayerAction:
        if legal.get(PlayerAction.SPLIT, Stake.PAID) is Stake.FREE:
            return PlayerAction.SPLIT
        if legal.get(PlayerAction.DOUBLE_DOWN, Stake.PAID) is Stake.FREE:
            return PlayerAction.DOUBLE_DOWN
        wanted = PlayerAction.HIT if self._hits(hand, dealer_up) else PlayerAction.STAND
        return wanted if wanted in legal else PlayerAction.STAND

    @staticmethod
    def _hits(hand: Hand, dealer_up: Card) -> bool:
        total = hand.total
        if total.soft:
            return total.value < 18
        if total.value <= 11:
            return True
        strong_dealer = is_ace(dealer_up) or card_value(dealer_up) >= 7
        return total.value < 17 and strong_dealer
