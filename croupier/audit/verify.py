"""Checking a file or a rotation series: the first bad record, where it is and what is wrong.

What each check catches (docs/audit.md §6): a changed byte breaks that record's hash (altered); a
missing record leaves a gap in ``seq`` (removed); an added one repeats or breaks ``seq`` or ``prev``
(inserted); a moved one comes out of ``seq`` order (reordered); a partial last line, or a file that
is not the newest and lacks its closing record, is truncated.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from croupier.audit.record import CLOSE, FORMAT, GENESIS, HEADER, AuditError, AuditRecord


@dataclass(frozen=True)
class Problem:
    path: Path
    line: int  # 1-based
    seq: int | None  # the seq the line claims, if it could be read
    reason: str

    def __str__(self) -> str:
        seq = "" if self.seq is None else f" (seq {self.seq})"
        return f"{self.path}:{self.line}{seq}: {self.reason}"


@dataclass(frozen=True)
class Report:
    records: int
    last_hash: str
    last_seq: int
    closed: bool  # the newest file ends with its closing record
    anchored: bool  # the series starts at genesis (file 1), not part-way after deletions
    problem: Problem | None

    @property
    def ok(self) -> bool:
        return self.problem is None


class _Bad(Exception):
    def __init__(self, line: int, seq: int | None, reason: str) -> None:
        self.line, self.seq, self.reason = line, seq, reason


class _Walk:
    """The running state of one verification through the series."""

    def __init__(self) -> None:
        self.prev: str | None = None  # None until the first header anchors the chain
        self.seq = 0
        self.file = 0
        self.records = 0
        self.closed = True
        self.anchored = True

    def file_lines(self, data: bytes, newest: bool) -> None:
        lines = data.split(b"\n")
        partial = lines.pop()  # empty when the file ends with a newline
        if not lines and not partial:
            raise _Bad(1, None, "truncated: the file is empty (no header record)")
        records = [self._read(number, line) for number, line in enumerate(lines, 1)]
        for index, record in enumerate(records):
            self._check(index + 1, index, record, records)
        if partial:
            raise _Bad(len(lines) + 1, None, "truncated: the last line is incomplete")
        self.closed = records[-1].kind == CLOSE
        if not self.closed and not newest:
            raise _Bad(
                len(lines),
                records[-1].seq,
                "truncated: the file ends without its closing record (its last records were cut)",
            )

    @staticmethod
    def _read(number: int, line: bytes) -> AuditRecord | _Bad:
        try:
            return AuditRecord.parse(line)
        except AuditError as exc:
            return _Bad(number, None, str(exc))

    def _check(self, number: int, index: int, record: AuditRecord | _Bad, records: list) -> None:
        if isinstance(record, _Bad):
            raise record
        if not record.is_sound():
            raise _Bad(number, record.seq, "altered: the record's hash does not match its contents")
        expected = self.seq + 1
        if self.prev is not None and record.seq != expected:
            later = any(isinstance(r, AuditRecord) and r.seq == expected for r in records[index + 1 :])
            if later or record.seq < expected:
                raise _Bad(number, record.seq, f"reordered or inserted: expected seq {expected}")
            raise _Bad(number, record.seq, f"removed: records {expected}..{record.seq - 1} are missing")
        if index == 0:
            self._header(number, record)
        elif record.kind == HEADER:
            raise _Bad(number, record.seq, "inserted: a header record inside a file")
        elif record.prev != self.prev:
            raise _Bad(number, record.seq, "inserted or altered: prev is not the hash of the record before")
        if record.kind == CLOSE and (index != len(records) - 1 or record.fields.get("records") != index + 1):
            raise _Bad(number, record.seq, f"closing record does not close a file of {index + 1} records")
        self.prev, self.seq = record.hash, record.seq
        self.records += 1

    def _header(self, number: int, record: AuditRecord) -> None:
        if record.kind != HEADER:
            raise _Bad(
                number, record.seq, "the first record of a file must be its header (removed or reordered)"
            )
        if record.fields.get("format") != FORMAT:
            raise _Bad(number, record.seq, f"unknown format {record.fields.get('format')!r}")
        file = record.fields.get("file")
        if self.prev is None:
            self.anchored = file == 1 and record.prev == GENESIS and record.seq == 1
            if file == 1 and not self.anchored:
                raise _Bad(number, record.seq, "file 1 must start at seq 1 from the genesis hash")
        elif file != self.file + 1 or record.prev != self.prev:
            raise _Bad(
                number,
                record.seq,
                f"not file {self.file + 1} chained to the last hash of file {self.file}",
            )
        self.file = file


def verify_series(paths: list[Path], *, expect_closed: bool = False) -> Report:
    """Verify ``paths`` in series order; only the last may lack its closing record, and not even
    the last with ``expect_closed`` (a series archived after shutdown or rotation)."""
    walk = _Walk()
    problem = None
    for position, path in enumerate(paths):
        try:
            walk.file_lines(Path(path).read_bytes(), newest=position == len(paths) - 1 and not expect_closed)
        except _Bad as bad:
            problem = Problem(Path(path), bad.line, bad.seq, bad.reason)
            break
        except OSError as exc:
            problem = Problem(Path(path), 0, None, f"cannot read: {exc.strerror}")
            break
    return Report(walk.records, walk.prev or GENESIS, walk.seq, walk.closed, walk.anchored, problem)
