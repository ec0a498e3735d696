"""The player's two cards as the Pocket Bonus reads them (published game rules, not PA text: an
optional wager on the player's two cards alone). The classes are those of the published field tables,
whose top line is the player's pocket aces against the dealer's pocket aces; which pay, and how much,
is configuration (rules_config.RuleSet.pocket_bonus_pay_table)."""

from __future__ import annotations

import enum
from collections.abc import Sequence

from games.common.poker_hands import ACE_HIGH, high_rank
from vocabulary.cards import Card


class Pocket(enum.StrEnum):
    ACES_AGAINST_DEALER_ACES = "aces_against_dealer_aces"  # the player's aces and the dealer's
    ACES = "aces"
    ACE_KING_SUITED = "ace_king_suited"
    ACE_QUEEN_OR_JACK_SUITED = "ace_queen_or_jack_suited"
    ACE_KING = "ace_king"
    KINGS_QUEENS_OR_JACKS = "kings_queens_or_jacks"
    ACE_QUEEN_OR_JACK = "ace_queen_or_jack"
    TENS_TO_TWOS = "tens_to_twos"

    @property
    def key(self) -> str:
        return self.value


def pocket_lines(cards: Sequence[Card], dealer: Sequence[Card]) -> tuple[Pocket, ...]:
    """The pay table lines the player's two ``cards`` are paid by, the first the table lists paying:
    pocket aces against the ``dealer``'s pocket aces are paid by that line, or as aces where the
    table has no such line."""
    pocket = pocket_of(cards)
    if pocket is None:
        return ()
    if pocket is Pocket.ACES and len(dealer) == 2 and pocket_of(dealer) is Pocket.ACES:
        return (Pocket.ACES_AGAINST_DEALER_ACES, Pocket.ACES)
    return (pocket,)


def pocket_of(cards: Sequence[Card]) -> Pocket | None:
    """The class of two hole cards, or None for a hand no class names."""
    high, low = sorted((high_rank(card) for card in cards), reverse=True)
    suited = cards[0].suit == cards[1].suit
    if high == low:
        if high == ACE_HIGH:
            return Pocket.ACES
        return Pocket.KINGS_QUEENS_OR_JACKS if high >= 11 else Pocket.TENS_TO_TWOS
    if high != ACE_HIGH or low < 11:
        return None
    if low == 13:
        return Pocket.ACE_KING_SUITED if suited else Pocket.ACE_KING
    return Pocket.ACE_QUEEN_OR_JACK_SUITED if suited else Pocket.ACE_QUEEN_OR_JACK
