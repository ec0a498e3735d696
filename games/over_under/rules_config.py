"""The configurable rules of Over/Under: what the seed section leaves to the house.

§ 686a.7 fixes the procedure and which totals win; the payout odds of § 686a.8, the Bonus pay table,
the number of decks and of betting positions were not found. Each is a key with a default from the
game as published and played in the field (not PA text), except the payout odds: a casino pays by
the odds the Board approved, so none are built in (example_pay_tables.toml beside this module is an
example); a bad value is refused with an error naming the key before a round starts. The odds, the
rounding and the key helpers are games.common.config's (one reading of configuration for every
game). The Bonus pay table has no default: a Bonus Wager is taken only against a posted table, so
until one is configured the round refuses Bonus Wagers."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

from games.common.config import (
    ConfigError,
    Configurable,
    Odds,
    Raw,
    Rounding,
    choice,
    integer,
    key,
)
from games.over_under import clauses
from games.over_under.points import HIGHEST, LOWEST

#: 686a.7(m): the totals on which a Bonus Wager wins; it loses on every other total.
BONUS_WINNING_TOTALS = frozenset([*range(6, 13), *range(27, 34)])

BonusPayTable = Mapping[int, Odds]

__all__ = ["BONUS_WINNING_TOTALS", "BonusPayTable", "ConfigError", "Odds", "Rounding", "RuleSet"]


def _odds(key: str, raw: Raw) -> Odds | None:
    """``"1:1"`` or ``"3 to 2"`` (an Odds given directly is taken as it is); None: not configured."""
    if raw is None or isinstance(raw, Odds):
        return raw
    try:
        return Odds.parse(raw)
    except ValueError as exc:
        raise ConfigError(key, str(exc)) from None


def _bonus_table(key: str, raw: Raw) -> BonusPayTable | None:
    """``{"6" = "100:1", ..., "33" = "100:1"}``: odds for exactly the winning totals of 686a.7(m)
    (TOML keys are text, so "6" and 6 both name the total 6)."""
    if raw is None:
        return None
    if not isinstance(raw, Mapping):
        raise ConfigError(key, f"expected a table of total = odds, got {raw!r}")
    table: dict[int, Odds] = {}
    for name, odds in raw.items():
        try:
            points = int(name)
        except (TypeError, ValueError):
            raise ConfigError(key, f"{name!r} is not a total ({LOWEST} to {HIGHEST})") from None
        if points in table:
            raise ConfigError(key, f"the total {points} is given twice")
        parsed = _odds(f"{key}.{points}", odds)
        if parsed is None:
            raise ConfigError(f"{key}.{points}", "no odds given")
        table[points] = parsed
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
class RuleSet(Configurable):
    """One table's Over/Under rules; ``RuleSet()`` has no payout odds, and no table opens with it;
    ``RuleSet.example()`` adds the example odds (example_pay_tables.toml), without a Bonus table."""

    positions: int = field(
        default=6, metadata=key("686a.2 not found: the house layout's betting positions (1 to 7)", integer)
    )
    decks: int = field(default=6, metadata=key("in the field (not PA text): 4, 6 or 8 decks", integer))
    ante_odds: Odds | None = field(
        default=None,
        metadata=key(
            "686a.8: the Rules Submission's odds; none built in (example_pay_tables.toml: an example)",
            _odds,
            pays="Ante Wager",
        ),
    )
    over_23_odds: Odds | None = field(
        default=None,
        metadata=key(
            "686a.8: the Rules Submission's odds; none built in (example_pay_tables.toml: an example)",
            _odds,
            pays="Over 23 Wager",
        ),
    )
    under_18_odds: Odds | None = field(
        default=None,
        metadata=key(
            "686a.8: the Rules Submission's odds; none built in (example_pay_tables.toml: an example)",
            _odds,
            pays="Under 18 Wager",
        ),
    )
    bonus_pay_table: BonusPayTable | None = field(
        default=None,
        metadata=key(
            "PA table (686a.8) not found; keyed by the winning totals of 686a.7(m); "
            "none: no Bonus Wager is taken",
            _bonus_table,
        ),
    )
    odd_cent_rounding: Rounding = field(
        default=Rounding.DOWN,
        metadata=key("house convention: a fraction of a cent is not paid", choice(Rounding)),
    )

    def __post_init__(self) -> None:
        self.read_fields()
        self.check_range("positions", 1, 7, clauses.POSITIONS)
        if self.decks not in (4, 6, 8):
            raise ConfigError("decks", f"4, 6 or 8 (in the field), got {self.decks}")

    @staticmethod
    def shown(name: str, value: Raw) -> str:
        """A default as the configuration documentation shows it."""
        if value is None:
            return "none (no Bonus Wager)" if name == "bonus_pay_table" else "none (required)"
        return str(value)
