"""Every scenario file in tests/scenarios/ plays as written (docs/scenarios.md): one file per tricky
case, its clauses in its header comment, which is this test's description in the report. The files
are run as ``croupier sim --scenario FILE`` runs them: the game's simulated table with the cards
stacked and the players scripted, each ``expect`` checked against the round records in order.

Under ``pytest --hil RIG_TOML`` these tests are collected (marked ``hil``) but a scenario that stacks
the cards or injects a fault cannot do so on real devices, so it is skipped with SCENARIO_SKIP,
as tests/hil.py skips the conformance checks that need injected faults."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from croupier.cli import main
from croupier.commands.sim import _rules
from croupier.errors import ConfigError
from games import registry
from simulator.scenario.parse import ScenarioError, parse
from simulator.scenario.run import load, run_scenario
from tests import hil

SCENARIOS = sorted((Path(__file__).parent.parent / "scenarios").glob("*.txt"))
SCENARIO_SKIP = "needs a stacked shoe: simulator only"
#: The runner plays on the simulated table's devices; on a rig it would not exercise the rig at all.
RUNNER_SKIP = "the scenario runner drives simulated devices only: simulator only"


def _skip_on_rig(config: pytest.Config, needs_stacking: bool) -> None:
    if hil.rig(config) is not None:
        pytest.skip(SCENARIO_SKIP if needs_stacking else RUNNER_SKIP)


@pytest.mark.hil
@pytest.mark.parametrize("path", SCENARIOS, ids=[path.stem for path in SCENARIOS])
def test_scenario_plays_as_written(path: Path, request: pytest.FixtureRequest) -> None:
    scenario = load(path)
    request.node.user_properties.append(("scenario", scenario.title))
    _skip_on_rig(request.config, scenario.needs_stacking)
    outcome = asyncio.run(run_scenario(scenario, _rules(scenario.game, scenario.seats, scenario.rules)))
    assert outcome.ok, outcome.report()
    assert outcome.checked >= 5, f"{path}: a scenario checks what matters, at least five expectations"


def test_every_game_has_scenarios() -> None:
    games = {load(path).game for path in SCENARIOS}
    assert games == set(registry.slugs())
    assert len(SCENARIOS) >= 14


@pytest.mark.parametrize(
    ("text", "line", "says"),
    [
        ("game poker\n", 1, "unknown game 'poker'"),
        ("# a title\n\nseats 2\nshoe As\n", 4, "before the 'game' line"),
        ("game over-under\nwager 1 ante=1000\nshoe As Zz\n", 3, "'Zz' is not a card"),
        ("game over-under\nwager 1 ante=ten\n", 2, "'ten' is not a whole number"),
        ("game over-under\nwager 1 blackjack=1000\n", 2, "over-under has no wager blackjack"),
        ("game over-under\nwager 1 ante=1000\ndecide 1 hit\n", 3, "'hit' is no over-under decision"),
        (
            "game crazy-4-poker\nwager 1 ante=1000 super_bonus=1000\ndecide 1 play:x\n",
            3,
            "not a whole number",
        ),
        ("game over-under\nwager 1 ante=1000\ninsurance 1 decline\n", 3, "Free Bet Blackjack directive"),
        ("game over-under\nwager 1 ante=1000\nfault jam dealer at card 2\n", 3, "can jam the shoe"),
        ("game over-under\nwager 1 ante=1000\nexpect net 1\n", 3, "expect net SEAT CENTS"),
        ("game over-under\nwager 1 ante=1000\nfault miscount stub\n", 3, "over-under counts no stub"),
        ("game over-under\nwager 1 ante=1000\nfault miscount floor\n", 3, "'fault miscount pickup'"),
        (
            "game heads-up-holdem\nwager 1 ante=1000 odds=1000\nfault foreign-card\n",
            3,
            "a round shuffles no batch",
        ),
        ("game crazy-4-poker\nwager 1 ante=1000\nfault foreign-card at card 2\n", 3, "slips a joker"),
        ("game over-under\nrule bonus_pay_table { 6 =\n", 2, "is not a TOML value"),
        ("game over-under\nwager 1 ante=1000\nrule ante_odds '1:1'\n", 3, "'rule' comes after 'game'"),
        ("game over-under\nwager 1 ante=1000\nseats 2\n", 3, "must come before the first round"),
        ("game over-under\nwager 1 ante=1000\ndeal 1\n", 3, "unknown directive 'deal'"),
        ("game heads-up-holdem\nwager 1 ante=1000 odds=1000\ndealer D-2\n", 3, "game with a burn card"),
        ("game over-under\nwager 1 ante=1000\nexpect card place='seat 1\n", 3, "No closing quotation"),
    ],
)
def test_a_malformed_file_names_file_line_and_what_is_wrong(text: str, line: int, says: str) -> None:
    with pytest.raises(ScenarioError) as error:
        parse(text, "bad.txt")
    assert str(error.value).startswith(f"bad.txt:{line}: "), error.value
    assert says in str(error.value)


def test_a_round_that_asks_what_the_file_does_not_answer_names_the_seat_and_prompt() -> None:
    scenario = parse(
        "game free-bet-blackjack\nseats 1\nshoe Tc 6h 7d Ts 9s\nwager 1 blackjack=1000\n", "short.txt"
    )
    with pytest.raises(ScenarioError, match=r"short.txt:3: seat 1 was asked for a decision on hand 0"):
        asyncio.run(run_scenario(scenario, _rules(scenario.game, scenario.seats)))


def test_cli_exits_1_naming_the_first_mismatch(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "wrong.txt"
    path.write_text(
        "# a wrong expectation\ngame over-under\nseats 1\nshoe 7h Ks Qs\nwager 1 ante=1000\n"
        "decide 1 over_23\nexpect decision seat=1 choice=over_23\nexpect net 1 5\n"
    )
    assert main(["--log-level", "error", "sim", "--scenario", str(path)]) == 1
    out = capsys.readouterr().out
    assert f"{path}:8: expected seat 1 net 5, got 2000" in out


def test_cli_exits_0_for_a_scenario_that_plays_as_written(capsys: pytest.CaptureFixture[str]) -> None:
    path = next(path for path in SCENARIOS if path.stem == "ou_surrender_still_dealt")
    assert main(["--log-level", "error", "sim", "--scenario", str(path)]) == 0
    assert "ok: 1 round(s)" in capsys.readouterr().out


def test_cli_reports_a_malformed_file_with_exit_1(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "bad.txt"
    path.write_text("game over-under\nwager 1 ante=1000\ndecide 1 stand\n")
    assert main(["--log-level", "error", "sim", "--scenario", str(path)]) == 1
    assert f"{path}:3: 'stand' is no over-under decision" in capsys.readouterr().out


def test_a_rule_line_sets_the_table_rule_and_a_refused_one_names_it() -> None:
    """``rule KEY VALUE`` reaches the game's RuleSet as a configuration file's key would; a value
    the rules refuse is a configuration error naming the key."""
    scenario = parse('game over-under\nrule ante_odds "2:1"\nwager 1 ante=1000\n', "r.txt")
    assert scenario.rules == {"ante_odds": "2:1"}
    assert str(_rules(scenario.game, scenario.seats, scenario.rules)["rules"].ante_odds) == "2 to 1"
    with pytest.raises(ConfigError, match="ante_odds"):
        _rules("over-under", None, {"ante_odds": "lots"})
