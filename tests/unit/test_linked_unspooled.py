"""A linked progressive's messages the floor spool cannot take (its disk full, read-only, failing;
here SQLite's own refusal, as a disk refuses a statement): the contribution at the lock, the hit
after the award, the keyed reset after the controller's reset and a void are each kept owed, in
order, FLOOR_SPOOL_UNWRITTEN latched, holding the table; each is sent once the spool takes it (on
the link's next look, or at the supervisor's clear, which is refused while anything is owed), and
the table's step that sent it never fails on the spool (decision 0039). A supervisor's clear of
LINK_MISMATCH whose difference the spool cannot keep is refused, the fault staying. A keyed reset
still owed when the table stops is sent at the next start, once, the link controller (the real one)
lifting the level's lock at every table."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import aiomqtt
import pytest

from croupier.audit.writer import AuditTrail
from croupier.config.floor_service import StoreConfig
from croupier.config.linked import FloorLink, LinkedLevel
from croupier.floor_link.linked import SpoolSender, void_unsent
from croupier.floor_link.messages import Schemas
from croupier.floor_link.publisher import _link_heard
from croupier.floor_link.spool import Spool
from croupier.floor_link.topics import Topics
from croupier.state import StateError
from devices.equipment import EquipmentEvent
from devices.faults import SPOOL_UNWRITTEN_CODE, Fault
from devices.linked import Counts, LinkedLevels, Unspooled, unit_key
from devices.progressive import Progressive
from devices.progressive_rules import LINK_MISMATCH
from drivers.progressive import MeterSignDriver, ProgressiveDriver
from drivers.protocol.classes.progressive import LevelInfo
from floor.link_controller import LinkController
from floor.store import Store
from tests import full_disk
from tests.links import run
from tests.unit.test_linked_levels import TOLD, UNIT, Floor, _at, _holding, _refuse_writes, heard_open
from tests.unit.test_linked_levels import Progressive as StubProgressive
from tests.unit.test_progressive_rules import SUPERVISOR, Table
from vocabulary.rules import RuleViolation


@pytest.fixture
def spool(tmp_path: Path) -> Iterator[Spool]:
    kept = Spool(tmp_path / "spool.sqlite3")
    yield kept
    kept.close()


def _sender(spool: Spool) -> SpoolSender:
    return SpoolSender(Floor(Topics("casino-1", "T1")), spool, "c4p")  # type: ignore[arg-type]


def _attached(table: Table, spool: Spool) -> LinkedLevels:
    link = LinkedLevels("T1", "c4p", {1: 1000}, 30.0, _sender(spool))
    table.progressive.attach(link)
    heard_open(link, rate_bp=1000)
    return link


def _events(spool: Spool) -> list[str]:
    """The events of the link messages spooled, in order."""
    return [json.loads(message.payload)["event"] for message in spool.pending(0, 100)
            if message.topic.endswith("/linked")]  # fmt: skip


def _unwritten(table: Table) -> bool:
    return SPOOL_UNWRITTEN_CODE in {fault.code for fault in table.progressive.latch.faults}


def test_a_contribution_the_spool_refuses_at_the_lock_is_owed_and_the_clear_waits_for_it(spool):
    table = Table()
    link = _attached(table, spool)

    async def scenario() -> None:
        await table.progressive.sync()
        table.cover(3)
        spool._db.set_authorizer(_refuse_writes)
        locked = await table.progressive.lock()  # the controller locked: the table does not crash
        assert locked.locked and locked.count == 1
        assert link.owed == ["contribution"] and _unwritten(table)
        fault = next(f for f in table.progressive.latch.faults if f.code == SPOOL_UNWRITTEN_CODE)
        assert fault.holds and "a contribution message for the floor could not be spooled" in fault.detail
        with pytest.raises(RuleViolation, match="not yet spooled: contribution"):
            await table.progressive.clear(SPOOL_UNWRITTEN_CODE, SUPERVISOR)
        assert _unwritten(table)
        spool._db.set_authorizer(None)
        await table.progressive.clear(SPOOL_UNWRITTEN_CODE, SUPERVISOR)
        assert not _unwritten(table) and link.owed == []
        assert spool.linked_counts() == Counts(1, 1, locked.wager_cents)
        assert _events(spool) == ["contribution"]

    run(scenario(), 10)


def test_a_contribution_at_the_lock_on_a_full_disk_is_owed_and_sent_once_the_disk_has_room(spool):
    """The disk really full (SQLite rolls the transaction back itself, unlike a refused statement):
    the lock still ends, the contribution owed and FLOOR_SPOOL_UNWRITTEN latched."""
    table = Table()
    link = _attached(table, spool)

    async def scenario() -> None:
        await table.progressive.sync()
        full_disk.fill(spool._db)
        with pytest.raises(StateError, match="database or disk is full"):  # the table's other messages
            for n in range(1000):
                spool.append("t", lambda seq, n=n: {"seq": seq, "round": n, "pad": "x" * 100})
        table.cover(3)
        locked = await table.progressive.lock()
        assert locked.locked and link.owed == ["contribution"] and _unwritten(table)
        full_disk.free(spool._db)
        await table.progressive.clear(SPOOL_UNWRITTEN_CODE, SUPERVISOR)
        assert not _unwritten(table) and link.owed == [] and _events(spool) == ["contribution"]
        assert spool.linked_counts() == Counts(1, 1, locked.wager_cents)

    run(scenario(), 10)


def test_a_spool_unreadable_when_a_reset_may_be_owed_puts_the_check_off_to_the_next_look(spool):
    """The table PC restarted after a hit it sent (number 2) whose keyed reset was turned at the
    controller, the reset owed in memory lost. The owed-reset check reads the link messages the
    controller has not applied: the real spool refusing that read (its disk failing) puts the check
    off, and the look goes on; at the next look, the spool readable, the reset is sent."""
    sender = _sender(spool)
    fields = {"round": 1, "count": 1, "wagered_cents": 100, "levels": [1], "controller": UNIT}
    sender.send("contribution", fields, contribution=(unit_key(UNIT), 1, 100))
    sender.send("hit", {"level": 1, "seat": 3, "round": 1, "controller": UNIT})
    progressive = StubProgressive()
    link = LinkedLevels("T1", "c4p", {1: 500}, 3.0, sender)
    link.progressive = progressive  # type: ignore[assignment]
    progressive.levels[1] = LevelInfo(
        level=1, reset_cents=1000, increment_bp=500, reserve_bp=0, limit_cents=5_000_000, value_cents=1000,
        in_cents=100, hits=1, wins_cents=1500, overflow_cents=0, reserve_cents=0, frozen=False,
    )  # fmt: skip
    progressive.show_linked = lambda level: asyncio.sleep(0)  # type: ignore[attr-defined]

    def unreadable_linked(action: int, table: str | None, *_: object) -> int:
        return sqlite3.SQLITE_DENY if action == sqlite3.SQLITE_READ and table == "linked" else 0

    def holding() -> dict[str, object]:
        state = _holding((2, sender.identity), applied=2)
        state["applied"]["spool"] = sender.identity  # type: ignore[index]
        return state

    async def heard() -> None:
        before = _holding(applied=2)  # the controller applied both (the state heard before the hit's)
        before["applied"]["spool"] = sender.identity  # type: ignore[index]
        link.heard(before)
        spool._db.set_authorizer(unreadable_linked)
        link.heard(holding())
        link.look()
        assert link.refusal() is not None and "jackpot-locked" in str(link.refusal()), "the look went on"
        spool._db.set_authorizer(None)
        link.look()
        assert ("reset", 1) in [(m.get("event"), m.get("level")) for m in spool.unapplied()]

    run(heard(), 5)


def test_a_hit_waits_to_be_spooled_and_a_keyed_reset_and_a_void_are_sent_once_the_spool_takes_them(spool):
    table = Table()
    link = _attached(table, spool)

    async def scenario() -> None:
        progressive = await table.locked_round(3)
        spool._db.set_authorizer(_refuse_writes)
        award = asyncio.create_task(progressive.award(1, 3))
        while link.owed != ["hit"]:
            await asyncio.sleep(0.01)
        assert "spooled (FLOOR_SPOOL_UNWRITTEN)" in str(link.awaiting) and _unwritten(table)
        spool._db.set_authorizer(None)
        link.look()  # the link's next look (every second) sends what is owed
        while link.awaiting is None or "amount" not in link.awaiting:
            await asyncio.sleep(0.01)
        assert _events(spool) == ["contribution", "hit"]
        hit = {"order": 1, "table": "T1", "number": 2, "seat": 3, "round": 1, "amount_cents": 5000,
               "spool": spool.identity}
        level = {"level": 1, "rate_bp": 1000, "reset_cents": 1000, "value_cents": 1000, "locked": True,
                 "hits": [hit]}  # fmt: skip
        link.heard({"at": _at(), "levels": [level], "applied": None, **TOLD, "refused": []})
        assert (await asyncio.wait_for(award, 5)).amount_cents == 5000
        spool._db.set_authorizer(_refuse_writes)
        await progressive.reset_level(1, table.controller.personality.reset_key)  # the step completes
        assert not (await progressive.driver.level(1)).frozen and link.owed == ["reset"]
        progressive.voided()
        assert link.owed == ["reset", "void"]
        spool._db.set_authorizer(None)
        link.look()
        assert link.owed == [] and _events(spool) == ["contribution", "hit", "reset", "void"]
        assert spool.linked_counts() == Counts(4, 0, 0)  # the void withdrew the round's contribution
        await progressive.clear(SPOOL_UNWRITTEN_CODE, SUPERVISOR)
        assert not _unwritten(table)

    run(scenario(), 10)


def test_a_clear_of_link_mismatch_the_spool_cannot_keep_is_refused_and_the_fault_stays(spool):
    """The difference a supervisor's clear takes must outlive a restart (kept in the spool): one the
    spool cannot keep is not taken, the clear refused naming why, LINK_MISMATCH still latched."""
    table = Table()
    link = _attached(table, spool)

    async def scenario() -> None:
        await table.progressive.sync()
        level = {"level": 1, "rate_bp": 1000, "reset_cents": 1000, "value_cents": 1000, "locked": False,
                 "hits": []}  # fmt: skip
        applied = {"spool": spool.identity, "number": 2, "contributions": 1, "wagered_cents": 100}
        link.heard({"at": _at(), "levels": [level], "applied": applied, **TOLD,
                    "refused": []})  # fmt: skip; more than sent
        assert [fault.code for fault in table.progressive.latch.faults] == [LINK_MISMATCH]
        spool._db.set_authorizer(_refuse_writes)
        with pytest.raises(RuleViolation, match="LINK_MISMATCH stays: the difference not kept"):
            await table.progressive.clear(LINK_MISMATCH, SUPERVISOR)
        assert [fault.code for fault in table.progressive.latch.faults] == [LINK_MISMATCH]
        spool._db.set_authorizer(None)
        await table.progressive.clear(LINK_MISMATCH, SUPERVISOR)
        assert not table.progressive.latch.faults and spool.linked_difference() == Counts(-2, -1, -100)

    run(scenario(), 10)


class _Delivered:
    """The floor's side: every link message the spool holds is applied by a real link controller
    (each once, by its number, as the floor service applies what the broker brings, then confirms),
    and what the controller tells the table is heard by the table's link."""

    def __init__(self, store: Store, rate_bp: int = 1000) -> None:
        levels = {1: LinkedLevel(rate_bp, 1_000_000, 25_000_000)}  # the simulated controller's level 1
        self.controller = LinkController({"c4p": FloorLink("c4p", ("T1", "T2"), levels, 2.0)}, store, "main")

    def __call__(self, spool: Spool, link: LinkedLevels) -> dict[str, object]:
        for message in spool.pending(0, 100):
            if message.topic.endswith("/linked"):
                self.controller.heard("T1", json.loads(message.payload))
            spool.confirmed(message.seq)  # counted by the floor: it leaves the spool
        link.heard(self.controller.state_for("c4p", "T1") | TOLD)
        return self.level("T1")

    def level(self, table: str) -> dict[str, object]:
        return self.controller.state_for("c4p", table)["levels"][0]  # type: ignore[index,no-any-return]


