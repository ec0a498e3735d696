"""Math mode's rounds per second per core for each game that has one, beside the full-stack simulator's.

    python bench/math_mode.py [--seconds S] [--games GAME ...] [--profile]

Math mode (``croupier sim --math``, docs/math.md) plays the game's rounds alone from a seeded shoe,
with its default engine: Free Bet Blackjack's round straight through, checked against the round
machine every CHECK_EVERY-th round (simulator.math.run; decision 0052), the other games' round
machines; a game with a direct
round is timed through its round machine too, in the same run, and the ratio of the two printed.
One worker's share is timed in this process for about ``--seconds``, three times, the fastest
taken, after a warm-up share: what one core gives (the workers of a run share nothing, so W cores
give about W times it). The full-stack simulator (bench/sim_throughput.py: every device over its
real transport) plays the same game in the same run, one process. Both seat every position. Math
mode is timed with the game's default strategy (the review's figure, whose rate the target is set
on) and with the simulator's players, the full stack's own, for a like-for-like ratio (Free Bet
Blackjack's basic players stake Push 22 everywhere, so their dealer always draws). Prints per game
the rates, the hands per second, the ratio and the share of a math round spent inside
``transitions`` (from a profile; with ``--profile`` its top functions too), then, last,
``ratio=<math mode rounds/s per core / full-stack rounds/s>``, the simulator's players at both, for
the game furthest behind.
Target: Free Bet Blackjack at 5,000 rounds/s per core with its default strategy.
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import io
import logging
import pstats
import time
from dataclasses import dataclass

import structlog
from sim_throughput import play as full_stack  # the bench directory is on sys.path when a script in it runs

from simulator.games.registry import example_rules
from simulator.math.play import math_game, math_slugs
from simulator.math.run import MACHINE, Engine, play_share

TARGET = {"free-bet-blackjack": 5000.0}
WARM_UP = 100  # rounds of the share that sizes the timed one
TIMINGS = 3  # timings of the share, the fastest taken
SEED = 7
#: The strategy every game's math mode has: the simulator's players, as the full stack plays.
SIMULATED = "simulated"


@dataclass
class Rate:
    game: str
    rounds: int
    seconds: float
    positions: int

    @property
    def per_second(self) -> float:
        return self.rounds / self.seconds


def _share(game: str, strategy: str, rounds: int, engine: Engine | None = None) -> float:
    """Seconds for one worker's share of ``rounds`` (as ``croupier sim --math`` plays it; ``engine``:
    None, the game's default)."""
    start = time.perf_counter()
    play_share(game, example_rules(game), strategy, SEED, 0, rounds, engine=engine)
    return time.perf_counter() - start


def math_rate(game: str, strategy: str, seconds: float, engine: Engine | None = None) -> Rate:
    """One worker's rounds for about ``seconds``, after a short share that warms up and sizes it; the
    fastest of TIMINGS timings of the same share, as timeit takes its best: the machine's other work
    (and on a shared virtual machine, its neighbours') only ever slows a timing, by half at times."""
    rounds = max(WARM_UP, round(WARM_UP / _share(game, strategy, WARM_UP, engine) * seconds))
    positions = int(example_rules(game).positions)  # type: ignore[attr-defined]  # every RuleSet has positions
    fastest = min(_share(game, strategy, rounds, engine) for _ in range(TIMINGS))
    return Rate(game, rounds, fastest, positions)


def transitions_share(game: str, strategy: str, rounds: int, top: int) -> tuple[float, str]:
    """The share of a math round's time inside the ``transitions`` package, and the top functions."""
    profile = cProfile.Profile()
    profile.runcall(_share, game, strategy, rounds)
    stats = pstats.Stats(profile)
    rows = stats.stats.items()  # type: ignore[attr-defined]  # pstats keeps its table untyped
    inner = sum(row[2] for key, row in rows if "/transitions/" in key[0])
    total = sum(row[2] for _key, row in rows)
    shown = io.StringIO()
    pstats.Stats(profile, stream=shown).sort_stats("tottime").print_stats(top)
    return inner / total, shown.getvalue()


def main() -> None:
    games = math_slugs()
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--seconds", type=float, default=5.0, help="measured play per game and mode (default 5)"
    )
    parser.add_argument("--games", nargs="+", choices=games, default=games, help="games to measure")
    parser.add_argument("--profile", action="store_true", help="print the top functions of a math round")
    args = parser.parse_args()
    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(logging.WARNING))
    logging.getLogger().setLevel(logging.WARNING)

    ratios = {}
    for game in args.games:
        default = next(iter(math_game(game).strategies))
        math = math_rate(game, default, args.seconds)
        alike = math if default == SIMULATED else math_rate(game, SIMULATED, args.seconds)
        stack = asyncio.run(full_stack(game, args.seconds))
        share, top = transitions_share(game, default, 200, 15)
        ratios[game] = alike.per_second / stack.rate
        target = TARGET.get(game)
        met = target is not None and math.per_second >= target
        aim = "" if target is None else f"; target {target:,.0f}: {'met' if met else 'not met'}"
        print(
            f"{game:>18}: math mode ({default}) {math.per_second:7.1f} rounds/s per core "
            f"({math.per_second * math.positions:7.1f} hands/s at {math.positions} positions), "
            f"({SIMULATED}) {alike.per_second:7.1f}; full stack {stack.rate:6.1f} rounds/s; "
            f"x{ratios[game]:.1f}; {share:.0%} of a math round inside transitions{aim}"
        )
        if math_game(game).direct is not None:
            machine = math_rate(game, default, args.seconds, Engine(MACHINE))
            print(
                f"{'':>18}  the same through the round machine (--engine machine) {machine.per_second:7.1f} "
                f"rounds/s per core: the direct engine plays x{math.per_second / machine.per_second:.1f} "
                "(decision 0052)"
            )
        if args.profile:
            print(top)
    worst = min(ratios, key=lambda game: ratios[game])
    print(f"ratio={ratios[worst]:.2f}")


if __name__ == "__main__":
    main()
