"""One round's records from a series, reading through the indexes only what the round needs.

``croupier replay --round N`` and ``croupier audit show --round N`` use it (docs/audit.md §10,
decision 0025). What it checks before answering, so that a replay still refuses what fails:

1. every file's first record (its header) and, when closed, its last (its close record): each
   canonical and sound; each header chained to the previous file's close record (``prev`` its hash,
   ``seq`` the next) and numbered the next file; each close record counting the file's records;
2. every file that holds round N by its close record's ``rounds``: its index bound to its close
   record (croupier.audit.index), the chunks holding N each checked against the index's first line,
   and, where the round begins with no round ending before it in its chunk, the chunks before it
   back to one holding a round (the burns a replay shows before the round are after that round);
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
from croupier.audit.record import CLOSE, HEADER, AuditError, AuditRecord, checked
from croupier.audit.storage import first_and_last_lines, read_bytes
from croupier.audit.verify import verify_series


@dataclass(frozen=True)
class Found:
    """Round N's records (every record with that round number, in series order) and the burns a
    replay shows before its rounds."""

    records: list[AuditRecord]
    burns: list[AuditRecord]

    def in_order(self) -> list[AuditRecord]:
        """Both, in series order: what ``croupier.audit.replay.replay`` rebuilds the round from."""
        return sorted(self.burns + self.records, key=lambda record: record.seq)


@dataclass
class _File:
    path: Path
    header: AuditRecord
    close: AuditRecord | None
    index: FileIndex | None = None
    whole: list[AuditRecord] | None = None  # the file's records, when read whole
    whole_runs: list[Run] | None = None

    def holds(self, number: int) -> bool:
        rounds = self.close.fields.get("rounds") if self.close is not None else None
        if self.close is None or "index" not in self.close.fields:
            return True  # no bound round numbers: it may hold the round
        return isinstance(rounds, list) and len(rounds) == 2 and rounds[0] <= number <= rounds[1]

    def open(self) -> bool:
        """Load the file's bound index, or read and verify it whole (checks 2 and 3)."""
        if self.index is not None or self.whole is not None:
            return True
        if self.close is not None and isinstance(self.close.fields.get("index"), str):
            self.index = load(self.path, self.close.fields["index"])
            if self.index is not None:
                return True
        report = verify_series([self.path])
        if not report.ok or (self.close is not None and report.last_hash != self.close.hash):
            return False
        try:
            data = read_bytes(self.path)
            self.whole = [AuditRecord.parse(line) for line in data.splitlines()]
        except (OSError, AuditError):
            return False
        self.whole_runs = IndexBuilder.of_lines(self.path.name, data).runs
        return self.whole[0].hash == self.header.hash

    def positions(self) -> int:
        """How many chunks the file is read in (one when read whole)."""
        return len(self.index.chunks) if self.index is not None else 1

    def chunk_runs(self, position: int) -> list[Run] | None:
        return self.index.runs(position) if self.index is not None else self.whole_runs

    def records(self, run: Run) -> list[AuditRecord] | None:
        if self.index is not None:
            return read_run(self.path, self.index, run)
        return [record for record in self.whole or [] if run.first_seq <= record.seq <= run.last_seq]


def _ends(paths: list[Path]) -> list[_File] | None:
    """Each file's header and close record, chained file to file (check 1 of the module)."""
    files: list[_File] = []
    for position, path in enumerate(paths):
        try:
            first, final = first_and_last_lines(path)
            header, last = checked(first + b"\n"), checked(final + b"\n")
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


class _Reading:
    """The chunks of the series read so far, in series order, each as (file, chunk) positions."""

    def __init__(self, files: list[_File]) -> None:
        self.files = files
        self.loaded: dict[tuple[int, int], list[Run]] = {}

    def load(self, where: tuple[int, int]) -> bool:
        if where not in self.loaded:
            runs = self.files[where[0]].chunk_runs(where[1])
            if runs is None:
                return False
            self.loaded[where] = runs
        return True

    def earlier(self, where: tuple[int, int]) -> tuple[int, int] | None:
        file, position = where
        if position > 0:
            return file, position - 1
        if file == 0 or not self.files[file - 1].open():
            return None
        return file - 1, self.files[file - 1].positions() - 1

    def with_round_before(self, where: tuple[int, int]) -> bool:
        """Load the chunks before ``where`` back to one holding a round's records: the round that
        ended last before it, after which the burns a replay shows were recorded."""
        back = self.earlier(where)
        while back is not None:
            if not self.load(back):
                return False
            if any(run.numbered for run in self.loaded[back]):
                return True
            back = self.earlier(back)
        return True

    def without_round_before(self, number: int) -> list[tuple[int, int]]:
        """The chunks where a round ``number`` begins with no round ending before it in the same
        chunk: the round before it, and the burns since, are in an earlier chunk. Chunks are cut
        where no round is open, so a round ending earlier in the chunk is the last before it."""
        where_of = {id(run): where for where, runs in self.loaded.items() for run in runs}
        rounds = groups(run for where in sorted(self.loaded) for run in self.loaded[where])
        ends = [(where_of[id(group[-1])], group[-1].last_seq) for group in rounds]
        return sorted(
            {
                where_of[id(group[0])]
                for group in rounds
                if group[0].round == number
                and not any(at == where_of[id(group[0])] and end < group[0].first_seq for at, end in ends)
            }
        )

    def runs(self) -> list[tuple[_File, Run]]:
        return [(self.files[where[0]], run) for where in sorted(self.loaded) for run in self.loaded[where]]


def find_round(paths: list[Path], number: int) -> Found | None:
    """Round ``number``'s records and the burns before it, read as the module says; None when
    anything does not check, or the round is not there (the caller reads the whole series)."""
    files = _ends(paths)
    if files is None:
        return None
    reading = _Reading(files)
    for i, file in enumerate(files):
        if not file.holds(number):
            continue
        if not file.open():
            return None
        for position in range(file.positions()):
            chunk = file.index.chunks[position] if file.index is not None else None
            if (chunk is None or chunk.holds(number)) and not reading.load((i, position)):
                return None
    for where in reading.without_round_before(number):
        if not reading.with_round_before(where):
            return None
    located = reading.runs()
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
    read = {id(run): owner[id(run)].records(run) for run in [*mine, *burns]}
    if any(records is None for records in read.values()):
        return None
    return Found(
        [record for run in mine for record in read[id(run)] or []],
        [record for run in burns for record in read[id(run)] or []],
    )
