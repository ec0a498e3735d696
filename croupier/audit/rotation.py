"""When a file is closed and a new one begun, and how long closed files must be kept.

Retention follows NOTES.md §3 (461a.10(s), 465a.6): logs kept at least 30 days on line, records kept
5 years. A file's age is the time of its closing record, which is inside the chain, so it cannot be
made to look older by touching the file.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path

from croupier.audit.record import CLOSE, AuditError, AuditRecord
from devices.rules import Rule

ONLINE = Rule("NOTES.md §3 461a.10(s)", "logs kept at least 30 days on line")
RECORDS = Rule("NOTES.md §3 465a.6", "records kept 5 years")
MIN_ONLINE_DAYS = 30
RECORD_DAYS = 5 * 365 + 2  # five years, leap days included

_TABLE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$")


def check_table(table: str) -> str:
    if not _TABLE.match(table):
        raise AuditError(f"table name {table!r} must be letters, digits, '-' or '_' (it names the files)")
    return table


def file_name(table: str, number: int) -> str:
    """Zero-padded so that names sort in series order."""
    return f"{table}-{number:06d}.jsonl"


def series_files(directory: Path, table: str) -> list[Path]:
    """The table's files in series order."""
    return sorted(directory.glob(f"{check_table(table)}-[0-9][0-9][0-9][0-9][0-9][0-9].jsonl"))


@dataclass(frozen=True)
class Rotation:
    """Close the current file when it reaches ``max_bytes`` or, if ``daily``, when the UTC day changes."""

    max_bytes: int = 64 * 1024 * 1024
    daily: bool = True

    def __post_init__(self) -> None:
        if self.max_bytes < 4096:
            raise AuditError(f"rotation max_bytes must be at least 4096, got {self.max_bytes}")

    def due(self, size: int, opened: datetime, now: datetime) -> bool:
        return size >= self.max_bytes or (self.daily and opened.date() != now.date())


def closed_at(path: Path) -> datetime | None:
    """When the file was closed, from its last record; None for a file still open (the newest)."""
    lines = path.read_bytes().splitlines()
    if not lines:
        return None
    try:
        last = AuditRecord.parse(lines[-1])
    except AuditError:
        return None
    return datetime.fromisoformat(last.at) if last.kind == CLOSE else None


@dataclass(frozen=True)
class Retention:
    """How long closed files stay on line and how long they must exist at all."""

    online_days: int = MIN_ONLINE_DAYS
    keep_days: int = RECORD_DAYS

    def __post_init__(self) -> None:
        if self.online_days < MIN_ONLINE_DAYS:
            raise AuditError(f"online_days {self.online_days} is below {MIN_ONLINE_DAYS} ({ONLINE})")
        if self.keep_days < self.online_days:
            raise AuditError(f"keep_days {self.keep_days} is shorter than online_days {self.online_days}")

    def due_for_archive(self, files: list[Path], now: datetime) -> list[Path]:
        """Closed files older than the on-line period: they may move to archive storage."""
        return [path for path in files if self._older(path, now, self.online_days)]

    def delete(self, path: Path, now: datetime) -> None:
        """Delete one file, refusing any file not closed or younger than ``keep_days``."""
        if not self._older(path, now, self.keep_days):
            raise AuditError(
                f"{path}: not deleted: not closed, or closed less than {self.keep_days} days ago ({RECORDS})"
            )
        path.unlink()

    @staticmethod
    def _older(path: Path, now: datetime, days: int) -> bool:
        closed = closed_at(path)
        return closed is not None and now - closed >= timedelta(days=days)
