"""``croupier run`` on a terminal: its live status of a real simulated table (drawn into a recording
rich console of a fixed width) shows the seats, the prompt the round waits for, the devices and the
latched faults, never a face-down card before it is turned up, and lays the seats out to the
terminal's width; Ctrl-C under a real pseudo-terminal finishes the round in play and exits 0 with
the trail closed."""

from __future__ import annotations

import asyncio
import fcntl
import io
import json
import os
import pty
import random
import re
import select
import signal
import struct
import subprocess
import sys
import termios
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from rich.console import Console

from croupier.audit.writer import AuditTrail
from croupier.commands.terminal import Felt, TableStatus
from croupier.service.journal import TableJournal
from croupier.service.table_service import INTERRUPTED, TableService
from croupier.state import TableState
from simulator.games.registry import simulation
from simulator.players import simulated_players
from simulator.scenario.actors import stack_top
from simulator.scenario.parse import parse
from simulator.tables import simulated_table
from tests.integration.test_run_command import ROOT, simulated_config
from tests.integration.test_stop_held import closed_as
from tests.links import FAST, run

GAME = "free-bet-blackjack"
#: Seat 1 is dealt Tc 7d and stands on 17; the dealer shows 6h over the hole card Ts, then draws 2s.
STACKED = parse(f"game {GAME}\nseats 1\nshoe Tc 6h 7d Ts 2s\nwager 1 blackjack=1000\ndecide 1 stand\n")
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b\][^\x07]*\x07")


def drawn(status: TableStatus, width: int) -> str:
    console = Console(record=True, width=width, file=io.StringIO())
    console.print(status)
    return console.export_text()


async def _shown(service: TableService, kind: str, serving: asyncio.Task[str]) -> int:
    """The id of the prompt of ``kind`` once the screen shows it (the service's error if it fails)."""
    async with asyncio.timeout(20):
        while (prompt := service.screen.shown) is None or prompt.kind != kind:
            if serving.done():
                serving.result()
            await asyncio.sleep(0.01)
    return prompt.id


def test_the_live_status_shows_the_table_and_never_a_face_down_card(tmp_path: Path) -> None:
    """One round keyed on the screen, the status drawn while the round waits for seat 1's decision
    (the hole card dealt), after it (the hole card turned up), and with the shoe's loading gate
    open (DOOR_OPEN latched); and drawn narrow and wide."""

    async def scenario() -> list[str]:
        frames: list[str] = []
        async with simulated_table(GAME, name="T1", settings=FAST) as sim:
            with AuditTrail(tmp_path / "audit", "T1") as trail, TableState(tmp_path / "state.db") as state:
                journal = TableJournal(trail, state, table="T1", game=GAME)
                journal.keep(sim.table)
                service = TableService(sim.table, journal, game=GAME)
                felt = Felt(int(sim.table.rules.positions))
                sim.table.events.subscribe(felt)
                status = TableStatus(service, felt, name="T1")
                stop = asyncio.Event()
                serving = asyncio.create_task(service.serve(stop))
                betting = await _shown(service, "wagers", serving)
                stack_top(sim.world, STACKED.rounds[0].shoe, STACKED.rounds[0].where)
                await service.screen.answer("wager", {"prompt": betting, **simulation(GAME).keyed(1)})
                await service.screen.answer("no_more_bets", {"prompt": betting})
                decision = await _shown(service, "decision", serving)
                frames.append(drawn(status, 120))
                await service.screen.answer("decision", {"prompt": decision, "seat": 1, "action": "stand"})
                await _shown(service, "wagers", serving)  # the next round's betting
                frames.append(drawn(status, 120))
                sim.devices["shoe"].set_door(True)
                async with asyncio.timeout(10):
                    while not sim.table.faults:
                        await asyncio.sleep(0.01)
                frames += [drawn(status, 120), drawn(status, 60), drawn(status, 170)]
                stop.set()
                await serving
        return frames

    deciding, after, held, narrow, wide = run(scenario(), timeout=60)
    assert "T1 - free-bet-blackjack - round 1" in deciding
    assert "waits for: waiting: decision" in deciding
    assert re.search(r"seat 1 .*\n│ blackjack \$10\.00,\s+│.*\n│ push22 \$5\.00", deciding), deciding
    assert "Tc 7d" in deciding and "dealer: 6h ▒▒" in deciding, deciding
    assert "devices: card-reader ready, shoe ready, shuffler ready" in deciding
    assert "faults: none" in deciding
    assert not re.search(r"\bTs\b", deciding), "the hole card is face down: its back, never its face"

    assert "dealer: 6h Ts 2s" in after, "turned up by its record, then the dealer's draw"
    assert "last rounds: round 1: complete" in after and "waits for: waiting: wagers" in after

    assert "DOOR_OPEN" in held and "waits for: held: DOOR_OPEN" in held

    assert all(len(line) <= 60 for line in narrow.splitlines())
    assert not [line for line in narrow.splitlines() if "seat 1" in line and "seat 3" in line]
    assert [line for line in narrow.splitlines() if "seat 1" in line and "seat 2" in line]
    assert [line for line in wide.splitlines() if "seat 1" in line and "seat 6" in line], "one row"


def _dealt(audit: Path, number: int) -> bool:
    """Whether the trail in ``audit`` holds round ``number``'s deal_started record yet."""
    dealt = re.compile(rf'"kind":"deal_started".*"round":{number},')
    return any(dealt.search(path.read_text()) for path in audit.glob("*.jsonl"))


