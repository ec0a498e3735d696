"""When a file is closed and a new one begun, and how long closed files must be kept.

Retention follows 461a.10(s) and 465a.6: logs kept at least 30 days on line, records kept
5 years. A file's age is the time of its closing record, which is inside the chain, so it cannot be
made to look older by touching the file.

Closed files are compressed (croupier.audit.storage); those older than the on-line period move to
``archive/`` beside the series, under the same names and with their indexes, so ``croupier audit
verify archive/T-*.jsonl* T-*.jsonl*`` still checks one unbroken chain. Nothing is ever deleted
automatically: 465a.6 sets a floor, not a deadline, and the decision to destroy a legal record
belongs to the casino, so ``Retention.delete`` refuses what is too young and the newest file, and
logs what it deletes.
"""

from __future__ import annotations

import logging
import os
import re
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING

from croupier.audit.index import add_members
from croupier.audit.record import CLOSE, AuditError, AuditRecord
from croupier.audit.storage import compress, index_path, is_compressed, last_line, plain_name, sync_directory
from vocabulary.rules import Rule

if TYPE_CHECKING:  # the config package must not need the audit package to load, nor the reverse
    from croupier.config.service import AuditConfig

log = logging.getLogger(__name__)

ONLINE = Rule("461a.10(s)", "logs of transactions, errors and access kept at least 30 days on line")
RECORDS = Rule("465a.6", "records kept 5 years")
MIN_ONLINE_DAYS = 30
RECORD_DAYS = 5 * 365 + 2  # five years, leap days included
ARCHIVE = "archive"
PERIODS = ("daily", "weekly", "monthly")  # config.service.ROTATIONS names the same periods

_TABLE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$")


def check_table(table: str) -> str:
    if not _TABLE.match(table):
        raise AuditError(f"table name {table!r} must be letters, digits, '-' or '_' (it names the files)")
    return table


def file_name(table: str, number: int) -> str:
    """Zero-padded so that names sort in series order."""
    return f"{table}-{number:06d}.jsonl"


_NUMBERED = "-[0-9][0-9][0-9][0-9][0-9][0-9].jsonl"


def series_files(directory: Path, table: str) -> list[Path]:
    """The table's files in series order, plain or compressed. A file found both ways (a crash
    between the compressed copy's rename and the plain file's removal) is read plain, the file the
    writer wrote (croupier.audit.storage)."""
    found: dict[str, Path] = {}
    for path in Path(directory).glob(f"{check_table(table)}{_NUMBERED}*"):
        if path.name.endswith((".jsonl", ".jsonl.gz")) and not (
            is_compressed(path) and plain_name(path) in found
        ):
            found[plain_name(path)] = path
    return [found[name] for name in sorted(found)]


def table_of(path: Path) -> str:
    """The table a series file belongs to, from its name (``T1-000004.jsonl``, or ``.jsonl.gz``)."""
    return plain_name(path).rsplit("-", 1)[0]


def number_of(path: Path) -> int:
    """The file's number in its series, from its name."""
    return int(plain_name(path).removesuffix(".jsonl").rsplit("-", 1)[1])


def tables_in(directory: Path) -> list[str]:
    """The tables whose series are in ``directory``: from their files' names, not from the hidden
    temporary file a compression writes beside one while it runs (croupier.audit.storage)."""
    return sorted(
        {
            table_of(path)
            for path in Path(directory).glob(f"*{_NUMBERED}*")
            if path.name.endswith((".jsonl", ".jsonl.gz")) and not path.name.startswith(".")
        }
    )


def archived_files(directory: Path, table: str) -> list[Path]:
    """The table's files moved to ``directory/archive``, in series order: they come before the
    files still in ``directory``."""
    return series_files(directory / ARCHIVE, table) if (directory / ARCHIVE).is_dir() else []


def years_in_days(years: int) -> int:
    """The most days ``years`` calendar years can span (a leap day in every fourth year, rounded up),
    so a file kept this long has been kept at least ``years`` years whichever day it was closed."""
    return years * 365 + (years + 3) // 4


def period_of(when: datetime, period: str) -> tuple[int, ...]:
    """The UTC period ``when`` falls in: equal keys share a file. Weeks are ISO weeks (Monday 00:00
    UTC), so a week that straddles New Year is one period, not two."""
    utc = when.astimezone(UTC)
    if period == "daily":
        return (utc.year, utc.month, utc.day)
    if period == "weekly":
        iso = utc.isocalendar()
        return (iso.year, iso.week)
    if period == "monthly":
        return (utc.year, utc.month)
    raise AuditError(f"rotation period {period!r} is not one of {', '.join(PERIODS)}")


@dataclass(frozen=True)
class Rotation:
    """Close the current file when it reaches ``max_bytes`` or when the UTC ``period`` (``daily``,
    ``weekly``, ``monthly``; None for size only) changes, and then apply ``retention`` (if any) to
    the closed files: the rotation is the moment a file becomes closed, so the moment to tidy them."""

    max_bytes: int = 64 * 1024 * 1024
    period: str | None = "daily"
    retention: Retention | None = None
    #: Closed files compressed at opening and each rotation (croupier.audit.storage): always at a
    #: table service (``from_config``); a trail made in code (a test, ``croupier sim``) stays plain.
    compress: bool = False

    def __post_init__(self) -> None:
        if self.max_bytes < 4096:
            raise AuditError(f"rotation max_bytes must be at least 4096, got {self.max_bytes}")
        if self.period is not None and self.period not in PERIODS:
            raise AuditError(f"rotation period {self.period!r} is not one of {', '.join(PERIODS)}")

    @classmethod
    def from_config(cls, audit: AuditConfig) -> Rotation:
        """The table's ``[audit]`` settings: its period, and retention from ``online_days`` and
        ``retention_years``; closed files compressed. The config has no size key, so the size limit
        stays the default."""
        return cls(period=audit.rotation, retention=Retention.from_config(audit), compress=True)

    def due(self, size: int, opened: datetime, now: datetime) -> bool:
        if size >= self.max_bytes:
            return True
        return self.period is not None and period_of(opened, self.period) != period_of(now, self.period)


