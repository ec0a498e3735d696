"""croupier.state.TableState: what is saved is there after reopening, a kill -9 or a crash.

The kill test runs a real child process and SIGKILLs it mid-way through its writes: every write it
reported done (printed only after the method returned) must be in the file.
"""

from __future__ import annotations

import json
import signal
import sqlite3
import subprocess
import sys
import threading
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from croupier.state import (
    IDEMPOTENCY_KEPT,
    SCHEMA_VERSION,
    KeptResponse,
    RoundInProgress,
    StateError,
    TableState,
)
from devices.faults import Fault, FaultLatch
from drivers.protocol.core import DeviceClass, Identity
from tests import full_disk

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def db(tmp_path: Path) -> Path:
    return tmp_path / "state.sqlite3"


def test_latches_survive_reopening(db: Path) -> None:
    latch = FaultLatch()
    latch.latch(Fault("JAM", "card jammed at the gate", "decision 0017", "device"))
    latch.latch(Fault("LINK_LOST", "no heartbeat", "decision 0017", "host"))
    with TableState(db) as state:
        state.save_latches("shoe", latch.to_records())
        state.save_latches("shuffler", [])
    restored = FaultLatch()
    with TableState(db) as state:
        restored.restore(state.load_latches("shoe"))
        assert state.load_latches("shuffler") == []
        assert state.load_latches("never-saved") == []
    assert restored.faults == latch.faults


def test_save_latches_replaces_the_devices_set_only(db: Path) -> None:
    jam = {"code": "JAM", "detail": "d", "clause": "c", "origin": "device"}
    tamper = {"code": "TAMPER", "detail": "d", "clause": "c", "origin": "device"}
    with TableState(db) as state:
        state.save_latches("shoe", [jam, tamper])
        state.save_latches("reader", [tamper])
        state.save_latches("shoe", [tamper])  # JAM cleared by a supervisor
        assert state.load_latches("shoe") == [tamper]
        assert state.load_latches("reader") == [tamper]


def test_table_counters_round_trip(db: Path) -> None:
    fields = {
        "rounds_played": 41,
        "batch_in_shoe": "B-0007",
        "batch_held": "B-0008",
        "dealer": "E-1234",
        "dispensed": 203,
        "remaining": 213,
    }
    with TableState(db) as state:
        assert state.load_table("BJ-1") is None
        state.save_table("BJ-1", {"rounds_played": 40})
        state.save_table("BJ-1", fields)
        state.save_table("BJ-2", {"rounds_played": 1})
    with TableState(db) as state:
        assert state.load_table("BJ-1") == fields
        assert state.load_table("BJ-2") == {"rounds_played": 1}


def test_a_full_disk_is_a_state_error_and_keeps_the_old_counters(db: Path) -> None:
    """SQLite rolls the transaction back itself on a full disk: the write is still refused as the
    state database's StateError, not as a failed ROLLBACK of ours, and the file is as it was."""
    with TableState(db) as state:
        state.save_table("BJ-1", {"rounds_played": 40})
        full_disk.fill(state._db)
        with pytest.raises(StateError, match="cannot write the state database: database or disk is full"):
            state.save_table("BJ-1", {"rounds_played": 41, "dealer": full_disk.PAGE_AND_MORE})
        full_disk.free(state._db)
        assert state.load_table("BJ-1") == {"rounds_played": 40}
        state.save_table("BJ-1", {"rounds_played": 41})
        assert state.load_table("BJ-1") == {"rounds_played": 41}


def test_round_in_progress_is_known_after_reopening(db: Path) -> None:
    wagers = {"seat-1": {"base": 25}, "seat-3": {"base": 10, "progressive": 1}}
    with TableState(db) as state:
        state.begin_round("BJ-1", 1, wagers)
        state.end_round("BJ-1", 1, {"rounds": 1})
        assert state.round_in_progress("BJ-1") is None
        state.begin_round("BJ-1", 2, wagers)
    with TableState(db) as state:
        current = state.round_in_progress("BJ-1")
        assert isinstance(current, RoundInProgress)
        assert (current.number, current.wagers) == (2, wagers)
        assert state.round_in_progress("BJ-2") is None
        state.end_round("BJ-1", 2, {"rounds": 2})
        assert state.round_in_progress("BJ-1") is None


