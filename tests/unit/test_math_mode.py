"""``croupier sim --math`` (docs/math.md, decision 0042): the same seed and worker count give the
same report, the command refuses what it cannot do with a clear error, every wager placed is in the
sums and settled, the interval is the ratio estimator's, and the strategies choose as the rules say.
The figures against published house edges: tests/integration/test_math_figures.py."""

from __future__ import annotations

import hashlib
import json
import math
import pickle
import random
from dataclasses import replace
from types import SimpleNamespace

import pytest

from croupier.cli import main
from croupier.config.table import DEFAULT_TABLE_CONFIG
from games import registry
from games.common.movement import Movement
from games.common.records import RecordKind
from games.common.seating import clockwise
from games.free_bet_blackjack import RuleSet as FreeBetRules
from games.free_bet_blackjack.decisions import legal
from games.free_bet_blackjack.positions import Position
from games.free_bet_blackjack.round import Round
from games.free_bet_blackjack.settlement import blackjack_payment
from games.over_under import RuleSet as OverUnderRules
from games.over_under.inputs import Choice
from simulator.games.registry import simulation
from simulator.math import tally as tallies
from simulator.math.free_bet_blackjack import FreeBetBasicStrategy
from simulator.math.over_under import BestElection
from simulator.math.play import MathError, math_game, play_rounds
from simulator.math.run import MACHINE, Engine, play_math, play_share, shares
from simulator.math.tally import ALL_WAGERS, Z95, MathTally, WagerSums
from vocabulary.cards import Card
from vocabulary.rules import Rule

FBB = "free-bet-blackjack"
#: A table configuration as `croupier run` reads it (Free Bet Blackjack, Push 22 pays 11 to 1).
SIMULATED_TABLE = DEFAULT_TABLE_CONFIG


def math_json(capsys, *argv: str) -> str:
    assert main(["sim", "--math", "--json", *argv]) == 0
    return capsys.readouterr().out


@pytest.mark.parametrize("game", registry.slugs())
def test_the_same_seed_and_workers_give_the_same_report(capsys, game):
    argv = ("--game", game, "--rounds", "30", "--seed", "11", "--workers", "2")
    first = math_json(capsys, *argv)
    assert math_json(capsys, *argv) == first
    report = json.loads(first)
    assert (report["game"], report["rounds"], report["workers"], report["seed"]) == (game, 30, 2, 11)
    other = math_json(capsys, "--game", game, "--rounds", "30", "--seed", "12", "--workers", "2")
    assert other != first  # the seed decides the cards


def test_one_worker_in_process_plays_what_a_worker_process_would():
    """Worker 0 of a one-worker run is played in this process; a share of two workers in their
    processes merges to the sum of the shares played here."""
    rules = FreeBetRules.example()
    apart = [play_share(FBB, rules, "basic", 3, index, share) for index, share in enumerate(shares(9, 2))]
    merged = play_math(FBB, rules, rounds=9, seed=3, workers=2, strategy="basic")
    assert merged.rounds == 9 == sum(tally.rounds for tally in apart)
    assert merged.wagers["blackjack"].house == sum(tally.wagers["blackjack"].house for tally in apart)
    assert merged.report() == _merged(apart).report()


def _merged(tallies: list[MathTally]) -> MathTally:
    whole = MathTally(belongs={"lammer": "blackjack"})
    for tally in tallies:
        whole.merge(tally)
    return whole


