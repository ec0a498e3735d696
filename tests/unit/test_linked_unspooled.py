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
import json
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest

from croupier.config.floor_service import StoreConfig
from croupier.config.linked import FloorLink, LinkedLevel
from croupier.floor_link.linked import SpoolSender
from croupier.floor_link.spool import Spool
from croupier.floor_link.topics import Topics
from devices.equipment import EquipmentEvent
from devices.faults import SPOOL_UNWRITTEN_CODE
from devices.linked import Counts, LinkedLevels, Unspooled
from devices.progressive import Progressive
from devices.progressive_rules import LINK_MISMATCH
from drivers.progressive import MeterSignDriver, ProgressiveDriver
from floor.link_controller import LinkController
from floor.store import Store
from tests.links import run
from tests.unit.test_linked_levels import Floor, _at, _refuse_writes, heard_open
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
        link.heard({"at": _at(), "levels": [level], "applied": None, "refused": []})
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
        link.heard({"at": _at(), "levels": [level], "applied": applied, "refused": []})  # more than sent
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
        link.heard(self.controller.state_for("c4p", "T1"))
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
