"""Configuration pieces every game's RuleSet shares: the error that names the key, odds and the
rounding of a fractional cent, the readers each key's metadata names, and ``from_mapping`` and
``sources`` (the ``Configurable`` mixin). Used by all four games' rules_config modules."""

from __future__ import annotations

import enum
import re
import sys
import tomllib
from collections.abc import Callable, Collection, Mapping
from dataclasses import Field, dataclass, fields
from pathlib import Path
from typing import Any, ClassVar, Self

#: The example rules each game ships beside its rules_config module (``Configurable.example``).
EXAMPLE_FILE = "example_pay_tables.toml"


class ConfigError(ValueError):
    """A configuration value the rules refuse; ``key`` names it."""

    def __init__(self, key: str, message: str) -> None:
        super().__init__(f"{key}: {message}")
        self.key = key


class Rounding(enum.StrEnum):
    DOWN = "down"
    UP = "up"


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


EVEN_ODDS = Odds(1, 1)


#: A value as configuration gives it (a TOML value, or a Python value given directly): Any until its
#: key's reader has checked it.
Raw = Any  # Any: unchecked until its key's reader checks it
#: A key's reader: from the key's name (for the error) and its raw value to the value the rules hold.
Reader = Callable[[str, Raw], object]


def key(source: str, parse: Reader, *, pays: str = "", offered_by: str = "") -> dict[str, object]:
    """A configuration key's metadata: where its default comes from, and how to read a value.
    ``pays``: the wager whose pay table (or odds) this key is: a casino pays by the table the Board
    approved in its Rules Submission, so a table offering the wager opens only with the key
    configured (``Configurable.unconfigured_pay_tables``); ``offered_by``: the flag key saying
    whether the table offers it (none: always offered)."""
    return {"source": source, "parse": parse, "pays": pays, "offered_by": offered_by}


def integer(key: str, raw: Raw) -> int:
    if isinstance(raw, bool) or not isinstance(raw, int):
        raise ConfigError(key, f"expected a whole number, got {raw!r}")
    return raw


def flag(key: str, raw: Raw) -> bool:
    if not isinstance(raw, bool):
        raise ConfigError(key, f"expected true or false, got {raw!r}")
    return raw


def choice(kind: type[enum.StrEnum]) -> Reader:
    """A reader of one of ``kind``'s values; a bad value is refused with the values allowed."""

    def parse(key: str, raw: Raw) -> enum.StrEnum:
        try:
            return kind(raw)
        except ValueError:
            allowed = ", ".join(repr(member.value) for member in kind)
            raise ConfigError(key, f"expected one of {allowed}, got {raw!r}") from None

    return parse


#: The metadata of the ``odd_cent_rounding`` key most games share: a half cent is not paid unless the
#: table is configured otherwise.
ROUNDING = key("house convention: a half cent of 3 to 2 is not paid", choice(Rounding))


class Configurable:
    """Mixed into a game's frozen RuleSet dataclass, whose fields carry ``key`` metadata: reading
    configuration and documenting its sources are the same for every game; only ``shown`` (how a
    default reads in the documentation) may differ."""

    #: What the game's dataclass declares.
    __dataclass_fields__: ClassVar[dict[str, Field[Any]]]  # Any: each key has its own type
    #: The table's betting positions: every game's RuleSet has them (``table.seats``).
    positions: int

    @classmethod
    def from_mapping(cls, mapping: Mapping[str, Raw]) -> Self:
        """A rule set from configuration (a TOML table): unknown keys and bad values name the key."""
        keys = [spec.name for spec in fields(cls)]
        for name in mapping:
            if name not in keys:
                raise ConfigError(name, f"unknown key; the keys are {', '.join(keys)}")
        return cls(**mapping)

    @classmethod
    def example(cls, **overrides: Raw) -> Self:
        """The game's example rules (``example_pay_tables.toml`` beside its rules_config module,
        shipped with the package) with ``overrides``: what simulated tables and tests play. The
        file's pay tables are examples; a casino configures those the Board approved."""
        mapping = tomllib.loads(cls.example_file().read_text())["rules"]  # every game ships one
        return cls.from_mapping({**mapping, **overrides})

    @classmethod
    def example_file(cls) -> Path:
        """The game's example rules: a ``[rules]`` table, as a table's configuration file writes it."""
        return Path(sys.modules[cls.__module__].__file__ or "").with_name(EXAMPLE_FILE)

    @classmethod
    def sources(cls) -> dict[str, tuple[str, str]]:
        """Each key's default and where it comes from, for the documentation."""
        defaults = cls()
        return {
            spec.name: (cls.shown(spec.name, getattr(defaults, spec.name)), spec.metadata["source"])
            for spec in fields(cls)
        }

    @staticmethod
    def shown(name: str, value: Raw) -> str:
        """A default as the documentation shows it."""
        return str(value)

    def unconfigured_pay_tables(self, given: Collection[str] | None = None) -> list[tuple[str, str]]:
        """``(key, wager)`` for each pay table a wager the table offers needs and the configuration
        lacks: ``given`` names the keys configured (a table's ``[rules]``); without it a key counts
        as configured when its value is not empty."""
        missing = []
        for spec in fields(self):
            wager, flag_key = spec.metadata.get("pays"), spec.metadata.get("offered_by")
            if not wager or (flag_key and not getattr(self, flag_key)):
                continue
            configured = spec.name in given if given is not None else bool(getattr(self, spec.name))
            if not configured:
                missing.append((spec.name, wager))
        return missing

    def check_pay_tables(self, given: Collection[str] | None = None) -> None:
        """Refuse, naming the key, a table offering a wager whose pay table is not configured."""
        for name, wager in self.unconfigured_pay_tables(given):
            raise ConfigError(name, f"required because the table offers the {wager}")

    def plain(self) -> dict[str, Any]:  # Any: JSON values
        """The rules in force as plain values (odds as ``"3:2"``, tables as objects keyed by text,
        sets as sorted lists): what the audit trail records at table open, so a regulator holding
        only the trail can recompute every settlement."""
        return {spec.name: plain(getattr(self, spec.name)) for spec in fields(self)}

    def check_range(self, name: str, low: int, high: int, why: object, unit: str = "") -> None:
        """Refuse the key ``name`` unless its value lies from ``low`` to ``high``, citing ``why``."""
        value = getattr(self, name)
        if not low <= value <= high:
            raise ConfigError(name, f"{low} to {high}{unit} ({why}), got {value}")

    def read_fields(self) -> None:
        """Read values given directly as configuration values are (call from ``__post_init__``)."""
        for spec in fields(self):
            object.__setattr__(self, spec.name, spec.metadata["parse"](spec.name, getattr(self, spec.name)))


def plain(value: Any) -> Any:  # Any: a value of any key in, its JSON value out
    """One configuration value as JSON would hold it."""
    if isinstance(value, Odds):
        return f"{value.win}:{value.stake}"
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, bool | int | str) or value is None:
        return value
    if isinstance(value, Mapping):
        return {str(plain(k)): plain(v) for k, v in value.items()}
    if isinstance(value, frozenset | set | tuple | list):
        items = [plain(item) for item in value]
        return sorted(items) if isinstance(value, frozenset | set) else items
    if hasattr(value, "__dataclass_fields__"):
        return {spec.name: plain(getattr(value, spec.name)) for spec in fields(value)}
    return str(value)
