"""What settlement does with one wager, in every game: collect it, pay it, or push it back.

Each game's settlement Action names one of these; the shared name keeps the records of all four
games (``movement`` in a SETTLEMENT entry) in the same words.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from games.common.records import Value
from vocabulary.rules import Rule


class Movement(enum.StrEnum):
    COLLECT = "collect"
    PAY = "pay"
    PUSH = "push"  # returned to the player


@dataclass(frozen=True)
class Action:
    """One collect, pay or push of one wager, with the rule that decides it. Each game's settlement
    Action extends it with its own wager kinds (and any detail its records carry)."""

    seat: int
    wager: enum.StrEnum
    movement: enum.StrEnum  # a Movement, or a game's own that adds to it
    amount: int
    rule: Rule

    def details(self) -> dict[str, Value]:
        """What a game's settlement record carries beyond the movement (a pay-table line, its odds):
        none unless the game's Action says."""
        return {}

    @property
    def net(self) -> int:
        """What the player gains (+) or loses (-), in cents (compared by value, so that a game's own
        movements with the same names count alike)."""
        if self.movement == Movement.PAY:
            return self.amount
        if self.movement == Movement.COLLECT:
            return -self.amount
        return 0
