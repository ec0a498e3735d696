"""The configurable rules of Over/Under: what the seed section leaves to the house.

§ 686a.7 fixes the procedure and which totals win; the payout odds of § 686a.8, the Bonus pay table,
the number of decks and of betting positions were not found (NOTES.md §2). Each is a key with the
NOTES.md default, and a bad value is refused with an error naming the key before a round starts.
The odds, the rounding and the key helpers are Free Bet Blackjack's (one reading of configuration
for every game). The Bonus pay table has no default: a Bonus Wager is taken only against a posted
table, so until one is configured the round refuses Bonus Wagers.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from types import MappingProxyType
from typing import Any

from games.free_bet_blackjack.rules_config import (
    ConfigError,
    Odds,
    Rounding,
    _choice,
    _integer,
    _key,
)
from games.over_under import clauses
from games.over_under.points import HIGHEST, LOWEST

#: 686a.7(m): the totals on which a Bonus Wager wins; it loses on every other total.
BONUS_WINNING_TOTALS = frozenset([*range(6, 13), *range(27, 34)])

BonusPayTable = Mapping[int, Odds]

__all__ = ["BONUS_WINNING_TOTALS", "BonusPayTable", "ConfigError", "Odds", "Rounding", "RuleSet"]


def _odds(key: str, raw: Any) -> Odds:
    """``"1:1"`` or ``"3 to 2"`` (an Odds given directly is taken as it is)."""
    if isinstance(raw, Odds):
        return raw
    try:
        return Odds.parse(raw)
    except ValueError as exc:
        raise ConfigError(key, str(exc)) from None


def _bonus_table(key: str, raw: Any) -> BonusPayTable | None:
    """``{"6" = "100:1", ..., "33" = "100:1"}``: odds for exactly the winning totals of 686a.7(m)
    (TOML keys are text, so "6" and 6 both name the total 6)."""
    if raw is None:
        return None
    if not isinstance(raw, Mapping):
        raise ConfigError(key, f"expected a table of total = odds, got {raw!r}")
    table = {}
    for name, odds in raw.items():
        try:
            points = int(name)
        except (TypeError, ValueError):
            raise ConfigError(key, f"{name!r} is not a total ({LOWEST} to {HIGHEST})") from None
        if points in table:
            raise ConfigError(key, f"the total {points} is given twice")
        table[points] = _odds(f"{key}.{points}", odds)
    wrong = sorted(set(table) - BONUS_WINNING_TOTALS)
    missing = sorted(BONUS_WINNING_TOTALS - set(table))
    if wrong or missing:
        raise ConfigError(
            key,
            f"the table pays exactly the winning totals of {clauses.BONUS_TABLE_TOTALS.clause}; "
            + "; ".join(
                part
                for part in (
                    f"{wrong} do not win" if wrong else "",
                    f"{missing} have no odds" if missing else "",
                )
                if part
            ),
        )
    return MappingProxyType(dict(sorted(table.items())))


@dataclass(frozen=True)
class RuleSet:
    """One table's Over/Under rules; ``RuleSet()`` is the NOTES.md §2 game without a Bonus table."""

    positions: int = field(
        default=6, metadata=_key("686a.2 not found: the house layout's betting positions (1 to 7)", _integer)
    )
    decks: int = field(default=6, metadata=_key("NOTES.md §2: 4, 6 or 8 decks in the field", _integer))
    ante_odds: Odds = field(
        default=Odds(1), metadata=_key("NOTES.md §2: 686a.8 not found; Ante pays 1 to 1", _odds)
    )
    over_23_odds: Odds = field(
        default=Odds(1), metadata=_key("NOTES.md §2: 686a.8 not found; Over 23 pays 1 to 1", _odds)
    )
    under_18_odds: Odds = field(
        default=Odds(1), metadata=_key("NOTES.md §2: 686a.8 not found; Under 18 pays 1 to 1", _odds)
    )
    bonus_pay_table: BonusPayTable | None = field(
        default=None,
        metadata=_key(
            "NOTES.md §2: PA table not found; keyed by the winning totals of 686a.7(m); "
            "none: no Bonus Wager is taken",
            _bonus_table,
        ),
    )
    odd_cent_rounding: Rounding = field(
        default=Rounding.DOWN,
        metadata=_key("house convention: a fraction of a cent is not paid", _choice(Rounding)),
    )

    def __post_init__(self) -> None:
        for spec in fields(self):  # values given directly are read as configuration values are
            object.__setattr__(self, spec.name, spec.metadata["parse"](spec.name, getattr(self, spec.name)))
        if not 1 <= self.positions <= 7:
            raise ConfigError("positions", f"1 to 7 ({clauses.POSITIONS}), got {self.positions}")
        if self.decks not in (4, 6, 8):
            raise ConfigError("decks", f"4, 6 or 8 (NOTES.md §2), got {self.decks}")

    @classmethod
    def from_mapping(cls, mapping: Mapping[str, Any]) -> RuleSet:
        """A rule set from configuration (a TOML table): unknown keys and bad values name the key."""
        keys = [spec.name for spec in fields(cls)]
        for key in mapping:
            if key not in keys:
                raise ConfigError(key, f"unknown key; the keys are {', '.join(keys)}")
        return cls(**mapping)

    @classmethod
    def sources(cls) -> dict[str, tuple[str, str]]:
        """Each key's default and where it comes from, for the documentation."""
        defaults = cls()
        return {
            spec.name: (_shown(getattr(defaults, spec.name)), spec.metadata["source"]) for spec in fields(cls)
        }


def _shown(value: Any) -> str:
    return "none (no Bonus Wager)" if value is None else str(value)
