"""A linked table's reconciliation with its progressive controller DEVICE (decision 0043): the
controller's wagers-in meter, read at every start, against what the table's spool sent. The table's
process is stopped dead (``os._exit``) as the controller answers its lock, before the contribution
is spooled; the simulated controller, behind a real pseudo-terminal in this process, keeps its
round and meters across the table's restart. At the next start the locked round's contribution is
sent, once by its controller round, and never again at the start after; rounds the controller
locked that the table cannot account for latch LINK_MISMATCH naming the counts."""

from __future__ import annotations

import asyncio
import contextlib
import os
import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path

from croupier.floor_link.linked import SpoolSender
from croupier.floor_link.spool import Spool
from croupier.floor_link.topics import Topics
from croupier.service.journal import TableJournal
from devices.equipment import EquipmentEvent
from devices.faults import LINK_ORIGIN
from devices.linked import Counts, LinkedLevels
from devices.progressive import Progressive
from devices.progressive_rules import LINK_MISMATCH
from drivers.progressive import MeterSignDriver, ProgressiveDriver
from drivers.protocol.classes.progressive import Lock, NewRound, SetLockout
from firmware_sim.device import SimulatedDevice
from firmware_sim.engine import DeviceEngine
from firmware_sim.multidrop import MultidropBus
from firmware_sim.ports.pty import PtyPort
from firmware_sim.progressive import ControllerPersonality, SignPersonality
from tests.integration.test_progressive import CONTROLLER, SIGN, controller_and_sign
from tests.links import run
from tests.unit.test_linked_levels import Floor, _told, heard_open

ROOT = Path(__file__).resolve().parents[2]
STOPPED = 9  # the table process's exit status when stopped between the lock and the spool


@contextlib.asynccontextmanager
async def table_host(
    url: str, spool: Path, *, void_owed: bool = False, journal: TableJournal | None = None
) -> AsyncIterator[tuple[Progressive, LinkedLevels, Spool]]:
    """The table's side, as each start builds it: the controller and sign on the line at ``url``,
    the floor spool at ``spool``, the link attached, the controller read (``resume``: a start).
    ``void_owed``: the round cut off by the stop is voided (a supervisor's clear of ROUND_CUT_OFF)
    before the controller is read, as a restarted table may. ``journal``: the progressive's
    equipment records written to its audit trail."""
    kept = Spool(spool)
    try:
        async with controller_and_sign(url) as (_, links):
            controller, sign = links
            progressive = Progressive(ProgressiveDriver(controller), MeterSignDriver(sign), win_deadline=1.0)
            if journal is not None:
                journal.watch_latches([progressive])
            sender = SpoolSender(Floor(Topics("casino-1", "T1")), kept, "c4p")  # type: ignore[arg-type]
            link = LinkedLevels("T1", "c4p", {1: 500}, 30.0, sender)
            progressive.attach(link)
            if void_owed:
                progressive.voided()
            await progressive.resume()
            yield progressive, link, kept
    finally:
        kept.close()


def stopped_between_lock_and_spool(url: str, spool: str) -> None:
    """The table's process (run on its own): the link up, "no more bets", and the process stopped
    dead as the controller's lock is answered, before the contribution reaches the spool."""

    def stop(*args: object, **kwargs: object) -> int:
        os._exit(STOPPED)

    Spool.append_linked = stop  # type: ignore[method-assign]

    async def main() -> None:
        async with table_host(url, Path(spool)) as (progressive, link, _):
            heard_open(link)
            await progressive.lock()

    asyncio.run(main())


def _two_rounds_no_table_sent(engine: DeviceEngine) -> None:
    """Two rounds opened and locked at the controller's keypad with no table there (its lockout
    lifted first: the table left it locked out, its link not heard): which of them a contribution
    might be missing for, nobody can say."""
    for command in (SetLockout(False), NewRound(), Lock(), NewRound(), Lock()):
        engine.personality.handle(command, engine)


def _records(progressive: Progressive) -> dict[str, list[dict[str, object]]]:
    """The progressive's equipment records since the last asked, their fields by kind."""
    records: dict[str, list[dict[str, object]]] = {}
    for event in progressive.take_unheard():
        if isinstance(event, EquipmentEvent):
            records.setdefault(event.kind, []).append(dict(event.fields))
    return records


