"""The configurable rules of the 677a Hold 'Em game: everything the seed section leaves to the house.

§ 677a.10 fixes the dealing; the betting rounds (Play 3x, 2x, 1x), the dealer's qualifier and the
pay tables come from the published Heads Up Hold 'Em rules (not PA text; the chapter's own text was
not found), so each is a key with the published default, except the pay tables: a casino pays by the
tables the Board approved, so none is built in (example_pay_tables.toml beside this module is an
example). Trips Plus and Pocket Bonus are optional wagers, offered only once a pay table is
configured. A bad value is refused, before any round starts, with a ConfigError naming the key."""

from __future__ import annotations

from collections.abc import Mapping
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
    integer,
    key,
)
from games.common.poker_hands import Category
from games.heads_up_holdem import clauses
from games.heads_up_holdem.pocket import Pocket

PayTable = Mapping[Category | Pocket, Odds]


def _table(kind: type[Category] | type[Pocket]) -> Reader:
    """A pay table keyed by category (``royal_flush``) or pocket (``AA``), values such as ``"3:2"``."""

    def parse(key: str, raw: Raw) -> PayTable:
        if not isinstance(raw, Mapping):
            raise ConfigError(key, f"expected a table such as {{flush = '3:2'}}, got {raw!r}")
        table = {}
        for name, text in raw.items():
            entry = name if isinstance(name, kind) else _member(kind, key, name)
            if isinstance(text, Odds):
                table[entry] = text
                continue
            try:
                table[entry] = Odds.parse(text)
            except ValueError as exc:
                raise ConfigError(f"{key}.{name}", str(exc)) from None
        return MappingProxyType(table)

    return parse


def _member(kind: type[Category] | type[Pocket], key: str, name: object) -> Category | Pocket:
    by_key = {member.key: member for member in kind}
    if name not in by_key:
        raise ConfigError(f"{key}.{name}", f"not a hand; the hands are {', '.join(by_key)}")
    return by_key[name]


def _category(key: str, raw: Raw) -> Category:
    if isinstance(raw, Category):
        return raw
    member = _member(Category, key, raw)
    assert isinstance(member, Category)
    return member


def _multiples(key: str, raw: Raw) -> tuple[int, ...]:
    if isinstance(raw, str) or not isinstance(raw, list | tuple):
        raise ConfigError(key, f"expected a list of multiples of the Ante, got {raw!r}")
    values = tuple(sorted({integer(key, item) for item in raw}))
    if not values or values[0] < 1:
        raise ConfigError(key, f"expected one or more whole multiples of at least 1, got {raw!r}")
    return values


@dataclass(frozen=True)
class RuleSet(Configurable):
    """One table's rules; ``RuleSet()`` has no Odds table, and no table opens with it;
    ``RuleSet.example()`` adds the example tables (example_pay_tables.toml)."""

    positions: int = field(
        default=6, metadata=key("house convention (677a.2 not found): six betting positions", integer)
    )
    stub_count_interval: int = field(
        default=5, metadata=key("677a.10(d): the stub counted at least once every 5 rounds", integer)
    )
    preflop_multiples: tuple[int, ...] = field(
        default=(3,), metadata=key("published game rules: Play 3x the Ante before the flop", _multiples)
    )
    flop_multiples: tuple[int, ...] = field(
        default=(2,), metadata=key("published game rules: Play 2x the Ante after the flop", _multiples)
    )
    river_multiples: tuple[int, ...] = field(
        default=(1,), metadata=key("published rules: Play 1x the Ante after the river, or fold", _multiples)
    )
    dealer_opens_with: Category = field(
        default=Category.PAIR,
        metadata=key("published game rules: the dealer needs a pair or better to open", _category),
    )
    odds_pay_table: PayTable = field(
        default_factory=dict,
        metadata=key(
            "the Rules Submission's Odds table; none built in (example_pay_tables.toml: an example)",
            _table(Category),
            pays="Odds Wager",
        ),
    )
    losing_odds_pay_table: PayTable = field(
        default_factory=dict,
        metadata=key(
            "published rules name a losing-Odds bonus on a straight or better; the Rules Submission's "
            "amounts, none built in",
            _table(Category),
            pays="Odds Wager (its bonus when the hand loses)",
        ),
    )
    trips_plus_pay_table: PayTable = field(
        default_factory=dict,
        metadata=key("published game rules: optional, table not found; empty: not offered", _table(Category)),
    )
    pocket_bonus_pay_table: PayTable = field(
        default_factory=dict,
        metadata=key("published game rules: optional, table not found; empty: not offered", _table(Pocket)),
    )
    odd_cent_rounding: Rounding = field(default=Rounding.DOWN, metadata=ROUNDING)

    def __post_init__(self) -> None:
        self.read_fields()
        self.check_range("positions", 1, 7, clauses.POSITIONS, unit=" seats")
        self.check_range("stub_count_interval", 1, 5, clauses.STUB_COUNT_DUE, unit=" rounds")
        for name in ("losing_odds_pay_table",):
            if any(category < Category.STRAIGHT for category in getattr(self, name)):
                raise ConfigError(name, f"pays only a straight or better ({clauses.ODDS_LOSE})")

    def multiples(self, street: str) -> tuple[int, ...]:
        """The Play multiples allowed on ``street`` (preflop, flop or river)."""
        multiples: tuple[int, ...] = getattr(self, f"{street}_multiples")
        return multiples

    @staticmethod
    def shown(name: str, value: Raw) -> str:
        """A default as the configuration documentation shows it."""
        if isinstance(value, Mapping):
            return ", ".join(f"{entry.key} {odds}" for entry, odds in value.items()) or "not offered"
        if isinstance(value, tuple):
            return ", ".join(f"{item}x" for item in value)
        if isinstance(value, Category):
            return value.key
        return str(value)
