"""Card values and hand totals of Over/Under (686a.7(k)-(m): totals run 6 to 33).

A Hand is the three cards dealt to a player (686a.1). 2-10 count their face value, J, Q and K count
10, and an ace always counts 11: the seed's totals run from 6 (three 2s) to 33 (three aces), which
only an ace fixed at 11 gives. Unlike blackjack there is no soft total.
"""

from __future__ import annotations

from collections.abc import Sequence

from games.over_under import clauses
from vocabulary.cards import Card

ACE = 1
HAND_SIZE = 3
LOWEST, HIGHEST = 6, 33  # three 2s; three aces


def card_points(card: Card) -> int:
    """The count of one card (686a.3 not found; the totals of 686a.7(k)-(m), 6 to 33, need an ace
    to count 11 and court cards 10)."""
    if card.is_joker:
        raise ValueError(f"{card} has no value in Over/Under ({clauses.NO_JOKERS})")
    if card.rank == ACE:
        return 11
    return min(card.rank, 10)


def total(cards: Sequence[Card]) -> int:
    return sum(card_points(card) for card in cards)
