"""Fault plans from configuration: good files load, bad ones name the file, key and problem."""

from __future__ import annotations

from pathlib import Path

import pytest

from croupier.cli import main
from croupier.commands.firmware import load_fault_plan
from croupier.errors import ConfigError

CONFIG = Path(__file__).resolve().parents[2] / "config" / "faults"


def test_shipped_fault_plans_load():
    plans = sorted(CONFIG.glob("*.toml"))
    assert plans
    for path in plans:
        plan = load_fault_plan(path)
        assert plan.outbound.drop_rate or plan.inbound.drop_rate or plan.silent or plan.pace_baud


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("drop = 1", "unknown key(s) ['drop']"),
        ("[outbound]\ndrop_rate = 2.0", "faults.outbound: drop_rate must be between 0 and 1, got 2.0"),
        ("[outbound]\nsplit = 3", "faults.outbound: unknown key(s) ['split']"),
        ("inbound = 3", "faults.inbound must be a table"),
        ("silent = 'yes'", "faults.silent must be true or false"),
        ("pace_baud = -9600", "faults.pace_baud must be a non-negative integer"),
        ("[outbound\n", "not valid TOML"),
    ],
)
def test_bad_fault_plan_is_named(tmp_path, text, message):
    path = tmp_path / "plan.toml"
    path.write_text(text)
    with pytest.raises(ConfigError) as err:
        load_fault_plan(path)
    assert str(path) in str(err.value) and message in str(err.value)


def test_cli_reports_a_bad_fault_plan_and_exits_2(tmp_path, capsys):
    path = tmp_path / "plan.toml"
    path.write_text("[inbound]\ndelay = -1\n")
    assert main(["firmware", "diagnostic", "--faults", str(path)]) == 2
    err = capsys.readouterr().err
    assert "configuration error" in err and "delay and split_gap must not be negative" in err


def test_missing_fault_plan_is_named(tmp_path):
    with pytest.raises(ConfigError, match="cannot read"):
        load_fault_plan(tmp_path / "absent.toml")
