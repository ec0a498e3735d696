"""``croupier sim --floor --tables N`` (docs/sim.md "A simulated floor"): N simulated tables on the
embedded broker with the floor service beside them, as a process; its floor view's data read with the
token it printed, every table shown playing with its rounds per hour; Ctrl-C stops every table
cleanly and the floor counts each one's death before it stops."""

from __future__ import annotations

import asyncio
import re
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from datetime import UTC, datetime
from pathlib import Path

import pytest

from croupier.commands import sim_floor
from croupier.commands.floor import RunningFloor
from croupier.config.floor_service import StoreConfig
from floor.store import Store
from tests.integration.floor_broker import (
    RESETS,
    ROOT,
    FloorService,
    birth_body,
    floor_config,
    linked_floor,
    linked_table,
)

pytestmark = pytest.mark.timeout(120)
TABLES = 3


def _sim(tmp_path: Path, config: Path, *args: str) -> tuple[subprocess.Popen[str], str, str]:
    """``croupier sim --floor`` with the floor of ``config``, as a process: it, once it said where its
    floor view is, and the view's address and token as it said them."""
    with (tmp_path / "sim.log").open("wb") as log:
        process = subprocess.Popen(
            [sys.executable, "-m", "croupier", "--log-json", "sim", "--floor", "--pace", "600", "--seed", "7",
             "--floor-config", str(config), *args],
            cwd=ROOT, stdout=subprocess.PIPE, stderr=log, text=True,
        )  # fmt: skip
    assert process.stdout is not None
    said = process.stdout.readline()
    found = re.match(r"floor view: (http://127\.0\.0\.1:\d+)/ \(read-only token: ([0-9a-f]{32})\)$", said)
    if found is None:
        process.kill()
        process.communicate()
        raise AssertionError(said + (tmp_path / "sim.log").read_text())
    return process, found[1], found[2]


