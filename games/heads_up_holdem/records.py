"""What a round records, in order: wagers, stacks, the stub out of the shoe, community cards, the stub
to the rack, decisions, reveals,
settlement and irregularities. The log is games.common.records' RoundLog (plain values, a round and
sequence number per entry, logged through structlog); a card dealt face down is recorded by its
commitment until it is turned up, and a folded hand never is."""

from __future__ import annotations

import enum

from games.common.records import Record, RoundLog

__all__ = ["Record", "RecordKind", "RoundLog"]


class RecordKind(enum.StrEnum):
    STATE = "state"
    WAGER = "wager"
    WAGER_WITHDRAWN = "wager_withdrawn"  # a wager taken back: the position's wagers were placed again
    NO_MORE_BETS = "no_more_bets"  # 677a.10(a)(2)
    CARD = "card"  # a card placed face down (commitment) or, irregularly, face up; ``source``: shoe or hand
    STUB_REMOVED = "stub_removed"  # 677a.10(c): the remaining cards out of the shoe, before the community
    STUB = "stub"  # 677a.10(c)-(f): to the rack, counted or not
    MISDEAL = "misdeal"  # 677a.10(f): the dealer's finding, and whether the deck is removed
    DECISION = "decision"
    REVEALED = "revealed"  # a card turned up: its face and the commitment it opens
    HAND = "hand"  # the best five of a hand turned up
    SETTLEMENT = "settlement"
    IRREGULARITY = "irregularity"
    SET_ASIDE = "set_aside"
    RESOLUTION = "resolution"
    PICKUP = "pickup"
