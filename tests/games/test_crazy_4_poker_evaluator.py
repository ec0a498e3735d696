"""The best-four-of-five ranking (657a.1, 657a.6), checked over all 2,598,960 five-card hands.

The evaluator is called once per rank multiset and suit pattern (suits relabelled in order of
first appearance: a hand's category cannot depend on which suit is which), weighted by how many
hands share the pattern, so every one of the 2,598,960 hands is counted. The expected counts are
derived here independently, by combinatorics over rank multisets: a hand's category follows from
its rank multiplicities, except where four or five cards share a suit, which is counted apart.
"""

from __future__ import annotations

import itertools
import random
from collections import Counter
from math import comb, prod

from games.crazy_4_poker.evaluator import Category, best_four, qualifies, rank_four, strength
from vocabulary.cards import Card, standard_deck

# Four consecutive ranks (1 = ace .. 13 = king), A-2-3-4 lowest and J-Q-K-A highest; no wrap-around.
WINDOWS = [frozenset({1, 2, 3, 4})] + [frozenset(range(low, low + 4)) for low in range(2, 11)]
WINDOWS.append(frozenset({11, 12, 13, 1}))


def hands(text: str) -> list[Card]:
    return [Card.parse(word) for word in text.split()]


def expected_counts() -> Counter[Category]:
    """Category counts over all five-card hands, from rank multisets and suit combinatorics."""
    counts: Counter[Category] = Counter()
    for ranks in itertools.combinations_with_replacement(range(1, 14), 5):
        mult = Counter(ranks)
        if max(mult.values()) > 4:
            continue
        total = prod(comb(4, m) for m in mult.values())
        distinct = set(mult)
        shape = sorted(mult.values(), reverse=True)
        straight = any(window <= distinct for window in WINDOWS)
        if shape[0] == 4:
            counts[Category.FOUR_OF_A_KIND] += total
            continue
        if shape[0] == 3:
            counts[Category.THREE_OF_A_KIND] += total
            continue
        if shape == [2, 2, 1]:
            counts[Category.TWO_PAIRS] += total
            continue
        if shape == [2, 1, 1, 1]:
            # The four ranks share one suit: 4 suits for them, 3 for the pair's other card.
            suited = 4 * 3
            counts[Category.STRAIGHT_FLUSH if straight else Category.FLUSH] += suited
            counts[Category.STRAIGHT if straight else Category.PAIR] += total - suited
            continue
        # Five ranks: all five suited (4 ways), or exactly four suited (5 off cards x 4 x 3).
        counts[Category.STRAIGHT_FLUSH if straight else Category.FLUSH] += 4
        for off in distinct:
            four_straight = any(window <= distinct - {off} for window in WINDOWS)
            counts[Category.STRAIGHT_FLUSH if four_straight else Category.FLUSH] += 12
        counts[Category.STRAIGHT if straight else Category.HIGH_CARD] += total - 64
    return counts


def evaluator_counts() -> Counter[Category]:
    """The evaluator's category for every hand, once per (rank multiset, suit pattern)."""
    counts: Counter[Category] = Counter()
    for ranks in itertools.combinations_with_replacement(range(1, 14), 5):
        mult = Counter(ranks)
        if max(mult.values()) > 4:
            continue
        order = sorted(mult)
        patterns: Counter[tuple[int, ...]] = Counter()
        for choice in itertools.product(*(itertools.combinations(range(4), mult[r]) for r in order)):
            suits = [suit for group in choice for suit in group]
            relabel: dict[int, int] = {}
            patterns[tuple(relabel.setdefault(s, len(relabel)) for s in suits)] += 1
        for pattern, weight in patterns.items():
            rank_of = [r for r in order for _ in range(mult[r])]
            cards = [Card(rank, suit) for rank, suit in zip(rank_of, pattern, strict=True)]
            counts[strength(cards).category] += weight
    return counts


def test_657a_6_best_four_of_five_over_every_hand() -> None:
    """657a.6 rankings of the 657a.1 Hand (best four of five), over all 2,598,960 hands."""
    expected = expected_counts()
    assert sum(expected.values()) == comb(52, 5)
    assert evaluator_counts() == expected


def test_657a_6_order_of_the_categories() -> None:
    """657a.6: four of a kind; straight flush; three of a kind; flush; straight; two pairs; pair."""
    ladder = [
        "2c 3d 5h 7s 9c",  # high card
        "2c 2d 5h 7s 9c",  # pair
        "2c 2d 5h 5s 9c",  # two pairs
        "2c 3d 4h 5s 9c",  # straight
        "2c 5c 7c 9c Kd",  # flush
        "2c 2d 2h 7s 9c",  # three of a kind
        "2c 3c 4c 5c 9d",  # straight flush
        "2c 2d 2h 2s 9c",  # four of a kind
    ]
    strengths = [strength(hands(text)) for text in ladder]
    assert [s.category for s in strengths] == list(Category)
    assert strengths == sorted(strengths)


def test_657a_6_ace_low_and_high_straights_without_wrap_around() -> None:
    """657a.6: A-2-3-4 is the lowest straight, A-K-Q-J the highest, no wrap-around."""
    low = rank_four(hands("As 2d 3h 4c"))
    high = rank_four(hands("As Kd Qh Jc"))
    assert low.category == high.category == Category.STRAIGHT
    assert low < rank_four(hands("2s 3d 4h 5c")) < high
    assert rank_four(hands("Ks Ad 2h 3c")).category == Category.HIGH_CARD
    assert rank_four(hands("Qs Kd Ah 2c")).category == Category.HIGH_CARD


def test_best_four_names_the_four_cards() -> None:
    """657a.1: the Hand is the best four of the five; the fifth card plays no part."""
    result, four = best_four(hands("9s 9d 9h Kc 2d"))
    assert result.category == Category.THREE_OF_A_KIND and Card.parse("2d") not in four
    assert strength(hands("9s 9d 9h Kc 2d")) == strength(hands("9s 9d 9h Kc 3d"))


def test_best_four_takes_the_four_that_ranking_every_four_takes_the_first_of_equals() -> None:
    """best_four orders its fours by a whole number made once per shape of four cards, not by
    their Strengths: it must take the same four as ranking every four and keeping the first of the
    best (of two fours of equal strength, the first in combination order)."""
    rng = random.Random(657)
    deck = standard_deck()
    for _ in range(1500):
        five = rng.sample(deck, 5)
        expected = max(
            ((rank_four(four), four) for four in itertools.combinations(five, 4)), key=lambda pair: pair[0]
        )
        assert best_four(five) == expected, five
    assert best_four(hands("Ks Kd 7c 7h 2s"))[1] == tuple(hands("Ks Kd 7c 7h"))
    assert best_four(hands("9s 8d 7c 6h 9h"))[1] == tuple(hands("9s 8d 7c 6h"))


def test_dealer_qualifies_with_king_high() -> None:
    """Published game rules (not PA text): the dealer qualifies with king high or better."""
    assert qualifies(strength(hands("Kc 9d 7h 4s 2c")))
    assert not qualifies(strength(hands("Qc Jd 9h 4s 2c")))
    assert qualifies(strength(hands("2c 2d 5h 7s 9c")))
