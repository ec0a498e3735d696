"""A reliability campaign against the table service, for as long as it is given.

    python bench/reliability.py [--minutes M] [--seed S]

Each pass takes the next of the four games and runs, on simulated tables over their real
transports:

- **kills**: ``croupier run`` (simulated players and floor supervisor) killed with SIGKILL at a
  random record of its trail, started again on the same trail and state, several times, then
  stopped with SIGTERM. Every record written before a kill must be found unchanged after the
  restart (else: records lost), the restarted service must play on (a cut-off round is held and
  voided by the floor), and the whole trail must verify (``croupier audit verify``).
- **faults**: ``croupier sim`` with random faults of every kind at a high rate; the run must end
  with the world's card count balanced (the simulator proves it after every round).

A crash is any run that ends on its own with a non-zero status or a traceback, other than the
kills themselves. Prints the counts as it goes and, last, ``lost=N crashes=N extra_cards=N``:
all 0 when everything held. ``extra_cards`` counts rounds whose trail holds more cards than were
dealt to its places and racked (a card dealt twice), from the trail alone.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from _common import ROOT

GAMES = {
    "free-bet-blackjack": "simulated.toml",
    "over-under": "simulated-over-under.toml",
    "heads-up-holdem": "simulated-heads-up-holdem.toml",
    "crazy-4-poker": "simulated-crazy-4-poker.toml",
}
KILLS_PER_PASS = 3
#: Every kind the simulator injects (docs/sim.md), at a rate that strikes most rounds.
FAULTS = """rate = 0.6
seed = {seed}
kinds = ["unplug", "reboot", "corrupt", "drop", "jam", "miscount", "foreign-card"]
[devices.shoe]
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
    text = (ROOT / "config" / "tables" / GAMES[game]).read_text()
    path = directory / "table.toml"
    path.write_text(re.sub(r"~/\.local/state/croupier/sim[\w-]*", str(directory / "state"), text))
    return path


def records(audit: Path) -> list[str]:
    return [line for path in sorted(audit.glob("*.jsonl")) for line in path.read_text().splitlines()]


def crashed(log: Path) -> bool:
    return "Traceback" in log.read_text(errors="replace")


def extra_cards(lines: list[str]) -> int:
    """Rounds in which more cards reached the places than left them for the rack or were set
    aside, once the round is complete: a card dealt twice shows as one the rack never got."""
    placed: Counter[int] = Counter()
    left: Counter[int] = Counter()
    complete = set()
    for line in lines:
        record = json.loads(line)
        number, kind, fields = record["round"], record["kind"], record["fields"] or {}
        if number is None:
            continue
        if kind == "card":
            placed[number] += 1
        elif kind in ("pickup", "set_aside"):
            left[number] += 1
        elif kind == "state" and fields.get("dest") == "complete":
            complete.add(number)
    return sum(1 for number in complete if placed[number] > left[number] and left[number])


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
                tally.problem(
                    "crashes", f"{game}: the restarted service exited {process.returncode} (see {log})"
                )
                return
        lines = records(audit)
        tally.counts["rounds"] += len({json.loads(line)["round"] for line in lines} - {None})
        tally.counts["extra_cards"] += extra_cards(lines)
        verify = subprocess.run(
            [sys.executable, "-m", "croupier", "audit", "verify", *map(str, sorted(audit.glob("*.jsonl")))],
            cwd=ROOT,
            capture_output=True,
            text=True,
        )
        if verify.returncode == 0:
            tally.counts["trails_verified"] += 1
        else:
            tally.problem("lost", f"{game}: the trail does not verify: {verify.stdout.strip()}")


def faults(game: str, rng: random.Random, tally: Tally) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        profile = Path(tmp) / "faults.toml"
        profile.write_text(FAULTS.format(seed=rng.randrange(1 << 30)))
        seed = str(rng.randrange(1 << 30))
        run = subprocess.run(
            [
                sys.executable,
                "-m",
                "croupier",
                "sim",
                "--game",
                game,
                "--rounds",
                "20",
                "--seed",
                seed,
                "--faults",
                str(profile),
                "--json",
                "--audit",
                tmp,
            ],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=600,
        )
        if run.returncode != 0 or "Traceback" in run.stderr:
            tally.problem(
                "crashes", f"{game}: croupier sim --seed {seed} exited {run.returncode}: {run.stderr[-300:]}"
            )
            return
        summary = json.loads(run.stdout)
        tally.counts["rounds"] += summary["rounds"]
        tally.counts["faults_injected"] += sum(summary["injected"].values())
        tally.counts["extra_cards"] += extra_cards(records(Path(tmp)))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--minutes", type=float, default=5.0, help="how long the campaign runs")
    parser.add_argument("--seed", type=int, default=None, help="replay a campaign's random choices")
    args = parser.parse_args()
    seed = random.randrange(1 << 30) if args.seed is None else args.seed
    rng, tally = random.Random(seed), Tally()
    print(f"reliability campaign, seed {seed}, {args.minutes} minutes", flush=True)
    end, games = time.monotonic() + args.minutes * 60, list(GAMES)
    passes = 0
    while time.monotonic() < end:
        game = games[passes % len(games)]
        passes += 1
        kills(game, rng, tally)
        faults(game, rng, tally)
        print(
            f"pass {passes} ({game}): " + " ".join(f"{k}={v}" for k, v in sorted(tally.counts.items())),
            flush=True,
        )
    counts = tally.counts
    print(
        " ".join(
            f"{k}={counts[k]}" for k in ("kills", "restarts", "rounds", "faults_injected", "trails_verified")
        )
    )
    print(f"lost={counts['lost']} crashes={counts['crashes']} extra_cards={counts['extra_cards']}")


if __name__ == "__main__":
    main()
