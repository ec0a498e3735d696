"""``croupier sim``: each game plays on its simulated devices and the summary balances, a seed
replays exactly, the audit trail verifies, a fault profile's faults are counted, and a bad argument
says what would have worked."""

from __future__ import annotations

import asyncio
import io
import json
import random
import re
import time
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console

from croupier import logs
from croupier.cli import main
from croupier.commands.sim import _rules
from croupier.commands.terminal import Felt
from croupier.tables.events import HeardRound, RoundListener
from games import registry
from games.common.records import Record
from simulator.games.free_bet_blackjack import ScriptedFreeBetBlackjack
from simulator.games.registry import simulation
from simulator.players import simulated_players, table_options
from simulator.scenario.actors import stack_top
from simulator.scenario.parse import parse
from simulator.summary import Tally, without_timing
from simulator.tables import simulated_table
from simulator.view import Course, SimView

GAMES = registry.slugs()


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


@pytest.mark.parametrize("game", GAMES)
def test_same_seed_same_summary(capsys: pytest.CaptureFixture[str], game: str) -> None:
    """Deterministic for a seed: the players, the shuffler and a shoe's own reshuffles all draw
    from it (Hold 'Em's shoe reshuffles every round)."""
    args = ("--game", game, "--rounds", "4", "--seed", "42")
    first, second = sim(capsys, *args), sim(capsys, *args)
    assert without_timing(first) == without_timing(second)
    other = sim(capsys, "--game", game, "--rounds", "4", "--seed", "43")
    assert without_timing(other) != without_timing(first)


def test_minutes_play_until_the_time_is_up(capsys: pytest.CaptureFixture[str]) -> None:
    """``--minutes`` alone plays rounds, unlimited in number, until the time is up, the round in
    play finished."""
    summary = sim(capsys, "--game", "over-under", "--minutes", "0.02", "--seed", "3")
    assert summary["rounds"] >= 1 and summary["timing"]["seconds"] >= 1.2


def test_audit_trail_verifies(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    audit = tmp_path / "audit"
    sim(capsys, "--game", "over-under", "--rounds", "2", "--seed", "1", "--audit", str(audit))
    files = sorted(audit.glob("sim-table-*.jsonl"))
    assert files
    assert main(["audit", "verify", *map(str, files)]) == 0
    assert "chain intact" in capsys.readouterr().out


@pytest.mark.parametrize(("game", "device"), [("free-bet-blackjack", "shoe"), ("crazy-4-poker", "shuffler")])
def test_scripted_jam_is_cleared_and_counted(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], game: str, device: str
) -> None:
    """A jam holds the table until the floor clears it, whether the shoe jams mid-deal or the
    shuffler refuses the round's shuffle with its fault latched (decision 0017)."""
    profile = tmp_path / "jam.toml"
    profile.write_text(f'[[script]]\nround = 2\nfault = "jam"\ndevice = "{device}"\n')
    summary = sim(capsys, "--game", game, "--rounds", "3", "--seed", "2", "--faults", str(profile))
    assert summary["rounds"] == 3
    assert summary["faults"] == {"JAM": 1}


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["--game", "poker"], f"known games: {', '.join(GAMES)}"),
        (["--game", "crazy-4-poker", "--seats", "9"], "positions: 1 to 6"),
        (["--game", "over-under", "--rounds", "0"], "--rounds must be at least 1"),
        (["--game", "over-under", "--minutes", "0"], "--minutes must be more than 0"),
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


DEALER_SCRIPT = """
[[script]]
round = 2
fault = "miscount"          # the stub where the game counts one, else the pickup

[[script]]
round = 3
fault = "miscount"
at = "pickup"

[[script]]
round = 4
fault = "extra-card"        # foreign-card: into the next batch, or a joker into the shoe
"""


