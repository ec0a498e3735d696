"""Full-stack simulated rounds per second for each game, against the bound the link alone would set.

    python bench/sim_throughput.py [--seconds S] [--games GAME ...] [--simulated-devices child]

Each game's simulated table (simulator.tables: every device over its real transport, pty or the
simulated USB bus) is played by its simulated players for about ``--seconds`` after two warm-up
rounds. The host's requests to the devices are counted per round: every one is a round trip the
round waits on, so with the raw pty round trip measured in the same run (the echo floor of
bench/_common.py) a round cannot go faster than ``1 / (exchanges per round x raw round trip)``, the
link-bound limit. Heartbeats are left out of the count (they are timed, not part of a round), and
so are device events, which ride between requests. Prints, per game, rounds/s, exchanges/round and
the limit, then, last, ``ratio=<worst link-bound limit / achieved rate>`` (the worst game being
the one furthest from its limit). Target: 3 or less. ``--simulated-devices child`` serves the
devices from a child process, as ``croupier run`` does (decision 0048); by default they run in this
process, as ``croupier sim`` runs them.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import random
import statistics
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import structlog
from _common import median_us, raw_pty_rtt  # the bench directory is on sys.path when a script in it runs

from croupier.commands.run import SIMULATED_DEVICES
from drivers.connection import DeviceConnection
from drivers.protocol.message import Command, Reply
from games import registry
from simulator.floor import FloorSupervisor, controller_key, keyed_resets, on_the_floor
from simulator.players import simulated_players, table_options
from simulator.summary import Tally
from simulator.tables import simulated_table

GAMES = registry.slugs()

RequestFn = Callable[[Command], Awaitable[Reply]]
WARMUP_ROUNDS = 2
SEED = 7


@dataclass
class GameResult:
    game: str
    rounds: int
    seconds: float
    exchanges: int

    @property
    def rate(self) -> float:
        return self.rounds / self.seconds

    @property
    def per_round(self) -> float:
        return self.exchanges / self.rounds

    def limit(self, rtt: float) -> float:
        """Rounds per second if each exchange cost exactly one raw pty round trip and nothing else."""
        return 1.0 / (self.per_round * rtt)


class RequestCounter:
    """Counts the requests made through each connection: the exchanges a round waits on.

    It wraps ``request`` on the connection objects themselves, so the drivers and the table are
    measured unchanged; the supervisor's heartbeat goes around ``request`` and is not counted.
    """

    def __init__(self, connections: dict[str, DeviceConnection]) -> None:
        self.count = 0
        for conn in connections.values():
            conn.request = self._counting(conn.request)  # type: ignore[method-assign]

    def _counting(self, request: RequestFn) -> RequestFn:
        async def counted(command: Command) -> Reply:
            self.count += 1
            return await request(command)

        return counted


async def play(game: str, seconds: float, in_child: bool = False) -> GameResult:
    """Open ``game``'s simulated table, warm it up, then play whole rounds for about ``seconds``."""
    async with simulated_table(game, name="bench", shuffler_seed=SEED, in_child=in_child) as sim:
        table = sim.table
        counter = RequestCounter(sim.connections)
        players: Any = simulated_players(game, random.Random(SEED), **table_options(game, sim))
        # The floorperson the simulator has: a held round or a latched fault must not stall the run.
        floor = FloorSupervisor(table, Tally(), None)
        async with on_the_floor(floor):
            for _ in range(WARMUP_ROUNDS):
                await keyed_resets(sim.table, controller_key(sim), None)
                await table.prepare_round()
                await table.play_round(players)
            counter.count, rounds = 0, 0
            start = time.perf_counter()
            while True:
                await keyed_resets(sim.table, controller_key(sim), None)
                await table.prepare_round()
                await table.play_round(players)
                rounds += 1
                elapsed = time.perf_counter() - start
                if elapsed >= seconds:
                    return GameResult(game, rounds, elapsed, counter.count)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=8.0, help="measured play per game (default 8)")
    parser.add_argument("--games", nargs="+", choices=GAMES, default=list(GAMES), help="games to play")
    parser.add_argument("--rtt-count", type=int, default=3000, help="raw pty round trips measured")
    parser.add_argument("--simulated-devices", choices=SIMULATED_DEVICES, default="in-process")
    args = parser.parse_args()
    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(logging.WARNING))
    logging.getLogger().setLevel(logging.WARNING)

    # The floor first and again last, so a change of load during the run shows as a spread.
    before = raw_pty_rtt(args.rtt_count // 2)
    in_child = args.simulated_devices == "child"
    results = [asyncio.run(play(game, args.seconds, in_child)) for game in args.games]
    after = raw_pty_rtt(args.rtt_count // 2)
    rtt = statistics.median(before + after)
    print(
        f"raw pty round trip: median {rtt * 1e6:.1f} us "
        f"(before {median_us(before):.1f} us, after {median_us(after):.1f} us)"
    )
    for r in results:
        print(
            f"{r.game:>18}: {r.rate:7.1f} rounds/s ({r.rounds} rounds in {r.seconds:.1f} s)   "
            f"{r.per_round:6.1f} exchanges/round   link-bound limit {r.limit(rtt):7.1f} rounds/s   "
            f"(x{r.limit(rtt) / r.rate:.2f})"
        )
    worst = max(results, key=lambda r: r.limit(rtt) / r.rate)
    print(f"ratio={worst.limit(rtt) / worst.rate:.2f}")


if __name__ == "__main__":
    main()