def test_shares_are_fixed_and_add_up():
    assert shares(10, 3) == [4, 3, 3]
    assert shares(2, 2) == [1, 1]


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (
            ["--math", "--rounds", "5"],
            "--math needs --game GAME or --config TABLE.toml; games with a math mode: free-bet-blackjack",
        ),
        (["--math", "--game", "blackjack", "--rounds", "5"], "--game: unknown game 'blackjack'"),
        (["--math", "--game", FBB], "--math needs --rounds N of at least 1, got None"),
        (["--math", "--game", FBB, "--rounds", "0"], "--math needs --rounds N of at least 1, got 0"),
        (["--math", "--game", FBB, "--rounds", "5", "--workers", "0"], "--workers must be 1 to --rounds (5)"),
        (["--math", "--game", FBB, "--rounds", "2", "--workers", "3"], "--workers must be 1 to --rounds (2)"),
        (["--math", "--game", FBB, "--rounds", "5", "--strategy", "card-counter"], "plays basic, simulated"),
        (["--math", "--game", "over-under", "--rounds", "5", "--strategy", "basic"], "plays best, simulated"),
        (["--math", "--game", FBB, "--rounds", "5", "--audit", "trail"], "--audit: not taken with"),
        (["--math", "--game", FBB, "--rounds", "5", "--minutes", "1", "--pace", "1"], "--minutes, --pace:"),
        (["--math", "--scenario", "x.scenario", "--rounds", "5"], "--scenario: not taken with --math"),
        (["--math", "--game", FBB, "--rounds", "5", "--seats", "7"], "--seats 7: positions"),
        (["--game", FBB, "--rounds", "5", "--workers", "2"], "--workers: taken only with --math"),
        (["--game", FBB, "--strategy", "basic"], "--strategy: taken only with --math"),
        (["--game", FBB, "--config", str(SIMULATED_TABLE)], "--config: taken only with --math"),
        (["--game", FBB, "--floor-config", "floor.toml"], "--floor-config: taken only with --floor"),
        (["--math", "--game", FBB, "--rounds", "5", "--engine", "fast"], "--engine fast: no such engine"),
        (
            ["--math", "--game", "over-under", "--rounds", "5", "--engine", "direct"],
            "--engine direct: over-under has no round played straight through; use machine",
        ),
        (
            ["--math", "--game", FBB, "--rounds", "5", "--engine", "machine", "--check-every", "9"],
            "--check-every: taken only with --engine direct; the machine engine plays every round through",
        ),
        (["--math", "--game", FBB, "--rounds", "5", "--check-every", "0"], "--check-every 0: check every 1"),
        (["--game", FBB, "--rounds", "5", "--engine", "machine"], "--engine: taken only with --math"),
        (["--game", FBB, "--rounds", "5", "--check-every", "5"], "--check-every: taken only with --math"),
        (
            ["--math", "--game", "over-under", "--rounds", "5", "--check-every", "5"],
            "--check-every: taken only with --engine direct, which over-under has not",
        ),
        (
            ["--math", "--game", "over-under", "--config", str(SIMULATED_TABLE), "--rounds", "5"],
            f"--game over-under: {SIMULATED_TABLE} configures a free-bet-blackjack table",
        ),
        (
            ["--math", "--config", str(SIMULATED_TABLE), "--rounds", "5", "--seats", "2"],
            f"--seats: not taken with --config: {SIMULATED_TABLE} seats 6 (table.seats)",
        ),
        (["--math", "--config", "no-such-table.toml", "--rounds", "5"], "no-such-table.toml"),
    ],
)
def test_the_command_refuses_what_it_cannot_do(capsys, argv, said):
    assert main(["sim", *argv]) == 2
    error = capsys.readouterr().err
    assert error.startswith("croupier: configuration error: ")
    assert said in error


def test_every_wager_placed_is_in_the_sums():
    """The simulated players stake at random and place Push 22 on some positions only: the sums
    are counted again here from each round's positions and settlements."""
    game = math_game(FBB)
    rules = FreeBetRules.example()
    dealing = game.dealing(rules, random.Random(6))
    players = game.strategies["simulated"](random.Random(5), rules, dealing)
    tally = MathTally(belongs=game.belongs)
    wagered = {"blackjack": 0, "push22": 0, "insurance": 0}
    house = dict.fromkeys(wagered, 0)

    def each(round_):
        tally.add(round_)
        for position in round_.positions.values():
            wagered["blackjack"] += position.blackjack
            wagered["push22"] += position.push22
            wagered["insurance"] += position.insurance
        for action in round_.actions:
            house["blackjack" if action.wager == "lammer" else str(action.wager)] -= action.net

    play_rounds(rules, players, dealing, 60, each)
    assert wagered["push22"] and wagered["push22"] < 6 * 60 * 500  # on some positions only
    for kind, cents in wagered.items():
        sums = tally.wagers.get(kind, WagerSums())
        assert (sums.wagered, sums.house) == (cents, house[kind])
    assert tally.total.wagered == sum(wagered.values())
    assert tally.total.house == sum(house.values())
    assert tally.rounds == tally.total.rounds == 60