def on_a_terminal(args: list[str], interrupt: Callable[[], bool] = lambda: False) -> str:
    """Run ``croupier ARGS`` on a pseudo-terminal of 100 columns (stdin, stdout and stderr), Ctrl-C
    (SIGINT) once ``interrupt()`` says so; returns what it wrote, less the escape codes, once it
    exited 0."""
    controller, terminal = pty.openpty()
    fcntl.ioctl(terminal, termios.TIOCSWINSZ, struct.pack("HHHH", 50, 100, 0, 0))
    process = subprocess.Popen(
        [sys.executable, "-m", "croupier", *args],
        cwd=ROOT,
        stdin=terminal,
        stdout=terminal,
        stderr=terminal,
        start_new_session=True,  # Ctrl-C reaches it alone, as the terminal's foreground job
    )
    os.close(terminal)
    seen, interrupted = "", False
    deadline = time.monotonic() + 90
    try:
        while process.poll() is None and time.monotonic() < deadline:
            if select.select([controller], [], [], 0.01)[0]:
                try:
                    seen += ANSI.sub("", os.read(controller, 65536).decode(errors="replace"))
                except OSError:  # the process closed its end
                    break
            if not interrupted and interrupt():
                process.send_signal(signal.SIGINT)
                interrupted = True
        assert process.wait(timeout=30) == 0, seen[-3000:]
    finally:
        if process.poll() is None:
            process.kill()
        os.close(controller)
    return seen


def test_ctrl_c_finishes_the_round_in_play_then_stops(tmp_path: Path) -> None:
    """A real ``croupier run`` of the simulated table on a pseudo-terminal (its live status on):
    Ctrl-C as a round is dealt says "finishing round N"; the process exits 0 once round N has
    ended, having begun no other, and the trail verifies as closed."""
    audit = tmp_path / "state" / "audit"
    seen = on_a_terminal(
        ["run", "--config", str(simulated_config(tmp_path)), "--seed", "7"],
        # The trail has each record as it is made: Ctrl-C as round 3 is dealt.
        interrupt=lambda: _dealt(audit, 3),
    )
    finishing = re.search(r"finishing round (\d+)", seen)
    assert finishing, seen[-3000:]
    number = int(finishing.group(1))
    assert closed_as(audit)["rounds"] == number
    records = [
        json.loads(line)
        for path in sorted(audit.glob("*.jsonl"))
        for line in path.read_text().splitlines()
    ]
    assert max(r["round"] or 0 for r in records if r.get("round") is not None) == number
    ended = [r for r in records if r["kind"] == "state" and r["fields"].get("dest") == "complete"]
    assert ended[-1]["round"] == number, "round N played to its end"


def test_no_live_on_a_terminal_prints_the_log_lines_only(tmp_path: Path) -> None:
    """``--no-live``: on a terminal all the same, no status is drawn; the log lines are as ever."""
    seen = on_a_terminal(["run", "--no-live", "--config", str(simulated_config(tmp_path)), "--rounds", "2"])
    assert "round complete" in seen and "table closed" in seen
    assert "╭─ seat 1" not in seen and "devices:" not in seen and "waits for:" not in seen


class Thinking:
    """Simulated players whose first decision never comes: a round in play that waits for nobody
    the table can name (no prompt, no fault), as a round does while its devices work."""

    def __init__(self, players: Any) -> None:  # Any: the simulated players of a game
        self._players = players

    def __getattr__(self, name: str) -> Any:  # Any: as the players'
        return getattr(self._players, name)

    def decide(self, *_: object) -> asyncio.Future[None]:
        return asyncio.get_running_loop().create_future()


def test_a_second_ctrl_c_leaves_the_round_in_play_held_as_cut_off(tmp_path: Path) -> None:
    """The first Ctrl-C (``stop``) waits for the round in play to end; the second (``halt``) leaves
    it at once, the table closing as ``interrupted`` and the round still open in the state store,
    to be held as cut off at the next start (docs/recovery.md). The round in play is whichever
    first reaches the players' turns: a round the dealer's Blackjack ends before them goes by."""

    async def scenario() -> tuple[bool, str, object, int]:
        async with simulated_table(GAME, name="T2", settings=FAST) as sim:
            with AuditTrail(tmp_path / "audit", "T2") as trail, TableState(tmp_path / "state.db") as state:
                journal = TableJournal(trail, state, table="T2", game=GAME)
                journal.keep(sim.table)
                players = Thinking(simulated_players(GAME, random.Random(1)))
                service = TableService(sim.table, journal, game=GAME, players=players)
                felt = Felt(int(sim.table.rules.positions))
                sim.table.events.subscribe(felt)
                stop, halt = asyncio.Event(), asyncio.Event()
                serving = asyncio.create_task(service.serve(stop, halt=halt))
                async with asyncio.timeout(20):
                    while felt.state != "player_turns":
                        await asyncio.sleep(0.01)
                in_play = sim.table.rounds
                stop.set()
                await asyncio.sleep(1.0)  # twice the stop's look at what the round waits for
                finished_first = serving.done()
                halt.set()
                async with asyncio.timeout(10):  # the players never decide: only the halt ends it
                    reason = await serving
                return finished_first, reason, state.round_in_progress("T2"), in_play

    finished_first, reason, cut_off, in_play = run(scenario(), timeout=60)
    assert not finished_first, "the first stop waits for the round in play"
    assert reason == INTERRUPTED
    assert cut_off is not None and cut_off.number == in_play
