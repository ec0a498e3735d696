"""Checking a file or a rotation series: the first bad record, where it is and what is wrong.

What each check catches (docs/audit.md §6): a changed byte breaks that record's hash (altered); a
missing record leaves a gap in ``seq`` (removed); an added one repeats or breaks ``seq`` or ``prev``
(inserted); a moved one comes out of ``seq`` order (reordered); a partial last line, or a file that
is not the newest and lacks its closing record, is truncated. A line not in the record's canonical
encoding is refused, whatever it says: the bytes on disk are what was sealed. With the verification
key, a sealed record whose tag does not verify was changed even if the whole chain was recomputed
(croupier.audit.sealing); with the state database's last sealed position (croupier.audit.head), a
series that ends before it lost its newest records or files.
"""

from __future__ import annotations

import hmac
from collections.abc import Iterable, Iterator, Mapping
from contextlib import closing
from dataclasses import dataclass
from itertools import chain
from pathlib import Path

from croupier.audit.head import Head
from croupier.audit.record import CLOSE, FORMATS, GENESIS, HEADER, AuditError, AuditRecord
from croupier.audit.rotation import archived_files, series_files
from croupier.audit.sealing import KeyWalk, VerificationKey, tag
from croupier.audit.storage import check_members, is_compressed, lines_of, plain_name

#: Who noted a head the series must hold, as a problem names them.
SAVED = "the state database's last sealed position"
WITNESSED = "the head the floor witnessed"


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
    sealed: bool = False  # every file of the series is sealed
    seals_checked: bool = False  # ... and every tag was checked with the verification key
    last_file: str = ""
    last_epoch: int | None = None
    close_reason: str | None = None  # the newest file's close record's reason, if it is closed

    @property
    def ok(self) -> bool:
        return self.problem is None

    @property
    def head(self) -> Head:
        """The series' newest record as verified."""
        return Head(self.last_file, self.last_seq, self.last_hash, self.last_epoch)


def seal_holds(keys: KeyWalk, record: AuditRecord) -> bool:
    """Whether the record's tag is the HMAC of its sealed bytes under its epoch's key (records
    taken in seq order: the key walk only goes forward)."""
    if record.epoch is None or record.epoch < 1:
        return False
    return hmac.compare_digest(tag(keys.key(record.epoch), record.sealed_bytes()), record.tag or "")


class _Bad(Exception):
    def __init__(self, line: int, seq: int | None, reason: str) -> None:
        self.line, self.seq, self.reason = line, seq, reason


