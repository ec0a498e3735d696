"""The floor's store (floor.store) on SQLite and on a real PostgreSQL started here with
Debian's initdb and pg_ctl in a directory of its own: each message counted once by table and number,
a gap noticed and a rebirth asked, a spool begun afresh counted afresh, a stale death ignored, the
heads witnessed kept; the link controller's messages applied once and its hits ordered on both."""

from __future__ import annotations

import getpass
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from croupier.config.floor_service import StoreConfig
from croupier.config.linked import FloorLink, LinkedLevel
from croupier.errors import StartupError
from floor.link_controller import LinkController
from floor.store import Store
from tests import debian
from tests.integration.floor_broker import free_port

pytestmark = pytest.mark.timeout(60)
POSTGRES = sorted(Path("/usr/lib/postgresql").glob("*/bin"))


@pytest.fixture(scope="module")
def postgres() -> Iterator[str]:
    """A PostgreSQL of its own on a free loopback port; its connection URL. Run as root (CI), the
    cluster belongs to ``nobody`` (initdb refuses root), in a directory outside pytest's own, which
    only root may enter."""
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
        yield f"postgresql://{user}@127.0.0.1:{port}/postgres"
    finally:
        if (data / "db" / "postmaster.pid").exists():
            subprocess.run([*pg_ctl, "-m", "immediate", "stop"], capture_output=True)
        shutil.rmtree(data, ignore_errors=True)


