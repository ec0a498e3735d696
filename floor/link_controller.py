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
what its last hit left, rounded down to the cent, and never above its limit (``limit_cents``, or
the lowest limit below it that a table linked to the level published for its own controller, which
refuses a value above its own: ``_limits``, decision 0050): computed from the
cents wagered rather than added up, and what a hit leaves (the fraction below a cent, and the
overflow: what accrued above the limit) carried to the next cycle (``carry``, in ten-thousandths of
a cent), so no fraction of a cent is lost or made, as a table's own controller keeps its overflow
meter (docs/protocol.md §11.4). A hit freezes the level's value for that hit (under the limit last
published to the tables, or sent to them and not yet acknowledged by the broker, whichever is higher,
so at least what its sign was told; and at no less than the highest value published in the level's
cycle: a void lowers the pot, not what the signs were told, and the house bears what the pot lacks,
``link_house``, decision 0044), in the order the hits were
received, and the level restarts at once at its reset value plus as much of the overflow as fits
under the limit: a second hit before the first is reset is paid that plus what was wagered since
the first. The level stays locked at every table of the link while any
of its hits waits for its keyed reset.

A contribution funds only the levels it names (the table's linked levels, each on the link), and
each level it funds is kept (``link_funded``) with the hit that took it, if one did, and each hit
keeps the spool and number of its round's contribution (``link_hit_contributions``). A **void** (the
round it names voided at the table, its wagers returned) finds that round's contribution (the
newest of its round number and controller unit in the table's spool: a replaced controller numbers
its rounds from 1 again, its meters perhaps matching the old unit's; one withdrawn already takes
nothing back: the same void sent twice) and takes the hits of that contribution, and no other, out
of the order, giving back to each level what the hit took above its reset value (into ``carry``:
the level's accrual now), so the lock lifts if no other hit holds it and the hits funded from it
are back in the pot; then it withdraws the round's contribution from each level still holding it.
A contribution a standing hit already paid out stays paid: the winner was paid from what was in
the pot, and the house, which returned the wager, bears that share (decision 0044), its row kept
withdrawn and taken by that hit (``link_funded``). A hit on a
level the link does not have, or the table never funded, is refused and the table told so
(``refused``), never left waiting.

The controller publishes each table's view of the link, retained, on the one topic that table may
read (``croupier/v1/GROUP/link/LINK/table/TABLE``): each level's value, rate, reset value and the
hits that lock it (each with the spool it came from, its round's contribution's: a table restarted
finds its own hits whose keyed reset it owes, devices.linked), and what it applied of that table (for
the table's reconciliation). It publishes
after every change and every ``heartbeat`` seconds, so a table that stops hearing it knows the
link is gone; one publication of a link at a time across every floor service sharing the store (the
link's publication lock, ``hold``), each numbered in the link's order (``revision``), so each table's
retained state is the newest and a table drops an older one (decision 0050).
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import structlog

from croupier.config.linked import BASIS_POINTS, FloorLink
from croupier.errors import StartupError
from croupier.floor_link.payloads import now
from croupier.floor_link.topics import link_state
from devices.linked import unit_key
from floor.store import MOST, Store, Unfit

log = structlog.get_logger("croupier.floor")

_SCHEMA = (
    """CREATE TABLE IF NOT EXISTS link_levels (
        link        TEXT NOT NULL,
        level       BIGINT NOT NULL,
        rate_bp     BIGINT NOT NULL,
        reset_cents BIGINT NOT NULL,
        in_cents    BIGINT NOT NULL DEFAULT 0,
        carry       BIGINT NOT NULL DEFAULT 0,
        PRIMARY KEY (link, level)
    )""",
    """CREATE TABLE IF NOT EXISTS link_tables (
        link          TEXT NOT NULL,
        name          TEXT NOT NULL,
        spool         TEXT NOT NULL,
        number        BIGINT NOT NULL,
        contributions BIGINT NOT NULL,
        wagered_cents BIGINT NOT NULL,
        heard_at      TEXT NOT NULL,
        PRIMARY KEY (link, name, spool)
    )""",
    # The order a table's spools were heard in: the count of the table's link messages applied, from
    # any of its spools, at each spool's last (``_advance``). A hit's own spool heard
    # after every new spool's last message is the old PC live, which can still turn the hit's key: its
    # lock is not released at the floor (``release``, decision 0039). Counted, not timed: two
    # messages in the same millisecond are still in order.
    """CREATE TABLE IF NOT EXISTS link_spools (
        link        TEXT NOT NULL,
        name        TEXT NOT NULL,
        spool       TEXT NOT NULL,
        last_heard  BIGINT NOT NULL,
        PRIMARY KEY (link, name, spool)
    )""",
    """CREATE TABLE IF NOT EXISTS link_hits (
        link         TEXT NOT NULL,
        ord          BIGINT NOT NULL,
        level        BIGINT NOT NULL,
        name         TEXT NOT NULL,
        number       BIGINT NOT NULL,
        seat         BIGINT NOT NULL,
        round        BIGINT NOT NULL,
        amount_cents BIGINT NOT NULL,
        hit_at       TEXT NOT NULL,
        reset_at     TEXT,
        PRIMARY KEY (link, ord)
    )""",
    # Each level a contribution funded: the hit that took it (paid it out), if one did; withdrawn
    # when its round was voided. The levels each table's contributions named (what it funds).
    """CREATE TABLE IF NOT EXISTS link_funded (
        link         TEXT NOT NULL,
        name         TEXT NOT NULL,
        spool        TEXT NOT NULL,
        number       BIGINT NOT NULL,
        round        BIGINT NOT NULL,
        level        BIGINT NOT NULL,
        cents        BIGINT NOT NULL,
        taken_by     BIGINT,
        withdrawn_at TEXT,
        PRIMARY KEY (link, name, spool, number, level)
    )""",
    # The controller unit (devices.linked.unit_key) whose round each contribution was: a replaced
    # controller numbers its rounds from 1 again, so a hit or void finds its round's contribution by
    # unit and number. A contribution applied before the unit was sent has no row: any unit's.
    """CREATE TABLE IF NOT EXISTS link_funded_units (
        link       TEXT NOT NULL,
        name       TEXT NOT NULL,
        spool      TEXT NOT NULL,
        number     BIGINT NOT NULL,
        controller TEXT NOT NULL,
        PRIMARY KEY (link, name, spool, number)
    )""",
    """CREATE TABLE IF NOT EXISTS link_table_levels (
        link  TEXT NOT NULL,
        name  TEXT NOT NULL,
        level BIGINT NOT NULL,
        PRIMARY KEY (link, name, level)
    )""",
    # The contribution of each hit's round (its table's spool and link number): what a void of that
    # round must find to take the hit back, as round numbers restart with a replaced controller.
    """CREATE TABLE IF NOT EXISTS link_hit_contributions (
        link   TEXT NOT NULL,
        ord    BIGINT NOT NULL,
        spool  TEXT NOT NULL,
        number BIGINT NOT NULL,
        PRIMARY KEY (link, ord)
    )""",
    # A hit taken out of the order because its round was voided (its reset_at is then the void's).
    """CREATE TABLE IF NOT EXISTS link_hit_voids (
        link          TEXT NOT NULL,
        ord           BIGINT NOT NULL,
        restored      BIGINT NOT NULL,
        voided_at     TEXT NOT NULL,
        PRIMARY KEY (link, ord)
    )""",
    # Each level's limit as the link last published it to its tables, the broker having acknowledged
    # it for every table: what a hit is frozen under, so a hit pays at least what its table's sign was
    # told, a new limit applying from the next publication (decision 0050).
    """CREATE TABLE IF NOT EXISTS link_published (
        link        TEXT NOT NULL,
        level       BIGINT NOT NULL,
        limit_cents BIGINT NOT NULL,
        PRIMARY KEY (link, level)
    )""",
    # Each level's limit in a publication a floor service (``sender``, its host) sent whose
    # acknowledgement has not come (the broker lost, the floor stopped, between the send and the
    # broker's PUBACK): a table may show it, so a hit is frozen under it too until a later publication
    # of the link, by any floor service, is acknowledged (decision 0050). ``sent``: its revision.
    """CREATE TABLE IF NOT EXISTS link_sent (
        link        TEXT NOT NULL,
        sender      TEXT NOT NULL,
        sent        BIGINT NOT NULL,
        level       BIGINT NOT NULL,
        limit_cents BIGINT NOT NULL,
        PRIMARY KEY (link, sender, sent, level)
    )""",
    # The highest value of each level a publication told the tables in the level's cycle (since the
    # hit numbered ``cycle`` in the link's order, voided or not; 0 before any): no sign goes down
    # within a cycle, so a void published lowers no value and a hit pays at least it (decision 0044).
    """CREATE TABLE IF NOT EXISTS link_shown (
        link        TEXT NOT NULL,
        level       BIGINT NOT NULL,
        cycle       BIGINT NOT NULL,
        value_cents BIGINT NOT NULL,
        PRIMARY KEY (link, level, cycle)
    )""",
    # What the house paid of a hit above what its level's pot held (a voided round's share, withdrawn
    # from the pot after its value was shown), so the link's accounting balances (decision 0044); the
    # row goes with a void of the hit's own round: a voided win is not paid, the house bore nothing.
    """CREATE TABLE IF NOT EXISTS link_house (
        link  TEXT NOT NULL,
        ord   BIGINT NOT NULL,
        cents BIGINT NOT NULL,
        PRIMARY KEY (link, ord)
    )""",
    # A hit's lock released at the floor (``release``): the table that owed its keyed reset can no
    # longer turn the key (its PC replaced: a new spool), so the level would stay locked at every
    # table; who released it, why and when, kept as the audit record of a supervisor's act.
    """CREATE TABLE IF NOT EXISTS link_released (
        link        TEXT NOT NULL,
        ord         BIGINT NOT NULL,
        released_by TEXT NOT NULL,
        reason      TEXT NOT NULL,
        at          TEXT NOT NULL,
        PRIMARY KEY (link, ord)
    )""",
    # Each link's publications numbered in the order they were made (``revision``, the last one made;
    # ``acknowledged``, the last the broker acknowledged for every table), under the link's publication
    # lock (``hold``), so a table can drop a state older than one it took; ``store`` names this
    # store's count, named afresh by each floor service at its first publication of the link since it
    # started (``_revision``), so a table tells a store restored or replaced (its count behind or
    # starting again) from an old state (decision 0050).
    # Schema version 4 (floor.store): ``sent`` was numbered by sender before.
    """CREATE TABLE IF NOT EXISTS link_revisions (
        link         TEXT PRIMARY KEY,
        store        TEXT NOT NULL,
        revision     BIGINT NOT NULL,
        acknowledged BIGINT NOT NULL
    )""",
    # A table's link message the controller refused (a hit on a level it cannot pay), told to it.
    """CREATE TABLE IF NOT EXISTS link_refused (
        link   TEXT NOT NULL,
        name   TEXT NOT NULL,
        spool  TEXT NOT NULL,
        number BIGINT NOT NULL,
        level  BIGINT NOT NULL,
        reason TEXT NOT NULL,
        at     TEXT NOT NULL,
        PRIMARY KEY (link, name, spool, number)
    )""",
)
#: What a table sends on the link (the ``event`` of its ``linked`` messages).
EVENTS = ("contribution", "hit", "reset", "void")


class Unreleased(Exception):
    """A floor-side release of a hit's lock refused (``LinkController.release``), saying why."""


@dataclass(frozen=True)
class LimitConflict:
    """Level ``level`` of link ``link`` configured to a ``limit_cents`` above what the progressive
    controller of the linked table ``table`` holds on that level (decision 0050): the table would
    refuse a state above its own limit, so the level ``stops_at`` the lowest limit of its tables."""

    link: str
    level: int
    table: str
    link_limit_cents: int
    table_limit_cents: int
    stops_at: int
    reset_cents: int

    @property
    def reason(self) -> str:
        """What the floor's log and view say, naming the link, the level and both limits."""
        said = (
            f"link {self.link}: level {self.level}'s limit_cents {self.link_limit_cents} is above table "
            f"{self.table}'s progressive controller limit of {self.table_limit_cents} cents"
        )
        if self.table_limit_cents < self.reset_cents:
            return (
                f"{said}, below the level's reset value of {self.reset_cents}: the table cannot show "
                "the level and refuses the link's states (its progressive wagers locked) until its "
                "controller's limit is raised"
            )
        return f"{said}: the level stops at {self.stops_at} cents, the rest kept as its overflow"

    def shown(self) -> dict[str, object]:
        """The conflict for the floor view (``GET /floor/v1/links``)."""
        return {
            "level": self.level, "table": self.table, "link_limit_cents": self.link_limit_cents,
            "table_limit_cents": self.table_limit_cents, "stops_at_cents": self.stops_at,
            "reason": self.reason,
        }  # fmt: skip


@dataclass(frozen=True)
class Publication:
    """One publication of link ``link``'s state: each table's topic and what it is told
    (``messages``), and each level's limit in it, kept as sent (with the floor service that sent it)
    until the broker acknowledges it (``LinkController.acknowledged``); ``revision``: its number in
    the link's order of publications, in every message; ``reconnections``: the store's as it was made
    (``Store.reconnections``), the link's publication lock held on that connection."""

    link: str
    revision: int
    limits: Mapping[int, int]
    messages: list[tuple[str, bytes]]
    reconnections: int


class LinkController:
    """The floor's links (``[links.ID]``), kept in ``store``'s database."""

    def __init__(self, links: Mapping[str, FloorLink], store: Store, group: str) -> None:
        self.links, self.store, self.group = dict(links), store, group
        #: each link's limit conflicts last logged, by level and table (``_log_limits``)
        self._conflicts: dict[str, dict[tuple[int, str], LimitConflict]] = {}
        #: the links whose count this floor service has named afresh since it started (``_revision``)
        self._named: set[str] = set()
        with store.transaction():
            store.schema_lock()  # its levels' rows too: made once by floor services started together
            for statement in _SCHEMA:
                store.run(statement)
            for link in self.links.values():
                for level, config in link.levels.items():
                    self._level_row(link, level, config.rate_bp, config.reset_cents)
                self._revisions_row(link.id)

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

    def _revisions_row(self, link_id: str) -> None:
        """The link's row of ``link_revisions``, made if missing (by one floor service, however many
        start at once), naming this store's count. A store of schema version 3 numbered each
        sender's publications from 1: the count starts past the highest of those kept, so the next
        acknowledgement retires them (they were sent before it)."""
        self.store.run(
            "INSERT INTO link_revisions SELECT ?, ?, coalesce(max(sent), 0), 0 FROM link_sent WHERE link = ? "
            "ON CONFLICT (link) DO NOTHING",
            (link_id, uuid.uuid4().hex, link_id),
        )

    # -- what the tables send -----------------------------------------------------------------
    def heard(self, table: str, body: Mapping[str, Any]) -> str | None:  # Any: the message's JSON fields
        """Apply one ``linked`` message from ``table`` once; the id of the link it changed, or None
        (a repeat, or a message for no link of this floor, which is logged). A number in the message
        beyond what the store keeps is Unfit: the message is malformed. A value the controller works
        out from it that the store cannot keep (a total, a level's accrual past 64 bits) is refused
        for that table alone (``_refused_unkept``): held with the broker it would stop every table's
        messages behind it, so one table's absurd amount could blind the floor."""
        link = self.links.get(body["link"])
        if link is None or table not in link.tables:
            log.error("link: a table not on the link it names", table=table, link=body["link"])
            return None
        event, number = body["event"], body["number"]
        if event not in EVENTS:
            log.error("link: an event the controller does not know", table=table, event=event)
            return None
        numbers = (*body.values(), *body.get("levels", ()))
        if any(isinstance(value, int) and value > MOST for value in numbers):
            raise Unfit(f"a number beyond what the store keeps ({MOST})")
        try:
            with self.store.transaction():
                return self._applied_once(link, table, body)
        except Unfit as exc:
            log.error("link: a message whose result the store cannot keep: refused", link=link.id,
                      table=table, kind=event, number=number, reason=str(exc))  # fmt: skip
            with self.store.transaction():
                return self._refused_unkept(link, table, body, str(exc))

    def _refused_unkept(
        self, link: FloorLink, table: str, body: Mapping[str, Any], why: str  # Any: the message's JSON
    ) -> str | None:
        """The next message of ``table``'s spool counted as applied, with nothing of it applied: a
        contribution or a void then leaves the table's counts short, which latches LINK_MISMATCH at
        that table (its progressive wagers refused, its base game on); a hit is told refused, and
        the table holds its frozen level for the keyed reset (decision 0044)."""
        number, spool = body["number"], body["spool"]
        last, contributions, wagered = self._applied(link.id, table, spool)
        if number != last + 1:
            return None  # a repeat, or after a gap: as any message
        if body["event"] == "hit":
            self._refuse(link, table, body, f"its amount cannot be kept ({why})")
        self._advance(link.id, table, spool, (number, contributions, wagered))
        return link.id

    def _applied_once(self, link: FloorLink, table: str, body: Mapping[str, Any]) -> str | None:  # Any: JSON
        """``heard``'s message applied in its transaction, if it is the next of its table's spool."""
        event, number, spool = body["event"], body["number"], body["spool"]
        last, contributions, wagered = self._applied(link.id, table, spool)
        if number <= last:
            return None  # applied already: a message delivered twice counts once
        if number > last + 1:  # one lost on the way: nothing after it until the table sends it again
            log.warning("link: a gap in a table's numbers", table=table, expected=last + 1, got=number)
            return None
        if event == "contribution":
            contributions, wagered = contributions + 1, wagered + body["wagered_cents"]
            self._contribution(link, table, body)
        elif event == "hit":
            self._hit(link, table, body)
        elif event == "reset":
            self._reset(link, table, body)
        elif self._void(link, table, body):
            contributions, wagered = contributions - 1, wagered - body["wagered_cents"]
        self._advance(link.id, table, spool, (number, contributions, wagered))
        return link.id

    def _contribution(self, link: FloorLink, table: str, body: Mapping[str, Any]) -> None:  # Any: JSON
        """The round's wagers added to each level the table funds (the levels it names that are on
        the link), and kept by level for a void; the levels it names become the table's. Unfit (so
        refused for this table alone: ``heard``) if a level's wagers or its accrual would pass what
        the store keeps: applied, an absurd amount would make every later hit on the level, at any
        table, a result the store cannot keep. Worked out here, not by the database: SQLite makes an
        ``in_cents + ?`` past 64 bits a float without a word, where PostgreSQL refuses it."""
        cents = body["wagered_cents"]
        named = set(body["levels"])
        for level in sorted(named - set(link.levels)):
            log.error("link: a contribution names a level the link does not have", link=link.id, table=table,
                      level=level)  # fmt: skip
        self.store.run("DELETE FROM link_table_levels WHERE link = ? AND name = ?", (link.id, table))
        for level in sorted(named & set(link.levels)):
            row = self._level(link.id, level)
            funded = (*row[:3], row[3] + cents, row[4])
            if funded[3] > MOST or _accrued(funded) > MOST:
                raise Unfit(f"level {level}'s accrual past what the store keeps ({MOST})")
            self.store.run(  # another spool of the table's may be applied at once by another service
                "INSERT INTO link_table_levels VALUES (?, ?, ?) ON CONFLICT DO NOTHING",
                (link.id, table, level),
            )
            self.store.run(
                "UPDATE link_levels SET in_cents = ? WHERE link = ? AND level = ?",
                (funded[3], link.id, level),
            )
            self.store.run(
                "INSERT INTO link_funded VALUES (?, ?, ?, ?, ?, ?, ?, NULL, NULL)",
                (link.id, table, body["spool"], body["number"], body["round"], level, cents),
            )
        if "controller" in body:  # none from a release before the unit was named: any unit's round
            self.store.run(
                "INSERT INTO link_funded_units VALUES (?, ?, ?, ?, ?)",
                (link.id, table, body["spool"], body["number"], unit_key(body["controller"])),
            )

    def _hit(self, link: FloorLink, table: str, body: Mapping[str, Any]) -> None:  # Any: JSON fields
        """The level's value frozen for this hit, the next in the link's order, under the limit last
        published to the tables, or a higher one sent since that the broker has not acknowledged
        (``_told``: at least what the hitting table's sign was told; a limit lowered since applies
        from the next acknowledged publication), at no less than the highest value published in the
        level's cycle (``_shown``: a void since lowered the pot, not the signs; what the pot lacks is
        the house's, kept in ``link_house``, decision 0044) and at most what the hitting table's own
        controller holds (decision 0050); the level restarts, and what the pot held is the hit's, the
        rest kept. A
        level the link does not have, or the table does not fund, is refused: the table is told why
        at once."""
        level = body["level"]
        funds = self.store.run(
            "SELECT 1 FROM link_table_levels WHERE link = ? AND name = ? AND level = ?",
            (link.id, table, level),
        ).fetchone()
        if level not in link.levels or funds is None:
            why = "the link has no such level" if level not in link.levels else "the table does not fund it"
            log.error("link: a hit refused", link=link.id, table=table, level=level, reason=why)
            self._refuse(link, table, body, why)
            return
        self._lock_levels(link.id)
        row = self._level(link.id, level)
        told = self._told(link.id).get(level, self._limits(link.id)[0][level])
        amount = _value(row, told, self._shown(link.id).get(level, 0))
        own = self._own_limits(link).get(table, {}).get(level)
        if own is not None and row[2] <= own < amount:  # what the table's own controller can pay
            amount = own
        pot = min(amount, _value(row, told))  # the rest (a void's share, shown) is the house's
        carry = _accrued(row) - (pot - row[2]) * BASIS_POINTS  # what the hit leaves: overflow, fraction
        order = self.store.run(
            "SELECT coalesce(max(ord), 0) + 1 FROM link_hits WHERE link = ?", (link.id,)
        ).fetchone()[0]
        self.store.run(
            "INSERT INTO link_hits VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, NULL)",
            (link.id, order, level, table, body["number"], body["seat"], body["round"], amount, now()),
        )
        if amount > pot:
            self.store.run("INSERT INTO link_house VALUES (?, ?, ?)", (link.id, order, amount - pot))
            log.warning("link: a hit paid what its level showed, above its pot: the house bears the rest",
                        link=link.id, level=level, order=order, cents=amount,
                        house_cents=amount - pot)  # fmt: skip
        self.store.run(
            "UPDATE link_levels SET in_cents = 0, carry = ? WHERE link = ? AND level = ?",
            (carry, link.id, level),
        )
        self.store.run(
            "UPDATE link_funded SET taken_by = ? "
            "WHERE link = ? AND level = ? AND taken_by IS NULL AND withdrawn_at IS NULL",
            (order, link.id, level),
        )
        funded = self._round_contribution(link.id, table, body)
        if funded is None:
            log.warning("link: a hit of a round the table contributed nothing to: no void can take it back",
                        link=link.id, table=table, round=body["round"], order=order)  # fmt: skip
        else:
            self.store.run("INSERT INTO link_hit_contributions VALUES (?, ?, ?, ?)",
                           (link.id, order, body["spool"], funded))  # fmt: skip
        log.info("link: jackpot hit", link=link.id, level=level, table=table, seat=body["seat"], cents=amount)

    def _void(self, link: FloorLink, table: str, body: Mapping[str, Any]) -> bool:  # Any: JSON fields
        """Round ``round`` voided at ``table``, its wagers returned. Its contribution is the newest
        of that round number and controller unit in the void's spool (a controller replaced under
        the same spool numbers its rounds from 1 again: an older round of the same number is another
        round, another unit's round never the void's), withdrawn once: the same void again under a
        new number finds it withdrawn and takes nothing back,
        and only the hits of that contribution's round come out of the order (reset or not: no win
        of a voided round stands), never a hit of an older round that bore the same number. Each
        gives back to its level what it took above the reset value (into the level's accrual now,
        whatever was contributed or hit since: nothing paid that was not in the pot, nothing of the
        pot lost), and the contributions it took are back in the pot; then the contribution is
        withdrawn from each level still holding it, exactly, in ten-thousandths of a cent. One a
        standing hit took stays paid (decision 0044); a voided hit's ``link_house`` row goes (the
        voided win is not paid). Whether a contribution of ``wagered_cents``
        was found and withdrawn (if not, nothing is taken back, the table's counts will not
        reconcile, and LINK_MISMATCH latches there)."""
        at, round_, spool = now(), body["round"], body["spool"]
        self._lock_levels(link.id)
        number = self._round_contribution(link.id, table, body, withdrawn=True)
        funded = [] if number is None else self._funded(link.id, table, spool, number, standing=True)
        if number is None or not funded or any(int(c) != body["wagered_cents"] for _l, c, _t in funded):
            log.error("link: a void of a contribution the controller does not hold", link=link.id,
                      table=table, round=round_, wagered_cents=body["wagered_cents"])  # fmt: skip
            return False
        for order, level, amount in self.store.run(  # what the pot paid of each: the house's never the pot's
            "SELECT h.ord, h.level, h.amount_cents - coalesce(x.cents, 0) FROM link_hits h LEFT JOIN "
            "link_house x ON x.link = h.link AND x.ord = h.ord WHERE h.link = ? AND h.name = ? AND h.ord IN "
            "(SELECT ord FROM link_hit_contributions WHERE link = ? AND spool = ? AND number = ?) AND h.ord "
            "NOT IN (SELECT ord FROM link_hit_voids WHERE link = ?) ORDER BY h.ord",
            (link.id, table, link.id, spool, number, link.id),
        ).fetchall():
            row = self._level(link.id, level)
            restored = (int(amount) - row[2]) * BASIS_POINTS
            self.store.run(
                "UPDATE link_levels SET carry = carry + ? WHERE link = ? AND level = ?",
                (restored, link.id, level),
            )
            self.store.run("UPDATE link_funded SET taken_by = NULL WHERE link = ? AND taken_by = ?",
                           (link.id, order))  # fmt: skip
            self.store.run(
                "UPDATE link_hits SET reset_at = coalesce(reset_at, ?) WHERE link = ? AND ord = ?",
                (at, link.id, order),
            )
            self.store.run("INSERT INTO link_hit_voids VALUES (?, ?, ?, ?)", (link.id, order, restored, at))
            self.store.run("DELETE FROM link_house WHERE link = ? AND ord = ?", (link.id, order))
            log.warning("link: a hit voided with its round", link=link.id, table=table, round=round_,
                        order=order, level=level, restored_cents=int(amount) - row[2])  # fmt: skip
        for level, cents, taken_by in self._funded(link.id, table, spool, number):  # the voided hits' gone
            if taken_by is None:
                self.store.run(
                    "UPDATE link_levels SET carry = carry - ? * rate_bp WHERE link = ? AND level = ?",
                    (cents, link.id, level),
                )
            else:
                log.warning("link: a voided contribution a standing hit paid out stays paid", link=link.id,
                            table=table, round=round_, level=level, order=taken_by)  # fmt: skip
        self.store.run(
            "UPDATE link_funded SET withdrawn_at = ? "
            "WHERE link = ? AND name = ? AND spool = ? AND number = ?",
            (at, link.id, table, spool, number),
        )
        log.info("link: a voided round's contribution withdrawn", link=link.id, table=table, round=round_,
                 wagered_cents=body["wagered_cents"])  # fmt: skip
        return True

    def _funded(
        self, link: str, table: str, spool: str, number: int, *, standing: bool = False
    ) -> list[Any]:  # Any: the driver's rows
        """Each level contribution ``number`` funded: its cents and the hit that took it, if one did;
        ``standing``: only those not withdrawn."""
        return self.store.run(
            "SELECT level, cents, taken_by FROM link_funded WHERE link = ? AND name = ? AND spool = ? "
            f"AND number = ?{' AND withdrawn_at IS NULL' if standing else ''}",
            (link, table, spool, number),
        ).fetchall()

    def _round_contribution(
        self, link: str, table: str, body: Mapping[str, Any], *, withdrawn: bool = False  # Any: JSON fields
    ) -> int | None:
        """The link number of the contribution of the round a hit or void ``body`` names, from
        ``table`` in its spool: the newest of that round number, of the same controller unit (or of
        no unit kept, or of any if ``body`` names none: a message spooled by a release before the
        unit was named), not withdrawn (``withdrawn``: withdrawn or not); or None (the round
        contributed nothing). A replaced controller numbers its rounds from 1 again and its meters
        may match the old unit's, so a round of another unit is never taken for it (decision 0039)."""
        units = (unit_key(body["controller"]),) if "controller" in body else ()
        found = self.store.run(
            "SELECT max(f.number) FROM link_funded f LEFT JOIN link_funded_units u ON u.link = f.link "
            "AND u.name = f.name AND u.spool = f.spool AND u.number = f.number WHERE f.link = ? "
            "AND f.name = ? AND f.spool = ? AND f.round = ?"
            f"{' AND (u.controller = ? OR u.controller IS NULL)' if units else ''}"
            f"{'' if withdrawn else ' AND f.withdrawn_at IS NULL'}",
            (link, table, body["spool"], body["round"], *units),
        ).fetchone()[0]
        return None if found is None else int(found)

    def _reset(self, link: FloorLink, table: str, body: Mapping[str, Any]) -> None:  # Any: JSON fields
        """The keyed reset at ``table``: its hits on the level from the reset's spool no longer lock
        it, nor those that kept no spool (their round contributed nothing: any PC of the table's may
        owe them). The key turned at one PC is for the hits its controller froze (devices.linked): the
        old PC heard again after ``release`` let go of its hit lifts no hit of the new PC's."""
        self.store.run(
            "UPDATE link_hits SET reset_at = ? WHERE link = ? AND level = ? AND name = ? "
            "AND reset_at IS NULL AND coalesce((SELECT c.spool FROM link_hit_contributions c "
            "WHERE c.link = link_hits.link AND c.ord = link_hits.ord), ?) = ?",
            (now(), link.id, body["level"], table, body["spool"], body["spool"]),
        )
        log.info("link: keyed reset", link=link.id, level=body["level"], table=table)

    # -- what a supervisor does at the floor ----------------------------------------------------
    def release(self, link_id: str, order: int, by: str, reason: str) -> str:
        """The lock of hit ``order`` of link ``link_id`` lifted at the floor, as its keyed reset
        would lift it, for a hit whose table can no longer turn its key: its table PC was replaced
        after the hit (the table sends from a new spool; a table finds the hits whose reset it owes
        by its own spool, devices.linked, so the new PC never owes it) and before its reset reached
        the link. ``by`` (the supervisor) and ``reason`` are kept with the time (``link_released``)
        and logged: the audit record. Refused (Unreleased, saying why) for a hit the link does not
        hold locked, or whose table has sent nothing from a new spool since the hit, or whose
        table's last message heard was from the hit's spool, after every new spool's last
        (``link_spools``: the old PC live, whose key releases it: the keyed reset at the table is
        the rule, decision 0039). The old PC heard after the hit, or after a new spool's first
        message, is no bar once a new spool is heard after it: it played on until it was replaced,
        or was on the network beside the new PC a while during a swap, and nothing else could ever
        lift the lock once it is unplugged. The hit stays paid; the running floor
        service tells every table at its next publication (within its heartbeat)."""
        if link_id not in self.links:
            raise Unreleased(f"no link {link_id} in the floor's configuration")
        if not by.strip() or not reason.strip():
            raise Unreleased("a release names who releases the lock and why")
        with self.store.transaction():
            self._lock_levels(link_id)
            hit = self.store.run(
                "SELECT h.level, h.name, h.amount_cents, c.spool, h.hit_at FROM link_hits h LEFT JOIN "
                "link_hit_contributions c ON c.link = h.link AND c.ord = h.ord "
                "WHERE h.link = ? AND h.ord = ? AND h.reset_at IS NULL",
                (link_id, order),
            ).fetchone()
            if hit is None:
                raise Unreleased(f"link {link_id}: no hit {order} locks a level (reset, voided or never)")
            level, table, amount, spool, hit_at = hit
            replaced = self.store.run(  # the last message of the table's spools heard since the hit
                "SELECT max(o.last_heard) FROM link_tables t JOIN link_spools o ON o.link = t.link AND "
                "o.name = t.name AND o.spool = t.spool WHERE t.link = ? AND t.name = ? AND t.spool <> ? "
                "AND t.heard_at >= ?",
                (link_id, table, spool or "", hit_at),
            ).fetchone()[0]
            own = self.store.run(  # the hit's spool last heard
                "SELECT last_heard FROM link_spools WHERE link = ? AND name = ? AND spool = ?",
                (link_id, table, spool or ""),
            ).fetchone()
            if spool is None or replaced is None or (own is not None and own[0] > replaced):
                since = (
                    "no spool kept with it" if spool is None
                    else "nothing from a new spool since" if replaced is None
                    else "sent from the hit's spool since the new spool's last message: its PC is live"
                )
                raise Unreleased(
                    f"link {link_id}: hit {order} (level {level}, table {table}) is table {table}'s to "
                    f"release with its keyed reset ({since})"
                )
            at = now()
            self.store.run("UPDATE link_hits SET reset_at = ? WHERE link = ? AND ord = ?",
                           (at, link_id, order))  # fmt: skip
            self.store.run(
                "INSERT INTO link_released VALUES (?, ?, ?, ?, ?)", (link_id, order, by, reason, at)
            )
        said = (
            f"link {link_id}: hit {order} (level {level}, table {table}, {amount} cents) released at the "
            f"floor by {by}: {reason}"
        )
        log.warning("link: a hit's lock released at the floor", link=link_id, order=order, level=level,
                    table=table, cents=amount, released_by=by, reason=reason)  # fmt: skip
        return said

    # -- what the tables are told -------------------------------------------------------------
    def state_for(self, link_id: str, table: str) -> dict[str, object]:
        """What ``table`` is told of the link: each level (its value, rate, reset value and the hits
        that lock it, in the order received) and what was applied of the table's newest spool."""
        return self._state(link_id, table, self._levels(link_id))

    def _state(self, link_id: str, table: str, levels: list[dict[str, object]]) -> dict[str, object]:
        """``state_for`` with the link's ``levels`` as every table is told them now."""
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
        refused = [
            {"number": number, "level": level, "reason": reason}
            for number, level, reason in self.store.run(
                "SELECT number, level, reason FROM link_refused WHERE link = ? AND name = ? AND spool = ? "
                "ORDER BY number",
                (link_id, table, applied["spool"] if applied else ""),
            ).fetchall()
        ]
        return {
            "link": link_id, "table": table, "at": now(), "levels": levels, "applied": applied,
            "refused": refused,
        }  # fmt: skip

    def view(self) -> list[dict[str, object]]:
        """Every link, for the floor view: its tables, its levels as its tables are told them, and
        each level's limit a linked table's controller cannot hold (``limits``, decision 0050)."""
        return [
            {"link": link_id, "tables": list(link.tables), "levels": self._levels(link_id),
             "limits": [conflict.shown() for conflict in self._limits(link_id)[1]]}
            for link_id, link in sorted(self.links.items())
        ]  # fmt: skip

    def _limits(self, link_id: str) -> tuple[dict[int, int], list[LimitConflict]]:
        """Each level's limit now, and each table whose controller holds less than the level's
        ``limit_cents`` (decision 0050). A table refuses a link state above its own controller's limit
        for a level it is linked to (devices.linked), which would lock its progressive wagers for good,
        so the level stops at the lowest limit its tables published (in their meters, as the floor's
        store last took them), the rest kept as its overflow, as above its configured limit. A table
        whose limit is below the level's reset value could never show it and does not lower it (its
        wagers stay refused until its controller is set right). A table's levels are those its
        contributions name; before its first, every level its controller has."""
        link = self.links[link_id]
        funds: dict[str, set[int]] = {}
        for name, level in self.store.run(
            "SELECT name, level FROM link_table_levels WHERE link = ?", (link_id,)
        ).fetchall():
            funds.setdefault(name, set()).add(int(level))
        below: dict[int, list[tuple[str, int]]] = {}
        for name, owns in self._own_limits(link).items():
            for level, own in owns.items():
                config, linked = link.levels.get(level), level in funds.get(name, {level})
                if config and own < config.limit_cents and linked:
                    below.setdefault(level, []).append((name, own))
        limits, conflicts = {}, []
        for level, config in sorted(link.levels.items()):
            showable = [own for _name, own in below.get(level, ()) if own >= config.reset_cents]
            limits[level] = min([config.limit_cents, *showable])
            conflicts += [
                LimitConflict(
                    link_id, level, name, config.limit_cents, own, limits[level], config.reset_cents
                )
                for name, own in below.get(level, ())
            ]
        return limits, conflicts

    def _own_limits(self, link: FloorLink) -> dict[str, dict[int, int]]:
        """Each table of ``link`` by name, with its own controller's limit by level as the floor's
        store last took them (its meters): none for a table not heard yet, without a progressive,
        or of a release whose meters had no limits."""
        marks = ", ".join("?" for _ in link.tables)
        owns: dict[str, dict[int, int]] = {}
        for name, state in self.store.run(
            f"SELECT name, state FROM floor_tables WHERE name IN ({marks}) ORDER BY name", link.tables
        ).fetchall():
            for meter in json.loads(state).get("meters") or ():  # none: no progressive, or no birth yet
                if meter.get("limit_cents") is not None:  # after an upgrade: no limit yet
                    owns.setdefault(name, {})[meter["level"]] = meter["limit_cents"]
        return owns

    def _told(self, link_id: str) -> dict[int, int]:
        """Each level's highest limit a table may have been told: the limit of the publication
        acknowledged last (``acknowledged``), or one made since whose acknowledgement has not come
        (``publication``), which the broker may have delivered all the same."""
        rows = self.store.run(
            "SELECT level, max(limit_cents) FROM "
            "(SELECT level, limit_cents FROM link_published WHERE link = ? "
            "UNION ALL SELECT level, limit_cents FROM link_sent WHERE link = ?) told GROUP BY level",
            (link_id, link_id),
        )
        return {int(level): int(limit) for level, limit in rows.fetchall()}

    def _shown(self, link_id: str) -> dict[int, int]:
        """Each level's highest value a publication told the tables in its cycle (``link_shown``):
        no value it tells goes below it, nor is a hit paid less (``_hit``), the house bearing what
        the pot lacks: a void withdraws its round's contribution from the pot, yet a sign showed it."""
        return {
            int(level): int(value)
            for level, value in self.store.run(
                "SELECT s.level, s.value_cents FROM link_shown s WHERE s.link = ? AND s.cycle = (SELECT "
                "coalesce(max(h.ord), 0) FROM link_hits h WHERE h.link = s.link AND h.level = s.level)",
                (link_id,),
            ).fetchall()
        }

    def _showing(self, link_id: str, levels: list[dict[str, object]]) -> None:
        """Each level's value in a publication kept as shown in its cycle (``_shown``) before it is
        sent: a table may show it from then on, acknowledged or not. The link's levels are locked
        (``publication``), so the cycle is the one the values were read in: a hit applied between by
        another floor service would otherwise start a cycle held at the last one's value."""
        for level in levels:
            self.store.run(
                "INSERT INTO link_shown SELECT ?, ?, coalesce(max(ord), 0), ? FROM link_hits WHERE link = ? "
                "AND level = ? ON CONFLICT (link, level, cycle) DO UPDATE SET value_cents = CASE WHEN "
                "excluded.value_cents > link_shown.value_cents THEN excluded.value_cents "
                "ELSE link_shown.value_cents END",
                (link_id, level["level"], level["value_cents"], link_id, level["level"]),
            )

    def _levels(self, link_id: str) -> list[dict[str, object]]:
        """Each level the link has (one dropped from its configuration is not told), as told."""
        levels, configured = [], self.links[link_id].levels
        limits, shown = self._limits(link_id)[0], self._shown(link_id)
        for row in self.store.run(
            "SELECT level, rate_bp, reset_cents, in_cents, carry FROM link_levels "
            "WHERE link = ? ORDER BY level",
            (link_id,),
        ).fetchall():
            if row[0] not in configured:
                continue
            limit = limits[row[0]]
            hits = [
                {
                    "order": order,
                    "table": name,
                    "number": number,
                    "seat": seat,
                    "round": round_,
                    "amount_cents": amount,
                    "spool": spool,
                }
                for order, name, number, seat, round_, amount, spool in self.store.run(
                    "SELECT h.ord, h.name, h.number, h.seat, h.round, h.amount_cents, c.spool "
                    "FROM link_hits h LEFT JOIN link_hit_contributions c "
                    "ON c.link = h.link AND c.ord = h.ord "
                    "WHERE h.link = ? AND h.level = ? AND h.reset_at IS NULL ORDER BY h.ord",
                    (link_id, row[0]),
                ).fetchall()
            ]
            levels.append(
                {
                    "level": row[0],
                    "rate_bp": row[1],
                    "reset_cents": row[2],
                    "limit_cents": limit,
                    "value_cents": _value(row, limit, shown.get(row[0], 0)),
                    "overflow_cents": _overflow(row, limit),
                    "locked": bool(hits),
                    "hits": hits,
                }
            )
        return levels

    def hold(self, link_id: str) -> bool:
        """The link's publication lock taken, if no other floor service sharing the store holds it
        (``Store.hold``): held from a publication's making (``publication``) through its sending to
        its acknowledgement (``acknowledged``) and let go then (``let_go``), so the link's publications
        reach the broker in the order they were made, and each table's retained state is the newest
        whichever floor service made it (decision 0050)."""
        return self.store.hold(f"croupier link {link_id}")

    def let_go(self, link_id: str) -> None:
        """The link's publication lock (``hold``) let go."""
        self.store.let_go(f"croupier link {link_id}")

    def publication(self, link_id: str, sender: str) -> Publication:
        """Each table's topic on the link with what it is told now, for the floor service ``sender``
        (its host) to publish, the link's publication lock held (``hold``). A limit a linked table's
        controller cannot hold is logged as it is found, and again as it is put right (``_limits``:
        at every publication, so within a heartbeat of the table's meters). The publication takes the
        link's next revision, told to every table (which drops a state older than one it took:
        devices.linked), and its limits are kept as sent before anything is sent, committed: until
        the broker acknowledges it or a later one (``acknowledged``) a table may show them or the
        limits before them, and a hit is frozen under the higher (``_hit``), even after the floor
        restarts, so it pays at least what its table's sign was told."""
        link = self.links[link_id]
        with self.store.transaction():
            self._lock_levels(link_id)  # no hit between the values read and their cycle kept (_showing)
            levels, limits = self._levels(link_id), self._limits(link_id)[0]  # the limits _levels tells
            self._showing(link_id, levels)
            store, revision = self._revision(link_id)
            for level, limit in sorted(limits.items()):
                self.store.run(
                    "INSERT INTO link_sent VALUES (?, ?, ?, ?, ?)", (link_id, sender, revision, level, limit)
                )
        self._named.add(link_id)  # committed: the count's new name is the store's
        self._log_limits(link_id)
        told = {"store": store, "revision": revision}
        messages = [
            (
                link_state(self.group, link_id, table),
                json.dumps(self._state(link_id, table, levels) | told).encode(),
            )
            for table in link.tables
        ]
        return Publication(link_id, revision, limits, messages, self.store.reconnections)

    def _revision(self, link_id: str) -> tuple[str, int]:
        """The link's next revision, kept, and the name of this store's count (``link_revisions``),
        given a new name at this floor service's first publication of the link since it started: a
        store restored from a backup (which always means a restart) counts on from the backup's
        revision, below one a table may have taken since, and a table takes a state naming another
        count whatever its revision (devices.linked), so it never ignores the floor for the backup's
        age. Renamed within the publication, under the link's publication lock (``hold``) the
        publication already holds, so every publication made before is sent before the first under
        the new name, and nothing waits for the lock as the floor service starts (another service's
        lock, held by a session its dead host keeps open on the server, would hold the start up
        with it). Floor services sharing the store each rename at their first publication; each
        publication reads the name then current, so the tables take the first state under it and
        order those after it by revision as before (decision 0050)."""
        if link_id not in self._named:
            self.store.run("UPDATE link_revisions SET store = ? WHERE link = ?", (uuid.uuid4().hex, link_id))
        store, revision = self.store.run(
            f"SELECT store, revision + 1 FROM link_revisions WHERE link = ?{self.store.for_update}",
            (link_id,),
        ).fetchone()
        self.store.run("UPDATE link_revisions SET revision = ? WHERE link = ?", (revision, link_id))
        return str(store), int(revision)

    def acknowledged(self, publication: Publication) -> bool:
        """``publication`` acknowledged by the broker for every table of its link (the PUBACK of
        each retained QoS 1 message, none refusing it: floor.service): its limits are what the tables
        were told, unless a later revision's acknowledgement came first (then they are kept as they
        are), and every publication of the link made before it, by any floor service, is past: the
        link's publications reach the broker in the order they were made (``hold``), so each table's
        retained state is this one or a later one (decision 0050). One during which the store's
        connection was opened again is not acknowledged: the link's publication lock (a session lock)
        lapsed with the old connection, so another floor service may have published beside it; its
        limits stay kept as sent, and False is returned: the floor service publishes the link
        again, under the lock again (floor.service)."""
        link, revision = publication.link, publication.revision
        with self.store.transaction():
            if self.store.reconnections != publication.reconnections:
                log.warning("link: the store's connection was lost while the link was published: "
                            "not acknowledged, published again", link=link, revision=revision)  # fmt: skip
                return False
            last = self.store.run(
                f"SELECT acknowledged FROM link_revisions WHERE link = ?{self.store.for_update}", (link,)
            ).fetchone()[0]
            if revision > int(last):
                for level, limit in sorted(publication.limits.items()):
                    self.store.run(
                        "INSERT INTO link_published VALUES (?, ?, ?) ON CONFLICT (link, level) "
                        "DO UPDATE SET limit_cents = excluded.limit_cents",
                        (link, level, limit),
                    )
                self.store.run("UPDATE link_revisions SET acknowledged = ? WHERE link = ?", (revision, link))
            self.store.run("DELETE FROM link_sent WHERE link = ? AND sent <= ?", (link, revision))
        return True

    def _log_limits(self, link_id: str) -> None:
        """Each table the link's level stops for logged once as it is found (or its limits change),
        and once as it is put right, rather than at every heartbeat: what an operator looks for."""
        conflicts = {(c.level, c.table): c for c in self._limits(link_id)[1]}
        logged = self._conflicts.setdefault(link_id, {})
        for key, conflict in sorted(conflicts.items()):
            if logged.get(key) != conflict:
                log.warning("link: a level's limit above a linked table's controller limit", link=link_id,
                            level=conflict.level, table=conflict.table, reason=conflict.reason)  # fmt: skip
        for level, table in sorted(set(logged) - set(conflicts)):
            log.info("link: a level's limit now within the table's controller limit", link=link_id,
                     level=level, table=table)  # fmt: skip
        self._conflicts[link_id] = conflicts

    # -- the database -------------------------------------------------------------------------
    def _refuse(self, link: FloorLink, table: str, body: Mapping[str, Any], why: str) -> None:  # Any: JSON
        """The hit ``body`` refused, told to its table in the link state's ``refused`` with ``why``."""
        reason = f"link {link.id}: a hit on level {body['level']} refused: {why}"
        self.store.run(
            "INSERT INTO link_refused VALUES (?, ?, ?, ?, ?, ?, ?)",
            (link.id, table, body["spool"], body["number"], body["level"], reason, now()),
        )

    def _advance(self, link: str, table: str, spool: str, counts: tuple[int, int, int]) -> None:
        """The mark of ``table``'s spool (``_applied``) moved to ``counts`` (its number, contributions
        and cents), and the spool counted as the table's last heard (``link_spools``). The table's
        spools are locked before their count is read, by a statement of its own (whose wait ends
        with the other's commit, the count then read afresh): two floor services applying two
        spools of the table at once on PostgreSQL would otherwise give two messages one number.
        Before the table's first count there is nothing to lock: two spools first heard at once
        may share it, and the next message of either counts past both."""
        self.store.run(
            "UPDATE link_tables SET number = ?, contributions = ?, wagered_cents = ?, heard_at = ? "
            "WHERE link = ? AND name = ? AND spool = ?",
            (*counts, now(), link, table, spool),
        )
        if self.store.postgres:  # SQLite's one writer needs no lock
            self.store.run(
                "SELECT spool FROM link_spools WHERE link = ? AND name = ? ORDER BY spool FOR UPDATE",
                (link, table),
            )
        heard = self.store.run(
            "SELECT coalesce(max(last_heard), 0) + 1 FROM link_spools WHERE link = ? AND name = ?",
            (link, table),
        ).fetchone()[0]
        self.store.run(
            "INSERT INTO link_spools VALUES (?, ?, ?, ?) "
            "ON CONFLICT (link, name, spool) DO UPDATE SET last_heard = excluded.last_heard",
            (link, table, spool, heard),
        )

    def _applied(self, link: str, table: str, spool: str) -> tuple[int, int, int]:
        """What the controller applied of ``table``'s spool (its last number, contributions and cents),
        its mark locked until the transaction ends. A spool new to the link gets its mark first, at
        nothing applied, made once whoever is first: a PostgreSQL ``SELECT ... FOR UPDATE`` finds no
        row to lock, so two floor services applying its first message at once would both insert it,
        the second failing on a duplicate key. The second's INSERT waits for the first's transaction
        and does nothing; its SELECT then locks the mark the first moved, and the message is a repeat."""
        self.store.run(
            "INSERT INTO link_tables (link, name, spool, number, contributions, wagered_cents, heard_at) "
            "VALUES (?, ?, ?, 0, 0, 0, ?) ON CONFLICT (link, name, spool) DO NOTHING",
            (link, table, spool, now()),
        )
        row = self.store.run(
            "SELECT number, contributions, wagered_cents FROM link_tables "
            f"WHERE link = ? AND name = ? AND spool = ?{self.store.for_update}",
            (link, table, spool),
        ).fetchone()
        return int(row[0]), int(row[1]), int(row[2])

    def _lock_levels(self, link: str) -> None:
        """Every level of ``link`` locked until the transaction ends, in the order of their numbers
        (as a contribution locks those it funds, so neither waits on the other for ever): a hit
        takes the next number of the link's order, and a void takes hits of any level back out of
        it, so floor services sharing PostgreSQL apply them one at a time (each locking only its own
        level, two hits on two levels took the same number: a duplicate key)."""
        self.store.run(f"SELECT level FROM link_levels WHERE link = ? ORDER BY level{self.store.for_update}",
                       (link,))  # fmt: skip

    def _level(self, link: str, level: int) -> tuple[int, int, int, int, int]:
        row = self.store.run(
            "SELECT level, rate_bp, reset_cents, in_cents, carry FROM link_levels "
            f"WHERE link = ? AND level = ?{self.store.for_update}",
            (link, level),
        ).fetchone()
        return int(row[0]), int(row[1]), int(row[2]), int(row[3]), int(row[4])


def _accrued(row: tuple[int, int, int, int, int] | Any) -> int:  # Any: a row of the driver's own type
    """What a level accrued above its reset value since it restarted, in ten-thousandths of a cent:
    its rate of what was wagered since, and ``carry``: what its last hit left (the overflow and the
    fraction of a cent), plus what voided hits gave back, less the contributions withdrawn from the
    pot."""
    _level, rate_bp, _reset_cents, in_cents, carry = row
    return int(in_cents) * int(rate_bp) + int(carry)


def _uncapped(row: tuple[int, int, int, int, int] | Any) -> int:  # Any: a row of the driver's own type
    """A level's reset value plus what it accrued, rounded down to the cent; never below the reset
    value (a withdrawal can leave a fraction of a cent owed, which the next contribution makes up:
    kept in ``carry``, not lost)."""
    return int(row[2]) + max(0, _accrued(row)) // BASIS_POINTS


def _value(row: tuple[int, int, int, int, int] | Any, limit: int, shown: int = 0) -> int:  # Any: driver's row
    """A level's value: what it holds, or what was ``shown`` in its cycle if more (``_shown``), up to
    its limit, the most a linked table's controller shows and pays (a table refuses a state above its
    own controller's limit, and would lock its wagers)."""
    return min(limit, max(shown, _uncapped(row)))


def _overflow(row: tuple[int, int, int, int, int] | Any, limit: int) -> int:  # Any: the driver's row
    """What a level holds above its limit, in whole cents: kept, not lost, and the next cycle's after
    a hit (as a controller's overflow meter, docs/protocol.md §11.4)."""
    return max(0, _uncapped(row) - limit)
