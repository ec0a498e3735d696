"""A reliability campaign against the table service, for as long as it is given.

    python bench/reliability.py [--minutes M] [--seed S]

Each pass takes the next game (every game in the registry, in turn) and runs, on simulated tables over
their real transports:

- **kills**: ``croupier run`` (simulated players and floor supervisor) killed with SIGKILL at a
  random record of its trail, started again on the same trail and state, several times, then
  stopped with SIGTERM. Every record written before a kill must be found unchanged after the
  restart (else: records lost), the restarted service must play on (a cut-off round is held and
  voided by the floor), and the whole trail must verify (``croupier audit verify``).
- **faults**: ``croupier sim`` with random faults of every kind at a high rate; the run must end
  with the world's card count balanced (the simulator proves it after every round).
- **duplicates**: ``croupier run`` with the local API, rounds keyed from a dealer's screen that
  sends every request twice (a double tap, a retry after a lost answer): answers name their
  prompt, wagers carry an ``Idempotency-Key``. The second reply must be the first's, and the
  trail must hold each wager once.

A crash is any run that ends on its own with a non-zero status or a traceback, other than the
kills themselves. Every trail is then judged by ``croupier audit procedure``: a card dealt twice
(or anywhere the section does not call for one) is a violation of its deal, counted in
``extra_cards``, and so is a wager recorded twice. Prints the counts as it goes and, last,
``lost=N crashes=N extra_cards=N``: all 0 when everything held.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import tomllib
import uuid
from collections import Counter
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import aiohttp
from _common import ROOT

from croupier.audit.rotation import series_files, tables_in
from croupier.audit.storage import read_bytes
from games import registry
from tests.screen import Screen, dealer_counts  # the dealer's screen the API tests key rounds with
from tests.tokens import SUPERVISOR_TOKEN, write_token_file

SUPERVISOR = {"Authorization": f"Bearer {SUPERVISOR_TOKEN}", "Content-Type": "application/json"}

#: Each game's simulated table configuration (config/tables/simulated*.toml), by the game it names.
SIMULATED_TABLES = {
    tomllib.loads(path.read_text())["table"]["game"]: path
    for path in sorted((ROOT / "config" / "tables").glob("simulated*.toml"))
}
KILLS_PER_PASS = 3
#: How long 20 simulated rounds may take, faults and all, before the run counts as hung.
SIM_TIMEOUT = 300
#: Where a trail the procedure auditor faults is kept for review.
KEEP = Path(tempfile.gettempdir()) / "croupier-reliability"
#: Every kind the simulator injects (docs/sim.md), at a rate that strikes most rounds, and a noisy
#: line to the device that deals (Crazy 4 Poker has no shoe: its shuffler).
FAULTS = """rate = 0.6
seed = {seed}
kinds = ["unplug", "reboot", "corrupt", "drop", "jam", "miscount", "foreign-card"]
[devices.{dealing}]
outbound = {{ corrupt_rate = 0.02, drop_rate = 0.02 }}
"""


@dataclass
class Tally:
    counts: Counter[str] = field(default_factory=Counter)
    problems: list[str] = field(default_factory=list)

    def problem(self, kind: str, what: str) -> None:
        self.counts[kind] += 1
        self.problems.append(f"{kind}: {what}")
        print(f"  ! {kind}: {what}", flush=True)


def croupier(*args: str, log: Path) -> subprocess.Popen[bytes]:
    with log.open("ab") as out:
        return subprocess.Popen(
            [sys.executable, "-m", "croupier", "--log-json", *args], cwd=ROOT, stdout=out, stderr=out
        )


def table_config(game: str, directory: Path) -> Path:
    """The game's simulated table with its trail and state under ``directory``."""
    text = SIMULATED_TABLES[game].read_text()
    path = directory / "table.toml"
    path.write_text(re.sub(r"~/\.local/state/croupier/sim[\w-]*", str(directory / "state"), text))
    return path


def trail_files(audit: Path) -> list[Path]:
    """The trail's files in series order, plain and compressed (the service compresses the closed
    ones at each start, decision 0025)."""
    return [path for table in tables_in(audit) for path in series_files(audit, table)]


def records(audit: Path) -> list[str]:
    """Every line of the trail; read again when a file was compressed (and its plain copy removed)
    by the running service between listing and reading."""
    while True:
        try:
            return [line for path in trail_files(audit) for line in read_bytes(path).decode().splitlines()]
        except FileNotFoundError:
            continue


def crashed(log: Path) -> bool:
    return "Traceback" in log.read_text(errors="replace")


