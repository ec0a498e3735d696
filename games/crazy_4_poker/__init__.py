"""Crazy 4 Poker dealt from the hand, 58 Pa. Code § 657a.9: the round procedure, its rules and its record.

``Table`` (table_state.py) opens the table and makes each ``Round`` (round.py); docs/games/crazy-4-poker.md
explains how a table service drives them.
"""

from games.common.config import ConfigError
from games.crazy_4_poker import playing
from games.crazy_4_poker.clauses import CLAUSES, GAME_ID
from games.crazy_4_poker.inputs import PlaceWagers
from games.crazy_4_poker.machine import STATE_NOTES
from games.crazy_4_poker.machine import definition as machine_definition
from games.crazy_4_poker.round import Round
from games.crazy_4_poker.round_state import VerifyOrder
from games.crazy_4_poker.rules_config import RuleSet, Shuffler
from games.crazy_4_poker.table_state import Table
from games.registry import Game
from vocabulary.rules import Rule

TITLE = "Crazy 4 Poker dealt from the hand (58 Pa. Code § 657a.9)"

#: The game, as the registry (games.registry), the table service and the simulator find it.
GAME = Game(
    slug=GAME_ID,
    name="Crazy 4 Poker",
    title=TITLE,
    package=__name__,
    position=4,
    round=Round,
    rules=RuleSet,
    wager=PlaceWagers,
    devices={
        "shuffler": Rule("657a.9(a)(1)", "an automated shuffling device shall be used"),
        "progressive": Rule("657a.9(a)(3)", "the progressive system locks out before dealing"),
        "meter-sign": Rule("605a.7(a)", "a progressive meter visible from the front of the table"),
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
    "Shuffler",
    "Table",
    "VerifyOrder",
    "machine_definition",
]