def test_a_simulated_floor_shows_every_table_playing_and_stops_cleanly_on_ctrl_c(tmp_path: Path):
    config = floor_config(tmp_path, None)
    process, view, token = _sim(tmp_path, config, "--tables", str(TABLES))
    assert process.stdout is not None
    try:
        assert "broker: embedded at 127.0.0.1:" in process.stdout.readline()
        with pytest.raises(urllib.error.HTTPError) as refused:  # the view needs the token printed
            urllib.request.urlopen(f"{view}/floor/v1/tables", timeout=5)
        assert refused.value.code == 401
        refused.value.close()

        floor = FloorService(config, view, token)
        names = {f"sim-{n}" for n in range(1, TABLES + 1)}

        def playing(tables: dict[str, dict[str, object]]) -> bool:
            return set(tables) == names and all(
                isinstance(counters := table.get("counters"), dict) and counters["rounds"] >= 2
                for table in tables.values()
            )

        floor.until(playing, 60)
        for table in floor.tables().values():
            assert table["game"] == "free-bet-blackjack" and table["dark"] is None
            assert table["state"] == {"status": "open", "reason": None, "dealer": "D-1"}  # type: ignore[comparison-overlap]
            counters = table["counters"]
            assert isinstance(counters, dict) and counters["rounds_per_hour"] > 0 and counters["hands"] > 0
        process.send_signal(signal.SIGINT)
        out, _ = process.communicate(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()
    assert process.returncode == 0, (tmp_path / "sim.log").read_text()
    assert re.fullmatch(r"sim-1: \d+ rounds; sim-2: \d+ rounds; sim-3: \d+ rounds\n", out), out
    assert "stopping: each table finishes its round in play" in (tmp_path / "sim.log").read_text()
    store = Store(StoreConfig(None, tmp_path / "floor.sqlite3"), create=False)
    try:
        shown = {table["table"]: table for table in store.tables()}
    finally:
        store.close()
    assert {name: table["dark"]["reason"] for name, table in shown.items()} == dict.fromkeys(names, "stopped")
    played = dict(re.findall(r"(sim-\d): (\d+) rounds", out))
    assert {name: table["rounds"] for name, table in shown.items()} == {n: int(r) for n, r in played.items()}


def test_a_simulated_floor_of_linked_tables_shows_the_linked_jackpot_growing(tmp_path: Path):
    """``--table-config`` with a ``[floor.link]`` and a ``--floor-config`` whose link controller names
    sim-1 and sim-2: every table contributes to the one linked jackpot, which the floor view's data
    (``GET /floor/v1/links``) shows above its reset, and each table shows its meters with its
    progressive wagers taken (the link up and reconciled). The table's file names no broker, group or
    protocol: every table of the run logs in to the floor's broker (docs/sim.md, "A simulated floor")."""
    config = linked_floor(tmp_path, None, ("sim-1", "sim-2"))
    table = linked_table(tmp_path, "sim", 1883, "")
    only_its_link = re.sub(r"^\[floor\]\n(?:[^\[\n].*\n|\n)*", "", table.read_text(), flags=re.MULTILINE)
    assert "[floor.link]" in only_its_link and "broker" not in only_its_link
    table.write_text(only_its_link)
    process, view, token = _sim(tmp_path, config, "--tables", "2", "--table-config", str(table))
    try:
        floor = FloorService(config, view, token)

        deadline = time.monotonic() + 60
        while not (grown := [level for link in floor.links() for level in link["levels"]
                             if level["value_cents"] > RESETS[level["level"]]]):  # fmt: skip
            assert time.monotonic() < deadline and process.poll() is None, (tmp_path / "sim.log").read_text()
            time.sleep(0.2)
        (link,) = floor.links()
        assert (link["link"], link["tables"]) == ("c4p", ["sim-1", "sim-2"]) and grown
        floor.until(lambda tables: set(tables) == {"sim-1", "sim-2"} and all(
            table["meters"] and table["wagers_locked"] is None for table in tables.values()), 30)  # fmt: skip
        process.send_signal(signal.SIGINT)
        process.communicate(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()
    assert process.returncode == 0, (tmp_path / "sim.log").read_text()


def test_the_floor_waits_for_this_runs_deaths_not_those_its_store_kept(tmp_path, monkeypatch):
    """With ``--floor-config`` the store is the floor's own: it holds ``sim-1`` dark from an earlier
    run and a table of the floor's, dark too. Neither is a death of this run: the floor is given its
    LAST_WORDS for ours, and stops as soon as it heard them."""
    monkeypatch.setattr(sim_floor, "LAST_WORDS", 1.0)
    store = Store(StoreConfig(None, tmp_path / "floor.sqlite3"))

    def lived(name: str, session: int) -> None:
        store.birth(name, birth_body(0, table=name, session=session))
        store.death(name, {"table": name, "session": session, "reason": "stopped"})

    async def main() -> tuple[float, float]:
        floor = RunningFloor(store, asyncio.create_task(asyncio.sleep(0)), "http://127.0.0.1:9/")
        clock = asyncio.get_running_loop().time
        began = clock()
        await sim_floor._deaths_counted(floor, {"sim-1", "sim-2"}, this_run)
        waited = clock() - began
        lived("sim-1", 2)
        lived("sim-2", 1)
        began = clock()
        await sim_floor._deaths_counted(floor, {"sim-1", "sim-2"}, this_run)
        return waited, clock() - began

    try:
        for name in ("sim-1", "T9"):
            lived(name, 1)
        this_run = datetime.now(UTC)
        waited, heard = asyncio.run(main())
    finally:
        store.close()
    assert waited >= 1.0, "the floor took earlier deaths, or another table's, for this run's"
    assert heard < 0.5


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["--tables", "0"], "--tables must be at least 1"),
        (["--game", "over-under", "--rounds", "3"], "--game, --rounds: not taken with --floor, which takes"),
        (["--pace", "0"], "--pace with --floor: a multiple of a live table's pace"),
        (["--config", "casino.toml"], "--config: not taken with --floor, which takes"),
        (["--simulated-devices", "child"], "--simulated-devices child: not taken with --floor"),
    ],
)
def test_what_a_simulated_floor_refuses(args: list[str], said: str):
    refused = subprocess.run(
        [sys.executable, "-m", "croupier", "sim", "--floor", *args], cwd=ROOT, capture_output=True, text=True
    )
    assert refused.returncode == 2 and said in refused.stderr, refused.stderr
