"""One round's records from a series, reading through the indexes only what the round needs.

``croupier replay --round N`` and ``croupier audit show --round N`` use it (docs/audit.md §10,
decision 0025). What it checks before answering, so that a replay still refuses what fails:

1. every file's first record (its header) and, when closed, its last (its close record): each
   canonical and sound; each header chained to the previous file's close record (``prev`` its hash,
   ``seq`` the next) and numbered the next file; each close record counting the file's records;
2. every file that holds round N by its close record's ``rounds``, and the one before it (burns
   before the round may be there): its index bound to its close record (croupier.audit.index), and
   each run read there checked record by record and against the run's last hash;
3. any file it cannot read that way (the newest, still open; a file written before indexes; an
   index missing or not matching): read whole and verified whole, chained to its neighbours' ends.

Anything that fails returns None: the caller then reads and verifies the whole series as it did
before indexes, so an index can make an answer faster, never different.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from croupier.audit.index import FileIndex, IndexBuilder, Run, groups, load, read_run
from croupier.audit.record import CLOSE, HEADER, AuditError, AuditRecord
from croupier.audit.storage import first_line, last_line, read_bytes
from croupier.audit.verify import verify_series


@dataclass(frozen=True)
class Found:
    """Round N's records (every record with that round number, in series order) and the burns a
    replay shows before its rounds."""

    records: list[AuditRecord]
    burns: list[AuditRecord]


@dataclass
class _File:
    path: Path
    header: AuditRecord
    close: AuditRecord | None
    index: FileIndex | None = None
    whole: list[AuditRecord] | None = None  # the file's records, when read whole

    def holds(self, number: int) -> bool:
        rounds = self.close.fields.get("rounds") if self.close is not None else None
        if self.close is None or "index" not in self.close.fields:
            return True  # no bound round numbers: it may hold the round
        return isinstance(rounds, list) and len(rounds) == 2 and rounds[0] <= number <= rounds[1]

    def runs(self) -> list[Run]:
        if self.index is not None:
            return self.index.runs
        data = b"".join(record.line() for record in self.whole or [])
        return IndexBuilder.of_lines(self.path.name, data).runs


def _record(line: bytes) -> AuditRecord | None:
    try:
        record = AuditRecord.parse(line)
    except AuditError:
        return None
    return record if record.line() == line + b"\n" and record.is_sound() else None


def _ends(paths: list[Path]) -> list[_File] | None:
    """Each file's header and close record, chained file to file (check 1 of the module)."""
    files: list[_File] = []
    for position, path in enumerate(paths):
        try:
            header, last = _record(first_line(path)), _record(last_line(path))
        except (OSError, AuditError):
            return None
        if header is None or header.kind != HEADER or last is None:
            return None
        close = last if last.kind == CLOSE else None
        if close is None and position != len(paths) - 1:
            return None
        if close is not None and close.seq - header.seq + 1 != close.fields.get("records"):
            return None
        if files:
            before = files[-1]
            if before.close is None or header.prev != before.close.hash or header.seq != before.close.seq + 1:
                return None
            if header.fields.get("file") != before.header.fields.get("file", 0) + 1:
                return None
        files.append(_File(Path(path), header, close))
    return files


def _open(file: _File) -> bool:
    """Load the file's bound index, or read and verify it whole (checks 2 and 3)."""
    if file.close is not None and isinstance(file.close.fields.get("index"), str):
        file.index = load(file.path, file.close.fields["index"])
        if file.index is not None:
            return True
    report = verify_series([file.path])
    if not report.ok or report.last_hash != (file.close.hash if file.close else report.last_hash):
        return False
    try:
        file.whole = [AuditRecord.parse(line) for line in read_bytes(file.path).splitlines()]
    except (OSError, AuditError):
        return False
    return file.whole[0].hash == file.header.hash


def _records(file: _File, run: Run) -> list[AuditRecord] | None:
    if file.index is not None:
        return read_run(file.path, file.index, run)
    return [record for record in file.whole or [] if run.first_seq <= record.seq <= run.last_seq]


def find_round(paths: list[Path], number: int) -> Found | None:
    """Round ``number``'s records and the burns before it, read as the module says; None when
    anything does not check, or the round is not there (the caller reads the whole series)."""
    files = _ends(paths)
    if files is None:
        return None
    chosen = [i for i, file in enumerate(files) if file.holds(number)]
    if not chosen:
        return None
    wanted = sorted({*chosen, max(chosen[0] - 1, 0)})
    if not all(_open(files[i]) for i in wanted):
        return None
    located = [(files[i], run) for i in wanted for run in files[i].runs()]
    owner = {id(run): file for file, run in located}
    runs = [run for _, run in located]
    rounds = groups(runs)
    ends = sorted(group[-1].last_seq for group in rounds)
    burns: list[Run] = []
    for group in (group for group in rounds if group[0].round == number):
        before = max((end for end in ends if end < group[0].first_seq), default=0)
        burns += [
            r for r in runs if r.round is None and before < r.first_seq and r.last_seq < group[0].first_seq
        ]
    mine = [run for run in runs if run.round == number]
    if not mine:
        return None
    read = {id(run): _records(owner[id(run)], run) for run in [*mine, *burns]}
    if any(records is None for records in read.values()):
        return None
    return Found(
        [record for run in mine for record in read[id(run)] or []],
        [record for run in burns for record in read[id(run)] or []],
    )
