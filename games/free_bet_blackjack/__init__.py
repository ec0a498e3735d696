"""Free Bet Blackjack, 58 Pa. Code § 672a.7: the round procedure, its rules and its record.

``Round`` is the entry point (round.py); docs/games/free-bet-blackjack.md explains how a table
service drives it.
"""

from games.common.config import ConfigError
from games.free_bet_blackjack import playing
from games.free_bet_blackjack.clauses import CLAUSES, GAME_ID
from games.free_bet_blackjack.inputs import PlaceWager
from games.free_bet_blackjack.machine import STATE_NOTES
from games.free_bet_blackjack.machine import definition as machine_definition
from games.free_bet_blackjack.round import Round
from games.free_bet_blackjack.round_state import Verify
from games.free_bet_blackjack.rules_config import RuleSet
from games.registry import Game
from vocabulary.rules import Rule

TITLE = "Free Bet Blackjack (58 Pa. Code § 672a.7)"

#: The game, as the registry (games.registry), the table service and the simulator find it.
GAME = Game(
    slug=GAME_ID,
    name="Free Bet Blackjack",
    title=TITLE,
    package=__name__,
    position=1,
    round=Round,
    rules=RuleSet,
    wager=PlaceWager,
    devices={
        "shoe": Rule("633a.3(b) (analog)", "the batches are dealt from a shoe to the cover card"),
        "shuffler": Rule("633a.3(b) (analog)", "one batch is shuffled while the other is in play"),
        "card-reader": Rule("673a.2(d) (analog)", "a card reader device for the hole-card peek"),
    },
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
    "Verify",
    "machine_definition",
]
