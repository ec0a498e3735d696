"""Free Bet Blackjack, 58 Pa. Code § 672a.7: the round procedure, its rules and its record.

``Round`` is the entry point (round.py); docs/games/free-bet-blackjack.md explains how a table
service drives it.
"""

from games.common.config import ConfigError
from games.free_bet_blackjack.clauses import CLAUSES, GAME_ID
from games.free_bet_blackjack.machine import STATE_NOTES
from games.free_bet_blackjack.machine import definition as machine_definition
from games.free_bet_blackjack.round import Round
from games.free_bet_blackjack.round_state import Verify
from games.free_bet_blackjack.rules_config import RuleSet

TITLE = "Free Bet Blackjack (58 Pa. Code § 672a.7)"

__all__ = [
    "CLAUSES",
    "GAME_ID",
    "STATE_NOTES",
    "TITLE",
    "ConfigError",
    "Round",
    "RuleSet",
    "Verify",
    "machine_definition",
]
