"""AuditTrail: appends records, each on disk (written and fsync'd) before ``append`` returns.

A caller acknowledges an action only after its record is appended, so a crash can lose only records
that were never acknowledged, and at most their last, partial line (docs/audit.md §5). With a
sealing key every record is sealed under the current epoch's key, which moves on with the clock and
at each new file (croupier.audit.sealing); with a head store, each record's position is saved there
once the record is on disk, and a series that no longer reaches it is refused (docs/audit.md §9).
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Protocol

from croupier.audit.head import Head
from croupier.audit.index import IndexBuilder
from croupier.audit.record import CLOSE, FORMAT, GENESIS, HEADER, AuditError, AuditRecord, Fields, check_kind
from croupier.audit.rotation import (
    Rotation,
    archived_files,
    check_table,
    compress_closed,
    file_name,
    number_of,
    series_files,
)
from croupier.audit.sealing import SealingKey
from croupier.audit.secrecy import secret_free
from croupier.audit.storage import read_bytes, sync_directory
from croupier.audit.verify import Report, verify_series

log = logging.getLogger(__name__)


#: How often, in seconds, an idle sealed trail checks whether its epoch has ended: the key of an
#: ended epoch is erased within this time even when no record is written.
EVOLVE_CHECK = 30.0


@dataclass(frozen=True)
class Verified:
    """A verification of the series, as the trail made it on opening: when, over how many files,
    and its report (every record chained, the saved head reached)."""

    at: datetime
    files: int
    report: Report


def utc_now() -> datetime:
    return datetime.now(UTC)


class HeadStore(Protocol):
    """Where the trail's last durable position is kept (the state database, croupier.state)."""

    def load_head(self, table: str) -> Head | None: ...

    def save_head(self, table: str, head: Head) -> None: ...


