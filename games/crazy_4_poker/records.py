"""What a Crazy 4 Poker round records, in order: the log and record shapes are Free Bet
Blackjack's (games/common/records.py); only the kinds differ.

No entry holds a face before the hands are known: the deal records places, the shuffle a
commitment; faces appear first in the HAND entries, which say how each hand was known.
"""

from __future__ import annotations

import enum

from games.common.records import Record, RoundLog

__all__ = ["Record", "RecordKind", "RoundLog"]


class RecordKind(enum.StrEnum):
    STATE = "state"
    WAGER = "wager"
    WAGER_WITHDRAWN = "wager_withdrawn"  # a wager taken back: the position's wagers were placed again
    SHUFFLE = "shuffle"  # the shuffler's count and sealed order (657a.9(a)(1), (d))
    DECK_HAND = "deck_hand"  # 657a.9(a)(2)
    NO_MORE_BETS = "no_more_bets"  # 657a.9(a)(3)
    PROGRESSIVE_LOCKED = "progressive_locked"
    CHIP_COUNT = "chip_count"
    CARD = "card"  # one card face down to a place (657a.9(b))
    STUB = "stub"  # 657a.9(c)-(f)
    DECISION = "decision"
    HAND = "hand"  # a hand's five cards, its best four and how it was known
    SETTLEMENT = "settlement"
    AWARD = "award"  # a progressive award the progressive system paid: amount, level and hit
    IRREGULARITY = "irregularity"
    RESOLUTION = "resolution"
    DISCARD = "discard"
