"""AuditTrail: appends records, each on disk (written and fsync'd) before ``append`` returns.

A caller acknowledges an action only after its record is appended, so a crash can lose only records
that were never acknowledged, and at most their last, partial line (docs/audit.md §5).
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from croupier.audit.record import CLOSE, FORMAT, GENESIS, HEADER, AuditError, AuditRecord, check_kind
from croupier.audit.rotation import Rotation, archived_files, check_table, file_name, series_files
from croupier.audit.secrecy import secret_free
from croupier.audit.verify import verify_series

log = logging.getLogger(__name__)


def utc_now() -> datetime:
    return datetime.now(UTC)


class AuditTrail:
    """The trail of one table in ``directory``: a series of files, rotated, one chain through all.

    Opening a directory that already holds the table's series verifies it, closes its newest file
    if it was left open (reason ``resumed``) and continues in a new file; a series that fails
    verification is refused, never repaired. When every file has been archived the chain continues
    from the newest file in ``archive/``, so archiving never restarts a series from genesis.

    Retention (``rotation.retention``) runs after the new file is open, at opening and at each
    rotation: the file being written is then the newest, which retention never moves.
    """

    def __init__(
        self,
        directory: Path,
        table: str,
        *,
        rotation: Rotation | None = None,
        clock: Callable[[], datetime] = utc_now,
    ) -> None:
        self.directory = Path(directory)
        self.table = check_table(table)
        self.rotation = rotation or Rotation()
        self._clock = clock
        self._lock = threading.Lock()  # appends from threads, or one loop, keep their order
        self._fd: int | None = None
        self._broken: str | None = None
        self._seq, self._prev, self._file = 0, GENESIS, 0
        self.directory.mkdir(parents=True, exist_ok=True)
        with self._lock:
            self._resume(
                series_files(self.directory, self.table) or archived_files(self.directory, self.table)[-1:]
            )
            self._open_next()
            self._apply_retention()

    @property
    def path(self) -> Path:
        return self.directory / file_name(self.table, self._file)

    @property
    def last_hash(self) -> str:
        return self._prev

    def files(self) -> list[Path]:
        """The series' files still on line, oldest first (what a restart reads back)."""
        return series_files(self.directory, self.table)

    def append(
        self, kind: str, round: int | None, fields: Mapping[str, Any], *, face_down: bool = False
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
                self._apply_retention()
            return self._write(kind, round, plain, now)

    def close(self) -> None:
        """Write the closing record and close the file; later appends are refused."""
        with self._lock:
            if self._fd is not None:
                self._close_file("shutdown")

    def __enter__(self) -> AuditTrail:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _resume(self, files: list[Path]) -> None:
        if not files:
            return
        report = verify_series(files)
        if not report.ok:
            raise AuditError(f"cannot continue the audit trail: {report.problem}")
        self._seq, self._prev = report.last_seq, report.last_hash
        self._file = int(files[-1].stem.rsplit("-", 1)[1])
        if not report.closed and files[-1].parent != self.directory:
            raise AuditError(f"cannot continue the audit trail: archived {files[-1]} was never closed")
        if not report.closed:
            self._fd = os.open(files[-1], os.O_WRONLY | os.O_APPEND)
            self._size = files[-1].stat().st_size
            self._count = len(files[-1].read_bytes().splitlines())
            self._close_file("resumed")

    def _open_next(self) -> None:
        self._file += 1
        self._fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_EXCL, 0o640)
        self._sync_directory()
        self._size = self._count = 0
        self._opened = self._clock()
        self._write(HEADER, None, {"table": self.table, "file": self._file, "format": FORMAT}, self._opened)

    def _apply_retention(self) -> None:
        """Archive what the retention allows. A failure to move files is logged, not raised: the
        record being appended matters more than tidying, and the move is retried at the next
        rotation."""
        if self.rotation.retention is None:
            return
        try:
            self.rotation.retention.archive(self.directory, self.table, self._clock())
        except OSError as exc:
            log.error("audit: archiving %s's closed files failed: %s", self.table, exc)

    def _close_file(self, reason: str) -> None:
        self._write(CLOSE, None, {"records": self._count + 1, "reason": reason}, self._clock())
        fd, self._fd = self._fd, None
        os.close(fd)

    def _write(self, kind: str, round: int | None, fields: Mapping[str, Any], now: datetime) -> AuditRecord:
        at = now.astimezone(UTC).isoformat(timespec="milliseconds")
        record = AuditRecord.seal(self._seq + 1, at, kind, round, fields, self._prev)
        line = record.line()
        try:
            view = memoryview(line)
            while view:
                view = view[os.write(self._fd, view) :]
            os.fsync(self._fd)
        except OSError as exc:
            # The file may now end in a partial line: stop rather than write after it.
            self._broken = f"write to {self.path} failed ({exc.strerror})"
            os.close(self._fd)
            self._fd = None
            raise AuditError(self._broken) from exc
        self._seq, self._prev = record.seq, record.hash
        self._size += len(line)
        self._count += 1
        return record

    def _sync_directory(self) -> None:
        """A new file's directory entry must survive a power cut too."""
        fd = os.open(self.directory, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
