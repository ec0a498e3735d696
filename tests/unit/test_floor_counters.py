"""The table's counters for the floor (croupier.floor_link.counters; docs/floor.md ``counters``):
counted from the table's records, rounds' ends and fault latches, the pace over the last hour, and
the totals kept in the spool so that a restart goes on from them."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType

from croupier.floor_link import Spool
from croupier.floor_link.counters import HOUR, Counters
from croupier.tables.events import RoundEnded
from games.common.records import Record, RecordKind
from games.crazy_4_poker.records import RecordKind as Crazy4PokerKind


@dataclass(frozen=True)
class Ended:
    number: int
    positions: Mapping[int, object]
    state: str = "complete"

    def net(self, seat: int) -> int:
        return 0


def _record(kind: object, **fields: object) -> Record:
    return Record(1, 1, kind, MappingProxyType(fields))  # type: ignore[arg-type]


def test_each_count_is_taken_from_what_the_table_publishes():
    counters = Counters({}, started=0.0)
    counters.heard(RoundEnded(Ended(1, {1: None, 2: None, 5: None})), 10.0)
    counters.heard(RoundEnded(Ended(2, {3: None})), 20.0)
    counters.heard(_record(RecordKind.STATE, source="dealing", dest="held"), 21.0)
    counters.heard(_record(RecordKind.STATE, source="held", dest="voided"), 22.0)
    counters.heard(_record(RecordKind.STATE, source="betting", dest="dealing"), 23.0)
    counters.heard(_record(Crazy4PokerKind.PROGRESSIVE_LOCKED, accepted=3, clause="657a.9(a)(3)"), 24.0)
    counters.heard(_record(Crazy4PokerKind.PROGRESSIVE_LOCKED, accepted=2, clause="657a.9(a)(3)"), 25.0)
    counters.latched("shoe", "JAM")
    counters.unspooled()
    assert counters.body(2, 30.0) == {
        "rounds": 2, "rounds_per_hour": 120, "hands": 4, "faults_latched": 1, "held_rounds": 1,
        "voided_rounds": 1, "progressive_wagers": 5, "unspooled": 1,
    }  # fmt: skip


def test_the_pace_is_the_last_hours_scaled_while_the_table_has_run_less():
    counters = Counters({}, started=1000.0)
    paces = []
    for minute in range(30):  # a round a minute for half an hour
        counters.heard(RoundEnded(Ended(minute + 1, {1: None})), 1000.0 + 60 * minute + 30)
        paces.append(counters.per_hour(1000.0 + 60 * minute + 30))
    assert paces[0] == 60  # one round in the first minute: 60 an hour, not 120 for half a minute
    assert paces[-1] == 61  # thirty in 29.5 minutes
    assert counters.per_hour(1000.0 + HOUR) == 30  # thirty in the hour
    assert counters.per_hour(1000.0 + HOUR + 1800) == 0  # none in the last hour


def test_the_totals_survive_a_restart_in_the_spool(tmp_path):
    path = tmp_path / "spool.sqlite3"
    spool = Spool(path)
    try:
        counters = Counters(spool.totals(), started=0.0)
        counters.heard(RoundEnded(Ended(1, {1: None, 2: None})), 1.0)
        counters.latched("shoe", "JAM")
        spool.append("t/counters", lambda seq: {"seq": seq}, counters.kept())
    finally:
        spool.close()
    again = Spool(path)
    try:
        restarted = Counters(again.totals(), started=100.0)
    finally:
        again.close()
    assert restarted.totals == {
        "hands": 2, "faults_latched": 1, "held_rounds": 0, "voided_rounds": 0, "progressive_wagers": 0,
        "unspooled": 0,
    }  # fmt: skip


def test_a_fault_latched_as_the_table_started_is_counted_once_and_one_restored_is_not_again(tmp_path):
    """ROUND_CUT_OFF latches as the table starts, before the link hears the latches: counted when the
    link starts. Restored at the next start, still latched, it is not counted again; cleared, then
    latched as another start cuts a round off, it is."""
    path = tmp_path / "spool.sqlite3"

    def started(latched: list[tuple[str, str]], then: str | None = None) -> int:
        spool = Spool(path)
        try:
            counters = Counters(spool.totals(), started=0.0)
            counters.found(latched)
            if then is not None:  # the supervisor clears it
                counters.released(*latched[0])
            spool.append("t/counters", lambda seq: {"seq": seq}, counters.kept())
            return counters.totals["faults_latched"]
        finally:
            spool.close()

    cut_off = [("shoe", "ROUND_CUT_OFF")]
    assert started(cut_off) == 1, "a fault latched as the table started is not counted"
    assert started(cut_off, then="cleared") == 1, "a fault restored from before the restart counted again"
    assert started(cut_off) == 2
    assert started([]) == 2