def test_every_holdem_wager_placed_is_in_the_sums():
    """Heads Up Hold 'Em: the Ante and Odds placed, and the Play Wager made on a street, which has no
    wager record (``staked``)."""
    game = math_game("heads-up-holdem")
    rules = simulation("heads-up-holdem").game.rules.example()
    dealing = game.dealing(rules, random.Random(8))
    players = game.strategies["simulated"](random.Random(9), rules, dealing)
    tally = MathTally(belongs=game.belongs)
    wagered: dict[str, int] = {}

    def each(round_):
        tally.add(round_, staked=game.staked(round_))
        for position in round_.positions.values():
            for wager, amount in position.stakes.placed():
                wagered[str(wager)] = wagered.get(str(wager), 0) + amount

    play_rounds(rules, players, dealing, 40, each)
    assert wagered["play"] and dealing.shoes == 40  # a fresh deck each round
    assert {kind: sums.wagered for kind, sums in tally.wagers.items()} == wagered


def test_a_game_without_a_math_module_is_refused_by_name(capsys, monkeypatch):
    """A game added to the registry has no math mode until simulator/math/<module>.py declares one."""
    known = registry.game(FBB)
    monkeypatch.setattr(
        registry, "game", lambda slug: replace(known, slug=slug, package="games.no_such_game")
    )
    assert main(["sim", "--math", "--game", "new-game", "--rounds", "5"]) == 2
    error = capsys.readouterr().err
    assert "--game: new-game has no math mode; games with one:" in error


def test_every_crazy_4_wager_placed_is_in_the_sums():
    """Crazy 4 Poker: Ante, Super Bonus, Queens Up and Six Card Bonus placed, and the Play Wager made
    on deciding; no Progressive Payout Wager (its awards come from the controller's meters)."""
    game = math_game("crazy-4-poker")
    rules = simulation("crazy-4-poker").game.rules.example(**simulation("crazy-4-poker").rules)
    dealing = game.dealing(rules, random.Random(3))
    players = game.strategies["simulated"](random.Random(4), rules, dealing)
    tally = MathTally(belongs=game.belongs)
    wagered: dict[str, int] = {}

    def each(round_):
        tally.add(round_, staked=game.staked(round_))
        for position in round_.positions.values():
            for wager in ("ante", "super_bonus", "queens_up", "six_card_bonus", "progressive", "play"):
                amount = getattr(position, wager)
                if amount:
                    wagered[wager] = wagered.get(wager, 0) + amount

    play_rounds(rules, players, dealing, 40, each)
    assert "progressive" not in wagered and wagered["play"] and wagered["six_card_bonus"]
    assert {kind: sums.wagered for kind, sums in tally.wagers.items()} == wagered


def _round(records, actions):
    """A completed round as the tally reads it."""
    entries = [SimpleNamespace(kind=kind, fields=fields) for kind, fields in records]
    return SimpleNamespace(number=1, records=entries, actions=actions)


def _action(seat, wager, movement, amount):
    return SimpleNamespace(
        seat=seat,
        wager=wager,
        movement=movement,
        amount=amount,
        net={Movement.PAY: amount, Movement.COLLECT: -amount}.get(movement, 0),
        rule=Rule("686a.7(k)(1)", "a win"),
        details=dict,
    )


def test_a_wager_never_settled_is_an_error_not_a_dropped_wager():
    placed = [(RecordKind.WAGER, {"seat": 1, "wager": "ante", "amount": 100})]
    placed.append((RecordKind.WAGER, {"seat": 2, "wager": "ante", "amount": 100}))
    with pytest.raises(MathError, match=r"ante wager at seat\(s\) \[2\] never settled"):
        MathTally().add(_round(placed, [_action(1, "ante", Movement.PAY, 100)]))
    with pytest.raises(MathError, match="where no bonus wager was placed"):
        MathTally().add(_round(placed[:1], [_action(1, "bonus", Movement.PAY, 100)]))
    # Two types unsettled at other seats: named for the type placed first, with all its seats.
    stood = [("ante", 1, 100), ("bonus", 1, 50), ("ante", 2, 100), ("ante", 3, 100)]
    with pytest.raises(MathError, match=r"round 5: ante wager at seat\(s\) \[2, 3\] never settled"):
        MathTally().count(5, stood, [_action(1, "ante", Movement.PAY, 100)])


