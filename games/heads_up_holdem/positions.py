"""A betting position in a round: its wagers, its stack of two and the player's decisions.

Positions are numbered from 1, the player farthest to the dealer's left; the stacks and the
decisions go clockwise from there (677a.10(b)), so in ascending order
(games.common.seating.clockwise); settlement runs counterclockwise.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from games.heads_up_holdem.inputs import Arrival
from games.heads_up_holdem.settlement import Stakes
from vocabulary.cards import Card
from vocabulary.rules import Rule


@dataclass(frozen=True)
class Due:
    """The delivery due next: where, how many cards, and the clause that calls for it."""

    place: str  # "seat 3", "dealer", "community"
    count: int
    rule: Rule
    source: str = "shoe"  # "shoe": dispensed by the automated dealing shoe; "hand": from the dealer's hand

    def __str__(self) -> str:
        return f"{self.count} card(s) face down to the {self.place}"


@dataclass(eq=False)
class Position:
    stakes: Stakes
    stack: tuple[Arrival, ...] = ()
    faces: tuple[Card, ...] = ()  # the stack turned up at the showdown
    folded: bool = False
    decided: set[str] = field(default_factory=set)  # the streets on which the player decided

    @property
    def seat(self) -> int:
        return self.stakes.seat

    @property
    def live(self) -> bool:
        return not self.folded

    @property
    def played(self) -> bool:
        return self.stakes.play > 0
