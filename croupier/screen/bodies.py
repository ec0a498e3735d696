"""The bodies the dealer's screen keys, as typed models (pydantic v2, decision 0022), read strictly.

Every answer names the prompt it answers (``prompt``, the id the screen was shown). Its other fields
are those of one of a game's input messages (games/<game>/inputs.py), which check their own values
(``InputError`` names the field), or a count the dealer keys. A model takes exactly its fields: each
present unless it has a default, of its exact JSON type (``"1"`` is not a seat, ``true`` is not a
count), enums by their value, nothing else. A body that fails any of it is a 400 naming the field,
refused before it reaches the table.

A ``Body`` carries its models so that the OpenAPI document is generated from the very models the
answers are read with (croupier.api.openapi).
"""

from __future__ import annotations

import dataclasses
import enum
import functools
import typing
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, create_model

from croupier.screen.errors import BadRequest
from games.common.messages import InputError
from vocabulary.cards import Card, CardError

#: Exactly the declared fields, each of its exact JSON type.
STRICT = ConfigDict(extra="forbid", strict=True)

PromptId = Annotated[int, Field(ge=1, description="The id of the prompt this answers (GET /v1/prompt)")]
Count = Annotated[int, Field(ge=0, description="A whole number of cards or chips")]

#: A request's JSON body.
JsonBody = Mapping[str, Any]  # Any: JSON values


class Answer(BaseModel):
    """What every answer keyed on the screen carries: the prompt it answers."""

    model_config = STRICT
    prompt: PromptId


class PromptRef(BaseModel):
    """The prompt an answer names, read before the answer itself (which kind it is depends on it)."""

    model_config = ConfigDict(extra="ignore", strict=True)
    prompt: PromptId


def prompt_of(body: object) -> int:
    """The prompt ``body`` answers; a body without one is a 400 naming the field."""
    if not isinstance(body, Mapping):
        raise BadRequest("the body must be a JSON object naming the prompt it answers: {'prompt': ID, ...}")
    return int(validated(PromptRef, body).prompt)


class Plain(BaseModel):
    """The body of a request that answers no prompt (a supervisor's or a dealer's action)."""

    model_config = STRICT


Named = Annotated[str, Field(min_length=1, pattern=r"\S")]


class DealerChange(Plain):
    dealer: Named


class Ruling(Plain):
    resolution: Literal["continue", "void"]


class KeyedReset(Plain):
    key: Named


class SignIn(Plain):
    """A role's token, given once to open a browser session (croupier.api.sessions)."""

    token: Named


class Trace(Plain):
    enabled: bool


@dataclass(frozen=True)
class Body:
    """One kind of answer: the ``models`` its JSON may take (one, or one per choice) and ``read``,
    which checks the body against them and returns what the table is given."""

    models: tuple[type[BaseModel], ...]
    read: Callable[[JsonBody], Any]  # Any: each kind of answer is read as its own type

    def __call__(self, body: JsonBody) -> Any:  # Any: as ``read``
        return self.read(body)


def validated(shape: type[BaseModel], body: object) -> Any:  # Any: a ``shape``, read by field name
    """``body`` read by ``shape``; the first thing wrong with it is a 400 naming the field."""
    if not isinstance(body, Mapping):
        raise BadRequest(f"the body must be a JSON object: {shape.__name__} {sorted(shape.model_fields)}")
    try:
        return shape.model_validate(dict(body))
    except ValidationError as invalid:
        raise BadRequest(problem(invalid, shape)) from None


def problem(invalid: ValidationError, shape: type[BaseModel]) -> str:
    """The first error of ``invalid`` as one line naming the field (never more than its value)."""
    error = invalid.errors(include_url=False)[0]
    name, what = ".".join(str(part) for part in error["loc"]), shape.__name__
    if error["type"] == "missing":
        return f"missing field {name!r} ({what})"
    if error["type"] == "extra_forbidden":
        return f"unknown field {name!r}; {what} takes {sorted(shape.model_fields)}"
    got = repr(error.get("input"))
    return f"field {name!r}: {error['msg']}, got {got if len(got) <= 60 else got[:57] + '...'} ({what})"


def strict_model(name: str, /, **fields: Any) -> type[BaseModel]:  # Any: pydantic's (type form, default)
    """A strict answer model named ``name`` (its name in the API documents) with ``fields``."""
    return create_model(name, __base__=Answer, **fields)


def _is_enum(hint: object) -> bool:
    return isinstance(hint, type) and issubclass(hint, enum.Enum)


def _json_type(hint: Any) -> object:  # Any: a type hint
    """The JSON type of a message field: an enum by its values."""
    return Literal[tuple(member.value for member in hint)] if _is_enum(hint) else hint


def _message_fields(message: type) -> dict[str, Any]:  # Any: pydantic's (type form, default)
    """The model fields of a message's dataclass fields, with their defaults."""
    hints = typing.get_type_hints(message)
    fields: dict[str, Any] = {}  # Any: pydantic's (type form, default)
    for spec in dataclasses.fields(message):
        default = ... if spec.default is dataclasses.MISSING else spec.default
        value = default.value if isinstance(default, enum.Enum) else default
        fields[spec.name] = (_json_type(hints[spec.name]), value)
    return fields


