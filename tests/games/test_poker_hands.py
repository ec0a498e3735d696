"""The best-five-of-seven evaluator against counts derived here from combinatorics, and against an
independent reference evaluator written here from the hand rankings.

Every five-card hand is covered by rank pattern: for each multiset of five ranks the evaluator
values one unsuited hand and, when the ranks differ, one suited hand, and the pattern's weight is
the number of suit assignments of each kind; the weighted counts must be the textbook counts of
the 2,598,960 hands, which this file derives itself (the full enumeration takes ~14 s here).
"""

from __future__ import annotations

import itertools
import random
from collections import Counter
from math import comb, prod

import pytest

from games.common.poker_hands import Category, best_five, evaluate5
from vocabulary.cards import Card, standard_deck


def card(rank: int, suit: int) -> Card:
    return Card(1 if rank == 14 else rank, suit)


def reference_value(cards: list[Card]) -> tuple[int, tuple[int, ...]]:
    """The value of the best five of ``cards``, straight from the rankings rather than by trying
    every five: flushes by suit, straights by rank set, then groups of equal rank."""
    ranks = sorted((14 if c.rank == 1 else c.rank for c in cards), reverse=True)

    def straight_high(rank_set: set[int]) -> int | None:
        with_low_ace = rank_set | ({1} if 14 in rank_set else set())
        return next((hi for hi in range(14, 4, -1) if all(hi - k in with_low_ace for k in range(5))), None)

    suits = Counter(c.suit for c in cards)
    flush_suit = next((s for s, n in suits.items() if n >= 5), None)
    if flush_suit is not None:
        flush_ranks = sorted(
            (14 if c.rank == 1 else c.rank for c in cards if c.suit == flush_suit), reverse=True
        )
        high = straight_high(set(flush_ranks))
        if high is not None:
            return (9 if high == 14 else 8, (high,))
    counts = Counter(ranks)
    by_count = {n: sorted((r for r, m in counts.items() if m == n), reverse=True) for n in (4, 3, 2, 1)}
    if by_count[4]:
        quad = by_count[4][0]
        return 7, (quad, max(r for r in ranks if r != quad))
    if by_count[3] and len(by_count[3]) + len(by_count[2]) >= 2:
        trips = by_count[3][0]
        pair = max([*by_count[3][1:], *by_count[2]])
        return 6, (trips, pair)
    if flush_suit is not None:
        return 5, tuple(flush_ranks[:5])
    high = straight_high(set(ranks))
    if high is not None:
        return 4, (high,)
    if by_count[3]:
        trips = by_count[3][0]
        return 3, (trips, *[r for r in ranks if r != trips][:2])
    if len(by_count[2]) >= 2:
        high_pair, low_pair = by_count[2][:2]
        return 2, (high_pair, low_pair, max(r for r in ranks if r not in (high_pair, low_pair)))
    if by_count[2]:
        pair = by_count[2][0]
        return 1, (pair, *[r for r in ranks if r != pair][:3])
    return 0, tuple(ranks[:5])


def textbook_counts() -> dict[Category, int]:
    """Five-card hands by category, from combinatorics."""
    suits, kickers = 4, 4**5 - 4
    return {
        Category.ROYAL_FLUSH: suits,
        Category.STRAIGHT_FLUSH: 10 * suits - suits,
        Category.FOUR_OF_A_KIND: 13 * 48,
        Category.FULL_HOUSE: 13 * comb(4, 3) * 12 * comb(4, 2),
        Category.FLUSH: comb(13, 5) * suits - 10 * suits,
        Category.STRAIGHT: 10 * 4**5 - 10 * suits,
        Category.THREE_OF_A_KIND: 13 * comb(4, 3) * comb(12, 2) * 4**2,
        Category.TWO_PAIR: comb(13, 2) * comb(4, 2) ** 2 * 11 * 4,
        Category.PAIR: 13 * comb(4, 2) * comb(12, 3) * 4**3,
        Category.HIGH_CARD: (comb(13, 5) - 10) * kickers,
    }


