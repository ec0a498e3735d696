"""Irregularities of a round dealt from the hand: what the round does, what a supervisor may rule.

Where § 657a.9 says what follows (a wrong stub count: void, return the wagers and, without a
misdeal, remove the deck, 657a.9(f)) the round does it. Where it is silent the round is held until
a supervisor rules CONTINUE (its meaning fixed per kind) or VOID. The ``Kind`` and ``Hold`` shapes
are games.common.holds', imported.
"""

from __future__ import annotations

import enum

from games.common.holds import Hold, Kind
from games.common.machine_parts import COMPLETE
from games.crazy_4_poker.machine import DEALING, SHOWDOWN

__all__ = ["KINDS", "SECTION_SAYS", "Hold", "Kind", "Outcome"]


#: What the section itself resolves, for docs/conformance.md (games.conformance).
SECTION_SAYS = (
    "Where § 657a.9 says what follows, the round does it: a wrong stub count voids "
    "the round, returns the wagers and, without a misdeal, removes the deck "
    "(657a.9(f))."
)


class Outcome(enum.StrEnum):
    HELD = "held for a supervisor"
    VOIDED = "all hands void, all wagers returned"
    DECK_REMOVED = "all hands void, all wagers returned, the deck removed from the table"


PROGRESSIVE_MISMATCH = Kind(
    "progressive-count-mismatch",
    "657a.9(a)(3)",
    Outcome.HELD,
    "the supervisor has reconciled the chips with the system's accepted count; the deal proceeds",
    DEALING,
)
#: The system accepted a Progressive Payout Wager at a seat where the dealer keyed none: the round
#: holds no such wager to settle or to pay an award on, so it is not dealt; VOID returns every wager.
PROGRESSIVE_NOT_KEYED = Kind("progressive-not-keyed", "657a.9(a)(3)", Outcome.HELD)
DEAL_OUT_OF_ORDER = Kind("deal-out-of-order", "657a.9(b)", Outcome.HELD)
ILLEGAL_RAISE = Kind(
    "raise-without-aces",
    "published game rules (not PA text)",
    Outcome.HELD,
    "the Play is reduced to 1x the Ante, the excess returned, and the round settles",
    SHOWDOWN,
)
HAND_UNREPORTED = Kind(
    "hand-not-reported",
    "657a.1 (Hand); decision 0023",
    Outcome.HELD,
    "the hands not reported are asked for again; the round settles once each is known",
    SHOWDOWN,
)
DISCARD_COUNT = Kind(
    "discard-count",
    "657a.9(c); house convention (657a.11 not found)",
    Outcome.HELD,
    "the count is acknowledged as recorded and the round completes",
    COMPLETE,
    voidable=False,
)
#: VOID of a round whose deck the shuffler's order shows holding a card twice: the deck goes, as
#: 657a.9(f) removes a deck whose count is wrong when the cards were not misdealt (its reading in
#: docs/conformance.md).
DECK_GOES = "657a.9(f)"
DUPLICATE_CARD = Kind(
    "duplicate-card", "published game rules (not PA text); 657a.9(f)", Outcome.HELD, removes_deck=DECK_GOES
)
MISDEAL = Kind("misdeal", "657a.9(f)", Outcome.VOIDED, voidable=False)
WRONG_DECK = Kind("wrong-card-count", "657a.9(f)", Outcome.DECK_REMOVED, voidable=False)

KINDS = (
    PROGRESSIVE_MISMATCH,
    PROGRESSIVE_NOT_KEYED,
    DEAL_OUT_OF_ORDER,
    HAND_UNREPORTED,
    ILLEGAL_RAISE,
    DISCARD_COUNT,
    DUPLICATE_CARD,
    MISDEAL,
    WRONG_DECK,
)
