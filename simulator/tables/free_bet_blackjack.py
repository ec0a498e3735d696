"""Free Bet Blackjack on simulated devices: the shoe and the shuffler behind pseudo-terminals, the
card reader on the simulated USB bus, all on one TableWorld. ``croupier run`` plays on it when no
hardware is configured, and the tests play on it too."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Callable
from datetime import datetime

from croupier.tables.free_bet_blackjack import FreeBetBlackjackTable
from drivers.connection import SupervisorSettings
from drivers.protocol.core import DeviceClass
from firmware_sim.card_reader import CardReaderPersonality
from firmware_sim.dealer import SimulatedDealer
from firmware_sim.device import SimulatedDevice
from firmware_sim.world import TableWorld
from games.free_bet_blackjack import RuleSet
from simulator.tables.devices import FLOORPERSON, DeviceSpec, SimulatedTable
from simulator.tables.shoe_tables import simulated_shoe_table
from vocabulary.operators import Operator

FreeBetBlackjack = SimulatedTable[FreeBetBlackjackTable, SimulatedDealer]


@contextlib.asynccontextmanager
async def simulated_free_bet_blackjack(
    *,
    rules: RuleSet | None = None,
    name: str = "sim-table",
    dealer: Callable[[TableWorld], SimulatedDealer] = SimulatedDealer,
    settings: SupervisorSettings | None = None,
    shoe_settings: SupervisorSettings | None = None,
    backs: tuple[str, str] = ("red", "blue"),
    cover_depth: int | None = None,
    record_events: list[object] | None = None,
    reader_clock: Callable[[], datetime] | None = None,
    floorperson: Operator = FLOORPERSON,
    shuffler_seed: int | None = None,
) -> AsyncIterator[FreeBetBlackjack]:
    """Bring the simulated devices up, connect them, open the table; stop everything afterwards and
    prove no card was created or lost. ``dealer`` builds the dealer's hands on the world (a test's
    watching dealer); ``shoe_settings`` overrides ``settings`` for the shoe alone."""

    def card_reader(world: TableWorld) -> list[DeviceSpec]:
        personality = CardReaderPersonality(world=world, serial_number="CR-SIM-1")
        device = SimulatedDevice(personality, name="card-reader", seed=2)
        return [DeviceSpec("card-reader", device, DeviceClass.CARD_READER, usb=True)]

    async with simulated_shoe_table(
        "free-bet-blackjack",
        rules=rules or RuleSet.example(),
        dealer=dealer,
        settings=settings,
        backs=backs,
        floorperson=floorperson,
        shuffler_seed=shuffler_seed,
        shoe_settings=shoe_settings,
        more_devices=card_reader,
        name=name,
        cover_depth=cover_depth,
        record_events=record_events,
        reader_clock=reader_clock,
    ) as sim:
        yield sim
