"""The configurable rules of Crazy 4 Poker: what § 657a.9 leaves to the house.

The section fixes the procedure for dealing from the hand; the shuffler, the optional wagers and
every pay table come from sections not found (published game rules, not PA text) or from the
certificate holder's Rules Submission. Each is a key with the published default, and a bad value is
refused with an error that names the key, before a table opens. The number of positions, odds and
the half-cent rounding share the readers of games/common/config.py.
"""

from __future__ import annotations

import enum
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from games.common.config import (
    ROUNDING,
    ConfigError,
    Configurable,
    Odds,
    Rounding,
    choice,
    flag,
    integer,
    key,
)
from games.crazy_4_poker import clauses
from games.crazy_4_poker.evaluator import Category

__all__ = ["ConfigError", "Odds", "Rounding", "RuleSet", "Shuffler"]

FOUR_ACES = "four_aces"  # a Super Bonus and progressive line above four of a kind
HAND_NAMES = frozenset({FOUR_ACES, *(category.name.lower() for category in Category)})
QUEENS_UP_PAIR = "pair_of_queens"  # Queens Up's lowest line: a pair of queens or better
_AWARD = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*%\s*$")


class Shuffler(enum.StrEnum):
    """The automated shuffler at the table (657a.9(a)(1)); ``counting`` reports 52 cards (d)."""

    NONE = "none"
    COUNTING = "counting"
    NON_COUNTING = "non-counting"


def _odds_table(names: frozenset[str]):
    def parse(key: str, raw: Any) -> Mapping[str, Odds]:
        if not isinstance(raw, Mapping):
            raise ConfigError(key, f"expected a table such as {{flush = '3:2'}}, got {raw!r}")
        table = {}
        for name, text in raw.items():
            if name not in names:
                raise ConfigError(f"{key}.{name}", f"not a hand; the hands are {', '.join(sorted(names))}")
            try:
                table[name] = text if isinstance(text, Odds) else Odds.parse(text)
            except ValueError as exc:
                raise ConfigError(f"{key}.{name}", str(exc)) from None
        return MappingProxyType(table)

    return parse


def _awards(key: str, raw: Any) -> Mapping[str, str]:
    """``{four_aces = "100%", four_of_a_kind = 50000}``: a share of the meter, or whole cents."""
    if not isinstance(raw, Mapping):
        raise ConfigError(key, f"expected a table such as {{four_aces = '100%'}}, got {raw!r}")
    table = {}
    for name, award in raw.items():
        if name not in HAND_NAMES:
            raise ConfigError(f"{key}.{name}", f"not a hand; the hands are {', '.join(sorted(HAND_NAMES))}")
        if isinstance(award, int) and not isinstance(award, bool) and award > 0:
            table[name] = f"{award} cents"
        elif isinstance(award, str) and _AWARD.match(award) and 0 < float(_AWARD.match(award)[1]) <= 100:
            table[name] = award.strip()
        else:
            raise ConfigError(
                f"{key}.{name}", f"expected a share such as '10%' or whole cents, got {award!r}"
            )
    return MappingProxyType(table)


SUPER_BONUS_DEFAULT = {
    FOUR_ACES: "200:1",
    "four_of_a_kind": "30:1",
    "straight_flush": "15:1",
    "three_of_a_kind": "2:1",
    "flush": "3:2",
    "straight": "1:1",
}
QUEENS_UP_DEFAULT = {
    "four_of_a_kind": "50:1",
    "straight_flush": "40:1",
    "three_of_a_kind": "8:1",
    "flush": "4:1",
    "straight": "3:1",
    "two_pairs": "2:1",
    QUEENS_UP_PAIR: "1:1",
}


@dataclass(frozen=True)
class RuleSet(Configurable):
    """One table's Crazy 4 Poker rules; ``RuleSet()`` is the published game with a counting shuffler."""

    positions: int = field(default=6, metadata=key("house convention: six betting positions", integer))
    shuffler: Shuffler = field(
        default=Shuffler.COUNTING,
        metadata=key("657a.9(a)(1): an automated shuffler; (d): whether it counts", choice(Shuffler)),
    )
    progressive_offered: bool = field(
        default=False, metadata=key("657a.1: optional, off unless configured", flag)
    )
    five_card_bonus_offered: bool = field(
        default=False, metadata=key("657a.1: optional, off unless configured", flag)
    )
    six_card_bonus_offered: bool = field(
        default=False, metadata=key("657a.1: optional, off unless configured", flag)
    )
    max_play_multiple: int = field(
        default=3, metadata=key("published game rules: Play up to 3x the Ante with aces or better", integer)
    )
    super_bonus_pay_table: Mapping[str, Odds] = field(
        default_factory=lambda: SUPER_BONUS_DEFAULT,
        metadata=key("published game rules: Super Bonus table", _odds_table(HAND_NAMES)),
    )
    queens_up_pay_table: Mapping[str, Odds] = field(
        default_factory=lambda: QUEENS_UP_DEFAULT,
        metadata=key("published game rules: Queens Up table", _odds_table(HAND_NAMES | {QUEENS_UP_PAIR})),
    )
    progressive_pay_table: Mapping[str, str] = field(
        default_factory=dict,
        metadata=key("657a.1: PA table not found; configuration", _awards),
    )
    odd_cent_rounding: Rounding = field(default=Rounding.DOWN, metadata=ROUNDING)

    def __post_init__(self) -> None:
        self.read_fields()
        self.check_range("positions", 1, 6, clauses.SIX_POSITIONS)
        self.check_range("max_play_multiple", 1, 3, clauses.PLAY_OR_FOLD)
        if self.progressive_offered and not self.progressive_pay_table:
            raise ConfigError("progressive_pay_table", "a progressive table needs its pay table")

    @staticmethod
    def shown(name: str, value: Any) -> str:
        """A default as the configuration documentation shows it."""
        if isinstance(value, Mapping):
            return ", ".join(f"{name} {odds}" for name, odds in value.items()) or "none"
        return str(value)