def test_a_keyed_reset_owed_when_the_table_stops_is_sent_once_at_the_next_start_and_the_lock_lifts(tmp_path):
    """58 Pa. Code § 605a.7(a): the keyed reset turned at the table lifts the jackpot lock. Turned
    while the spool refused it, the reset was owed in memory and lost with the table's stop; the
    controller kept (not frozen: its key was turned) says it was, so the restarted table sends it,
    once, and the link lifts the level at every table."""
    store = Store(StoreConfig(None, tmp_path / "floor.sqlite3"))
    floor, table, path = _Delivered(store), Table(), tmp_path / "spool.sqlite3"
    spool = Spool(path)
    link = LinkedLevels("T1", "c4p", {1: 1000}, 30.0, _sender(spool))
    table.progressive.attach(link)
    records: list[EquipmentEvent] = []  # the restarted table's

    async def before_the_stop() -> None:
        floor(spool, link)
        progressive = await table.locked_round(3)
        floor(spool, link)
        award = asyncio.create_task(progressive.award(1, 3))
        while link.awaiting is None or "amount" not in link.awaiting:
            await asyncio.sleep(0.01)
        floor(spool, link)
        await asyncio.wait_for(award, 5)
        spool._db.set_authorizer(_refuse_writes)
        await progressive.reset_level(1, table.controller.personality.reset_key)
        assert link.owed == ["reset"] and not (await progressive.driver.level(1)).frozen

    async def after_the_start(again: Spool) -> None:
        progressive = Progressive(ProgressiveDriver(table.controller), MeterSignDriver(table.sign))
        progressive.listen(records.append)
        restarted = LinkedLevels("T1", "c4p", {1: 1000}, 30.0, _sender(again))
        progressive.attach(restarted)
        await progressive.sync()
        assert floor.level("T2")["locked"] and _events(again) == []
        floor(again, restarted)  # heard after the start: the reset owed is sent
        assert _events(again) == ["reset"]
        floor(again, restarted)  # applied: the lock lifts at the link, for every table
        assert not floor.level("T2")["locked"] and not floor.level("T1")["locked"]
        assert restarted.locked_levels == [] and restarted.refusal() is None
        owed = [record for record in records if record.kind == "linked_reset_owed"]
        assert [(record.clause, record.fields["level"]) for record in owed] == [("605a.7(a)", 1)]
        floor(again, restarted)
        restarted.look()
        assert _events(again) == [] and again.linked_counts().number == 3  # sent once, never again

    try:
        run(before_the_stop(), 10)
        assert floor.level("T2")["locked"]  # the reset never reached the link
        spool.close()  # the table stops: what was owed is gone with it
        spool = Spool(path)
        run(after_the_start(spool), 10)
    finally:
        spool.close()
        store.close()


