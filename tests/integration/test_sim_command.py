"""``croupier sim``: each game plays on its simulated devices and the summary balances, a seed
replays exactly, the audit trail verifies, a fault profile's faults are counted, and a bad argument
says what would have worked."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from croupier.cli import main
from croupier.sim.summary import without_timing
from croupier.simulated import GAMES


def sim(capsys: pytest.CaptureFixture[str], *args: str) -> dict[str, Any]:
    assert main(["--log-level", "error", "sim", "--json", *args]) == 0
    return json.loads(capsys.readouterr().out)


@pytest.mark.parametrize("game", GAMES)
def test_each_game_summary_balances(game: str, capsys: pytest.CaptureFixture[str]) -> None:
    summary = sim(capsys, "--game", game, "--seats", "3", "--rounds", "3", "--seed", "11")
    assert (summary["game"], summary["rounds"], summary["seats"], summary["hands"]) == (game, 3, 3, 9)
    house = summary["house"]
    assert house["total"] == sum(house["by_wager"].values()) == -summary["players_net"]
    assert set(house["by_wager"]) == set(summary["outcomes"])
    assert summary["faults"] == {} and summary["irregularities"] == {}


def test_same_seed_same_summary(capsys: pytest.CaptureFixture[str]) -> None:
    args = ("--game", "free-bet-blackjack", "--rounds", "4", "--seed", "42")
    first, second = sim(capsys, *args), sim(capsys, *args)
    assert without_timing(first) == without_timing(second)
    other = sim(capsys, "--game", "free-bet-blackjack", "--rounds", "4", "--seed", "43")
    assert without_timing(other) != without_timing(first)


def test_audit_trail_verifies(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    audit = tmp_path / "audit"
    sim(capsys, "--game", "over-under", "--rounds", "2", "--seed", "1", "--audit", str(audit))
    files = sorted(audit.glob("sim-table-*.jsonl"))
    assert files
    assert main(["audit", "verify", *map(str, files)]) == 0
    assert "chain intact" in capsys.readouterr().out


def test_scripted_jam_is_cleared_and_counted(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    profile = tmp_path / "jam.toml"
    profile.write_text('[[script]]\nround = 2\nfault = "jam"\ndevice = "shoe"\n')
    summary = sim(
        capsys, "--game", "free-bet-blackjack", "--rounds", "3", "--seed", "2", "--faults", str(profile)
    )
    assert summary["rounds"] == 3
    assert summary["faults"] == {"JAM": 1}


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["--game", "poker"], "known games: free-bet-blackjack, over-under, heads-up-holdem, crazy-4-poker"),
        (["--game", "crazy-4-poker", "--seats", "9"], "positions: 1 to 6"),
        (["--game", "over-under", "--rounds", "0"], "--rounds must be at least 1"),
    ],
)
def test_bad_arguments_say_what_would_work(
    args: list[str], said: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["sim", *args]) == 2
    assert said in capsys.readouterr().err


def test_profile_naming_a_missing_device(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    profile = tmp_path / "bad.toml"
    profile.write_text('[[script]]\nround = 1\nfault = "unplug"\ndevice = "card-reader"\n')
    assert main(["--log-level", "error", "sim", "--game", "over-under", "--faults", str(profile)]) == 2
    assert "card-reader" in capsys.readouterr().err
