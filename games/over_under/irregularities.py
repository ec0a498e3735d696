"""Irregularities: what can go against the procedure, what the round does, what a supervisor may rule.

Where § 686a.7 says what follows (a cover card: set aside, complete the round, 686a.7(d)) the round
does that. Where the section is silent the round is *held*: nothing moves until a supervisor rules
CONTINUE (what it means is fixed per kind, below) or VOID (every wager not yet settled is returned).
Each irregularity carries the clause it offends. The shape of a kind and of a hold is Free Bet
Blackjack's (``Kind``, ``Hold``, ``Outcome``), shared by every game's held state.
"""

from __future__ import annotations

from games.common.holds import SET_ASIDE, Hold, Kind, Outcome
from games.common.machine_parts import COMPLETE
from games.common.messages import Arrival, describe
from games.over_under import clauses
from games.over_under.positions import Slot
from vocabulary.cards import Card
from vocabulary.rules import Irregularity

__all__ = ["KINDS", "SECTION_SAYS", "Hold", "Kind", "Outcome", "classify_card"]


#: What the section itself resolves, for docs/conformance.md (games.conformance).
SECTION_SAYS = (
    "Where § 686a.7 says what follows, the round does it: a cover card is set aside "
    "and the round completed (686a.7(d))."
)


CARD_BEFORE_BURN = Kind("card-before-burn", "686a.7(c)", Outcome.HELD, SET_ASIDE)
COVER_OUT_OF_PLACE = Kind("cover-card-out-of-place", "686a.7(d)", Outcome.HELD, SET_ASIDE)
EXTRA_CARD = Kind("extra-card", "the clause of the state: (e), (f), (j), (n)", Outcome.HELD, SET_ASIDE)
FACE_DOWN_CARD = Kind(
    "face-down-card",
    "the clause of the card due: (e), (i)",
    Outcome.HELD,
    SET_ASIDE + "; the card is still due",
)
JOKER = Kind("joker", "603a.15", Outcome.HELD, SET_ASIDE + "; the card is still due")
DISCARD_COUNT = Kind(
    "discard-count",
    "686a.7(n); 686a.7(o)",
    Outcome.HELD,
    "the count is acknowledged as recorded (the shoe's card count follows it up) and the round completes",
    COMPLETE,
    voidable=False,
)

KINDS = (CARD_BEFORE_BURN, COVER_OUT_OF_PLACE, EXTRA_CARD, FACE_DOWN_CARD, JOKER, DISCARD_COUNT)


def classify_card(item: Arrival, slot: Slot) -> tuple[Kind, Irregularity] | None:
    """What is wrong with ``item`` arriving where ``slot`` is due, or None (the shoe's own order,
    cover card and burn, is checked first by games.common.shoe_steps)."""
    if not isinstance(item, Card):
        return FACE_DOWN_CARD(slot.rule, f"{describe(item)} was dealt where {slot} is due")
    if item.is_joker:
        return JOKER(clauses.NO_JOKERS, f"{item} came out of the shoe where {slot} is due")
    return None
