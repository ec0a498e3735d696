"""The journal after a kill (croupier.service.journal.TableJournal.restore), on a real trail and
state database: a round the state still marks in progress is held (ROUND_CUT_OFF) only if the trail
shows it unfinished; one killed after its last record was written is simply closed."""

from __future__ import annotations

import asyncio
from pathlib import Path

from croupier.audit.record import AuditRecord, read_records
from croupier.audit.writer import AuditTrail
from croupier.service.journal import ROUND_CUT_OFF_CODE, TableJournal
from croupier.state import TableState
from devices.faults import LINK_ORIGIN, Fault, FaultLatch
from drivers.connection import ConnectionState
from games.common.records import Record, RecordKind
from games.free_bet_blackjack.inputs import PlayerAction
from games.over_under.settlement import void
from simulator.floor import FloorSupervisor
from simulator.tables import FLOORPERSON
from tests.dealing import journaled
from tests.games import dealt, decide, finish
from tests.games.test_over_under_helpers import OVER, SURRENDER, UNDER, draw, elect
from tests.games.test_over_under_helpers import dealt as ou_dealt
from vocabulary.operators import Operator


class Machine:
    """A device machine's name, latch and link (up): what restore puts faults back on."""

    name, link = "shoe", ConnectionState.READY

    def __init__(self) -> None:
        self.latch = FaultLatch()


def killed_during(tmp_path: Path, *, finished: bool) -> tuple[int, Machine, list[str]]:
    """A round journaled record by record, the process killed before ``round_ended``; then a new
    journal over the same files restores. Returns rounds played, the machine, the trail's kinds."""
    round_, shoe = dealt(["Ts 7c"], "6h 9d", rest="5s 8c")
    with AuditTrail(tmp_path / "audit", "T1") as trail, TableState(tmp_path / "state.db") as state:
        journal = TableJournal(trail, state, table="T1", game="free-bet-blackjack")
        journal.round_began(round_)
        journaled(round_, journal)
        if finished:
            decide(round_, shoe, 1, PlayerAction.STAND)
            finish(round_, shoe)
    machine = Machine()
    with AuditTrail(tmp_path / "audit", "T1") as trail, TableState(tmp_path / "state.db") as state:
        played = TableJournal(trail, state, table="T1", game="free-bet-blackjack").restore([machine])
        assert state.round_in_progress("T1") is None
        lines = [line for path in trail.files() for line in path.read_bytes().splitlines()]
        kinds = [AuditRecord.parse(line).kind for line in lines]
    return played, machine, kinds


def test_a_round_killed_after_its_last_record_is_closed_not_held(tmp_path: Path) -> None:
    played, machine, kinds = killed_during(tmp_path, finished=True)
    assert played == 1 and not machine.latch.faults and "round_cut_off" not in kinds


def test_a_round_killed_mid_deal_is_held_for_a_supervisor(tmp_path: Path) -> None:
    played, machine, kinds = killed_during(tmp_path, finished=False)
    assert played == 1 and [f.code for f in machine.latch.faults] == [ROUND_CUT_OFF_CODE]
    assert "round_cut_off" in kinds


class HeldTable:
    """What the floor supervisor sees of a table whose restart cut a round off: the latch restore
    put ROUND_CUT_OFF on, and a supervisor's clear."""

    name, held_round, progressive = "T1", None, None  # a table without a progressive, as every table says

    def __init__(self, machine: Machine) -> None:
        self.machine = machine
        self.equipment = (machine,)

    @property
    def faults(self) -> tuple[Fault, ...]:
        return self.machine.latch.faults

    async def clear(self, code: str, operator: Operator) -> None:
        self.machine.latch.authorise_clear(code, operator)
        self.machine.latch.release(code)


def test_decision_0012_the_floor_clearing_a_cut_off_round_writes_round_voided(
    tmp_path: Path,
) -> None:
    """decision 0012: the simulated floor supervisor (``croupier run`` with no screen) clears
    ROUND_CUT_OFF through the table service's path, as the API does, so the cut-off round is closed
    in the trail by its ``round_voided`` record (before, the floor cleared it on the table alone)."""
    _, machine, _ = killed_during(tmp_path, finished=False)  # restored: ROUND_CUT_OFF latched
    with AuditTrail(tmp_path / "audit", "T1") as trail, TableState(tmp_path / "state.db") as state:
        journal = TableJournal(trail, state, table="T1", game="free-bet-blackjack")
        asyncio.run(FloorSupervisor(HeldTable(machine), None, journal)._clear())
        lines = [line for path in trail.files() for line in path.read_bytes().splitlines()]
        records = [AuditRecord.parse(line) for line in lines]
    assert not machine.latch.faults
    (voided,) = [record for record in records if record.kind == "round_voided"]
    assert voided.round == 1 and voided.fields["by"] == FLOORPERSON.ident
    assert any(r.kind == "operator_action" and r.fields.get("code") == ROUND_CUT_OFF_CODE for r in records)


