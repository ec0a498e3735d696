"""The link controller: one progressive jackpot per level, shared by the tables of a link (decision 0039).

Each linked table sends its link messages through its spool like every other message
(croupier.floor_link.linked): a **contribution** (the progressive wagers its controller accepted at a
lock), a **hit** (a level won at the table) and a **reset** (the supervisor's keyed reset of that
hit). Each is numbered in the table's own link sequence and applied here once and in order, by
table, spool and number, in one transaction with the high-water mark that says so (as the floor
store counts messages: floor.store), in the floor's database, SQLite or PostgreSQL. A message after
a gap is not applied: the table, seeing fewer applied than it sent, sends again everything after the
last applied (croupier.floor_link.linked), and the controller applies those it lacks.

A level's value is its reset value plus its rate of every cent wagered since it last restarted, and
the fraction of a cent its last hit left, rounded down to the cent: computed from the cents wagered
rather than added up, and the fraction below a cent at a hit carried to the next cycle (``carry``,
in ten-thousandths of a cent), so no fraction of a cent is lost or made. A
hit freezes the level's value for that hit, in the order the hits were received, and the level
restarts at its reset value at once: a second hit before the first is reset is paid its reset value
plus what was wagered since the first. The level stays locked at every table of the link while any
of its hits waits for its keyed reset.

The controller publishes each table's view of the link, retained, on the one topic that table may
read (``croupier/v1/GROUP/link/LINK/table/TABLE``): each level's value, rate, reset value and the
hits that lock it, and what it applied of that table (for the table's reconciliation). It publishes
after every change and every ``heartbeat`` seconds, so a table that stops hearing it knows the
link is gone.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import structlog

from croupier.config.linked import BASIS_POINTS, FloorLink
from croupier.errors import StartupError
from croupier.floor_link.payloads import now
from croupier.floor_link.topics import link_state
from floor.store import Store

log = structlog.get_logger("croupier.floor")

_SCHEMA = (
    """CREATE TABLE IF NOT EXISTS link_levels (
        link        TEXT NOT NULL,
        level       INTEGER NOT NULL,
        rate_bp     INTEGER NOT NULL,
        reset_cents INTEGER NOT NULL,
        in_cents    INTEGER NOT NULL DEFAULT 0,
        carry       INTEGER NOT NULL DEFAULT 0,
        PRIMARY KEY (link, level)
    )""",
    """CREATE TABLE IF NOT EXISTS link_tables (
        link          TEXT NOT NULL,
        name          TEXT NOT NULL,
        spool         TEXT NOT NULL,
        number        INTEGER NOT NULL,
        contributions INTEGER NOT NULL,
        wagered_cents INTEGER NOT NULL,
        heard_at      TEXT NOT NULL,
        PRIMARY KEY (link, name, spool)
    )""",
    """CREATE TABLE IF NOT EXISTS link_hits (
        link         TEXT NOT NULL,
        ord          INTEGER NOT NULL,
        level        INTEGER NOT NULL,
        name         TEXT NOT NULL,
        number       INTEGER NOT NULL,
        seat         INTEGER NOT NULL,
        round        INTEGER NOT NULL,
        amount_cents INTEGER NOT NULL,
        hit_at       TEXT NOT NULL,
        reset_at     TEXT,
        PRIMARY KEY (link, ord)
    )""",
)
#: What a table sends on the link (the ``event`` of its ``linked`` messages).
EVENTS = ("contribution", "hit", "reset")


class LinkController:
    """The floor's links (``[links.ID]``), kept in ``store``'s database."""

    def __init__(self, links: Mapping[str, FloorLink], store: Store, group: str) -> None:
        self.links, self.store, self.group = dict(links), store, group
        with store.transaction():
            for statement in _SCHEMA:
                store.run(statement)
            for link in self.links.values():
                for level, config in link.levels.items():
                    self._level_row(link, level, config.rate_bp, config.reset_cents)

    def _level_row(self, link: FloorLink, level: int, rate_bp: int, reset_cents: int) -> None:
        """A configured level's row; one kept with another rate or reset is refused: the value it
        holds accrued under those, and changing them now would change what the players see."""
        kept = self.store.run(
            "SELECT rate_bp, reset_cents FROM link_levels WHERE link = ? AND level = ?", (link.id, level)
        ).fetchone()
        if kept is None:
            self.store.run(
                "INSERT INTO link_levels (link, level, rate_bp, reset_cents) VALUES (?, ?, ?, ?)",
                (link.id, level, rate_bp, reset_cents),
            )
        elif tuple(kept) != (rate_bp, reset_cents):
            raise StartupError(
                f"links.{link.id}.levels.{level}: rate_bp {rate_bp}, reset_cents {reset_cents}, but the "
                f"level accrues at rate_bp {kept[0]} from reset_cents {kept[1]}: change them only with "
                "a new link id"
            )

    # -- what the tables send -----------------------------------------------------------------
    def heard(self, table: str, body: Mapping[str, Any]) -> str | None:  # Any: the message's JSON fields
        """Apply one ``linked`` message from ``table`` once; the id of the link it changed, or None
        (a repeat, or a message for no link of this floor, which is logged)."""
        link = self.links.get(body["link"])
        if link is None or table not in link.tables:
            log.error("link: a table not on the link it names", table=table, link=body["link"])
            return None
        event, number, spool = body["event"], body["number"], body["spool"]
        if event not in EVENTS:
            log.error("link: an event the controller does not know", table=table, event=event)
            return None
        with self.store.transaction():
            kept = self._applied(link.id, table, spool)
            last = 0 if kept is None else kept[0]
            if number <= last:
                return None  # applied already: a message delivered twice counts once
            if number > last + 1:  # one lost on the way: nothing after it until the table sends it again
                log.warning("link: a gap in a table's numbers", table=table, expected=last + 1, got=number)
                return None
            contributions, wagered = (0, 0) if kept is None else kept[1:]
            if event == "contribution":
                contributions, wagered = contributions + 1, wagered + body["wagered_cents"]
                for level in link.levels:
                    self.store.run(
                        "UPDATE link_levels SET in_cents = in_cents + ? WHERE link = ? AND level = ?",
                        (body["wagered_cents"], link.id, level),
                    )
            elif event == "hit":
                self._hit(link, table, body)
            else:
                self._reset(link, table, body)
            values = (number, contributions, wagered, now(), link.id, table, spool)
            if kept is None:
                self.store.run(
                    "INSERT INTO link_tables (number, contributions, wagered_cents, heard_at, link, name, "
                    "spool) VALUES (?, ?, ?, ?, ?, ?, ?)",
                    values,
                )
            else:
                self.store.run(
                    "UPDATE link_tables SET number = ?, contributions = ?, wagered_cents = ?, heard_at = ? "
                    "WHERE link = ? AND name = ? AND spool = ?",
                    values,
                )
        return link.id

    def _hit(self, link: FloorLink, table: str, body: Mapping[str, Any]) -> None:  # Any: JSON fields
        """The level's value frozen for this hit, the next in the link's order; the level restarts."""
        level = body["level"]
        if level not in link.levels:
            log.error("link: a hit on a level that is not linked", table=table, level=level)
            return
        row = self._level(link.id, level)
        amount, carry = _value(row), _accrued(row) % BASIS_POINTS
        order = self.store.run("SELECT coalesce(max(ord), 0) + 1 FROM link_hits WHERE link = ?", (link.id,))
        self.store.run(
            "INSERT INTO link_hits VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, NULL)",
            (link.id, order.fetchone()[0], level, table, body["number"], body["seat"], body["round"], amount,
             now()),
        )  # fmt: skip
        self.store.run(
            "UPDATE link_levels SET in_cents = 0, carry = ? WHERE link = ? AND level = ?",
            (carry, link.id, level),
        )
        log.info("link: jackpot hit", link=link.id, level=level, table=table, seat=body["seat"], cents=amount)

    def _reset(self, link: FloorLink, table: str, body: Mapping[str, Any]) -> None:  # Any: JSON fields
        """The keyed reset at ``table``: its hits on the level no longer lock it."""
        self.store.run(
            "UPDATE link_hits SET reset_at = ? "
            "WHERE link = ? AND level = ? AND name = ? AND reset_at IS NULL",
            (now(), link.id, body["level"], table),
        )
        log.info("link: keyed reset", link=link.id, level=body["level"], table=table)

    # -- what the tables are told -------------------------------------------------------------
    def state_for(self, link_id: str, table: str) -> dict[str, object]:
        """What ``table`` is told of the link: each level (its value, rate, reset value and the hits
        that lock it, in the order received) and what was applied of the table's newest spool."""
        newest = self.store.run(
            "SELECT spool, number, contributions, wagered_cents FROM link_tables "
            "WHERE link = ? AND name = ? ORDER BY heard_at DESC LIMIT 1",
            (link_id, table),
        ).fetchone()
        applied = None
        if newest is not None:
            spool, number, contributions, wagered = newest
            applied = {
                "spool": spool,
                "number": number,
                "contributions": contributions,
                "wagered_cents": wagered,
            }
        levels = self._levels(link_id)
        return {"link": link_id, "table": table, "at": now(), "levels": levels, "applied": applied}

    def view(self) -> list[dict[str, object]]:
        """Every link, for the floor view: its tables and its levels as its tables are told them."""
        return [
            {"link": link_id, "tables": list(link.tables), "levels": self._levels(link_id)}
            for link_id, link in sorted(self.links.items())
        ]

    def _levels(self, link_id: str) -> list[dict[str, object]]:
        levels = []
        for row in self.store.run(
            "SELECT level, rate_bp, reset_cents, in_cents, carry FROM link_levels "
            "WHERE link = ? ORDER BY level",
            (link_id,),
        ).fetchall():
            hits = [
                {
                    "order": order,
                    "table": name,
                    "number": number,
                    "seat": seat,
                    "round": round_,
                    "amount_cents": amount,
                }
                for order, name, number, seat, round_, amount in self.store.run(
                    "SELECT ord, name, number, seat, round, amount_cents FROM link_hits "
                    "WHERE link = ? AND level = ? AND reset_at IS NULL ORDER BY ord",
                    (link_id, row[0]),
                ).fetchall()
            ]
            levels.append(
                {
                    "level": row[0],
                    "rate_bp": row[1],
                    "reset_cents": row[2],
                    "value_cents": _value(row),
                    "locked": bool(hits),
                    "hits": hits,
                }
            )
        return levels

    def publications(self, link_id: str) -> list[tuple[str, bytes]]:
        """Each table's topic on the link with what it is told now."""
        link = self.links[link_id]
        return [
            (link_state(self.group, link_id, table), json.dumps(self.state_for(link_id, table)).encode())
            for table in link.tables
        ]

    # -- the database -------------------------------------------------------------------------
    def _applied(self, link: str, table: str, spool: str) -> tuple[int, int, int] | None:
        row = self.store.run(
            "SELECT number, contributions, wagered_cents FROM link_tables "
            f"WHERE link = ? AND name = ? AND spool = ?{self.store.for_update}",
            (link, table, spool),
        ).fetchone()
        return None if row is None else (int(row[0]), int(row[1]), int(row[2]))

    def _level(self, link: str, level: int) -> tuple[int, int, int, int, int]:
        row = self.store.run(
            "SELECT level, rate_bp, reset_cents, in_cents, carry FROM link_levels "
            f"WHERE link = ? AND level = ?{self.store.for_update}",
            (link, level),
        ).fetchone()
        return int(row[0]), int(row[1]), int(row[2]), int(row[3]), int(row[4])


def _accrued(row: tuple[int, int, int, int, int] | Any) -> int:  # Any: a row of the driver's own type
    """What a level accrued above its reset value since it restarted, in ten-thousandths of a cent:
    its rate of what was wagered since, and the fraction of a cent its last hit left."""
    _level, rate_bp, _reset_cents, in_cents, carry = row
    return int(in_cents) * int(rate_bp) + int(carry)


def _value(row: tuple[int, int, int, int, int] | Any) -> int:  # Any: a row of the driver's own type
    """A level's value: its reset value plus what it accrued, rounded down to the cent."""
    return int(row[2]) + _accrued(row) // BASIS_POINTS
