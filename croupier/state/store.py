"""The table's state in SQLite, every write committed before its method returns.

A fault latched before a crash must still block dealing after it (decision 0017: faults
latch and survive a restart), and a round cut off by a kill -9 must be known
at restart. So each write is one transaction, committed with ``synchronous=FULL`` in WAL mode
before the call returns: what a caller was told is saved survives the process and the power.

One connection, used from the thread that opened it (the asyncio thread): sqlite3's own
``check_same_thread`` refuses any other thread, so no lock is needed and none is hidden here.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import sqlite3
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from croupier.audit.head import Head
from croupier.state.sqlite_file import FileKind, StateError, transaction
from drivers.protocol.core import Identity

SCHEMA_VERSION = 5
#: Marked "CRUP" (PRAGMA application_id).
STATE_FILE = FileKind("state file", 0x43525550, SCHEMA_VERSION)

_SCHEMA = """
CREATE TABLE latches (
    device   TEXT NOT NULL,
    position INTEGER NOT NULL,
    record   TEXT NOT NULL,
    PRIMARY KEY (device, position)
);
CREATE TABLE tables (
    name   TEXT PRIMARY KEY,
    fields TEXT NOT NULL
);
CREATE TABLE rounds (
    table_name TEXT NOT NULL,
    number     INTEGER NOT NULL,
    wagers     TEXT NOT NULL,
    begun_at   TEXT NOT NULL,
    ended_at   TEXT,
    PRIMARY KEY (table_name, number)
);
"""
#: What each schema version adds to the one before, so an older file is brought up to date when it
#: is opened: 2, the audit trail's last durable position (croupier.audit.head); 3, the idempotency
#: keys of the API (decision 0022); 4, when each device's next firmware authenticity check is due
#: (decision 0026); 5, the unit each device last accepted (decision 0017).
_ADDED = {
    2: """
CREATE TABLE trail_heads (
    table_name TEXT PRIMARY KEY,
    file       TEXT NOT NULL,
    seq        INTEGER NOT NULL,
    hash       TEXT NOT NULL,
    epoch      INTEGER
);
""",
    3: """
CREATE TABLE idempotency (
    key          TEXT PRIMARY KEY,
    route        TEXT NOT NULL,
    operator     TEXT NOT NULL,
    request_hash TEXT NOT NULL,
    status       INTEGER NOT NULL,
    body         TEXT NOT NULL,
    at           TEXT NOT NULL
);
""",
    4: """
CREATE TABLE authenticity (
    device TEXT PRIMARY KEY,
    due    REAL NOT NULL
);
""",
    5: """