@pytest.mark.parametrize("game", GAMES)
def test_dealer_faults_show_in_the_summary_and_the_table_plays_on(
    game: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A card to the floor (stub or pickup) and a foreign card: each game's rule reacts (a misdeal
    finding, a held round ruled, a failed batch cleared), every round is played, and simulate()
    checks the world's card count balances at the end."""
    profile = tmp_path / "dealer.toml"
    profile.write_text(DEALER_SCRIPT)
    summary = sim(
        capsys, "--game", game, "--seats", "2", "--rounds", "7", "--seed", "3", "--faults", str(profile)
    )
    assert summary["rounds"] == 7
    assert summary["injected"] == {"foreign-card": 1, "miscount": 2}
    seen = simulation(game).dealer_faults  # what the game's rules make of the dealer's faults
    assert set(summary["irregularities"]) == seen.irregularities
    assert seen.cleared <= set(summary["faults"])
    assert summary["voided_rounds"] == seen.voided + summary["rulings"].get("void", 0)
    if "discard-count" in seen.irregularities or "collect-count" in seen.irregularities:
        assert summary["rulings"].get("continue"), "the short rack held the round for a ruling"
    house = summary["house"]
    assert house["total"] == sum(house["by_wager"].values()) == -summary["players_net"]


def test_random_faults_replay_with_the_profile_seed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``rate`` strikes at random from the profile's own seeded generator: the same profile and
    seed strike the same faults, and the summary says which."""
    profile = tmp_path / "random.toml"
    profile.write_text('rate = 0.5\nseed = 4\nkinds = ["miscount", "extra-card", "jam"]\n')
    args = ("--game", "free-bet-blackjack", "--rounds", "6", "--seed", "8", "--faults", str(profile))
    first, second = sim(capsys, *args), sim(capsys, *args)
    assert first["injected"] and sum(first["injected"].values()) <= 6
    assert set(first["injected"]) <= {"miscount", "foreign-card", "jam"}
    assert without_timing(first) == without_timing(second)


@pytest.mark.parametrize("game", GAMES)
def test_every_kind_of_fault_at_random_and_the_table_plays_every_round(
    game: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A fault of any kind in almost a third of the rounds — devices unplugged, rebooted, frames
    corrupted or lost (commands meeting a rebooted device, card movers whose outcome is unknown),
    jams, the dealer's miscounts, foreign cards: the table holds on each, the floor clears it,
    every round is played, and simulate() checks the world's card count balances at the end."""
    profile = tmp_path / "everything.toml"
    kinds = '["unplug", "reboot", "corrupt", "drop", "jam", "miscount", "extra-card"]'
    profile.write_text(f"rate = 0.3\nseed = 11\nkinds = {kinds}\n")
    summary = sim(capsys, "--game", game, "--rounds", "40", "--seed", "4", "--faults", str(profile))
    assert summary["rounds"] == 40
    assert {"unplug", "reboot"} <= set(summary["injected"]) and "LINK_LOST" in summary["faults"]
    house = summary["house"]
    assert house["total"] == sum(house["by_wager"].values()) == -summary["players_net"]


