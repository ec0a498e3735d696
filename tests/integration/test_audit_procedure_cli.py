"""``croupier audit procedure`` on the trails the suite's simulations and scenario files write: every
round judged clean (672a.7, 686a.7, 677a.10, 657a.9), exit codes 0/1/2 and ``--json``.

The auditor is written to the regulation, apart from the round machines: a trail judged clean by
it is the second, independent reading agreeing with the first.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path

import pytest

from croupier.audit import AuditTrail, record_round
from croupier.audit.procedure import judge
from croupier.audit.record import read_records
from croupier.commands.sim import _rules
from games import registry
from simulator.scenario.run import load, run_scenario
from tests.unit.procedure_trails import Trail, holdem_round

ROOT = Path(__file__).resolve().parents[2]
PROCEDURE = ROOT / "croupier" / "audit" / "procedure"
SCENARIOS = sorted((ROOT / "tests" / "scenarios").glob("*.txt"))
#: Every game whose section the procedure auditor reads (croupier/audit/procedure/<game>.py).
GAMES = [game.slug for game in registry.registered() if (PROCEDURE / f"{game.module}.py").exists()]


def croupier(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "croupier", *args], cwd=ROOT, capture_output=True, text=True, timeout=300
    )


@pytest.mark.parametrize("game", GAMES)
def test_a_simulated_trail_is_judged_clean(tmp_path: Path, game: str) -> None:
    """672a.7, 686a.7, 677a.10, 657a.9: twelve simulated rounds (past the 5-round stub count of
    677a.10(d) and 657a.9(d)) dealt as each section reads."""
    sim = croupier("sim", "--game", game, "--rounds", "12", "--seed", "5", "--audit", str(tmp_path), "--json")
    assert sim.returncode == 0, sim.stderr
    judged = croupier("audit", "procedure", *map(str, sorted(tmp_path.glob("*.jsonl"))))
    assert judged.stdout.splitlines()[-1] == "rounds checked: 12, clean: 12, violations: 0", judged.stdout
    assert judged.returncode == 0


@pytest.mark.parametrize("path", SCENARIOS, ids=[p.stem for p in SCENARIOS])
def test_a_scenario_trail_is_judged_clean(tmp_path: Path, path: Path) -> None:
    """Each scenario file's rounds, written to a trail as the table writes them, judged clean."""
    scenario = load(path)
    options = _rules(scenario.game, scenario.seats, scenario.rules)
    outcome = asyncio.run(run_scenario(scenario, options))
    with AuditTrail(tmp_path, "scenario") as trail:
        if "rules" in options:
            trail.append("rules_in_force", None, {"game": scenario.game, "rules": options["rules"].plain()})
        for before, round_ in zip(outcome.before, outcome.rounds, strict=True):
            for made in before:  # the table's records before the round: its burns
                trail.append(made.kind, None, made.fields)
            record_round(trail, scenario.game, round_.records)
        files = trail.files()
    verdict = judge(read_records(files))
    assert [str(v) for v in verdict.violations] == []


def test_exit_codes_and_json(tmp_path: Path) -> None:
    """Exit 1 naming the violations with ``--json`` for tools; exit 2 on an unreadable file."""
    sim = croupier("sim", "--game", "over-under", "--rounds", "2", "--seed", "5", "--audit", str(tmp_path))
    assert sim.returncode == 0, sim.stderr
    files = [str(p) for p in sorted(tmp_path.glob("*.jsonl"))]
    judged = croupier("audit", "procedure", "--json", *files)
    verdict = json.loads(judged.stdout)
    assert (judged.returncode, verdict["rounds_checked"], verdict["violations"]) == (0, 2, [])
    # Five Hold 'Em rounds with no stub count: 677a.10(d) broken once, exit 1, named in the JSON.
    uncounted = Trail("heads-up-holdem")
    for number in range(1, 6):
        holdem_round(uncounted, number, counted=None)
    with AuditTrail(tmp_path / "uncounted", "T1") as trail:
        for record in uncounted.records:
            trail.append(record.kind, record.round, dict(record.fields))
        written = [str(path) for path in trail.files()]
    judged = croupier("audit", "procedure", "--json", *written)
    verdict = json.loads(judged.stdout)
    assert judged.returncode == 1, judged.stdout
    (violation,) = verdict["violations"]
    assert violation["clause"] == "677a.10(d)" and violation["round"] == 5
    assert set(violation) == {"round", "seq", "clause", "expected", "found"}
    bad = tmp_path / "bad.jsonl"
    bad.write_text("not a record\n")
    assert croupier("audit", "procedure", str(bad)).returncode == 2
    assert croupier("audit", "procedure", str(tmp_path / "missing.jsonl")).returncode == 2
