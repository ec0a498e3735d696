"""Who acts at a table: an employee and the role the table service authenticated them in.

A dealer deals and keys what the players do; a supervisor (floorperson) also clears latched faults
and rules on held rounds. Every layer that records or refuses an action names its operator, so the
role lives on the bottom floor with the cards and the rules.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from vocabulary.rules import Rule

SUPERVISOR_CLEARS = Rule(
    "decision 0017",
    "a latched fault or count mismatch is cleared only by a supervisor; there is no dealer override",
)

class Role(enum.Enum):
    DEALER = "dealer"
    SUPERVISOR = "supervisor"


@dataclass(frozen=True)
class Operator:
    """Who acts: an employee id and the role the table service authenticated."""

    ident: str
    role: Role
