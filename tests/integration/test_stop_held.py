"""``croupier run`` stopped (SIGTERM, as ``systemctl stop`` sends it) while the table waits for a
person who is not there: it stops waiting, closes the trail with ``table_closed`` naming what it
waited for, then the closing record, and exits 0 within a bounded time (issue 13). The round left
waiting is held as cut off at the next start (ROUND_CUT_OFF, docs/recovery.md), and a table held on
that fault, with nobody to clear it, is stopped the same way."""

from __future__ import annotations

import asyncio
import contextlib
import signal
import subprocess
import time
from pathlib import Path
from typing import Any

import aiohttp

from croupier.api.auth import Tokens
from croupier.audit.writer import AuditTrail
from croupier.commands.run import API_DRAIN, Api, Listener, _api, _bound
from croupier.config import load_table_config
from croupier.service.journal import TableJournal
from croupier.service.table_service import TableService
from croupier.state import TableState
from simulator.games.registry import simulation
from simulator.tables import simulated_table
from tests.integration.test_recovery import _config_with_api, _records, _verify, _wait_for_api
from tests.integration.test_run_command import croupier
from tests.links import FAST, run
from tests.screen import Screen
from tests.tokens import SUPERVISOR_TOKEN

#: How long a stopped table may take to close (the round loop looks at the stop twice a second).
STOP_WITHIN = 15


async def leave_a_round_waiting(base: str) -> str:
    """Key rounds (one wager, "no more bets") until one waits on the screen for an answer nobody
    gives (a round the dealer's Blackjack ends at once asks nothing); returns that prompt's kind."""
    headers = {"Authorization": f"Bearer {SUPERVISOR_TOKEN}", "Content-Type": "application/json"}
    async with aiohttp.ClientSession(base_url=base) as session:
        screen = Screen(session, headers)
        async with asyncio.timeout(60):
            while True:
                betting = (await screen.wait_for("wagers"))["prompt"]["id"]
                await screen.ok(
                    "/v1/wagers", {"prompt": betting, **simulation("free-bet-blackjack").keyed(1)}
                )
                await screen.ok("/v1/rounds/no-more-bets", {"prompt": betting})
                while (prompt := (await screen.state())["prompt"]) is None:
                    await asyncio.sleep(0.01)
                if prompt["kind"] != "wagers":
                    return str(prompt["kind"])


def stopped(process: subprocess.Popen[str], log: Path) -> None:
    """SIGTERM, then the process must be gone within ``STOP_WITHIN`` seconds, exit status 0."""
    process.send_signal(signal.SIGTERM)
    try:
        process.wait(timeout=STOP_WITHIN)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
        raise AssertionError(f"SIGTERM did not end the table within {STOP_WITHIN} s") from None
    assert process.returncode == 0, log.read_text()


def closed_as(audit: Path) -> dict[str, Any]:
    """The trail verifies as closed and ends with ``table_closed``, the service's clean stop (after
    any line errors since the last round, decision 0027) and the closing record; returns the
    ``table_closed`` fields."""
    result = _verify(audit, "--expect-closed")
    assert result.returncode == 0, result.stdout + result.stderr
    ending = [(r["kind"], r["fields"]) for r in _records(audit) if r["kind"] != "link_errors"][-3:]
    assert [kind for kind, _ in ending] == ["table_closed", "service_stop", "close"], ending
    assert ending[1][1]["reason"] == ending[0][1]["reason"]
    return ending[0][1]


def test_sigterm_ends_a_table_waiting_for_a_person_and_one_held_on_a_fault(tmp_path: Path) -> None:
    """Issue 13 ("Signals"): a table waiting on the screen, then held on ROUND_CUT_OFF with nobody
    to clear it (the API's token file configured: no simulated floor supervisor), each ends on
    SIGTERM with its closing records; the round cut off holds the next start (decision 0017)."""
    audit = tmp_path / "state" / "audit"
    config, base = _config_with_api(tmp_path)
    with (tmp_path / "first.log").open("w") as log:
        first = croupier("run", "--config", str(config), stdout=subprocess.DEVNULL, stderr=log)
    try:
        _wait_for_api(base, first)
        prompt = asyncio.run(leave_a_round_waiting(base))
    finally:
        stopped(first, tmp_path / "first.log")
    assert closed_as(audit)["reason"] == f"waiting: {prompt}"

    with (tmp_path / "second.log").open("w") as log:
        second = croupier("run", "--config", str(config), stdout=subprocess.DEVNULL, stderr=log)
    try:
        table = _wait_for_api(base, second)
        assert [fault["code"] for fault in table["faults"]] == ["ROUND_CUT_OFF"], "held as cut off"
    finally:
        stopped(second, tmp_path / "second.log")
    assert closed_as(audit)["reason"] == "held: ROUND_CUT_OFF"


def test_sigterm_does_not_wait_on_a_request_no_round_will_take(tmp_path: Path) -> None:
    """Issue 13: a wager keyed on the screen waits until a round takes it; when the table stops
    instead, the stop gives that request ``API_DRAIN`` seconds, not aiohttp's 60, so the service
    still ends within a bounded time."""

    async def scenario() -> float:
        config, base = _config_with_api(tmp_path)
        table = load_table_config(config)
        tokens = Tokens.load(table.service.api_tokens)
        headers = {"Authorization": f"Bearer {SUPERVISOR_TOKEN}", "Content-Type": "application/json"}
        async with (
            simulated_table("free-bet-blackjack", name="STOP", settings=FAST) as sim,
            aiohttp.ClientSession(base_url=base) as session,
        ):
            with (
                AuditTrail(tmp_path / "audit", "STOP") as trail,
                TableState(tmp_path / "state.db") as state,
                _bound(table) as sock,
            ):
                journal = TableJournal(trail, state, table="STOP", game="free-bet-blackjack")
                service = TableService(sim.table, journal, game="free-bet-blackjack")
                betting = asyncio.create_task(service.screen.first_wager(service.players.parse_wager))
                async with _api(table, service, Api(tokens, Listener(None, sock))):
                    screen = Screen(session, headers)
                    prompt = (await screen.wait_for("wagers"))["prompt"]["id"]
                    body = {"prompt": prompt, **simulation("free-bet-blackjack").keyed(1)}
                    keyed = asyncio.create_task(screen.post("/v1/wagers", body))
                    await asyncio.wait_for(betting, 5)  # keyed: it now waits for a round to take it
                    started = time.monotonic()
                stopped_in = time.monotonic() - started
                keyed.cancel()
                with contextlib.suppress(asyncio.CancelledError, aiohttp.ClientError):
                    await keyed
        return stopped_in

    assert run(scenario(), timeout=90) < API_DRAIN + 3
