"""Crazy 4 Poker dealt from the hand on simulated devices: the shuffler and the progressive
controller behind pseudo-terminals, the controller's meter sign on the simulated USB bus; the
shuffler and the simulated dealer move the cards of one TableWorld, and the dealer's value chips
land on the controller's seat sensors."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Callable, Mapping

from croupier.tables.crazy_4_poker import Crazy4PokerTable
from drivers.connection import SupervisorSettings
from drivers.protocol.core import DeviceClass
from firmware_sim.dealer_crazy_4 import SimulatedCrazy4Dealer
from firmware_sim.device import SimulatedDevice
from firmware_sim.progressive import ControllerPersonality, SignPersonality
from firmware_sim.world import TableWorld
from games.crazy_4_poker import RuleSet
from simulator.tables.devices import DeviceSpec, SimulatedTable, opened_table, simulated_shuffler

#: The simulated table's rules over the game's example pay tables (RuleSet.example): the
#: progressive and Six Card Bonus wagers offered, so a simulated run shows them, a progressive
#: table that hits often enough to show its awards, and a non-counting shuffler, so the table
#: counts the stub every fifth round (657a.9(d)).
RULES: Mapping[str, object] = dict(
    shuffler="non-counting",
    progressive_offered=True,
    six_card_bonus_offered=True,
    progressive_pay_table={"three_of_a_kind": "100%", "two_pairs": "100%", "straight": 2500},
)
#: The controller level each line of RULES' progressive pay table pays.
LEVELS: Mapping[str, int] = {"three_of_a_kind": 1, "two_pairs": 2, "straight": 2}

Crazy4Poker = SimulatedTable[Crazy4PokerTable, SimulatedCrazy4Dealer]


@contextlib.asynccontextmanager
async def simulated_crazy_4_poker(
    *,
    rules: RuleSet | None = None,
    name: str = "sim-table",
    dealer: Callable[[TableWorld, SimulatedDevice], SimulatedCrazy4Dealer] = SimulatedCrazy4Dealer,
    settings: SupervisorSettings | None = None,
    award_levels: Mapping[str, int] | None = None,
    win_deadline: float = 30.0,
    record_events: list[object] | None = None,
    shuffler_seed: int | None = None,
) -> AsyncIterator[Crazy4Poker]:
    """Bring the shuffler, controller and sign up, connect them, open the table; stop everything
    afterwards and prove no card was created or lost. ``dealer`` builds the dealer's hands on the
    world, chips going to the controller's sensors; ``rules`` default to RULES, and then
    ``award_levels`` to LEVELS. ``win_deadline``: how long an award waits for the controller."""
    if rules is None:
        rules, award_levels = RuleSet.example(**RULES), award_levels or LEVELS
    world = TableWorld()
    shuffler = simulated_shuffler(world, seed=shuffler_seed)
    progressive = SimulatedDevice(ControllerPersonality(seats=rules.positions), name="progressive", seed=3)
    hands = dealer(world, progressive)
    hands.unwrap(["red"], 1)
    specs = [
        DeviceSpec("shuffler", shuffler, DeviceClass.SHUFFLER),
        DeviceSpec("progressive", progressive, DeviceClass.PROGRESSIVE_CONTROLLER),
        DeviceSpec(
            "meter-sign",
            SimulatedDevice(SignPersonality(), name="meter-sign", seed=4),
            DeviceClass.METER_SIGN,
            usb=True,
        ),
    ]
    async with opened_table(
        "crazy-4-poker",
        world,
        hands,
        specs,
        settings=settings,
        shuffler_seed=shuffler_seed,
        rules=rules,
        name=name,
        award_levels=award_levels,
        win_deadline=win_deadline,
        record_events=record_events,
    ) as sim:
        yield sim
