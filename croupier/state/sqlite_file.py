"""A Croupier SQLite file: marked as ours, refused when it is not, written one transaction at a time.

The table's state database and the floor link's spool are both files a restart must trust: each is
marked with its own ``PRAGMA application_id`` and carries the version of its schema, so that another
database (or a file written by a newer Croupier) is refused naming the file rather than misread; each
is kept in WAL mode with ``synchronous=FULL``, so that a write committed before its method returns
survives the process and the power.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path


class StateError(RuntimeError):
    """The state file cannot be used or a write was refused; the message names the file."""


@dataclass(frozen=True)
class FileKind:
    """What a Croupier SQLite file holds: its ``name`` for people ("state file"), the mark it carries
    (``application_id``) and the schema version this code writes."""

    name: str
    application_id: int
    schema_version: int

    def open(self, path: Path, prepare: Callable[[sqlite3.Connection, int], None]) -> sqlite3.Connection:
        """The file at ``path`` (made if it is not there; its folder must be), checked to be of this
        kind, after ``prepare(db, version)`` has created or brought up to date its schema from the
        file's version (0 for a new file); closed again if any of it fails."""
        try:
            db = sqlite3.connect(path, isolation_level=None)
        except sqlite3.Error as exc:
            raise StateError(f"{path}: cannot open the {self.name}: {exc}") from exc
        try:
            prepare(db, self.version_of(db, path))
        except BaseException:
            db.close()
            raise
        return db

    def version_of(self, db: sqlite3.Connection, path: Path) -> int:
        """The schema version of the file at ``path``, open as ``db`` (0 for a new, empty file), once
        the file is known to be of this kind and not newer than this code; it is then put in WAL
        mode with full syncs. The caller creates or brings up to date the schema below that version."""
        try:
            application_id = db.execute("PRAGMA application_id").fetchone()[0]
            version = int(db.execute("PRAGMA user_version").fetchone()[0])
            tables = db.execute("SELECT count(*) FROM sqlite_schema").fetchone()[0]
        except sqlite3.DatabaseError as exc:
            raise StateError(f"{path}: not a Croupier {self.name} ({exc})") from exc
        if application_id != self.application_id and (tables or application_id or version):
            raise StateError(f"{path}: not a Croupier {self.name} (another SQLite database)")
        if version > self.schema_version:
            raise StateError(
                f"{path}: {self.name} schema {version} was written by a newer Croupier; "
                f"this one reads schema {self.schema_version} or older"
            )
        db.execute("PRAGMA journal_mode = WAL")
        db.execute("PRAGMA synchronous = FULL")
        return version

    def mark(self, db: sqlite3.Connection) -> None:
        """Mark a file being written with this kind and its current schema version (inside the
        transaction that writes that schema)."""
        db.execute(f"PRAGMA application_id = {self.application_id}")
        db.execute(f"PRAGMA user_version = {self.schema_version}")


@contextmanager
def transaction(db: sqlite3.Connection, cannot: str) -> Iterator[None]:
    """One write transaction on ``db``, committed on exit (before the caller's method returns),
    rolled back if anything in it raised, so a refused write leaves the file as it was. A failure
    to begin, to write (a statement the file refused: disk full, read-only) or to commit is a
    StateError saying ``cannot`` and why."""
    try:
        db.execute("BEGIN IMMEDIATE")
    except sqlite3.Error as exc:
        raise StateError(f"{cannot}: {exc}") from exc
    try:
        yield
    except BaseException as exc:
        _roll_back(db, cannot)
        if isinstance(exc, sqlite3.Error):
            raise StateError(f"{cannot}: {exc}") from exc
        raise
    try:
        db.execute("COMMIT")
    except sqlite3.Error as exc:
        _roll_back(db, cannot)
        raise StateError(f"{cannot}: {exc}") from exc


def _roll_back(db: sqlite3.Connection, cannot: str) -> None:
    """Roll back the transaction if it is still open: on a full disk, an I/O error, a busy file or
    no memory SQLite has rolled it back itself, and a ROLLBACK then would fail ("no transaction is
    active") in place of the error that ended it. One that fails still is a StateError."""
    if not db.in_transaction:
        return
    try:
        db.execute("ROLLBACK")
    except sqlite3.Error as exc:
        raise StateError(f"{cannot}: and cannot roll back: {exc}") from exc
