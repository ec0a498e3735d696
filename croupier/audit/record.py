"""One audit record: its shape, its canonical bytes, its hash and its seal.

The hash covers the canonical encoding of every field but ``hash`` and ``tag``, ``prev`` (and
``epoch``) included, so a record cannot be changed, moved or dropped without breaking the chain
(docs/audit.md §2, §3). A sealed record's ``tag`` covers the rest of it, ``hash`` included, under its
epoch's key (croupier.audit.sealing), so the chain cannot be recomputed by someone without that key.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable, Generator, Iterable, Iterator, Mapping
from contextlib import closing
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

#: ``prev`` of the first record of a series: no record comes before it.
GENESIS = "0" * 64
#: The record kinds the trail itself writes at the ends of each file.
HEADER = "header"
CLOSE = "close"
#: Format 2 headers say whether the file is sealed (its records carry ``epoch`` and ``tag``);
#: format 1 files, written before sealing, are read as unsealed.
FORMAT = 2
FORMATS = (1, 2)

_KIND = re.compile(r"^[a-z][a-z0-9_]{0,63}$")
_KEYS = ("seq", "at", "kind", "round", "fields", "prev")
_SEAL_KEYS = ("epoch", "tag")


class AuditError(Exception):
    """The audit trail cannot be written or read as asked; the message says which file and why."""


#: A record's fields as written: JSON values (checked by secrecy.secret_free before any is written).
Fields = Mapping[str, Any]  # Any: JSON values


def canonical(body: object) -> bytes:
    """Sorted keys, no spaces, ASCII only, no NaN: one byte string for one record (or any JSON
    value: an index's lines), on any machine."""
    return json.dumps(
        body, sort_keys=True, separators=(",", ":"), ensure_ascii=True, allow_nan=False
    ).encode()


def digest(body: Mapping[str, Any]) -> str:  # Any: a record's JSON fields
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
    fields: Fields
    prev: str
    hash: str
    epoch: int | None = None  # the sealing key's epoch; None in an unsealed file
    tag: str | None = None  # HMAC-SHA256 of ``sealed_bytes`` under that epoch's key

    def body(self) -> dict[str, Any]:  # Any: a record's JSON fields
        """Everything the hash covers."""
        body = {
            "seq": self.seq,
            "at": self.at,
            "kind": self.kind,
            "round": self.round,
            "fields": dict(self.fields),
            "prev": self.prev,
        }
        return body if self.epoch is None else {**body, "epoch": self.epoch}

    def sealed_bytes(self) -> bytes:
        """Everything the tag covers: the record but its tag."""
        return canonical({**self.body(), "hash": self.hash})

    def line(self) -> bytes:
        """The record's one valid encoding on disk (the verifier refuses any other)."""
        if self.tag is None:
            return self.sealed_bytes() + b"\n"
        return canonical({**self.body(), "hash": self.hash, "tag": self.tag}) + b"\n"

    @classmethod
    def seal(
        cls,
        seq: int,
        at: str,
        kind: str,
        round: int | None,
        fields: Fields,
        prev: str,
        *,
        sealer: Callable[[bytes], str] | None = None,
        epoch: int | None = None,
    ) -> AuditRecord:
        """The record hashed and, given the ``sealer`` of ``epoch``, tagged."""
        return cls.sealed_line(seq, at, kind, round, fields, prev, sealer=sealer, epoch=epoch)[0]

    @classmethod
    def sealed_line(
        cls,
        seq: int,
        at: str,
        kind: str,
        round: int | None,
        fields: Fields,
        prev: str,
        *,
        sealer: Callable[[bytes], str] | None = None,
        epoch: int | None = None,
    ) -> tuple[AuditRecord, bytes]:
        """``seal``'s record and its ``line``, the record encoded once (the writer's path, once per
        record written). The hashed body's canonical bytes are the line's but for ``hash`` (and
        ``tag``): ``hash`` goes in just before the top-level ``kind``, the first key after it in
        sorted order (``kind``, ``prev``, ``round`` and ``seq`` follow ``fields``, and none of their
        values holds a quote, so the last ``,"kind":`` is the top-level one), ``tag`` at the end,
        the last key. ``line`` is still the definition the verifier holds each line to."""
        plain = dict(fields)
        body = {"seq": seq, "at": at, "kind": kind, "round": round, "fields": plain, "prev": prev}
        if sealer is not None:
            body["epoch"] = epoch
        hashed = canonical(body)
        record = cls(seq, at, kind, round, plain, prev, hashlib.sha256(hashed).hexdigest(), epoch)
        at_kind = hashed.rfind(b',"kind":')
        line = b"%s,\"hash\":\"%s\"%s" % (hashed[:at_kind], record.hash.encode(), hashed[at_kind:])
        if sealer is None:
            return record, line + b"\n"
        tag = sealer(line)
        return replace(record, tag=tag), b"%s,\"tag\":\"%s\"}\n" % (line[:-1], tag.encode())

    @classmethod
    def parse(cls, line: bytes) -> AuditRecord:
        """A record from one line, shape-checked; the hash is not checked here (verify.py does)."""
        return cls.of(_loads(line))

    @classmethod
    def of(cls, data: Any) -> AuditRecord:  # Any: a record's JSON fields
        """A record from a line's JSON value, shape-checked."""
        plain, sealed = {*_KEYS, "hash"}, {*_KEYS, "hash", *_SEAL_KEYS}
        if not isinstance(data, dict) or set(data) not in (plain, sealed):
            raise AuditError(f"not an audit record: keys must be {sorted(plain)} (and epoch, tag if sealed)")
        if not isinstance(data["seq"], int) or not isinstance(data["fields"], dict):
            raise AuditError("not an audit record: seq must be a number and fields an object")
        if "epoch" in data and (not isinstance(data["epoch"], int) or not isinstance(data["tag"], str)):
            raise AuditError("not an audit record: epoch must be a number and tag text")
        return cls(**data)

    def is_sound(self) -> bool:
        """Whether ``hash`` is the hash of the rest: false when any byte of the record was changed."""
        return digest(self.body()) == self.hash


def _loads(line: bytes) -> Any:  # Any: a record's JSON fields
    try:
        return json.loads(line)
    except (ValueError, UnicodeDecodeError) as exc:
        raise AuditError(f"not a JSON record ({exc})") from None


def checked(line: bytes) -> AuditRecord | None:
    """The record on ``line`` (with its newline) if the line is its one valid encoding and its
    hash holds; None otherwise. One encoding instead of two: in a canonical line the body's own
    encoding is the line less its ``hash`` pair and (sealed) its ``tag`` pair, which come after
    ``fields`` (keys are sorted) and are found from the end, where no string can hold them (a quote
    inside a string is escaped)."""
    try:
        data = _loads(line)
        record = AuditRecord.of(data)
    except AuditError:
        return None
    if canonical(data) + b"\n" != line:  # the line's keys are the record's: its one valid encoding
        return None
    body = line[:-1]
    at = body.rfind(b',"hash":"')
    body = body[:at] + body[at + len(b',"hash":"') + 65 :]
    if record.tag is not None:
        body = body[: body.rfind(b',"tag":"')] + b"}"
    return record if hashlib.sha256(body).hexdigest() == record.hash else None


def read_records(paths: Iterable[Path]) -> Generator[AuditRecord, None, None]:
    """Every record of ``paths``, in series order, plain or compressed, read one line at a time
    (hashes not checked: verify.py does that). AuditError names the file and line of a record that
    cannot be read."""
    from croupier.audit.storage import lines_of  # storage needs AuditError from this module

    for path in paths:
        try:
            with closing(lines_of(path)) as lines:
                for number, line in enumerate(split_lines(lines), 1):
                    try:
                        record = AuditRecord.parse(line)
                    except AuditError as exc:
                        raise AuditError(f"{path}:{number}: {exc}") from None
                    yield record
        except OSError as exc:
            raise AuditError(f"{path}: cannot read: {exc.strerror}") from None


def split_lines(lines: Iterable[bytes], *, keepends: bool = False) -> Iterator[bytes]:
    """``b"".join(lines).splitlines(keepends)`` one line at a time (a carriage return ends a line
    too), for lines each ending with at most one newline: how records have always been read."""
    for line in lines:
        yield from line.splitlines(keepends)