def test_round_order_is_enforced_and_a_refusal_changes_nothing(db: Path) -> None:
    with TableState(db) as state:
        state.begin_round("BJ-1", 1, {"seat-1": 5})
        with pytest.raises(StateError, match=r"round 2 refused: round 1 is still in progress"):
            state.begin_round("BJ-1", 2, {})
        with pytest.raises(StateError, match=r"round 7 is not in progress \(in progress: round 1\)"):
            state.end_round("BJ-1", 7, {"rounds": 7})
        state.end_round("BJ-1", 1, {"rounds": 1})
        with pytest.raises(StateError, match=r"round 1 is not in progress \(in progress: none\)"):
            state.end_round("BJ-1", 1, {"rounds": 1})
        with pytest.raises(StateError, match=r"round 1 was already played"):
            state.begin_round("BJ-1", 1, {})
        assert state.round_in_progress("BJ-1") is None


def test_a_round_ends_with_its_counters_in_one_write(db: Path) -> None:
    """A kill between ending round 1 and counting it played would leave the table to number its
    next round 1 again (recovery, docs/recovery.md): the two land together or not at all."""
    with TableState(db) as state:
        state.save_table("BJ-1", {"rounds": 0, "dealer": "E-1"})
        state.begin_round("BJ-1", 1, {})
        with pytest.raises(StateError, match=r"round 2 is not in progress"):
            state.end_round("BJ-1", 2, {"rounds": 2, "dealer": "E-1"})
        assert state.load_table("BJ-1") == {"rounds": 0, "dealer": "E-1"}, "a refused end changes nothing"
        state.end_round("BJ-1", 1, {"rounds": 1, "dealer": "E-1"})
    with TableState(db) as state:
        assert state.round_in_progress("BJ-1") is None
        assert state.load_table("BJ-1") == {"rounds": 1, "dealer": "E-1"}


def test_unsaveable_input_names_the_field_and_keeps_the_old_value(db: Path) -> None:
    secret = object()
    with TableState(db) as state:
        state.save_table("BJ-1", {"rounds_played": 3})
        with pytest.raises(
            StateError, match=rf"{db}: table BJ-1 field 'hole_card' cannot be saved"
        ) as caught:
            state.save_table("BJ-1", {"rounds_played": 4, "hole_card": secret})
        assert repr(secret) not in str(caught.value)
        assert caught.value.__cause__ is None and caught.value.__suppress_context__
        assert state.load_table("BJ-1") == {"rounds_played": 3}
        with pytest.raises(StateError, match=r"round 1 wagers cannot be saved"):
            state.begin_round("BJ-1", 1, {"seat-1": float("nan")})
        assert state.round_in_progress("BJ-1") is None


def test_a_foreign_sqlite_database_is_refused_by_name(db: Path) -> None:
    other = sqlite3.connect(db)
    other.execute("CREATE TABLE accounts (id INTEGER)")
    other.commit()
    other.close()
    with pytest.raises(StateError, match=rf"{db}: not a Croupier state file"):
        TableState(db)


def test_a_file_that_is_not_a_database_is_refused_by_name(db: Path) -> None:
    db.write_bytes(b"[service]\nstate_db = 'oops'\n" * 200)
    with pytest.raises(StateError, match=rf"{db}: not a Croupier state file"):
        TableState(db)
    assert db.read_bytes().startswith(b"[service]")  # left as it was


def test_a_newer_schema_is_refused_and_the_current_one_reopens(db: Path) -> None:
    TableState(db).close()
    check = sqlite3.connect(db)
    assert check.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    assert check.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    check.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    check.commit()
    check.close()
    with pytest.raises(
        StateError, match=rf"{db}: state file schema {SCHEMA_VERSION + 1} was written by a newer Croupier"
    ):
        TableState(db)


