"""A period of the trail exported for the Gaming Control Board, with a manifest to check it by.

``croupier audit export`` writes the records whose ``at`` falls in a UTC period (optionally of some
kinds only) and a manifest; ``croupier audit verify EXPORT --manifest MANIFEST [--key K]`` checks
the exported copy on any machine (docs/audit.md §11, decision 0025; 465a.6: records kept 5 years
and made available to the Board).

What the check proves, and what it cannot:

- Every exported record is exactly a record of the series: its line canonical and its hash sound;
  with the verification key, its seal verifies under its epoch's key, so nobody without the keys
  of those epochs made or changed it.
- Records with consecutive ``seq`` are chained (``prev`` the hash of the one before): each such run
  is a piece of the series with nothing removed, added or reordered inside it.
- A whole period (no ``--kind``) is one run, and the manifest carries the records just outside it
  (``before``, ``after``): the first exported record chains to a record before the period (or is
  seq 1, from genesis) and the last to one after it, so no record of the period is missing at
  either end.
- Without ``after`` the end is not proven: records after the last exported one may be missing, and
  nothing in the export can show they are not. Not even a shutdown's close record as the last: the
  service started again opens a new file chained on, whose records may fall in the period. The
  verifier then says the end is unproven (``unproven``), never "complete"; a head noted outside the
  PC after the period's end (docs/audit.md §9) equal to the last record shows it, by hand.
- A subset by kind is not contiguous: each record is proved a record of the series (sealed, with
  the key), but not that every record of those kinds is there; that needs the whole period.

The manifest names the source files, their first and last ``seq`` and the hash (and epoch) of each
one's last record, the heads a witness may have noted (``croupier audit head``), so the export can be
set beside them. The jsonl export is the records' own lines; the csv is for people (one column per
key, ``fields`` as canonical JSON), checked the same way while nobody edits it, but a spreadsheet
that saves it again changes numbers, dates and quoting, and it then no longer checks.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import os
from collections.abc import Callable, Iterable, Iterator
from contextlib import closing
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any, BinaryIO, TypeVar

from croupier.audit.record import (
    CLOSE,
    GENESIS,
    HEADER,
    AuditError,
    AuditRecord,
    canonical,
    read_records,
    split_lines,
)
from croupier.audit.rotation import table_of
from croupier.audit.sealing import KeyWalk, VerificationKey
from croupier.audit.storage import plain_name
from croupier.audit.verify import seal_holds, verify_series

FORMATS = ("jsonl", "csv")
MANIFEST = 1
COLUMNS = ("seq", "at", "kind", "round", "fields", "prev", "epoch", "hash", "tag")


def parse_moment(text: str, *, end: bool) -> datetime:
    """A date (``2026-03-01``: the whole UTC day, so an end date includes its day) or an ISO 8601
    time with its zone; AuditError names what was wrong."""
    try:
        if len(text) == 10:
            day = datetime.combine(date.fromisoformat(text), datetime.min.time(), UTC)
            return day + timedelta(days=1) if end else day
        moment = datetime.fromisoformat(text)
    except ValueError:
        raise AuditError(f"{text!r} is not a date (YYYY-MM-DD) or an ISO 8601 time") from None
    if moment.tzinfo is None:
        raise AuditError(f"{text!r} has no time zone: give a date, or a time with Z or +00:00")
    return moment.astimezone(UTC)


@dataclass(frozen=True)
class Period:
    """From ``start`` (included) to ``end`` (excluded), UTC."""

    start: datetime
    end: datetime

    def __post_init__(self) -> None:
        if self.end <= self.start:
            raise AuditError(
                f"the period ends ({self.end.isoformat()}) before it starts ({self.start.isoformat()})"
            )

    def holds(self, record: AuditRecord) -> bool:
        return self.start <= datetime.fromisoformat(record.at) < self.end


class _Runs:
    """The runs of consecutive seq of records taken in order: first and last seq, the first's prev,
    the last's hash (the manifest's ``runs``), kept as the records pass."""

    def __init__(self) -> None:
        self.runs: list[dict[str, Any]] = []  # Any: JSON fields and csv cells

    def add(self, record: AuditRecord) -> None:
        if self.runs and self.runs[-1]["last_seq"] + 1 == record.seq:
            self.runs[-1] |= {"last_seq": record.seq, "last_hash": record.hash}
        else:
            self.runs.append(
                {
                    "first_seq": record.seq,
                    "last_seq": record.seq,
                    "prev": record.prev,
                    "last_hash": record.hash,
                }
            )


def _row(record: AuditRecord) -> list[Any]:  # Any: JSON fields and csv cells
    fields = canonical(record.fields).decode()
    return [
        record.seq,
        record.at,
        record.kind,
        record.round,
        fields,
        record.prev,
        record.epoch,
        record.hash,
        record.tag,
    ]


def _from_row(row: dict[str, str]) -> AuditRecord:
    """A record back from its csv row; AuditError if the row is not one."""
    try:
        return AuditRecord(
            seq=int(row["seq"]),
            at=row["at"],
            kind=row["kind"],
            round=int(row["round"]) if row["round"] else None,
            fields=json.loads(row["fields"]),
            prev=row["prev"],
            hash=row["hash"],
            epoch=int(row["epoch"]) if row["epoch"] else None,
            tag=row["tag"] or None,
        )
    except (KeyError, ValueError, TypeError) as exc:
        raise AuditError(f"not a record row ({exc})") from None


class _Output:
    """The export file being written, a record at a time, and the SHA-256 of what was written."""

    def __init__(self, file: BinaryIO, fmt: str) -> None:
        self.file, self.fmt, self.sha256 = file, fmt, hashlib.sha256()
        self._text = io.StringIO()
        self._csv = csv.writer(self._text, lineterminator="\n")
        if fmt == "csv":
            self._row(COLUMNS)

    def _row(self, row: Iterable[Any]) -> None:  # Any: JSON fields and csv cells
        self._csv.writerow(row)
        self._write(self._text.getvalue().encode())
        self._text.seek(0)
        self._text.truncate()

    def _write(self, data: bytes) -> None:
        self.file.write(data)
        self.sha256.update(data)

    def add(self, record: AuditRecord) -> None:
        if self.fmt == "jsonl":
            self._write(record.line())
        else:
            self._row(_row(record))


def read_export(path: Path, fmt: str) -> Iterator[tuple[int, AuditRecord, bytes]]:
    """The records of an exported file, one at a time, each with its line number and (jsonl) the
    line it was read from, its line end kept; AuditError naming the line of one that cannot be
    read."""
    with path.open("rb") as file:
        if fmt == "jsonl":
            for number, line in enumerate(split_lines(file, keepends=True), 1):
                body = line.splitlines()[0]  # one line: split_lines gave it
                yield number, _parsed(path, number, AuditRecord.parse, body), line
            return
        rows = csv.DictReader(io.TextIOWrapper(file, encoding="utf-8", newline="\n"))
        try:
            for number, row in enumerate(rows, 2):
                yield number, _parsed(path, number, _from_row, row), b""
        except UnicodeDecodeError as exc:
            raise AuditError(f"{path}: not UTF-8 text ({exc})") from None
        except csv.Error as exc:
            raise AuditError(f"{path}:{rows.line_num}: not a csv row ({exc})") from None


Line = TypeVar("Line")  # a line of a JSON lines file, or a row of a csv one


def _parsed(path: Path, number: int, parse: Callable[[Line], AuditRecord], line: Line) -> AuditRecord:
    try:
        return parse(line)
    except AuditError as exc:
        raise AuditError(f"{path}:{number}: {exc}") from None


@dataclass(frozen=True)
class Exported:
    """What ``export`` wrote; ``unproven`` says which end of the period the files given cannot
    prove complete, and what to give instead (empty when both ends are provable)."""

    data: Path
    manifest: Path
    records: int
    unproven: list[str]


def export(paths: list[Path], period: Period, kinds: list[str] | None, fmt: str, out: Path) -> Exported:
    """Verify the series, then write the period's records (of ``kinds`` if given) to ``out`` and
    their manifest beside. AuditError if the series fails verification (naming the first bad
    record) or holds no record of the period.

    Both passes read one record at a time and each exported record is written as it is read, so
    memory holds the manifest's summary, not the period (a month of a busy table is a gigabyte of
    trail, decision 0025)."""
    if fmt not in FORMATS:
        raise AuditError(f"format {fmt!r} is not one of {', '.join(FORMATS)}")
    report = verify_series(paths)
    if report.problem is not None:
        raise AuditError(f"not exported, the trail fails verification: {report.problem}")
    table = table_of(paths[0])
    name = f"{table}-{period.start:%Y%m%dT%H%M%SZ}-{period.end:%Y%m%dT%H%M%SZ}" + (
        "-" + "-".join(kinds) if kinds else ""
    )
    target, manifest = out / f"{name}.{fmt}", out / f"{name}.manifest.json"
    temporary = out / f".{target.name}.tmp"
    made = not out.exists()
    out.mkdir(parents=True, exist_ok=True)
    try:
        with temporary.open("wb") as file:
            written = _write(paths, period, kinds, _Output(file, fmt))
            file.flush()
            os.fsync(file.fileno())
        if not written.runs.runs:
            raise AuditError(
                f"no record of {table} from {period.start.isoformat()} to {period.end.isoformat()}"
            )
        os.rename(temporary, target)
    except BaseException:
        temporary.unlink(missing_ok=True)
        if made:
            out.rmdir()
        raise
    whole = kinds is None
    before, after = written.before, written.after
    document = {
        "manifest": MANIFEST,
        "table": table,
        "from": period.start.isoformat(),
        "to": period.end.isoformat(),
        "kinds": kinds,
        "format": fmt,
        "file": target.name,
        "sha256": written.output.sha256.hexdigest(),
        "records": written.records,
        "sources": [
            {
                "file": file,
                "first_seq": first,
                "last_seq": last.seq,
                "last_hash": last.hash,
                "last_epoch": last.epoch,
            }
            for file, (first, last) in written.sources.items()
        ],
        "runs": written.runs.runs,
        "before": before.line().decode().rstrip("\n") if whole and before is not None else None,
        "after": after.line().decode().rstrip("\n") if whole and after is not None else None,
    }
    with manifest.open("wb") as file:
        file.write(json.dumps(document, indent=2).encode() + b"\n")
        file.flush()
        os.fsync(file.fileno())
    return Exported(
        target, manifest, written.records, _unproven_ends(period, before, written.first, after, written.last)
    )


@dataclass
class _Written:
    """What one pass over the series wrote, and the manifest's summary of it."""

    output: _Output
    runs: _Runs = field(default_factory=_Runs)
    records: int = 0
    before: AuditRecord | None = None  # the last record read before the period
    first: AuditRecord | None = None  # the first record read in the period
    after: AuditRecord | None = None  # the first record read after it
    last: tuple[Path, AuditRecord] | None = None  # the last record read, and its file
    sources: dict[str, tuple[int, AuditRecord]] = field(default_factory=dict)  # first seq, last record


