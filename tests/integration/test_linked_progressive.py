"""Linked progressives (docs/floor.md; decision 0039): two simulated Crazy 4 Poker tables, each
``croupier run`` with its own progressive controller and sign, linked through ``croupier floor``'s
link controller over a real Mosquitto with the shipped access rules and TLS: the contributions sum
at the controller to what the tables accepted, a hit at one table locks the level at the other until
the keyed reset, the broker killed locks the progressive wagers at both tables, which unlock once
it is back and the counts reconcile, and a count forged in the controller's database latches
LINK_MISMATCH at that table."""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
import signal
import sqlite3
import ssl
import subprocess
import sys
import time
from pathlib import Path

import pytest
import trustme

from tests.integration.floor_broker import (
    FLOORS,
    GROUP,
    ROOT,
    Floor,
    Mosquitto,
    check_payloads,
    croupier_run,
    floor_running,
    free_port,
    table_config,
    with_password,
)

pytestmark = pytest.mark.timeout(120)

RATES = {1: 500, 2: 100}  # basis points of each progressive wager
RESETS = {1: 100_000, 2: 5_000}
#: Lines that hit often, so a short run sees hits; every line pays level 1, so level 2 only grows.
PAY_TABLE = '[rules.progressive_pay_table]\nthree_of_a_kind = "100%"\ntwo_pairs = "100%"\n'


def _table(directory: Path, name: str, port: int, login: str | None = None) -> Path:
    """Table ``name`` on the link, logging in with ``login`` (its password and the broker's CA)."""
    link = "\n".join(f"{level} = {rate}" for level, rate in RATES.items())
    if login is None:
        login = f'{with_password(directory, name)}\ntls_ca = "{directory / "ca.pem"}"'
    floor = f'{login}\n[floor.link]\nid = "c4p"\nheard_within = 3\n[floor.link.levels]\n{link}\n'
    config = table_config(directory / name, name, port, floor, "simulated-crazy-4-poker.toml")
    pay_table = r"\[rules\.progressive_pay_table\]\n(?:[^\[\n].*\n|\n)*"
    config.write_text(re.sub(pay_table, PAY_TABLE + "\n", config.read_text()))
    return config


def _floor(directory: Path, port: int | None) -> Path:
    """The floor with the link: on the Mosquitto on ``port`` over TLS, or its embedded broker there."""
    levels = "".join(
        f"[links.c4p.levels.{level}]\nrate_bp = {rate}\nreset_cents = {RESETS[level]}\n"
        for level, rate in RATES.items()
    )
    if port is None:
        broker = f'[embedded]\nbind = "127.0.0.1:{free_port()}"\n'
    else:
        (directory / "floor.password").write_text(FLOORS["floor-1"] + "\n")
        broker = (
            f'[floor]\nbroker = "mqtts://127.0.0.1:{port}"\ngroup = "{GROUP}"\nusername = "floor-1"\n'
            f'password_file = "floor.password"\ntls_ca = "ca.pem"\nkeepalive = 2\n'
        )
    config = directory / "floor.toml"
    config.write_text(
        f'{broker}[store]\npath = "floor.sqlite3"\n[view]\nbind = "127.0.0.1:{free_port()}"\n'
        f'[links.c4p]\ntables = ["T1", "T2"]\nheartbeat = 0.5\n{levels}'
    )
    return config


class FloorProcess:
    """``croupier floor`` as a process, stopped and started again at will."""

    def __init__(self, config: Path) -> None:
        self.config: Path = config
        self.process: subprocess.Popen[bytes] | None = None
        self.start()

    def start(self) -> None:
        with self.config.with_suffix(".log").open("ab") as err:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "croupier", "--log-json", "floor", "--config", str(self.config)],
                cwd=ROOT, stdout=subprocess.DEVNULL, stderr=err,
            )  # fmt: skip

    def stop(self) -> None:
        assert self.process is not None
        self.process.send_signal(signal.SIGTERM)
        try:
            self.process.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.communicate()
            raise
        assert self.process.returncode == 0, self.config.with_suffix(".log").read_text()
        self.process = None


