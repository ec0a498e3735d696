"""``croupier sim --math``: the rounds spread over worker processes, their tallies merged, the report.

The rounds are cut into ``workers`` fixed shares (the first ``rounds % workers`` workers play one
more); worker ``i`` shuffles its shoes and draws its players' chances from its own generators,
seeded from the run's seed and ``i`` alone, and starts from a fresh shoe. The tallies are exact
sums merged in worker order, so a seed and a worker count give the same report on every run and
every machine; another worker count deals other shoes (another sample of the same game). The
report carries no clock: the rate is shown beside it, not in it.
"""

from __future__ import annotations

import multiprocessing
import queue
import random
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    ProgressColumn,
    Task,
    TextColumn,
    TimeRemainingColumn,
)
from rich.text import Text

from games.common.config import Configurable
from simulator.math.direct import play_direct
from simulator.math.play import MathError, ShoeDealing, math_game, play_rounds
from simulator.math.tally import MathTally

#: How often (in rounds) a worker tells the progress bar.
PROGRESS_EVERY = 100
#: Every how many rounds a worker of the direct engine plays the round through the table's Round as
#: well, unless told (decision 0052): some 3 % more time for Free Bet Blackjack (8 % at every 100th).
CHECK_EVERY = 200
#: The engines: the game's round played straight through, or every round through the table's Round.
DIRECT, MACHINE = "direct", "machine"


@dataclass(frozen=True)
class Engine:
    """How the workers play their rounds (docs/math.md): ``DIRECT`` (the game's round played straight
    through, every ``check_every``-th round also through the table's Round and compared) or
    ``MACHINE`` (every round through the table's Round, as issue 17's first math mode did)."""

    name: str = DIRECT
    check_every: int = CHECK_EVERY

    def note(self) -> dict[str, Any]:  # Any: JSON values
        """The engine as the report names it."""
        if self.name == MACHINE:
            return {"name": MACHINE}
        return {"name": DIRECT, "check_every": self.check_every}


def engine_for(slug: str, name: str | None, check_every: int | None) -> Engine:
    """Game ``slug``'s engine ``name`` (None: its fastest) checking every ``check_every`` rounds (None:
    every CHECK_EVERY); ValueError naming the option (``--engine``, ``--check-every``) and what is wrong."""
    direct = math_game(slug).direct is not None
    chosen = name if name is not None else (DIRECT if direct else MACHINE)
    if chosen not in (DIRECT, MACHINE):
        raise ValueError(f"--engine {chosen}: no such engine; {DIRECT} or {MACHINE}")
    if chosen == DIRECT and not direct:
        raise ValueError(f"--engine {DIRECT}: {slug} has no round played straight through; use {MACHINE}")
    if check_every is None:
        return Engine(chosen)
    if chosen == MACHINE:
        raise ValueError(
            f"--check-every: taken only with --engine {DIRECT}"
            + ("" if direct else f", which {slug} has not")
            + f"; the {MACHINE} engine plays every round through the round machine"
        )
    if check_every < 1:
        raise ValueError(f"--check-every {check_every}: check every 1 or more rounds")
    return Engine(chosen, check_every)


#: How the house edge's interval is computed, as the report says it (simulator/math/tally.py).
CI_METHOD = (
    "95 % normal interval of the ratio estimator house/wagered over rounds (delta method): each "
    "round's house result and amount wagered are one sample, so hands that share a round's cards are "
    "not counted as independent"
)


def shares(rounds: int, workers: int) -> list[int]:
    """The fixed share of ``rounds`` each of ``workers`` plays."""
    each, extra = divmod(rounds, workers)
    return [each + (1 if index < extra else 0) for index in range(workers)]


def worker_rng(seed: int, index: int, purpose: str) -> random.Random:
    """Worker ``index``'s generator for ``purpose`` (the cards, the players), from the run's seed."""
    return random.Random(f"croupier-math/{seed}/{index}/{purpose}")


def play_share(
    slug: str,
    rules: Configurable,
    strategy: str,
    seed: int,
    index: int,
    rounds: int,
    progress: Callable[[int], None] = lambda played: None,
    engine: Engine | None = None,
) -> MathTally:
    """Worker ``index``'s share: ``rounds`` rounds, counted; ``progress`` told every few rounds;
    ``engine``: how they are played (None: the game's fastest, checked every CHECK_EVERY rounds)."""
    math = math_game(slug)
    engine = engine or engine_for(slug, None, None)
    dealing = math.dealing(rules, worker_rng(seed, index, "shoe"))
    players = math.strategies[strategy](worker_rng(seed, index, "players"), rules, dealing)
    tally = MathTally(belongs=math.belongs)

    def told() -> None:
        if tally.rounds % PROGRESS_EVERY == 0:
            progress(PROGRESS_EVERY)

    def each(round_: Any) -> None:  # Any: the game's Round
        tally.add(round_, math.observed(round_), math.staked(round_))
        told()

    def each_direct(round_: Any) -> None:  # Any: the game's round played straight through
        tally.count(round_.number, round_.placed, round_.actions, math.observed(round_))
        told()

    if engine.name == MACHINE:
        play_rounds(rules, players, dealing, rounds, each)
    else:
        if math.direct is None or not isinstance(dealing, ShoeDealing):
            raise MathError(f"{slug} has no round played straight through: play it with the {MACHINE} engine")
        direct = math.direct(rules)
        tally.checked = play_direct(rules, players, dealing, direct, rounds, each_direct, engine.check_every)
    progress(tally.rounds % PROGRESS_EVERY)
    tally.decks, tally.shoes, tally.burns = dealing.decks, dealing.shoes, dealing.burns
    return tally


