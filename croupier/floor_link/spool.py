"""The floor link's spool: every message for the floor, numbered and on disk before the table goes on.

The table never waits on the broker (decision 0035): what it publishes is written here first, in one
SQLite transaction committed with ``synchronous=FULL`` in WAL mode, as the state database is
(croupier/state), and given the table's next sequence number. The sender sends messages in sequence
order, and each is deleted only once a floor service has confirmed it counted it (``cmd/counted``),
not when the broker acknowledged it: a broker acknowledges a message before it is on its disk, so a
broker that crashes could lose it (decision 0035). A message is lost neither to a broker that is
away or crashes nor to a restart: the next connection sends again from the first one unconfirmed.

The numbers come from SQLite's ``AUTOINCREMENT``, which never hands out a number twice, even after the
messages holding the highest ones were delivered and deleted: the floor counts a message delivered
twice once, by table and number. A new spool (its file removed, the table PC replaced) numbers from 1
again under a new random ``identity``, which every birth certificate names: the floor then counts
afresh. The spool also keeps the link's session number (Sparkplug's
``bdSeq``), one more at every connection, so the floor can tell a stale death from the current one,
the counters' totals as last told, so they go on from there after a restart, and a linked
progressive's counts (decision 0039): the table's link messages are numbered in a sequence of their
own, the contributions and their cents counted with them (less one withdrawn when its round was
voided), in the transaction that spools the message, so what the table says it sent is exactly what
is on its way; and the base that makes the controller's own wagers-in meter comparable with them
(decision 0043), raised by a withdrawal's cents in the same transaction, since the meter keeps a
voided round's wagers (decision 0044).

Its schema version is 3. A spool of an earlier version is brought to 3 when it is opened, its
messages waiting, numbers, session and counters' totals going on as they were: one of version 1 (a
table PC from before linked progressives) gains the table of link messages kept, one of version 2
the unit of the controller round last contributed (a replaced controller numbers its rounds from 1
again, and its meters may match the old unit's, so the round's number alone does not say it was
sent; decision 0039). A round counted by a spool of version 2 has no unit kept: a round of the same
number is taken for it, as before, until the next contribution keeps its unit. A spool of a later
version than this release knows is refused (croupier.state.sqlite_file).

One connection, used from the event loop's thread, as the state database's is.
"""

from __future__ import annotations

import json
import secrets
import sqlite3
from collections.abc import Callable, Mapping
from contextlib import AbstractContextManager
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

from croupier.state.sqlite_file import FileKind, StateError, transaction
from devices.linked import Counts, RoundWagers

#: Marked "CRFL" (PRAGMA application_id); version 2 keeps a linked progressive's messages, version 3
#: the controller unit of the round last contributed.
SPOOL_FILE = FileKind("floor spool", 0x4352464C, 3)
_SCHEMA = """
CREATE TABLE messages (
    seq     INTEGER PRIMARY KEY AUTOINCREMENT,
    topic   TEXT NOT NULL,
    payload TEXT NOT NULL
);
CREATE TABLE link (
    name  TEXT PRIMARY KEY,
    value INTEGER NOT NULL
);
CREATE TABLE identity (
    spool TEXT NOT NULL
)
"""
#: Version 2: each link message kept until the link controller says it applied it.
_LINKED = """
CREATE TABLE linked (
    number INTEGER PRIMARY KEY,
    body   TEXT NOT NULL
)
"""
#: Version 3: the controller unit (devices.linked.unit_key) of the round last contributed, one row.
_UNIT = """
CREATE TABLE linked_unit (
    unit TEXT NOT NULL
)
"""


#: A link message's payload from its sequence number and what is kept of it (croupier.floor_link.linked).
MakeLinked = Callable[..., Mapping[str, object]]
#: The fields of a difference a supervisor's clear of LINK_MISMATCH took, each kept in the ``link`` table.
_DIFFERENCE = ("number", "contributions", "wagered_cents")
#: The prefix of a counter's total in the ``link`` table.
_TOTAL = "total:"
#: The prefix of the controller round of the last hit spooled of a level at a seat (``LEVEL:SEAT`` follows).
_HIT = "linked_hit:"


@dataclass(frozen=True)
class Spooled:
    """One message waiting for the floor's confirmation."""

    seq: int
    topic: str
    payload: bytes