def _linked(floor: Floor, table: str) -> dict[int, dict[str, object]]:
    """A table's link messages, each once, by link number."""
    return {body["number"]: body for body in floor.of(table, "linked")}  # type: ignore[misc]


def _hits(floor: Floor, table: str) -> list[dict[str, object]]:
    return [body for body in floor.of(table, "linked") if body["event"] == "hit"]


def _told(floor: Floor, table: str) -> list[dict[str, object]]:
    return [body for topic, body in floor.messages if topic == f"croupier/v1/{GROUP}/link/c4p/table/{table}"]


def _trail(directory: Path, table: str) -> str:
    files = sorted((directory / table / "state" / "audit").glob("*.jsonl"))
    return "".join(path.read_text() for path in files)


def test_two_tables_share_one_jackpot_through_the_floors_link_controller(tmp_path):
    ca = trustme.CA()
    broker = Mosquitto(tmp_path / "mosquitto", tls=ca)
    ca.cert_pem.write_to_path(tmp_path / "ca.pem")
    floor_dir = tmp_path / "floor"
    floor_dir.mkdir()
    ca.cert_pem.write_to_path(floor_dir / "ca.pem")
    configs = {name: _table(tmp_path, name, broker.port) for name in ("T1", "T2")}
    service = FloorProcess(_floor(floor_dir, broker.port))
    watcher_tls = ssl.create_default_context(cafile=tmp_path / "ca.pem")

    async def main() -> Floor:
        async with floor_running(Floor(broker.port, tls=watcher_tls)) as floor:
            tables = {name: await croupier_run(config, "--duration", "90", "--seed", str(seed))
                      for seed, (name, config) in enumerate(configs.items(), 1)}  # fmt: skip
            await floor.until(lambda _: any(_hits(floor, t) for t in configs), 40)
            await floor.until(lambda _: all(len(_linked(floor, t)) >= 3 for t in configs), 30)
            await asyncio.sleep(1.2)  # the floor's session on the broker's disk
            broker.kill()
            await asyncio.sleep(4)  # beyond heard_within: the tables lock their progressive wagers
            restarted = time.time()
            broker.start()
            after = lambda _: all(_after(floor, t, restarted) for t in configs)  # noqa: E731
            await floor.until(after, 30)
            service.stop()  # a count forged in the controller's database while the floor is down
            with contextlib.closing(sqlite3.connect(floor_dir / "floor.sqlite3")) as forged, forged:
                forged.execute("UPDATE link_tables SET wagered_cents = wagered_cents + 100 WHERE name = 'T1'")
            service.start()
            mismatch = lambda _: any(body["code"] == "LINK_MISMATCH" for body in floor.of("T1", "fault"))  # noqa: E731
            await floor.until(mismatch, 20)
            for process in tables.values():
                process.send_signal(signal.SIGTERM)
            for name, process in tables.items():
                await asyncio.wait_for(process.wait(), 30)
                assert process.returncode == 0, configs[name].with_suffix(".log").read_text()
            await asyncio.sleep(1.5)  # the controller's last state after the last contribution
            return floor

    try:
        floor = asyncio.run(main())
        service.stop()
    finally:
        broker.close()
    check_payloads(floor.messages)
    with contextlib.closing(sqlite3.connect(floor_dir / "floor.sqlite3")) as store:
        applied = {name: store.execute(
            "SELECT number, contributions, wagered_cents FROM link_tables WHERE name = ?", (name,)
        ).fetchone() for name in configs}  # fmt: skip
        level_2 = store.execute("SELECT in_cents FROM link_levels WHERE level = 2").fetchone()[0]
    total = 0
    for name in configs:
        sent = _linked(floor, name)
        assert sorted(sent) == list(range(1, len(sent) + 1)), f"{name}: link numbers out of order or missing"
        contributions = [body for body in sent.values() if body["event"] == "contribution"]
        wagered = sum(body["wagered_cents"] for body in contributions)  # type: ignore[misc]
        forged = 100 if name == "T1" else 0
        assert applied[name] == (len(sent), len(contributions), wagered + forged), name
        total += wagered
    assert level_2 == total, "level 2 is never hit: it holds every contribution of both tables"

    trail = {name: _trail(tmp_path, name) for name in configs}
    paid = [name for name, text in trail.items() if '"linked_hit_paid"' in text and '"linked_reset"' in text]
    assert paid, "no hit was paid and reset"
    hit_table = paid[0]
    other = next(name for name in configs if name != hit_table)
    locked = [
        told for told in _told(floor, other)
        if any(hit["table"] == hit_table for hit in told["levels"][0]["hits"])  # type: ignore[index]
    ]  # fmt: skip
    assert locked, f"{other} was never told that {hit_table}'s hit locked the level"
    assert '"linked_lock"' in trail[other] and '"linked_lock_lifted"' in trail[other]
    for name in configs:
        assert '"linked_wagers_locked"' in trail[name], f"{name} did not lock its progressive wagers"
        assert "link c4p: the floor's broker is not reachable" in trail[name]
        told = {body["wagers_locked"] for body in floor.of(name, "meter")}  # the floor view's
        assert "link c4p: the floor's broker is not reachable" in told and None in told, (name, told)
        assert trail[name].count('"linked_reconciled"') >= 2, f"{name} did not reconcile after the outage"
        # the controller's sensors locked out with the wagers, and re-enabled (decision 0043)
        assert '"sensors_locked_out"' in trail[name] and '"sensors_enabled"' in trail[name], name
        assert '"linked_device_base"' in trail[name], f"{name} never read its controller against the link"
    for name in configs:  # each sign showed the link's value, and showed what it was told
        assert '"linked_value_shown"' in trail[name] and "METER_MISMATCH" not in trail[name], name
    latched = [line for line in trail["T1"].splitlines() if "LINK_MISMATCH" in line]
    assert latched, "the count forged at the controller latched LINK_MISMATCH at T1"
    assert "LINK_MISMATCH" not in trail["T2"]