def test_a_schema_1_file_gains_the_idempotency_keys_and_keeps_its_state(db: Path) -> None:
    """Decision 0022: a state file written before idempotency keys is opened, its latches and
    counters kept, and it keeps the responses given to keyed requests."""
    old = sqlite3.connect(db)
    old.executescript(
        "CREATE TABLE latches (device TEXT NOT NULL, position INTEGER NOT NULL, record TEXT NOT NULL,"
        " PRIMARY KEY (device, position));"
        "CREATE TABLE tables (name TEXT PRIMARY KEY, fields TEXT NOT NULL);"
        "CREATE TABLE rounds (table_name TEXT NOT NULL, number INTEGER NOT NULL, wagers TEXT NOT NULL,"
        " begun_at TEXT NOT NULL, ended_at TEXT, PRIMARY KEY (table_name, number));"
        """INSERT INTO tables VALUES ('T1', '{"rounds": 7}');"""
        "PRAGMA application_id = 1129469264; PRAGMA user_version = 1;"
    )
    old.close()
    kept = KeptResponse("POST /v1/table/close", "FLOOR-7", "ab" * 32, 200, {"open": False, "by": "FLOOR-7"})
    with TableState(db) as state:
        assert state.load_table("T1") == {"rounds": 7}
        assert state.kept_response("k-1") is None
        state.keep_response("k-1", kept)
    with TableState(db) as state:
        assert state.kept_response("k-1") == kept
        assert state._db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION == 5


def test_a_missing_directory_is_named(tmp_path: Path) -> None:
    path = tmp_path / "no-such-dir" / "state.sqlite3"
    with pytest.raises(StateError, match=rf"{path}: cannot open"):
        TableState(path)


def test_only_the_opening_thread_may_use_it(db: Path) -> None:
    errors: list[BaseException] = []
    with TableState(db) as state:

        def write() -> None:
            try:
                state.save_table("BJ-1", {"rounds_played": 1})
            except BaseException as exc:  # handed back to the test thread
                errors.append(exc)

        thread = threading.Thread(target=write, name="not-the-loop")
        thread.start()
        thread.join(5)
        assert state.load_table("BJ-1") is None
    assert len(errors) == 1 and isinstance(errors[0], StateError)
    assert str(db) in str(errors[0]) and "thread" in str(errors[0])


CHILD = """
import sys
from croupier.state import TableState
state = TableState(sys.argv[1])
number = 0
while True:
    number += 1
    state.begin_round("BJ-1", number, {"seat-1": number})
    print("begun", number, flush=True)
    state.save_latches("shoe", [{"code": "JAM", "detail": str(number), "clause": "c", "origin": "device"}])
    state.save_table("BJ-1", {"rounds_played": number})
    print("saved", number, flush=True)
    state.end_round("BJ-1", number, {"rounds_played": number})
    print("ended", number, flush=True)
"""


def test_every_write_reported_done_survives_sigkill(db: Path) -> None:
    reported: dict[str, int] = {"begun": 0, "saved": 0, "ended": 0}
    with subprocess.Popen(
        [sys.executable, "-c", CHILD, str(db)], cwd=ROOT, stdout=subprocess.PIPE, text=True
    ) as child:
        assert child.stdout is not None
        for line in child.stdout:
            what, number = line.split()
            reported[what] = int(number)
            if reported["ended"] >= 30:
                break
        child.send_signal(signal.SIGKILL)
        child.wait(10)
        for line in child.stdout:  # what it reported before the kill landed
            what, number = line.split()
            reported[what] = int(number)
    assert child.returncode == -signal.SIGKILL
    assert reported["ended"] >= 30, "the child stopped before writing"

    with TableState(db) as state:
        current = state.round_in_progress("BJ-1")
        rounds_played = state.load_table("BJ-1")["rounds_played"]
        jam_detail = int(state.load_latches("shoe")[0]["detail"])
        begun = state._db.execute("SELECT max(number) FROM rounds").fetchone()[0]
        ended = state._db.execute("SELECT count(*) FROM rounds WHERE ended_at IS NOT NULL").fetchone()[0]
    assert begun >= reported["begun"]
    assert ended >= reported["ended"]
    assert rounds_played >= reported["saved"] and jam_detail >= reported["saved"]
    # Nothing beyond the one write in flight when the kill landed.
    assert begun <= reported["begun"] + 1 and ended <= reported["ended"] + 1
    if current is not None:
        assert current.number == begun and current.wagers == json.loads(json.dumps({"seat-1": begun}))