def _write(paths: list[Path], period: Period, kinds: list[str] | None, output: _Output) -> _Written:
    """Read the series a record at a time and write the period's records (of ``kinds``) to
    ``output`` as they come."""
    written = _Written(output)
    for path in paths:
        with closing(read_records([path])) as records:
            for record in records:
                written.last = (path, record)
                if datetime.fromisoformat(record.at) < period.start:
                    written.before = record
                elif period.holds(record):
                    written.first = written.first or record
                    source = plain_name(path)
                    written.sources[source] = (written.sources.get(source, (record.seq, record))[0], record)
                    if kinds is None or record.kind in kinds:
                        output.add(record)
                        written.runs.add(record)
                        written.records += 1
                elif written.after is None:
                    written.after = record
    return written


def _unproven_ends(
    period: Period,
    before: AuditRecord | None,
    first: AuditRecord | None,
    after: AuditRecord | None,
    last: tuple[Path, AuditRecord] | None,
) -> list[str]:
    """Which end of the period the files given leave unproven: the file before or after missing,
    or the series not yet past the period's end."""
    unproven = []
    if before is None and first is not None and first.seq != 1:
        unproven.append(
            f"the files given begin inside the period, at seq {first.seq} ({first.at}): give the file "
            "before it too, or the export's start cannot be proved complete"
        )
    if after is None and last is not None:
        path, record = last
        unproven.append(
            f"the files given end inside the period, at seq {record.seq} ({record.at}, in "
            f"{plain_name(path)}), before its end ({period.end.isoformat()}): the export cannot be "
            "proved complete at its end. Give the next file of the series too; if this is the "
            "series' newest record, export again once the table has written a record after the "
            "period"
        )
    return unproven