def _controller_bus(controller: ControllerPersonality) -> MultidropBus:
    """The table's controller and its meter sign on one multidrop line."""
    return MultidropBus(
        [
            SimulatedDevice(controller, address=CONTROLLER, multidrop=True, seed=1),
            SimulatedDevice(SignPersonality(), address=SIGN, multidrop=True, seed=2),
        ]
    )


def _stop_between_lock_and_spool(controller: ControllerPersonality, url: str, spool: Path) -> None:
    """Run the table's process until it is stopped dead between the controller's lock (seats 2, 4
    and 6: 300 cents) and the spooling of its contribution."""
    table = subprocess.run(
        [sys.executable, "-c", "from tests.integration.test_linked_device_reconciled import "
         f"stopped_between_lock_and_spool as table; table({url!r}, {str(spool)!r})"],
        cwd=ROOT, capture_output=True, timeout=60,
    )  # fmt: skip
    assert table.returncode == STOPPED, table.stderr.decode()
    assert (controller.round, controller.locked, len(controller.accepted)) == (1, True, 3)
    with contextlib.closing(Spool(spool)) as before:
        assert before.linked_counts() == Counts() and before.device_base() == 0


def test_a_lock_the_table_never_spooled_is_sent_at_the_next_start_once_by_its_controller_round(tmp_path):
    controller = ControllerPersonality(covered={2, 4, 6})
    bus = _controller_bus(controller)
    port = PtyPort(bus).start()
    spool = tmp_path / "floor-spool.sqlite3"
    try:
        _stop_between_lock_and_spool(controller, port.url, spool)

        async def restarts() -> None:
            async with table_host(port.url, spool) as (progressive, _, kept):
                records = _records(progressive)
                (checked,) = records["linked_device_checked"]
                assert checked["sent_now"] == 1 and checked["accepted_cents"] == 300
                (sent,) = records["linked_contribution"]
                assert (sent["round"], sent["count"], sent["wagered_cents"]) == (1, 3, 300)
                assert kept.linked_counts() == Counts(1, 1, 300)
                assert not progressive.latch.faults
            async with table_host(port.url, spool) as (progressive, _, kept):  # and at the start after
                (checked,) = _records(progressive)["linked_device_checked"]
                assert "sent_now" not in checked and checked["sent_cents"] == 300
                assert kept.linked_counts() == Counts(1, 1, 300), "the round is never sent twice"
            bus[CONTROLLER].call(_two_rounds_no_table_sent)
            async with table_host(port.url, spool) as (progressive, link, kept):
                (fault,) = progressive.latch.faults
                assert fault.code == LINK_MISMATCH and kept.linked_counts() == Counts(1, 1, 300)
                assert fault.clause == "decision 0043"
                assert fault.origin == LINK_ORIGIN and progressive.latch.holding == (), "the link's fault"
                heard_open(link)  # the link up: the mismatch alone refuses the progressive wagers
                assert "LINK_MISMATCH latched" in str(progressive.wagers_refused())
                assert "accepted 900 cents" in fault.detail
                assert "sent 1 contributions of 300 cents" in fault.detail

        run(restarts(), 60)
    finally:
        port.stop()


def test_a_voided_round_stays_on_the_controllers_meter_and_is_no_difference_at_the_next_start(tmp_path):
    """Decisions 0043 and 0044: a round voided at a linked table takes its contribution's cents off
    those sent, while the controller's wagers-in meter keeps them; the void raises the device base
    by them in the same spool transaction, so the controller read again after a restart is no
    difference (no LINK_MISMATCH), and neither is the next round."""
    controller = ControllerPersonality(covered={2, 4, 6})
    port = PtyPort(_controller_bus(controller)).start()
    spool = tmp_path / "floor-spool.sqlite3"

    async def plays() -> None:
        async with table_host(port.url, spool) as (progressive, link, kept):
            heard_open(link)
            await progressive.lock()
            assert kept.linked_counts() == Counts(1, 1, 300)
            progressive.voided()  # a misdeal: every wager returned, the progressive ones too
            assert kept.linked_counts() == Counts(2, 0, 0) and kept.device_base() == 300
        async with table_host(port.url, spool) as (progressive, _, kept):  # a restart
            (checked,) = _records(progressive)["linked_device_checked"]
            assert (checked["in_cents"], checked["accepted_cents"], checked["sent_cents"]) == (300, 0, 0)
            assert not progressive.latch.faults
            assert kept.linked_counts() == Counts(2, 0, 0), "the voided round is not sent again"

    try:
        run(plays(), 60)
    finally:
        port.stop()


