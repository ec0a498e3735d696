"""One audit record: its shape, its canonical bytes and its hash.

The hash covers the canonical encoding of every field but ``hash`` itself, ``prev`` included, so a
record cannot be changed, moved or dropped without breaking the chain (docs/audit.md §2, §3).
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

#: ``prev`` of the first record of a series: no record comes before it.
GENESIS = "0" * 64
#: The record kinds the trail itself writes at the ends of each file.
HEADER = "header"
CLOSE = "close"
FORMAT = 1

_KIND = re.compile(r"^[a-z][a-z0-9_]{0,63}$")
_KEYS = ("seq", "at", "kind", "round", "fields", "prev")


class AuditError(Exception):
    """The audit trail cannot be written or read as asked; the message says which file and why."""


def canonical(body: Mapping[str, Any]) -> bytes:
    """Sorted keys, no spaces, ASCII only, no NaN: one byte string for one record, on any machine."""
    return json.dumps(
        body, sort_keys=True, separators=(",", ":"), ensure_ascii=True, allow_nan=False
    ).encode()


def digest(body: Mapping[str, Any]) -> str:
    return hashlib.sha256(canonical(body)).hexdigest()


def check_kind(kind: str) -> str:
    if not isinstance(kind, str) or not _KIND.match(kind):
        raise AuditError(f"record kind {kind!r} is not a lower-case name (letters, digits, _)")
    return kind


@dataclass(frozen=True)
class AuditRecord:
    """A record as written: ``seq`` counts through the whole series, across files."""

    seq: int
    at: str  # UTC, ISO 8601 with milliseconds
    kind: str
    round: int | None
    fields: Mapping[str, Any]
    prev: str
    hash: str

    def body(self) -> dict[str, Any]:
        """Everything the hash covers."""
        return {
            "seq": self.seq,
            "at": self.at,
            "kind": self.kind,
            "round": self.round,
            "fields": dict(self.fields),
            "prev": self.prev,
        }

    def line(self) -> bytes:
        return canonical({**self.body(), "hash": self.hash}) + b"\n"

    @classmethod
    def seal(
        cls, seq: int, at: str, kind: str, round: int | None, fields: Mapping[str, Any], prev: str
    ) -> AuditRecord:
        body = {"seq": seq, "at": at, "kind": kind, "round": round, "fields": dict(fields), "prev": prev}
        return cls(seq, at, kind, round, dict(fields), prev, digest(body))

    @classmethod
    def parse(cls, line: bytes) -> AuditRecord:
        """A record from one line, shape-checked; the hash is not checked here (verify.py does)."""
        try:
            data = json.loads(line)
        except (ValueError, UnicodeDecodeError) as exc:
            raise AuditError(f"not a JSON record ({exc})") from None
        if not isinstance(data, dict) or set(data) != {*_KEYS, "hash"}:
            raise AuditError(f"not an audit record: keys must be {sorted((*_KEYS, 'hash'))}")
        if not isinstance(data["seq"], int) or not isinstance(data["fields"], dict):
            raise AuditError("not an audit record: seq must be a number and fields an object")
        return cls(**{key: data[key] for key in (*_KEYS, "hash")})

    def is_sound(self) -> bool:
        """Whether ``hash`` is the hash of the rest: false when any byte of the record was changed."""
        return digest(self.body()) == self.hash


def read_records(paths: Iterable[Path]) -> Iterator[AuditRecord]:
    """Every record of ``paths``, in series order (hashes not checked: verify.py does that).
    AuditError names the file and line of a record that cannot be read."""
    for path in paths:
        try:
            data = Path(path).read_bytes()
        except OSError as exc:
            raise AuditError(f"{path}: cannot read: {exc.strerror}") from None
        for number, line in enumerate(data.splitlines(), 1):
            try:
                yield AuditRecord.parse(line)
            except AuditError as exc:
                raise AuditError(f"{path}:{number}: {exc}") from None