def test_every_write_the_spool_refuses_is_unspooled_for_the_link(spool):
    """The table's side of the link knows only Unspooled: the device base, the messages the
    controller applied and a resend the spool cannot write are each refused so, not as the spool's
    own StateError."""
    sender = SpoolSender(Floor(Topics("casino-1", "T1")), spool, "c4p")  # type: ignore[arg-type]
    assert sender.send("hit", {"level": 1}) == 1
    denied = (sqlite3.SQLITE_INSERT, sqlite3.SQLITE_UPDATE, sqlite3.SQLITE_DELETE)
    spool._db.set_authorizer(lambda action, *_: sqlite3.SQLITE_DENY if action in denied else 0)
    for write in (lambda: sender.take_device_base(100), lambda: sender.applied(1), lambda: sender.resend(0)):
        with pytest.raises(Unspooled, match="cannot write the floor spool"):
            write()
    spool._db.set_authorizer(None)
    assert sender.resend(0) == 1


def test_a_state_heard_while_the_spool_refuses_reads_is_taken_and_the_broker_connection_kept(spool):
    """A link controller's state arriving while the spool refuses reads (its disk failing): the state
    is taken and the look it starts is put off to the watch's next (every second), rather than the
    spool's failure escaping the floor link's receiver (publisher._link_heard), which would end the
    table's broker connection and reconnect for a read the next second may well succeed."""
    table = Table()
    link = _attached(table, spool)
    level = {"level": 1, "rate_bp": 1000, "reset_cents": 1000, "value_cents": 1234, "locked": False,
             "hits": [], "limit_cents": 5_000_000, "overflow_cents": 0}  # fmt: skip
    state = {"link": "c4p", "table": "T1", "at": _at(), "levels": [level], "applied": None, **TOLD,
             "refused": []}  # fmt: skip
    topic = "croupier/v1/casino-1/link/c4p/table/T1"
    message = aiomqtt.Message(topic, json.dumps(state).encode(), qos=1, retain=False, mid=1, properties=None)

    def unreadable_counts(action: int, table: str | None, *_: object) -> int:
        return sqlite3.SQLITE_DENY if action == sqlite3.SQLITE_READ and table == "link" else sqlite3.SQLITE_OK

    async def scenario() -> None:
        spool._db.set_authorizer(unreadable_counts)
        _link_heard(link, message, Schemas())  # the receiver goes on to the next message
        assert link.levels[1]["value_cents"] == 1234, "the state taken"
        with pytest.raises(Unspooled):  # the watch's next look meets the same disk, logged there
            link.look()
        spool._db.set_authorizer(None)
        link.look()
        assert link.refusal() is None

    run(scenario(), 5)


