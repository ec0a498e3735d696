"""The configurable rules of Free Bet Blackjack: what the seed section leaves to the house.

§ 672a.7 fixes the procedure; the number of decks, the Push 22 pay table, which pairs split free,
the resplit limit, paid doubles and splits, and the settlement procedure of (r) come from sections
not found (published game rules, not PA text) or from the certificate holder's Rules Submission.
Each is a key with the published default, except the Push 22 pay table: a casino pays by the table
the Board approved, so none is built in (example_pay_tables.toml beside this module is an example);
a bad value is refused with an error that names the key, before a round starts. Amounts are integer
cents; the only fraction the odds can produce is the half cent of 3 to 2 on an odd wager, and
``odd_cent_rounding`` says which way it goes (house convention: down, the player is paid the whole
cents)."""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass, field

from games.common.config import (
    ROUNDING,
    ConfigError,
    Configurable,
    Odds,
    Raw,
    Rounding,
    choice,
    flag,
    integer,
    key,
)
from games.free_bet_blackjack import clauses
from games.free_bet_blackjack.hand import TEN_VALUE_RANKS
from vocabulary.cards import RANKS
from vocabulary.rules import Rule


class SettlementOrder(enum.StrEnum):
    """The two procedures of 672a.7(r), one designated in the Rules Submission."""

    COLLECT_THEN_PAY = "collect-then-pay"  # 672a.7(r)(1)
    PLAYER_BY_PLAYER = "player-by-player"  # 672a.7(r)(2)

    @property
    def procedure(self) -> Rule:
        if self is SettlementOrder.COLLECT_THEN_PAY:
            return clauses.COLLECT_THEN_PAY
        return clauses.PLAYER_BY_PLAYER


BLACKJACK_ODDS = Odds(3, 2)  # 672a.2 layout: "Blackjack pays 3 to 2"
INSURANCE_ODDS = Odds(2, 1)  # 672a.2 layout: "Insurance pays 2 to 1"


@dataclass(frozen=True)
class Push22PayTable:
    """What a Push 22 Wager pays when the dealer's hand is 22: every card of one suit, every card of
    one colour, or any other 22 (the pay tables seen in the field all fit this shape)."""

    suited: Odds
    same_colour: Odds
    other: Odds

    @classmethod
    def any_22(cls, odds: Odds) -> Push22PayTable:
        return cls(odds, odds, odds)


def _totals(key: str, raw: Raw) -> frozenset[int]:
    if isinstance(raw, str) or not isinstance(raw, list | tuple | frozenset | set):
        raise ConfigError(key, f"expected a list of totals, got {raw!r}")
    return frozenset(integer(key, item) for item in raw)


def _ranks(key: str, raw: Raw) -> frozenset[int]:
    """Rank names (``A``, ``2`` .. ``9``, ``T``/``10``, ``J``, ``Q``, ``K``) or ranks 1..13."""
    if isinstance(raw, str) or not isinstance(raw, list | tuple | frozenset | set):
        raise ConfigError(key, f"expected a list of ranks such as ['A', '2', '9'], got {raw!r}")
    ranks = set()
    for item in raw:
        if isinstance(item, int) and not isinstance(item, bool) and 1 <= item <= 13:
            ranks.add(item)
            continue
        name = "T" if item == "10" else str(item).upper()
        if len(name) != 1 or name not in RANKS:
            raise ConfigError(key, f"{item!r} is not a rank (A, 2-9, T, J, Q, K)")
        ranks.add(RANKS.index(name) + 1)
    return frozenset(ranks)