def _after(floor: Floor, table: str, since: float) -> bool:
    """A contribution from ``table`` made after ``since``."""
    from datetime import datetime

    return any(
        body["event"] == "contribution" and datetime.fromisoformat(str(body["at"])).timestamp() > since
        for body in floor.of(table, "linked")
    )


def test_over_the_embedded_broker_the_contributions_sum_at_the_controller(tmp_path):
    """The same link on the floor's embedded amqtt broker (MQTT 3.1.1), as a developer runs it."""
    floor_dir = tmp_path / "floor"
    floor_dir.mkdir()
    config = _floor(floor_dir, None)
    port = int(re.findall(r'bind = "127\.0\.0\.1:(\d+)"', config.read_text())[0])
    configs = {name: _table(tmp_path, name, port, 'protocol = "3.1.1"') for name in ("T1", "T2")}
    for table in configs.values():
        table.write_text(table.read_text().replace(f'group = "{GROUP}"', 'group = "dev"'))
    service = FloorProcess(config)

    async def main() -> None:
        # For a time, not a number of rounds: a table whose last hit is not yet reset when it stops
        # leaves the level locked, and the other table waits for that reset, as it must.
        tables = [await croupier_run(table, "--duration", "5", "--seed", str(seed))
                  for seed, table in enumerate(configs.values(), 3)]  # fmt: skip
        for table, process in zip(configs.values(), tables, strict=True):
            await asyncio.wait_for(process.wait(), 40)
            assert process.returncode == 0, table.with_suffix(".log").read_text()

    try:
        asyncio.run(main())
        time.sleep(1)  # the controller's last state after the last contribution
    finally:
        service.stop()
    with contextlib.closing(sqlite3.connect(floor_dir / "floor.sqlite3")) as store:
        applied = dict(store.execute("SELECT name, wagered_cents FROM link_tables").fetchall())
        level_2 = store.execute("SELECT in_cents FROM link_levels WHERE level = 2").fetchone()[0]
    for name in configs:
        records = [json.loads(line) for line in _trail(tmp_path, name).splitlines()]
        sent = sum(r["fields"]["wagered_cents"] for r in records if r["kind"] == "linked_contribution")
        assert sent and applied[name] == sent, name
        assert any(r["kind"] == "linked_value_shown" for r in records), f"{name}'s sign never showed the link"
    assert level_2 == sum(applied.values())
