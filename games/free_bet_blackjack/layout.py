"""Betting positions, the order of the deal and the order of settlement.

Positions are numbered 1 to 6 (at most six, 672a.2), position 1 being the player
farthest to the dealer's left ("first base"). The deal and the players' turns run clockwise from
there, so in ascending order (672a.7(e), (h)); settlement runs from the player farthest to the
dealer's right, counterclockwise, so in descending order (672a.7(r)).
"""

from __future__ import annotations

import functools
from collections.abc import Iterable
from dataclasses import dataclass

from games.common.seating import clockwise
from games.free_bet_blackjack import clauses
from vocabulary.rules import Rule, RuleViolation


@dataclass(frozen=True)
class Slot:
    """Where the next card goes and how (672a.7(b): the dealer places it on that area), and the
    clause that calls for it, cited if the card arrives otherwise."""

    seat: int | None  # None: the dealer
    hand: int | None
    face_up: bool
    rule: Rule

    @functools.cached_property
    def place(self) -> str:
        """Written once per slot: each card's record and its pick-up read it (decision 0042)."""
        return "dealer" if self.seat is None else f"seat {self.seat} hand {self.hand}"

    @property
    def instruction(self) -> str:
        """What the dealer's screen shows for the next card out of the shoe."""
        return f"place the next card face {'up' if self.face_up else 'down'} on the {self.place} " + (
            f"({clauses.CARD_PLACEMENT.clause}, {self.rule.clause})"
        )

    def __str__(self) -> str:
        return f"a card face {'up' if self.face_up else 'down'} to the {self.place}"


def check_seat(seat: int, positions: int) -> None:
    if not 1 <= seat <= positions:
        raise RuleViolation(
            clauses.SIX_POSITIONS, f"seat {seat} is not a betting position (this table has 1 to {positions})"
        )


def deal_sequence(seats: Iterable[int]) -> tuple[Slot, ...]:
    """The initial deal of 672a.7(e)(1)-(4) over the positions holding a Blackjack Wager."""
    order = clockwise(seats)
    return (
        *(Slot(seat, 0, True, clauses.DEAL_FIRST_CARDS) for seat in order),
        Slot(None, None, True, clauses.DEAL_DEALER_UP),
        *(Slot(seat, 0, True, clauses.DEAL_SECOND_CARDS) for seat in order),
        Slot(None, None, False, clauses.DEAL_HOLE_CARD),
    )
