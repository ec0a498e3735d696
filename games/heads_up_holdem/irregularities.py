"""Irregularities: what can go against the dealing procedure, and what follows.

Where § 677a.10 says what follows, the round does it: a wrong stub count leads to the misdeal
determination of 677a.10(f). Where the section is silent the round is *held*: nothing moves until a
supervisor rules CONTINUE (the card is set aside and the round resumes where it was) or VOID (every
wager returned). Exposed, mis-sized or altered cards offer VOID only: the hands they touch can no
longer be dealt as the section lays down. ``Kind`` and ``Hold`` are games.common.holds'.
"""

from __future__ import annotations

import enum

from games.common.holds import Hold, Kind
from games.common.machine_parts import COMPLETE
from games.common.messages import Arrival, describe
from games.heads_up_holdem import clauses
from games.heads_up_holdem.positions import Due
from vocabulary.cards import Card
from vocabulary.rules import Irregularity, Rule

__all__ = ["KINDS", "SECTION_SAYS", "Hold", "Kind", "Outcome", "classify"]


#: What the section itself resolves, for docs/conformance.md (games.conformance).
SECTION_SAYS = (
    "Where § 677a.10 says what follows, the round does it: a wrong stub count leads "
    "to the dealer's misdeal determination (677a.10(f))."
)


class Outcome(enum.StrEnum):
    HELD = "held for a supervisor"
    MISDEAL = "the dealer determines whether the cards were misdealt (677a.10(f)); the round is void"


SET_ASIDE = "the cards are set aside for the discard rack and the round resumes where it was held"
STACK_BEFORE_NO_MORE_BETS = Kind("stack-before-no-more-bets", "677a.10(a)(2)", Outcome.HELD, SET_ASIDE)
EXTRA_CARDS = Kind("extra-cards", "677a.10(b); 677a.10(c)", Outcome.HELD, SET_ASIDE)
WRONG_STACK = Kind("wrong-stack", "677a.10(b); 677a.10(g)", Outcome.HELD)
CARD_EXPOSED = Kind("card-exposed", "677a.10(b); 677a.10(c)", Outcome.HELD)
#: VOID of a round dealt from a deck shown not to be one 52-card deck: the deck goes, as 677a.10(f)
#: removes a deck whose count is wrong when the cards were not misdealt (its reading in
#: docs/conformance.md).
DECK_GOES = "677a.10(f)"
JOKER = Kind("joker", "603a.15; 677a.10(f)", Outcome.HELD, removes_deck=DECK_GOES)
WRONG_COUNT = Kind("wrong-count", "677a.10(f)", Outcome.MISDEAL, voidable=False)
REVEAL_MISMATCH = Kind("reveal-mismatch", "published game rules (not PA text)", Outcome.HELD)
DUPLICATE_CARD = Kind(
    "duplicate-card", "published game rules (not PA text); 677a.10(f)", Outcome.HELD, removes_deck=DECK_GOES
)
COLLECT_COUNT = Kind(
    "collect-count",
    "house convention",
    Outcome.HELD,
    "the count is acknowledged as recorded and the round completes",
    COMPLETE,
    voidable=False,
)

KINDS = (
    STACK_BEFORE_NO_MORE_BETS,
    EXTRA_CARDS,
    WRONG_STACK,
    CARD_EXPOSED,
    JOKER,
    WRONG_COUNT,
    REVEAL_MISMATCH,
    DUPLICATE_CARD,
    COLLECT_COUNT,
)


def classify(
    items: tuple[Arrival, ...], due: Due | None, *, early: bool, nothing_due: Rule
) -> tuple[Kind, Irregularity] | None:
    """What is wrong with ``items`` arriving now as one delivery, or None. ``due`` is the delivery
    due (None: none); ``early``: "no more bets" has not been announced yet."""
    shown = ", ".join(describe(item) for item in items)
    if early:
        return STACK_BEFORE_NO_MORE_BETS(clauses.NO_MORE_BETS, f"{shown} delivered before 'no more bets'")
    if due is None:
        return EXTRA_CARDS(nothing_due, f"{shown} delivered while no card is due")
    faces = [item for item in items if isinstance(item, Card)]
    if any(face.is_joker for face in faces):
        return JOKER(clauses.NO_JOKERS, f"a joker among {shown}")
    if faces:
        rule = clauses.COMMUNITY_FACE_DOWN if due.place == "community" else clauses.STACK_OF_TWO
        return CARD_EXPOSED(rule, f"{', '.join(map(str, faces))} came out face up where {due} is due")
    if len(items) != due.count:
        rule = clauses.STACK_OF_TWO if due.count == 2 else due.rule
        return WRONG_STACK(rule, f"{len(items)} card(s) delivered where {due} is due")
    return None
