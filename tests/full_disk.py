"""A disk as good as full under a Croupier SQLite file, for real: ``PRAGMA max_page_count`` lets the
file grow by no page, so a write that needs one is SQLite's own "database or disk is full", which
rolls the whole transaction back inside SQLite (as an I/O error, a busy file or no memory do), not
only the statement: the path an authorizer's refusal cannot take."""

from __future__ import annotations

import sqlite3

#: More than a page of the default size: a row this long always needs pages the file does not have.
PAGE_AND_MORE = "x" * 20_000


def fill(db: sqlite3.Connection) -> None:
    """``db``'s disk full: the file may not grow."""
    pages = db.execute("PRAGMA page_count").fetchone()[0]
    db.execute(f"PRAGMA max_page_count = {pages}")


def free(db: sqlite3.Connection) -> None:
    """``db``'s disk with room again."""
    db.execute("PRAGMA max_page_count = 4294967294")
