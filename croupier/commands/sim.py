"""``croupier sim``: the developer simulator. A whole virtual table in one command: every device
simulated at the byte level over real pseudo-terminals and the simulated USB bus, simulated players
and dealer, a simulated floor supervisor for faults and held rounds. It prints a summary (JSON with
--json, docs/sim.md), can write the audit trail, and replays exactly for a seed. With --floor, many
such tables on one broker with the floor service beside them (croupier.commands.sim_floor).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import sys
import time
from collections.abc import Iterable, Mapping
from functools import partial
from pathlib import Path
from typing import Any

from rich.console import Console

from croupier.audit.writer import AuditTrail
from croupier.commands.run import SIMULATED_DEVICES
from croupier.commands.sim_floor import DEFAULT_PACE, LIVE_ROUNDS_PER_HOUR, run_floor
from croupier.commands.terminal import Felt, shown
from croupier.config.table import TableConfig, file_sha256, load_table_config
from croupier.errors import ConfigError
from croupier.service.journal import TableJournal
from croupier.state import TableState
from games import registry
from games.common.config import ConfigError as RulesError
from games.registry import UnknownGame
from simulator.faults import FaultProfile, FaultScript
from simulator.floor import FloorSupervisor, controller_key, on_the_floor, repair_sim
from simulator.games.registry import example_rules, simulation
from simulator.math.play import NoMathMode, math_game, math_slugs
from simulator.math.run import CHECK_EVERY, engine_for, play_math, progress_bar, timed
from simulator.math.run import report as math_report
from simulator.math.tally import ALL_WAGERS
from simulator.players import simulated_players, table_options
from simulator.summary import Tally
from simulator.tables import simulated_table
from simulator.view import Course, ProgressBar, SimView

TABLE_NAME = "sim-table"


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "sim",
        help="play a whole simulated table and summarise it",
        description="Play ROUNDS rounds at a virtual table (every device simulated over real ptys and "
        "the simulated USB bus) with simulated players, dealer and floor supervisor; print a summary. "
        "See docs/sim.md.",
    )
    # The games shown as choices, but checked by run(): an unknown one is then refused as the
    # command's other mistakes are, naming the known games.
    p.add_argument(
        "--game",
        metavar=f"{{{','.join(registry.slugs())}}}",
        help="the game to play (not with --scenario)",
    )
    p.add_argument(
        "--scenario",
        type=Path,
        metavar="FILE",
        help="play one scenario file (docs/scenarios.md): stacked cards, scripted players, the expected "
        "records checked; exit 0 if it played as written, else 1 naming file:line",
    )
    p.add_argument(
        "--records", action="store_true", help="with --scenario: also print every record of its rounds"
    )
    p.add_argument("--seats", type=int, default=None, help="players seated (default: every position)")
    p.add_argument(
        "--rounds", type=int, default=None, help="rounds to play (default 10; with --minutes alone, no limit)"
    )
    p.add_argument(
        "--minutes",
        type=float,
        default=None,
        help="play for this long (the round in play is finished); with --rounds, whichever ends first",
    )
    p.add_argument("--seed", type=int, default=None, help="replay exactly (default: a fresh seed, printed)")
    p.add_argument("--json", action="store_true", help="print the summary as JSON (docs/sim.md); no view")
    p.add_argument(
        "--audit",
        type=Path,
        metavar="DIR",
        help=f"write the audit trail into this directory (file {TABLE_NAME}-*.jsonl, verify with "
        "`croupier audit verify`); the table's state store goes beside it",
    )
    p.add_argument("--faults", type=Path, metavar="PROFILE", help="a fault profile (TOML, docs/sim.md)")
    p.add_argument(
        "--simulated-devices",
        choices=SIMULATED_DEVICES,
        default="in-process",
        help="where the devices run: 'in-process' (default: the fastest rounds, decision 0048), on "
        "threads of this process, the USB devices on the simulated USB bus; 'child', a `croupier "
        "firmware` process started and stopped with the table, each device behind a pseudo-terminal, "
        "as `croupier run` runs them",
    )
    p.add_argument(
        "--pace",
        type=float,
        default=None,
        help="seconds between rounds (default: 1 with the live view, else 0); with --floor, each table's "
        f"pace as a multiple of a live table's ({LIVE_ROUNDS_PER_HOUR} rounds an hour; "
        f"default {DEFAULT_PACE:g})",
    )
    floor = p.add_argument_group(
        "a simulated floor", "many simulated tables on one broker, with the floor service and its view"
    )
    floor.add_argument(
        "--floor",
        action="store_true",
        help="run --tables simulated tables publishing to one broker and the floor service beside them; the "
        "floor view's address and read-only token are printed; Ctrl-C stops (docs/sim.md)",
    )
    floor.add_argument("--tables", type=int, default=4, help="with --floor: how many tables (default 4)")
    floor.add_argument(
        "--table-config",
        type=Path,
        metavar="FILE",
        help="with --floor: the simulated table each plays (default: croupier run's, Free Bet Blackjack)",
    )
    floor.add_argument(
        "--floor-config",
        type=Path,
        metavar="FILE",
        help="with --floor: the floor service's configuration (docs/floor.md); default: the embedded broker, "
        "the store in a temporary directory",
    )
    math = p.add_argument_group(
        "math mode",
        "--math plays the game's rounds alone, with no devices, for house edges (docs/math.md)",
    )
    math.add_argument(
        "--math",
        action="store_true",
        help="math mode: play --rounds rounds from a seeded shuffle; house edge and hit frequency per wager",
    )
    math.add_argument(
        "--workers",
        type=int,
        default=None,
        help="with --math: worker processes (default: the processors this process may use); the report "
        "is the same for the same --seed and --workers",
    )
    math.add_argument(
        "--config",
        type=Path,
        metavar="TABLE.toml",
        help="with --math: play the rules, pay tables and seats of this table configuration (the file "
        "`croupier run` reads); its game, which --game may name too",
    )
    math.add_argument(
        "--strategy",
        default=None,
        help="with --math: the players' strategy (default: the one that maximises the player's return)",
    )
    math.add_argument(
        "--engine",
        default=None,
        metavar="{direct,machine}",
        help="with --math: 'direct' plays the game's round straight through, checking a sample against "
        "the table's round machine (Free Bet Blackjack; the default where a game has it); 'machine' plays "
        "every round through the table's round machine",
    )
    math.add_argument(
        "--check-every",
        type=int,
        default=None,
        metavar="N",
        help=f"with --engine direct: play each worker's first round and every Nth through the table's round "
        f"machine too and stop at the first difference (default {CHECK_EVERY})",
    )
    p.set_defaults(handler=run)


#: What --floor does not take.
_NOT_WITH_FLOOR = (
    "--game", "--scenario", "--records", "--seats", "--rounds", "--minutes", "--json", "--audit", "--faults",
    "--math", "--workers", "--strategy", "--config", "--engine", "--check-every",
)  # fmt: skip


def _refuse_given(args: argparse.Namespace, options: Iterable[str], where: str) -> None:
    """Refuse the ``options`` given of those the mode asked for does not take, in the one shape every
    refusal of ``croupier sim`` has: each given, as typed, then ``where`` says where they are taken
    (``--workers: taken only with --math``)."""
    given = [option for option in options if getattr(args, option[2:].replace("-", "_")) not in (None, False)]
    if given:
        raise ConfigError(f"{', '.join(given)}: {where}")


def _rules(
    game: str,
    seats: int | None,
    rules: Mapping[str, Any] | None = None,  # Any: TOML values
) -> dict[str, Any]:  # Any: TOML values
    """The table's rules with ``seats`` positions (a refused count names the limit) and ``rules``,
    a scenario's ``rule KEY VALUE`` lines, over the simulated table's own (a refusal names them)."""
    if seats is None and not rules:
        return {}
    simulated = simulation(game)
    mapping = {**simulated.rules, **({"positions": seats} if seats is not None else {}), **dict(rules or {})}
    try:
        return {"rules": simulated.game.rules.example(**mapping), **simulated.options}
    except RulesError as exc:
        said = f"--seats {seats}" if not rules else f"seats {seats}, rules {sorted(rules)}"
        raise ConfigError(f"{said}: {exc}") from None


def run(args: argparse.Namespace) -> int:
    if args.floor:
        taken = "--tables, --pace, --seed, --table-config, --floor-config"
        _refuse_given(args, _NOT_WITH_FLOOR, f"not taken with --floor, which takes {taken}")
        if args.simulated_devices == "child":
            raise ConfigError("--simulated-devices child: not taken with --floor, played in process")
        return run_floor(args)
    _refuse_given(args, ("--table-config", "--floor-config"), "taken only with --floor")
    if args.simulated_devices == "child" and args.math:
        raise ConfigError("--simulated-devices child: not taken with --math, which plays no devices")
    if args.simulated_devices == "child" and args.scenario is not None:
        raise ConfigError("--simulated-devices child: not taken with --scenario, which plays in process")
    if args.math:
        return run_math(args)
    _refuse_given(
        args, ("--workers", "--strategy", "--config", "--engine", "--check-every"), "taken only with --math"
    )
    if args.scenario is not None:
        return run_scenario_file(args.scenario, records=args.records)
    if args.game is None:
        known = ", ".join(registry.slugs())
        raise ConfigError(f"--game GAME or --scenario FILE is required; known games: {known}")
    try:
        registry.game(args.game)
    except UnknownGame as unknown:
        raise ConfigError(f"--game: {unknown}") from None
    if args.rounds is not None and args.rounds < 1:
        raise ConfigError(f"--rounds must be at least 1, got {args.rounds}")
    if args.minutes is not None and args.minutes <= 0:
        raise ConfigError(f"--minutes must be more than 0, got {args.minutes}")
    rounds = args.rounds if args.rounds is not None else 0 if args.minutes is not None else 10
    options = _rules(args.game, args.seats)
    profile = FaultProfile.load(args.faults) if args.faults else None
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(2**32)
    view = "none"
    if not args.json:
        view = "live" if sys.stdout.isatty() else "bar" if sys.stderr.isatty() else "none"
    pace = args.pace if args.pace is not None else (1.0 if view == "live" else 0.0)
    seconds = 60 * args.minutes if args.minutes is not None else 0.0
    if args.simulated_devices == "child":
        options["in_child"] = True
    run = simulate(args.game, (rounds, seconds), seed, options, args.audit, profile, view, pace)
    summary = asyncio.run(run)
    if args.json:
        print(json.dumps(summary, indent=2))
    else:
        print(format_summary(summary))
    return 0


async def simulate(
    game: str,
    length: tuple[int, float],
    seed: int,
    options: dict[str, Any],  # Any: TOML values
    audit: Path | None = None,
    profile: FaultProfile | None = None,
    view: str = "none",
    pace: float = 0.0,
) -> dict[str, Any]:  # Any: a JSON summary
    """Play the rounds ``length`` says (a number of rounds, seconds of play: 0 for no limit, whichever
    ends first) and return the summary (docs/sim.md). The players draw from ``random.Random(seed)``
    and the shuffler is seeded with ``seed`` (it reports itself seeded)."""
    started = time.monotonic()
    course = Course(*length, started=started)
    tally = Tally()
    with contextlib.ExitStack() as stack:
        journal = _journal(stack, audit, game) if audit is not None else None
        async with simulated_table(game, name=TABLE_NAME, shuffler_seed=seed, **options) as sim:
            table = sim.table
            if journal is not None:
                journal.keep(table)
            # The tally and the fault script are the run's own account: a fault in either stops the
            # run (durable), where the views below are only looked at (logged and skipped).
            table.events.subscribe(tally, durable=True)
            script = None
            if profile is not None:
                profile.check(sim.devices)
                script = FaultScript(profile, sim, game)
                table.events.subscribe(script, durable=True)
            felt = Felt(int(table.rules.positions))
            table.events.subscribe(felt)
            if view == "bar":
                table.events.subscribe(ProgressBar(course))
            players = simulated_players(game, random.Random(seed), **table_options(game, sim))
            repair = partial(repair_sim, sim)
            floor = FloorSupervisor(table, tally, journal, repair=repair, reset_key=controller_key(sim))
            drawn = shown(SimView(sim, tally, felt, course, game=game), Console()) if view == "live" else None
            async with on_the_floor(floor), drawn or contextlib.nullcontext():
                played = 0
                while not course.done(played):
                    if played and pace:
                        await asyncio.sleep(pace)
                    await table.prepare_round()
                    await table.play_round(players)
                    played += 1
            sim.world.check()  # whatever faults struck, every card is still accounted for
            links = {name: conn.link.counters for name, conn in sorted(sim.connections.items())}
        if journal is not None:
            journal.table_event("table_closed", {"rounds": table.rounds})
            journal.service_stop(f"{table.rounds} rounds played")
    seats = int(table.rules.positions)
    summary = tally.summary(game=game, seed=seed, seats=seats, seconds=time.monotonic() - started)
    summary["injected"] = script.injected() if script is not None else {}
    summary["links"] = {
        name: {"retransmissions": counters.retransmissions, "crc_errors": counters.crc_errors}
        for name, counters in links.items()
    }
    return summary


#: What --math does not take: it plays no devices, no trail, no faults, no pace, no time limit.
NOT_WITH_MATH = ("--scenario", "--records", "--minutes", "--audit", "--faults", "--pace")


def run_math(args: argparse.Namespace) -> int:
    """``--math``: the game's round machine alone over worker processes; the report (docs/math.md)
    as text or JSON, a progress bar on stderr when it is a terminal and the report is not JSON."""
    _refuse_given(args, NOT_WITH_MATH, "not taken with --math, which plays no devices")
    config = _math_config(args)
    game = config.game if config is not None else args.game
    if game is None:
        raise ConfigError(
            "--math needs --game GAME or --config TABLE.toml; games with a math mode: "
            + ", ".join(math_slugs())
        )
    try:
        math = math_game(game)
    except UnknownGame as unknown:
        raise ConfigError(f"--game: {unknown}") from None
    except NoMathMode as missing:
        raise ConfigError(f"{'--game' if config is None else args.config}: {missing}") from None
    if args.rounds is None or args.rounds < 1:
        raise ConfigError(f"--math needs --rounds N of at least 1, got {args.rounds}")
    workers = args.workers if args.workers is not None else len(os.sched_getaffinity(0))
    if not 1 <= workers <= args.rounds:
        raise ConfigError(f"--workers must be 1 to --rounds ({args.rounds}), got {workers}")
    strategy = args.strategy if args.strategy is not None else next(iter(math.strategies))
    if strategy not in math.strategies:
        raise ConfigError(f"--strategy {strategy}: {game} plays {', '.join(math.strategies)} (docs/math.md)")
    if config is not None:
        rules = config.rules
    else:
        rules = _rules(game, args.seats).get("rules") or example_rules(game)
    try:
        engine = engine_for(game, args.engine, args.check_every)
    except ValueError as wrong:
        raise ConfigError(str(wrong)) from None
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(2**32)
    play = partial(
        play_math,
        game,
        rules,
        rounds=args.rounds,
        seed=seed,
        workers=workers,
        strategy=strategy,
        engine=engine,
    )
    if not args.json and sys.stderr.isatty():
        bar, advance = progress_bar(args.rounds)
        with bar:
            tally, seconds = timed(lambda: play(progress=advance))
    else:
        tally, seconds = timed(play)
    summary = math_report(game, rules, tally, seed=seed, workers=workers, strategy=strategy, engine=engine)
    if config is not None:
        summary["table_config"] = _config_named(config)
    if args.json:
        print(json.dumps(summary, indent=2))
    else:
        print(format_math(summary, seconds))
    return 0


def _math_config(args: argparse.Namespace) -> TableConfig | None:
    """``--config``: the table configuration math mode plays, read and checked as ``croupier run``
    reads it, so that a game-math review plays the rules and pay tables a casino submitted. Its
    game and seats are the table's: a different --game, or --seats, is refused rather than played
    over it."""
    if args.config is None:
        return None
    config = load_table_config(args.config)
    if args.game is not None and args.game != config.game:
        raise ConfigError(f"--game {args.game}: {args.config} configures a {config.game} table")
    seated = f"{args.config} seats {config.seats} (table.seats)"
    _refuse_given(args, ("--seats",), f"not taken with --config: {seated}")
    return config


def _config_named(config: TableConfig) -> dict[str, str]:
    """The table configuration a report was played from: its file, its table and the SHA-256 of
    its bytes, so that a review's figures name the very file submitted."""
    return {
        "file": str(config.source),
        "table": config.name,
        "sha256": file_sha256(config.source),
    }


