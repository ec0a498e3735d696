"""A link message owed when the table's process is killed (decision 0049): the floor spool refused
it (its disk full, read-only: FLOOR_SPOOL_UNWRITTEN) and it lived in memory only. The table's
process, with a real link controller applying its spool's messages (the floor's database on disk,
as the floor service keeps it), is killed (SIGKILL) while a contribution, a hit or a keyed reset is
owed; the simulated progressive controller, behind a real pseudo-terminal in this process, keeps its
round, meters and frozen level across the kill. At the restart each is worked out from what is
durable (the controller device, the spool, the link's state) and sent, and the link applies it
exactly once: a restart after that sends nothing again. A round cut off with its hit owed and
cleared (voided) before the link is heard sends no hit: the link never locks for a voided round."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from croupier.audit.record import read_records
from croupier.audit.writer import AuditTrail
from croupier.config import load_table_config
from croupier.config.floor_service import StoreConfig
from croupier.floor_link import broker_settings, publishing
from croupier.floor_link.linked import void_unsent
from croupier.floor_link.spool import Spool
from croupier.service.journal import TableJournal
from croupier.service.table_service import TableService
from croupier.state import TableState
from devices.linked import Counts, LinkedLevels
from devices.progressive import Progressive
from firmware_sim.ports.pty import PtyPort
from firmware_sim.progressive import ControllerPersonality
from floor.store import Store
from simulator.tables import simulated_table
from tests.integration.floor_broker import free_port, linked_table
from tests.integration.test_linked_device_reconciled import _controller_bus, _records, table_host
from tests.links import run
from tests.unit.test_linked_levels import _refuse_writes
from tests.unit.test_linked_unspooled import _Delivered, _events
from tests.unit.test_progressive_rules import SUPERVISOR

ROOT = Path(__file__).resolve().parents[2]
KEY = ControllerPersonality.reset_key  # the simulated controller's reset key


def _floor(path: Path) -> tuple[Store, _Delivered]:
    """The floor's link controller on its database at ``path``, at the table's rate (table_host's)."""
    store = Store(StoreConfig(None, path))
    return store, _Delivered(store, rate_bp=500)


def killed_with_one_owed(url: str, spool: str, floor: str, owed: str) -> None:
    """The table's process (run on its own): the link heard from the real link controller, a round
    locked (seats 2, 4 and 6) and, unless ``owed`` is the contribution or the void, dealt, seat 4
    hit on level 1 and paid the link's amount; the spool refusing writes from the step that makes
    ``owed`` (``contribution``: the lock; ``hit``: the award; ``reset``: the keyed reset; ``void``:
    the supervisor's clear of the round, cut off, as voided, in the table's trail) on; the process
    killed once it is owed."""
    directory = Path(spool).parent
    with TableState(directory / "state.db") as state, AuditTrail(directory / "audit", "T1") as trail:
        asyncio.run(_owed_then_killed(url, Path(spool), Path(floor), owed, _journal(trail, state)))


def _journal(trail: AuditTrail, state: TableState) -> TableJournal:
    return TableJournal(trail, state, table="T1", game="crazy_4_poker")


async def _owed_then_killed(url: str, spool: Path, floor: Path, owed: str, journal: TableJournal) -> None:
    store, deliver = _floor(floor)
    async with table_host(url, spool, journal=journal) as (progressive, link, kept):
        deliver(kept, link)
        if owed == "contribution":
            kept._db.set_authorizer(_refuse_writes)
        await progressive.lock()
        if owed == "void":
            deliver(kept, link)
            journal.trail.append("round_cut_off", 1, {"wagers": [], "cards_total": 0})  # as a restart did
            kept._db.set_authorizer(_refuse_writes)
            journal.cut_off_settled(SUPERVISOR)  # as supervisor_clear does: the trail says voided
            progressive.voided()
        if owed in ("hit", "reset"):
            deliver(kept, link)
            progressive.chip_count(3)
            progressive.begin_dealing()
            if owed == "hit":
                kept._db.set_authorizer(_refuse_writes)
            award = asyncio.create_task(progressive.award(1, 4))
            while owed != "hit" and (link.awaiting is None or "amount" not in link.awaiting):
                await asyncio.sleep(0.01)
            if owed == "reset":
                deliver(kept, link)
                await asyncio.wait_for(award, 5)
                kept._db.set_authorizer(_refuse_writes)
                await progressive.reset_level(1, KEY)
        while link.owed != [owed]:
            await asyncio.sleep(0.01)
        store.close()
        os.kill(os.getpid(), signal.SIGKILL)


@pytest.fixture
def controller() -> Iterator[tuple[ControllerPersonality, str]]:
    """The table's progressive controller and sign, on a pseudo-terminal that outlives the table."""
    personality = ControllerPersonality(covered={2, 4, 6})
    port = PtyPort(_controller_bus(personality)).start()
    try:
        yield personality, port.url
    finally:
        port.stop()


async def _shown(link: LinkedLevels) -> None:
    """The linked values the link last heard, on the sign (each in a task of its own) before the
    table's connections stop."""
    await asyncio.gather(*link._shows)


def _kill_with(owed: str, url: str, tmp_path: Path) -> tuple[Path, Path]:
    spool, floor = tmp_path / "floor-spool.sqlite3", tmp_path / "floor.sqlite3"
    table = subprocess.run(
        [sys.executable, "-c", "from tests.integration.test_linked_owed_restart import "
         f"killed_with_one_owed as table; table({url!r}, {str(spool)!r}, {str(floor)!r}, {owed!r})"],
        cwd=ROOT, capture_output=True, timeout=60,
    )  # fmt: skip
    assert table.returncode == -signal.SIGKILL, table.stderr.decode()
    return spool, floor


@pytest.mark.parametrize("owed", ["contribution", "hit", "reset"])
def test_a_message_owed_when_the_table_is_killed_is_sent_at_the_restart_and_applied_once(
    owed, controller, tmp_path
):
    personality, url = controller
    spool, path = _kill_with(owed, url, tmp_path)
    frozen = owed == "hit"  # the controller froze level 1 at the award; the key was turned for the reset
    assert personality.locked and bool(personality.levels[0].frozen) == frozen
    with contextlib.closing(Spool(spool)) as before:
        assert before.linked_counts().number == {"contribution": 0, "hit": 1, "reset": 2}[owed]
    store, deliver = _floor(path)
    expected = {"contribution": ["contribution"], "hit": ["hit"], "reset": ["reset"]}[owed]

    async def restarts() -> None:
        async with table_host(url, spool) as (progressive, link, kept):
            at_read = _events(kept)  # a contribution: found as the controller is read (decision 0043)
            deliver(kept, link)  # the link heard: a hit or a keyed reset owed is worked out and spooled
            assert at_read + _events(kept) == expected and link.owed == []
            records = _records(progressive)
            deliver(kept, link)  # applied by the link controller
            deliver(kept, link)
            assert _events(kept) == []
            sent = kept.linked_counts()
            assert link.applied == sent
            if owed == "contribution":
                assert records["linked_device_checked"][0]["sent_now"] == 1
                assert sent == Counts(1, 1, 300)
            if owed == "hit":
                (hit,) = records["linked_hit_owed"]
                assert (hit["level"], hit["seat"], hit["round"], hit["number"]) == (1, 4, 1, 2)
                (told,) = deliver.level("T2")["hits"]  # type: ignore[index]
                assert (told["table"], told["seat"], told["round"], told["order"]) == ("T1", 4, 1, 1)
                assert deliver.level("T2")["locked"] and link.locked_levels == [1]
                assert link.paid(1) == told["amount_cents"]
            if owed == "reset":
                assert [record["level"] for record in records["linked_reset_owed"]] == [1]
                assert not deliver.level("T2")["locked"] and link.locked_levels == []
            await _shown(link)
        async with table_host(url, spool) as (progressive, link, kept):  # and at the start after
            deliver(kept, link)
            deliver(kept, link)
            assert _events(kept) == [] and kept.linked_counts() == sent, "sent once, never again"
            records = _records(progressive)
            assert "linked_hit_owed" not in records and "linked_reset_owed" not in records
            assert len(deliver.level("T2")["hits"]) == (1 if frozen else 0)  # type: ignore[arg-type]
            if frozen:  # the key turned at last: the lock lifts at every table of the link
                await progressive.reset_level(1, KEY)
                deliver(kept, link)
                deliver(kept, link)
                assert not deliver.level("T2")["locked"] and link.locked_levels == []
            await _shown(link)

    try:
        run(restarts(), 60)
    finally:
        store.close()


def test_a_round_cut_off_with_its_hit_owed_and_voided_before_the_link_is_heard_sends_no_hit(
    controller, tmp_path
):
    """The supervisor clears the cut-off round (voided, decision 0044) before the restarted table
    hears the link: its contribution is withdrawn and its hit, owed when the table was killed, is
    never sent: the link never locks the level for a round that does not stand. The table still
    holds its own controller's frozen level for the keyed reset."""
    _, url = controller
    spool, path = _kill_with("hit", url, tmp_path)
    store, deliver = _floor(path)

    async def restarts() -> None:
        async with table_host(url, spool, void_owed=True) as (progressive, link, kept):
            deliver(kept, link)
            deliver(kept, link)
            assert "linked_hit_owed" not in _records(progressive)
            assert kept.linked_counts() == Counts(2, 0, 0) and link.applied == Counts(2, 0, 0)
            assert not deliver.level("T2")["locked"] and progressive.frozen_here == [1]
            await _shown(link)

    try:
        run(restarts(), 60)
    finally:
        store.close()


def test_a_void_owed_when_the_table_is_killed_is_read_from_its_trail_and_sent_once(controller, tmp_path):
    """The supervisor cleared the cut-off round (the trail's ``round_voided``) while the spool
    refused the void, and the table was killed: neither the controller (its wagers-in meter keeps
    a voided round's wagers) nor the spool (the round's contribution standing) says the round was
    voided; the sealed trail does, with no ``linked_void`` after it. At the restart the void is sent,
    once, after the controller is read: the link withdraws the round's contribution, and neither
    the trail nor the spool owes it again at the start after."""
    _, url = controller
    spool, path = _kill_with("void", url, tmp_path)
    store, deliver = _floor(path)
    assert deliver.level("T2")["value_cents"] == 1_000_000 + 300 * 500 // 10_000  # the round still in

    async def restarts(journal: TableJournal) -> None:
        owed = void_unsent(journal.trail.files())
        assert owed, "the trail says the round was voided and no void was spooled"
        async with table_host(url, spool, void_owed=owed, journal=journal) as (progressive, link, kept):
            (void,) = [record.fields for record in read_records(journal.trail.files())
                       if record.kind == "linked_void"]  # fmt: skip
            assert (void["number"], void["round"], void["wagered_cents"]) == (2, 1, 300)
            deliver(kept, link)
            deliver(kept, link)
            assert link.applied == kept.linked_counts() == Counts(2, 0, 0)
            assert deliver.level("T2")["value_cents"] == 1_000_000  # withdrawn at the link
            assert not progressive.latch.faults
            await _shown(link)
        assert not void_unsent(journal.trail.files()), "the trail now has the void"
        async with table_host(url, spool, void_owed=True) as (progressive, link, kept):  # sent regardless
            deliver(kept, link)
            assert "linked_void" not in _records(progressive) and kept.linked_counts() == Counts(2, 0, 0)
            await _shown(link)

    directory = tmp_path
    try:
        with TableState(directory / "state.db") as state, AuditTrail(directory / "audit", "T1") as trail:
            run(restarts(_journal(trail, state)), 60)
    finally:
        store.close()


@pytest.mark.parametrize("trail_ends", ["voided", "void sent"])
def test_a_linked_table_starting_on_a_trail_that_ends_voided_voids_on_the_link(
    tmp_path, monkeypatch, trail_ends
):
    """``croupier run``'s floor link (publishing), as it attaches a linked table's progressive, reads
    the table's trail: one ending with a cut-off round voided and no ``linked_void`` after it voids
    the round on the link (once the controller is read), one whose void reached the spool does not."""
    config = load_table_config(linked_table(tmp_path, "T1", free_port(), login=""))
    config.service.state_db.parent.mkdir(parents=True, exist_ok=True)
    with AuditTrail(config.service.audit_dir, config.name) as before:  # the run before the stop
        before.append("round_cut_off", 4, {"wagers": [], "cards_total": 0})
        before.append("round_voided", 4, {"by": "S1"})
        if trail_ends == "void sent":
            before.append("linked_void", None, {"round": 4, "wagered_cents": 100, "number": 9})
    voided: list[Progressive] = []
    monkeypatch.setattr(Progressive, "voided", lambda progressive: voided.append(progressive))

    async def starts() -> None:
        with (
            TableState(config.service.state_db) as state,
            AuditTrail(config.service.audit_dir, config.name) as trail,
        ):
            journal = TableJournal(trail, state, table=config.name, game=config.game)
            async with simulated_table(config.game, rules=config.rules, name=config.name) as sim:
                journal.keep(sim.table)
                service = TableService(sim.table, journal, game=config.game)
                async with publishing(broker_settings(config), service, trail) as floor_link:
                    assert floor_link is not None and floor_link.linked is not None
                    assert voided == ([sim.table.progressive] if trail_ends == "voided" else [])

    asyncio.run(starts())
