"""``croupier floor`` (docs/floor.md; decision 0036) as a process over a real Mosquitto with the
shipped access rules, and over its embedded broker: a real table's messages counted, its trail's
heads witnessed, and ``croupier floor verify-witness`` refusing a trail cut back or made again after
the floor saw its head; and the service itself over the embedded broker, asking a table with a gap
in its numbers for a new birth."""

from __future__ import annotations

import asyncio
import contextlib
import json
import signal
import sqlite3
import subprocess
import sys
import time
import urllib.request
from collections.abc import AsyncIterator, Mapping
from pathlib import Path
from typing import Any

import aiomqtt
import pytest
import trustme

from croupier.config.floor_service import StoreConfig, load_floor_config
from croupier.floor_link.spool import Spool
from floor.link_controller import LinkController
from floor.service import FloorService, floor_broker, stopped
from floor.store import Counted, Store
from tests.integration.floor_broker import (
    FLOORS,
    GROUP,
    ROOT,
    TABLES,
    UNIT,
    Floor,
    Mosquitto,
    amqtt_broker,
    birth_body,
    croupier_run,
    floor_config,
    floor_running,
    floor_service,
    table_config,
    with_password,
)

pytestmark = pytest.mark.timeout(120)


def _logged(floor: Path, event: str, times: int = 1) -> None:
    """Wait until the floor service's log (beside its configuration ``floor``) says ``event``, the
    ``times``-th time."""
    log = floor.with_suffix(".log")
    deadline = time.monotonic() + 30
    while log.read_text().count(event) < times:
        assert time.monotonic() < deadline, log.read_text()
        time.sleep(0.1)


def _played(config: Path, *args: str) -> None:
    async def main() -> None:
        table = await croupier_run(config, *args)
        await asyncio.wait_for(table.wait(), 60)
        assert table.returncode == 0, config.with_suffix(".log").read_text()

    asyncio.run(main())


def _verify_witness(floor: Path, table: str, trail: list[Path]) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "croupier", "floor", "verify-witness", table, *map(str, trail)]
    return subprocess.run([*command, "--config", str(floor)], cwd=ROOT, capture_output=True, text=True)


def test_the_floor_witnesses_a_tables_trail_and_refuses_it_cut_back_or_made_again(tmp_path):
    broker = Mosquitto(tmp_path / "mosquitto")
    try:
        floor = floor_config(tmp_path / "floor", broker.port)
        config = table_config(tmp_path / "table", "T1", broker.port, with_password(tmp_path, "T1"))
        with floor_service(floor) as service:
            _played(config, "--rounds", "4", "--seed", "3")
            service.until(lambda tables: "T1" in tables and tables["T1"]["dark"] is not None, 20)
            shown = service.tables()["T1"]
    finally:
        broker.close()
    assert shown["game"] == "free-bet-blackjack" and shown["rounds"] == 4
    counters = shown["counters"]  # a short run: its four rounds over the least span, a minute
    assert counters["rounds"] == 4 and counters["hands"] >= 4 and 0 < counters["rounds_per_hour"] <= 240
    assert shown["dark"]["reason"] == "stopped" and shown["gaps"] == 0
    trail = sorted((tmp_path / "table" / "state" / "audit").glob("T1-*.jsonl"))

    verified = _verify_witness(floor, "T1", trail)
    assert verified.returncode == 0, verified.stdout + verified.stderr
    assert verified.stdout.startswith("ok: ")
    assert "\ncounted from seq 1: the floor counted table T1's messages" in verified.stdout

    cut = tmp_path / "cut" / trail[-1].name
    cut.parent.mkdir()
    cut.write_bytes(b"".join(trail[-1].read_bytes().splitlines(keepends=True)[:3]))
    refused = _verify_witness(floor, "T1", [*trail[:-1], cut])
    assert refused.returncode == 1
    assert "removed: the series ends before the head the floor witnessed" in refused.stdout

    elsewhere = tmp_path / "elsewhere.toml"  # a floor whose store is not there
    elsewhere.write_text('[store]\npath = "none.sqlite3"\n')
    refused = _verify_witness(elsewhere, "T1", trail)
    assert refused.returncode == 2 and "no floor store there" in refused.stderr

    made_again = table_config(tmp_path / "again", "T1", 9, "")  # the same table's trail, played afresh
    made_again.write_text(made_again.read_text().split("\n[floor]")[0])
    _played(made_again, "--rounds", "4", "--seed", "4")
    again = sorted((tmp_path / "again" / "state" / "audit").glob("T1-*.jsonl"))
    refused = _verify_witness(floor, "T1", again)
    assert refused.returncode == 1
    assert "rewritten: the head the floor witnessed is T1-000001.jsonl seq" in refused.stdout


