"""The simulated dealer of a Crazy 4 Poker table dealt from the hand (58 Pa. Code § 657a.9).

To SimulatedDealer's steps it adds what dealing from the hand asks: take the shuffled deck out of
the shuffler's output into the hand (657a.9(a)(2)), give one card from the top of the hand to a
place (b), count or rack the stub (c)-(e), count each place's cards after a wrong stub count (f),
count the value chips on the progressive sensors (a)(3), and, where the shuffler reports no order,
report each hand turned up at the showdown. Cards move only through the world, so the count is
conserved at every step; it looks at a face only in a hand turned up for its report.
"""

from __future__ import annotations

from collections.abc import Iterable

from firmware_sim.dealer import SimulatedDealer, batch_box
from firmware_sim.device import SimulatedDevice
from firmware_sim.engine import DeviceEngine
from firmware_sim.progressive import ControllerPersonality
from firmware_sim.world import DEALER_HAND, DISCARD, FLOOR, SHUFFLER_OUTPUT, TableWorld
from vocabulary.cards import Card


class SimulatedCrazy4Dealer(SimulatedDealer):
    """The dealer's hands over ``world``; ``controller`` is the progressive controller whose wager
    sensors hold the value chips the dealer collects and counts."""

    def __init__(self, world: TableWorld, controller: SimulatedDevice) -> None:
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