class Watched(Machine):
    """A device machine as the journal watches it: no events made before, none heard after."""

    checks: tuple[()] = ()

    def take_unheard(self) -> list[object]:
        return []

    def listen(self, listener: object, *, durable: bool) -> None:
        pass

    def unit_of(self, code: str) -> dict[str, str]:
        return {"model": "PG-1"}


def test_a_link_fault_latched_before_the_journal_watched_is_recorded(tmp_path: Path) -> None:
    """A fault of the link (it holds no device) latched before the journal watched the device is
    recorded latched and kept in the state store, as a holding fault is."""
    machine = Watched()
    machine.latch.latch(Fault("LINK_LOST", "the floor link is lost", "decision 0039", LINK_ORIGIN))
    assert machine.latch.faults and not machine.latch  # latched, holding nothing
    with AuditTrail(tmp_path / "audit", "T1") as trail, TableState(tmp_path / "state.db") as state:
        TableJournal(trail, state, table="T1", game="crazy-4-poker").watch_latches([machine])  # type: ignore[list-item]
        lines = [line for path in trail.files() for line in path.read_bytes().splitlines()]
        latched = [record for line in lines if (record := AuditRecord.parse(line)).kind == "fault_latched"]
        assert [record.fields["code"] for record in latched] == ["LINK_LOST"]


class Kept:
    """A table's position as the journal saves it: here, the shoe's cover card out."""

    def __init__(self) -> None:
        self.cover_out = False

    def position(self) -> dict[str, object]:
        return {"in_shoe": "red", "held": "blue", "cover_out": self.cover_out}


def test_672a_7_d_the_position_is_saved_as_the_cover_card_comes_out(tmp_path: Path) -> None:
    """672a.7(d), 686a.7(d): the round's cover card record saves the table's position at once, so a
    service stopped before the shoe is changed finds, at the restart, that the batch in the shoe
    ended (croupier.tables.shoe_table: it is changed, not dealt on); other records save nothing."""
    with AuditTrail(tmp_path / "audit", "T1") as trail, TableState(tmp_path / "state.db") as state:
        journal = TableJournal(trail, state, table="T1", game="free-bet-blackjack")
        kept = Kept()
        journal.kept = kept
        journal.save_position()
        kept.cover_out = True
        journal.record(Record(1, 7, RecordKind.CARD, {"place": "dealer", "clause": "672a.7(l)"}))
        assert (state.load_table("T1") or {})["position"]["cover_out"] is False
        journal.record(Record(1, 8, RecordKind.COVER_CARD, {"clause": "672a.7(d)"}))
        assert (state.load_table("T1") or {})["position"]["cover_out"] is True


def test_686a_7_j_a_round_cut_off_lists_the_wagers_still_on_the_layout(tmp_path: Path) -> None:
    """686a.7(g)(3), (j): a round cut off by a restart after seat 1 was settled (paid and racked)
    and seat 2 surrendered (its Ante collected at the election) lists, to be returned by hand, the
    wagers still on the layout: seats 3 and 4's Antes and the Under 18 and Over 23 Wagers placed at
    their elections, what the game's own void returns. Before, it listed every ``wager`` record,
    the paid and collected Antes included, and none placed by an election (found by a review)."""
    round_, shoe = ou_dealt("Kc 9h 2d 3c Kd Qd 5s 6s 7s 8s", wagers={1: 1000, 2: 1000, 3: 1000, 4: 1000})
    with AuditTrail(tmp_path / "audit", "T1") as trail, TableState(tmp_path / "state.db") as state:
        journal = TableJournal(trail, state, table="T1", game="over-under")
        journal.round_began(round_)
        journaled(round_, journal)
        elect(round_, {1: OVER, 2: SURRENDER, 3: UNDER, 4: OVER})
        draw(round_, shoe, 1)  # seat 1 dealt, settled and racked; then the process is killed
    owed_back = sorted((a.seat, a.wager.value, a.amount) for p in round_.positions.values() for a in void(p))
    with AuditTrail(tmp_path / "audit", "T1") as trail, TableState(tmp_path / "state.db") as state:
        TableJournal(trail, state, table="T1", game="over-under").restore([Machine()])
        (cut,) = [r for r in read_records(trail.files()) if r.kind == "round_cut_off"]
    listed = sorted((w["seat"], w["wager"], w["amount"]) for w in cut.fields["wagers"])
    seats_3_and_4 = [(3, "ante", 1000), (3, "under_18", 1000), (4, "ante", 1000), (4, "over_23", 1000)]
    assert listed == owed_back == seats_3_and_4
