"""What settlement does with one wager, in every game: collect it, pay it, or push it back.

Each game's settlement Action names one of these; the shared name keeps the records of all four
games (``movement`` in a SETTLEMENT entry) in the same words.
"""

from __future__ import annotations

import enum


class Movement(enum.StrEnum):
    COLLECT = "collect"
    PAY = "pay"
    PUSH = "push"  # returned to the player
