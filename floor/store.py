"""What the floor has counted, in a real database: SQLite by default, PostgreSQL when configured.

Every message from a table is counted once by table, spool and sequence number, and in order
(docs/floor.md, decisions 0035, 0036): a number at or below the last one counted is a repeat and is
dropped; only the next number is counted; one beyond it is not counted (nor confirmed), and the
table is asked for a new birth, after which it sends again from its first message unconfirmed, so
the missing ones come, in order. Only a birth opens a gap: its ``held_from`` (the first number its
spool still holds) above the next number expected says the numbers between are gone for good.
A birth certificate replaces the table's state (and a new spool identity starts the count afresh,
at its ``held_from``); a numbered message changes the state only when it is newer than the last
birth (``as_of_seq``), yet a round or a head among the older ones is still counted. Each message is
taken in one transaction that locks the table's row (``BEGIN IMMEDIATE`` in SQLite,
``SELECT ... FOR UPDATE`` in PostgreSQL; a table new to the store has its row made first, once,
``INSERT ... ON CONFLICT DO NOTHING``, so there is a row to lock), so several floor services
sharing one PostgreSQL database count it once between them.

The heads a table sent (``head`` messages and each birth's head) are kept as the outside witness
(floor.witness); the first hash heard for a record number stands, and another one sent
later is logged.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any, Protocol

import structlog

from croupier.audit.head import Head
from croupier.config.floor_service import StoreConfig
from croupier.errors import StartupError
from croupier.floor_link.counters import FIELDS as COUNTERS
from croupier.floor_link.payloads import now
from croupier.state.sqlite_file import FileKind, StateError, transaction

log = structlog.get_logger("croupier.floor")
#: Marked "CRFS" (PRAGMA application_id), schema version 4 (in PostgreSQL, the table ``floor_schema``):
#: version 2 added ``floor_tables``' ``malformed`` and ``counted_from`` (``_ADDED``); version 3 made
#: every number a PostgreSQL store keeps 64-bit (``_widen``; SQLite's INTEGER always was); version 4
#: numbers a link's publications in one order for every floor service (``link_revisions``, and
#: ``link_sent``'s ``sent``, numbered by sender before: floor.link_controller), so an older floor
#: service sharing the store, which would number them its own way, refuses it.
FLOOR_FILE = FileKind("floor store", 0x43524653, 4)
#: The largest number the store keeps: its numbers are BIGINT, 64-bit in both databases.
MOST = 2**63 - 1
_SCHEMA = (
    """CREATE TABLE IF NOT EXISTS floor_tables (
        name        TEXT PRIMARY KEY,
        spool       TEXT,
        session     BIGINT,
        last_seq    BIGINT NOT NULL DEFAULT 0,
        as_of_seq   BIGINT NOT NULL DEFAULT 0,
        state       TEXT NOT NULL DEFAULT '{}',
        dark        TEXT,
        heard_at    TEXT NOT NULL,
        repeats     BIGINT NOT NULL DEFAULT 0,
        gaps        BIGINT NOT NULL DEFAULT 0,
        malformed   BIGINT NOT NULL DEFAULT 0,
        counted_from BIGINT NOT NULL DEFAULT 0
    )""",
    """CREATE TABLE IF NOT EXISTS floor_heads (
        name    TEXT NOT NULL,
        record  BIGINT NOT NULL,
        file    TEXT NOT NULL,
        hash    TEXT NOT NULL,
        epoch   BIGINT,
        heard_at TEXT NOT NULL,
        PRIMARY KEY (name, record)
    )""",
)


#: What schema version 2 changed in a version 1 store: ``floor_tables`` got the messages that could not
#: be read, and the number the count of the table's current spool started from (the one below its
#: first birth's ``held_from``: what came before it is the table's past, not a gap); ``floor_rounds``,
#: each round's number, which nothing read (the view shows the table's rounds from its birth and
#: messages), went.
_ADDED = (
    "ALTER TABLE floor_tables ADD COLUMN malformed BIGINT NOT NULL DEFAULT 0",
    "ALTER TABLE floor_tables ADD COLUMN counted_from BIGINT NOT NULL DEFAULT 0",
    "DROP TABLE IF EXISTS floor_rounds",
)
#: Seconds without a message after which a table not dark shows as silent: a table sends its
#: counters at least once a minute, so two and a half minutes of nothing is a table the floor does
#: not hear (its PC or network gone while the broker was down, say, whose will died with the broker).
SILENT_AFTER = 150.0


def _first_counted(spool: str | None, counted_from: int) -> int | None:
    """The first number counted of a spool whose count started at ``counted_from`` (the number just
    below its first birth's ``held_from``, the one the count goes on from); None with no spool yet
    (no birth heard)."""
    return None if spool is None else counted_from + 1


class Unfit(Exception):
    """A value a message carries that the database cannot take (a number too large for its integers,
    a list where it keeps a number): the message is malformed, not the store failed."""


class _Cursor(Protocol):
    def fetchone(self) -> Any: ...  # Any: a row of the driver's own type
    def fetchall(self) -> list[Any]: ...  # Any: rows of the driver's own type


@dataclass(frozen=True)
class Counted:
    """What one message did: counted (or not: a repeat, or one past the next number, which waits),
    whether a rebirth is wanted, and what the floor may confirm to the table (``cmd/counted``,
    floor.service): every message of its spool ``spool`` up to number ``through`` is counted, none
    missing but those a birth said were gone, counted as gaps (decision 0035). No spool (a message
    before any birth): nothing to confirm."""

    counted: bool
    rebirth: bool = False
    spool: str | None = None
    through: int = 0


class Store:
    """The floor's database, opened from ``config``; one connection, used from one thread. A
    PostgreSQL connection the server broke (restarted, failed over, the network cut) is opened
    again at the next use: the statement it broke under fails as a StateError, never the driver's
    own error, and the floor service takes that message again from the broker (floor.service)."""

    def __init__(self, config: StoreConfig, *, create: bool = True) -> None:
        """``create``: make the SQLite file if it is not there (the service), or refuse (a reader).
        A file that is not a floor store (a table's state database named by mistake), or a store
        whose schema a newer Croupier wrote, is refused naming it, before anything is written."""
        self.postgres = config.url is not None
        if not create and config.url is None and not config.path.exists():
            raise StartupError(f"store.path: {config.path}: no floor store there (has the floor run?)")
        self.where, self._url = config.url or str(config.path), config.url or ""
        self._in_transaction = False
        #: connections opened again since the store was opened (``_reopened``): a session lock
        #: (``hold``) taken before a change of it has lapsed (floor.link_controller's publications)
        self.reconnections = 0
        try:
            if config.url is not None:
                import psycopg  # only a floor with a PostgreSQL store needs the driver

                self._errors: tuple[type[Exception], ...] = (psycopg.Error,)
                self._unfit: tuple[type[Exception], ...] = (OverflowError, psycopg.DataError)
                self._db: Any = self._connect()  # Any: sqlite3's connection or psycopg's
                try:
                    self._prepare_postgres()
                except BaseException:
                    self._db.close()
                    raise
            else:
                self._errors = (sqlite3.Error,)
                self._unfit = (OverflowError, sqlite3.ProgrammingError, sqlite3.DataError)
                config.path.parent.mkdir(parents=True, exist_ok=True)
                self._db = FLOOR_FILE.open(config.path, self._prepare)
        except ImportError:
            raise StartupError("store.url: PostgreSQL needs psycopg: pip install 'croupier[floor]'") from None
        except StateError as exc:  # not a floor store, a newer one, or its schema not written
            raise StartupError(f"store: {exc}") from None
        except Exception as exc:  # either driver's own error: the store cannot be opened
            raise StartupError(f"store: cannot open {self.where}: {exc}") from None

    def close(self) -> None:
        self._db.close()

    def _connect(self) -> Any:  # Any: psycopg's connection (the driver is imported only for PostgreSQL)
        import psycopg

        return psycopg.connect(self._url, autocommit=True)

    def _reopened(self) -> None:
        """A PostgreSQL connection the server broke (``closed`` once a statement found it gone)
        replaced by a new one; its driver error, if the server is still away, is the caller's."""
        if self.postgres and self._db.closed:
            log.warning("floor store: the connection was lost, connecting again", store=self.where)
            self._db = self._connect()
            self.reconnections += 1

    # -- counting -----------------------------------------------------------------------------
    def birth(self, table: str, body: Mapping[str, Any]) -> Counted:  # Any: the birth's JSON fields
        """A birth certificate: the table's whole state as of ``as_of_seq``. The first birth of a
        spool starts its count below its ``held_from`` (what the table published before and no longer
        holds is its past, not a gap; decision 0036); a later one whose ``held_from`` is above the
        next number expected says the numbers between are gone for good: counted as a gap, and the
        count goes on from there. A birth older than what the store already counted of the same
        spool (another floor service sharing the database counted newer messages) leaves the state
        as they made it: only its head is witnessed. What the table's spool has counted so far is
        confirmed to it."""
        with self.transaction():
            row = self._held(table)
            as_of, start = body["as_of_seq"], body["held_from"] - 1
            if body.get("head") is not None:
                self._witness(table, body["head"])
            lost = 0
            if row["spool"] == body["spool"]:
                if as_of < max(row["last_seq"], row["as_of_seq"]):
                    log.info("floor: a birth older than what was counted, its state not taken",
                             table=table, as_of_seq=as_of, last_seq=row["last_seq"])  # fmt: skip
                    return Counted(False, spool=row["spool"], through=row["last_seq"])
                last, counted_from = max(row["last_seq"], start), row["counted_from"]
                lost = last - row["last_seq"]
                if lost:
                    log.warning("floor: a birth says messages never counted are gone: a gap", table=table,
                                lost=lost, last_seq=row["last_seq"], held_from=start + 1)  # fmt: skip
            else:  # the spool's first birth (the table heard before any, or a spool begun afresh)
                last = counted_from = start
            kept = (
                "game", "rounds", "state", "faults", "links", "meters", "wagers_locked", "counters", "head"
            )
            state = {key: body[key] for key in kept}
            self._put(table, body["spool"], body["session"], last, as_of, counted_from, state, lost)
            return Counted(True, spool=body["spool"], through=last)

    def death(self, table: str, body: Mapping[str, Any]) -> bool:  # Any: the death's JSON fields
        """A death certificate: the table went dark, unless it is stale (another session's)."""
        with self.transaction():
            row = self._row(table)
            if row is None or row["session"] != body["session"] or row["dark"] is not None:
                return False
            dark = json.dumps({"reason": body["reason"], "at": now()})
            self.run("UPDATE floor_tables SET dark = ?, heard_at = ? WHERE name = ?", (dark, now(), table))
            return True

    def numbered(self, table: str, kind: str, body: Mapping[str, Any]) -> Counted:  # Any: JSON fields
        """A numbered message, counted once by table and sequence number, and only as the next one:
        one past it waits (not counted, the table asked for a rebirth, which sends it again after the
        missing ones); one before any birth waits for the birth to say where the count starts."""
        seq = body["seq"]
        if seq > MOST:  # it would wait for ever: say so, as a number the database cannot take
            raise Unfit(f"seq {seq} is beyond what the store keeps ({MOST})")
        with self.transaction():
            row = self._held(table)
            if kind == "head":
                self._witness(table, body)
            if row["spool"] is None:  # heard before any birth: shown, not counted
                return Counted(False, rebirth=True)
            if seq <= row["last_seq"]:
                self.run("UPDATE floor_tables SET repeats = repeats + 1 WHERE name = ?", (table,))
                return Counted(False, spool=row["spool"], through=row["last_seq"])
            if seq > row["last_seq"] + 1:  # an earlier one has not come (yet): the table sends it again
                return Counted(False, rebirth=True, spool=row["spool"], through=row["last_seq"])
            state = row["state"]
            if seq > row["as_of_seq"] and state:
                _apply(state, kind, body)
            self.run(
                "UPDATE floor_tables SET last_seq = ?, state = ?, heard_at = ? WHERE name = ?",
                (seq, json.dumps(state), now(), table),
            )
            return Counted(True, spool=row["spool"], through=seq)

    def malformed(self, table: str) -> None:
        """A message from ``table`` that could not be read, counted for the floor view."""
        with self.transaction():
            self.run(
                "INSERT INTO floor_tables (name, heard_at, malformed) VALUES (?, ?, 1) "
                "ON CONFLICT (name) DO UPDATE SET malformed = floor_tables.malformed + 1",
                (table, now()),
            )

    # -- reading ------------------------------------------------------------------------------
    def tables(self) -> list[dict[str, Any]]:  # Any: JSON fields
        """Every table the floor has heard, for the floor view: its state as its birth and numbered
        messages left it (its counters with its rounds per hour and held rounds among them), what
        the count found (repeats, gaps, malformed messages) and the number it started from (a
        compliance officer reads the gaps against it: the table's messages before it are its past,
        not lost), and whether it is silent: not dark, yet not heard for ``SILENT_AFTER`` seconds."""
        silent_before = (datetime.now(UTC) - timedelta(seconds=SILENT_AFTER)).isoformat(
            timespec="milliseconds"
        )
        rows = self.run(
            "SELECT name, last_seq, state, dark, heard_at, repeats, gaps, malformed, spool, counted_from "
            "FROM floor_tables ORDER BY name"
        ).fetchall()
        return [
            {
                "table": name,
                "last_seq": last_seq,
                **json.loads(state),
                "dark": json.loads(dark) if dark else None,
                "heard_at": heard_at,
                "repeats": repeats,
                "gaps": gaps,
                "malformed": malformed,
                "counted_from": _first_counted(spool, counted_from),
                "silent": not dark and heard_at < silent_before,
            }
            for name, last_seq, state, dark, heard_at, repeats, gaps, malformed, spool, counted_from in rows
        ]

    def counted_from(self, table: str) -> int | None:
        """The first number the floor counted of ``table``'s current spool (its first birth's
        ``held_from``; what the table published before is its past, which the floor never saw), or
        None before any birth. An outside witness's report shows it: the floor saw the table from
        there on, not before."""
        found = self.run("SELECT spool, counted_from FROM floor_tables WHERE name = ?", (table,)).fetchone()
        return None if found is None else _first_counted(*found)

    def heads(self, table: str) -> list[Head]:
        """The heads the floor witnessed for ``table``, by record number."""
        rows = self.run(
            "SELECT file, record, hash, epoch FROM floor_heads WHERE name = ? ORDER BY record", (table,)
        ).fetchall()
        return [Head(file, record, hash_, epoch) for file, record, hash_, epoch in rows]

    # -- the database -------------------------------------------------------------------------
    def _witness(self, table: str, head: Mapping[str, Any]) -> None:  # Any: the head's JSON fields
        kept = self.run(
            "SELECT hash FROM floor_heads WHERE name = ? AND record = ?", (table, head["record"])
        ).fetchone()
        if kept is not None and kept[0] != head["hash"]:
            log.warning(
                "a table sent another hash for a head already witnessed: the first stands",
                table=table, record=head["record"], witnessed=kept[0], sent=head["hash"],
            )  # fmt: skip
        self.run(
            "INSERT INTO floor_heads VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
            (table, head["record"], head["file"], head["hash"], head["epoch"], now()),
        )

    @property
    def for_update(self) -> str:
        """What a SELECT ends with to lock the rows it reads until the transaction ends: PostgreSQL
        needs it when floor services share the database; SQLite's write transaction already holds
        the whole file."""
        return " FOR UPDATE" if self.postgres else ""

    def _row(self, table: str) -> dict[str, Any] | None:  # Any: the row's columns
        """``table``'s row, locked until the transaction ends, or None for a table not heard yet."""
        found = self.run(
            "SELECT spool, session, last_seq, as_of_seq, counted_from, state, dark FROM floor_tables "
            f"WHERE name = ?{self.for_update}",
            (table,),
        ).fetchone()
        if found is None:
            return None
        spool, session, last_seq, as_of_seq, counted_from, state, dark = found
        return {
            "spool": spool, "session": session, "last_seq": last_seq, "as_of_seq": as_of_seq,
            "counted_from": counted_from, "state": json.loads(state), "dark": dark,
        }  # fmt: skip

    def _held(self, table: str) -> dict[str, Any]:  # Any: the row's columns
        """``table``'s row, locked until the transaction ends; a table new to the store gets its row
        first (no spool: heard, nothing counted yet), made once whoever is first: a PostgreSQL
        ``SELECT ... FOR UPDATE`` finds no row to lock, so two floor services hearing a new table at
        once would both insert it, the second failing on a duplicate key. The second's INSERT waits
        for the first's transaction and does nothing; its SELECT then locks the row the first made."""
        self.run(
            "INSERT INTO floor_tables (name, heard_at) VALUES (?, ?) ON CONFLICT (name) DO NOTHING",
            (table, now()),
        )
        row = self._row(table)
        assert row is not None, "the row was made above, in this transaction"
        return row

    def _put(
        self,
        table: str,
        spool: str,
        session: int,
        last_seq: int,
        as_of_seq: int,
        counted_from: int,
        state: Mapping[str, Any],  # Any: the state's JSON fields
        gaps: int,
    ) -> None:
        """The table's row (``_held``) as a birth leaves it: not dark; ``gaps``, the numbers the birth
        says are gone for good, added to the table's."""
        self.run(
            "UPDATE floor_tables SET spool = ?, session = ?, last_seq = ?, as_of_seq = ?, "
            "counted_from = ?, state = ?, dark = NULL, heard_at = ?, gaps = gaps + ? WHERE name = ?",
            (spool, session, last_seq, as_of_seq, counted_from, json.dumps(state), now(), gaps, table),
        )

    def run(self, sql: str, params: Sequence[object] = ()) -> _Cursor:
        """One statement, its ``?`` placeholders as the database wants them: the link controller's
        tables live in the same database (floor.link_controller). Outside a transaction (a read for
        the view or the link's heartbeat), the database failing is a StateError naming the store,
        as in one (``transaction``), and a broken connection is opened again first."""
        if self.postgres:
            sql = sql.replace("?", "%s")
        if self._in_transaction:
            return self._db.execute(sql, params)  # type: ignore[no-any-return]
        try:
            self._reopened()
            return self._db.execute(sql, params)  # type: ignore[no-any-return]
        except self._errors as exc:
            raise StateError(f"{self.where}: cannot read the floor store: {exc}") from exc

    def hold(self, key: str) -> bool:
        """The lock named ``key`` taken for this floor service, if no other sharing the store holds
        it; taken again by the one holding it, it is held as often as taken (``let_go`` as often). In
        PostgreSQL a session advisory lock, which the server lets go if the service's connection
        ends (the service stopped or dead, its publication cut short); a SQLite store has one floor
        service (docs/floor.md), whose own one-at-a-time suffices."""
        if not self.postgres:
            return True
        return bool(self.run("SELECT pg_try_advisory_lock(hashtextextended(?, 0))", (key,)).fetchone()[0])

    def let_go(self, key: str) -> None:
        """The lock named ``key`` (``hold``) let go once. A connection lost meanwhile let it go already,
        and the one opened since holds nothing."""
        if self.postgres:
            self.run("SELECT pg_advisory_unlock(hashtextextended(?, 0))", (key,))

    def _prepare(self, db: sqlite3.Connection, version: int) -> None:
        """The SQLite store's tables, each created where it is missing (a new store, or a table a
        later Croupier added to ``_SCHEMA``), and the file marked as a floor store in the same
        transaction (croupier/state/sqlite_file.py), as the PostgreSQL store's tables are made; a
        change that is more than a new table raises the schema version instead."""
        with transaction(db, f"{self.where}: cannot write the floor store's schema"):
            for statement in _SCHEMA:
                db.execute(statement)
            if version == 1:
                for statement in _ADDED:
                    db.execute(statement)
            FLOOR_FILE.mark(db)

    def _prepare_postgres(self) -> None:
        """The PostgreSQL store's schema, created if missing, and its version, kept in
        ``floor_schema`` as a SQLite store keeps it in the file's mark: a database a newer Croupier
        wrote is refused, not misread (several floor services may share it across an upgrade)."""
        with self.transaction():
            self.schema_lock()
            for statement in (*_SCHEMA, "CREATE TABLE IF NOT EXISTS floor_schema (version INTEGER NOT NULL)"):
                self.run(statement)
            row = self.run("SELECT max(version) FROM floor_schema").fetchone()
            if row[0] == 1:
                for statement in _ADDED:
                    self.run(statement.replace("ADD COLUMN", "ADD COLUMN IF NOT EXISTS"))
            if row[0] is not None and row[0] < 3:
                self._widen()
            if row[0] is None or row[0] < FLOOR_FILE.schema_version:
                self.run("INSERT INTO floor_schema VALUES (?)", (FLOOR_FILE.schema_version,))
            elif row[0] > FLOOR_FILE.schema_version:
                raise StateError(
                    f"{self.where}: {FLOOR_FILE.name} schema {row[0]} was written by a newer Croupier; "
                    f"this one reads schema {FLOOR_FILE.schema_version} or older"
                )

    def schema_lock(self) -> None:
        """In a transaction making tables (the store's, the link controller's), on PostgreSQL: wait
        for any other floor service making them, until this transaction ends. Two ``CREATE TABLE IF
        NOT EXISTS`` of one table at once both find it missing and the second fails on PostgreSQL's
        own catalogue (a duplicate key): floor services of a property started together would fail.
        A transaction-level advisory lock on the store's mark; SQLite's write transaction holds the
        whole file already."""
        if self.postgres:
            self.run("SELECT pg_advisory_xact_lock(?)", (FLOOR_FILE.application_id,))

    def _widen(self) -> None:
        """Schema version 3 in a PostgreSQL store an older Croupier wrote: every INTEGER column of the
        floor's tables and the link controller's (floor.link_controller), 32-bit there, made BIGINT.
        The link's ``carry`` is kept in ten-thousandths of a cent, so 32 bits held only $2,147.48 of
        it: a hit or a void beyond that could not be applied (decision 0039)."""
        for table, column in self.run(
            "SELECT table_name, column_name FROM information_schema.columns WHERE table_schema = "
            "current_schema() AND data_type = 'integer' AND (table_name LIKE ? OR table_name LIKE ?) "
            "ORDER BY table_name, ordinal_position",
            ("floor\\_%", "link\\_%"),
        ).fetchall():
            self.run(f'ALTER TABLE "{table}" ALTER COLUMN "{column}" TYPE BIGINT')
        log.info("floor store: its numbers made 64-bit (schema version 3)", store=self.where)

    @contextmanager
    def transaction(self) -> Iterator[None]:
        """One transaction, the store's and the link controller's (floor.link_controller), taking the
        write lock at once (``BEGIN IMMEDIATE`` in SQLite; rows read ``FOR UPDATE`` in PostgreSQL) so
        floor services sharing a database apply each message once; committed before the caller's
        method returns and rolled back if anything in it failed. A failure of the database itself
        (locked, read-only, gone) is a StateError naming the store, for the service to leave the
        message unacknowledged (floor.service); a connection the server broke is opened again at
        the next transaction. A value the database cannot take (``_unfit``: too large a number, a
        list where a number goes) is Unfit instead: the message is malformed (a value the link controller
        works out itself is refused to its table: floor.link_controller)."""
        cannot = f"{self.where}: cannot write the floor store"
        try:
            self._reopened()
            self._in_transaction = True
            with self._db.transaction() if self.postgres else transaction(self._db, cannot):
                yield
        except self._unfit as exc:
            raise Unfit(f"a value the store cannot take: {exc}") from exc
        except self._errors as exc:
            raise StateError(f"{cannot}: {exc}") from exc
        finally:
            self._in_transaction = False


def _apply(state: dict[str, Any], kind: str, body: Mapping[str, Any]) -> None:  # Any: JSON fields
    """A numbered message newer than the last birth, applied to the state the birth gave."""
    match kind:
        case "state":
            state["state"] = {key: body[key] for key in ("status", "reason", "dealer")}
        case "round":
            state["rounds"] = max(state.get("rounds", 0), body["round"])
        case "fault":
            fault = {key: body[key] for key in ("device", "code", "detail", "clause")}
            kept = [
                f
                for f in state.get("faults", [])
                if (f["device"], f["code"]) != (fault["device"], fault["code"])
            ]
            state["faults"] = [*kept, fault] if body["event"] == "latched" else kept
        case "link":
            links = state.setdefault("links", {})
            last_error = body["reason"] if body["reason"] else links.get(body["device"], {}).get("last_error")
            links[body["device"]] = {"state": body["state"], "last_error": last_error}
        case "meter":
            state["meters"], state["wagers_locked"] = body["levels"], body["wagers_locked"]
        case "counters":
            state["counters"] = {key: body[key] for key in COUNTERS}
        case "head":
            state["head"] = {key: body[key] for key in ("file", "record", "hash", "epoch")}