class _Walk:
    """The running state of one verification through the series."""

    def __init__(self, key: VerificationKey | None, expected: Mapping[int, tuple[Head, str]]) -> None:
        self.prev: str | None = None  # None until the first header anchors the chain
        self.seq = 0
        self.file = 0
        self.records = 0
        self.closed = True
        self.close_reason: str | None = None
        self.anchored = True
        self.sealed = False  # whether the file being read is sealed
        self.unsealed = False  # whether any file read so far was not
        self.epoch: int | None = None
        self.key, self.keys = key, key.keys() if key is not None else None
        self.expected = expected  # each head the series must hold, by seq, and who noted it
        self.first: int | None = None  # the first record's seq
        self.name = ""
        self.lines = 0

    def file_lines(self, name: str, lines: Iterable[bytes], newest: bool) -> None:
        """Check a file's lines (each with its newline, the last without if cut) as they come, so
        that a file of any size is verified in the memory of a few records. Each record is checked
        once the next line is read: a close record must be the file's last."""
        self.name, self.lines = name, 0
        rest = iter(lines)
        held: tuple[int, AuditRecord | _Bad] | None = None  # read, checked once the next line is
        previous: AuditRecord | None = None
        partial = b""
        for number, line in enumerate(rest, 1):
            if not line.endswith(b"\n"):
                partial = line  # only ever the last: lines end with their newline but the last
                break
            if held is not None:
                previous = self._check(*held, chain([line], rest), last=False)
            held, self.lines = (number, self._read(number, line[:-1])), number
        if held is not None:
            previous = self._check(*held, iter(()), last=True)
        if partial:
            raise _Bad(self.lines + 1, None, "truncated: the last line is incomplete")
        if previous is None:
            raise _Bad(1, None, "truncated: the file is empty (no header record)")
        self.closed = previous.kind == CLOSE
        self.close_reason = previous.fields.get("reason") if self.closed else None
        if not self.closed and not newest:
            raise _Bad(
                self.lines,
                previous.seq,
                "truncated: the file ends without its closing record (its last records were cut)",
            )

    @staticmethod
    def _read(number: int, line: bytes) -> AuditRecord | _Bad:
        try:
            record = AuditRecord.parse(line)
        except AuditError as exc:
            return _Bad(number, None, str(exc))
        if record.line() != line + b"\n":
            return _Bad(
                number,
                record.seq,
                "not canonical: the line is not the record's one valid encoding "
                "(a carriage return, spaces, \\u escapes, number forms or key order were changed)",
            )
        return record

    def _check(
        self, number: int, record: AuditRecord | _Bad, rest: Iterator[bytes], last: bool
    ) -> AuditRecord:
        """Check a record after those before it (``last``: the file's last whole line); ``rest``,
        the file's lines after it, is read only to tell a record reordered or inserted from
        records removed."""
        index = number - 1
        if isinstance(record, _Bad):
            raise record
        if not record.is_sound():
            raise _Bad(number, record.seq, "altered: the record's hash does not match its contents")
        expected = self.seq + 1
        if self.prev is not None and record.seq != expected:
            later = any(
                isinstance(r, AuditRecord) and r.seq == expected
                for r in (self._read(0, line[:-1]) for line in rest if line.endswith(b"\n"))
            )
            if later or record.seq < expected:
                raise _Bad(number, record.seq, f"reordered or inserted: expected seq {expected}")
            raise _Bad(number, record.seq, f"removed: records {expected}..{record.seq - 1} are missing")
        if index == 0:
            self._header(number, record)
        elif record.kind == HEADER:
            raise _Bad(number, record.seq, "inserted: a header record inside a file")
        elif record.prev != self.prev:
            raise _Bad(number, record.seq, "inserted or altered: prev is not the hash of the record before")
        self._seal(number, index, record)
        if record.kind == CLOSE and (not last or record.fields.get("records") != index + 1):
            raise _Bad(number, record.seq, f"closing record does not close a file of {index + 1} records")
        noted, who = self.expected.get(record.seq, (None, ""))
        if noted is not None and (record.hash != noted.hash or self.name != noted.file):
            raise _Bad(number, record.seq, f"rewritten: {who} is {noted}, and this record is not it")
        if self.first is None:
            self.first = record.seq
        self.prev, self.seq = record.hash, record.seq
        self.records += 1
        return record

    def _seal(self, number: int, index: int, record: AuditRecord) -> None:
        """A sealed file's records each carry an epoch, never going back, the first of a later file
        in a new epoch; with the key, each tag must verify."""
        if not self.sealed:
            if record.epoch is not None:
                raise _Bad(number, record.seq, "a sealed record in a file whose header says unsealed")
            return
        if record.epoch is None or record.epoch < 1:
            raise _Bad(number, record.seq, "unsealed record in a sealed file")
        if self.epoch is not None and record.epoch < self.epoch:
            raise _Bad(number, record.seq, f"epoch {record.epoch} goes back from epoch {self.epoch}")
        if index == 0 and self.epoch is not None and record.epoch == self.epoch:
            raise _Bad(number, record.seq, f"file begun in epoch {record.epoch}, the previous file's epoch")
        self.epoch = record.epoch
        if self.keys is None:
            return
        if not seal_holds(self.keys, record):
            raise _Bad(
                number,
                record.seq,
                f"altered: the seal does not verify under epoch {record.epoch}'s key "
                "(the record was changed or made without the key, even if its chain holds)",
            )

    def _header(self, number: int, record: AuditRecord) -> None:
        if record.kind != HEADER:
            raise _Bad(
                number, record.seq, "the first record of a file must be its header (removed or reordered)"
            )
        if record.fields.get("format") not in FORMATS:
            raise _Bad(number, record.seq, f"unknown format {record.fields.get('format')!r}")
        self._header_seal(number, record)
        file = record.fields.get("file")
        if not isinstance(file, int) or isinstance(file, bool):
            raise _Bad(number, record.seq, f"the header's file number is not a whole number: {file!r}")
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

    def _header_seal(self, number: int, record: AuditRecord) -> None:
        """Once a series is sealed every later file is: a file that says unsealed after a sealed one
        had its seals stripped. With the key, every file must be sealed, under that key."""
        sealed = record.fields.get("sealed", False) if record.fields.get("format") != 1 else False
        if not isinstance(sealed, bool):
            raise _Bad(number, record.seq, f"header says sealed {sealed!r}, not true or false")
        if self.sealed and not sealed:
            raise _Bad(number, record.seq, "an unsealed file after sealed files (seals stripped?)")
        self.sealed = sealed
        self.unsealed = self.unsealed or not sealed
        if self.key is None:
            return
        if not sealed:
            raise _Bad(number, record.seq, "not sealed: the file's header says unsealed")
        if record.fields.get("key") != self.key.ident or record.fields.get("table") != self.key.table:
            raise _Bad(
                number,
                record.seq,
                f"sealed with key {record.fields.get('key')!r} of table {record.fields.get('table')!r}, "
                f"not the verification key {self.key.ident} of table {self.key.table}",
            )


