"""The configurable rules of Free Bet Blackjack: what the seed section leaves to the house.

§ 672a.7 fixes the procedure; the number of decks, the Push 22 pay table, which pairs split free,
the resplit limit, paid doubles and splits, and the settlement procedure of (r) come from sections
not found (NOTES.md §2) or from the certificate holder's Rules Submission. Each is a key with the
NOTES.md default, and a bad value is refused with an error that names the key, before a round
starts. Amounts are integer cents; the only fraction the odds can produce is the half cent of
3 to 2 on an odd wager, and ``odd_cent_rounding`` says which way it goes (house convention:
down, the player is paid the whole cents).
"""

from __future__ import annotations

import enum
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, fields
from typing import Any

from devices.rules import Rule
from drivers.protocol.cards import RANKS
from games.free_bet_blackjack import clauses
from games.free_bet_blackjack.hand import TEN_VALUE_RANKS


class ConfigError(ValueError):
    """A configuration value the rules refuse; ``key`` names it."""

    def __init__(self, key: str, message: str) -> None:
        super().__init__(f"{key}: {message}")
        self.key = key


class Rounding(enum.StrEnum):
    DOWN = "down"
    UP = "up"


class SettlementOrder(enum.StrEnum):
    """The two procedures of 672a.7(r), one designated in the Rules Submission."""

    COLLECT_THEN_PAY = "collect-then-pay"  # 672a.7(r)(1)
    PLAYER_BY_PLAYER = "player-by-player"  # 672a.7(r)(2)

    @property
    def procedure(self) -> Rule:
        if self is SettlementOrder.COLLECT_THEN_PAY:
            return clauses.COLLECT_THEN_PAY
        return clauses.PLAYER_BY_PLAYER


_ODDS = re.compile(r"^\s*(\d+)\s*(?::|to)\s*(\d+)\s*$")


@dataclass(frozen=True)
class Odds:
    """``win`` to ``stake``: 3 to 2 pays 3 cents for every 2 wagered."""

    win: int
    stake: int = 1

    def __post_init__(self) -> None:
        for name in ("win", "stake"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"odds need a positive whole {name}, got {value!r}")

    @classmethod
    def parse(cls, text: str) -> Odds:
        """``11:1`` or ``11 to 1``."""
        match = _ODDS.match(text) if isinstance(text, str) else None
        if match is None:
            raise ValueError(f"{text!r} is not odds (expected e.g. '11:1' or '3 to 2')")
        return cls(int(match[1]), int(match[2]))

    def pay(self, amount: int, rounding: Rounding) -> int:
        """The winnings on ``amount`` cents, whole cents rounded as the house configured."""
        cents, remainder = divmod(amount * self.win, self.stake)
        return cents + (1 if remainder and rounding is Rounding.UP else 0)

    def __str__(self) -> str:
        return f"{self.win} to {self.stake}"


BLACKJACK_ODDS = Odds(3, 2)  # NOTES.md §2 672a.2 layout: "Blackjack pays 3 to 2"
INSURANCE_ODDS = Odds(2, 1)  # NOTES.md §2 672a.2 layout: "Insurance pays 2 to 1"
EVEN_ODDS = Odds(1, 1)


@dataclass(frozen=True)
class Push22PayTable:
    """What a Push 22 Wager pays when the dealer's hand is 22: every card of one suit, every card of
    one colour, or any other 22 (the field tables of NOTES.md §2 all fit this shape)."""

    suited: Odds
    same_colour: Odds
    other: Odds

    @classmethod
    def any_22(cls, odds: Odds) -> Push22PayTable:
        return cls(odds, odds, odds)


def _key(source: str, parse: Callable[[str, Any], Any]) -> dict[str, Any]:
    """A configuration key's metadata: where its default comes from, and how to read a value."""
    return {"source": source, "parse": parse}


def _integer(key: str, raw: Any) -> int:
    if isinstance(raw, bool) or not isinstance(raw, int):
        raise ConfigError(key, f"expected a whole number, got {raw!r}")
    return raw


def _flag(key: str, raw: Any) -> bool:
    if not isinstance(raw, bool):
        raise ConfigError(key, f"expected true or false, got {raw!r}")
    return raw


def _choice(kind: type[enum.StrEnum]) -> Callable[[str, Any], Any]:
    def parse(key: str, raw: Any) -> Any:
        try:
            return kind(raw)
        except ValueError:
            allowed = ", ".join(repr(member.value) for member in kind)
            raise ConfigError(key, f"expected one of {allowed}, got {raw!r}") from None

    return parse