def _hit_at_the_stop(tmp_path: Path, floor: _Delivered, where: str) -> tuple[Table, Path]:
    """A round locked (seat 3) and applied at the link, seat 3 hit on level 1 (the controller froze
    it), and the table stopped with the hit ``where``: ``owed`` (the spool refused it), ``spooled``
    (not yet delivered to the link) or ``applied`` (at the link, the amount not yet heard). What was
    owed is gone with the table; the controller keeps its frozen level."""
    table, path = Table(), tmp_path / "spool.sqlite3"
    spool = Spool(path)
    link = LinkedLevels("T1", "c4p", {1: 1000}, 30.0, _sender(spool))
    table.progressive.attach(link)

    async def before_the_stop() -> None:
        floor(spool, link)
        progressive = await table.locked_round(3)
        floor(spool, link)
        if where == "owed":
            spool._db.set_authorizer(_refuse_writes)
        award = asyncio.create_task(progressive.award(1, 3))
        while link.awaiting is None or ("spooled" if where == "owed" else "amount") not in link.awaiting:
            await asyncio.sleep(0.01)
        if where == "applied":  # the link applies it; the table never hears the amount
            for message in spool.pending(0, 100):
                floor.controller.heard("T1", json.loads(message.payload))
                spool.confirmed(message.seq)
        assert (await progressive.driver.level(1)).frozen
        award.cancel()

    try:
        run(before_the_stop(), 10)
    finally:
        spool.close()
    return table, path