def _work(
    slug: str,
    rules: Configurable,
    strategy: str,
    seed: int,
    index: int,
    rounds: int,
    engine: Engine,
    told: multiprocessing.Queue[tuple[str, int, Any]],  # Any: a count, a tally or a traceback
) -> None:
    """A worker process: its share, the progress and then its tally (or its error) on ``told``."""
    try:
        tally = play_share(
            slug, rules, strategy, seed, index, rounds, lambda n: told.put(("played", index, n)), engine
        )
        told.put(("done", index, tally))
    except BaseException:
        told.put(("failed", index, traceback.format_exc()))


def play_math(
    slug: str,
    rules: Configurable,
    *,
    rounds: int,
    seed: int,
    workers: int,
    strategy: str,
    progress: Callable[[int], None] = lambda played: None,
    engine: Engine | None = None,
) -> MathTally:
    """Every share played (in this process for one worker, else one process each) and merged;
    ``engine`` as play_share takes it."""
    engine = engine or engine_for(slug, None, None)
    if workers == 1:
        return play_share(slug, rules, strategy, seed, 0, rounds, progress, engine)
    context = multiprocessing.get_context("fork")
    told: multiprocessing.Queue[tuple[str, int, Any]] = context.Queue()  # Any: as _work puts
    processes = [
        context.Process(
            target=_work, args=(slug, rules, strategy, seed, index, share, engine, told), daemon=True
        )
        for index, share in enumerate(shares(rounds, workers))
    ]
    for process in processes:
        process.start()
    tallies: dict[int, MathTally] = {}
    try:
        while len(tallies) < workers:
            try:
                what, index, payload = told.get(timeout=1.0)
            except queue.Empty:
                dead = [p.pid for i, p in enumerate(processes) if i not in tallies and not p.is_alive()]
                if dead:
                    raise MathError(f"math worker process(es) {dead} ended without a result") from None
                continue
            if what == "played":
                progress(payload)
            elif what == "done":
                tallies[index] = payload
            else:
                raise MathError(f"math worker {index} failed:\n{payload}")
    finally:
        for process in processes:
            if process.is_alive() and len(tallies) < workers:
                process.terminate()
            process.join()
    merged = MathTally(belongs=math_game(slug).belongs)
    for index in range(workers):
        merged.merge(tallies[index])
    return merged


def report(
    slug: str,
    rules: Configurable,
    tally: MathTally,
    *,
    seed: int,
    workers: int,
    strategy: str,
    engine: Engine | None = None,
) -> dict[str, Any]:  # Any: JSON values
    """The report (docs/math.md): what was played, the per-wager figures, the observed figures."""
    engine = engine or engine_for(slug, None, None)
    played = engine.note()
    if engine.name == DIRECT:
        played["checked_rounds"] = tally.checked
    return {
        "game": slug,
        "engine": played,
        "strategy": strategy,
        "strategy_note": math_game(slug).strategy_notes[strategy],
        "seed": seed,
        "workers": workers,
        "rounds": tally.rounds,
        "positions": int(rules.positions),  # type: ignore[attr-defined]  # every RuleSet has positions
        "decks": tally.decks,
        "shoes": tally.shoes,
        "burns": tally.burns,
        "ci_method": CI_METHOD,
        **tally.report(),
    }


class RateColumn(ProgressColumn):
    """Rounds per second, as rich measures the task's speed."""

    def render(self, task: Task) -> Text:
        speed = task.speed
        return Text("" if speed is None else f"{speed:,.0f} rounds/s", style="progress.data.speed")


def progress_bar(rounds: int) -> tuple[Progress, Callable[[int], None]]:
    """A progress bar on stderr (rounds played, rate, time left) and the function that advances it."""
    bar = Progress(
        TextColumn("math"),
        BarColumn(),
        MofNCompleteColumn(),
        RateColumn(),
        TimeRemainingColumn(),
        console=Console(stderr=True),
        transient=True,
    )
    task = bar.add_task("rounds", total=rounds)
    return bar, lambda played: bar.advance(task, played)


def timed(run: Callable[[], MathTally]) -> tuple[MathTally, float]:
    """``run``'s tally and the seconds it took."""
    started = time.perf_counter()
    tally = run()
    return tally, time.perf_counter() - started
