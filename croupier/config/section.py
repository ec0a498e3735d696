"""Reading one TOML table with its key path, so that every error names the file, the key and what
was expected ("FILE: key.path: what is wrong (expected ...)") without each reader formatting it."""

from __future__ import annotations

import re
import tomllib
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from croupier.errors import ConfigError

#: A name that is one topic level of the floor's broker, with no MQTT wildcard or separator in it.
LEVEL = re.compile(r"^[A-Za-z0-9_-]+$")

_MISSING = object()  # no default: the key is required

_EXPECTED = {
    str: "a string",
    int: "a whole number",
    float: "a number",
    bool: "true or false",
    list: "a list",
    dict: "a table",
}


@dataclass(frozen=True)
class Section:
    """A TOML table found at ``path`` (dotted, "" for the top level) in ``file``."""

    file: Path
    path: str
    data: Mapping[str, Any]  # Any: TOML values

    @classmethod
    def read(cls, path: Path) -> Section:
        """The top level of the TOML file ``path``; a ConfigError when it cannot be read, is not
        UTF-8, or is not TOML."""
        try:
            data = tomllib.loads(path.read_text(encoding="utf-8"))
        except OSError as exc:
            raise ConfigError(f"{path}: cannot be read: {exc.strerror or exc}") from None
        except UnicodeDecodeError:
            raise ConfigError(f"{path}: not UTF-8 text (expected a TOML file)") from None
        except tomllib.TOMLDecodeError as exc:
            raise ConfigError(f"{path}: TOML syntax error: {exc}") from None
        return cls(path, "", data)

    def key(self, name: str) -> str:
        """The dotted path of ``name`` within this table."""
        return f"{self.path}.{name}" if self.path else name

    def error(self, name: str | None, problem: str, expected: str = "") -> ConfigError:
        """The error for ``name`` (``None``: this table itself)."""
        where = self.path if name is None else self.key(name)
        suffix = f" (expected {expected})" if expected else ""
        return ConfigError(f"{self.file}: {where}: {problem}{suffix}")

    def only(self, allowed: Collection[str]) -> None:
        """Refuse keys not in ``allowed``: a misspelt key must not be silently ignored."""
        for name in self.data:
            if name not in allowed:
                raise self.error(name, "unknown key", f"one of {', '.join(allowed)}")

    def has(self, name: str) -> bool:
        return name in self.data

    def value(
        self, name: str, kind: type, default: object = _MISSING, expected: str = ""
    ) -> Any:  # Any: a TOML value of ``kind``
        """The value of ``name``, of ``kind`` (an int is a float; a bool is neither)."""
        wanted = expected or _EXPECTED[kind]
        if name not in self.data:
            if default is _MISSING:
                raise self.error(name, "missing", wanted)
            return default
        raw = self.data[name]
        kinds = (int, float) if kind is float else (kind,)
        if isinstance(raw, bool) is not (kind is bool) or not isinstance(raw, kinds):
            raise self.error(name, f"got {raw!r}", wanted)
        return float(raw) if kind is float and isinstance(raw, int) else raw  # an int is a float

    def number(
        self, name: str, kind: type, default: object, low: float, high: float | None = None
    ) -> Any:  # Any: a TOML value of ``kind``
        """A number within [low, high]; ``low`` is exclusive for a float (a duration must be > 0)."""
        value = self.value(name, kind, default)
        if kind is float:
            ok, bounds = value > low, f"a number above {low:g}"
        else:
            ok, bounds = value >= low, f"a whole number of at least {low}"
        if high is not None:
            ok, bounds = ok and value <= high, f"{bounds} and at most {high:g}"
        if not ok:
            raise self.error(name, f"got {value!r}", bounds)
        return value

    def choice(self, name: str, allowed: Collection[str], default: object = _MISSING) -> str:
        """One of ``allowed``."""
        wanted = f"one of {', '.join(allowed)}"
        value = self.value(name, str, default, wanted)
        if value not in allowed:
            raise self.error(name, f"got {value!r}", wanted)
        return value

    def strings(self, name: str, default: object = _MISSING) -> list[str]:
        """A list of strings."""
        value = self.value(name, list, default, "a list of strings")
        for index, item in enumerate(value):
            if not isinstance(item, str):
                raise self.error(f"{name}[{index}]", f"got {item!r}", "a string")
        return value

    def section(self, name: str, required: bool = False) -> Section:
        """The table under ``name``; an absent optional one reads as empty (every key defaulted)."""
        data = self.value(name, dict) if required else self.value(name, dict, {})
        return Section(self.file, self.key(name), data)

    def path_value(self, name: str, default: str) -> Path:
        """A file or directory: ``~`` is the service user's home; a relative path is relative to the
        configuration file, so the meaning of a file does not depend on the directory it is run from."""
        text = self.value(name, str, default, "a path")
        if not text:
            raise self.error(name, "empty", "a path")
        return self.resolve(text)

    def resolve(self, text: str) -> Path:
        """The path ``text`` names, as ``path_value`` reads it."""
        path = Path(text).expanduser()
        return path if path.is_absolute() else self.file.parent / path
