"""A scenario played on the game's simulated table (``croupier sim --scenario FILE``,
tests/integration/test_scenarios.py): the file read and parsed, its cards stacked and its players
scripted, the simulated floor supervisor clearing any fault, each round judged as it ends.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from functools import partial
from pathlib import Path
from typing import Any

from simulator.floor import FloorSupervisor, controller_key, on_the_floor, repair_sim
from simulator.games.registry import simulation
from simulator.players import table_options
from simulator.scenario.actors import FaultWatcher, StackingRandom, stack_top, strike_dealer_fault
from simulator.scenario.judge import Outcome, TableRecords, check_round, report_not_skipped, unasked
from simulator.scenario.parse import Scenario, ScenarioError, parse
from simulator.summary import Tally
from simulator.tables import simulated_table
from vocabulary.rules import RuleViolation


def load(path: Path | str) -> Scenario:
    """Read and parse a scenario file; a file that cannot be read is a ScenarioError too."""
    try:
        text = Path(path).read_text()
    except OSError as exc:
        raise ScenarioError(f"{path}: cannot read the scenario: {exc.strerror or exc}") from None
    return parse(text, str(path))


async def run_scenario(
    scenario: Scenario,
    options: Mapping[str, Any] | None = None,  # Any: TOML values
) -> Outcome:
    """Play the scenario's rounds on the game's simulated table, stacked and scripted as the file
    says, with the simulated floor supervisor clearing any fault; check each round as it ends.
    ``options`` are the table builder's (the rules for ``seats``); a file error raises, a round
    that did not go as written is the Outcome's failure."""
    game = scenario.game
    words = simulation(game).scenario
    outcome = Outcome(scenario)
    stacking = StackingRandom(scenario.seed)
    async with simulated_table(
        game, name="scenario", shuffler_seed=scenario.seed, **dict(options or {})
    ) as sim:
        table = sim.table
        if words.stacked == "shuffler":
            shuffler = sim.devices["shuffler"]
            shuffler.call(lambda engine: setattr(engine.personality, "_rng", stacking))
        faults = FaultWatcher(sim.world, [])
        # What the scenario is judged on: a fault in either stops the run (durable), never skipped.
        table.events.subscribe(faults, durable=True)
        table_records = TableRecords()
        table.events.subscribe(table_records, durable=True)
        cover = table_options(game, sim).get("cover")
        tally = Tally()
        repair = partial(repair_sim, sim)
        floor = FloorSupervisor(table, tally, None, repair=repair, reset_key=controller_key(sim))
        async with on_the_floor(floor):
            for script in scenario.rounds:
                faults.faults, faults.struck = list(script.faults), []
                before = dict(tally.faults)
                if script.dealer is not None:
                    table.dealer_change(script.dealer)
                if words.stacked == "shoe":
                    await table.prepare_round()  # the burn (and a new deck) before the stack
                    if script.shoe:
                        stack_top(sim.world, script.shoe, script.where)
                elif script.shoe:
                    stacking.stacks.append((list(script.shoe), script.where))
                for fault in script.faults:
                    if strike_dealer_fault(sim, fault):
                        faults.struck.append(fault)
                players = words.scripted(game, script, cover)
                try:
                    round_ = await asyncio.wait_for(table.play_round(players), timeout=30)
                except RuleViolation as refused:
                    outcome.failure = f"{script.where}: the round refused the scripted play: {refused}"
                    return outcome
                except TimeoutError:
                    outcome.failure = (
                        f"{script.where}: the round did not finish within 30 s (held, or waiting)"
                    )
                    return outcome
                outcome.rounds.append(round_)
                outcome.before.append(table_records.before_round)
                cleared = {
                    code: n - before.get(code, 0)
                    for code, n in tally.faults.items()
                    if n > before.get(code, 0)
                }
                checked, failure = check_round(round_, script, cleared, table_records.before_round)
                outcome.checked += checked
                unstruck = [fault for fault in script.faults if fault not in faults.struck]
                if failure is None and unstruck:
                    failure = (
                        f"{unstruck[0].where}: the round dealt fewer than {unstruck[0].at_card} cards: no jam"
                    )
                failure = failure or unasked(players) or report_not_skipped(sim.dealer, script)
                if failure is not None:
                    outcome.failure = failure
                    return outcome
    return outcome
