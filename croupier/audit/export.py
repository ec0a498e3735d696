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
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any

from croupier.audit.record import CLOSE, GENESIS, HEADER, AuditError, AuditRecord, canonical, read_records
from croupier.audit.rotation import table_of
from croupier.audit.sealing import VerificationKey
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


def _runs(records: list[AuditRecord]) -> list[dict[str, Any]]:
    """The records' runs of consecutive seq: first and last seq, the first's prev, the last's hash."""
    runs: list[dict[str, Any]] = []
    for record in records:
        if runs and runs[-1]["last_seq"] + 1 == record.seq:
            runs[-1] |= {"last_seq": record.seq, "last_hash": record.hash}
        else:
            runs.append(
                {
                    "first_seq": record.seq,
                    "last_seq": record.seq,
                    "prev": record.prev,
                    "last_hash": record.hash,
                }
            )
    return runs


def _row(record: AuditRecord) -> list[Any]:
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


def _encode(records: list[AuditRecord], fmt: str) -> bytes:
    if fmt == "jsonl":
        return b"".join(record.line() for record in records)
    text = io.StringIO()
    writer = csv.writer(text, lineterminator="\n")
    writer.writerow(COLUMNS)
    writer.writerows(_row(record) for record in records)
    return text.getvalue().encode()