def closed_at(path: Path) -> datetime | None:
    """When the file was closed, from its last record; None for a file still open (the newest) or
    whose last record does not hold together."""
    try:  # only the tail: a file may be 64 MiB and a close record is short
        last = AuditRecord.parse(last_line(path))
    except AuditError:
        return None
    # An unsound record (its hash not matching its contents) gives no age: an edited date must not
    # make a file look old enough to archive or delete.
    return datetime.fromisoformat(last.at) if last.kind == CLOSE and last.is_sound() else None


@dataclass(frozen=True)
class Retention:
    """How long closed files stay on line and how long they must exist at all."""

    online_days: int = MIN_ONLINE_DAYS
    keep_days: int = RECORD_DAYS

    @classmethod
    def from_config(cls, audit: AuditConfig) -> Retention:
        return cls(online_days=audit.online_days, keep_days=years_in_days(audit.retention_years))

    def __post_init__(self) -> None:
        if self.online_days < MIN_ONLINE_DAYS:
            raise AuditError(f"online_days {self.online_days} is below {MIN_ONLINE_DAYS} ({ONLINE})")
        if self.keep_days < self.online_days:
            raise AuditError(f"keep_days {self.keep_days} is shorter than online_days {self.online_days}")

    def due_for_archive(self, files: list[Path], now: datetime) -> list[Path]:
        """Closed files older than the on-line period: they may move to archive storage."""
        return [path for path in files if self._older(path, now, self.online_days)]

    def archive(self, directory: Path, table: str, now: datetime) -> list[Path]:
        """Move the table's closed files older than ``online_days`` from ``directory`` to
        ``directory/archive`` and return their new paths.

        The newest file is never moved, closed or not: it is where the next writer picks the chain
        up. A rename within one file system moves the bytes untouched (the hashes still hold) and
        atomically (a crash leaves the file in one place or the other, never half). A name already
        taken in the archive is left alone and logged, never overwritten.
        """
        files = series_files(directory, table)[:-1]
        due = self.due_for_archive(files, now)
        target = directory / ARCHIVE
        if due:
            target.mkdir(mode=0o750, exist_ok=True)
        moved = []
        for path in due:
            destination = target / path.name
            if destination.exists():
                log.warning("audit: %s not archived: %s already exists", path, destination)
                continue
            if index_path(path).exists():  # the index first: a file is never archived without it
                os.rename(index_path(path), index_path(destination))
            os.rename(path, destination)
            moved.append(destination)
            log.info(
                "audit: archived %s to %s (closed more than %d days ago)", path.name, target, self.online_days
            )
        if moved:
            sync_directory(target)
            sync_directory(directory)
        expired = self.due_for_deletion(archived_files(directory, table), now)
        if expired:  # one line, not one per file: it repeats at every rotation until someone acts
            log.info(
                "audit: %d archived files (oldest %s) are past the %d-day retention; "
                "the casino may delete them",
                len(expired),
                expired[0].name,
                self.keep_days,
            )
        return moved

    def due_for_deletion(self, files: list[Path], now: datetime) -> list[Path]:
        """Closed files older than ``keep_days``: the casino may delete them; the trail never does.
        ``files`` in series order, so the scan stops at the first file still to be kept (close
        times only grow along a series) instead of opening five years of archive at every rotation."""
        expired = []
        for path in files:
            if not self._older(path, now, self.keep_days):
                break
            expired.append(path)
        return expired

    def delete(self, path: Path, now: datetime) -> None:
        """Delete one file (and its index), refusing any file not closed, younger than
        ``keep_days``, or the newest of its series (the chain continues from it); each deletion is
        logged."""
        if not self._older(path, now, self.keep_days):
            raise AuditError(
                f"{path}: not deleted: not closed, or closed less than {self.keep_days} days ago ({RECORDS})"
            )
        directory = path.parent.parent if path.parent.name == ARCHIVE else path.parent
        newest = (series_files(directory, table_of(path)) or archived_files(directory, table_of(path)))[-1:]
        if [plain_name(p) for p in newest] == [plain_name(path)]:
            raise AuditError(
                f"{path}: not deleted: the newest file of its series (the chain goes on from it)"
            )
        path.unlink()
        index_path(path).unlink(missing_ok=True)
        log.warning("audit: deleted %s, closed more than %d days ago (%s)", path, self.keep_days, RECORDS)

    @staticmethod
    def _older(path: Path, now: datetime, days: int) -> bool:
        closed = closed_at(path)
        return closed is not None and now - closed >= timedelta(days=days)


def compress_closed(directory: Path, table: str) -> list[Path]:
    """Compress the table's closed plain files in ``directory`` but the newest (croupier.audit.storage),
    and record each member map in the file's index. A file that cannot be compressed is logged and
    left plain; it is tried again at the next rotation."""
    done = []
    for path in series_files(directory, table)[:-1]:
        if is_compressed(path) or closed_at(path) is None:
            continue
        try:
            target, member_map = compress(path)
        except (OSError, AuditError) as exc:
            log.error("audit: %s not compressed: %s", path, exc)
            continue
        add_members(index_path(target), member_map)
        done.append(target)
        log.info("audit: compressed %s to %s", path.name, target.name)
    return done