def verify_series(
    paths: list[Path],
    *,
    expect_closed: bool = False,
    key: VerificationKey | None = None,
    head: Head | None = None,
    witnessed: Iterable[Head] = (),
) -> Report:
    """Verify ``paths`` in series order; only the last may lack its closing record, and not even
    the last with ``expect_closed`` (a series archived after shutdown or rotation). With ``key``,
    every record must be sealed and its seal verify; with ``head`` (the state database's last
    sealed position) the series must hold that very record and not end before it; with
    ``witnessed`` (the heads an outside witness noted, floor.witness) it must hold every
    one, at its seq, in its file, with its hash: neither begin after one nor end before one."""
    expected = {noted.seq: (noted, WITNESSED) for noted in witnessed}
    if head is not None:
        expected[head.seq] = (head, SAVED)
    walk = _Walk(key, expected)
    problem = None
    for position, path in enumerate(paths):
        try:
            newest = position == len(paths) - 1 and not expect_closed
            if is_compressed(path):  # a damaged file is named as such before any record in it
                check_members(Path(path))
            with closing(lines_of(Path(path))) as lines:
                walk.file_lines(plain_name(path), lines, newest=newest)
        except _Bad as bad:
            problem = Problem(Path(path), bad.line, bad.seq, bad.reason)
            break
        except AuditError as exc:  # a compressed file whose data is damaged
            problem = Problem(Path(path), 0, None, str(exc).removeprefix(f"{path}: "))
            break
        except OSError as exc:
            problem = Problem(Path(path), 0, None, f"cannot read: {exc.strerror}")
            break
    if problem is None and paths:
        problem = _missing(paths, walk, expected)
    sealed = bool(paths) and not walk.unsealed and problem is None
    return Report(
        walk.records,
        walk.prev or GENESIS,
        walk.seq,
        walk.closed,
        walk.anchored,
        problem,
        sealed=sealed,
        seals_checked=sealed and key is not None,
        last_file=walk.name,
        last_epoch=walk.epoch,
        close_reason=walk.close_reason,
    )


def _missing(paths: list[Path], walk: _Walk, expected: Mapping[int, tuple[Head, str]]) -> Problem | None:
    """The first head noted outside the series that it does not reach: one before its first
    record (older files gone) or after its last (newest records or files gone)."""
    for seq in sorted(expected):
        noted, who = expected[seq]
        if walk.first is not None and seq < walk.first:
            return Problem(
                Path(paths[0]), 1, walk.first,
                f"removed: the series begins after {who} ({noted}): its older records or files are gone",
            )  # fmt: skip
        if seq > walk.seq:
            return Problem(
                Path(paths[-1]), walk.lines, walk.seq,
                f"removed: the series ends before {who} ({noted}): its newest records or files are gone",
            )  # fmt: skip
    return None


def current_head(directory: Path, table: str) -> Head:
    """The newest record of ``table``'s trail in ``directory``, once the on-line files verify: what
    ``croupier audit head`` prints and an outside witness notes."""
    files = series_files(directory, table) or archived_files(directory, table)[-1:]
    if not files:
        raise AuditError(f"{directory}: no audit files of table {table}")
    report = verify_series(files)
    if report.problem is not None:
        raise AuditError(str(report.problem))
    return report.head