def test_withdrawn_and_repeated_wagers_count_once():
    records = [
        (RecordKind.WAGER, {"seat": 1, "wager": "ante", "amount": 500}),
        (RecordKind.WAGER_WITHDRAWN, {"seat": 1, "wager": "ante", "amount": 500}),
        (RecordKind.WAGER, {"seat": 1, "wager": "ante", "amount": 300}),
        (RecordKind.WAGER, {"seat": 1, "wager": "ante", "amount": 300, "stays": True}),
    ]
    tally = MathTally()
    tally.add(_round(records, [_action(1, "ante", Movement.COLLECT, 300)]))
    assert (tally.wagers["ante"].wagered, tally.wagers["ante"].house) == (300, 300)


def test_the_interval_is_the_ratio_estimators_over_rounds():
    rng = random.Random(1)
    rounds = [(rng.choice([-200, 100, 0, 300]), rng.choice([100, 200])) for _ in range(50)]
    sums = WagerSums()
    for house, wagered in rounds:
        sums.add_round(1, wagered, house)
    edge, half = sums.edge()
    ratio = sum(x for x, _ in rounds) / sum(y for _, y in rounds)
    spread = sum((x - ratio * y) ** 2 for x, y in rounds) / (len(rounds) - 1)
    mean_wagered = sum(y for _, y in rounds) / len(rounds)
    assert edge == pytest.approx(ratio)
    assert half == pytest.approx(Z95 * math.sqrt(spread / len(rounds)) / mean_wagered)
    report = sums.report()
    assert report["ci95"] == pytest.approx([ratio - half, ratio + half])


def test_the_report_has_every_figure(capsys):
    argv = ("--game", "over-under", "--rounds", "12", "--seed", "2", "--workers", "1")
    report = json.loads(math_json(capsys, *argv))
    assert set(report["wagers"]) == {"ante", "over_23", "under_18"}
    ante = report["wagers"]["ante"]
    assert ante["wagers"] == 12 * 6 and ante["wagered"] == 12 * 6 * 1000
    assert sum(line["count"] for line in ante["outcomes"].values()) == ante["wagers"]
    totals = report["observed"]["three-card total"]
    assert sum(value["count"] for value in totals.values()) == 12 * 6
    assert all(6 <= int(total) <= 33 for total in totals)
    assert report[ALL_WAGERS]["wagered"] == sum(w["wagered"] for w in report["wagers"].values())
    assert report["strategy"] == "best" and "ratio estimator" in report["ci_method"]


def test_free_bet_basic_strategy_plays_the_free_bet_chart():
    """Where Free Bet's free doubles, free splits and dealer 22 change the usual chart: hard 12
    hits against every card (a 22 pushes what it would have beaten), 5-5 takes the free double, and
    every free pair splits."""
    rules = FreeBetRules.example()
    strategy = FreeBetBasicStrategy(random.Random(0), rules)

    def decides(faces, up):
        position = Position(1, 1000)
        hand = position.hands[0]
        hand.cards = tuple(Card.parse(face) for face in faces)
        return strategy.decide(hand, Card.parse(up), legal(hand, position, rules)).value

    assert [decides(["Tc", "2d"], up) for up in ("4s", "5s", "6s")] == ["hit"] * 3
    assert decides(["Tc", "6d"], "6s") == "stand" and decides(["Tc", "6d"], "7s") == "hit"
    assert decides(["5c", "5d"], "Ts") == "double_down"
    assert decides(["8c", "8d"], "As") == "split" and decides(["4c", "4d"], "5s") == "split"
    assert decides(["Tc", "Kd"], "6s") == "stand"
    assert strategy.wagers(1, 2)[1].push22 == 1000  # Push 22 measured on every position


def test_over_under_best_election_takes_the_higher_return():
    rules = OverUnderRules.example()
    best = BestElection(random.Random(0), rules)
    assert {first: best.choices[first] for first in (2, 5, 6, 11)} == {
        2: Choice.UNDER_18,
        5: Choice.UNDER_18,
        6: Choice.OVER_23,
        11: Choice.OVER_23,
    }


def test_the_simulated_strategy_is_the_simulators_players():
    rules = simulation(FBB).game.rules.example()
    players = math_game(FBB).strategies["simulated"](random.Random(0), rules, None)
    assert type(players) is type(simulation(FBB).players(random.Random(0)))


def test_the_persons_report_names_the_run_and_each_wager(capsys):
    argv = ["sim", "--math", "--game", "over-under", "--rounds", "20", "--seed", "4", "--workers", "1"]
    assert main([*argv, "--seats", "2"]) == 0
    shown = capsys.readouterr().out
    assert shown.startswith("over-under math mode: 20 rounds, 2 positions, 6 decks,")
    assert "seed 4, 1 workers" in shown and "strategy best:" in shown
    assert "  ante: 40 wagers in 20 rounds, wagered 400.00, house " in shown
    assert "(95 % CI " in shown and "  three-card total: " in shown