@dataclass
class ExportReport:
    """``problem``: the first thing wrong (exit 1). ``unproven``: every record checks, but the
    whole period's end is not proven complete, and why (exit 3). ``notes``: what was proved."""

    records: int = 0
    problem: str | None = None
    unproven: str | None = None
    notes: list[str] = field(default_factory=list)


def _fence(line: str | None, key: VerificationKey | None) -> AuditRecord | None:
    if line is None:
        return None
    record = AuditRecord.parse(line.encode())
    if record.line() != line.encode() + b"\n" or not record.is_sound():
        raise AuditError("the manifest's record outside the period is not sound")
    if key is not None and not seal_holds(key.keys(), record):
        raise AuditError(
            f"the manifest's record seq {record.seq} outside the period is not sealed by the key"
        )
    return record


def _end_unproven(last: AuditRecord, period: Period) -> str:
    """Why the end of a whole period without the record after it is not proven, and what would
    prove it."""
    said = (
        f"NOT proven complete at its end: the manifest holds no record after the period, so records "
        f"after seq {last.seq} ({last.at}) and before {period.end.isoformat()} may be missing"
    )
    if last.kind == CLOSE and last.fields.get("reason") == "shutdown":
        return (
            f"{said}; seq {last.seq} closed the trail at a shutdown, and had the service started "
            "again it would have written on in a new file: only a head noted after the period's end "
            f"(croupier audit head, docs/audit.md §9) that is seq {last.seq}, hash {last.hash}, shows "
            "the period complete"
        )
    return f"{said}; export again with the series' next file, or once it has a record after the period"