def test_a_schema_3_file_gains_the_due_times_of_the_firmware_checks(db: Path) -> None:
    """58 Pa. Code § 461a.20(b), decision 0026: when each device's next authenticity check is due is
    kept across restarts (schema 4), so a restart never pushes the daily check back; a file written
    before it is brought up to date with its state kept."""
    with TableState(db) as state:
        state.save_table("T1", {"rounds": 7})
    old = sqlite3.connect(db)
    old.executescript("DROP TABLE authenticity; DROP TABLE units; PRAGMA user_version = 3;")
    old.close()
    with TableState(db) as state:
        assert state.load_table("T1") == {"rounds": 7} and state.check_due("shoe") is None
        state.save_check_due("shoe", 1_900_000_000.5)
        state.save_check_due("shoe", 1_900_086_400.5)  # the next check replaces the due time
    with TableState(db) as state:
        assert state.check_due("shoe") == 1_900_086_400.5 and state.check_due("shuffler") is None
        assert state._db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION == 5


def _shoe(serial: str) -> Identity:
    return Identity(
        device_class=DeviceClass.SHOE,
        vendor="Acme",
        model="SHOE-9",
        serial_number=serial,
        firmware_version="2.1.0",
        protocol_version=1,
        capabilities=("count", "door"),
        firmware_hash=bytes(range(32)),
        boot_id=7,
    )


def test_a_schema_4_file_gains_the_units_each_device_accepted(db: Path) -> None:
    """605a.4(c), decision 0017: the unit each device last accepted is kept across restarts (schema
    5), whole, as its handshake identified it; the next accepted replaces it; a device no longer
    configured forgets it; a file written before is brought up to date with its state kept."""
    with TableState(db) as state:
        state.save_check_due("shoe", 1_900_000_000.5)
    old = sqlite3.connect(db)
    old.executescript("DROP TABLE units; PRAGMA user_version = 4;")
    old.close()
    with TableState(db) as state:
        assert state.check_due("shoe") == 1_900_000_000.5 and state.unit("shoe") is None
        state.save_unit("shoe", _shoe("S-1"))
        state.save_unit("shoe", _shoe("S-2"))  # a supervisor accepted another unit
        state.save_unit("shuffler", _shoe("F-1"))
    with TableState(db) as state:
        assert state.unit("shoe") == _shoe("S-2") and state.unit("shuffler") == _shoe("F-1")
        state.forget_units({"shoe", "card-reader"})
        assert state.unit("shoe") == _shoe("S-2") and state.unit("shuffler") is None
        assert state._db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION == 5


def test_decision_0022_an_idempotency_key_is_kept_24_hours_then_forgotten(tmp_path: Path) -> None:
    """decision 0022: a response is kept for its Idempotency-Key for 24 hours, across restarts; a key
    older than that is a new request, and old keys are dropped as new ones are kept, so the state
    database does not grow with every request the table ever took."""
    kept = KeptResponse("POST /v1/wagers", "DEALER-7", "cd" * 32, 200, {"round": 1})
    with TableState(tmp_path / "state.sqlite3") as state:
        state.keep_response("fresh", kept)
        old = (datetime.now(UTC) - IDEMPOTENCY_KEPT - timedelta(minutes=1)).isoformat(timespec="milliseconds")
        with state._db:
            state._db.execute(
                "INSERT INTO idempotency VALUES ('stale', 'POST /v1/wagers', 'DEALER-7', ?, 200, '{}', ?)",
                ("ef" * 32, old),
            )
        assert state.kept_response("fresh") == kept
        assert state.kept_response("stale") is None, "a key older than 24 hours is a new request"
        state.keep_response("stale", kept)  # the key used again, for a new request
        assert state.kept_response("stale") == kept
        keys = [row[0] for row in state._db.execute("SELECT key FROM idempotency ORDER BY key")]
        assert keys == ["fresh", "stale"]
