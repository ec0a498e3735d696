"""Crazy 4 Poker dealt from the hand on simulated devices: the shuffler and the progressive
controller behind pseudo-terminals, the controller's meter sign on the simulated USB bus; the
shuffler and the simulated dealer move the cards of one TableWorld, and the dealer's value chips
land on the controller's seat sensors.

Its simulated players answer the table's players protocol
(``croupier.tables.crazy_4_poker.Crazy4Players``); its scripted players answer from a scenario file
(docs/scenarios.md), and ``SIMULATION`` declares it all (simulator.games.registry).

657a.9 and the published game rules: the Ante and the Super Bonus, equal, are required; Queens Up, the
progressive (one value chip on the seat's sensor) and the Five and Six Card Bonus are optional. Each
player looks at their five cards and Plays 1x to 3x the Ante (more than 1x only with a pair of aces
or better in the best four) or folds. The table does not tell the player their cards (they stay
sealed until the showdown), so ``StrategyPlayers`` lifts them through a ``Look``.
"""

from __future__ import annotations

import contextlib
import random
from collections.abc import AsyncIterator, Callable, Iterable, Mapping, Sequence

from croupier.tables.crazy_4_poker import Crazy4PokerTable
from drivers.connection import SupervisorSettings
from drivers.protocol.core import DeviceClass
from firmware_sim.device import DeviceControl, SimulatedDevice
from firmware_sim.engine import DeviceEngine
from firmware_sim.progressive import ControllerPersonality, SignPersonality
from firmware_sim.world import DEALER_HAND, DISCARD, FLOOR, SHUFFLER_OUTPUT, TableWorld
from games.crazy_4_poker import GAME, RuleSet
from games.crazy_4_poker.evaluator import KING, QUEEN, Category, aces_or_better, strength
from games.crazy_4_poker.inputs import Fold, PlaceWagers, Play
from simulator.dealer import SimulatedDealer, batch_box
from simulator.games.registry import DealerFaults, Simulation, Vocabulary
from simulator.players import face_down
from simulator.players.seen import Look
from simulator.scenario.actors import ScriptedPlayers
from simulator.tables.devices import DeviceSpec, SimulatedTable, opened_table, simulated_shuffler
from vocabulary.cards import Card

# The simulated dealer of a Crazy 4 Poker table dealt from the hand (58 Pa. Code § 657a.9).  To
# SimulatedDealer's steps it adds what dealing from the hand asks: take the shuffled deck out of the
# shuffler's output into the hand (657a.9(a)(2)), give one card from the top of the hand to a place (b),
# count or rack the stub (c)-(e), count each place's cards after a wrong stub count (f), count the value
# chips on the progressive sensors (a)(3), and, where the shuffler reports no order, report each hand
# turned up at the showdown. Cards move only through the world, so the count is conserved at every step;
# it looks at a face only in a hand turned up for its report.


class SimulatedCrazy4Dealer(SimulatedDealer):
    """The dealer's hands over ``world``; ``controller`` is the progressive controller whose wager
    sensors hold the value chips the dealer collects and counts (once the table is up, the device as
    served: in a child process, its RemoteDevice)."""

    def __init__(self, world: TableWorld, controller: DeviceControl) -> None:
        super().__init__(world)
        self.controller = controller
        self.chips = 0  # value chips collected this round, off the sensors
        self.miscount = 0  # added to the next chip count only: a dealer's counting error
        self.skip_report: set[str] = set()  # places whose next hand report the dealer skips

    def take_deck(self) -> None:
        """The shuffled deck from the shuffler's output into the dealer's hand (657a.9(a)(2))."""
        self.world.move_all(SHUFFLER_OUTPUT, DEALER_HAND)
        self.chips = 0  # last round's chips went to the progressive inventory

    def count_places(self, places: Iterable[str]) -> dict[str, int]:
        """The cards at each place, counted face down after a wrong stub count (657a.9(f))."""
        return {place: self.world.count(place) for place in places}

    def recount_places(self, places: Iterable[str]) -> dict[str, int]:
        """The same count, asked after a wrong stub count (657a.9(f))."""
        return self.count_places(places)

    def replace_deck(self, back: str) -> None:
        """The racked deck leaves the table, with any card of it dropped on the floor, and a new
        one is unwrapped in its place (657a.9(f))."""
        self.world.remove(DISCARD)
        self.world.remove(FLOOR)
        self.world.add_batch(batch_box(back), back, 1)

    def report_hand(self, place: str) -> tuple[Card, ...] | None:
        """The cards at ``place``, turned up and reported (a shuffler that reports no order); a place
        in ``skip_report`` is not reported, once: the dealer's slip a scenario strikes."""
        if place in self.skip_report:
            self.skip_report.discard(place)
            return None
        return tuple(card.face for card in self.world.cards(place) if card.face is not None)

    def count_progressive_chips(self) -> int:
        """Collect the value chips from the progressive sensors and count them (657a.9(a)(3))."""
        seats = self.controller.call(_collect_chips)
        self.chips += len(seats)
        counted, self.miscount = self.chips + self.miscount, 0
        return counted