def format_math(summary: dict[str, Any], seconds: float) -> str:  # Any: a JSON report
    """The math report for a person: what was played, then each wager's figures and outcomes."""
    rounds = summary["rounds"]
    lines = [
        f"{summary['game']} math mode: {rounds:,} rounds, {summary['positions']} positions, "
        f"{summary['decks']} decks, {summary['shoes']:,} shoes; seed {summary['seed']}, "
        f"{summary['workers']} workers; "
        f"{seconds:.1f} s ({rounds / seconds:,.0f} rounds/s)",
        _engine_line(summary["engine"]),
        f"strategy {summary['strategy']}: {summary['strategy_note']}",
        f"house edge: {summary['ci_method']}",
    ]
    config = summary.get("table_config")
    if config is not None:
        lines.insert(
            1, f"table configuration {config['file']} (table {config['table']}, sha256 {config['sha256']})"
        )
    for wager, figures in [*summary["wagers"].items(), (ALL_WAGERS, summary[ALL_WAGERS])]:
        lines.append(
            f"  {wager}: {figures['wagers']:,} wagers in {figures['rounds']:,} rounds, wagered "
            f"{figures['wagered'] / 100:,.2f}, house {figures['house'] / 100:+,.2f}, house edge "
            f"{_percent(figures['house_edge'])} (95 % CI {_interval(figures['ci95'])})"
        )
        for outcome, hit in figures.get("outcomes", {}).items():
            lines.append(f"    {hit['per_wager']:9.5f} per wager  {hit['count']:>12,}  {outcome}")
    for figure, values in summary["observed"].items():
        shown = ", ".join(f"{value} {share['share']:.2%}" for value, share in values.items())
        lines.append(f"  {figure}: {shown}")
    return "\n".join(lines)