def _problem(where: str, record: AuditRecord, line: bytes | None, previous: AuditRecord | None) -> str | None:
    """What is wrong with an exported record as a record of the series, after ``previous``."""
    if line is not None and record.line() != line:
        return f"{where}: not canonical: the line is not the record's one valid encoding"
    if not record.is_sound():
        return f"{where}: altered: the record's hash does not match its contents"
    if previous is not None and record.seq <= previous.seq:
        return f"{where}: reordered or inserted: seq does not increase"
    if previous is not None and previous.seq + 1 == record.seq and record.prev != previous.hash:
        return f"{where}: inserted or altered: prev is not the hash of the record before"
    return None


def _outside(
    where: str,
    record: AuditRecord,
    period: Period,
    kinds: list[str] | None,
    keys: KeyWalk | None,
    key: VerificationKey | None,
) -> str | None:
    """What makes a sound record not one the manifest says the export holds, or not the key's."""
    if not period.holds(record) or (kinds is not None and record.kind not in kinds):
        return f"{where}: outside the period or kinds the manifest names"
    if keys is not None and not seal_holds(keys, record):
        return (
            f"{where}: altered: the seal does not verify under epoch {record.epoch}'s key "
            "(changed, or made without the key)"
        )
    if key is not None and record.kind == HEADER and record.fields.get("key") != key.ident:
        return f"{where}: sealed with key {record.fields.get('key')!r}, not {key.ident}"
    return None


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as file:
        while chunk := file.read(64 * 1024):
            digest.update(chunk)
    return digest.hexdigest()