def judged(audit: Path, game: str, tally: Tally) -> None:
    """The trail under ``audit`` verified and judged by the procedure auditor: a chain that does not
    verify is records lost; a violation of the section's deal is counted in ``extra_cards``."""
    files = [str(path) for path in trail_files(audit)]
    command = [sys.executable, "-m", "croupier", "audit", "verify", *files]
    verify = subprocess.run(command, cwd=ROOT, capture_output=True, text=True)
    if verify.returncode == 0:
        tally.counts["trails_verified"] += 1
    else:
        tally.problem("lost", f"{game}: the trail does not verify: {verify.stdout.strip()}")
    procedure = subprocess.run(
        [sys.executable, "-m", "croupier", "audit", "procedure", "--json", *files],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    if procedure.returncode not in (0, 1):
        tally.problem("crashes", f"{game}: croupier audit procedure exited {procedure.returncode}")
        return
    verdict = json.loads(procedure.stdout)
    tally.counts["rounds_judged"] += verdict["rounds_checked"]
    if verdict["violations"]:
        kept = KEEP / f"{game}-{len(tally.problems)}"
        shutil.copytree(audit, kept, dirs_exist_ok=True)  # the temporary trail goes with its run
    for violation in verdict["violations"]:
        where = f"round {violation['round']} seq {violation['seq']}"
        tally.problem(
            "extra_cards", f"{game}: {where} {violation['clause']}: {violation['found']} (kept: {kept})"
        )


def kills(game: str, rng: random.Random, tally: Tally) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        directory = Path(tmp)
        config, audit, log = (
            table_config(game, directory),
            directory / "state" / "audit",
            directory / "run.log",
        )
        for _ in range(KILLS_PER_PASS):
            before = len(records(audit)) if audit.exists() else 0
            target = before + rng.randrange(3, 400)
            process = croupier("run", "--config", str(config), "--seed", str(rng.randrange(1 << 30)), log=log)
            deadline = time.monotonic() + 120
            while (len(records(audit)) if audit.exists() else 0) < target and time.monotonic() < deadline:
                if process.poll() is not None:
                    break
                time.sleep(0.01)
            if process.poll() is not None:
                tally.problem("crashes", f"{game}: croupier run exited {process.returncode} before the kill")
                return
            os.kill(process.pid, signal.SIGKILL)
            process.wait(timeout=60)
            tally.counts["kills"] += 1
            kept = records(audit)
            process = croupier("run", "--config", str(config), "--rounds", "2", log=log)
            try:
                process.wait(timeout=180)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
                tally.problem("crashes", f"{game}: a restarted service did not play its rounds in 180 s")
                return
            tally.counts["restarts"] += 1
            after = records(audit)
            lost = sum(1 for old, new in zip(kept, after, strict=False) if old != new) + max(
                0, len(kept) - len(after)
            )
            if lost:
                tally.problem("lost", f"{game}: {lost} records changed or gone after a restart")
            if process.returncode != 0 or crashed(log):
                kept = KEEP / f"{game}-crash-{len(tally.problems)}"
                shutil.copytree(directory, kept, dirs_exist_ok=True)  # the log and trail outlive the run
                tally.problem(
                    "crashes", f"{game}: the restarted service exited {process.returncode} (kept: {kept})"
                )
                return
        tally.counts["rounds"] += len({json.loads(line)["round"] for line in records(audit)} - {None})
        judged(audit, game, tally)


class DoubleTap:
    """An HTTP client that sends every POST twice, as a dealer's double tap or a retry after a lost
    answer would: the same body, and for a request that creates something the same
    ``Idempotency-Key``. It answers with the second reply and counts a second reply that differs
    from the first."""

    def __init__(self, session: aiohttp.ClientSession, tally: Tally, game: str) -> None:
        self.session, self.tally, self.game = session, tally, game

    def get(self, path: str, **kw: Any) -> Any:
        return self.session.get(path, **kw)

    @contextlib.asynccontextmanager
    async def post(self, path: str, headers: dict[str, str], **kw: Any) -> AsyncIterator[Any]:
        headers = {**headers, "Idempotency-Key": uuid.uuid4().hex}
        async with self.session.post(path, headers=headers, **kw) as first:
            once = (first.status, await first.json())
        async with self.session.post(path, headers=headers, **kw) as second:
            twice = (second.status, await second.json())
            self.tally.counts["requests_doubled"] += 1
            if once != twice:
                self.tally.problem("lost", f"{self.game}: {path} answered {once} then {twice}")
            yield second


async def _keyed_rounds(base: str, game: str, rounds: int, tally: Tally) -> None:
    async with aiohttp.ClientSession(base) as session:
        client = DoubleTap(session, tally, game)
        screen = Screen(client, SUPERVISOR, count=dealer_counts(game, 3), supervisor=SUPERVISOR)
        deadline = time.monotonic() + 60
        while True:
            try:
                await screen.state()
                break
            except aiohttp.ClientError:
                if time.monotonic() > deadline:
                    raise
                await asyncio.sleep(0.1)
        for _ in range(rounds):
            await screen.play_round(game, timeout=60)


def duplicates(game: str, rng: random.Random, tally: Tally) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        directory = Path(tmp)
        tokens = write_token_file(directory / "tokens.toml")
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            port = probe.getsockname()[1]
        config = table_config(game, directory)
        text = config.read_text().replace(
            'api_bind = "127.0.0.1:8443"', f'api_bind = "127.0.0.1:{port}"\napi_tokens = "{tokens}"'
        )
        config.write_text(text)
        log = directory / "run.log"
        process = croupier("run", "--config", str(config), "--seed", str(rng.randrange(1 << 30)), log=log)
        try:
            asyncio.run(_keyed_rounds(f"http://127.0.0.1:{port}", game, 3, tally))
        except (AssertionError, TimeoutError, aiohttp.ClientError) as failed:
            tally.problem(
                "crashes", f"{game}: rounds keyed twice over did not complete: {failed!r} (see {log})"
            )
        finally:
            process.send_signal(signal.SIGTERM)
            process.wait(timeout=120)
        if process.returncode != 0 or crashed(log):
            tally.problem("crashes", f"{game}: croupier run with the API exited {process.returncode}")
        audit = directory / "state" / "audit"
        wagers = Counter(
            (record["round"], record["fields"].get("seat"), record["fields"].get("wager"))
            for record in map(json.loads, records(audit))
            if record["kind"] == "wager" and not record["fields"].get("stays")
        )
        for key, times in wagers.items():
            if times > 1:
                tally.problem(
                    "extra_cards", f"{game}: round {key[0]} seat {key[1]}'s {key[2]} recorded {times} times"
                )
        tally.counts["rounds"] += len({json.loads(line)["round"] for line in records(audit)} - {None})
        judged(audit, game, tally)


def faults(game: str, rng: random.Random, tally: Tally) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        profile = Path(tmp) / "faults.toml"
        dealing = "shoe" if "shoe" in registry.game(game).devices else "shuffler"
        profile.write_text(FAULTS.format(seed=rng.randrange(1 << 30), dealing=dealing))
        seed = str(rng.randrange(1 << 30))
        command = [sys.executable, "-m", "croupier", "sim", "--game", game, "--rounds", "20"]
        command += ["--seed", seed, "--faults", str(profile), "--json", "--audit", tmp]
        try:
            run = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=SIM_TIMEOUT)
        except subprocess.TimeoutExpired:
            kept = KEEP / f"{game}-hang-{seed}"
            shutil.copytree(tmp, kept, dirs_exist_ok=True)
            tally.problem(
                "crashes", f"{game}: croupier sim --seed {seed} hung past {SIM_TIMEOUT} s (kept: {kept})"
            )
            return
        if run.returncode != 0 or "Traceback" in run.stderr:
            tally.problem(
                "crashes", f"{game}: croupier sim --seed {seed} exited {run.returncode}: {run.stderr[-300:]}"
            )
            return
        summary = json.loads(run.stdout)
        tally.counts["rounds"] += summary["rounds"]
        tally.counts["faults_injected"] += sum(summary["injected"].values())
        judged(Path(tmp), game, tally)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--minutes", type=float, default=5.0, help="how long the campaign runs")
    parser.add_argument("--seed", type=int, default=None, help="replay a campaign's random choices")
    args = parser.parse_args()
    seed = random.randrange(1 << 30) if args.seed is None else args.seed
    rng, tally = random.Random(seed), Tally()
    print(f"reliability campaign, seed {seed}, {args.minutes} minutes", flush=True)
    end, games = time.monotonic() + args.minutes * 60, list(registry.slugs())
    passes = 0
    while time.monotonic() < end:
        game = games[passes % len(games)]
        passes += 1
        kills(game, rng, tally)
        faults(game, rng, tally)
        duplicates(game, rng, tally)
        print(
            f"pass {passes} ({game}): " + " ".join(f"{k}={v}" for k, v in sorted(tally.counts.items())),
            flush=True,
        )
    counts = tally.counts
    print(
        " ".join(
            f"{k}={counts[k]}"
            for k in (
                "kills",
                "restarts",
                "rounds",
                "faults_injected",
                "requests_doubled",
                "trails_verified",
                "rounds_judged",
            )
        )
    )
    print(f"lost={counts['lost']} crashes={counts['crashes']} extra_cards={counts['extra_cards']}")


if __name__ == "__main__":
    main()
