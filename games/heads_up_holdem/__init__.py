"""The 677a Hold 'Em game (Heads Up Hold 'Em), 58 Pa. Code § 677a.10: dealing from an automated
dealing shoe, the community cards, the stub count and the misdeal rule, with the betting rounds and
pay tables of the published Heads Up Hold 'Em rules (not PA text) as configuration.

``Table`` (table_state.py) keeps the stub count's cadence and makes each ``Round`` (round.py);
docs/games/heads-up-holdem.md explains how a table service drives them.
"""

from games.common.config import ConfigError
from games.heads_up_holdem import playing
from games.heads_up_holdem.clauses import CLAUSES, GAME_ID
from games.heads_up_holdem.inputs import PlaceWager
from games.heads_up_holdem.machine import STATE_NOTES
from games.heads_up_holdem.machine import definition as machine_definition
from games.heads_up_holdem.round import Round
from games.heads_up_holdem.rules_config import RuleSet
from games.heads_up_holdem.table_state import Table
from games.registry import Game
from vocabulary.rules import Rule

TITLE = "Heads Up Hold 'Em (58 Pa. Code § 677a.10)"

#: The game, as the registry (games.registry), the table service and the simulator find it.
GAME = Game(
    slug=GAME_ID,
    name="Heads Up Hold 'Em",
    title=TITLE,
    package=__name__,
    position=3,
    round=Round,
    rules=RuleSet,
    wager=PlaceWager,
    devices={
        "shoe": Rule("677a.10(a)", "the cards are dealt from an automated dealing shoe"),
        "shuffler": Rule("677a.10(a)(1)", "the cards go into the shoe after the shuffle"),
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
    "Table",
    "machine_definition",
]
