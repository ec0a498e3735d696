"""Typed messages and the catalog that maps them to message ids.

A message class lists its fields as ``Annotated`` attributes; ``__init_subclass__`` turns them into
the payload layout. Commands name the reply they expect and whether they move a card, which decides
what the host may do when a command's outcome is unknown (docs/protocol.md §5).
"""

from __future__ import annotations

import dataclasses
import enum
import operator
import struct
import typing
from collections.abc import Callable, Mapping
from typing import Annotated, ClassVar, Self, TypeVar, dataclass_transform

from drivers.protocol.fields import PayloadError, WireType, fixed_format, is_integer


class Status(enum.IntEnum):
    """First byte of every RESPONSE payload."""

    OK = 0
    UNKNOWN_COMMAND = 1
    BAD_PAYLOAD = 2
    FAULT_LATCHED = 3
    REFUSED = 4
    BUSY = 5
    NO_SESSION = 6


@dataclass_transform(frozen_default=True)
class Message:
    """Base of every message. Subclasses are frozen dataclasses whose fields carry wire types."""

    MSG_ID: ClassVar[int]
    LAYOUT: ClassVar[tuple[tuple[str, WireType], ...]] = ()
    #: One struct for layouts made only of fixed-size integers and byte strings: the hot path.
    _FIXED: ClassVar[struct.Struct | None] = None
    #: The field values in layout order, for a layout of two or more integers only (one pack encodes
    #: them; a getter of one name would give the value, not a tuple).
    _INTS: ClassVar[Callable[[Message], tuple[object, ...]] | None] = None

    def __init_subclass__(cls, **kwargs: object) -> None:
        super().__init_subclass__(**kwargs)
        dataclasses.dataclass(frozen=True, slots=False)(cls)
        hints = typing.get_type_hints(cls, include_extras=True)
        layout = []
        for field in dataclasses.fields(cls):  # type: ignore[arg-type]  # a dataclass since the line above
            wire = [m for m in getattr(hints[field.name], "__metadata__", ()) if isinstance(m, WireType)]
            if len(wire) != 1:
                raise TypeError(f"{cls.__name__}.{field.name} needs exactly one wire type")
            layout.append((field.name, wire[0]))
        cls.LAYOUT = tuple(layout)
        formats = [fixed_format(wire) for _, wire in layout]
        fixed = [f for f in formats if f is not None]
        cls._FIXED = struct.Struct("<" + "".join(fixed)) if len(fixed) == len(formats) else None
        ints = len(layout) > 1 and all(is_integer(wire) for _, wire in layout)
        cls._INTS = operator.attrgetter(*(name for name, _ in layout)) if ints else None

    def to_payload(self) -> bytes:
        """Encode the fields in declaration order."""
        cls = type(self)
        if cls._INTS is not None:
            # Integers only (a heartbeat's answer): one pack, when every value is a plain int; a
            # bool, another type or a value out of range is left to the fields, whose error names it.
            values = cls._INTS(self)
            for value in values:
                if type(value) is not int:
                    break
            else:
                assert cls._FIXED is not None
                try:
                    return cls._FIXED.pack(*values)
                except struct.error:
                    pass
        out = bytearray()
        for name, wire in self.LAYOUT:
            try:
                out += wire.encode(getattr(self, name))
            except PayloadError as exc:
                raise PayloadError(f"{type(self).__name__}.{name}: {exc}") from None
        return bytes(out)

    @classmethod
    def from_payload(cls, data: bytes) -> Self:
        """Decode a payload; a short, long or ill-typed payload raises PayloadError naming the field."""
        if cls._FIXED is not None and len(data) == cls._FIXED.size:
            try:
                return cls(*cls._FIXED.unpack(data))
            except (TypeError, ValueError) as exc:
                raise PayloadError(f"{cls.__name__}: {exc}") from None
        values = {}
        offset = 0
        for name, wire in cls.LAYOUT:
            try:
                values[name], offset = wire.decode(data, offset)
            except PayloadError as exc:
                raise PayloadError(f"{cls.__name__}.{name}: {exc}") from None
        if offset != len(data):
            raise PayloadError(f"{cls.__name__}: {len(data) - offset} unexpected trailing bytes")
        try:
            return cls(**values)
        except (TypeError, ValueError) as exc:
            raise PayloadError(f"{cls.__name__}: {exc}") from None


class Reply(Message):
    """The body of an OK response to a command."""


class Empty(Reply):
    """A reply with no fields."""


class Command(Message):
    """Host to device. ``REPLY`` is the body type of an OK response."""

    REPLY: ClassVar[type[Reply]] = Empty
    MOVES_CARDS: ClassVar[bool] = False


class Event(Message):
    """Device to host, unsolicited, acknowledged by the host."""


class UnknownMessage(LookupError):
    """A message id the catalog does not hold."""


MessageClass = TypeVar("MessageClass", type[Command], type[Event])


class Catalog:
    """Message ids to classes, one namespace for commands and one for events."""

    def __init__(self) -> None:
        self.commands: dict[int, type[Command]] = {}
        self.events: dict[int, type[Event]] = {}

    def add(self, cls: MessageClass) -> MessageClass:
        """Register a class (usable as a decorator); a clashing id is a programming error."""
        table: Mapping[int, type[Message]] = self.commands if issubclass(cls, Command) else self.events
        other = table.get(cls.MSG_ID)
        if other is not None and other is not cls:
            raise ValueError(f"message id 0x{cls.MSG_ID:02X} is both {other.__name__} and {cls.__name__}")
        if issubclass(cls, Command):
            self.commands[cls.MSG_ID] = cls
        else:
            self.events[cls.MSG_ID] = cls
        return cls

    def command(self, msg_id: int) -> type[Command]:
        try:
            return self.commands[msg_id]
        except KeyError:
            raise UnknownMessage(f"no command has id 0x{msg_id:02X}") from None

    def event(self, msg_id: int) -> type[Event]:
        try:
            return self.events[msg_id]
        except KeyError:
            raise UnknownMessage(f"no event has id 0x{msg_id:02X}") from None


__all__ = ["Annotated", "Catalog", "Command", "Empty", "Event", "Message", "Reply", "Status"]