def test_a_table_configuration_is_played_as_submitted(capsys, tmp_path):
    """--config plays the file's game, seats, decks and pay tables (a Push 22 paying 25 to 1 that no
    built-in table has), and the report names the file by its SHA-256."""
    submitted = DEFAULT_TABLE_CONFIG.read_text()
    for old, new in (
        ("seats = 6", "seats = 3"),
        ("decks = 6", "decks = 8"),
        ('any = "11:1"', 'any = "25:1"'),
    ):
        assert old in submitted
        submitted = submitted.replace(old, new)
    table = tmp_path / "BJ-09.toml"
    table.write_text(submitted)
    report = json.loads(
        math_json(capsys, "--config", str(table), "--rounds", "400", "--seed", "5", "--workers", "1")
    )
    assert (report["game"], report["positions"], report["decks"]) == (FBB, 3, 8)
    assert report["table_config"] == {
        "file": str(table),
        "table": "sim-free-bet-blackjack",
        "sha256": hashlib.sha256(table.read_bytes()).hexdigest(),
    }
    paid = [line for line in report["wagers"]["push22"]["outcomes"] if line.startswith("pay ")]
    assert paid and all(line.startswith("pay 25 to 1") for line in paid)
    named = math_json(
        capsys, "--game", FBB, "--config", str(table), "--rounds", "400", "--seed", "5", "--workers", "1"
    )
    assert json.loads(named) == report  # --game may name the file's game too
    default = json.loads(math_json(capsys, "--game", FBB, "--rounds", "40", "--seed", "5", "--workers", "1"))
    assert "table_config" not in default and default["positions"] == 6


def test_the_free_bet_play_order_kept_is_the_order_listed_again(monkeypatch):
    """The Free Bet Blackjack round keeps its hands' play order between a position placed and a hand
    split (decision 0042): after every message of rounds with splits, re-splits and every seat
    wagered, the order kept is the order listed afresh from the positions, hand by hand."""
    handle, checked, splits = Round.handle, [0], [0]

    def checking(round_: Round, message):
        records = handle(round_, message)
        if round_._order is not None:
            fresh = [hand for seat in clockwise(round_.positions) for hand in round_.positions[seat].hands]
            assert len(round_._order) == len(fresh)
            assert all(kept is hand for kept, hand in zip(round_._order, fresh, strict=True))
            checked[0] += 1
        splits[0] += sum(1 for record in records if record.fields.get("action") == "split")
        return records

    monkeypatch.setattr(Round, "handle", checking)
    play_share(FBB, FreeBetRules(), "basic", 3, 0, 300, engine=Engine(MACHINE))
    assert checked[0] > 1000 and splits[0] > 10


@pytest.mark.parametrize("game", ["free-bet-blackjack", "crazy-4-poker"])
def test_a_tally_counts_alike_whatever_it_keeps_of_the_settlements_it_has_seen(monkeypatch, game):
    """The tally keeps what each settlement counts towards by the Action object (MathTally._seen):
    Free Bet Blackjack's are shared between rounds, Crazy 4 Poker's made anew. Kept to two, so that
    it is cleared again and again, the tally counts the same share exactly alike."""
    rules = registry.game(game).rules.example()
    kept = play_share(game, rules, "simulated", 5, 0, 60).report()
    monkeypatch.setattr(tallies, "SEEN_KEPT", 2)
    tally = play_share(game, rules, "simulated", 5, 0, 60)
    assert tally.report() == kept and len(tally._seen) <= 2


def test_a_tally_sent_to_another_process_goes_without_the_ids_of_this_ones_settlements():
    """A worker's tally is pickled to the process that merges it; the ids it keeps its settlements
    by name objects of the worker only, so they stay behind, and the copy counts on alike."""
    rules = registry.game(FBB).rules.example()
    tally = play_share(FBB, rules, "basic", 5, 0, 30)
    copy = pickle.loads(pickle.dumps(tally))
    assert tally._seen and copy._seen == {} and copy.report() == tally.report()
    paid = blackjack_payment(Position(1, 1000), rules)
    for counted in (tally, copy):
        counted.count(31, [("blackjack", 1, 1000)], [paid])
    assert copy.report() == tally.report()