@pytest.mark.parametrize("seed", [3, 8])
@pytest.mark.parametrize("game", GAMES)
def test_wire_faults_between_rounds_hold_the_table_and_every_round_is_played(
    game: str, seed: int, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """decision 0016, 672a.7(d): devices unplugged, rebooted, frames corrupted or lost in most rounds,
    as a round begins and as it ends, so that the steps between rounds (the shoe changed, a batch
    collected and counted, delivered, shuffled) meet lost links: each holds the table like a step of a
    round (no LinkLost out of ``croupier sim``), the floor clears it, every round is played, and
    simulate() checks the world's card count balances at the end."""
    profile = tmp_path / "wire.toml"
    profile.write_text(f'rate = 0.6\nseed = {seed}\nkinds = ["unplug", "reboot", "corrupt", "drop"]\n')
    summary = sim(capsys, "--game", game, "--rounds", "24", "--seed", str(seed), "--faults", str(profile))
    assert summary["rounds"] == 24 and "LINK_LOST" in summary["faults"]
    house = summary["house"]
    assert house["total"] == sum(house["by_wager"].values()) == -summary["players_net"]


@pytest.mark.parametrize("game", ["free-bet-blackjack", "over-under"])
def test_672a7d_the_shoe_rebooting_as_each_round_ends_holds_the_shoe_change_not_a_crash(
    game: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """672a.7(d)(1), decision 0016: the shoe reboots as every round ends (``at = "end"``), so the shoe
    change meets a device that lost its session: the collect and count holds on LINK_LOST like a step
    of a round and goes on once the floor cleared it. Before, ``croupier sim`` died with an uncaught
    LinkLost ("GetCounts not run: the device lost its session") at the first shoe change."""
    profile = tmp_path / "reboots.toml"
    strike = '[[script]]\nround = {}\nfault = "reboot"\ndevice = "shoe"\nat = "end"\n'
    profile.write_text("".join(strike.format(n) for n in range(1, 21)))
    summary = sim(capsys, "--game", game, "--rounds", "20", "--seed", "3", "--faults", str(profile))
    assert summary["rounds"] == 20 and summary["injected"] == {"reboot": 20}
    assert "LINK_LOST" in summary["faults"]


def test_random_jams_strike_the_shuffler_where_no_shoe_deals(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """At Crazy 4 Poker (dealt from the hand) a random jam strikes the shuffler, which refuses its
    shuffle with the fault latched; the table holds, the floor clears, every round is played."""
    profile = tmp_path / "jams.toml"
    profile.write_text('rate = 0.6\nseed = 3\nkinds = ["jam"]\n')
    summary = sim(capsys, "--game", "crazy-4-poker", "--rounds", "6", "--seed", "1", "--faults", str(profile))
    assert summary["rounds"] == 6 and summary["injected"] == {"jam": summary["faults"]["JAM"]} != {}


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("rate = 2\n", "rate must be a chance per round"),
        ('rate = 0.1\nkinds = ["flood"]\n', "kinds ['flood']"),
        ('[[script]]\nround = 1\nfault = "jam"\nat = "stub"\n', "a miscount takes at"),
        ('[[script]]\nround = 1\nfault = "spill"\n', "known: unplug"),
    ],
)
def test_a_bad_profile_says_what_would_work(
    text: str, said: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    profile = tmp_path / "bad.toml"
    profile.write_text(text)
    assert main(["sim", "--game", "over-under", "--faults", str(profile)]) == 2
    assert said in capsys.readouterr().err


def test_sim_logs_at_warning_unless_told(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The game's info lines would tear the live view: ``sim`` defaults to warning, ``run`` and the
    others keep info, and ``--log-level`` wins either way."""
    levels: list[str] = []
    monkeypatch.setattr(logs, "configure", lambda level, json=None: levels.append(level))
    main(["sim", "--game", "poker"])
    main(["--log-level", "debug", "sim", "--game", "poker"])
    main(["audit", "verify", "/nonexistent.jsonl"])
    capsys.readouterr()
    assert levels == ["warning", "debug", "info"]


class Frames(RoundListener):
    """The live view drawn at each record, as a terminal of ``width`` columns would show it."""

    def __init__(self, view: SimView, width: int = 120) -> None:
        self.view, self.width, self.frames = view, width, list[str]()

    def record(self, record: Record) -> None:
        self.frames.append(self.draw())

    def round_ended(self, round_: HeardRound) -> None:
        self.frames.append(self.draw())

    def draw(self) -> str:
        console = Console(record=True, width=self.width, file=io.StringIO())
        console.print(self.view)
        return console.export_text()


def watched(sim: Any, game: str, rounds: int) -> Frames:
    """The live view of ``sim``'s table, drawn at each record."""
    tally, felt = Tally(), Felt(int(sim.table.rules.positions))
    frames = Frames(SimView(sim, tally, felt, Course(rounds, 0.0, time.monotonic()), game=game))
    for listener in (tally, felt, frames):
        sim.table.events.subscribe(listener)
    return frames


def test_the_live_view_shows_the_seats_shoe_and_links_and_never_a_face_down_card() -> None:
    """One round drawn at each record: each frame shows the shoe count, every device's link state
    and the run's pace, and no frame before the hole card's own record turns it up shows its face
    (Ts, stacked); the seat's cards show in its panel."""
    game = "free-bet-blackjack"
    script = parse(f"game {game}\nseats 1\nshoe Tc 6h 7d Ts 2s\nwager 1 blackjack=1000\ndecide 1 stand\n")
    round_script = script.rounds[0]

    async def play() -> list[str]:
        async with simulated_table(game, name="view", shuffler_seed=1, **_rules(game, 1)) as table:
            frames = watched(table, game, 1)
            await table.table.prepare_round()
            stack_top(table.world, round_script.shoe, round_script.where)
            await table.table.play_round(ScriptedFreeBetBlackjack(game, round_script))
        return frames.frames

    frames = asyncio.run(play())
    assert frames
    for frame in frames:
        assert re.search(r"shoe: \d+ cards", frame) and re.search(r"[\d.]+ rounds/s", frame)
        assert "devices: card-reader ready, shoe ready, shuffler ready" in frame
    hole = next(i for i, frame in enumerate(frames) if "dealer: 6h ▒▒" in frame)  # dealt face down
    turned = next(i for i, frame in enumerate(frames) if "dealer: 6h Ts" in frame)
    assert hole < turned
    for frame in frames[:turned]:
        assert not re.search(r"\bTs\b", frame), frame
    assert "Tc 7d" in frames[-1] and "round 1 of 1" in frames[-1] and "0:00 left" in frames[-1]


def test_the_live_view_shows_the_progressive_meters_at_a_table_with_one() -> None:
    """At Crazy 4 Poker the view shows each progressive level as the table last read it (605a.7(a):
    the meters the players see), beside the house's; its seats as many side by side as the width
    holds."""
    game = "crazy-4-poker"

    async def play() -> Frames:
        async with simulated_table(game, name="view", shuffler_seed=1) as sim:
            frames = watched(sim, game, 1)
            players = simulated_players(game, random.Random(1), **table_options(game, sim))
            await sim.table.play_round(players)
        return frames

    frames = asyncio.run(play())
    last = frames.frames[-1]
    assert re.search(r"meters \(progressive\): L1 \$[\d,.]+ \(\d+ hits", last), last
    frames.width = 60
    assert [line for line in frames.draw().splitlines() if "seat 1" in line and "seat 2" in line]
    assert not [line for line in frames.draw().splitlines() if "seat 1" in line and "seat 3" in line]


def test_the_text_summary_lists_the_injected_faults_and_each_links_figures(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The summary a person reads: the faults the profile struck, by kind and count, and for each
    device the commands its link sent again and the frames that failed their CRC (a lost command is
    sent again; a noisy shoe line corrupts frames both ways)."""
    profile = tmp_path / "faults.toml"
    profile.write_text(
        "[devices.shoe]\ninbound = { corrupt_rate = 0.05 }\noutbound = { corrupt_rate = 0.05 }\n\n"
        '[[script]]\nround = 1\nfault = "drop"\ndevice = "card-reader"\n\n'
        '[[script]]\nround = 2\nfault = "drop"\ndevice = "card-reader"\n\n'
        '[[script]]\nround = 2\nfault = "jam"\ndevice = "shoe"\n'
    )
    args = ["--game", "free-bet-blackjack", "--rounds", "3", "--seed", "5", "--faults", str(profile)]
    assert main(["--log-level", "error", "sim", *args]) == 0
    text = capsys.readouterr().out
    assert "  injected: drop 2, jam 1" in text, text
    links = re.search(
        r"  links: card-reader (\d+) retransmitted, \d+ CRC errors; "
        r"shoe \d+ retransmitted, (\d+) CRC errors;",
        text,
    )
    assert links, text
    assert int(links.group(1)) >= 1, "a lost command to the card reader sent again"
    assert int(links.group(2)) > 0, "the noisy shoe line's corrupted frames"


@pytest.mark.parametrize("game", GAMES)
def test_tampered_firmware_among_every_kind_of_fault_and_each_authenticity_check_in_the_trail(
    game: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """58 Pa. Code § 461a.20(b), § 461a.10(s): with faults of every kind at random and a device's
    firmware tampered with in round 2, the trail holds each authenticity check: every device's at
    start-up, a reconnect's, the failed challenge (its own fault, FIRMWARE_UNVERIFIED) and the
    floor's check on demand that passes before it clears; every round is still played."""
    profile = tmp_path / "everything.toml"
    profile.write_text('rate = 0.3\nseed = 11\n\n[[script]]\nround = 2\nfault = "tamper"\n')
    audit = tmp_path / "audit"
    args = ("--game", game, "--rounds", "16", "--seed", "4", "--faults", str(profile), "--audit", str(audit))
    summary = sim(capsys, *args)
    assert summary["rounds"] == 16 and summary["injected"]["tamper"] >= 1
    records = [json.loads(line) for path in sorted(audit.glob("*.jsonl")) for line in path.open()]
    checks = [record["fields"] for record in records if record["kind"] == "authenticity_check"]
    assert {check["device"] for check in checks} == {
        c["device"] for c in checks if c["trigger"] == "start-up"
    }
    assert all(check["check"] == "challenge" and check["expected"] for check in checks)
    (failed, *_) = [check for check in checks if check["result"] == "failed"]
    assert failed["trigger"] in ("due", "reconnect") and failed["reported"] not in failed["expected"]
    later = checks[checks.index(failed) + 1 :]
    assert any(
        c["device"] == failed["device"] and c["trigger"] == "on demand" and c["result"] == "passed"
        for c in later
    )
    latched = {r["fields"]["code"] for r in records if r["kind"] == "fault_latched"}
    assert any(code.endswith("FIRMWARE_UNVERIFIED") for code in latched)
    assert any(code.endswith("FIRMWARE_UNVERIFIED") for code in summary["faults"]), "cleared by the floor"
    if "reboot" in summary["injected"]:
        assert any(check["trigger"] == "reconnect" for check in checks)


def test_a_profile_strikes_the_devices_in_a_child_process_as_in_process(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--simulated-devices child`` (decision 0048): every device fault reaches the devices in
    their own process, the floor clears what they latch, and the run plays out as it does with the
    devices in process: the same rounds, outcomes and house result. Which faults latch is the same
    for the faults every strike latches; a tampered firmware is found only by a check that lands
    within its 0.3 s, which the two runs' timing decides."""
    strikes = [
        ("1", "unplug", "shoe"),
        ("2", "jam", "shoe"),
        ("2", "door", "shuffler"),
        ("3", "tamper", "shoe"),
        ("3", "reboot", "card-reader"),
        ("4", "corrupt", "shuffler"),
    ]
    script = '[[script]]\nround = {}\nfault = "{}"\ndevice = "{}"\nseconds = 0.3\n'
    profile = tmp_path / "every-device-fault.toml"
    profile.write_text("".join(script.format(*strike) for strike in strikes))
    args = ("--game", "free-bet-blackjack", "--rounds", "5", "--seed", "3", "--faults", str(profile))
    child = without_timing(sim(capsys, *args, "--simulated-devices", "child"))
    inside = without_timing(sim(capsys, *args))
    assert child["injected"] == {fault: 1 for _, fault, _ in strikes}
    for run in (child, inside):
        assert {"DOOR_OPEN", "JAM", "LINK_LOST"} <= set(run["faults"])
        assert set(run["faults"]) <= {"DOOR_OPEN", "JAM", "LINK_LOST", "FIRMWARE_UNVERIFIED"}
    assert child["rounds"] == 5
    assert {key: value for key, value in child.items() if key != "faults"} == {
        key: value for key, value in inside.items() if key != "faults"
    }
