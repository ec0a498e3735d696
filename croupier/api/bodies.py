"""A JSON body read into one of a game's input messages (games/<game>/inputs.py), strictly.

The messages are frozen dataclasses that check their own fields (``InputError`` names the field);
this adds what JSON needs: every field present unless it has a default, no field the message does
not have, enums by their value. A body that fails any of it is a 400 that names the field, refused
before it reaches the table.
"""

from __future__ import annotations

import dataclasses
import enum
import typing
from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypeVar

from croupier.api.errors import BadRequest
from drivers.protocol.cards import Card, CardError
from games.common.messages import InputError

M = TypeVar("M")


def from_json(message: type[M], body: object, *, ignore: tuple[str, ...] = (), **fixed: Any) -> M:
    """``message`` built from the JSON object ``body``; ``fixed`` fields come from the table (the
    seat in turn), ``ignore`` lists body keys another layer has read (e.g. ``action``)."""
    if not isinstance(body, Mapping):
        raise BadRequest(f"the body must be a JSON object ({message.__name__})")
    fields = {f.name: f for f in dataclasses.fields(message)}  # type: ignore[arg-type]
    unknown = sorted(set(body) - set(fields) - set(ignore))
    if unknown:
        raise BadRequest(f"unknown field {unknown[0]!r}; {message.__name__} takes {sorted(fields)}")
    hints = typing.get_type_hints(message)
    values: dict[str, Any] = {}
    for name, spec in fields.items():
        if name in fixed:
            values[name] = fixed[name]
        elif name in body:
            values[name] = _value(name, hints[name], body[name])
        elif spec.default is dataclasses.MISSING and spec.default_factory is dataclasses.MISSING:
            raise BadRequest(f"missing field {name!r} ({message.__name__})")
    try:
        return message(**values)
    except InputError as error:
        raise BadRequest(str(error)) from None


def enum_value(kind: type[enum.Enum], name: str, body: Mapping[str, Any]) -> Any:
    """The field ``name`` of ``body`` as a member of ``kind``, by value."""
    if name not in body:
        raise BadRequest(f"missing field {name!r}: one of {[member.value for member in kind]}")
    return _value(name, kind, body[name])


def one_of(name: str, messages: Mapping[str, type | None], body: Mapping[str, Any], **fixed: Any) -> Any:
    """The message the field ``name`` of ``body`` picks from ``messages`` (None: a choice that
    needs no message, as declining), built from the rest of the body."""
    choice = body.get(name) if isinstance(body, Mapping) else None
    if choice not in messages:
        raise BadRequest(f"field {name!r} must be one of {sorted(messages)}, got {choice!r}")
    message = messages[choice]
    return None if message is None else from_json(message, body, ignore=(name,), **fixed)


def counts_field(name: str, places: Sequence[str] | None = None) -> Callable[[Mapping[str, Any]], Any]:
    """The parser of a count the dealer keys: ``{name: N}`` cards or chips, or, given ``places``,
    ``{name: {place: N, ...}}`` with every place counted."""

    def count(value: object, what: str) -> int:
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise BadRequest(f"field {what!r} must be a whole number of cards or chips, got {value!r}")
        return value

    def parse(body: Mapping[str, Any]) -> Any:
        value = body.get(name) if isinstance(body, Mapping) else None
        if places is None:
            return count(value, name)
        if not isinstance(value, Mapping) or set(value) != set(places):
            raise BadRequest(f"field {name!r} must count each of {list(places)}, got {value!r}")
        return {place: count(value[place], f"{name}.{place}") for place in places}

    return parse


def flag_field(name: str) -> Callable[[Mapping[str, Any]], bool]:
    """The parser of a yes-or-no finding the dealer keys: ``{name: true|false}``."""

    def parse(body: Mapping[str, Any]) -> bool:
        value = body.get(name) if isinstance(body, Mapping) else None
        if not isinstance(value, bool):
            raise BadRequest(f"field {name!r} must be true or false, got {value!r}")
        return value

    return parse


def cards_field(name: str, size: int) -> Callable[[Mapping[str, Any]], tuple[Card, ...] | None]:
    """The parser of a hand the dealer reports: ``{name: ["Kc", "Kd", ...]}`` with ``size`` cards,
    or ``{name: null}`` for a hand the dealer cannot report (its wagers then wait, held)."""

    def parse(body: Mapping[str, Any]) -> tuple[Card, ...] | None:
        if not isinstance(body, Mapping) or name not in body:
            raise BadRequest(f"missing field {name!r}: {size} cards such as 'Kc', or null")
        value = body[name]
        if value is None:
            return None
        if not isinstance(value, list) or len(value) != size or not all(isinstance(v, str) for v in value):
            raise BadRequest(f"field {name!r} must list {size} cards such as 'Kc', or be null, got {value!r}")
        try:
            return tuple(Card.parse(text) for text in value)
        except CardError as error:
            raise BadRequest(f"field {name!r}: {error}") from None

    return parse


def _value(name: str, hint: object, value: object) -> object:
    if isinstance(hint, type) and issubclass(hint, enum.Enum):
        try:
            return hint(value)
        except ValueError:
            choices = [member.value for member in hint]
            raise BadRequest(f"field {name!r} must be one of {choices}, got {value!r}") from None
    return value
