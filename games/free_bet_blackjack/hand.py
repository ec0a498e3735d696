"""Card values and hand totals of the blackjack family (633a.3(e), 673a.3(d), analog).

2-10 count their face value, J, Q and K count 10, an ace counts 11 unless that would take the
total over 21, then 1. A total is *soft* while an ace still counts 11: the difference matters for
the free double (hard 9, 10, 11 only) and is announced with the dealer's 17.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass

from vocabulary.cards import JOKER_RANK, Card

ACE = 1
TEN_VALUE_RANKS = frozenset({10, 11, 12, 13})


def card_value(card: Card) -> int:
    """The count of one card, an ace as 1 (``total`` decides when it counts 11)."""
    if card.is_joker:
        raise ValueError(f"{card} has no value in Free Bet Blackjack (603a.15: no jokers)")
    return 10 if card.rank in TEN_VALUE_RANKS else card.rank


def is_ten_value(card: Card) -> bool:
    return card.rank in TEN_VALUE_RANKS


def is_ace(card: Card) -> bool:
    return card.rank == ACE


@dataclass(frozen=True, order=True)
class Total:
    """A hand's point count; ``soft`` while an ace counts 11."""

    value: int
    soft: bool = False

    @functools.cached_property
    def bust(self) -> bool:
        """Worked out once: each Total is made once (``_total``) and asked a dozen times a round."""
        return self.value > 21

    def __str__(self) -> str:
        return f"soft {self.value}" if self.soft else str(self.value)


#: Each rank's count by rank, as ``card_value`` gives it: read from here by ``total``, which counts
#: every hand and the dealer's cards many times a round (a joker has no count: ``card_value`` refuses
#: it, as it does any rank without one).
COUNTS = tuple(
    None if rank not in range(1, 14) else 10 if rank in TEN_VALUE_RANKS else rank
    for rank in range(JOKER_RANK + 1)
)


def total(cards: Sequence[Card]) -> Total:
    hard, ace = 0, False
    for card in cards:
        rank = card.rank
        count = COUNTS[rank]
        if count is None:
            count = card_value(card)  # raises: a joker
        hard += count
        ace = ace or rank == ACE
    if ace and hard + 10 <= 21:
        return _total(hard + 10, True)
    return _total(hard, False)


@functools.cache
def _total(value: int, soft: bool) -> Total:
    """Each Total made once: a Total is immutable, and a round counts some twenty hands and dealer's
    hands, each a frozen dataclass built field by field (decision 0052)."""
    return Total(value, soft)


def is_blackjack(cards: Sequence[Card], counted: Total | None = None) -> bool:
    """An ace and a ten-value card as the first two cards (a split hand is never a Blackjack:
    the caller decides whether the two cards are a hand's first two); ``counted``: their total,
    where the caller keeps it."""
    return len(cards) == 2 and (counted or total(cards)).value == 21


def is_pair(cards: Sequence[Card]) -> bool:
    """Two cards of the same rank (a king and a queen are not a pair)."""
    return len(cards) == 2 and cards[0].rank == cards[1].rank
