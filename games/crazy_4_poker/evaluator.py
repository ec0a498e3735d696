"""Four-card poker rankings of 58 Pa. Code § 657a.6, and the best four of five (657a.1 "Hand").

A hand's strength is a ``Strength``: its category, then the ranks that break a tie within the
category, highest first. Strengths compare with ``<`` and ``==`` as hands do at the showdown; two
hands of equal strength tie (suits never break a tie). Aces are high (14) except in A-2-3-4, the
lowest straight, whose top card is the 4; A-K-Q-J is the highest straight; a straight never wraps
around (K-A-2-3 is no straight).
"""

from __future__ import annotations

import enum
import functools
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from games.common.poker_hands import ACE_HIGH, best_of, high_rank, order_score
from vocabulary.cards import Card

KING = 13
QUEEN = 12
HAND_SIZE = 5  # 657a.9(b): five cards to each player and the dealer
BEST_OF = 4  # 657a.1: the Hand is the best four of the five


class Category(enum.IntEnum):
    """657a.6, four-card hands from low to high (an IntEnum so that higher is better)."""

    HIGH_CARD = 0
    PAIR = 1
    TWO_PAIRS = 2
    STRAIGHT = 3
    FLUSH = 4
    THREE_OF_A_KIND = 5
    STRAIGHT_FLUSH = 6
    FOUR_OF_A_KIND = 7

    @property
    def label(self) -> str:
        return self.name.lower().replace("_", " ")


@dataclass(frozen=True, order=True)
class Strength:
    category: Category
    ranks: tuple[int, ...]  # tie-breaking ranks, aces 14, highest first

    @property
    def high_card(self) -> int:
        return max(self.ranks)

    def __str__(self) -> str:
        return f"{self.category.label} ({'-'.join(_RANK_NAMES[r] for r in self.ranks)})"


_RANK_NAMES = {r: "23456789TJQKA"[r - 2] for r in range(2, 15)}


def _straight_top(ranks: list[int]) -> int | None:
    """The top rank of a four-card straight, or None. ``ranks`` are distinct, aces high."""
    ordered = sorted(ranks)
    if ordered == [2, 3, 4, ACE_HIGH]:
        return 4  # A-2-3-4, the lowest straight
    if ordered[-1] - ordered[0] == 3:
        return ordered[-1]
    return None


def rank_four(cards: Sequence[Card]) -> Strength:
    """The strength of exactly four cards under 657a.6."""
    if len(cards) != BEST_OF:
        raise ValueError(f"a four-card hand has 4 cards, got {len(cards)}")
    ranks = tuple(sorted((high_rank(card) for card in cards), reverse=True))
    return _ranked(ranks, len({card.suit for card in cards}) == 1)[1]


@functools.cache
def _ranked(ranks: tuple[int, ...], flush: bool) -> tuple[int, Strength]:
    """The strength of four cards of ``ranks`` (high first), all of one suit or not, with its
    order_score (poker_hands.best_of): made once for each shape four cards can take."""
    value = _strength(list(ranks), flush)
    return order_score(value.category, value.ranks, BEST_OF), value


def _strength(ranks: list[int], flush: bool) -> Strength:
    counts = Counter(ranks)
    # Ranks grouped by how often they appear, larger groups first, higher ranks first.
    grouped = sorted(counts, key=lambda rank: (counts[rank], rank), reverse=True)
    shape = sorted(counts.values(), reverse=True)
    if shape == [4]:
        return Strength(Category.FOUR_OF_A_KIND, tuple(grouped))
    if shape[0] == 3:
        return Strength(Category.THREE_OF_A_KIND, tuple(grouped))
    if shape == [2, 2]:
        return Strength(Category.TWO_PAIRS, tuple(grouped))
    if shape[0] == 2:
        return Strength(Category.PAIR, tuple(grouped))
    top = _straight_top(grouped)
    if top is not None:
        return Strength(Category.STRAIGHT_FLUSH if flush else Category.STRAIGHT, (top,))
    return Strength(Category.FLUSH if flush else Category.HIGH_CARD, tuple(grouped))


def best_four(cards: Sequence[Card]) -> tuple[Strength, tuple[Card, ...]]:
    """657a.1: the best four-card hand among five cards, with the four cards that make it."""
    return _best_four(tuple(cards))


@functools.lru_cache(maxsize=4096)
def _best_four(cards: tuple[Card, ...]) -> tuple[Strength, tuple[Card, ...]]:
    """``best_four`` of the cards in this order, kept for the hands seen lately: a round ranks each
    hand several times (the player's decision, the Play's limit, the showdown, the settlement)."""
    if len(cards) != HAND_SIZE or len(set(cards)) != HAND_SIZE:
        raise ValueError(f"a Crazy 4 Poker hand is 5 different cards, got {len(cards)}")
    return best_of(cards, BEST_OF, _ranked)


def strength(cards: Sequence[Card]) -> Strength:
    return best_four(cards)[0]


def qualifies(dealer: Strength) -> bool:
    """published game rules (not PA text): the dealer qualifies with king high or better."""
    return dealer.category > Category.HIGH_CARD or dealer.high_card >= KING


def aces_or_better(hand: Strength) -> bool:
    """Published game rules (not PA text): a Play of more than 1x the Ante needs a pair of aces or better."""
    if hand.category == Category.PAIR:
        return hand.ranks[0] == ACE_HIGH
    return hand.category > Category.PAIR


def queens_or_better(hand: Strength) -> bool:
    """Published game rules (not PA text): Queens Up pays on a pair of queens or better."""
    if hand.category == Category.PAIR:
        return hand.ranks[0] >= QUEEN
    return hand.category > Category.PAIR


def four_aces(hand: Strength) -> bool:
    return hand.category == Category.FOUR_OF_A_KIND and hand.ranks[0] == ACE_HIGH