def _restarted(table: Table, spool: Spool, records: list[EquipmentEvent]) -> tuple[Progressive, LinkedLevels]:
    """The table started again over the same controller: a new progressive and link on ``spool``."""
    progressive = Progressive(ProgressiveDriver(table.controller), MeterSignDriver(table.sign))
    progressive.listen(records.append)
    restarted = LinkedLevels("T1", "c4p", {1: 1000}, 30.0, _sender(spool))
    progressive.attach(restarted)
    return progressive, restarted


@pytest.mark.parametrize("where", ["owed", "spooled", "applied"])
def test_a_hit_the_controller_froze_before_the_stop_locks_the_link_once(tmp_path, where):
    """58 Pa. Code § 605a.7(a): the level stays frozen for the hit until the keyed reset, and a hit
    at any linked table locks the level at every one (decision 0039). The controller keeps the level
    frozen across the stop; the restarted table, once it hears the link, sends the hit only if the
    link has it nowhere: owed (the spool never took it), it is sent, and the spool marks it, so it
    is never sent a second time; spooled (kept until applied) or applied (the link's state lists
    it), it is not sent again, even by a spool of a release that did not mark it."""
    store = Store(StoreConfig(None, tmp_path / "floor.sqlite3"))
    floor = _Delivered(store)
    table, path = _hit_at_the_stop(tmp_path, floor, where)
    spool, records = Spool(path), []
    if where != "owed":  # as a spool from before the hits were marked: the link and the spool say
        spool._db.execute("DELETE FROM link WHERE name LIKE 'linked_hit:%'")

    async def after_the_start() -> None:
        progressive, restarted = _restarted(table, spool, records)
        await progressive.sync()
        assert floor.level("T2")["locked"] == (where == "applied")
        restarted.heard(floor.controller.state_for("c4p", "T1") | TOLD)  # heard, nothing delivered yet
        assert _events(spool) == ([] if where == "applied" else ["hit"])
        if where == "owed":  # named by the unit that answered the start, which froze the level
            (sent,) = [json.loads(message.payload) for message in spool.pending(0, 100)
                       if message.topic.endswith("/linked")]  # fmt: skip
            assert sent["controller"]["serial_number"] == "SIM-0001"
        floor(spool, restarted)
        floor(spool, restarted)
        restarted.look()
        assert _events(spool) == [] and restarted.locked_levels == [1]
        # the link found the hit's round by its unit and number: a void of the round takes it back
        assert store.run("SELECT count(*) FROM link_hit_contributions").fetchone()[0] == 1
        (hit,) = floor.level("T2")["hits"]  # type: ignore[misc]
        assert (hit["table"], hit["seat"], hit["round"]) == ("T1", 3, 1)
        owed = [(r.fields["level"], r.fields["seat"], r.fields["round"]) for r in records
                if r.kind == "linked_hit_owed"]  # fmt: skip
        assert owed == ([(1, 3, 1)] if where == "owed" else [])
        assert progressive.frozen_here == [1], "the table still holds for its own keyed reset"

    try:
        run(after_the_start(), 10)
    finally:
        spool.close()
        store.close()