def test_with_no_broker_configured_the_floor_starts_its_own(tmp_path):
    """Over it, a table named as casinos name them, which reads as a card (``3C-1``: Three Card Poker
    1), is born, shown dark and its trail witnessed: the card mask leaves names whole."""
    floor = floor_config(tmp_path / "floor", None)
    port = int(floor.read_text().split('bind = "127.0.0.1:')[1].split('"')[0])
    config = table_config(tmp_path / "table", "3C-1", port, 'protocol = "3.1.1"')
    config.write_text(config.read_text().replace('group = "main"', 'group = "dev"'))
    with floor_service(floor) as service:
        _played(config, "--rounds", "2", "--seed", "1")
        service.until(lambda tables: "3C-1" in tables and tables["3C-1"]["dark"] is not None, 20)
        assert service.tables()["3C-1"]["rounds"] == 2
    trail = sorted((tmp_path / "table" / "state" / "audit").glob("3C-1-*.jsonl"))
    verified = _verify_witness(floor, "3C-1", trail)
    assert verified.returncode == 0 and verified.stdout.startswith("ok: "), verified.stdout + verified.stderr


def test_each_start_of_the_floor_names_its_stores_count_of_a_links_publications_afresh(tmp_path):
    """Decision 0050 (``store`` names the count): ``croupier floor`` renames the count of each link's
    publications in its first publication of the link after it starts, so a store restored from a
    backup (whose count is behind what the tables took) is another to them and heard; and only in that
    one: its later publications keep the name, so the tables order them by revision."""
    floor = floor_config(tmp_path / "floor", None)
    links = '[links.c4p]\ntables = ["T1"]\nheartbeat = 0.2\n[links.c4p.levels.1]\nrate_bp = 500\n'
    links += "reset_cents = 100000\nlimit_cents = 25000000\n"
    floor.write_text(floor.read_text().replace("[store]", links + "[store]"))
    names: list[tuple[str, str]] = []
    path = tmp_path / "floor" / "floor.sqlite3"
    for _ in range(2):
        with floor_service(floor), contextlib.closing(sqlite3.connect(path)) as db:
            first = _published(db, _published(db, 0)[0] + 1)  # one since the start: the new name
            names.append((first[1], _published(db, first[0] + 2)[1]))  # and two after it
    assert names[0][0] != names[1][0], "the count kept its name across a start"
    assert all(first == later for first, later in names), f"the count named afresh after the first: {names}"


def _published(db: sqlite3.Connection, revision: int) -> tuple[int, str]:
    """The link's revision and count's name once its publications reached ``revision``."""
    deadline = time.monotonic() + 20
    while True:
        row = db.execute("SELECT revision, store FROM link_revisions WHERE link = 'c4p'").fetchone()
        if row is not None and row[0] >= revision:
            return int(row[0]), str(row[1])
        assert time.monotonic() < deadline, f"the floor did not publish the link's revision {revision}"
        time.sleep(0.02)


def test_a_message_past_the_next_asks_for_a_new_birth_once_a_second(tmp_path):
    """3 never came: 5, 7 and 9 wait, uncounted, and the table is asked for a new birth once, not
    three times (it answers by sending again from its first message unconfirmed)."""

    async def main() -> tuple[list[str], dict[str, object]]:
        async with amqtt_broker() as port:
            text = f'[embedded]\nbind = "127.0.0.1:{port}"\n[store]\npath = "floor.sqlite3"\n'
            (tmp_path / "floor.toml").write_text(text)
            config = load_floor_config(tmp_path / "floor.toml")
            store = Store(config.store)
            service = FloorService(config, floor_broker(config), store)
            hearing = asyncio.create_task(service.run())
            v311 = aiomqtt.ProtocolVersion.V311
            try:
                async with aiomqtt.Client("127.0.0.1", port, identifier="T1", protocol=v311) as table:
                    await table.subscribe("croupier/v1/dev/table/T1/cmd/rebirth", qos=1)
                    await asyncio.wait_for(service.connected.wait(), 10)
                    topic = "croupier/v1/dev/table/T1/"
                    birth = birth_body(1)
                    await table.publish(topic + "birth", json.dumps(birth), qos=1)
                    for seq in (2, 2, 5, 7, 9):  # 2 given twice, 3 never
                        state = {"table": "T1", "seq": seq, "at": "2026-12-02T00:00:00.000+00:00",
                                 "status": "open", "reason": None, "dealer": None}  # fmt: skip
                        await table.publish(topic + "state", json.dumps(state), qos=1)
                    asked: list[str] = []
                    with contextlib.suppress(TimeoutError):
                        async with asyncio.timeout(3):
                            async for message in table.messages:
                                asked.append(str(message.topic))
                    return asked, store.tables()[0]
            finally:
                await stopped(hearing)
                store.close()

    asked, shown = asyncio.run(main())
    assert asked == ["croupier/v1/dev/table/T1/cmd/rebirth"]
    assert (shown["last_seq"], shown["repeats"], shown["gaps"]) == (2, 1, 0)


