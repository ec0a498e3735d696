"""Card values the auditor counts itself (it shares only the card vocabulary with the games):
a Blackjack hand's total, hard or soft, and an Over/Under hand's points."""

from __future__ import annotations

from collections.abc import Iterable

from vocabulary.cards import Card

ACE = 1


def faces(texts: Iterable[object]) -> list[Card]:
    return [Card.parse(str(text)) for text in texts]


def blackjack_total(cards: Iterable[Card]) -> tuple[int, bool]:
    """The best total and whether it is soft (an ace counted 11): aces count 1 or 11, court cards 10."""
    cards = list(cards)
    hard = sum(min(card.rank, 10) for card in cards)
    soft = any(card.rank == ACE for card in cards) and hard + 10 <= 21
    return (hard + 10, True) if soft else (hard, False)


def is_blackjack(cards: list[Card]) -> bool:
    """Two cards totalling 21: an ace and a ten-value card."""
    return len(cards) == 2 and blackjack_total(cards)[0] == 21


def over_under_points(cards: Iterable[Card]) -> int:
    """Over/Under counts an ace 11 and court cards 10: three cards total 6 (three 2s) to 33 (three
    aces), the range of 686a.7(k)-(m)."""
    return sum(11 if card.rank == ACE else min(card.rank, 10) for card in cards)