def test_the_unit_a_spool_cannot_read_when_a_frozen_level_is_looked_at_is_put_off_not_a_raw_error(tmp_path):
    """A link state heard at the start with a level frozen (a hit perhaps owed) reads the unit of the
    round last contributed (LinkedLevels._hits_owed); the spool refusing that read (its disk failing)
    is Unspooled as every other read, not SQLite's own error: it would escape the floor link's
    receiver (ending the table's broker connection) and the watch's look (ending the watch for good)."""
    store = Store(StoreConfig(None, tmp_path / "floor.sqlite3"))
    floor = _Delivered(store)
    table, path = _hit_at_the_stop(tmp_path, floor, "owed")  # the controller holds level 1 frozen
    spool = Spool(path)

    def unreadable_unit(action: int, name: str | None, *_: object) -> int:
        return sqlite3.SQLITE_DENY if action == sqlite3.SQLITE_READ and name == "linked_unit" else 0

    async def after_the_start() -> None:
        progressive, restarted = _restarted(table, spool, [])
        await progressive.sync()
        state = floor.controller.state_for("c4p", "T1") | TOLD
        message = aiomqtt.Message("croupier/v1/casino-1/link/c4p/table/T1", json.dumps(state).encode(),
                                  qos=1, retain=False, mid=1, properties=None)  # fmt: skip
        spool._db.set_authorizer(unreadable_unit)
        _link_heard(restarted, message, Schemas())  # the receiver goes on to the next message
        with pytest.raises(Unspooled):  # what the watch's loop catches
            restarted.look()
        spool._db.set_authorizer(None)

    try:
        run(after_the_start(), 10)
    finally:
        spool.close()
        store.close()


@pytest.mark.parametrize(
    "when", ["key turned", "swapped", "replaced while stopped", "replaced, base taken afresh"]
)
def test_a_hit_owed_at_the_stop_is_not_sent_once_the_key_is_turned_nor_for_a_unit_not_vouched(tmp_path, when):
    """A hit owed at the stop is not sent once the key was turned at the restarted table before the
    link was heard (the hit is over; sent now, it would lock the level at every table with no key
    left to turn), nor while DEVICE_SWAPPED holds: the unit answering is not the one the table knew,
    and its frozen level is no hit of this table, even once a supervisor accepts it. Nor by a unit
    replaced while the table was stopped with no unit kept to compare it with at the start (no
    journal here, as at the first start after the upgrade that keeps units): the unit that answered
    the start is not the one that contributed the round last, so its frozen level is no hit of this
    table's round; also once a supervisor's clear of LINK_MISMATCH took that unit's base afresh before
    the link was heard (the unit of the round last contributed is kept across it: which unit froze the
    level is what is asked)."""
    store = Store(StoreConfig(None, tmp_path / "floor.sqlite3"))
    floor = _Delivered(store)
    table, path = _hit_at_the_stop(tmp_path, floor, "owed")
    if when.startswith("replaced"):  # another unit answers the start, frozen on the level at round 1
        table.controller.identity = dataclasses.replace(table.controller.identity, serial_number="SIM-0002")
    spool = Spool(path)

    async def after_the_start() -> None:
        progressive, restarted = _restarted(table, spool, [])
        await progressive.sync()
        if when == "key turned":
            await progressive.reset_level(1, table.controller.personality.reset_key)
        elif when == "swapped":
            progressive.latch.latch(Fault("DEVICE_SWAPPED", "controller swapped", "605a.4(c)", "host"))
        elif when == "replaced, base taken afresh":  # the supervisor's clear, the link not heard yet
            spool.take_difference(Counts(), progressive.in_meter())
        floor(spool, restarted)
        progressive.latch.release("DEVICE_SWAPPED")  # accepted, if it was latched
        floor(spool, restarted)
        floor(spool, restarted)
        assert "hit" not in _events(spool) and not floor.level("T2")["locked"]
        assert spool.linked_counts().number == (2 if when == "key turned" else 1)  # the reset: no hit

    try:
        run(after_the_start(), 10)
    finally:
        spool.close()
        store.close()