def _name(message: type) -> str:
    """``games.heads_up_holdem.inputs.PlayerDecision`` -> ``HeadsUpHoldemPlayerDecision``."""
    game = message.__module__.split(".")[1]
    return "".join(part.title() for part in game.split("_")) + message.__name__


def _build(message: type, values: JsonBody) -> Any:  # Any: an instance of ``message``
    """The message from a model's values (enums from their values); its own checks are a 400."""
    hints = typing.get_type_hints(message)
    arguments = {
        name: hints[name](value) if _is_enum(hints[name]) else value for name, value in values.items()
    }
    try:
        return message(**arguments)
    except InputError as error:
        raise BadRequest(str(error)) from None


@functools.cache
def message_body(message: type) -> Body:
    """The body of one of a game's input messages: its fields (and the prompt answered)."""
    shape = strict_model(_name(message), **_message_fields(message))

    def read(body: JsonBody) -> Any:  # Any: the answer's own type
        values = validated(shape, body).model_dump(exclude={"prompt"})
        return _build(message, values)

    return Body((shape,), read)


def choice_body(name: str, kind: type[enum.Enum], title: str) -> Body:
    """The seat in turn's choice of ``kind``, by value, in the field ``name``: ``title`` names the
    model; the table is given the member."""
    shape = strict_model(title, seat=(int, ...), **{name: (_json_type(kind), ...)})

    def read(body: JsonBody) -> Any:  # Any: the answer's own type
        return kind(getattr(validated(shape, body), name))

    return Body((shape,), read)


def one_of(name: str, messages: Mapping[str, type | None], title: str) -> Body:
    """The message the field ``name`` picks from ``messages`` (None: a choice that needs no
    message, as declining), built from the rest of the body; one model per choice."""
    shapes: dict[str, type[BaseModel]] = {}
    for choice, message in messages.items():
        fields = {"seat": (int, ...)} if message is None else _message_fields(message)
        named = f"{title}{choice.title().replace('_', '')}"
        shapes[choice] = strict_model(named, **fields, **{name: (Literal[choice], ...)})

    def read(body: JsonBody) -> Any:  # Any: the answer's own type
        choice = body.get(name) if isinstance(body, Mapping) else None
        if not isinstance(choice, str) or choice not in messages:
            raise BadRequest(f"field {name!r} must be one of {sorted(messages)}, got {choice!r}")
        values = validated(shapes[choice], body).model_dump(exclude={"prompt", name})
        message = messages[choice]
        return None if message is None else _build(message, values)

    return Body(tuple(shapes.values()), read)


def count_body(name: str, title: str) -> Body:
    """A count the dealer keys: ``{name: N}`` cards or chips."""
    shape = strict_model(title, **{name: (Count, ...)})
    return Body((shape,), lambda body: getattr(validated(shape, body), name))


@functools.cache
def _place_counts(title: str) -> type[BaseModel]:
    return strict_model(title, counts=(dict[str, Count], ...))


def place_counts_body(title: str, places: Sequence[str]) -> Body:
    """The cards the dealer counts at each of ``places``: ``{"counts": {place: N, ...}}``, every
    place counted and no other; the model (``title``) is one for every list of places."""
    shape = _place_counts(title)

    def read(body: JsonBody) -> Any:  # Any: the answer's own type
        counted = validated(shape, body).counts
        if set(counted) != set(places):
            raise BadRequest(f"field 'counts' must count each of {list(places)}, got {sorted(counted)}")
        return {place: counted[place] for place in places}

    return Body((shape,), read)


def flag_body(name: str, title: str) -> Body:
    """A yes-or-no finding the dealer keys: ``{name: true|false}``."""
    shape = strict_model(title, **{name: (bool, ...)})
    return Body((shape,), lambda body: getattr(validated(shape, body), name))


def empty_body(title: str) -> Body:
    """An answer that is only the prompt answered ("no more bets")."""
    shape = strict_model(title)

    def read(body: JsonBody) -> None:
        validated(shape, body)

    return Body((shape,), read)


def cards_body(name: str, size: int, title: str) -> Body:
    """A hand the dealer reports: ``{name: ["Kc", "Kd", ...]}`` with ``size`` cards, or
    ``{name: null}`` for a hand the dealer cannot report (its wagers then wait, held)."""
    shape = strict_model(title, **{name: (list[str] | None, ...)})

    def read(body: JsonBody) -> tuple[Card, ...] | None:
        value = getattr(validated(shape, body), name)
        if value is None:
            return None
        if len(value) != size:
            raise BadRequest(f"field {name!r} must list {size} cards such as 'Kc', or be null, got {value!r}")
        try:
            return tuple(Card.parse(text) for text in value)
        except CardError as error:
            raise BadRequest(f"field {name!r}: {error}") from None

    return Body((shape,), read)
