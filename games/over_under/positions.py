"""Betting positions and where the next card goes.

Positions are numbered from 1, position 1 being the player farthest to the dealer's left: the deal
(686a.7(e)), the decisions (f) and the settlement of each player in turn (j) all run clockwise from
there, in ascending order (games.common.seating's ``clockwise``).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from games.common.seating import clockwise
from games.over_under import clauses
from games.over_under.inputs import Choice
from games.over_under.points import HAND_SIZE, total
from vocabulary.cards import Card
from vocabulary.rules import Rule, RuleViolation

__all__ = ["Position", "Slot", "check_seat", "clockwise"]


@dataclass(frozen=True)
class Slot:
    """Where the next card goes (686a.7(b): the dealer places it on that area), always face up in
    this game, and the clause that calls for it, cited if the card arrives otherwise."""

    seat: int
    rule: Rule
    face_up: bool = True

    @property
    def place(self) -> str:
        return f"seat {self.seat}"

    @property
    def instruction(self) -> str:
        """What the dealer's screen shows for the next card out of the shoe."""
        cited = f"{clauses.CARD_PLACEMENT.clause}, {self.rule.clause}"
        return f"place the next card face up on the {self.place} ({cited})"

    def __str__(self) -> str:
        return f"a card face up to {self.place}"


@dataclass(eq=False)
class Position:
    """One player's wagers, election and Hand (the three cards dealt to the player, 686a.1)."""

    seat: int
    ante: int  # cents
    bonus: int = 0
    choice: Choice | None = None
    stake: int = 0  # the Over 23 or Under 18 Wager, equal to the Ante (686a.7(g)(1)-(2))
    cards: list[Card] = field(default_factory=list)
    settled: bool = False  # (j): every wager of the position settled
    cleared: bool = False  # (j): its cards are in the discard rack

    @property
    def total(self) -> int:
        return total(self.cards)

    @property
    def complete(self) -> bool:
        return len(self.cards) == HAND_SIZE

    @property
    def label(self) -> str:
        return f"seat {self.seat}"


def check_seat(seat: int, positions: int) -> None:
    if not 1 <= seat <= positions:
        raise RuleViolation(
            clauses.POSITIONS, f"seat {seat} is not a betting position (this table has 1 to {positions})"
        )
