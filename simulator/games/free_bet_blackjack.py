"""Free Bet Blackjack on simulated devices: the shoe and the shuffler behind pseudo-terminals, the
card reader on the simulated USB bus, all on one TableWorld. ``croupier run`` plays on it when no
hardware is configured, and the tests play on it too.

Its simulated players answer the table's players protocol
(``croupier.tables.free_bet_blackjack.Players``); its scripted players answer from a scenario file
(docs/scenarios.md), and ``SIMULATION`` declares it all (simulator.games.registry).

``BasicStrategyPlayers`` plays Free Bet basic strategy roughly, deterministically: the only chance
is in the wagers, drawn from the ``random.Random`` it is given, so a seeded run replays exactly.
"""

from __future__ import annotations

import contextlib
import random
from collections.abc import AsyncIterator, Callable, Sequence
from datetime import datetime

from croupier.tables.free_bet_blackjack import FreeBetBlackjackTable, Legal
from drivers.connection import SupervisorSettings
from drivers.protocol.core import DeviceClass
from firmware_sim.card_reader import CardReaderPersonality
from firmware_sim.device import SimulatedDevice
from firmware_sim.world import TableWorld
from games.free_bet_blackjack import GAME, RuleSet
from games.free_bet_blackjack.decisions import Stake
from games.free_bet_blackjack.hand import card_value, is_ace
from games.free_bet_blackjack.inputs import EvenMoney, Insure, PlaceWager, PlayerAction
from games.free_bet_blackjack.positions import Hand
from simulator.dealer import SimulatedDealer
from simulator.games.registry import DealerFaults, Simulation, Vocabulary
from simulator.scenario.actors import ScriptedPlayers
from simulator.scenario.parse import ScenarioError
from simulator.tables.devices import FLOORPERSON, DeviceSpec, SimulatedTable
from simulator.tables.shoe_tables import simulated_shoe_table
from vocabulary.cards import Card
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
    in_child: bool = False,
) -> AsyncIterator[FreeBetBlackjack]:
    """Bring the simulated devices up, connect them, open the table; stop everything afterwards and
    prove no card was created or lost. ``dealer`` builds the dealer's hands on the world (a test's
    watching dealer); ``shoe_settings`` overrides ``settings`` for the shoe alone."""

    def card_reader(world: TableWorld) -> list[DeviceSpec]:
        personality = CardReaderPersonality(world=world, serial_number="CR-SIM-1")
        device = SimulatedDevice(personality, name="card-reader", seed=2)
        return [DeviceSpec("card-reader", device, DeviceClass.CARD_READER, usb=True)]

    async with simulated_shoe_table(
        GAME.slug,
        rules=rules or RuleSet.example(),
        dealer=dealer,
        settings=settings,
        backs=backs,
        floorperson=floorperson,
        shuffler_seed=shuffler_seed,
        in_child=in_child,
        shoe_settings=shoe_settings,
        more_devices=card_reader,
        name=name,
        cover_depth=cover_depth,
        record_events=record_events,
        reader_clock=reader_clock,
    ) as sim:
        yield sim


STAKES = (500, 1000, 2500, 5000)  # cents
PUSH22_STAKE = 500


class BasicStrategyPlayers:
    """Every position taken, basic strategy for Free Bet, never insured: always the free double and
    the free split; hit below 17 against 7 to ace, stand on 12 to 16 against 2 to 6, hit 11 or less;
    soft hands stand from 18. Push 22 Wagers on some positions, as ``push22_rate`` says."""

    def __init__(self, rng: random.Random, *, push22_rate: float = 0.25) -> None:
        self.rng = rng
        self.push22_rate = push22_rate

    def wagers(self, round_number: int, positions: int) -> Sequence[PlaceWager]:
        return [
            PlaceWager(
                seat,
                self.rng.choice(STAKES),
                PUSH22_STAKE if self.rng.random() < self.push22_rate else 0,
            )
            for seat in range(1, positions + 1)
        ]

    def insurance(self, hand: Hand, dealer_up: Card) -> Insure | EvenMoney | None:
        return None  # basic strategy never insures, nor takes even money

    def decide(self, hand: Hand, dealer_up: Card, legal: Legal) -> PlayerAction:
        if legal.get(PlayerAction.SPLIT, Stake.PAID) is Stake.FREE:
            return PlayerAction.SPLIT
        if legal.get(PlayerAction.DOUBLE_DOWN, Stake.PAID) is Stake.FREE:
            return PlayerAction.DOUBLE_DOWN
        wanted = PlayerAction.HIT if self._hits(hand, dealer_up) else PlayerAction.STAND
        return wanted if wanted in legal else PlayerAction.STAND

    @staticmethod
    def _hits(hand: Hand, dealer_up: Card) -> bool:
        total = hand.total
        if total.soft:
            return total.value < 18
        if total.value <= 11:
            return True
        strong_dealer = is_ace(dealer_up) or card_value(dealer_up) >= 7
        return total.value < 17 and strong_dealer


# -- the game in the simulator (simulator.games.registry) -----------------------------------------
class ScriptedFreeBetBlackjack(ScriptedPlayers):
    """A scenario's players at Free Bet Blackjack: each seat's insurance answer and decisions, as
    the file gives them (docs/scenarios.md)."""

    def insurance(self, hand: Hand, dealer_up: Card) -> Insure | EvenMoney | None:
        seat = hand.seat
        answer = self.script.insurance.get(seat)
        if answer is None:
            raise ScenarioError(
                f"{self.script.where}: seat {seat} was offered insurance (dealer shows {dealer_up}) and the "
                f"file gives no answer: add 'insurance {seat} decline' (or even_money, insure CENTS)"
            )
        self.insurance_asked.add(seat)
        if answer.word == "even_money":
            return EvenMoney(seat)
        return Insure(seat, answer.number) if answer.word == "insure" else None

    def decide(self, hand: Hand, dealer_up: Card, legal: Legal) -> PlayerAction:
        offered = ", ".join(str(action) for action in legal)
        answer = self.next_answer(
            hand.seat, f"a decision on hand {hand.number} (dealer shows {dealer_up}; offered: {offered})"
        )
        action = PlayerAction(answer.word)
        if action not in legal:
            raise ScenarioError(
                f"{answer.where}: seat {hand.seat}: {answer.word} is not offered on hand {hand.number}; "
                f"offered: {offered}"
            )
        return action


def keyed(seat: int) -> dict[str, int]:
    """A plain wager as the dealer keys it: $10 on the hand, $5 on Push 22 at odd seats."""
    return {"seat": seat, "blackjack": 1000, "push22": 500 if seat % 2 else 0}


SIMULATION = Simulation(
    game=GAME,
    table=simulated_free_bet_blackjack,
    players=BasicStrategyPlayers,
    keyed=keyed,
    dealer_faults=DealerFaults(irregularities=frozenset({"discard-count", "joker"})),
    joker_in_shoe=True,
    scenario=Vocabulary(
        decisions=("stand", "hit", "double_down", "split"),
        stacked="shoe",
        scripted=ScriptedFreeBetBlackjack,
        dealer_change=True,
        insurance=True,
    ),
)