CREATE TABLE units (
    device   TEXT PRIMARY KEY,
    identity TEXT NOT NULL
);
""",
}


#: How long a response is kept for its ``Idempotency-Key``: far longer than any screen retries a
#: request (seconds, or minutes across a restart), and short enough that the table's state stays
#: small (decision 0022). A key sent again after that is a new request.
IDEMPOTENCY_KEPT = timedelta(hours=24)


@dataclass(frozen=True)
class KeptResponse:
    """The response a request with an ``Idempotency-Key`` was given, kept for its repeats."""

    route: str
    operator: str
    request_hash: str
    status: int
    body: Any  # Any: JSON values


@dataclass(frozen=True)
class RoundInProgress:
    """A round begun and not ended: after a restart, the round the crash cut off."""

    number: int
    wagers: Any  # Any: JSON values
    begun_at: str


class TableState:
    """The state database at ``path`` (``[service] state_db``), created on first open."""

    def __init__(self, path: Path | str) -> None:
        self.path = Path(path)
        self._db = STATE_FILE.open(self.path, self._prepare)

    def close(self) -> None:
        self._db.close()

    def __enter__(self) -> TableState:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    # -- latched faults (devices.faults.FaultLatch.to_records / restore) --

    def save_latches(self, device: str, records: list[dict[str, str]]) -> None:
        """Replace ``device``'s latched faults with ``records``, in their order."""
        rows = [(device, i, self._json(r, f"latch {i} of {device}")) for i, r in enumerate(records)]
        with self._transaction():
            self._db.execute("DELETE FROM latches WHERE device = ?", (device,))
            self._db.executemany("INSERT INTO latches VALUES (?, ?, ?)", rows)

    def load_latches(self, device: str) -> list[dict[str, str]]:
        rows = self._db.execute("SELECT record FROM latches WHERE device = ? ORDER BY position", (device,))
        return [json.loads(record) for (record,) in rows]

    # -- the table's counters --

    def save_table(self, name: str, fields: Mapping[str, Any]) -> None:  # Any: JSON values
        """Replace table ``name``'s counters (rounds played, batches, dealer, shoe counts)."""
        text = self._table_text(name, fields)
        with self._transaction():
            self._db.execute("INSERT OR REPLACE INTO tables VALUES (?, ?)", (name, text))

    def _table_text(self, name: str, fields: Mapping[str, Any]) -> str:  # Any: JSON values
        for key, value in fields.items():
            self._json(value, f"table {name} field {key!r}")
        return self._json(dict(fields), f"table {name}")

    def load_table(self, name: str) -> dict[str, Any] | None:  # Any: JSON values
        """The counters last saved for ``name``; None for a table never saved."""
        row = self._db.execute("SELECT fields FROM tables WHERE name = ?", (name,)).fetchone()
        return None if row is None else json.loads(row[0])

    # -- the round in progress --

    def begin_round(self, table: str, number: int, wagers: Any) -> None:  # Any: JSON values
        """Record that round ``number`` of ``table`` began with ``wagers`` (JSON-serialisable)."""
        text = self._json(wagers, f"table {table} round {number} wagers")
        with self._transaction():
            current = self.round_in_progress(table)
            if current is not None:
                refused = f"table {table} round {number} refused"
                raise StateError(f"{self.path}: {refused}: round {current.number} is still in progress")
            try:
                self._db.execute(
                    "INSERT INTO rounds VALUES (?, ?, ?, ?, NULL)", (table, number, text, _now())
                )
            except sqlite3.IntegrityError:
                raise StateError(f"{self.path}: table {table} round {number} was already played") from None

    def end_round(self, table: str, number: int, counters: Mapping[str, Any]) -> None:  # Any: JSON values
        """Record that round ``number`` of ``table`` ended (settled or voided), and replace the
        table's ``counters`` in the same transaction: a kill between two writes would otherwise
        leave the round ended and the rounds-played counter behind it, and the next round would
        take an ended round's number again."""
        text = self._table_text(table, counters)
        with self._transaction():
            ended = self._db.execute(
                "UPDATE rounds SET ended_at = ? WHERE table_name = ? AND number = ? AND ended_at IS NULL",
                (_now(), table, number),
            )
            if ended.rowcount != 1:
                current = self.round_in_progress(table)
                now = "none" if current is None else f"round {current.number}"
                raise StateError(
                    f"{self.path}: table {table} round {number} is not in progress (in progress: {now})"
                )
            self._db.execute("INSERT OR REPLACE INTO tables VALUES (?, ?)", (table, text))

    def round_in_progress(self, table: str) -> RoundInProgress | None:
        row = self._db.execute(
            "SELECT number, wagers, begun_at FROM rounds WHERE table_name = ? AND ended_at IS NULL",
            (table,),
        ).fetchone()
        return None if row is None else RoundInProgress(row[0], json.loads(row[1]), row[2])

    # -- the audit trail's head (croupier.audit.writer.HeadStore) --

    def save_head(self, table: str, head: Head) -> None:
        """The trail's newest record, saved after it is on disk: never ahead of the trail.

        Committed without a sync of its own (``synchronous=NORMAL`` for this one transaction), so a
        record costs the trail one fsync, not two: the WAL keeps commits in order and the next
        ``FULL`` commit or checkpoint syncs it, so after a power cut the saved head can only lag
        the trail by a few records, which verifies, and never lead it (docs/audit.md §9). A kill
        loses nothing: the commit is in the operating system's hands."""
        self._db.execute("PRAGMA synchronous = NORMAL")
        try:
            with self._transaction():
                self._db.execute(
                    "INSERT OR REPLACE INTO trail_heads VALUES (?, ?, ?, ?, ?)",
                    (table, head.file, head.seq, head.hash, head.epoch),
                )
        finally:
            self._db.execute("PRAGMA synchronous = FULL")

    def load_head(self, table: str) -> Head | None:
        """Where ``table``'s trail had reached; a trail that ends before it was cut."""
        return _head(self._db, table)

    @staticmethod
    def read_head(path: Path, table: str) -> Head | None:
        """``load_head`` from the file at ``path`` opened read-only, as ``croupier audit verify
        --state`` reads it beside a running service: nothing is created, migrated or locked."""
        if not Path(path).is_file():
            raise StateError(f"{path}: no such state database")
        uri = f"{Path(path).resolve().as_uri()}?mode=ro"
        try:
            with contextlib.closing(sqlite3.connect(uri, uri=True)) as db:
                schema = db.execute("SELECT count(*) FROM sqlite_schema WHERE name = 'trail_heads'")
                return _head(db, table) if schema.fetchone()[0] else None  # schema 1 kept no head
        except sqlite3.Error as exc:
            raise StateError(f"{path}: cannot read the trail's head: {exc}") from None

    # -- firmware authenticity checks (drivers.connection.DeviceConnection.check_due) --

    def save_check_due(self, device: str, due: float) -> None:
        """When ``device``'s next authenticity check is due, in seconds since the epoch: kept so that
        a restart does not push the daily check back (58 Pa. Code § 461a.20(b))."""
        with self._transaction():
            self._db.execute("INSERT OR REPLACE INTO authenticity VALUES (?, ?)", (device, due))

    def check_due(self, device: str) -> float | None:
        """The due time last saved for ``device``; None for a device never checked."""
        row = self._db.execute("SELECT due FROM authenticity WHERE device = ?", (device,)).fetchone()
        return None if row is None else float(row[0])

    # -- the unit each device accepted (drivers.connection.DeviceConnection.accepted) --

    def save_unit(self, device: str, identity: Identity) -> None:
        """The unit ``device`` accepted (the first to answer, or one a supervisor accepted after a
        swap), as its handshake identified it: kept so that a unit exchanged while the table was
        off is found at the next start (605a.4(c); decision 0017)."""
        fields = {**dataclasses.asdict(identity), "firmware_hash": identity.firmware_hash.hex()}
        text = self._json(fields, f"the unit of {device}")
        with self._transaction():
            self._db.execute("INSERT OR REPLACE INTO units VALUES (?, ?)", (device, text))

    def unit(self, device: str) -> Identity | None:
        """The unit last saved for ``device``; None for a device that never accepted one."""
        row = self._db.execute("SELECT identity FROM units WHERE device = ?", (device,)).fetchone()
        if row is None:
            return None
        fields = json.loads(row[0])
        hashed, capabilities = bytes.fromhex(fields.pop("firmware_hash")), tuple(fields.pop("capabilities"))
        return Identity(**fields, firmware_hash=hashed, capabilities=capabilities)

    def forget_units(self, kept: Collection[str]) -> None:
        """Forget the units of every device but those ``kept`` (the devices configured now): a device
        removed from the configuration and added again later accepts whatever unit answers then."""
        with self._transaction():
            units = self._db.execute("SELECT device FROM units").fetchall()
            gone = [(device,) for (device,) in units if device not in kept]
            self._db.executemany("DELETE FROM units WHERE device = ?", gone)

    # -- idempotency keys (croupier.api.once) --

    def keep_response(self, key: str, response: KeptResponse) -> None:
        """Keep the response given to the request with the ``Idempotency-Key`` ``key``; keys older
        than ``IDEMPOTENCY_KEPT`` are dropped first, so the table grows no record of every request
        it ever took."""
        body = self._json(response.body, f"the response to idempotency key {key!r}")
        now = datetime.now(UTC)
        row = (key, response.route, response.operator, response.request_hash, response.status, body, _at(now))
        with self._transaction():
            self._db.execute("DELETE FROM idempotency WHERE at < ?", (_at(now - IDEMPOTENCY_KEPT),))
            self._db.execute("INSERT INTO idempotency VALUES (?, ?, ?, ?, ?, ?, ?)", row)

    def kept_response(self, key: str) -> KeptResponse | None:
        """The response kept for ``key``; None for a key never used, or used more than
        ``IDEMPOTENCY_KEPT`` ago (a new request)."""
        row = self._db.execute(
            "SELECT route, operator, request_hash, status, body FROM idempotency WHERE key = ? AND at >= ?",
            (key, _at(datetime.now(UTC) - IDEMPOTENCY_KEPT)),
        ).fetchone()
        return None if row is None else KeptResponse(row[0], row[1], row[2], row[3], json.loads(row[4]))

    # -- the file --

    def _prepare(self, db: sqlite3.Connection, version: int) -> None:
        """Create the schema in a new file (``version`` 0), or add what later versions added."""
        if version < SCHEMA_VERSION:
            added = [_ADDED[later] for later in range(max(version, 1) + 1, SCHEMA_VERSION + 1)]
            with transaction(db, f"{self.path}: cannot write the state database"):
                for script in ([_SCHEMA] if version == 0 else []) + added:
                    for statement in script.split(";"):
                        if statement.strip():
                            db.execute(statement)
                STATE_FILE.mark(db)

    def _transaction(self) -> contextlib.AbstractContextManager[None]:
        return transaction(self._db, f"{self.path}: cannot write the state database")

    def _json(self, value: Any, what: str) -> str:  # Any: JSON values
        """``value`` as JSON; the error names what was refused, never the value (it may be secret)."""
        try:
            return json.dumps(value, sort_keys=True, allow_nan=False)
        except (TypeError, ValueError):
            # json's own message (and so a chained exception) may quote the value: keep neither.
            raise StateError(f"{self.path}: {what} cannot be saved: not representable in JSON") from None


def _head(db: sqlite3.Connection, table: str) -> Head | None:
    query = "SELECT file, seq, hash, epoch FROM trail_heads WHERE table_name = ?"
    row = db.execute(query, (table,)).fetchone()
    return None if row is None else Head(*row)


def _now() -> str:
    return _at(datetime.now(UTC))


def _at(moment: datetime) -> str:
    """A time as the database keeps it: UTC, ISO 8601 with milliseconds, so text order is time order."""
    return moment.isoformat(timespec="milliseconds")
