"""Over/Under, 58 Pa. Code § 686a.7: the round procedure, its rules and its record.

``Round`` is the entry point (round.py); docs/games/over-under.md explains how a table service
drives it.
"""

from games.common.config import ConfigError
from games.over_under import clauses, playing
from games.over_under.clauses import CLAUSES, GAME_ID
from games.over_under.inputs import PlaceWager
from games.over_under.machine import STATE_NOTES
from games.over_under.machine import definition as machine_definition
from games.over_under.round import Round
from games.over_under.rules_config import RuleSet
from games.registry import Game

TITLE = "Over/Under (58 Pa. Code § 686a.7)"

#: The game, as the registry (games.registry), the table service and the simulator find it.
GAME = Game(
    slug=GAME_ID,
    name="Over/Under",
    title=TITLE,
    package=__name__,
    position=2,
    round=Round,
    rules=RuleSet,
    wager=PlaceWager,
    devices={"shoe": clauses.SHOE_LOADED, "shuffler": clauses.RESHUFFLE_AFTER_COVER},
    staked=playing.staked,
)

__all__ = [
    "CLAUSES",
    "GAME",
    "GAME_ID",
    "STATE_NOTES",
    "TITLE",
    "ConfigError",
    "Round",
    "RuleSet",
    "machine_definition",
]
