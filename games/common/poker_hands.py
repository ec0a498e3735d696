"""Poker hands: the best five of seven cards, as a value that orders hands as the rankings do.

Shared by the poker games: Heads Up Hold 'Em ranks the best five-card hand each player and the
dealer make from their two cards and the five community cards (published rules, not PA text;
chapter 677a); Crazy 4 Poker's five-card bonus wagers rank the best five of a player's five cards
(chapter 657a). Aces play high, and low only in the
five-high straight (A-2-3-4-5); suits never break a tie. The royal flush is a category of its own
because the published Odds pay table pays it apart from other straight flushes.
"""

from __future__ import annotations

import enum
import functools
import itertools
import operator
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TypeVar

from vocabulary.cards import Card

ACE_HIGH = 14
WHEEL = (14, 5, 4, 3, 2)
#: A hand's value (HandValue here, a game's own elsewhere).
V = TypeVar("V")


class Category(enum.IntEnum):
    HIGH_CARD = 0
    PAIR = 1
    TWO_PAIR = 2
    THREE_OF_A_KIND = 3
    STRAIGHT = 4
    FLUSH = 5
    FULL_HOUSE = 6
    FOUR_OF_A_KIND = 7
    STRAIGHT_FLUSH = 8
    ROYAL_FLUSH = 9

    @property
    def key(self) -> str:
        """The name configuration uses: ``royal_flush``, ``three_of_a_kind``."""
        return self.name.lower()


@dataclass(frozen=True, order=True)
class HandValue:
    """A five-card hand's rank: the category, then the ranks that break ties, most significant
    first (ace = 14; a five-high straight counts its ace as 1, so its high card is 5)."""

    category: Category
    ranks: tuple[int, ...]

    def __str__(self) -> str:
        return self.category.key.replace("_", " ")


def high_rank(card: Card) -> int:
    """A card's rank with the ace high (14)."""
    return ACE_HIGH if card.rank == 1 else card.rank


def evaluate5(cards: Sequence[Card]) -> HandValue:
    """The value of exactly five cards."""
    if len(cards) != 5 or any(card.is_joker for card in cards):
        raise ValueError(f"a poker hand is five cards without jokers, got {', '.join(map(str, cards))}")
    ranks = tuple(sorted((high_rank(card) for card in cards), reverse=True))
    return _ranked(ranks, len({card.suit for card in cards}) == 1)[1]


@functools.cache
def _ranked(ranks: tuple[int, ...], flush: bool) -> tuple[int, HandValue]:
    """The value of five cards of ``ranks`` (high first), all of one suit or not, with its
    ``order_score``: made once for each of the few thousand shapes five cards can take."""
    value = _value(ranks, flush)
    return order_score(value.category, value.ranks, 5), value


def _value(ranks: tuple[int, ...], flush: bool) -> HandValue:
    distinct = len(set(ranks)) == 5
    straight_high = None
    if distinct and ranks[0] - ranks[4] == 4:
        straight_high = ranks[0]
    elif ranks == WHEEL:
        straight_high = 5
    if straight_high is not None:
        if not flush:
            return HandValue(Category.STRAIGHT, (straight_high,))
        royal = straight_high == ACE_HIGH
        return HandValue(Category.ROYAL_FLUSH if royal else Category.STRAIGHT_FLUSH, (straight_high,))
    if flush:
        return HandValue(Category.FLUSH, ranks)
    groups = sorted(Counter(ranks).items(), key=lambda item: (item[1], item[0]), reverse=True)
    shape = tuple(count for _, count in groups)
    order = tuple(rank for rank, _ in groups)
    return HandValue(_SHAPES[shape], order)


_SHAPES = {
    (4, 1): Category.FOUR_OF_A_KIND,
    (3, 2): Category.FULL_HOUSE,
    (3, 1, 1): Category.THREE_OF_A_KIND,
    (2, 2, 1): Category.TWO_PAIR,
    (2, 1, 1, 1): Category.PAIR,
    (1, 1, 1, 1, 1): Category.HIGH_CARD,
}


def best_five(cards: Sequence[Card]) -> tuple[HandValue, tuple[Card, ...]]:
    """The best five-card hand among ``cards`` (five to seven of them), and the five that make it."""
    return _best_five(tuple(cards))


@functools.lru_cache(maxsize=4096)
def _best_five(cards: tuple[Card, ...]) -> tuple[HandValue, tuple[Card, ...]]:
    """``best_five`` of the cards in this order, kept for the hands seen lately: a round values each
    hand several times (the players' decisions, the showdown, the settlement)."""
    if not 5 <= len(cards) <= 7 or len(set(cards)) != len(cards):
        raise ValueError(f"the best five are chosen from 5 to 7 different cards, got {len(cards)}")
    if any(card.is_joker for card in cards):
        for with_joker in itertools.combinations(cards, 5):
            evaluate5(with_joker)  # refuses the first five with a joker, naming them
    return best_of(cards, 5, _ranked)


def order_score(category: int, ranks: tuple[int, ...], width: int) -> int:
    """A whole number that orders hands as (category, ranks) does, equal for equal hands: a
    category's tie-breaking ranks (2 to 14, at most ``width`` of them) are all of one length."""
    score = category
    for rank in (*ranks, *(0,) * (width - len(ranks))):
        score = score * 15 + rank
    return score


#: A ranking for ``best_of``: the hand of cards of these ranks (high first), of one suit or not, as
#: its order_score and its value.
Ranking = Callable[[tuple[int, ...], bool], tuple[int, V]]
#: The values of one hand's cards picked from those of all the cards (an ``operator.itemgetter``).
Picker = Callable[[list[int]], tuple[int, ...]]


def best_of(cards: tuple[Card, ...], size: int, ranking: Ranking[V]) -> tuple[V, tuple[Card, ...]]:
    """The best hand of ``size`` among ``cards`` by ``ranking``, and the cards that make it; of hands
    of equal value the first in itertools.combinations' order, as max() over them would take. Hands
    are compared by the whole numbers of a ranking made once per shape of hand: a showdown values 21
    fives of seven cards, and building and comparing a value for each was a third of a Heads Up Hold
    'Em math round (decision 0042). Each hand's ranks and suits are picked by an itemgetter made once
    per shape of choice, and its suits are looked at only when some suit has ``size`` cards among
    ``cards`` (else no hand of them is a flush): a seven-card valuing takes half the time it took
    with a generator and a set per hand (decision 0048, amended)."""
    high = [high_rank(card) for card in cards]
    suits = [card.suit for card in cards]
    flushes = max(map(suits.count, set(suits))) >= size
    best: tuple[int, V, tuple[int, ...]] | None = None
    for chosen, pick in _choices(len(cards), size):
        flush = flushes and len(set(pick(suits))) == 1
        score, value = ranking(tuple(sorted(pick(high), reverse=True)), flush)
        if best is None or score > best[0]:
            best = score, value, chosen
    assert best is not None, f"{len(cards)} cards hold a hand of {size}"
    return best[1], tuple(cards[i] for i in best[2])


@functools.cache
def _choices(count: int, size: int) -> tuple[tuple[tuple[int, ...], Picker], ...]:
    """The hands of ``size`` (two or more: an itemgetter of one position gives no tuple) among
    ``count`` cards, by position, in itertools.combinations' order, each with the itemgetter that
    picks its cards' values."""
    hands = itertools.combinations(range(count), size)
    return tuple((chosen, operator.itemgetter(*chosen)) for chosen in hands)