class Spool:
    """The spool at ``path``, created on first open."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)  # beside the state database by default
        except OSError as exc:
            raise StateError(f"{self.path}: cannot open the floor spool: {exc}") from exc
        self._db = SPOOL_FILE.open(self.path, self._prepare)
        try:
            self.identity: str = self._read("SELECT spool FROM identity")[0][0]
        except StateError:
            self._db.close()
            raise

    def close(self) -> None:
        self._db.close()

    def append(
        self, topic: str, make: Callable[[int], Mapping[str, object]], totals: Mapping[str, int] | None = None
    ) -> int:
        """Spool the message ``make(seq)`` builds for ``topic`` under the table's next number, and
        return the number once the message is on disk; ``totals``, what the counters keep
        (croupier.floor_link.counters), replace those kept, in the same transaction."""
        with self._transaction():
            seq = self._spooled(topic, make)
            if totals is not None:
                self._db.execute("DELETE FROM link WHERE name LIKE ?", (f"{_TOTAL}%",))
                self._db.executemany(
                    "INSERT INTO link VALUES (?, ?)", [(f"{_TOTAL}{name}", n) for name, n in totals.items()]
                )
        return seq

    def totals(self) -> dict[str, int]:
        """The counters' totals as the last counters message spooled told them (none before one)."""
        rows = self._read("SELECT name, value FROM link WHERE name LIKE ?", (f"{_TOTAL}%",))
        return {name.removeprefix(_TOTAL): int(value) for name, value in rows}

    def pending(self, after: int, limit: int) -> list[Spooled]:
        """The oldest ``limit`` messages numbered above ``after`` (the last one sent on this
        connection) not yet confirmed, in sequence order."""
        rows = self._read(
            "SELECT seq, topic, payload FROM messages WHERE seq > ? ORDER BY seq LIMIT ?", (after, limit)
        )
        return [Spooled(seq, topic, payload.encode()) for seq, topic, payload in rows]

    def confirmed(self, through: int) -> None:
        """A floor service counted every message up to number ``through``: they leave the spool."""
        with self._transaction():
            self._db.execute("DELETE FROM messages WHERE seq <= ?", (through,))

    @property
    def last_seq(self) -> int:
        """The highest number handed out so far (0 before the first message)."""
        rows = self._read("SELECT seq FROM sqlite_sequence WHERE name = 'messages'")
        return int(rows[0][0]) if rows else 0

    @property
    def held_from(self) -> int:
        """The first number the spool still holds (its oldest message not yet confirmed), or the next
        number it will hand out when it holds none: every number below it the floor has counted, or
        will never get from this spool (a birth says so, for the floor to count the gap)."""
        ((held,),) = self._read("SELECT min(seq) FROM messages")
        return self.last_seq + 1 if held is None else int(held)

    def __len__(self) -> int:
        return int(self._read("SELECT count(*) FROM messages")[0][0])

    def append_linked(
        self,
        topic: str,
        body: Mapping[str, object],
        make: MakeLinked,
        contribution: RoundWagers | None = None,
        withdrawal: RoundWagers | None = None,
        hit: tuple[int, int, int] | None = None,
    ) -> int:
        """Spool the link message ``make(seq, kept)`` builds, ``kept`` being ``body`` with the next
        link ``number``, under the table's next sequence number, keep ``kept`` until the controller
        applied it (``resend``), and return the link number. ``contribution``: the controller's unit,
        its round and the cents wagered, counted with it; a round of the same unit counted already
        spools nothing (0), one of another unit is another round, whatever its number (a replaced
        controller numbers from 1 again, and its meters may match the old one's: decision 0039).
        ``withdrawal``: the unit, round and cents of the last contribution, taken back from the counts
        (its round voided); spooled once, and only for the round last contributed, of its unit (else
        0): a new contribution is not withdrawn yet, whatever round was withdrawn before it, since a
        replaced controller may reach the number of a round voided under the old one (decision 0044). The
        controller's wagers-in meter keeps the voided wagers, so the device base (``device_base``)
        rises by the cents withdrawn in the same transaction: the meter less the base stays the
        cents sent (decisions 0043, 0044). ``hit``: the level, seat and controller round of a hit,
        marked in the same transaction; spooled once for its level, seat and round (else 0: two
        seats may hit one level in a round, the controller paying each once), and never for the
        round last withdrawn (a hit of a voided round is no hit): what makes a hit the controller
        froze before a stop safe to send at the start (decision 0049). The marks are forgotten at
        the next contribution: a level frozen by a hit opens no round at the table until its keyed
        reset, so by then no hit of an earlier round is owed."""
        with self._transaction():
            values = self._link_values()
            last = (self.linked_unit(), values.get("linked_round"))  # no unit: a version 2 spool's round
            if contribution is not None and _same(last, contribution):
                return 0
            if hit is not None and hit[2] in (values.get(_hit_mark(hit)), values.get("linked_withdrawn")):
                return 0
            if withdrawal is not None and (
                not _same(last, withdrawal) or values.get("linked_withdrawn") == withdrawal[1]
            ):
                return 0
            number = values.get("linked_number", 0) + 1
            counted = {"linked_number": number}
            if contribution is not None:
                counted |= {
                    "linked_round": contribution[1],
                    "linked_contributions": values.get("linked_contributions", 0) + 1,
                    "linked_cents": values.get("linked_cents", 0) + contribution[2],
                }
            if withdrawal is not None:
                counted |= {
                    "linked_withdrawn": withdrawal[1],
                    "linked_contributions": values.get("linked_contributions", 0) - 1,
                    "linked_cents": values.get("linked_cents", 0) - withdrawal[2],
                }
                if (base := values.get("linked_device_base")) is not None:
                    counted["linked_device_base"] = base + withdrawal[2]
            if hit is not None:
                counted[_hit_mark(hit)] = hit[2]
            if contribution is not None:  # the round last contributed, of its unit: not withdrawn, nor hit
                self._db.execute(
                    "DELETE FROM link WHERE name = 'linked_withdrawn' OR name LIKE ?", (f"{_HIT}%",)
                )
                self._db.execute("DELETE FROM linked_unit")
                self._db.execute("INSERT INTO linked_unit VALUES (?)", (contribution[0],))
            self._db.executemany("INSERT OR REPLACE INTO link VALUES (?, ?)", counted.items())
            kept: dict[str, object] = {**body, "number": number}
            self._db.execute("INSERT INTO linked VALUES (?, ?)", (number, encode(kept).decode()))
            self._spooled(topic, partial(make, kept=kept))
        return number

    def resend(self, topic: str, after: int, make: MakeLinked) -> int:
        """Spool again, under new sequence numbers, every link message kept that is numbered above
        ``after`` (the last the controller applied): the controller applies each once by its link
        number, so one it already has changes nothing. Returns how many; those up to ``after`` are
        no longer kept."""
        with self._transaction():
            self._db.execute("DELETE FROM linked WHERE number <= ?", (after,))
            rows = self._read("SELECT body FROM linked ORDER BY number")
            for (body,) in rows:
                kept: Mapping[str, object] = json.loads(body)
                self._spooled(topic, partial(make, kept=kept))
        return len(rows)

    def unapplied(self) -> list[Mapping[str, object]]:
        """The link messages kept, the controller not having said it applied them, in order."""
        return [json.loads(body) for (body,) in self._read("SELECT body FROM linked ORDER BY number")]

    def applied(self, through: int) -> None:
        """The link controller applied every link message up to ``through``: no longer kept."""
        with self._transaction():
            self._db.execute("DELETE FROM linked WHERE number <= ?", (through,))

    def _spooled(self, topic: str, make: Callable[[int], Mapping[str, object]]) -> int:
        """One message under the next sequence number, inside the caller's transaction."""
        seq = self._db.execute("INSERT INTO messages VALUES (NULL, ?, '')", (topic,)).lastrowid
        assert seq is not None  # an INSERT into a rowid table gives its row's id
        payload = encode(make(seq)).decode()
        self._db.execute("UPDATE messages SET payload = ? WHERE seq = ?", (payload, seq))
        return seq

    def linked_counts(self) -> Counts:
        """The link messages spooled so far: the last link number, the contributions and their cents."""
        kept = self._link_values()
        return Counts(
            kept.get("linked_number", 0), kept.get("linked_contributions", 0), kept.get("linked_cents", 0)
        )

    def linked_unit(self) -> str | None:
        """The controller unit (devices.linked.unit_key) of the round last contributed; None before
        one, or from a version 2 spool. Kept across a supervisor's taking the controller's base afresh
        (``take_difference``): what it answers is which unit froze a level (devices.linked)."""
        rows = self._read("SELECT unit FROM linked_unit")
        return str(rows[0][0]) if rows else None

    def device_base(self) -> int | None:
        """The progressive controller's wagers-in meter less the link's cents sent, as taken when the
        link first read the controller (or a supervisor last took a difference: decision 0043),
        plus the cents of every contribution withdrawn since (``append_linked``); None before it
        was taken."""
        return self._link_values().get("linked_device_base")

    def take_device_base(self, cents: int) -> None:
        with self._transaction():
            self._db.execute("INSERT OR REPLACE INTO link VALUES ('linked_device_base', ?)", (cents,))

    def linked_difference(self) -> Counts:
        """The difference (sent less applied) a supervisor's clear of LINK_MISMATCH last took."""
        kept = self._link_values()
        return Counts(*(kept.get(f"linked_taken_{name}", 0) for name in _DIFFERENCE))

    def take_difference(self, difference: Counts, device_base: int | None) -> None:
        """A supervisor's clear of LINK_MISMATCH: the difference taken and, when the controller's
        meter differed too, the device base taken afresh, in one transaction (decisions 0039, 0043).
        A base taken afresh starts the controller over (replaced, or its meters cleared), and such a
        controller numbers its rounds from 1 again (decision 0044): the round last contributed and
        the round last withdrawn are forgotten, so its round of the same number is counted, and
        its void and its hits sent. The unit of the round last contributed is kept (no round of it
        is, so nothing is taken for that round again): a replaced unit's frozen level, found at the
        start with no unit kept to latch DEVICE_SWAPPED against, is still no hit of the table's
        round after the clear (devices.linked, decision 0049)."""
        taken = {f"linked_taken_{name}": getattr(difference, name) for name in _DIFFERENCE}
        if device_base is not None:
            taken["linked_device_base"] = device_base
        with self._transaction():
            self._db.executemany("INSERT OR REPLACE INTO link VALUES (?, ?)", taken.items())
            if device_base is not None:
                self._db.execute(
                    "DELETE FROM link WHERE name IN ('linked_round', 'linked_withdrawn') OR name LIKE ?",
                    (f"{_HIT}%",),
                )

    def waiting(self, topic: str) -> int:
        """The messages on ``topic`` not yet confirmed by the floor."""
        return int(self._read("SELECT count(*) FROM messages WHERE topic = ?", (topic,))[0][0])

    def _link_values(self) -> dict[str, int]:
        return {name: int(value) for name, value in self._read("SELECT name, value FROM link")}

    def next_session(self) -> int:
        """The next connection's session number, kept before the connection is made."""
        with self._transaction():
            rows = self._read("SELECT value FROM link WHERE name = 'session'")
            session = int(rows[0][0]) + 1 if rows else 1
            self._db.execute("INSERT OR REPLACE INTO link VALUES ('session', ?)", (session,))
        return session

    def _prepare(self, db: sqlite3.Connection, version: int) -> None:
        """A new spool (``version`` 0): its schema, and its identity, drawn afresh; one of version 1:
        the table of link messages kept; one of version 2: the unit of the round last contributed."""
        if version < SPOOL_FILE.schema_version:
            with transaction(db, f"{self.path}: cannot write the floor spool"):
                if version == 0:
                    for statement in _SCHEMA.split(";"):
                        db.execute(statement)
                    db.execute("INSERT INTO identity VALUES (?)", (secrets.token_hex(16),))
                if version < 2:
                    db.execute(_LINKED)
                db.execute(_UNIT)
                SPOOL_FILE.mark(db)

    def _read(self, query: str, parameters: tuple[object, ...] = ()) -> list[tuple[Any, ...]]:  # Any: a row
        """Every row of ``query``: a read the file refuses (its disk failing, a page unreadable) is a
        StateError, as a refused write is (``_transaction``), so what catches one catches both, and
        the floor link's watch and the link's look go on to the next try."""
        try:
            return self._db.execute(query, parameters).fetchall()
        except sqlite3.Error as exc:
            raise StateError(f"{self.path}: cannot read the floor spool: {exc}") from exc

    def _transaction(self) -> AbstractContextManager[None]:
        """One write transaction (croupier.state.sqlite_file.transaction): a write the file refuses,
        by a statement or at the commit, is a StateError, rolled back, for the floor link to hold
        the table on (croupier.floor_link.publisher)."""
        return transaction(self._db, f"{self.path}: cannot write the floor spool")


def _hit_mark(hit: tuple[int, int, int]) -> str:
    """The name a hit of (level, seat, round) is marked under in the ``link`` table."""
    return f"{_HIT}{hit[0]}:{hit[1]}"


def _same(last: tuple[str | None, int | None], wagers: RoundWagers) -> bool:
    """Whether ``wagers`` are of the round last contributed (``last``: its unit and number): the same
    number of the same unit, or of any unit when none was kept (a round a version 2 spool counted)."""
    unit, round_ = last
    return round_ == wagers[1] and unit in (None, wagers[0])


def encode(body: Mapping[str, object]) -> bytes:
    """A message's payload: compact JSON, keys sorted, so a message sent again is the same bytes."""
    return json.dumps(body, sort_keys=True, allow_nan=False, separators=(",", ":")).encode()
