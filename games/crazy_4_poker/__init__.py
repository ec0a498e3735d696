"""Crazy 4 Poker dealt from the hand, 58 Pa. Code § 657a.9: the round procedure, its rules and its record.

``Table`` (table_state.py) opens the table and makes each ``Round`` (round.py); docs/games/crazy-4-poker.md
explains how a table service drives them.
"""

from games.common.config import ConfigError
from games.crazy_4_poker.clauses import CLAUSES, GAME_ID
from games.crazy_4_poker.machine import STATE_NOTES
from games.crazy_4_poker.machine import definition as machine_definition
from games.crazy_4_poker.round import Round
from games.crazy_4_poker.round_state import VerifyOrder
from games.crazy_4_poker.rules_config import RuleSet, Shuffler
from games.crazy_4_poker.table_state import Table

TITLE = "Crazy 4 Poker dealt from the hand (58 Pa. Code § 657a.9)"

__all__ = [
    "CLAUSES",
    "GAME_ID",
    "STATE_NOTES",
    "TITLE",
    "ConfigError",
    "Round",
    "RuleSet",
    "Shuffler",
    "Table",
    "VerifyOrder",
    "machine_definition",
]
