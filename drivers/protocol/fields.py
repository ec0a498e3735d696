"""Wire types for message fields, declared on dataclass fields with ``Annotated``.

A message states its layout once, as typed attributes (``count: Annotated[int, U16]``), and the
payload encoder and decoder are derived from it, so the catalog in docs/protocol.md, the drivers and
the simulated firmware cannot disagree about a byte.
"""

from __future__ import annotations

import enum
import struct
from dataclasses import dataclass
from typing import TypeVar


class PayloadError(ValueError):
    """A payload that does not match its message's layout: names the field and what was wrong."""


class WireType:
    """Encodes one field; ``decode`` returns the value and the offset after it."""

    name: str

    def encode(self, value: object) -> bytes:
        raise NotImplementedError

    def decode(self, data: bytes, offset: int) -> tuple[object, int]:
        raise NotImplementedError


@dataclass(frozen=True)
class _Int(WireType):
    name: str
    fmt: str

    @property
    def size(self) -> int:
        return struct.calcsize(self.fmt)

    def encode(self, value: object) -> bytes:
        if isinstance(value, bool) or not isinstance(value, int):
            raise PayloadError(f"expected an integer, got {value!r}")
        try:
            return struct.pack(self.fmt, value)
        except struct.error as exc:
            raise PayloadError(f"{value} does not fit {self.name}") from exc

    def decode(self, data: bytes, offset: int) -> tuple[object, int]:
        end = offset + self.size
        if end > len(data):
            raise PayloadError(f"{self.name} needs {self.size} bytes, {len(data) - offset} left")
        return struct.unpack_from(self.fmt, data, offset)[0], end


U8 = _Int("u8", "<B")
U16 = _Int("u16", "<H")
U32 = _Int("u32", "<I")


@dataclass(frozen=True)
class _Bool(WireType):
    name: str = "bool"

    def encode(self, value: object) -> bytes:
        if not isinstance(value, bool):
            raise PayloadError(f"expected a bool, got {value!r}")
        return b"\x01" if value else b"\x00"

    def decode(self, data: bytes, offset: int) -> tuple[object, int]:
        if offset >= len(data):
            raise PayloadError("bool needs 1 byte, 0 left")
        if data[offset] > 1:
            raise PayloadError(f"bool byte must be 0 or 1, got {data[offset]}")
        return data[offset] == 1, offset + 1


BOOL = _Bool()


@dataclass(frozen=True)
class Fixed(WireType):
    """Exactly ``size`` raw bytes (a hash, a nonce)."""

    size: int

    @property
    def name(self) -> str:  # type: ignore[override]
        return f"bytes[{self.size}]"

    def encode(self, value: object) -> bytes:
        if not isinstance(value, bytes | bytearray) or len(value) != self.size:
            raise PayloadError(f"expected {self.size} bytes, got {value!r}")
        return bytes(value)

    def decode(self, data: bytes, offset: int) -> tuple[object, int]:
        end = offset + self.size
        if end > len(data):
            raise PayloadError(f"{self.name} needs {self.size} bytes, {len(data) - offset} left")
        return bytes(data[offset:end]), end


@dataclass(frozen=True)
class _Blob(WireType):
    """A u8 length then that many bytes."""

    name: str = "blob"

    def encode(self, value: object) -> bytes:
        if not isinstance(value, bytes | bytearray):
            raise PayloadError(f"expected bytes, got {value!r}")
        if len(value) > 255:
            raise PayloadError(f"blob of {len(value)} bytes exceeds 255")
        return bytes((len(value),)) + bytes(value)

    def decode(self, data: bytes, offset: int) -> tuple[bytes, int]:
        if offset >= len(data):
            raise PayloadError("blob length byte missing")
        end = offset + 1 + data[offset]
        if end > len(data):
            raise PayloadError(f"blob announces {data[offset]} bytes, {len(data) - offset - 1} left")
        return bytes(data[offset + 1 : end]), end


BLOB = _Blob()


@dataclass(frozen=True)
class _Str(WireType):
    """A u8 length then UTF-8 text."""

    name: str = "str"

    def encode(self, value: object) -> bytes:
        if not isinstance(value, str):
            raise PayloadError(f"expected text, got {value!r}")
        return BLOB.encode(value.encode("utf-8"))

    def decode(self, data: bytes, offset: int) -> tuple[object, int]:
        raw, end = BLOB.decode(data, offset)
        try:
            return raw.decode("utf-8"), end
        except UnicodeDecodeError as exc:
            raise PayloadError(f"text is not UTF-8: {raw!r}") from exc


STR = _Str()


@dataclass(frozen=True)
class ListOf(WireType):
    """A u8 count then that many items of one type."""

    item: WireType

    @property
    def name(self) -> str:  # type: ignore[override]
        return f"list[{self.item.name}]"

    def encode(self, value: object) -> bytes:
        if not isinstance(value, tuple | list):
            raise PayloadError(f"expected a sequence, got {value!r}")
        if len(value) > 255:
            raise PayloadError(f"list of {len(value)} items exceeds 255")
        return bytes((len(value),)) + b"".join(self.item.encode(v) for v in value)

    def decode(self, data: bytes, offset: int) -> tuple[object, int]:
        if offset >= len(data):
            raise PayloadError("list count byte missing")
        count, offset = data[offset], offset + 1
        items = []
        for _ in range(count):
            item, offset = self.item.decode(data, offset)
            items.append(item)
        return tuple(items), offset


def fixed_format(wire: WireType) -> str | None:
    """The struct code of a wire type whose every value has one size and no check of its own
    beyond its size, or None: lets a message of such fields decode with a single unpack."""
    if isinstance(wire, _Int):
        return wire.fmt[1:]
    if isinstance(wire, Fixed):
        return f"{wire.size}s"
    return None


def is_integer(wire: WireType) -> bool:
    """Whether ``wire`` is a fixed-size integer (u8, u16, u32): a message of only these encodes
    with a single pack."""
    return isinstance(wire, _Int)


E = TypeVar("E", bound=enum.IntEnum)


def enum_member(enum_type: type[E], value: int, field: str) -> E:
    """``value`` of a u8 enum field as a member of ``enum_type``, or a PayloadError naming the field
    and its legal values (the field itself carries any byte, so the ends check it)."""
    try:
        return enum_type(value)
    except ValueError:
        legal = ", ".join(f"{member.value} ({member.name})" for member in enum_type)
        raise PayloadError(f"{field} must be one of {legal}, got {value!r}") from None