def test_a_void_is_owed_when_the_trail_ends_with_a_round_voided_and_no_linked_void_after_it(tmp_path):
    """What the trail says of the void a stop may have lost (decision 0049): owed after a round
    voided in play (its state record to ``voided``) or a cut-off round voided by the supervisor's
    clear (``round_voided``), until a ``linked_void`` is recorded, or a contribution, or a round
    begins (the table held while a void was owed: a round begun means none was). Read from the
    newest file back to the newest that says either way."""

    Record = tuple[str, dict[str, object]]

    def owed(*records: Record, before: Record | None = None) -> bool:
        """Whether a void is owed after ``records``, ``before`` in a file of a run before theirs."""
        directory = tmp_path / f"trail-{len(list(tmp_path.iterdir()))}"
        for run_of in ([before], records) if before is not None else (records,):
            with AuditTrail(directory, "T1") as trail:
                for kind, fields in run_of:
                    trail.append(kind, 1, fields)
        assert len(trail.files()) == (2 if before is not None else 1)
        return void_unsent(trail.files())

    begun = ("state", {"game": "crazy_4_poker", "round_seq": 1, "source": "idle", "dest": "betting"})
    voided = ("state", {"game": "crazy_4_poker", "round_seq": 9, "source": "held", "dest": "voided"})
    complete = ("state", {"game": "crazy_4_poker", "round_seq": 12, "source": "voided", "dest": "complete"})
    contribution = ("linked_contribution", {"round": 1, "number": 1})
    assert not owed() and not owed(begun, contribution)
    assert owed(begun, contribution, voided) and owed(begun, contribution, voided, complete)
    assert not owed(begun, contribution, voided, ("linked_void", {"round": 1}))
    assert owed(begun, ("round_cut_off", {}), ("round_voided", {"by": "S1"}))
    assert not owed(voided, begun) and not owed(("round_voided", {}), contribution)
    assert owed(("operator_action", {"action": "clear"}), before=("round_voided", {}))  # an older file's


def test_two_seats_hitting_one_level_in_a_round_are_both_sent_and_one_owed_at_the_stop_is_sent(tmp_path):
    """Two seats may hit the same level in one round (the controller pays each once, the level
    frozen by both): each hit is sent, and the second, owed when the table stopped, is sent at the
    next start, once: the first, at the link already, is not what the controller froze last."""
    store = Store(StoreConfig(None, tmp_path / "floor.sqlite3"))
    floor, table, path = _Delivered(store), Table(), tmp_path / "spool.sqlite3"
    spool = Spool(path)
    link = LinkedLevels("T1", "c4p", {1: 1000}, 30.0, _sender(spool))
    table.progressive.attach(link)

    async def before_the_stop() -> None:
        floor(spool, link)
        progressive = await table.locked_round(3, 5)
        floor(spool, link)
        first = asyncio.create_task(progressive.award(1, 3))
        while link.awaiting is None or "amount" not in link.awaiting:
            await asyncio.sleep(0.01)
        floor(spool, link)
        await asyncio.wait_for(first, 5)
        spool._db.set_authorizer(_refuse_writes)
        second = asyncio.create_task(progressive.award(1, 5))
        while link.owed != ["hit"]:
            await asyncio.sleep(0.01)
        second.cancel()

    async def after_the_start(again: Spool) -> None:
        progressive, restarted = _restarted(table, again, [])
        await progressive.sync()
        floor(again, restarted)
        floor(again, restarted)
        floor(again, restarted)
        hits = [(hit["seat"], hit["round"]) for hit in floor.level("T2")["hits"]]  # type: ignore[union-attr]
        assert hits == [(3, 1), (5, 1)] and again.linked_counts().number == 3

    try:
        run(before_the_stop(), 10)
        assert [(hit["seat"]) for hit in floor.level("T2")["hits"]] == [3]  # type: ignore[union-attr]
        spool.close()
        spool = Spool(path)
        run(after_the_start(spool), 10)
    finally:
        spool.close()
        store.close()