def test_a_floor_stopped_cleanly_leaves_its_host_state_offline(tmp_path):
    """The broker discards the floor's will at a clean disconnect: the floor publishes its host state
    offline, retained, itself before it goes, so a table connecting afterwards reads it offline."""

    async def main() -> dict[str, object]:
        async with amqtt_broker() as port:
            (tmp_path / "floor.toml").write_text(
                f'[embedded]\nbind = "127.0.0.1:{port}"\n[store]\npath = "f.db"\n'
            )
            config = load_floor_config(tmp_path / "floor.toml")
            store = Store(config.store)
            service = FloorService(config, floor_broker(config), store)
            hearing = asyncio.create_task(service.run())
            try:
                await asyncio.wait_for(service.connected.wait(), 10)
            finally:
                await stopped(hearing)
                store.close()
            v311 = aiomqtt.ProtocolVersion.V311
            async with aiomqtt.Client("127.0.0.1", port, identifier="T1", protocol=v311) as table:
                await table.subscribe("croupier/v1/dev/host/+/state", qos=1)
                async with asyncio.timeout(10):
                    async for message in table.messages:
                        assert message.retain
                        return json.loads(message.payload)  # type: ignore[arg-type]
        raise AssertionError("no host state retained")

    assert asyncio.run(main())["online"] is False


