"""The 677a Hold 'Em game (Heads Up Hold 'Em), 58 Pa. Code § 677a.10: dealing from an automated
dealing shoe, the community cards, the stub count and the misdeal rule, with the betting rounds and
pay tables of the published Heads Up Hold 'Em rules (not PA text) as configuration.

``Round`` is the entry point (round.py); docs/games/heads-up-holdem.md explains how a table service
drives it.
"""

from games.common.config import ConfigError
from games.heads_up_holdem.clauses import CLAUSES, GAME_ID
from games.heads_up_holdem.machine import STATE_NOTES
from games.heads_up_holdem.machine import definition as machine_definition
from games.heads_up_holdem.round import Round
from games.heads_up_holdem.rules_config import RuleSet

TITLE = "Heads Up Hold 'Em (58 Pa. Code § 677a.10)"

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
