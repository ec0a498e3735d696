"""One daemon per table: an exclusive lock, taken before anything else and held for the life of
the process.

Two services on one table would interleave their records in one audit file (the trail then fails
verification as reordered), fight over the same devices and both write the state database. So
``croupier run`` locks the table before it reads the token file, binds the API, opens the state or
the trail, or touches a device; a second start finds the lock held and exits at once naming the
holder's pid.

Two locks, because a table is named by two paths an operator could point a second configuration
at: the state database's lock file (``<state_db>.lock``, holding the pid and table name for the
message) and the audit directory itself. Both are ``flock`` locks: the kernel releases them when
the process dies, however it dies, so a ``kill -9`` never leaves a stale lock to clear by hand.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
from collections.abc import Iterator
from pathlib import Path

from croupier.errors import StartupError


class TableLocked(StartupError):
    """Another process serves this table."""


def _try_flock(fd: int) -> bool:
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    return True


def _holder(path: Path) -> str:
    """Who holds the lock at ``path``, from what it wrote there."""
    try:
        text = path.read_text().split()
    except OSError:
        text = []
    return f"pid {text[0]}" if text and text[0].isdigit() else "another process"


@contextlib.contextmanager
def table_lock(table: str, state_db: Path, audit_dir: Path) -> Iterator[Path]:
    """Hold the table's locks while the block runs; yield the state lock file's path. Raises
    ``TableLocked`` naming the holder if another process holds either, ``StartupError`` if a
    lock cannot be made (a directory that cannot be created, a read-only file system)."""
    lock_path = state_db.with_name(state_db.name + ".lock")
    descriptors: list[int] = []
    try:
        try:
            lock_path.parent.mkdir(parents=True, exist_ok=True)
            audit_dir.mkdir(parents=True, exist_ok=True)
            state_fd = os.open(lock_path, os.O_RDWR | os.O_CREAT, 0o640)
            descriptors.append(state_fd)
            if not _try_flock(state_fd):
                raise TableLocked(
                    f"table {table} is already served by {_holder(lock_path)} (lock {lock_path})"
                )
            directory_fd = os.open(audit_dir, os.O_RDONLY | os.O_DIRECTORY)
            descriptors.append(directory_fd)
            if not _try_flock(directory_fd):
                raise TableLocked(
                    f"table {table}: the audit directory {audit_dir} is in use by another croupier "
                    "process (two configurations name it)"
                )
            os.ftruncate(state_fd, 0)
            os.pwrite(state_fd, f"{os.getpid()} {table}\n".encode(), 0)
        except OSError as exc:
            raise StartupError(f"table {table}: cannot take the table's lock: {exc}") from None
        yield lock_path
    finally:
        for fd in descriptors:
            os.close(fd)  # closing the descriptor releases its flock