def test_a_credential_that_cannot_be_read_stops_the_floor_before_its_store_is_made(tmp_path):
    """The broker's password file is read, and the view's port bound, before the store is opened:
    a start that is refused leaves nothing behind (exit 2, one line naming the key)."""
    config = floor_config(tmp_path, broker=1883)
    (tmp_path / "floor.password").unlink()
    started = subprocess.run(
        [sys.executable, "-m", "croupier", "floor", "--config", str(config)],
        cwd=ROOT, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert started.returncode == 2, started.stderr
    assert "floor.password_file" in started.stderr and started.stderr.count("\n") == 1, started.stderr
    assert not (tmp_path / "floor.sqlite3").exists(), "no store made by a start that was refused"


def test_a_message_the_store_failed_to_count_is_delivered_again_and_counted(tmp_path):
    """A message is acknowledged to the broker only once the store has committed it (decision 0036):
    with the store's file locked by another process (a real SQLite failure: ``database is locked``),
    the floor service (a process, over Mosquitto with the shipped access rules) logs the failure,
    drops its connection without acknowledging the message, connects again, and counts it once the
    lock is gone, the broker having delivered it again; nothing is lost and nothing counted twice."""
    broker = Mosquitto(tmp_path / "mosquitto")
    topic = "croupier/v1/main/table/T1/"

    def state(seq: int, dealer: str) -> str:
        return json.dumps({"table": "T1", "seq": seq, "at": "2026-12-02T00:00:00.000+00:00",
                           "status": "open", "reason": None, "dealer": dealer})  # fmt: skip

    async def publish(*messages: tuple[str, str]) -> None:
        async with aiomqtt.Client("127.0.0.1", broker.port, identifier="T1", username="T1",
                                  password=TABLES["T1"]) as table:  # fmt: skip
            for kind, body in messages:
                await table.publish(topic + kind, body, qos=1)

    floor = floor_config(tmp_path / "floor", broker.port)
    log = floor.with_suffix(".log")
    try:
        with floor_service(floor) as service:
            _logged(floor, "floor online")  # subscribed: what the table sends from now on is kept for it
            birth = birth_body(0)
            asyncio.run(publish(("birth", json.dumps(birth)), ("state", state(1, "D1"))))
            service.until(lambda tables: tables.get("T1", {}).get("last_seq") == 1, 20)
            holder = sqlite3.connect(tmp_path / "floor" / "floor.sqlite3", isolation_level=None)
            try:
                holder.execute("BEGIN IMMEDIATE")  # another writer holds the store: the floor cannot write
                asyncio.run(publish(("state", state(2, "D2"))))
                _logged(floor, "floor store failed")
                assert service.tables()["T1"]["last_seq"] == 1, "not counted while the store fails"
            finally:
                holder.close()  # the lock is gone
            service.until(lambda tables: tables["T1"]["last_seq"] == 2, 30)
            shown = service.tables()["T1"]
    finally:
        broker.close()
    assert shown["state"]["dealer"] == "D2" and (shown["gaps"], shown["repeats"]) == (0, 0)
    assert "database is locked" in log.read_text()


def test_a_link_message_its_controller_failed_to_apply_is_delivered_again_and_applied_once(tmp_path):
    """The link controller applies a table's ``linked`` message before the floor acknowledges it
    (decision 0039; the manual acknowledgement of decision 0036): refused by the database (a trigger
    standing for a write that fails), the message stays with the broker, and is applied once when it
    comes again, though the store had counted it already."""
    broker = Mosquitto(tmp_path / "mosquitto")
    floor = floor_config(tmp_path / "floor", broker.port)
    links = '[links.c4p]\ntables = ["T1"]\n[links.c4p.levels.1]\nrate_bp = 500\nreset_cents = 100000\n'
    links += "limit_cents = 25000000\n"
    floor.write_text(floor.read_text().replace("[store]", links + "[store]"))
    store, log = tmp_path / "floor" / "floor.sqlite3", floor.with_suffix(".log")
    at = "2026-12-02T03:00:00.000+00:00"
    birth = birth_body(0, spool="a" * 32)
    contribution = {"table": "T1", "seq": 1, "at": at, "link": "c4p", "spool": "a" * 32, "number": 1,
                    "event": "contribution", "round": 1, "count": 1, "wagered_cents": 10_000,
                    "levels": [1], "controller": UNIT}  # fmt: skip

    async def publish() -> None:
        async with aiomqtt.Client("127.0.0.1", broker.port, identifier="T1", username="T1",
                                  password=TABLES["T1"]) as table:  # fmt: skip
            for kind, body in (("birth", birth), ("linked", contribution)):
                await table.publish(f"croupier/v1/{GROUP}/table/T1/{kind}", json.dumps(body), qos=1)

    def applied() -> list[tuple[int, ...]]:
        with contextlib.closing(sqlite3.connect(store)) as db:
            rows = db.execute("SELECT number, contributions, wagered_cents FROM link_tables").fetchall()
            return [*rows, *db.execute("SELECT in_cents FROM link_levels").fetchall()]

    try:
        with floor_service(floor) as service:
            deadline = time.monotonic() + 30
            while "floor online" not in log.read_text():
                assert time.monotonic() < deadline, log.read_text()
                time.sleep(0.1)
            with contextlib.closing(sqlite3.connect(store, isolation_level=None)) as db:
                db.execute("CREATE TRIGGER refused BEFORE INSERT ON link_tables "
                           "BEGIN SELECT RAISE(ABORT, 'refused by the test'); END")  # fmt: skip
                asyncio.run(publish())
                service.until(lambda tables: tables.get("T1", {}).get("last_seq") == 1, 20)  # counted
                while "refused by the test" not in log.read_text():
                    assert time.monotonic() < deadline + 30, log.read_text()
                    time.sleep(0.1)
                assert applied() == [(0,)], "applied while the controller's database refuses it"
                db.execute("DROP TRIGGER refused")
            while applied() != [(1, 1, 10_000), (10_000,)]:
                assert time.monotonic() < deadline + 60, applied()
                time.sleep(0.1)
            shown = service.tables()["T1"]
    finally:
        broker.close()
    assert applied() == [(1, 1, 10_000), (10_000,)], "applied once"
    assert (shown["last_seq"], shown["repeats"]) == (1, 1), "counted once, the second delivery a repeat"


def test_a_contribution_whose_result_the_store_cannot_keep_is_refused_to_its_table_and_the_floor_goes_on(
    tmp_path,
):
    """A well-formed contribution that would take a level's accrual (at 50 %, already near 2**63
    ten-thousandths of a cent) past 64 bits: the store cannot keep it (floor.link_controller). The
    floor service (a process, over Mosquitto) logs it and refuses it for its table alone, counted
    (never malformed), nothing of it applied, and goes on: another table's birth after it is counted
    at once; held with the broker, one table's absurd amount would stop every table's messages;
    applied, it would refuse every later hit on the level (review of issue 16)."""
    broker = Mosquitto(tmp_path / "mosquitto")
    floor = floor_config(tmp_path / "floor", broker.port)
    links = '[links.c4p]\ntables = ["T1", "T2"]\n[links.c4p.levels.1]\nrate_bp = 5000\nreset_cents = 100000\n'
    floor.write_text(floor.read_text().replace("[store]", links + "limit_cents = 150000\n[store]"))
    config = load_floor_config(floor)
    with contextlib.closing(Store(config.store)) as made:  # the level as a long life left it
        LinkController(config.links, made, config.group)
        with made.transaction():
            made.run("UPDATE link_levels SET in_cents = ?", ((2**63 - 1) // 5000 - 10,))
    store, log = tmp_path / "floor" / "floor.sqlite3", floor.with_suffix(".log")
    linked = {"table": "T1", "at": "2026-12-02T03:00:00.000+00:00", "link": "c4p", "spool": "a" * 32,
              "controller": UNIT}  # fmt: skip
    messages = [("birth", birth_body(0, spool="a" * 32)),
                ("linked", {**linked, "seq": 1, "number": 1, "event": "contribution", "round": 1, "count": 1,
                            "wagered_cents": 1000, "levels": [1]})]  # fmt: skip

    async def publish() -> None:
        async with aiomqtt.Client("127.0.0.1", broker.port, identifier="T1", username="T1",
                                  password=TABLES["T1"]) as table:  # fmt: skip
            for kind, body in messages:
                await table.publish(f"croupier/v1/{GROUP}/table/T1/{kind}", json.dumps(body), qos=1)
        async with aiomqtt.Client("127.0.0.1", broker.port, identifier="T2", username="T2",
                                  password=TABLES["T2"]) as table:  # fmt: skip
            after = birth_body(0, spool="b" * 32, table="T2")
            await table.publish(f"croupier/v1/{GROUP}/table/T2/birth", json.dumps(after), qos=1)

    try:
        with floor_service(floor) as service:
            _logged(floor, "floor online")
            asyncio.run(publish())
            _logged(floor, "refused")
            service.until(lambda tables: "T2" in tables, 30)
            tables = service.tables()
            with contextlib.closing(sqlite3.connect(store)) as db:
                applied = db.execute("SELECT number, contributions FROM link_tables").fetchall()
                funded = db.execute("SELECT count(*) FROM link_funded").fetchone()
    finally:
        broker.close()
    assert (tables["T1"]["last_seq"], tables["T1"]["malformed"]) == (1, 0), "counted, never malformed"
    assert (applied, funded) == ([(1, 0)], (0,)), "counted for T1, nothing of it applied"
    text = log.read_text()
    assert "floor store failed" not in text and "a message that cannot be read" not in text


@pytest.mark.parametrize("broker", ["mosquitto", "embedded"])
def test_a_message_that_cannot_be_read_is_counted_malformed_and_the_floor_goes_on(tmp_path, broker):
    """Each poisoned message of the review of issue 16 (bad JSON, a number too large for the
    database, a list where a number goes, in a numbered message and in a birth, a field no schema
    has) is logged with its table and why, counted as malformed on the view, and acknowledged: the
    floor service (a process) goes on counting the next messages of every table, and a restart of it
    is not handed the same message again."""
    mosquitto = Mosquitto(tmp_path / "mosquitto") if broker == "mosquitto" else None
    floor = floor_config(tmp_path / "floor", None if mosquitto is None else mosquitto.port)
    port = mosquitto.port if mosquitto is not None else int(floor.read_text().split(":", 2)[1].split('"')[0])

    def birth(table: str, **changed: object) -> str:
        return json.dumps({**birth_body(0, table=table), **changed})

    def state(table: str, seq: object, **changed: object) -> str:
        return json.dumps({"table": table, "seq": seq, "at": "2026-12-02T00:00:00.000+00:00",
                           "status": "open", "reason": None, "dealer": "D1", **changed})  # fmt: skip

    poisons = [("state", b"{not json"), ("state", state("T1", 2**70)), ("state", state("T1", [1])),
               ("birth", birth("T1", session=[1])), ("state", state("T1", 1, owner="someone"))]  # fmt: skip
    group = GROUP if mosquitto is not None else "dev"

    async def publish(table: str, *messages: tuple[str, str | bytes]) -> None:
        login = {} if mosquitto is None else {"username": table, "password": TABLES[table]}
        async with aiomqtt.Client("127.0.0.1", port, identifier=table, **login) as client:  # type: ignore[arg-type]
            for kind, body in messages:
                await client.publish(f"croupier/v1/{group}/table/{table}/{kind}", body, qos=1)

    try:
        with floor_service(floor) as service:
            _logged(floor, "floor online")  # subscribed: what the tables send from now on is kept for it
            asyncio.run(publish("T2", ("birth", birth("T2"))))
            asyncio.run(publish("T1", ("birth", birth("T1"))))
            for number, poison in enumerate(poisons, start=1):
                asyncio.run(publish("T1", poison))
                asyncio.run(publish("T2", ("state", state("T2", number, dealer=f"D{number}"))))
                asyncio.run(publish("T1", ("state", state("T1", number, dealer=f"D{number}"))))
            done = len(poisons)
            service.until(lambda tables: tables.get("T1", {}).get("last_seq") == done
                          and tables.get("T2", {}).get("last_seq") == done, 30)  # fmt: skip
            shown = service.tables()
        with floor_service(floor) as service:  # nothing poisoned is delivered again
            _logged(floor, "floor online", times=2)
            time.sleep(0.5)
            again = service.tables()["T1"]["malformed"]
    finally:
        if mosquitto is not None:
            mosquitto.close()
    assert (shown["T1"]["malformed"], shown["T2"]["malformed"], again) == (len(poisons), 0, len(poisons))
    assert (shown["T1"]["gaps"], shown["T1"]["state"]["dealer"]) == (0, f"D{len(poisons)}")
    log = floor.with_suffix(".log").read_text()
    assert "a message that cannot be read" in log and "floor store failed" not in log


def test_two_floor_services_are_told_apart_and_each_writes_only_its_own_host_state(tmp_path):
    """Each floor service logs in under its own host name with its own password (the shipped access
    rules, a block per floor service): two of one property are both online at once, each hears the
    tables and announces its own host state, and neither may write the other's, nor publish as a
    table; a table may not write any floor service's state."""
    broker = Mosquitto(tmp_path / "mosquitto")
    prefix = f"croupier/v1/{GROUP}"

    def client(user: str, password: str) -> aiomqtt.Client:
        return aiomqtt.Client("127.0.0.1", broker.port, identifier=f"{user}-forger", username=user,
                              password=password, protocol=aiomqtt.ProtocolVersion.V5)  # fmt: skip

    async def main() -> tuple[list[tuple[str, dict[str, object]]], list[dict[str, object]]]:
        services = []
        for host in FLOORS:
            config = load_floor_config(floor_config(tmp_path / host, broker.port, host=host))
            services.append(FloorService(config, floor_broker(config), Store(config.store)))
        hearing = [asyncio.create_task(service.run()) for service in services]
        observer = Floor(
            broker.port, username="T2", password=TABLES["T2"], identifier="T2"
        )  # reads host states
        try:
            async with floor_running(observer):
                for service in services:
                    await asyncio.wait_for(service.connected.wait(), 10)
                await observer.until(lambda messages: len(messages) == 2, 10)
                forged_state = {"online": False, "timestamp": 1}
                forged_table = {"table": "T1", "seq": 1, "at": "2026-12-02T00:00:00.000+00:00",
                                "status": "held", "reason": "forged", "dealer": "X"}  # fmt: skip
                forgeries = [
                    ("floor-2", f"{prefix}/host/floor-1/state", forged_state),  # another floor's state
                    ("T1", f"{prefix}/host/T1/state", forged_state),  # a table posing as a floor service
                    ("floor-1", f"{prefix}/table/T1/state", forged_table),  # a floor posing as a table
                ]
                for user, topic, body in forgeries:  # refused: dropped, or the connection closed
                    with contextlib.suppress(aiomqtt.MqttError):
                        async with client(user, {**FLOORS, **TABLES}[user]) as forger:
                            await forger.publish(topic, json.dumps(body), qos=1)
                async with client("T1", TABLES["T1"]) as table:
                    birth = birth_body(0)
                    await table.publish(f"{prefix}/table/T1/birth", json.dumps(birth), qos=1)
                for service in services:  # both hear the table
                    async with asyncio.timeout(10):
                        while not service.store.tables():
                            await asyncio.sleep(0.05)
                await asyncio.sleep(0.3)  # a forgery let through would have arrived by now
                return observer.messages, [service.store.tables()[0] for service in services]
        finally:
            for task in hearing:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task
            for service in services:
                service.store.close()

    try:
        heard, tables = asyncio.run(main())
    finally:
        broker.close()
    assert sorted(topic for topic, _ in heard) == [
        f"{prefix}/host/floor-1/state",
        f"{prefix}/host/floor-2/state",
    ]
    assert all(body["online"] is True for _, body in heard), "only each floor service's own state"
    assert [(table["table"], table["state"]["dealer"], table["last_seq"]) for table in tables] == [
        ("T1", "D1", 0)
    ] * 2


def test_the_floor_view_over_tls_gives_a_browser_a_secure_session_cookie(tmp_path):
    """``[view] tls_cert`` and ``tls_key`` (required beyond loopback): the view speaks HTTPS, and
    the session cookie a sign-in sets is Secure besides HttpOnly and SameSite=Strict (decision
    0033), so the browser never sends it in clear."""
    token = "0123456789abcdef0123456789abcdef"
    with floor_service(floor_config(tmp_path, None, token, view_tls=trustme.CA())) as service:
        view = service.view
        assert view.startswith("https://")
        sign_in = urllib.request.Request(
            f"{view}/v1/session", data=json.dumps({"token": token}).encode(), method="POST",
            headers={"Content-Type": "application/json", "X-Croupier-Request": "1", "Origin": view},
        )  # fmt: skip
        with urllib.request.urlopen(sign_in, context=service.trust, timeout=5) as reply:
            cookie = reply.headers["Set-Cookie"]
        session = cookie.split(";")[0]
        tables = urllib.request.Request(f"{view}/floor/v1/tables", headers={"Cookie": session})
        with urllib.request.urlopen(tables, context=service.trust, timeout=5) as reply:
            assert json.load(reply) == {"tables": []}
    attributes = {part.strip().split("=")[0] for part in cookie.split(";")}
    assert session.startswith("croupier_floor_session=") and {"Secure", "HttpOnly"} <= attributes, cookie
    assert "SameSite=Strict" in cookie and token not in cookie


class CountingStore(Store):
    """A store noting each number it counted."""

    def __init__(self, config: StoreConfig) -> None:
        super().__init__(config)
        self.seqs: list[int] = []

    def numbered(self, table: str, kind: str, body: Mapping[str, Any]) -> Counted:  # Any: JSON fields
        counted = super().numbered(table, kind, body)
        if counted.counted:
            self.seqs.append(body["seq"])
        return counted


class SlowStore(CountingStore):
    """A store slower than the messages come, noting each number it counted."""

    def numbered(self, table: str, kind: str, body: Mapping[str, Any]) -> Counted:  # Any: JSON fields
        time.sleep(0.05)
        return super().numbered(table, kind, body)


def test_what_the_floor_received_before_its_broker_went_is_counted(tmp_path):
    """Messages the floor's client received but the store had not yet counted when the broker went
    were never acknowledged: the broker delivers them again and each is counted (found by
    bench/floor.py under load)."""
    broker = Mosquitto(tmp_path / "mosquitto")
    config = load_floor_config(floor_config(tmp_path / "floor", broker.port))
    sent = list(range(1, 81))  # 80 at 0.05 s each: not all counted when the broker goes

    async def main() -> tuple[int, list[int]]:
        store = SlowStore(config.store)
        service = FloorService(config, floor_broker(config), store)
        hearing = asyncio.create_task(service.run())
        try:
            await asyncio.wait_for(service.connected.wait(), 10)
            login = {"identifier": "croupier-T1", "username": "T1", "password": TABLES["T1"]}
            async with aiomqtt.Client("127.0.0.1", broker.port, **login) as table:
                topic, at = f"croupier/v1/{GROUP}/table/T1/state", "2026-12-02T00:00:00.000+00:00"
                held = {"status": "open", "reason": None, "dealer": None}
                states = [{"table": "T1", "seq": seq, "at": at, **held} for seq in sent]
                await table.publish(f"croupier/v1/{GROUP}/table/T1/birth", json.dumps(birth_body(0)), qos=1)
                await asyncio.gather(*(table.publish(topic, json.dumps(state), qos=1) for state in states))
            await asyncio.sleep(2.5)  # the broker saved its state (autosave_interval 1) since
            before = len(store.seqs)
            broker.kill()
            await asyncio.sleep(0.5)
            broker.start()
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(15):
                    while sorted(set(store.seqs)) != sent:
                        await asyncio.sleep(0.1)
            return before, store.seqs
        finally:
            await stopped(hearing)
            store.close()
            broker.close()

    before, counted = asyncio.run(main())
    assert before < len(sent), "the store had counted them all before the broker went: nothing waited"
    assert sorted(counted) == sent


@contextlib.asynccontextmanager
async def _floor_hearing(service: FloorService) -> AsyncIterator[None]:
    """``service`` connected and hearing while the block runs, then gone as a stopped floor goes."""
    hearing = asyncio.create_task(service.run())
    try:
        await asyncio.wait_for(service.connected.wait(), 10)
        yield
    finally:
        await stopped(hearing)


def test_a_broker_crash_loses_nothing_it_acknowledged_that_the_floor_had_not_counted(tmp_path):
    """Mosquitto acknowledges a message before it is on its disk (every autosave_interval seconds):
    killed before its next autosave, it loses what it acknowledged and queued for a floor that is away
    (here every message since the floor's session was saved). The table
    keeps each message until the floor confirmed it counted it, and sends again from the first one
    unconfirmed when it reconnects: every message the table numbered is counted, once (decision
    0035; the review's repro, with the real table, floor and broker)."""
    broker = Mosquitto(tmp_path / "mosquitto")
    config = load_floor_config(floor_config(tmp_path / "floor", broker.port))
    table = table_config(tmp_path / "table", "T1", broker.port, with_password(tmp_path, "T1"))

    async def main() -> tuple[list[int], int, int]:
        store = CountingStore(config.store)
        try:
            async with _floor_hearing(FloorService(config, floor_broker(config), store)):
                pass  # the floor's session, subscribed, stays with the broker; the floor goes
            broker.stop()  # which saves the session on disk
            conf = broker.directory / "conf.d" / "croupier.conf"
            conf.write_text(conf.read_text().replace("autosave_interval 1\n", "autosave_interval 3600\n"))
            broker.start()  # the crash below surely before the next autosave, not within a second of it
            login = {"identifier": "observer", "username": "floor-2", "password": FLOORS["floor-2"]}
            async with aiomqtt.Client("127.0.0.1", broker.port, **login) as observer:
                await observer.subscribe(f"croupier/v1/{GROUP}/table/T1/round", qos=1)
                process = await croupier_run(table, "--duration", "60", "--seed", "5")
                async for message in observer.messages:
                    assert isinstance(message.payload, bytes)
                    if json.loads(message.payload)["round"] >= 2:
                        broker.kill()
                        break
            killed_at = len(store.seqs)
            broker.start()
            async with _floor_hearing(FloorService(config, floor_broker(config), store)):
                async with asyncio.timeout(30):
                    while not any(row.get("rounds", 0) >= 3 for row in store.tables()):
                        await asyncio.sleep(0.1)
                process.send_signal(signal.SIGTERM)
                await asyncio.wait_for(process.wait(), 30)
                assert process.returncode == 0, table.with_suffix(".log").read_text()
                async with asyncio.timeout(15):
                    while not store.tables()[0]["dark"]:
                        await asyncio.sleep(0.1)
            assert store.tables()[0]["gaps"] == 0
            spool = Spool(next(tmp_path.glob("table/**/floor-T1.sqlite3")))
            try:
                assert len(spool) == 0, "the table keeps what the floor confirmed it counted"
                return store.seqs, spool.last_seq, killed_at
            finally:
                spool.close()
        finally:
            store.close()
            broker.close()

    counted, numbered, killed_at = asyncio.run(main())
    assert killed_at == 0, "the floor counted something while it was away"
    assert sorted(counted) == list(range(1, numbered + 1)), "a message lost, or counted twice"