def _engine_line(engine: dict[str, Any]) -> str:  # Any: JSON values
    if engine["name"] == "machine":
        return "engine machine: every round played through the table's round machine"
    return (
        f"engine direct: every round played straight through; each worker's first round and one in "
        f"{engine['check_every']:,} also through the table's round machine, {engine['checked_rounds']:,} "
        "rounds found alike"
    )


def _percent(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.3%}"


def _interval(interval: list[float] | None) -> str:
    return "n/a" if interval is None else f"{interval[0]:.3%} to {interval[1]:.3%}"


def run_scenario_file(path: Path, *, records: bool = False) -> int:
    """``--scenario FILE``: play it and print the report; 0 if every expectation held, 1 if the file
    is wrong or the round went otherwise (the first mismatch, with file:line)."""
    from simulator.scenario.judge import records_text
    from simulator.scenario.parse import ScenarioError
    from simulator.scenario.run import load, run_scenario

    try:
        scenario = load(path)
        outcome = asyncio.run(run_scenario(scenario, _rules(scenario.game, scenario.seats, scenario.rules)))
    except (ScenarioError, ConfigError) as exc:
        print(f"{path}: scenario error\n  {exc}")
        return 1
    if records and outcome.rounds:
        print(records_text(outcome.rounds, outcome.before))
    print(outcome.report())
    return 0 if outcome.ok else 1