class AuditTrail:
    """The trail of one table in ``directory``: a series of files, rotated, one chain through all.

    Opening a directory that already holds the table's series verifies it, closes its newest file
    if it was left open (reason ``resumed``) and continues in a new file; a series that fails
    verification is refused, never repaired. When every file has been archived the chain continues
    from the newest file in ``archive/``, so archiving never restarts a series from genesis.

    Retention (``rotation.retention``) runs after the new file is open, at opening and at each
    rotation: the file being written is then the newest, which retention never moves.

    With ``sealing`` every file is sealed; a sealed series is never continued without a key. With
    ``heads`` a series that ends before (or differs at) the position saved there is refused.
    """

    def __init__(
        self,
        directory: Path,
        table: str,
        *,
        rotation: Rotation | None = None,
        clock: Callable[[], datetime] = utc_now,
        sealing: SealingKey | None = None,
        heads: HeadStore | None = None,
    ) -> None:
        self.directory = Path(directory)
        self.table = check_table(table)
        self.rotation = rotation or Rotation()
        self._clock = clock
        self._lock = threading.Lock()  # appends from threads, or one loop, keep their order
        self._fd: int | None = None
        self._broken: str | None = None
        self._seq, self._prev, self._file = 0, GENESIS, 0
        if sealing is not None and sealing.table != self.table:
            raise AuditError(f"{sealing.path}: the sealing key is {sealing.table}'s, not {self.table}'s")
        self._key, self._sealing_file = sealing, False
        self._heads = heads
        self._head: Head | None = None
        self._stop = threading.Event()
        #: How the series' last run ended, as the files show it: True, its newest file closed with
        #: reason ``shutdown``; False, left open (a crash, a kill, a power loss) and closed now with
        #: reason ``resumed``, or ending on a rotation's close (a crash before the next file's
        #: header); None, a new series (the service's ``service_start`` record says which).
        self.previous_clean: bool | None = None
        #: The verification of the series this trail continues, made as it was opened (None: a new
        #: series), for whoever shows the trail's state (the supervisor's console).
        self.verified: Verified | None = None
        self._tidying: threading.Thread | None = None
        self.directory.mkdir(parents=True, exist_ok=True)
        with self._lock:
            self._resume(
                series_files(self.directory, self.table) or archived_files(self.directory, self.table)[-1:]
            )
            self._open_next()
            self._tidy()  # at opening, before any record waits on it
        if sealing is not None:
            threading.Thread(target=self._evolving, name=f"audit-seal-{self.table}", daemon=True).start()

    @property
    def path(self) -> Path:
        return self.directory / file_name(self.table, self._file)

    @property
    def last_hash(self) -> str:
        return self._prev

    @property
    def sealed(self) -> bool:
        """Whether the trail's records are sealed (it was opened with a sealing key)."""
        return self._key is not None

    @property
    def head(self) -> Head | None:
        """The newest record on disk, as ``croupier audit head`` prints it."""
        return self._head

    def files(self) -> list[Path]:
        """The series' files still on line, oldest first (what a restart reads back), once any
        tidying under way has finished: a file is not compressed or archived while it is read."""
        if self._tidying is not None:
            self._tidying.join()
        return series_files(self.directory, self.table)

    def append(
        self, kind: str, round: int | None, fields: Fields, *, face_down: bool = False
    ) -> AuditRecord:
        """Write one record and return it once it is on disk. ``face_down`` marks a record about a
        card not yet turned up: no ``Card`` may appear in it at all."""
        if check_kind(kind) in (HEADER, CLOSE):
            raise AuditError(f"record kind {kind!r} is written by the trail itself")
        if round is not None and (not isinstance(round, int) or isinstance(round, bool) or round < 0):
            raise AuditError(f"round must be a whole number or None, got {round!r}")
        plain = secret_free(fields, face_down=face_down)
        with self._lock:
            if self._fd is None:
                raise AuditError(
                    f"the audit trail of {self.table} is closed{': ' + self._broken if self._broken else ''}"
                )
            now = self._clock()
            if self.rotation.due(self._size, self._opened, now):
                self._close_file("rotation")
                self._open_next()
                self._tidy_behind()
            return self._write(kind, round, plain, now)

    def close(self) -> None:
        """Write the closing record and close the file; later appends are refused. Tidying still
        under way is waited for, and what it left (a file closed while it ran) done."""
        self._stop.set()
        with self._lock:
            if self._fd is not None:
                self._close_file("shutdown")
        if self._tidying is not None:
            self._tidying.join()
        self._tidy()

    def evolve(self) -> None:
        """Move the sealing key on to the clock's epoch if it has ended, so an idle table does not
        keep an ended epoch's key (which could reseal that epoch's records) on the PC."""
        with self._lock:
            if self._key is not None and self._fd is not None:
                self._advance(lambda key: key.current(self._clock()))

    def _evolving(self) -> None:
        while not self._stop.wait(EVOLVE_CHECK):
            try:
                self.evolve()
            except AuditError as exc:  # the next record tries again, and stops the table if it fails
                log.error("audit: the sealing key of %s could not be moved on: %s", self.table, exc)

    def __enter__(self) -> AuditTrail:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _resume(self, files: list[Path]) -> None:
        saved = self._heads.load_head(self.table) if self._heads is not None else None
        # Created, and the power went before its header was written: the newest file holds no
        # record, so nothing can be lost with it (a header written and fsync'd is never in an empty
        # file). The series is checked without it, and only a series that passes goes on, the empty
        # file removed: a failing one is left as found for an operator. A newest file emptied on
        # purpose is still found, against the state database's saved head.
        newest = files[-1] if files else None
        empty = newest if newest and newest.parent == self.directory and not newest.stat().st_size else None
        if empty is not None:
            files = files[:-1]
        if not files:
            if saved is not None:
                raise AuditError(f"cannot continue the audit trail: no files, but it had reached {saved}")
            _drop_empty(empty)
            return
        report = verify_series(files, head=saved)
        if not report.ok:
            raise AuditError(f"cannot continue the audit trail: {report.problem}")
        _drop_empty(empty)
        self.verified = Verified(self._clock(), len(files), report)
        self._check_key(report.last_epoch)
        self._seq, self._prev = report.last_seq, report.last_hash
        self._head = report.head
        self._sealing_file = report.last_epoch is not None
        self._file = number_of(files[-1])
        # Only a shutdown's close is a clean stop: a file closed by a rotation is followed at once
        # by the next file's header, so a series ending on one lost that header to a crash.
        self.previous_clean = report.close_reason == "shutdown"
        if not report.closed and files[-1].parent != self.directory:
            raise AuditError(f"cannot continue the audit trail: archived {files[-1]} was never closed")
        if not report.closed:
            self._fd = os.open(files[-1], os.O_WRONLY | os.O_APPEND)
            data = read_bytes(files[-1])
            self._size, self._count = len(data), len(data.splitlines())
            self._index = IndexBuilder.of_lines(files[-1].name, data)
            self._close_file("resumed")

    def _advance(self, move: Callable[[SealingKey], SealingKey]) -> SealingKey:
        """The key moved on by ``move`` (stored, the old one overwritten) before anything is sealed
        with it; a key that cannot be stored seals nothing."""
        key = self._key
        if key is None:
            raise AuditError(f"the audit trail of {self.table} is not sealed")
        try:
            self._key = move(key)
        except OSError as exc:
            raise AuditError(f"{key.path}: the sealing key cannot be moved on: {exc.strerror}") from None
        return self._key

    def _check_key(self, last_epoch: int | None) -> None:
        """A sealed series goes on sealed, with a key no older than its last record's."""
        if last_epoch is None:
            return
        if self._key is None:
            raise AuditError(
                f"cannot continue the audit trail: it is sealed (epoch {last_epoch}) and no sealing key is "
                "configured ([audit] sealing_key)"
            )
        if self._key.epoch < last_epoch:
            raise AuditError(
                f"cannot continue the audit trail: {self._key.path} is at epoch {self._key.epoch}, but the "
                f"trail already reached epoch {last_epoch} (an old copy of the key?)"
            )

    def _open_next(self) -> None:
        self._file += 1
        self._fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_EXCL, 0o640)
        sync_directory(self.directory)  # a new file's entry must survive a power cut too
        self._size = self._count = 0
        self._index = IndexBuilder(self.path.name)
        self._opened = self._clock()
        header = {"table": self.table, "file": self._file, "format": FORMAT, "sealed": self._key is not None}
        if self._key is not None:  # a new file, a new epoch: the closed file's key is gone
            self._advance(lambda key: key.next(self._opened))
            header["key"] = self._key.ident
        self._sealing_file = self._key is not None
        self._write(HEADER, None, header, self._opened)

    def _tidy_behind(self) -> None:
        """Tidy in a thread of its own, so that the record that rotated the file is not kept waiting
        while a day's file is compressed (about a second for 64 MiB). It touches only closed files
        but the newest, never the file being written; one runs at a time, and a rotation while one
        runs leaves its files to the next."""
        if self._tidying is not None and self._tidying.is_alive():
            return
        self._tidying = threading.Thread(target=self._tidy, name=f"audit-tidy-{self.table}", daemon=True)
        self._tidying.start()

    def _tidy(self) -> None:
        """Compress the closed files (``rotation.compress``), then archive what the retention
        allows. A failure is logged, not raised: the record being appended matters more than
        tidying, and what failed is tried again at the next rotation."""
        try:
            if self.rotation.compress:
                compress_closed(self.directory, self.table)
            if self.rotation.retention is not None:
                self.rotation.retention.archive(self.directory, self.table, self._clock())
        except OSError as exc:
            log.error("audit: compressing or archiving %s's closed files failed: %s", self.table, exc)

    def _close_file(self, reason: str) -> None:
        """The close record, with the digest of the file's index written just before it and the
        file's round numbers (croupier.audit.index): the index is bound into the chain. An index that
        cannot be written is left out (logged); the file is then read whole, as before indexes."""
        fields: dict[str, Any] = {"records": self._count + 1, "reason": reason}  # Any: a record's JSON fields
        try:
            fields |= {"index": self._index.write(self.path), "rounds": self._index.rounds()}
        except OSError as exc:
            log.error("audit: the index of %s was not written (%s); it will be read whole", self.path, exc)
        self._write(CLOSE, None, fields, self._clock())
        fd, self._fd = self._fd, None
        assert fd is not None  # _write leaves it open or raises
        os.close(fd)

    def _write(self, kind: str, round: int | None, fields: Fields, now: datetime) -> AuditRecord:
        at = now.astimezone(UTC).isoformat(timespec="milliseconds")
        if self._sealing_file and self._key is not None:
            key = self._advance(lambda key: key.current(now))
            record, line = AuditRecord.sealed_line(
                self._seq + 1, at, kind, round, fields, self._prev, sealer=key.seal, epoch=key.epoch
            )
        else:
            record, line = AuditRecord.sealed_line(self._seq + 1, at, kind, round, fields, self._prev)
        fd = self._fd
        assert fd is not None  # written only to an open file (append refuses a closed trail)
        try:
            view = memoryview(line)
            while view:
                view = view[os.write(fd, view) :]
            os.fsync(fd)
        except OSError as exc:
            # The file may now end in a partial line: stop rather than write after it.
            self._broken = f"write to {self.path} failed ({exc.strerror})"
            os.close(fd)
            self._fd = None
            raise AuditError(self._broken) from exc
        self._seq, self._prev = record.seq, record.hash
        self._index.add(record, self._size, len(line))
        self._size += len(line)
        self._count += 1
        # Only now, with the record on disk: a head saved first and then lost with its record would
        # make an honest trail look cut (docs/audit.md §9).
        self._head = Head(file_name(self.table, self._file), record.seq, record.hash, record.epoch)
        if self._heads is not None:
            self._heads.save_head(self.table, self._head)
        return record


def _drop_empty(empty: Path | None) -> None:
    """Remove a newest file left empty by a power cut before its header (``_resume``)."""
    if empty is not None:
        log.warning("audit: %s is empty (cut off before its header): removed", empty)
        empty.unlink()
        sync_directory(empty.parent)