def read_export(path: Path, fmt: str) -> list[AuditRecord]:
    """The records of an exported file; AuditError naming the line of one that cannot be read."""
    data = path.read_bytes()
    if fmt == "jsonl":
        lines: Iterable[Any] = data.splitlines()
        parse = AuditRecord.parse
    else:
        lines, parse = csv.DictReader(io.StringIO(data.decode())), _from_row
    records = []
    for number, line in enumerate(lines, 1 if fmt == "jsonl" else 2):
        try:
            records.append(parse(line))
        except AuditError as exc:
            raise AuditError(f"{path}:{number}: {exc}") from None
    return records


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
    record) or holds no record of the period."""
    if fmt not in FORMATS:
        raise AuditError(f"format {fmt!r} is not one of {', '.join(FORMATS)}")
    report = verify_series(paths)
    if report.problem is not None:
        raise AuditError(f"not exported, the trail fails verification: {report.problem}")
    table = table_of(paths[0])
    chosen, before, after, sources = [], None, None, {}
    first: AuditRecord | None = None  # the first record read in the period
    last: tuple[Path, AuditRecord] | None = None  # the last record read, and its file
    for path in paths:
        for record in read_records([path]):
            last = (path, record)
            if datetime.fromisoformat(record.at) < period.start:
                before = record
            elif period.holds(record):
                first = first or record
                sources.setdefault(plain_name(path), []).append(record)
                if kinds is None or record.kind in kinds:
                    chosen.append(record)
            elif after is None:
                after = record
    if not chosen:
        raise AuditError(f"no record of {table} from {period.start.isoformat()} to {period.end.isoformat()}")
    name = f"{table}-{period.start:%Y%m%dT%H%M%SZ}-{period.end:%Y%m%dT%H%M%SZ}" + (
        "-" + "-".join(kinds) if kinds else ""
    )
    data = _encode(chosen, fmt)
    target, manifest = out / f"{name}.{fmt}", out / f"{name}.manifest.json"
    whole = kinds is None
    document = {
        "manifest": MANIFEST,
        "table": table,
        "from": period.start.isoformat(),
        "to": period.end.isoformat(),
        "kinds": kinds,
        "format": fmt,
        "file": target.name,
        "sha256": hashlib.sha256(data).hexdigest(),
        "records": len(chosen),
        "sources": [
            {
                "file": file,
                "first_seq": records[0].seq,
                "last_seq": records[-1].seq,
                "last_hash": records[-1].hash,
                "last_epoch": records[-1].epoch,
            }
            for file, records in sources.items()
        ],
        "runs": _runs(chosen),
        "before": before.line().decode().rstrip("\n") if whole and before is not None else None,
        "after": after.line().decode().rstrip("\n") if whole and after is not None else None,
    }
    out.mkdir(parents=True, exist_ok=True)
    for path, content in ((target, data), (manifest, json.dumps(document, indent=2).encode() + b"\n")):
        with path.open("wb") as file:
            file.write(content)
            file.flush()
            os.fsync(file.fileno())
    return Exported(target, manifest, len(chosen), _unproven_ends(period, before, first, after, last))


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


def verify_export(path: Path, manifest_path: Path, key: VerificationKey | None = None) -> ExportReport:
    """Check an exported file against its manifest as the module says; the report names the first
    problem, or says what was proved."""
    try:
        manifest = json.loads(manifest_path.read_bytes())
        fmt, kinds = manifest["format"], manifest["kinds"]
        period = Period(datetime.fromisoformat(manifest["from"]), datetime.fromisoformat(manifest["to"]))
        if manifest.get("manifest") != MANIFEST or fmt not in FORMATS:
            raise AuditError("not a manifest this version reads")
        data = path.read_bytes()
    except (OSError, ValueError, KeyError, TypeError, AuditError) as exc:
        return ExportReport(problem=f"{manifest_path}: cannot read the manifest or the export: {exc}")
    if hashlib.sha256(data).hexdigest() != manifest["sha256"]:
        return ExportReport(
            problem=f"{path}: not the file the manifest lists (its SHA-256 differs): changed or replaced"
        )
    try:
        records = read_export(path, fmt)
    except AuditError as exc:
        return ExportReport(problem=str(exc))
    if key is not None and key.table != manifest["table"]:
        return ExportReport(
            problem=f"the verification key is table {key.table}'s, the export table {manifest['table']}'s"
        )
    keys = key.keys() if key is not None else None
    first_line = 1 if fmt == "jsonl" else 2
    lines = data.splitlines(keepends=True)
    for number, record in enumerate(records, first_line):
        where = f"{path}:{number} (seq {record.seq})"
        if fmt == "jsonl" and record.line() != lines[number - 1]:
            return ExportReport(
                problem=f"{where}: not canonical: the line is not the record's one valid encoding"
            )
        if not record.is_sound():
            return ExportReport(problem=f"{where}: altered: the record's hash does not match its contents")
        if number > first_line and record.seq <= records[number - first_line - 1].seq:
            return ExportReport(problem=f"{where}: reordered or inserted: seq does not increase")
        previous = records[number - first_line - 1] if number > first_line else None
        if previous is not None and previous.seq + 1 == record.seq and record.prev != previous.hash:
            return ExportReport(
                problem=f"{where}: inserted or altered: prev is not the hash of the record before"
            )
        if not period.holds(record) or (kinds is not None and record.kind not in kinds):
            return ExportReport(problem=f"{where}: outside the period or kinds the manifest names")
        if keys is not None and not seal_holds(keys, record):
            return ExportReport(
                problem=f"{where}: altered: the seal does not verify under epoch {record.epoch}'s key "
                "(changed, or made without the key)"
            )
        if key is not None and record.kind == HEADER and record.fields.get("key") != key.ident:
            return ExportReport(
                problem=f"{where}: sealed with key {record.fields.get('key')!r}, not {key.ident}"
            )
    if len(records) != manifest["records"] or _runs(records) != manifest["runs"]:
        return ExportReport(
            problem=f"{path}: records removed or added: the runs of seq are not the manifest's"
        )
    report = ExportReport(records=len(records))
    runs = manifest["runs"]
    report.notes.append(f"{len(runs)} run(s) of consecutive records, each chained")
    if kinds is None:
        try:
            before, after = _fence(manifest["before"], key), _fence(manifest["after"], key)
        except (AuditError, ValueError) as exc:
            return ExportReport(problem=f"{manifest_path}: {exc}")
        first, last = records[0], records[-1]
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