@pytest.fixture(params=["sqlite", "postgresql"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Store]:
    url = request.getfixturevalue("postgres") if request.param == "postgresql" else None
    opened = Store(StoreConfig(url, tmp_path / "floor.sqlite3"))
    try:
        yield opened
    finally:
        if url is not None:  # the PostgreSQL is the module's: each test begins empty
            for table in ("floor_tables", "floor_rounds", "floor_heads"):
                opened.run(f"DELETE FROM {table}")
            for table in ("link_levels", "link_tables", "link_hits"):  # made by a link controller
                opened.run(f"DROP TABLE IF EXISTS {table}")
        opened.close()


SPOOL, AFRESH = "a" * 32, "b" * 32


def _birth(as_of: int, spool: str = SPOOL, session: int = 1) -> dict[str, object]:
    return {
        "table": "T1", "session": session, "spool": spool, "as_of_seq": as_of,
        "at": "2026-12-01T23:41:48.220+00:00", "game": "free-bet-blackjack", "rounds": 0,
        "state": {"status": "open", "reason": None, "dealer": "D1"}, "faults": [],
        "links": {"shoe": {"state": "ready", "last_error": None}}, "meters": None, "wagers_locked": None,
        "counters": _counters(0),
        "head": {"file": "T1-000001.jsonl", "record": 3, "hash": "c" * 64, "epoch": None},
    }  # fmt: skip


def _counters(rounds: int) -> dict[str, int]:
    return {"rounds": rounds, "rounds_per_hour": 60 * rounds, "hands": 2 * rounds, "faults_latched": 0,
            "held_rounds": 0, "voided_rounds": 0, "progressive_wagers": 0}  # fmt: skip


def _round(seq: int, number: int) -> dict[str, object]:
    return {"table": "T1", "seq": seq, "at": "2099-01-01T00:00:00.000+00:00", "round": number,
            "outcome": "complete", "net_by_seat": {"1": 100}}  # fmt: skip


def test_each_message_is_counted_once_and_a_gap_asks_for_a_rebirth(store: Store):
    store.birth("T1", _birth(as_of=2))
    assert store.numbered("T1", "round", _round(3, 1)).counted
    assert not store.numbered("T1", "round", _round(3, 1)).counted, "a repeat is counted once"
    counted = store.numbered("T1", "round", _round(5, 2))  # 4 never came
    assert counted.counted and counted.rebirth
    assert not store.numbered("T1", "round", _round(6, 3)).rebirth
    [table] = store.tables()
    assert (table["rounds"], table["repeats"], table["gaps"], table["last_seq"]) == (3, 1, 1, 6)


def test_the_counters_a_table_sends_are_what_the_view_shows(store: Store):
    store.birth("T1", _birth(as_of=2))
    assert store.tables()[0]["counters"]["rounds_per_hour"] == 0
    counters = {"table": "T1", "seq": 3, "at": "2099-01-01T00:00:00.000+00:00", **_counters(3)}
    assert store.numbered("T1", "counters", counters).counted
    assert store.tables()[0]["counters"] == _counters(3)


def test_history_before_the_birth_is_counted_but_does_not_change_the_state(store: Store):
    store.birth("T1", _birth(as_of=3))
    at = "2026-12-01T23:41:48.000+00:00"
    held = {"table": "T1", "seq": 1, "at": at, "status": "held", "reason": "X", "dealer": "D1"}
    assert not store.numbered("T1", "state", held).rebirth
    assert store.tables()[0]["state"]["status"] == "open", "the birth is newer"
    closed = {**held, "seq": 4, "status": "open", "reason": None, "dealer": "D2"}
    store.numbered("T1", "state", closed)
    assert store.tables()[0]["state"] == {"status": "open", "reason": None, "dealer": "D2"}


def test_a_spool_begun_afresh_is_counted_afresh(store: Store):
    store.birth("T1", _birth(as_of=0))
    store.numbered("T1", "round", _round(1, 1))
    store.birth("T1", _birth(as_of=0, spool=AFRESH, session=1))
    assert store.numbered("T1", "round", _round(1, 1)).counted, "number 1 of a new spool is new"


def test_a_table_goes_dark_on_its_current_sessions_death_only(store: Store):
    store.birth("T1", _birth(as_of=0, session=2))
    assert not store.death("T1", {"table": "T1", "session": 1, "reason": "lost"}), "a stale death"
    assert store.tables()[0]["dark"] is None
    assert store.death("T1", {"table": "T1", "session": 2, "reason": "lost"})
    assert store.tables()[0]["dark"]["reason"] == "lost"
    store.birth("T1", _birth(as_of=0, session=3))
    assert store.tables()[0]["dark"] is None, "born again, alive again"


def test_the_heads_heard_are_witnessed_the_first_hash_standing(store: Store):
    store.birth("T1", _birth(as_of=0))
    head = {"table": "T1", "seq": 1, "at": "2026-12-01T23:41:49.000+00:00", "file": "T1-000002.jsonl",
            "record": 9, "hash": "d" * 64, "epoch": None}  # fmt: skip
    store.numbered("T1", "head", head)
    store.numbered("T1", "head", {**head, "seq": 2, "hash": "e" * 64})
    assert [(h.file, h.seq, h.hash) for h in store.heads("T1")] == [
        ("T1-000001.jsonl", 3, "c" * 64),
        ("T1-000002.jsonl", 9, "d" * 64),
    ]


def test_the_link_controller_applies_each_message_once_and_orders_the_hits(store):
    link = FloorLink("c4p", ("T1", "T2"), {1: LinkedLevel(1000, 50_000)}, 2.0)
    controller = LinkController({"c4p": link}, store, "main")

    def sent(table: str, number: int, event: str, **fields: object) -> str | None:
        body = {"link": "c4p", "spool": SPOOL, "number": number, "event": event, **fields}
        return controller.heard(table, body)

    assert sent("T1", 1, "contribution", round=1, wagered_cents=5000) == "c4p"
    assert sent("T1", 1, "contribution", round=1, wagered_cents=5000) is None
    sent("T2", 1, "hit", level=1, seat=3, round=9)
    sent("T1", 2, "hit", level=1, seat=1, round=2)
    level = controller.state_for("c4p", "T1")["levels"][0]
    assert [(hit["table"], hit["amount_cents"]) for hit in level["hits"]] == [("T2", 50_500), ("T1", 50_000)]
    sent("T1", 3, "reset", level=1)
    sent("T2", 2, "reset", level=1)
    assert controller.state_for("c4p", "T2")["levels"][0]["locked"] is False


def test_a_postgresql_store_a_newer_croupier_wrote_is_refused(postgres: str, tmp_path: Path):
    """The schema's version is kept in the database (``floor_schema``), as a SQLite store keeps it
    in its file: a floor service of an older Croupier sharing the database refuses it."""
    import psycopg  # the fixture skipped the test where it is not installed

    Store(StoreConfig(postgres, tmp_path / "unused")).close()
    with psycopg.connect(postgres, autocommit=True) as db:
        db.execute("UPDATE floor_schema SET version = 2")
    try:
        with pytest.raises(StartupError, match="floor store schema 2 was written by a newer Croupier"):
            Store(StoreConfig(postgres, tmp_path / "unused"))
    finally:
        with psycopg.connect(postgres, autocommit=True) as db:
            db.execute("UPDATE floor_schema SET version = 1")
