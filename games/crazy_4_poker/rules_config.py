"""The configurable rules of Crazy 4 Poker: what § 657a.9 leaves to the house.

The section fixes the procedure for dealing from the hand; the shuffler, the optional wagers and
every pay table come from the certificate holder's Rules Submission: a casino pays by the tables
the Board approved, so no pay table is built in; a table offering a wager opens only with its
table configured, and a bad value is refused with an error that names the key, before a table
opens. example_pay_tables.toml (beside this module) holds example tables for simulations and
tests. The number of positions, odds and the half-cent rounding share the readers of
games/common/config.py.
"""

from __future__ import annotations

import enum
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

from games.common.config import (
    ROUNDING,
    ConfigError,
    Configurable,
    Odds,
    Raw,
    Reader,
    Rounding,
    choice,
    flag,
    integer,
    key,
)
from games.common.poker_hands import Category as FiveCardCategory
from games.crazy_4_poker import clauses
from games.crazy_4_poker.evaluator import Category

__all__ = ["ConfigError", "Odds", "Rounding", "RuleSet", "Shuffler"]

FOUR_ACES = "four_aces"  # a Super Bonus and progressive line above four of a kind
HAND_NAMES = frozenset({FOUR_ACES, *(category.name.lower() for category in Category)})
QUEENS_UP_PAIR = "pair_of_queens"  # Queens Up's lowest line: a pair of queens or better
#: The lines of the five-card tables (Five Card Hand Bonus, Six Card Bonus): five-card poker hands.
FIVE_CARD_NAMES = frozenset(category.key for category in FiveCardCategory)
#: 657a.1 Four-Card Envy Bonus Qualifying Hand: four of a kind (four aces among them) or, if the
#: certificate holder's pay table includes it, a straight flush.
ENVY_HANDS = frozenset({FOUR_ACES, "four_of_a_kind", "straight_flush"})
_AWARD = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*%\s*$")


class Shuffler(enum.StrEnum):
    """The automated shuffler at the table (657a.9(a)(1)); ``counting`` reports 52 cards (d)."""

    NONE = "none"
    COUNTING = "counting"
    NON_COUNTING = "non-counting"


def _odds_table(names: frozenset[str]) -> Callable[[str, Raw], Mapping[str, Odds]]:
    def parse(key: str, raw: Raw) -> Mapping[str, Odds]:
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


def _awards(key: str, raw: Raw) -> Mapping[str, str]:
    """``{four_aces = "100%", four_of_a_kind = 50000}``: a share of the meter, or whole cents."""
    if not isinstance(raw, Mapping):
        raise ConfigError(key, f"expected a table such as {{four_aces = '100%'}}, got {raw!r}")
    table = {}
    for name, award in raw.items():
        if name not in HAND_NAMES:
            raise ConfigError(f"{key}.{name}", f"not a hand; the hands are {', '.join(sorted(HAND_NAMES))}")
        if isinstance(award, int) and not isinstance(award, bool) and award > 0:
            table[name] = f"{award} cents"
        elif isinstance(award, str) and (share := _AWARD.match(award)) and 0 < float(share[1]) <= 100:
            table[name] = award.strip()
        else:
            raise ConfigError(
                f"{key}.{name}", f"expected a share such as '10%' or whole cents, got {award!r}"
            )
    return MappingProxyType(table)


def _amounts(names: frozenset[str]) -> Reader:
    """A table of fixed sums in whole cents by hand (``{four_of_a_kind = 5000}``): the Envy Bonus."""

    def parse(key: str, raw: Raw) -> Mapping[str, int]:
        if not isinstance(raw, Mapping):
            raise ConfigError(key, f"expected a table such as {{four_of_a_kind = 5000}}, got {raw!r}")
        for name, amount in raw.items():
            if name not in names:
                raise ConfigError(
                    f"{key}.{name}", f"not a qualifying hand; those are {', '.join(sorted(names))}"
                )
            if isinstance(amount, bool) or not isinstance(amount, int) or amount < 1:
                raise ConfigError(f"{key}.{name}", f"expected a fixed sum in whole cents, got {amount!r}")
        return MappingProxyType(dict(raw))

    return parse


def _pay_table(wager: str, names: frozenset[str], offered_by: str = "") -> dict[str, object]:
    """A pay-table key: none built in; the table offering ``wager`` needs it configured."""
    return key(
        "the Rules Submission's table (example_pay_tables.toml: an example)",
        _odds_table(names),
        pays=wager,
        offered_by=offered_by,
    )


@dataclass(frozen=True)
class RuleSet(Configurable):
    """One table's Crazy 4 Poker rules. No pay table is built in: ``RuleSet()`` offers no wager until
    its pay tables are configured (``check_pay_tables``); ``RuleSet.example()`` is the shipped
    example (example_pay_tables.toml)."""

    positions: int = field(default=6, metadata=key("house convention: six betting positions", integer))
    shuffler: Shuffler = field(
        default=Shuffler.COUNTING,
        metadata=key("657a.9(a)(1): an automated shuffler; (d): whether it counts", choice(Shuffler)),
    )
    shuffler_reports_order: bool = field(
        default=True,
        metadata=key(
            "657a.9(a)(1): the shuffler reports its shuffled order, sealed, and the hands are reconstructed "
            "from it; false: a shuffler that reports none, and the dealer reports each hand turned up",
            flag,
        ),
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
        default_factory=dict, metadata=_pay_table("Super Bonus Wager", HAND_NAMES)
    )
    queens_up_pay_table: Mapping[str, Odds] = field(
        default_factory=dict, metadata=_pay_table("Queens Up Wager", HAND_NAMES | {QUEENS_UP_PAIR})
    )
    progressive_pay_table: Mapping[str, str] = field(
        default_factory=dict,
        metadata=key(
            "657a.1: the Rules Submission's progressive table",
            _awards,
            pays="Progressive Payout Wager",
            offered_by="progressive_offered",
        ),
    )
    five_card_bonus_pay_table: Mapping[str, Odds] = field(
        default_factory=dict,
        metadata=_pay_table("Five Card Hand Bonus Wager", FIVE_CARD_NAMES, "five_card_bonus_offered"),
    )
    six_card_bonus_pay_table: Mapping[str, Odds] = field(
        default_factory=dict,
        metadata=_pay_table("Six Card Bonus Wager", FIVE_CARD_NAMES, "six_card_bonus_offered"),
    )
    envy_bonus_pay_table: Mapping[str, int] = field(
        default_factory=dict,
        metadata=key(
            "657a.1 Four-Card Envy Bonus: a fixed sum per qualifying hand, in cents; empty: none paid",
            _amounts(ENVY_HANDS),
        ),
    )
    odd_cent_rounding: Rounding = field(default=Rounding.DOWN, metadata=ROUNDING)

    def __post_init__(self) -> None:
        self.read_fields()
        self.check_range("positions", 1, 6, clauses.SIX_POSITIONS)
        self.check_range("max_play_multiple", 1, 3, clauses.PLAY_OR_FOLD)

    @staticmethod
    def shown(name: str, value: Raw) -> str:
        """A default as the configuration documentation shows it."""
        if isinstance(value, Mapping):
            return ", ".join(f"{name} {odds}" for name, odds in value.items()) or "none"
        return str(value)