def test_every_five_card_hand_by_rank_pattern_gives_the_textbook_counts():
    counts: Counter[Category] = Counter()
    values = set()
    for ranks in itertools.combinations_with_replacement(range(2, 15), 5):
        multiplicity = Counter(ranks)
        if max(multiplicity.values()) > 4:
            continue
        seen: Counter[int] = Counter()
        unsuited = []
        for rank in ranks:  # the n-th card of a rank takes suit n: never five of one suit
            unsuited.append(card(rank, seen[rank] if len(multiplicity) < 5 else int(rank == ranks[0])))
            seen[rank] += 1
        value = evaluate5(unsuited)
        values.add(value)
        if len(multiplicity) < 5:
            counts[value.category] += prod(comb(4, m) for m in multiplicity.values())
            continue
        counts[value.category] += 4**5 - 4
        suited = evaluate5([card(rank, 0) for rank in ranks])
        values.add(suited)
        counts[suited.category] += 4
    assert sum(counts.values()) == comb(52, 5) == 2_598_960
    assert dict(counts) == textbook_counts()
    # distinct hand values: 10 straight flushes, 156 quads, 156 full houses, 1277 flushes, 10
    # straights, 858 trips, 858 two pairs, 2860 pairs, 1277 high cards
    assert len(values) == 10 + 13 * 12 * 2 + (comb(13, 5) - 10) * 2 + 10 + 13 * comb(12, 2) * 2 + 13 * comb(
        12, 3
    )
    assert len(values) == 7462


def test_best_five_of_seven_matches_the_reference_on_random_hands():
    rng = random.Random(677)
    deck = standard_deck()
    for _ in range(4000):
        seven = rng.sample(deck, 7)
        value, five = best_five(seven)
        assert (int(value.category), value.ranks) == reference_value(seven), seven
        assert set(five) <= set(seven) and evaluate5(five) == value


def test_best_five_takes_the_five_that_valuing_every_five_takes_the_first_of_equals():
    """best_five orders its fives by a whole number made once per shape of five cards, not by
    their HandValues: it must take the same five as valuing every five and keeping the first of
    the best (a tie between two fives of equal value goes to the first in combination order)."""
    rng = random.Random(57)
    deck = standard_deck()
    for _ in range(1500):
        cards = rng.sample(deck, rng.choice((5, 6, 7)))
        expected = max(
            ((evaluate5(five), five) for five in itertools.combinations(cards, 5)), key=lambda vf: vf[0]
        )
        assert best_five(cards) == expected, cards
    tied = [Card.parse(word) for word in ["2c", "3d", "4h", "5s", "6c", "6d", "7h"]]
    assert best_five(tied)[1] == tuple(Card.parse(word) for word in ["3d", "4h", "5s", "6c", "7h"])


def test_random_pairs_of_hands_are_ordered_as_the_reference_orders_them():
    rng = random.Random(10)
    deck = standard_deck()
    for _ in range(1500):
        cards = rng.sample(deck, 9)
        a, b = cards[:2] + cards[4:], cards[2:4] + cards[4:]  # two hole pairs over one board
        ours = (best_five(a)[0] > best_five(b)[0]) - (best_five(a)[0] < best_five(b)[0])
        theirs = (reference_value(a) > reference_value(b)) - (reference_value(a) < reference_value(b))
        assert ours == theirs, (a, b)


@pytest.mark.parametrize(
    ("text", "category", "ranks"),
    [
        ("As 2d 3c 4h 5s", Category.STRAIGHT, (5,)),  # the wheel: the ace plays low
        ("Ts Js Qs Ks As", Category.ROYAL_FLUSH, (14,)),
        ("Ah 2h 3h 4h 5h", Category.STRAIGHT_FLUSH, (5,)),
        ("Qs Ks As 2s 3d", Category.HIGH_CARD, (14, 13, 12, 3, 2)),  # no wrap-around
    ],
)
def test_aces_play_high_and_low_only_in_the_wheel(text, category, ranks):
    value = evaluate5([Card.parse(word) for word in text.split()])
    assert (value.category, value.ranks) == (category, ranks)


def test_bad_hands_are_refused_with_what_was_wrong():
    with pytest.raises(ValueError, match="five cards"):
        evaluate5([Card.parse("As")] * 4)
    with pytest.raises(ValueError, match="5 to 7 different cards"):
        best_five([Card.parse("As")] * 7)