def _journal(stack: contextlib.ExitStack, directory: Path, game: str) -> TableJournal:
    """The journal ``croupier run`` keeps, into ``directory``: the trail and the state store."""
    if directory.exists() and not directory.is_dir():
        raise ConfigError(f"--audit {directory}: not a directory (the trail is written into one)")
    trail = AuditTrail(directory, TABLE_NAME)
    stack.callback(trail.close)
    state = stack.enter_context(TableState(directory / f"{TABLE_NAME}.state.sqlite"))
    journal = TableJournal(trail, state, table=TABLE_NAME, game=game)
    journal.service_start()
    journal.table_event("table_open", {"game": game, "simulated": True})
    return journal


def format_summary(summary: dict[str, Any]) -> str:  # Any: a JSON summary
    """The summary for a person: one fact a line."""
    lines = [
        f"{summary['game']}: {summary['rounds']} rounds, {summary['hands']} hands, {summary['seats']} seats, "
        f"seed {summary['seed']} ({summary['timing']['seconds']} s)",
    ]
    for wager, outcomes in summary["outcomes"].items():
        counts = ", ".join(f"{movement} {n}" for movement, n in outcomes.items())
        house = summary["house"]["by_wager"].get(wager, 0)
        lines.append(f"  {wager}: {counts}; house {house / 100:+,.2f}")
    lines.append(f"  house total {summary['house']['total'] / 100:+,.2f}")
    for key in ("irregularities", "rulings", "faults", "injected"):
        lines.append(f"  {key}: " + (", ".join(f"{k} {n}" for k, n in summary[key].items()) or "none"))
    lines.append(
        "  links: "
        + "; ".join(
            f"{name} {link['retransmissions']} retransmitted, {link['crc_errors']} CRC errors"
            for name, link in summary["links"].items()
        )
    )
    return "\n".join(lines)
