"""Irregularities: what can go against the procedure, what the round does, what a supervisor may rule.

Where § 672a.7 says what follows (a cover card: set aside, complete the round, 672a.7(d); a card
still due: it is still due) the round does that. Where the section is silent, the round is *held*:
nothing moves until a supervisor rules CONTINUE (what it means is fixed per kind, below) or VOID
(every wager not yet settled is returned). Each irregularity carries the clause it offends.
"""

from __future__ import annotations

from games.common.holds import SET_ASIDE, Kind, Outcome
from games.common.machine_parts import COMPLETE
from games.common.messages import Arrival, describe
from games.free_bet_blackjack import clauses
from games.free_bet_blackjack.layout import Slot
from games.free_bet_blackjack.machine import DEALER_TURN
from vocabulary.cards import Card
from vocabulary.rules import Irregularity

#: What the section itself resolves, for docs/conformance.md (games.conformance).
SECTION_SAYS = (
    "Where § 672a.7 says what follows, the round does it: a cover card is set aside "
    "and the round completed (672a.7(d)); a step taken while a card is still due "
    "leaves the card due."
)


CARD_BEFORE_BURN = Kind("card-before-burn", "672a.7(c)", Outcome.HELD, SET_ASIDE)
COVER_OUT_OF_PLACE = Kind("cover-card-out-of-place", "672a.7(d)", Outcome.HELD, SET_ASIDE)
EXTRA_CARD = Kind(
    "extra-card", "the clause of the state: (e), (f), (g), (i), (l), (m), (s)", Outcome.HELD, SET_ASIDE
)
HOLE_CARD_EXPOSED = Kind(
    "hole-card-exposed", "672a.7(e)(4)", Outcome.HELD, SET_ASIDE + "; the hole card is still due"
)
FACE_DOWN_OUT_OF_PLACE = Kind(
    "face-down-card-out-of-place", "the clause of the card due: (e)(1)-(3), (i), (l)", Outcome.HELD, SET_ASIDE
)
JOKER = Kind("joker", "603a.15", Outcome.HELD, SET_ASIDE)
MISSING_CARD = Kind("missing-card", "the clause of the card due: (e)(1)-(4), (i), (l)", Outcome.STAYS)
HOLE_CARD_MISMATCH = Kind(
    "hole-card-mismatch",
    "672a.7(k); 672a.7(t)",
    Outcome.HELD,
    "the card shown is accepted as the hole card and the dealer's turn follows",
    DEALER_TURN,
)
PEEK_MISSED_BLACKJACK = Kind(
    "peek-missed-blackjack",
    "672a.7(g)",
    Outcome.HELD,
    "the card shown is accepted; the players have acted, so the round settles by (n)-(q)",
    DEALER_TURN,
)
PEEK_FALSE_BLACKJACK = Kind("peek-false-blackjack", "672a.7(g)", Outcome.HELD)
DISCARD_COUNT = Kind(
    "discard-count",
    "672a.7(s); 672a.7(t)",
    Outcome.HELD,
    "the count is acknowledged as recorded (the shoe's card count follows it up) and the round completes",
    COMPLETE,
    voidable=False,
)

KINDS = (
    CARD_BEFORE_BURN,
    COVER_OUT_OF_PLACE,
    EXTRA_CARD,
    HOLE_CARD_EXPOSED,
    FACE_DOWN_OUT_OF_PLACE,
    JOKER,
    MISSING_CARD,
    HOLE_CARD_MISMATCH,
    PEEK_MISSED_BLACKJACK,
    PEEK_FALSE_BLACKJACK,
    DISCARD_COUNT,
)


def classify_card(item: Arrival, slot: Slot) -> tuple[Kind, Irregularity] | None:
    """What is wrong with ``item`` arriving where ``slot`` is due, or None (the shoe's own order,
    cover card and burn, is checked first by games.common.shoe_steps)."""
    if isinstance(item, Card):
        if item.is_joker:
            return JOKER(clauses.NO_JOKERS, f"{item} came out of the shoe where {slot} is due")
        if not slot.face_up:
            return HOLE_CARD_EXPOSED(
                slot.rule, f"{item} was dealt face up where {slot} is due: the hole card is exposed"
            )
        return None
    if slot.face_up:
        return FACE_DOWN_OUT_OF_PLACE(slot.rule, f"{describe(item)} was dealt where {slot} is due")
    return None


#: The dealer's steps forward, and the clause each comes under.
STEPS = {
    "close_insurance": clauses.INSURANCE_ON_ACE,
    "peek_answer": clauses.PEEK,
    "reveal_hole": clauses.HOLE_AFTER_DECISIONS,
    "settle": clauses.SETTLE_AFTER_DRAW,
}


def missing_card(slot: Slot, step: str) -> tuple[Kind, Irregularity]:
    """The dealer took ``step`` while ``slot`` is still due: the card is missing, not the step."""
    return MISSING_CARD(slot.rule, f"{step} ({STEPS[step].clause}) was asked while {slot} is still due")