def _collect_chips(engine: DeviceEngine) -> list[int]:
    """Take the chips off the progressive controller's wager sensors: the seats that had one."""
    sensors = engine.personality
    assert isinstance(sensors, ControllerPersonality), type(sensors).__name__
    seats = sorted(sensors.covered)
    for seat in seats:
        sensors.uncover(engine, seat)
    return seats


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
    in_child: bool = False,
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
        GAME.slug,
        world,
        hands,
        specs,
        settings=settings,
        shuffler_seed=shuffler_seed,
        in_child=in_child,
        rules=rules,
        name=name,
        award_levels=award_levels,
        win_deadline=win_deadline,
        record_events=record_events,
    ) as sim:
        hands.controller = sim.devices["progressive"]  # the chips go where the controller runs
        yield sim


STAKES = (500, 1000, 2500, 5000)  # cents: the Ante, and the Super Bonus equal to it
QUEENS_UP_STAKE = 500
PROGRESSIVE_CHIP = 100  # one value chip (657a.9(a)(3))
SIX_CARD_BONUS_STAKE = 500


def play_multiple(cards: Sequence[Card], max_multiple: int = 3) -> int:
    """The Play in Antes for five cards, 0 to fold: the most allowed with a pair of aces or better in
    the best four, 1x with king-queen high or better, else fold (the dealer qualifies with king
    high, so less rarely wins)."""
    hand = strength(cards)
    if aces_or_better(hand):
        return max_multiple
    if hand.category > Category.HIGH_CARD:
        return 1
    return 1 if hand.ranks[0] > KING or (hand.ranks[0] == KING and hand.ranks[1] >= QUEEN) else 0


class StrategyPlayers:
    """Every position taken: Ante and Super Bonus equal from STAKES; Queens Up on some positions
    (``queens_up_rate``); where ``rules`` offer them, a Six Card Bonus (``six_card_rate``) and a
    progressive chip (``progressive_rate``) put on the seat's sensor through ``cover``, without
    which no progressive wager is made (the chip count would not match). Decisions follow
    ``play_multiple`` on the seat's own cards, given by ``look``; only the wagers come from ``rng``,
    so a seeded run replays exactly."""

    def __init__(
        self,
        rng: random.Random,
        *,
        look: Look,
        rules: RuleSet | None = None,
        cover: Callable[[int], object] | None = None,
        queens_up_rate: float = 0.3,
        progressive_rate: float = 0.5,
        six_card_rate: float = 0.2,
    ) -> None:
        self.rng = rng
        self.look = look
        self.rules = rules or RuleSet.example()
        self.cover = cover
        self.queens_up_rate = queens_up_rate
        self.progressive_rate = progressive_rate if cover and self.rules.progressive_offered else 0.0
        self.six_card_rate = six_card_rate if self.rules.six_card_bonus_offered else 0.0

    def wagers(self, round_number: int, positions: int) -> Sequence[PlaceWagers]:
        wagers = []
        for seat in range(1, positions + 1):
            stake = self.rng.choice(STAKES)
            queens = QUEENS_UP_STAKE if self.rng.random() < self.queens_up_rate else 0
            progressive = PROGRESSIVE_CHIP if self.rng.random() < self.progressive_rate else 0
            six = SIX_CARD_BONUS_STAKE if self.rng.random() < self.six_card_rate else 0
            if progressive:
                assert self.cover is not None  # no progressive rate without a cover (__init__)
                if self.cover(seat) is False:
                    progressive = 0  # no chip on the sensor: refused (decision 0039)
            wagers.append(
                PlaceWagers(seat, stake, stake, queens, progressive=progressive, six_card_bonus=six)
            )
        return wagers

    def decide(self, seat: int) -> Play | Fold:
        cards = self.look(seat)
        # A card astray (the round will not reach the showdown), or a card twice in the hand (the
        # round holds on the shuffler's order: duplicate-card): no hand to rank; fold.
        if len(set(cards)) != 5:
            return Fold(seat)
        multiple = play_multiple(cards, self.rules.max_play_multiple)
        return Play(seat, multiple) if multiple else Fold(seat)


# -- the game in the simulator (simulator.games.registry) -----------------------------------------
class ScriptedCrazy4Poker(ScriptedPlayers):
    """A scenario's players at Crazy 4 Poker: each seat's Play (``play:N``) or fold, as the file
    gives it."""

    def decide(self, seat: int) -> Play | Fold:
        answer = self.next_answer(seat, "Play or fold")
        return Play(seat, answer.number) if answer.word == "play" else Fold(seat)


def keyed(seat: int) -> dict[str, int]:
    """A plain wager as the dealer keys it: $10 ante and $10 Super Bonus."""
    return {"seat": seat, "ante": 1000, "super_bonus": 1000}


SIMULATION = Simulation(
    game=GAME,
    table=simulated_crazy_4_poker,
    players=StrategyPlayers,
    keyed=keyed,
    dealer_faults=DealerFaults(
        irregularities=frozenset({"wrong-card-count", "discard-count"}),
        cleared=frozenset({"WRONG_COUNT", "FOREIGN_CARD"}),
        voided=1,  # 657a.9(f): a wrong stub count voids the round
    ),
    seated=face_down,
    rules=RULES,
    options={"award_levels": LEVELS},
    counts_stub=True,
    scenario=Vocabulary(
        decisions=("play:N", "fold"), stacked="shuffler", scripted=ScriptedCrazy4Poker, reports_hands=True
    ),
)