def _pay_table(key: str, raw: Raw) -> Push22PayTable | None:
    """``{any = "11:1"}`` or ``{suited = "50:1", same_colour = "20:1", other = "8:1"}``; None: not
    configured (a table opens only with it: ``check_pay_tables``)."""
    if raw is None or isinstance(raw, Push22PayTable):
        return raw
    if not isinstance(raw, Mapping):
        raise ConfigError(key, f"expected a table such as {{any = '11:1'}}, got {raw!r}")
    parts = ("suited", "same_colour", "other")
    if set(raw) != {"any"} and set(raw) != set(parts):
        raise ConfigError(key, f"give either 'any' or all of {', '.join(parts)}; got {sorted(raw)}")
    odds = {}
    for name, text in raw.items():
        try:
            odds[name] = Odds.parse(text)
        except ValueError as exc:
            raise ConfigError(f"{key}.{name}", str(exc)) from None
    return Push22PayTable.any_22(odds["any"]) if "any" in odds else Push22PayTable(**odds)


@dataclass(frozen=True)
class RuleSet(Configurable):
    """One table's Free Bet Blackjack rules; ``RuleSet()`` is the published game without a pay
    table, which no table opens with; ``RuleSet.example()`` adds the example pay table."""

    positions: int = field(default=6, metadata=key("672a.2: at most six betting positions", integer))
    decks: int = field(default=6, metadata=key("published game rules: 6 or 8 decks", integer))
    push22_pay_table: Push22PayTable | None = field(
        default=None,
        metadata=key(
            "the Rules Submission's table; none built in (example_pay_tables.toml: an example)",
            _pay_table,
            pays="Push 22 Wager",
        ),
    )
    free_double_totals: frozenset[int] = field(
        default=frozenset({9, 10, 11}),
        metadata=key("published game rules: free double on two-card hard 9, 10, 11", _totals),
    )
    paid_doubles: bool = field(
        default=False,
        metadata=key("672a.9 not found; published rules name only free doubles: off by default", flag),
    )
    double_after_split: bool = field(
        default=True, metadata=key("published game rules: free doubles allowed after free splits", flag)
    )
    free_split_ranks: frozenset[int] = field(
        default=frozenset(range(1, 10)),
        metadata=key("published game rules: any pair but ten-value cards (some exclude 4s, 5s)", _ranks),
    )
    paid_splits: bool = field(
        default=False,
        metadata=key("672a.10 not found; published rules name only free splits: off by default", flag),
    )
    max_hands: int = field(default=4, metadata=key("published game rules: resplit to four hands", integer))
    resplit_aces: bool = field(default=True, metadata=key("published rules: resplits include aces", flag))
    settlement_order: SettlementOrder = field(
        default=SettlementOrder.COLLECT_THEN_PAY,
        metadata=key("672a.7(r): one procedure designated in the Rules Submission", choice(SettlementOrder)),
    )
    odd_cent_rounding: Rounding = field(default=Rounding.DOWN, metadata=ROUNDING)

    def __post_init__(self) -> None:
        self.read_fields()
        self.check_range("positions", 1, 6, clauses.SIX_POSITIONS)
        if self.decks not in (6, 8):
            raise ConfigError("decks", f"6 or 8 (published game rules), got {self.decks}")
        if not self.free_double_totals <= frozenset(range(4, 21)):
            raise ConfigError("free_double_totals", "two-card hard totals run from 4 to 20")
        if self.free_split_ranks & TEN_VALUE_RANKS:
            raise ConfigError("free_split_ranks", f"ten-value cards never split free ({clauses.FREE_SPLIT})")
        if not 1 <= self.max_hands <= 4:
            raise ConfigError("max_hands", f"1 to 4 ({clauses.RESPLIT_LIMIT}), got {self.max_hands}")

    @staticmethod
    def shown(name: str, value: Raw) -> str:
        """A default as the configuration documentation shows it."""
        if name == "free_split_ranks":
            return ", ".join(RANKS[rank - 1] for rank in sorted(value))
        if isinstance(value, frozenset):
            return ", ".join(str(item) for item in sorted(value))
        if isinstance(value, Push22PayTable):
            return f"suited {value.suited}, same colour {value.same_colour}, other {value.other}"
        if value is None:
            return "none (required)"
        return str(value)
