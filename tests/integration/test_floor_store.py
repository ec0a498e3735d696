"""The floor's store (floor.store) on SQLite and on a real PostgreSQL started here with
Debian's initdb and pg_ctl in a directory of its own: each message counted once by table and number,
a gap noticed and a rebirth asked, a spool begun afresh counted afresh, a stale death ignored, the
heads witnessed kept; the link controller's messages applied once and its hits ordered on both."""

from __future__ import annotations

import asyncio
import contextlib
import getpass
import json
import shutil
import sqlite3
import subprocess
import tempfile
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import aiomqtt
import pytest
import structlog

from croupier.config.floor_service import StoreConfig, load_floor_config
from croupier.config.linked import FloorLink, LinkedLevel
from croupier.errors import StartupError
from croupier.floor_link.payloads import now
from croupier.state import StateError
from floor.link_controller import LinkController
from floor.service import FloorService, floor_broker, stopped
from floor.store import FLOOR_FILE, SILENT_AFTER, Store, Unfit
from tests import debian
from tests.integration.floor_broker import SPOOL, UNIT, amqtt_broker, birth_body, counters_body, free_port

pytestmark = pytest.mark.timeout(60)
POSTGRES = sorted(Path("/usr/lib/postgresql").glob("*/bin"))


@dataclass(frozen=True)
class Postgres:
    """A PostgreSQL the test started: its connection URL, and how to restart it under the store."""

    url: str
    pg_ctl: list[object]  # pg_ctl on its data directory, as the cluster's owner
    log: Path

    def restart(self) -> None:
        """A fast restart: every connection is ended, as a database restarted by its operator."""
        subprocess.run([*self.pg_ctl, "-m", "fast", "-l", self.log, "-w", "restart"], check=True,
                       capture_output=True)  # fmt: skip


@pytest.fixture(scope="module")
def postgres_server() -> Iterator[Postgres]:
    """A PostgreSQL of its own on a free loopback port. Run as root (CI), the cluster belongs to
    ``nobody`` (initdb refuses root), in a directory outside pytest's own, which only root may
    enter."""
    if not POSTGRES or shutil.which("pg_ctl", path=str(POSTGRES[-1])) is None:
        debian.missing("postgresql", "PostgreSQL is not installed")
    pytest.importorskip("psycopg", reason="psycopg is not installed: pip install -e '.[test,floor]'")
    bin_, data = POSTGRES[-1], Path(tempfile.mkdtemp(prefix="croupier-postgres-"))
    user, port = "floor", free_port()
    run_as = [] if getpass.getuser() != "root" else ["runuser", "-u", "nobody", "--"]
    pg_ctl = [*run_as, bin_ / "pg_ctl", "-D", data / "db"]
    options = f"-c listen_addresses=127.0.0.1 -c port={port} -c unix_socket_directories={data}"
    try:
        if run_as:
            shutil.chown(data, "nobody")
        subprocess.run([*run_as, bin_ / "initdb", "-D", data / "db", "-U", user, "-A", "trust"],
                       check=True, capture_output=True)  # fmt: skip
        subprocess.run([*pg_ctl, "-o", options, "-l", data / "log", "-w", "start"],
                       check=True, capture_output=True)  # fmt: skip
        yield Postgres(f"postgresql://{user}@127.0.0.1:{port}/postgres", pg_ctl, data / "log")
    finally:
        if (data / "db" / "postmaster.pid").exists():
            subprocess.run([*pg_ctl, "-m", "immediate", "stop"], capture_output=True)
        shutil.rmtree(data, ignore_errors=True)


@pytest.fixture(scope="module")
def postgres(postgres_server: Postgres) -> str:
    """The module's PostgreSQL's connection URL."""
    return postgres_server.url


#: The link controller's tables, dropped from the module's shared PostgreSQL after a test that made them.
LINK_TABLES = (
    "link_levels", "link_tables", "link_hits", "link_funded", "link_table_levels", "link_hit_voids",
    "link_refused", "link_hit_contributions", "link_funded_units", "link_published", "link_sent",
    "link_shown", "link_house", "link_released", "link_revisions", "link_spools",
)  # fmt: skip


