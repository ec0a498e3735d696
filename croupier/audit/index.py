"""Where each round's records are in a closed file: the index kept beside it, bound into its chain.

``croupier replay --round N`` and ``croupier audit show --round N`` read only the records they need
through it instead of every file of the trail (docs/audit.md §10, decision 0025). The index is a
convenience, never evidence, and is bound so that it cannot change an answer:

- The writer builds it as it writes the file and, before the close record, writes it beside the
  file (``T1-000004.idx``); the close record carries its SHA-256 (``index``) and the file's round
  numbers (``rounds``), so the index is as much part of the chain as the close record is. An index
  whose digest is not the close record's is not used.
- Each *run* it lists (consecutive records of one round, or burns) names its seq range, its
  position in the file's lines and the hash of its last record. The records read there must be
  canonical, sound, contiguous, chained one to the next and end on that hash: the hash commits to
  every record before it, so only the records of the chain can pass.
- Anything that does not hold (no index, another digest, bytes that do not check) makes the reader
  read the file whole instead, as if there were no index.

The member map of a compressed file (croupier.audit.storage) is kept on the index's second line;
it is not bound (it is made after the close), and a wrong map gives bytes that fail the checks
above.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from croupier.audit.record import AuditError, AuditRecord, canonical, checked
from croupier.audit.replay import BURN  # burns between rounds, shown with the round they preceded
from croupier.audit.storage import MemberMap, index_path, plain_name, read_range, sync_directory

#: Runs per chunk of the index, about: a round is found by reading the index's first line and one
#: or two chunks, not every run of a 64 MiB file.
CHUNK = 64
_MEMBERS = b'{"members":'


@dataclass(frozen=True)
class Run:
    """Consecutive records of one round (``round`` set; ``numbered`` when they carry a
    ``round_seq``, the replay's round records) or of burns between rounds (``round`` None)."""

    round: int | None
    numbered: bool
    first_round_seq: int | None
    last_round_seq: int | None
    first_seq: int
    last_seq: int
    offset: int
    length: int
    last_hash: str

    def as_list(self) -> list[int | str | None]:
        return [
            self.round,
            self.numbered,
            self.first_round_seq,
            self.last_round_seq,
            self.first_seq,
            self.last_seq,
            self.offset,
            self.length,
            self.last_hash,
        ]


def _label(record: AuditRecord) -> tuple[int | None, bool] | None:
    """What run a record belongs in: its round (numbered or not), a burn, or none."""
    if record.round is not None:
        return record.round, isinstance(record.fields.get("round_seq"), int)
    return (None, False) if record.kind == BURN else None


class IndexBuilder:
    """The index of one file, built record by record as the writer appends them."""

    def __init__(self, name: str) -> None:
        self.name = plain_name(name)
        self.runs: list[Run] = []
        self._open: Run | None = None

    @classmethod
    def of_lines(cls, name: str, data: bytes) -> IndexBuilder:
        """The index of a file already written (a file resumed after a crash): its lines in order."""
        builder, offset = cls(name), 0
        for line in data.splitlines(keepends=True):
            builder.add(AuditRecord.parse(line), offset, len(line))
            offset += len(line)
        return builder

    def add(self, record: AuditRecord, offset: int, length: int) -> None:
        label = _label(record)
        if label is None:
            self._close_run()
            return
        round_seq = record.fields.get("round_seq") if label[1] else None
        run = self._open
        if (
            run is not None
            and (run.round, run.numbered) == label
            and run.last_seq + 1 == record.seq
            and (round_seq is None or run.last_round_seq is None or round_seq > run.last_round_seq)
        ):
            self._open = Run(
                run.round,
                run.numbered,
                run.first_round_seq,
                round_seq,
                run.first_seq,
                record.seq,
                run.offset,
                offset + length - run.offset,
                record.hash,
            )
            return
        self._close_run()
        self._open = Run(*label, round_seq, round_seq, record.seq, record.seq, offset, length, record.hash)

    def _close_run(self) -> None:
        if self._open is not None:
            self.runs.append(self._open)
            self._open = None

    def rounds(self) -> list[int] | None:
        """The lowest and highest round number in the file, None if it holds no round."""
        runs = self.runs + ([self._open] if self._open else [])
        numbers = [run.round for run in runs if run.round is not None]
        return [min(numbers), max(numbers)] if numbers else None

    def lines(self) -> list[bytes]:
        """The index as written: its first line lists the chunks (what the close record's ``index``
        digest covers), each with the digest of its own line and where that line is (from the
        start of the second line), one line a chunk after it."""
        self._close_run()
        runs = _chunks(self.runs)
        chunks = [canonical([run.as_list() for run in chunk]) for chunk in runs]
        top, offset = [], 0
        for chunk, line in zip(runs, chunks, strict=True):
            digest = hashlib.sha256(line).hexdigest()
            top.append(
                [*_round_range(chunk), chunk[0].first_seq, chunk[-1].last_seq, digest, offset, len(line)]
            )
            offset += len(line) + 1
        return [canonical({"file": self.name, "chunks": top}), *chunks]

    def write(self, path: Path) -> str:
        """Write the index beside ``path`` (temporary file, fsync, rename) and return its digest for
        the close record."""
        lines = self.lines()
        _write_atomic(index_path(path), b"\n".join(lines) + b"\n")
        return hashlib.sha256(lines[0]).hexdigest()


def _round_range(runs: list[Run]) -> list[int | None]:
    numbers = [run.round for run in runs if run.round is not None]
    return [min(numbers), max(numbers)] if numbers else [None, None]


def _chunks(runs: list[Run]) -> list[list[Run]]:
    """The runs cut into chunks of about ``CHUNK``, each cut where no round is open (every round
    whose records began before the cut ended before it), so that a chunk and the one before it
    hold every round that ends near it: what a replay needs to place the burns before a round."""
    index_of = {id(run): i for i, run in enumerate(runs)}
    end_of: dict[int, int] = {}  # a run's position -> the position of its round's last run
    for group in groups(runs):
        last = index_of[id(group[-1])]
        for run in group:
            end_of[index_of[id(run)]] = last
    open_until, chunks, start = -1, [], 0
    for i in range(len(runs)):
        open_until = max(open_until, end_of.get(i, i))
        if i + 1 - start >= CHUNK and open_until <= i:
            chunks.append(runs[start : i + 1])
            start = i + 1
    return [*chunks, runs[start:]] if start < len(runs) else chunks


def _write_atomic(target: Path, data: bytes) -> None:
    temporary = target.with_name(f".{target.name}.tmp")
    with temporary.open("wb") as out:
        out.write(data)
        out.flush()
        os.fsync(out.fileno())
    os.rename(temporary, target)
    sync_directory(target.parent)


def add_members(path: Path, member_map: MemberMap) -> None:
    """Keep a compressed file's member map on its index's last line (unbound: see the module)."""
    if not path.exists():
        return
    lines = [line for line in path.read_bytes().split(b"\n") if line and not line.startswith(_MEMBERS)]
    members = canonical([member_map.plain, member_map.packed])
    _write_atomic(path, b"\n".join([*lines, _MEMBERS + members + b"}"]) + b"\n")


@dataclass(frozen=True)
class Chunk:
    """One chunk of an index: the rounds and seqs its runs cover, its line's digest and place."""

    first_round: int | None
    last_round: int | None
    first_seq: int
    last_seq: int
    digest: str
    offset: int  # from the start of the index's second line
    length: int

    def holds(self, number: int) -> bool:
        return self.first_round is not None and self.first_round <= number <= (self.last_round or 0)


class FileIndex:
    """A file's index, once its first line's digest matched the close record's; each chunk is
    checked against its digest there when it is read."""

    def __init__(self, chunks: list[Chunk], data: bytes, base: int, members: MemberMap | None) -> None:
        self.chunks, self._data, self._base, self.members = chunks, data, base, members

    def runs(self, position: int) -> list[Run] | None:
        """The runs of chunk ``position``; None if its line is not the one the first line names."""
        chunk = self.chunks[position]
        start = self._base + chunk.offset
        line = self._data[start : start + chunk.length]
        if hashlib.sha256(line).hexdigest() != chunk.digest:
            return None
        try:
            return [Run(*entry) for entry in json.loads(line)]
        except (ValueError, TypeError):
            return None


def load(path: Path, digest: str) -> FileIndex | None:
    """The index of ``path`` if it is there, names the file and its first line hashes to
    ``digest`` (the close record's); None otherwise (the caller reads the file whole)."""
    try:
        data = index_path(path).read_bytes()
        base = data.find(b"\n") + 1
        if not base or hashlib.sha256(data[: base - 1]).hexdigest() != digest:
            return None
        top = json.loads(data[: base - 1])
        if top.get("file") != plain_name(path):
            return None
        chunks = [Chunk(*entry) for entry in top["chunks"]]
        start = base + (chunks[-1].offset + chunks[-1].length + 1 if chunks else 0)
        members = None
        if data.startswith(_MEMBERS, start):
            plain, packed = json.loads(data[start + len(_MEMBERS) : data.find(b"}", start)])
            members = MemberMap(plain, packed)
    except (OSError, ValueError, TypeError, KeyError):
        return None
    return FileIndex(chunks, data, base, members)


def read_run(path: Path, index: FileIndex, run: Run) -> list[AuditRecord] | None:
    """The records of ``run``, or None if the bytes there are not exactly the chain's records the
    index describes (see the module)."""
    try:
        data = read_range(path, run.offset, run.length, index.members)
    except (OSError, AuditError):
        return None
    records: list[AuditRecord] = []
    for line in data.splitlines(keepends=True):
        record = checked(line)
        if (
            record is None
            or record.seq != run.first_seq + len(records)
            or (records and record.prev != records[-1].hash)
            or _label(record) != (run.round, run.numbered)
        ):
            return None
        records.append(record)
    if not records or records[-1].seq != run.last_seq or records[-1].hash != run.last_hash:
        return None
    return records


def groups(runs: Iterable[Run]) -> list[list[Run]]:
    """The numbered runs grouped into rounds as ``croupier.audit.replay.round_records`` groups
    records: a round number seen again from a round_seq not above its last is a new round."""
    found: list[list[Run]] = []
    current: dict[int, list[Run]] = {}
    for run in runs:
        if run.round is None or not run.numbered:
            continue
        group = current.get(run.round)
        if group is None or (run.first_round_seq or 0) <= (group[-1].last_round_seq or 0):
            group = current[run.round] = []
            found.append(group)
        group.append(run)
    return found
