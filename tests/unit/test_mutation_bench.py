"""scripts/mutation, the mutation-testing bench, without running mutmut: its module list parses, every
equivalent mutant says why, its arguments are checked, and its score is killed / (mutants - equivalent)."""

from __future__ import annotations

import importlib.machinery
import importlib.util
import sys
import tomllib
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "mutation"


def bench():
    loader = importlib.machinery.SourceFileLoader("mutation_bench", str(SCRIPT))
    spec = importlib.util.spec_from_loader(loader.name, loader)
    module = importlib.util.module_from_spec(spec)
    sys.modules[loader.name] = module  # dataclasses look their module up while the file runs
    loader.exec_module(module)
    return module


def test_every_module_has_tests_a_target_and_equivalents_that_say_why():
    mutation = bench()
    modules = mutation.load()
    targeted = ("games/free_bet_blackjack/settlement.py", "games/over_under/settlement.py", "devices/shoe.py")
    for path in targeted:
        assert modules[path].tests and modules[path].target >= 95
    for module in modules.values():
        for name, why in module.equivalent.items():
            assert name.startswith((module.dotted + ".x", "constant ")), name
            assert len(why) > 20


def test_each_module_gets_its_own_mutmut_configuration():
    mutation = bench()
    shoe = mutation.load()["devices/shoe.py"]
    config = tomllib.loads(mutation.pyproject(shoe))
    assert config["tool"]["mutmut"]["only_mutate"] == ["devices/shoe.py"]
    assert config["tool"]["mutmut"]["pytest_add_cli_args_test_selection"] == list(shoe.tests)
    assert config["tool"]["pytest"]["ini_options"]["timeout"] == 60, "the project's pytest settings kept"
    assert shoe.workdir.name == "devices.shoe"


def test_an_unknown_module_is_refused_before_anything_runs(capsys):
    with pytest.raises(SystemExit) as refused:
        bench().main(["games/no_such_game/settlement.py"])
    assert refused.value.code == 2 and "not in mutation.toml" in capsys.readouterr().err


def test_the_score_leaves_the_equivalent_mutants_out():
    score = bench().Score(mutants=10, killed=8, equivalent=["a", "b"])
    assert score.score == 100.0
    assert bench().Score(mutants=10, killed=6, equivalent=["a"]).score == pytest.approx(66.67, abs=0.01)