@pytest.fixture(params=["sqlite", "postgresql"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Store]:
    url = request.getfixturevalue("postgres") if request.param == "postgresql" else None
    opened = Store(StoreConfig(url, tmp_path / "floor.sqlite3"))
    try:
        yield opened
    finally:
        if url is not None:  # the PostgreSQL is the module's: each test begins empty
            for table in ("floor_tables", "floor_heads"):
                opened.run(f"DELETE FROM {table}")
            for table in LINK_TABLES:
                opened.run(f"DROP TABLE IF EXISTS {table}")
        opened.close()


AFRESH = "b" * 32


def _round(seq: int, number: int) -> dict[str, object]:
    return {"table": "T1", "seq": seq, "at": "2099-01-01T00:00:00.000+00:00", "round": number,
            "outcome": "complete", "net_by_seat": {"1": 100}}  # fmt: skip


def test_each_message_is_counted_once_and_in_order_one_past_the_next_waits(store: Store):
    """Decisions 0035/0036: 5 before 4 is not counted, nor confirmed past 3 (the table keeps 4 and
    5), and the table is asked for a new birth; sent again in order, each is counted once."""
    store.birth("T1", birth_body(as_of=2))
    assert store.numbered("T1", "round", _round(3, 1)).counted
    assert not store.numbered("T1", "round", _round(3, 1)).counted, "a repeat is counted once"
    early = store.numbered("T1", "round", _round(5, 2))  # 4 not come yet
    assert (early.counted, early.rebirth, early.through) == (False, True, 3)
    assert store.tables()[0]["rounds"] == 1, "not applied either"
    for seq in (4, 5):
        counted = store.numbered("T1", "round", _round(seq, seq - 3))
        assert (counted.counted, counted.rebirth, counted.through) == (True, False, seq)
    [table] = store.tables()
    assert (table["rounds"], table["repeats"], table["gaps"], table["last_seq"]) == (2, 1, 0, 5)


def test_a_live_message_ahead_of_the_tables_resend_loses_nothing(store: Store):
    """The issue's case: a broker lost the floor's session, so 5 to 19 never came, and live 20
    comes before the table sends again from 5. 20 waits; the birth the floor asks for holds from 5
    (no gap); 5 to 20 then come in order, and the floor confirms through 20 only then."""
    store.birth("T1", birth_body(as_of=4))
    held = {"table": "T1", "at": "2026-12-01T23:41:48.000+00:00", "status": "held", "reason": "X",
            "dealer": "D1"}  # fmt: skip
    live = store.numbered("T1", "state", {**held, "seq": 20})
    assert (live.counted, live.rebirth, live.through) == (False, True, 4)
    assert store.tables()[0]["state"]["status"] == "open", "20 not applied while it waits"
    assert store.birth("T1", birth_body(as_of=20, held_from=5)).through == 4
    for seq in range(5, 21):
        assert store.numbered("T1", "state", {**held, "seq": seq}).through == seq
    [table] = store.tables()
    assert (table["last_seq"], table["gaps"], table["repeats"]) == (20, 0, 0)


def test_the_counters_a_table_sends_are_what_the_view_shows(store: Store):
    store.birth("T1", birth_body(as_of=2))
    assert store.tables()[0]["counters"]["rounds_per_hour"] == 0
    counters = {"table": "T1", "seq": 3, "at": "2099-01-01T00:00:00.000+00:00", **counters_body(3)}
    assert store.numbered("T1", "counters", counters).counted
    assert store.tables()[0]["counters"] == counters_body(3)


def test_history_before_the_birth_is_counted_but_does_not_change_the_state(store: Store):
    store.birth("T1", birth_body(as_of=1, held_from=1))
    at = "2026-12-01T23:41:48.000+00:00"
    held = {"table": "T1", "seq": 1, "at": at, "status": "held", "reason": "X", "dealer": "D1"}
    assert store.numbered("T1", "state", held).counted
    assert store.tables()[0]["state"]["status"] == "open", "the birth is newer"
    closed = {**held, "seq": 2, "status": "open", "reason": None, "dealer": "D2"}
    store.numbered("T1", "state", closed)
    assert store.tables()[0]["state"] == {"status": "open", "reason": None, "dealer": "D2"}


def test_a_spool_begun_afresh_is_counted_afresh(store: Store):
    store.birth("T1", birth_body(as_of=0))
    store.numbered("T1", "round", _round(1, 1))
    store.birth("T1", birth_body(as_of=0, spool=AFRESH, session=1))
    assert store.numbered("T1", "round", _round(1, 1)).counted, "number 1 of a new spool is new"


def test_a_table_goes_dark_on_its_current_sessions_death_only(store: Store):
    store.birth("T1", birth_body(as_of=0, session=2))
    assert not store.death("T1", {"table": "T1", "session": 1, "reason": "lost"}), "a stale death"
    assert store.tables()[0]["dark"] is None
    assert store.death("T1", {"table": "T1", "session": 2, "reason": "lost"})
    assert store.tables()[0]["dark"]["reason"] == "lost"
    store.birth("T1", birth_body(as_of=0, session=3))
    assert store.tables()[0]["dark"] is None, "born again, alive again"


def test_the_heads_heard_are_witnessed_the_first_hash_standing(store: Store):
    store.birth("T1", birth_body(as_of=0))
    head = {"table": "T1", "seq": 1, "at": "2026-12-01T23:41:49.000+00:00", "file": "T1-000002.jsonl",
            "record": 9, "hash": "d" * 64, "epoch": None}  # fmt: skip
    store.numbered("T1", "head", head)
    store.numbered("T1", "head", {**head, "seq": 2, "hash": "e" * 64})
    assert [(h.file, h.seq, h.hash) for h in store.heads("T1")] == [
        ("T1-000001.jsonl", 3, "c" * 64),
        ("T1-000002.jsonl", 9, "d" * 64),
    ]


def test_a_birth_holding_from_above_the_count_is_a_gap_and_a_first_birth_starts_the_count(store: Store):
    """Decisions 0035/0036: a gap is counted, not hidden. A reconnecting table's birth says its spool
    holds from 9, yet the floor counted to 3: 4 to 8 are gone for good, five gaps, and the count goes
    on from 8. A floor that first hears a table at a birth holding from 490 counts from there: the
    table's past, which nobody will send again, is not a gap."""
    store.birth("T1", birth_body(as_of=0))
    for seq in (1, 2, 3):
        store.numbered("T1", "round", _round(seq, seq))
    gone = store.birth("T1", birth_body(as_of=12, held_from=9))
    assert (gone.counted, gone.through) == (True, 8)
    assert not store.numbered("T1", "round", _round(9, 9)).rebirth
    first = store.birth("T2", birth_body(500, table="T2", held_from=490))
    assert (first.counted, first.through) == (True, 489)
    assert store.numbered("T2", "round", {**_round(490, 1), "table": "T2"}).counted
    assert [(t["table"], t["gaps"], t["last_seq"]) for t in store.tables()] == [("T1", 5, 9), ("T2", 0, 490)]
    assert not store.numbered("T3", "round", {**_round(1, 1), "table": "T3"}).counted  # before its birth
    assert [t["counted_from"] for t in store.tables()] == [1, 490, None], "a gap is not where counting began"
    assert [store.counted_from(name) for name in ("T2", "T3", "T4")] == [490, None, None]


def test_a_birth_older_than_what_another_floor_service_counted_leaves_the_state(store: Store):
    """Two floor services on one database: one counts 1 to 5 after a birth as of 0; the other then
    takes a late birth as of 2 (delivered to it late): the state, the count and the session stay as
    the newer messages left them, and 6 is counted, not dropped as a repeat."""
    other = Store(StoreConfig(store.where if store.postgres else None, Path(store.where)))
    try:
        store.birth("T1", birth_body(as_of=0))
        held = {"table": "T1", "at": "2026-12-01T23:41:48.000+00:00", "status": "held", "reason": "X",
                "dealer": "D1"}  # fmt: skip
        for seq in range(1, 6):
            store.numbered("T1", "state", {**held, "seq": seq})
        other.birth("T1", birth_body(as_of=2, session=7))
        [table] = store.tables()
        assert (table["last_seq"], table["state"]["status"]) == (5, "held")
        assert store.numbered("T1", "round", _round(6, 1)).counted
        assert not store.death("T1", {"table": "T1", "session": 7, "reason": "lost"}), (
            "the stale birth's session"
        )
    finally:
        other.close()


def test_a_head_before_any_birth_is_witnessed_and_counted_after_the_birth(store: Store):
    """A message before any birth is witnessed (a head) and shown, but not counted: the birth the
    floor asks for says where the count starts, and the table sends it again after."""
    head = {"table": "T1", "seq": 4, "at": "2026-12-01T23:41:49.000+00:00", "file": "T1-000002.jsonl",
            "record": 9, "hash": "d" * 64, "epoch": None}  # fmt: skip
    early = store.numbered("T1", "head", head)
    assert (early.counted, early.rebirth, early.spool) == (False, True, None)
    assert [h.seq for h in store.heads("T1")] == [9]
    assert store.tables()[0]["last_seq"] == 0
    assert store.birth("T1", birth_body(as_of=4, held_from=4)).through == 3
    assert store.numbered("T1", "head", head).counted, "4, sent again after the birth"
    assert [(t["last_seq"], t["gaps"]) for t in store.tables()] == [(4, 0)]


def test_a_value_the_database_cannot_take_is_unfit_and_malformed_ones_are_counted(store: Store):
    store.birth("T1", birth_body(as_of=0))
    with pytest.raises(Unfit):
        store.numbered("T1", "round", _round(2**70, 1))
    store.malformed("T1")
    store.malformed("T9")
    assert [(t["table"], t["malformed"], t["last_seq"]) for t in store.tables()] == [
        ("T1", 1, 0),
        ("T9", 1, 0),
    ]


def test_a_table_not_heard_for_longer_than_its_counters_come_is_silent_not_dark(store: Store):
    store.birth("T1", birth_body(0))
    store.birth("T2", birth_body(0, table="T2"))
    store.death("T2", {"table": "T2", "session": 1, "reason": "lost"})
    assert [t["silent"] for t in store.tables()] == [False, False]
    long_ago = (datetime.now(UTC) - timedelta(seconds=SILENT_AFTER + 1)).isoformat(timespec="milliseconds")
    store.run("UPDATE floor_tables SET heard_at = ?", (long_ago,))
    assert [(t["table"], t["silent"], t["dark"] is not None) for t in store.tables()] == [
        ("T1", True, False),
        ("T2", False, True),
    ], "a dark table is dark, not silent"


def test_a_version_1_store_gets_the_columns_version_2_added(tmp_path: Path):
    path = tmp_path / "floor.sqlite3"
    Store(StoreConfig(None, path)).close()
    with contextlib.closing(sqlite3.connect(path, isolation_level=None)) as db:
        db.execute("ALTER TABLE floor_tables DROP COLUMN malformed")
        db.execute("ALTER TABLE floor_tables DROP COLUMN counted_from")
        db.execute("PRAGMA user_version = 1")
    store = Store(StoreConfig(None, path))
    try:
        store.malformed("T1")
        assert store.tables()[0]["malformed"] == 1
    finally:
        store.close()


def test_the_link_controller_applies_each_message_once_and_orders_the_hits(store):
    link = FloorLink("c4p", ("T1", "T2"), {1: LinkedLevel(1000, 50_000, 5_000_000)}, 2.0)
    controller = LinkController({"c4p": link}, store, "main")

    def sent(table: str, number: int, event: str, **fields: object) -> str | None:
        body = {"link": "c4p", "spool": SPOOL, "number": number, "event": event, **_unit(event), **fields}
        return controller.heard(table, body)

    assert sent("T1", 1, "contribution", round=1, wagered_cents=5000, levels=[1]) == "c4p"
    assert sent("T1", 1, "contribution", round=1, wagered_cents=5000, levels=[1]) is None
    sent("T2", 1, "contribution", round=9, wagered_cents=1, levels=[1])
    sent("T2", 2, "hit", level=1, seat=3, round=9)
    sent("T1", 2, "hit", level=1, seat=1, round=2)
    level = controller.state_for("c4p", "T1")["levels"][0]
    assert [(hit["table"], hit["amount_cents"]) for hit in level["hits"]] == [("T2", 50_500), ("T1", 50_000)]
    sent("T1", 3, "reset", level=1)
    sent("T2", 3, "reset", level=1)
    assert controller.state_for("c4p", "T2")["levels"][0]["locked"] is False


def test_a_voided_round_and_its_hit_come_out_of_the_link_once(store):
    """At 10%: T2's hit froze 50,500 (500.4 cents accrued, 0.4 carried) and T1's, after it, 50,001
    (0.4 + 0.7). T2's round 9 voided: its hit leaves the order, the 500 cents it froze above the
    reset come back, its 0.1-cent contribution is withdrawn, to the ten-thousandth of a cent; T1's
    hit stands and still locks the level. Paid above the reset plus the pot is what stood: 501.0."""
    link = FloorLink("c4p", ("T1", "T2"), {1: LinkedLevel(1000, 50_000, 5_000_000)}, 2.0)
    controller = LinkController({"c4p": link}, store, "main")

    def sent(table: str, number: int, event: str, **fields: object) -> str | None:
        body = {"link": "c4p", "spool": SPOOL, "number": number, "event": event, **_unit(event), **fields}
        return controller.heard(table, body)

    sent("T1", 1, "contribution", round=1, wagered_cents=5003, levels=[1])
    sent("T2", 1, "contribution", round=9, wagered_cents=1, levels=[1])
    sent("T2", 2, "hit", level=1, seat=3, round=9)
    sent("T1", 2, "contribution", round=2, wagered_cents=7, levels=[1])
    sent("T1", 3, "hit", level=1, seat=1, round=2)
    assert sent("T2", 3, "void", round=9, wagered_cents=1) == "c4p"
    assert sent("T2", 3, "void", round=9, wagered_cents=1) is None
    level = controller.state_for("c4p", "T1")["levels"][0]
    assert [(hit["table"], hit["amount_cents"]) for hit in level["hits"]] == [("T1", 50_001)]
    accrued = store.run("SELECT in_cents * rate_bp + carry FROM link_levels WHERE link = 'c4p'").fetchone()[0]
    assert accrued == (5003 + 7) * 1000 - 1 * 10_000  # all that stood, less the cent T1's hit paid
    assert level["value_cents"] == 50_500 and level["locked"]
    assert controller.state_for("c4p", "T2")["applied"]["contributions"] == 0


def test_a_hit_after_a_void_lowered_the_pot_pays_what_was_published_the_house_bearing_it(store):
    """Decision 0044 as amended, on both databases: at 10%, every sign told 50,600; T2's round is
    voided (the pot 50,100) before T1's hit, sent before T1 heard of it, is applied: the hit pays
    50,600, the house bears 500 (kept by the hit's order), the level restarts owing nothing; T1's
    round voided in turn gives back only the 100 the pot paid, and T1's 100 comes out with it."""
    link = FloorLink("c4p", ("T1", "T2"), {1: LinkedLevel(1000, 50_000, 5_000_000)}, 2.0)
    controller = LinkController({"c4p": link}, store, "main")
    sent = _linked(controller)
    sent(1, "contribution", round=1, wagered_cents=1000)
    controller.heard("T2", {"link": "c4p", "spool": SPOOL, "number": 1, "event": "contribution", "round": 4,
                            "wagered_cents": 5000, "levels": [1], "controller": UNIT})  # fmt: skip
    controller.acknowledged(controller.publication("c4p", "floor-1"))
    controller.heard("T2", {"link": "c4p", "spool": SPOOL, "number": 2, "event": "void", "round": 4,
                            "wagered_cents": 5000, "controller": UNIT})  # fmt: skip
    assert controller.state_for("c4p", "T1")["levels"][0]["value_cents"] == 50_600, "no sign goes down"
    controller.acknowledged(controller.publication("c4p", "floor-1"))
    sent(2, "hit", level=1, seat=1, round=1)
    assert [hit["amount_cents"] for hit in controller.state_for("c4p", "T1")["levels"][0]["hits"]] == [50_600]
    assert store.run("SELECT ord, cents FROM link_house").fetchall() == [(1, 500)]
    accrued = "SELECT in_cents * rate_bp + carry FROM link_levels WHERE link = 'c4p'"
    assert store.run(accrued).fetchone()[0] == 0, "the pot's 100 paid, nothing owed"
    sent(3, "void", round=1, wagered_cents=1000)
    assert store.run(accrued).fetchone()[0] == 0, "the pot's 100 back, T1's 100 out"
    assert controller.state_for("c4p", "T1")["levels"][0]["value_cents"] == 50_000

def _linked(controller: LinkController) -> Callable[..., str | None]:
    """What table T1 sends its link controller, numbered as the test says."""

    def sent(number: int, event: str, **fields: object) -> str | None:
        levels = {"levels": [1]} if event == "contribution" else {}
        return controller.heard("T1", {"link": "c4p", "spool": SPOOL, "number": number, "event": event,
                                       **levels, **_unit(event), **fields})  # fmt: skip

    return sent


def _unit(event: str) -> dict[str, object]:
    """The controller unit a contribution, hit or void names (its round's)."""
    return {} if event == "reset" else {"controller": UNIT}


def test_a_void_of_a_hit_above_2147_dollars_over_its_reset_is_applied(store):
    """At 5 %, $60,000 wagered hits a level at $3,000 above its reset: the void gives those back to
    ``carry`` in ten-thousandths of a cent (3e9, beyond 32 bits) and withdraws the contribution, in
    one transaction; round 1's hit stands. PostgreSQL's 32-bit INTEGER could not keep the 3e9, and
    the void (and every message of the table after it) was never applied there (review of issue 16)."""
    link = FloorLink("c4p", ("T1",), {1: LinkedLevel(500, 100_000, 25_000_000)}, 2.0)
    controller = LinkController({"c4p": link}, store, "main")
    sent = _linked(controller)
    sent(1, "contribution", round=1, count=1, wagered_cents=600_000)
    sent(2, "hit", level=1, seat=3, round=1)
    sent(3, "contribution", round=2, count=1, wagered_cents=6_000_000)
    sent(4, "hit", level=1, seat=3, round=2)
    assert sent(5, "void", round=2, wagered_cents=6_000_000) == "c4p"
    state = controller.state_for("c4p", "T1")
    (level,) = state["levels"]
    assert [(hit["round"], hit["amount_cents"]) for hit in level["hits"]] == [(1, 130_000)]
    assert (level["value_cents"], level["locked"]) == (100_000, True)
    assert state["applied"] == {"spool": SPOOL, "number": 5, "contributions": 1, "wagered_cents": 600_000}


def test_a_hit_leaving_an_overflow_above_2147_dollars_is_applied(store):
    """A level at its limit ($1,500) keeps accruing into its overflow ($2,500 of $60,000 at 5 %); the
    hit pays the limit and carries the overflow over, in ten-thousandths of a cent (2.5e9): kept on
    both databases, the level locked for the hit and restarted with the overflow."""
    link = FloorLink("c4p", ("T1",), {1: LinkedLevel(500, 100_000, 150_000)}, 2.0)
    controller = LinkController({"c4p": link}, store, "main")
    sent = _linked(controller)
    sent(1, "contribution", round=1, count=1, wagered_cents=6_000_000)
    assert sent(2, "hit", level=1, seat=3, round=1) == "c4p"
    (level,) = controller.state_for("c4p", "T1")["levels"]
    assert [hit["amount_cents"] for hit in level["hits"]] == [150_000]
    assert (level["value_cents"], level["overflow_cents"], level["locked"]) == (150_000, 200_000, True)


def test_a_link_message_whose_result_the_store_cannot_keep_is_refused_for_its_table_alone(store):
    """A number in the message beyond 64 bits is the table's malformed message (Unfit). A contribution
    well formed whose numbers fit (2**61 cents) but which would take the level's accrual past 64 bits
    (at 50 %) is refused for that table: nothing of it applied (applied, every later hit on the level,
    at any table, would be a carry the store cannot keep), its number counted so its next message
    applies, its counts short (LINK_MISMATCH at that table). Another table's round and hit on the
    same level apply (review of issue 16)."""
    link = FloorLink("c4p", ("T1", "T2"), {1: LinkedLevel(5000, 100_000, 150_000)}, 2.0)
    controller = LinkController({"c4p": link}, store, "main")
    sent = _linked(controller)
    with pytest.raises(Unfit):
        sent(1, "contribution", round=1, count=1, wagered_cents=2**63)
    assert sent(1, "contribution", round=1, count=1, wagered_cents=2**61) == "c4p"
    assert sent(1, "contribution", round=1, count=1, wagered_cents=2**61) is None, "a repeat counts once"
    applied = controller.state_for("c4p", "T1")["applied"]
    assert (applied["number"], applied["contributions"], applied["wagered_cents"]) == (1, 0, 0)
    t2 = {"link": "c4p", "spool": "b" * 32, "controller": UNIT}
    controller.heard("T2", {**t2, "number": 1, "event": "contribution", "round": 7, "count": 1,
                            "wagered_cents": 500, "levels": [1]})  # fmt: skip
    controller.heard("T2", {**t2, "number": 2, "event": "hit", "level": 1, "seat": 2, "round": 7})
    state = controller.state_for("c4p", "T2")
    (level,) = state["levels"]
    assert not state["refused"] and level["locked"] and [hit["table"] for hit in level["hits"]] == ["T2"]
    assert level["hits"][0]["amount_cents"] == 100_250, "the reset value and 50 % of T2's 500 cents"


def test_a_level_stops_at_the_lowest_limit_a_linked_tables_controller_published(store):
    """Decision 0050 on both databases: T2's birth says its controller holds at most 60,000 cents on
    level 1, below the link's 5,000,000: the level stops there, the rest its overflow, and the view
    names T2."""
    link = FloorLink("c4p", ("T1", "T2"), {1: LinkedLevel(1000, 50_000, 5_000_000)}, 2.0)
    controller = LinkController({"c4p": link}, store, "main")
    _linked(controller)(1, "contribution", round=1, count=1, wagered_cents=200_000)  # +20,000 cents
    meters = [{"level": 1, "value_cents": 50_000, "limit_cents": 60_000, "in_cents": 0, "hits": 0,
               "wins_cents": 0, "frozen": False}]  # fmt: skip
    store.birth("T2", {**birth_body(0, table="T2"), "meters": meters})
    (level,) = controller.state_for("c4p", "T1")["levels"]
    assert (level["limit_cents"], level["value_cents"], level["overflow_cents"]) == (60_000, 60_000, 10_000)
    assert [(shown["table"], shown["table_limit_cents"]) for shown in controller.view()[0]["limits"]] == [
        ("T2", 60_000)
    ]


def test_a_postgresql_store_of_schema_2_gets_its_numbers_made_64_bit(postgres: str, tmp_path: Path):
    """Schema version 2 kept PostgreSQL's 32-bit INTEGER: a store it wrote, the link controller's
    tables among it, is made BIGINT throughout when this Croupier opens it (schema version 3), and a
    hit carrying more than $2,147.48 then applies."""
    import psycopg  # the fixture skipped the test where it is not installed

    store = Store(StoreConfig(postgres, tmp_path / "unused"))
    link = FloorLink("c4p", ("T1",), {1: LinkedLevel(500, 100_000, 150_000)}, 2.0)
    LinkController({"c4p": link}, store, "main")
    store.close()
    integers = (
        "SELECT table_name, column_name FROM information_schema.columns WHERE data_type = %s "
        "AND table_schema = current_schema() AND table_name <> 'floor_schema' ORDER BY 1, 2"
    )
    with psycopg.connect(postgres, autocommit=True) as db:
        widened = db.execute(integers, ("bigint",)).fetchall()
        for table, column in widened:  # as schema 2 made them
            db.execute(f'ALTER TABLE "{table}" ALTER COLUMN "{column}" TYPE INTEGER')
        db.execute("DELETE FROM floor_schema")
        db.execute("INSERT INTO floor_schema VALUES (2)")
    assert ("link_levels", "carry") in widened and ("floor_tables", "last_seq") in widened
    store = Store(StoreConfig(postgres, tmp_path / "unused"))
    try:
        with psycopg.connect(postgres, autocommit=True) as db:
            assert db.execute(integers, ("integer",)).fetchall() == []
            assert db.execute(integers, ("bigint",)).fetchall() == widened
            version = db.execute("SELECT max(version) FROM floor_schema").fetchone()
        assert version == (FLOOR_FILE.schema_version,)
        sent = _linked(LinkController({"c4p": link}, store, "main"))
        sent(1, "contribution", round=1, count=1, wagered_cents=6_000_000)
        assert sent(2, "hit", level=1, seat=3, round=1) == "c4p"
    finally:
        for table in LINK_TABLES:
            store.run(f"DROP TABLE IF EXISTS {table}")
        store.close()


def test_a_postgresql_store_a_newer_croupier_wrote_is_refused(postgres: str, tmp_path: Path):
    """The schema's version is kept in the database (``floor_schema``), as a SQLite store keeps it
    in its file: a floor service of an older Croupier sharing the database refuses it."""
    import psycopg  # the fixture skipped the test where it is not installed

    Store(StoreConfig(postgres, tmp_path / "unused")).close()
    with psycopg.connect(postgres, autocommit=True) as db:
        db.execute("UPDATE floor_schema SET version = %s", (FLOOR_FILE.schema_version + 1,))
    newer = FLOOR_FILE.schema_version + 1
    try:
        with pytest.raises(StartupError, match=f"floor store schema {newer} was written by a newer Croupier"):
            Store(StoreConfig(postgres, tmp_path / "unused"))
    finally:
        with psycopg.connect(postgres, autocommit=True) as db:
            db.execute("UPDATE floor_schema SET version = %s", (FLOOR_FILE.schema_version,))


def test_a_postgresql_restarted_under_the_store_is_connected_again(postgres_server: Postgres, tmp_path: Path):
    """The server restarted (its operator, a fail-over): the statement that finds the connection
    gone fails as the store's StateError, never the driver's own error (the floor service takes the
    message again), and the store connects again at its next use, in a transaction or out of one."""
    store = Store(StoreConfig(postgres_server.url, tmp_path / "unused.sqlite3"))
    try:
        store.birth("T1", birth_body(as_of=2))
        for read in (store.tables, lambda: store.birth("T1", birth_body(as_of=3))):
            postgres_server.restart()
            with contextlib.suppress(StateError):  # the statement the server broke, if it noticed
                read()
            read()  # connected again
        assert [table["last_seq"] for table in store.tables()] == [3]
        with store.transaction():
            store.run("SELECT 1")
    finally:
        store.close()


def test_the_floor_service_hears_on_and_beats_the_link_after_postgresql_restarts(
    postgres_server: Postgres, tmp_path: Path
):
    """The link's heartbeat reads the store every ``heartbeat`` seconds: a PostgreSQL restarted
    under a running floor service fails that read (the store's StateError), which ends the broker
    connection (logged), and the service connects again and beats on with the store connected
    again: the tables never stop hearing the link for good while the service looks alive."""

    async def main() -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
        async with amqtt_broker() as port:
            text = (f'[embedded]\nbind = "127.0.0.1:{port}"\n[store]\nurl = "{postgres_server.url}"\n'
                    '[links.c4p]\ntables = ["T1"]\nheartbeat = 0.2\n[links.c4p.levels.1]\n'
                    "rate_bp = 5\nreset_cents = 1000\nlimit_cents = 9000\n")  # fmt: skip
            (tmp_path / "floor.toml").write_text(text)
            config = load_floor_config(tmp_path / "floor.toml")
            store = Store(config.store)
            links = LinkController(config.links, store, config.group)
            service = FloorService(config, floor_broker(config), store, links)
            hearing = asyncio.create_task(service.run())
            v311 = aiomqtt.ProtocolVersion.V311
            try:
                async with aiomqtt.Client("127.0.0.1", port, identifier="T1", protocol=v311) as table:
                    await table.subscribe("croupier/v1/dev/link/c4p/table/T1", qos=1)
                    states = aiter(table.messages)
                    await asyncio.wait_for(anext(states), 10)  # the link beats
                    with structlog.testing.capture_logs() as logged:
                        await asyncio.to_thread(postgres_server.restart)
                        restarted = now()
                        heard = []
                        async with asyncio.timeout(20):
                            while len(heard) < 3:  # beats since the restart
                                body = json.loads((await anext(states)).payload)  # type: ignore[arg-type]
                                if body["at"] > restarted:
                                    heard.append(body)
                    assert not hearing.done(), "the floor service stopped"
                    return heard, logged
            finally:
                await stopped(hearing)
                store.close()

    heard, logged = asyncio.run(main())
    assert [state["levels"][0]["value_cents"] for state in heard] == [1000] * 3
    failed = [entry["reason"] for entry in logged if entry["event"].startswith("floor store failed")]
    assert failed and all(reason.startswith(postgres_server.url) for reason in failed), logged
    assert "floor online" in [entry["event"] for entry in logged], "connected again"


def test_two_floor_services_publishing_one_link_at_once_both_keep_its_published_limits(postgres, tmp_path):
    """Decision 0050 on PostgreSQL, where several floor services of a property share one store: the
    limits a link publishes are kept a row a level, written over, and what each service sent is kept
    under the link's next revision (its row locked) until the broker acknowledges it or a later one,
    so two services publishing the same link at the same moment, even without the link's publication
    lock the floor service takes, both succeed (before, one's delete and insert met the other's rows:
    a duplicate key, and its broker connection ended). A SQLite store has one service."""
    link = FloorLink("shared", ("T1", "T2"), {1: LinkedLevel(1000, 50_000, 5_000_000)}, 2.0)

    def publish(opened: Store, service: int) -> None:  # a link of its own: the store may hold a c4p
        controller = LinkController({"shared": link}, opened, "main")
        for _ in range(200):
            controller.acknowledged(controller.publication("shared", f"floor-{service}"))

    errors = _at_once(postgres, tmp_path, publish)
    store = Store(StoreConfig(postgres, tmp_path / "floor.sqlite3"))
    try:
        assert not errors, repr(errors[0])
        published = store.run("SELECT level, limit_cents FROM link_published WHERE link = 'shared'")
        assert published.fetchall() == [(1, 5_000_000)]
        assert store.run("SELECT count(*) FROM link_sent").fetchone()[0] == 0, "every one acknowledged"
    finally:
        for table in LINK_TABLES:
            store.run(f"DROP TABLE IF EXISTS {table}")
        store.close()


def _at_once(postgres: str, tmp_path: Path, work: Callable[[Store, int], None]) -> list[BaseException]:
    """``work(store, n)`` run by two floor services' stores on the module's PostgreSQL at once, from
    one barrier; what failed in either, each service going on after a failure as floor.service
    takes the message again."""
    errors: list[BaseException] = []
    go = threading.Barrier(2)
    stores = [Store(StoreConfig(postgres, tmp_path / "unused")) for _ in range(2)]

    def serve(opened: Store, service: int) -> None:
        try:
            go.wait(10)
            work(opened, service)
        except Exception as exc:  # the failure is the test's to report, from its own thread
            errors.append(exc)

    threads = [threading.Thread(target=serve, args=(opened, n)) for n, opened in enumerate(stores)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(50)
    for opened in stores:
        opened.close()
    return errors


#: The tables two floor services hear at once, new to the store.
RACED = tuple(f"RACE-{n}" for n in range(300))


def test_two_floor_services_hearing_a_new_tables_birth_at_once_both_count_it(postgres, tmp_path):
    """docs/floor.md ("one transaction that locks the table's row"), on PostgreSQL shared by several
    floor services of a property: a table new to the store has no row to lock, so its row is made
    first (made once, whoever is first) and then locked: the second service's birth waits for the
    first's and is counted after it, never a duplicate key ending its broker connection."""
    failed: list[BaseException] = []

    def births(opened: Store, _service: int) -> None:
        for name in RACED:
            try:
                opened.birth(name, birth_body(as_of=0, table=name))
            except Exception as exc:  # one failure is not the last: floor.service takes it again
                failed.append(exc)

    try:
        errors = [*_at_once(postgres, tmp_path, births), *failed]
        assert not errors, f"{len(errors)} failed, the first: {errors[0]!r}"
    finally:
        cleanup = Store(StoreConfig(postgres, tmp_path / "unused"))
        cleanup.run("DELETE FROM floor_tables WHERE name LIKE ?", ("RACE-%",))
        cleanup.run("DELETE FROM floor_heads WHERE name LIKE ?", ("RACE-%",))
        cleanup.close()


def test_two_floor_services_applying_a_tables_first_link_message_at_once_both_succeed(postgres, tmp_path):
    """Decision 0039 on PostgreSQL shared by several floor services: the first message of a table's
    spool has no applied mark to lock, so the mark is made first (once) and then locked: each
    table's first contribution is applied once between the two services, and neither fails on a
    duplicate key."""
    link = FloorLink("race", RACED, {1: LinkedLevel(1000, 50_000, 5_000_000)}, 2.0)
    failed: list[BaseException] = []

    def first_contributions(opened: Store, _service: int) -> None:
        controller = LinkController({"race": link}, opened, "main")
        for name in RACED:
            try:
                controller.heard(name, {"link": "race", "spool": SPOOL, "number": 1, "event": "contribution",
                                        "round": 1, "wagered_cents": 100, "levels": [1], "controller": UNIT})
            except Exception as exc:  # one failure is not the last: floor.service takes it again
                failed.append(exc)

    try:
        errors = [*_at_once(postgres, tmp_path, first_contributions), *failed]
        check = Store(StoreConfig(postgres, tmp_path / "unused"))
        (in_cents,) = check.run("SELECT in_cents FROM link_levels WHERE link = ?", ("race",)).fetchone()
        check.close()
        assert in_cents == 100 * len(RACED), "each table's contribution applied once"
        assert not errors, f"{len(errors)} failed, the first: {errors[0]!r}"
    finally:
        cleanup = Store(StoreConfig(postgres, tmp_path / "unused"))
        for table in LINK_TABLES:
            cleanup.run(f"DROP TABLE IF EXISTS {table}")
        cleanup.close()


def test_two_floor_services_applying_hits_on_two_levels_at_once_order_them_all(postgres, tmp_path):
    """Decision 0039 on PostgreSQL shared by several floor services: the hits of a link are settled
    in the order the controller received them, numbered one after another; a hit at one table on
    one level and a hit at another on another level, applied at once by two services, each locking
    its own level only, both took the same next number: a duplicate key. Every hit of a link takes
    its number with the link's levels locked, in order."""
    levels = {1: LinkedLevel(1000, 50_000, 5_000_000), 2: LinkedLevel(1000, 50_000, 5_000_000)}
    link = FloorLink("race", ("RACE-A", "RACE-B"), levels, 2.0)
    hits = 150

    def hitting(opened: Store, service: int) -> None:
        controller = LinkController({"race": link}, opened, "main")
        table, level = (("RACE-A", 1), ("RACE-B", 2))[service]
        for number in range(2, hits + 2):
            controller.heard(table, {"link": "race", "spool": SPOOL, "number": number, "event": "hit",
                                     "level": level, "seat": 1, "round": 1, "controller": UNIT})  # fmt: skip

    made = Store(StoreConfig(postgres, tmp_path / "unused"))
    try:
        controller = LinkController({"race": link}, made, "main")
        for table, level in (("RACE-A", 1), ("RACE-B", 2)):
            controller.heard(table, {"link": "race", "spool": SPOOL, "number": 1, "event": "contribution",
                                     "round": 1, "wagered_cents": 100, "levels": [level], "controller": UNIT})
        errors = _at_once(postgres, tmp_path, hitting)
        assert not errors, f"{len(errors)} failed, the first: {errors[0]!r}"
        orders = [row[0] for row in made.run("SELECT ord FROM link_hits WHERE link = 'race' ORDER BY ord")]
        assert orders == list(range(1, 2 * hits + 1)), "every hit ordered, once"
    finally:
        for table in LINK_TABLES:
            made.run(f"DROP TABLE IF EXISTS {table}")
        made.close()


def test_two_floor_services_applying_two_spools_of_a_table_at_once_count_each_message(postgres, tmp_path):
    """Decision 0039 (its amendment) on PostgreSQL shared by several floor services: the order a
    table's spools were heard in is the count of its link messages applied (``link_spools``), each
    message the next; two services applying messages of the table's two spools at once (the old PC
    and the new during a swap: keyed resets, which lock no level) both read the same count, and two
    messages took one number, unless the table's spools are locked before the count is read."""
    link = FloorLink("race", ("RACE-A",), {1: LinkedLevel(1000, 50_000, 5_000_000)}, 2.0)
    resets = 150

    def resetting(opened: Store, service: int) -> None:
        controller = LinkController({"race": link}, opened, "main")
        for number in range(2, resets + 2):
            controller.heard("RACE-A", {"link": "race", "spool": f"spool-{service}", "number": number,
                                        "event": "reset", "level": 1})  # fmt: skip

    made = Store(StoreConfig(postgres, tmp_path / "unused"))
    try:
        controller = LinkController({"race": link}, made, "main")
        for spool in ("spool-0", "spool-1"):
            controller.heard("RACE-A", {"link": "race", "spool": spool, "number": 1, "event": "contribution",
                                        "round": 1, "wagered_cents": 100, "levels": [1], "controller": UNIT})
        errors = _at_once(postgres, tmp_path, resetting)
        assert not errors, f"{len(errors)} failed, the first: {errors[0]!r}"
        counted = made.run("SELECT max(last_heard) FROM link_spools WHERE link = 'race'").fetchone()[0]
        assert counted == 2 * (resets + 1), "each message counted once, one after another"
    finally:
        for table in LINK_TABLES:
            made.run(f"DROP TABLE IF EXISTS {table}")
        made.close()


def test_a_publication_beside_another_services_hits_keeps_each_value_in_its_own_cycle(postgres, tmp_path):
    """Decision 0044 as amended, on PostgreSQL shared by two floor services: the value a publication
    told is kept as shown in the level's cycle, and a hit pays at least it. One service publishes
    while the other applies rounds and hits, each round's wager smaller than the last: a value kept
    in the cycle after the one it was read in (a hit applied between the read and the keeping)
    would show there above anything wagered in it, and the next winner would be paid a past
    cycle's value by the house. The link's levels are locked while a publication reads and keeps."""
    link = FloorLink("race", ("RACE-A",), {1: LinkedLevel(1000, 50_000, 5_000_000)}, 2.0)
    rounds = 120

    def work(opened: Store, service: int) -> None:
        controller = LinkController({"race": link}, opened, "main")
        if service == 0:
            for _ in range(4 * rounds):
                controller.acknowledged(controller.publication("race", "floor-1"))
            return
        for n in range(rounds):
            wagered = (rounds - n) * 1000  # at 10%: (rounds - n) * 100 cents above the reset value
            controller.heard("RACE-A", {"link": "race", "spool": SPOOL, "number": 2 * n + 1, "round": n + 1,
                                        "event": "contribution", "wagered_cents": wagered, "levels": [1],
                                        "controller": UNIT})  # fmt: skip
            controller.heard("RACE-A", {"link": "race", "spool": SPOOL, "number": 2 * n + 2, "round": n + 1,
                                        "event": "hit", "level": 1, "seat": 1,
                                        "controller": UNIT})  # fmt: skip

    made = Store(StoreConfig(postgres, tmp_path / "unused"))
    try:
        LinkController({"race": link}, made, "main")
        errors = _at_once(postgres, tmp_path, work)
        assert not errors, f"{len(errors)} failed, the first: {errors[0]!r}"
        shown = made.run("SELECT cycle, value_cents FROM link_shown WHERE link = 'race' AND cycle > 0")
        kept = shown.fetchall()
        beyond = [(cycle, value) for cycle, value in kept if value > 50_000 + (rounds - cycle) * 100]
        assert not beyond, f"values kept in a later cycle than they were read in: {beyond[:3]}"
        assert made.run("SELECT count(*) FROM link_house").fetchone()[0] == 0, "the house paid nothing"
    finally:
        for table in LINK_TABLES:
            made.run(f"DROP TABLE IF EXISTS {table}")
        made.close()
