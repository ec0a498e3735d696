"""Over/Under, 58 Pa. Code § 686a.7: the round procedure, its rules and its record.

``Round`` is the entry point (round.py); docs/games/over-under.md explains how a table service
drives it.
"""

from games.common.config import ConfigError
from games.over_under.clauses import CLAUSES, GAME_ID
from games.over_under.machine import STATE_NOTES
from games.over_under.machine import definition as machine_definition
from games.over_under.round import Round
from games.over_under.rules_config import RuleSet

TITLE = "Over/Under (58 Pa. Code § 686a.7)"

__all__ = [
    "CLAUSES",
    "GAME_ID",
    "STATE_NOTES",
    "TITLE",
    "ConfigError",
    "Round",
    "RuleSet",
    "machine_definition",
]