def test_a_round_cut_off_before_its_spooling_and_voided_before_the_controller_is_read_comes_out(tmp_path):
    """The table stopped between its controller's lock and the spooling of the contribution; at the
    restart a supervisor clears the cut-off round (voided) before the controller is read. The read
    first sends the locked round's contribution (``check_device``), then withdraws it (the owed
    void), the base rising by its cents: the link never keeps the voided round, and the start after
    finds no difference."""
    controller = ControllerPersonality(covered={2, 4, 6})
    port = PtyPort(_controller_bus(controller)).start()
    spool = tmp_path / "floor-spool.sqlite3"
    try:
        _stop_between_lock_and_spool(controller, port.url, spool)

        async def restarts() -> None:
            async with table_host(port.url, spool, void_owed=True) as (progressive, _, kept):
                records = _records(progressive)
                assert records["linked_device_checked"][0]["sent_now"] == 1
                (void,) = records["linked_void"]
                assert (void["number"], void["round"], void["wagered_cents"]) == (2, 1, 300)
                assert kept.linked_counts() == Counts(2, 0, 0) and kept.device_base() == 300
                assert not progressive.latch.faults
            async with table_host(port.url, spool) as (progressive, _, kept):
                assert not progressive.latch.faults and kept.linked_counts() == Counts(2, 0, 0)

        run(restarts(), 60)
    finally:
        port.stop()


def test_a_replaced_controller_whose_meter_matches_has_its_round_of_the_old_ones_number_sent(tmp_path):
    """Decision 0039: a controller replaced while the table was stopped, whose wagers-in meter reads
    what the old unit's did and whose first round bears the number of the old unit's last, is no
    difference at the start (the meters agree; no DEVICE_SWAPPED either, the table having no unit
    to compare it with yet); its round 1 is another unit's round, contributed, never taken for the old
    unit's round 1 and dropped, and sent once."""
    old = ControllerPersonality(covered={2, 4, 6})
    port = PtyPort(_controller_bus(old)).start()
    spool = tmp_path / "floor-spool.sqlite3"

    async def old_unit() -> None:
        async with table_host(port.url, spool) as (progressive, link, kept):
            heard_open(link)
            await progressive.lock()  # its round 1: 300 cents
            assert kept.linked_counts() == Counts(1, 1, 300)

    try:
        run(old_unit(), 60)
    finally:
        port.stop()
    new = ControllerPersonality(serial_number="SIM-0002", covered={2, 4, 6})
    for level in new.levels:  # a unit used before: its meter reads what the old unit's read
        level.contribute(300)
    port = PtyPort(_controller_bus(new)).start()

    async def new_unit() -> None:
        async with table_host(port.url, spool) as (progressive, link, kept):
            (checked,) = _records(progressive)["linked_device_checked"]
            assert checked["accepted_cents"] == checked["sent_cents"] == 300, "the meters agree"
            assert not progressive.latch.faults
            _told(link, Counts(1, 1, 300))  # the link up, the old unit's round 1 applied
            assert link.refusal() is None
            await progressive.lock()  # the new unit's round 1: 300 cents
            (sent,) = _records(progressive)["linked_contribution"]
            assert (sent["round"], sent["controller"]["serial_number"]) == (1, "SIM-0002")
            assert kept.linked_counts() == Counts(2, 2, 600), "the new unit's round 1 is not the old one's"
        async with table_host(port.url, spool) as (progressive, _, kept):  # and at the start after
            assert not progressive.latch.faults
            assert kept.linked_counts() == Counts(2, 2, 600), "sent once"

    try:
        run(new_unit(), 60)
    finally:
        port.stop()
