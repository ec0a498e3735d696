"""A held round and the kinds of irregularity, as every game's irregularities module declares them.

Where a game's section says what follows an irregularity, the round does it; where it is silent,
the round is *held*: nothing moves until a supervisor rules CONTINUE (what it means is fixed per
kind) or VOID (every wager not yet settled is returned). Used by all four games.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field

from games.common.machine_parts import SETTLED, VOIDED
from games.common.messages import Arrival, Resolution
from vocabulary.cards import Card
from vocabulary.rules import Irregularity, Rule


class Outcome(enum.StrEnum):
    HELD = "held for a supervisor"
    STAYS = "the round stays where it is; the card is still due"


@dataclass(frozen=True)
class Kind:
    """One kind of irregularity, as docs/conformance.md lists it."""

    code: str
    cites: str  # the clause(s) its irregularities cite
    outcome: enum.StrEnum  # Outcome, or the game's own outcomes
    on_continue: str | None = None  # what CONTINUE does; None: CONTINUE is not offered
    resume_to: str | None = None  # the state CONTINUE leads to; None: the state it was held in
    voidable: bool = True
    #: The clause under which a VOID of this kind also removes the deck from the table (a deck shown
    #: not to be one deck); None: VOID returns the wagers and nothing more.
    removes_deck: str | None = None

    @property
    def on_void(self) -> str | None:
        """What VOID does beyond returning the wagers, as the record and docs/conformance.md say it."""
        if self.removes_deck is None:
            return None
        return f"the deck is removed from the table ({self.removes_deck})"

    def __call__(self, rule: Rule, detail: str) -> tuple[Kind, Irregularity]:
        return self, Irregularity(rule, detail)


#: What CONTINUE does for a card that came out where it should not have.
SET_ASIDE = "the card is set aside for the discard rack and the round resumes where it was held"


@dataclass
class Hold:
    """A held round: the irregularity, where it happened, and the cards waiting for the ruling."""

    kind: Kind
    irregularity: Irregularity
    held_in: str
    items: list[Arrival] = field(default_factory=list)
    shown: Card | None = None  # a hole card turned up that did not check

    @property
    def resume_to(self) -> str | None:
        if self.kind.on_continue is None:
            return None
        return self.kind.resume_to or self.held_in

    @property
    def resolutions(self) -> frozenset[Resolution]:
        """VOID returns the unsettled wagers, so it is not offered once the round is settled."""
        voidable = self.kind.voidable and self.held_in not in (SETTLED, VOIDED)
        offered = {Resolution.VOID} if voidable else set()
        if self.kind.on_continue is not None:
            offered.add(Resolution.CONTINUE)
        return frozenset(offered)