def _totals(key: str, raw: Any) -> frozenset[int]:
    if isinstance(raw, str) or not isinstance(raw, list | tuple | frozenset | set):
        raise ConfigError(key, f"expected a list of totals, got {raw!r}")
    return frozenset(_integer(key, item) for item in raw)


def _ranks(key: str, raw: Any) -> frozenset[int]:
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


def _pay_table(key: str, raw: Any) -> Push22PayTable:
    """``{any = "11:1"}`` or ``{suited = "50:1", same_colour = "20:1", other = "8:1"}``."""
    if isinstance(raw, Push22PayTable):
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
class RuleSet:
    """One table's Free Bet Blackjack rules; ``RuleSet()`` is the NOTES.md §2 game."""

    positions: int = field(
        default=6, metadata=_key("NOTES.md §2 672a.2: at most six betting positions", _integer)
    )
    decks: int = field(
        default=6, metadata=_key("NOTES.md §2: published descriptions deal 6 or 8 decks", _integer)
    )
    push22_pay_table: Push22PayTable = field(
        default=Push22PayTable.any_22(Odds(11)),
        metadata=_key(
            "NOTES.md §2: PA table not found; default 'any 22 pays 11 to 1' (a field table)", _pay_table
        ),
    )
    free_double_totals: frozenset[int] = field(
        default=frozenset({9, 10, 11}),
        metadata=_key("NOTES.md §2: free double on two-card hard 9, 10, 11", _totals),
    )
    paid_doubles: bool = field(
        default=False,
        metadata=_key("672a.9 not found; NOTES.md §2 names only free doubles: off by default", _flag),
    )
    double_after_split: bool = field(
        default=True, metadata=_key("NOTES.md §2: free doubles allowed after free splits", _flag)
    )
    free_split_ranks: frozenset[int] = field(
        default=frozenset(range(1, 10)),
        metadata=_key("NOTES.md §2: any pair but ten-value cards (some exclude 4s, 5s)", _ranks),
    )
    paid_splits: bool = field(
        default=False,
        metadata=_key("672a.10 not found; NOTES.md §2 names only free splits: off by default", _flag),
    )
    max_hands: int = field(default=4, metadata=_key("NOTES.md §2: resplit to four hands", _integer))
    resplit_aces: bool = field(default=True, metadata=_key("NOTES.md §2: resplits include aces", _flag))
    settlement_order: SettlementOrder = field(
        default=SettlementOrder.COLLECT_THEN_PAY,
        metadata=_key(
            "672a.7(r): one procedure designated in the Rules Submission", _choice(SettlementOrder)
        ),
    )
    odd_cent_rounding: Rounding = field(
        default=Rounding.DOWN,
        metadata=_key("house convention: a half cent of 3 to 2 is not paid", _choice(Rounding)),
    )

    def __post_init__(self) -> None:
        for spec in fields(self):  # values given directly are read as configuration values are
            object.__setattr__(self, spec.name, spec.metadata["parse"](spec.name, getattr(self, spec.name)))
        if not 1 <= self.positions <= 6:
            raise ConfigError("positions", f"1 to 6 ({clauses.SIX_POSITIONS}), got {self.positions}")
        if self.decks not in (6, 8):
            raise ConfigError("decks", f"6 or 8 (NOTES.md §2), got {self.decks}")
        if not self.free_double_totals <= frozenset(range(4, 21)):
            raise ConfigError("free_double_totals", "two-card hard totals run from 4 to 20")
        if self.free_split_ranks & TEN_VALUE_RANKS:
            raise ConfigError("free_split_ranks", f"ten-value cards never split free ({clauses.FREE_SPLIT})")
        if not 1 <= self.max_hands <= 4:
            raise ConfigError("max_hands", f"1 to 4 ({clauses.RESPLIT_LIMIT}), got {self.max_hands}")

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
            spec.name: (_shown(spec.name, getattr(defaults, spec.name)), spec.metadata["source"])
            for spec in fields(cls)
        }


def _shown(name: str, value: Any) -> str:
    if name == "free_split_ranks":
        return ", ".join(RANKS[rank - 1] for rank in sorted(value))
    if isinstance(value, frozenset):
        return ", ".join(str(item) for item in sorted(value))
    if isinstance(value, Push22PayTable):
        return f"suited {value.suited}, same colour {value.same_colour}, other {value.other}"
    return str(value)