def verify_export(path: Path, manifest_path: Path, key: VerificationKey | None = None) -> ExportReport:
    """Check an exported file against its manifest as the module says, reading it a record at a
    time; the report names the first problem, or says what was proved."""
    try:
        manifest = json.loads(manifest_path.read_bytes())
        fmt, kinds = manifest["format"], manifest["kinds"]
        period = Period(datetime.fromisoformat(manifest["from"]), datetime.fromisoformat(manifest["to"]))
        if manifest.get("manifest") != MANIFEST or fmt not in FORMATS:
            raise AuditError("not a manifest this version reads")
        sha256 = _sha256(path)
    except (OSError, ValueError, KeyError, TypeError, AuditError) as exc:
        return ExportReport(problem=f"{manifest_path}: cannot read the manifest or the export: {exc}")
    if sha256 != manifest["sha256"]:
        return ExportReport(
            problem=f"{path}: not the file the manifest lists (its SHA-256 differs): changed or replaced"
        )
    wrong_key = key is not None and key.table != manifest["table"]
    keys = key.keys() if key is not None else None
    seen, count, problem = _Runs(), 0, None
    first: AuditRecord | None = None
    previous: AuditRecord | None = None
    try:
        # A line that cannot be read is named before any other problem, as when the file was read
        # whole before its records were checked: after a problem the rest is still read.
        for number, record, line in read_export(path, fmt):
            if problem is None and not wrong_key:
                where = f"{path}:{number} (seq {record.seq})"
                problem = _problem(where, record, line if fmt == "jsonl" else None, previous)
                problem = problem or _outside(where, record, period, kinds, keys, key)
            if problem is None:
                first, previous, count = first or record, record, count + 1
                seen.add(record)
    except AuditError as exc:
        return ExportReport(problem=str(exc))
    except OSError as exc:
        return ExportReport(problem=f"{path}: cannot read: {exc.strerror}")
    if wrong_key and key is not None:
        return ExportReport(
            problem=f"the verification key is table {key.table}'s, the export table {manifest['table']}'s"
        )
    if problem is not None:
        return ExportReport(problem=problem)
    if count != manifest["records"] or seen.runs != manifest["runs"]:
        return ExportReport(
            problem=f"{path}: records removed or added: the runs of seq are not the manifest's"
        )
    report = ExportReport(records=count)
    runs = manifest["runs"]
    report.notes.append(f"{len(runs)} run(s) of consecutive records, each chained")
    if kinds is None:
        try:
            before, after = _fence(manifest["before"], key), _fence(manifest["after"], key)
        except (AuditError, ValueError) as exc:
            return ExportReport(problem=f"{manifest_path}: {exc}")
        last = previous
        if first is None or last is None:
            return ExportReport(problem=f"{path}: the export holds no record")
        if len(runs) != 1:
            return ExportReport(
                problem=f"{path}: removed: records of the period are missing after seq {runs[0]['last_seq']}"
            )
        if before is None and (first.seq != 1 or first.prev != GENESIS):
            return ExportReport(
                problem=f"{path}: the first record has no record before it in the manifest and is not seq 1"
            )
        if before is not None and (
            before.hash != first.prev or before.seq + 1 != first.seq or period.holds(before)
        ):
            return ExportReport(
                problem=f"{path}: the first record does not follow the record before the period"
            )
        if after is not None and (
            after.prev != last.hash or after.seq != last.seq + 1 or period.holds(after)
        ):
            return ExportReport(
                problem=f"{path}: the last record is not followed by the record after the period"
            )
        start = "from genesis (seq 1)" if before is None else f"from the record before it (seq {before.seq})"
        if after is None:
            report.unproven = _end_unproven(last, period)
            report.notes.append(f"chained {start}; {report.unproven}")
        else:
            report.notes.append(
                f"complete for the period: chained {start} to the record after it (seq {after.seq})"
            )
    else:
        report.notes.append(
            "a subset by kind: each record is a record of the series, but whether every record of "
            "those kinds is here cannot be checked from the subset (export the whole period for that)"
        )
    if keys is not None:
        report.notes.append(f"every record sealed, every seal verified (key {key.ident if key else ''})")
    else:
        report.notes.append("seals not checked (no --key): a recomputed chain passes")
    return report
