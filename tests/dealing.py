"""Test helpers for tables on the simulated devices: a dealer with a camera over the felt, and a
stacked top of the shoe."""

from __future__ import annotations

from collections.abc import Sequence

from drivers.protocol.cards import Card
from firmware_sim.dealer import SimulatedDealer
from firmware_sim.world import DISCARD, SHOE, TableWorld


class WatchingDealer(SimulatedDealer):
    """The simulated dealer, with a camera over the felt: what lay at each place when the dealer
    picked it up, and the cards in the order they reached the rack; it can jam the shoe after a
    given number of cards placed."""

    def __init__(self, world: TableWorld) -> None:
        super().__init__(world)
        self.felt: dict[str, list[str]] = {}
        self.racked: list[str] = []
        self.placed = 0
        self.jam_after: int | None = None  # the shoe jams once this many cards have been placed

    def place(self, place: str, face_up: bool) -> None:
        super().place(place, face_up)
        self.placed += 1
        if self.placed == self.jam_after:
            self.world.faults.stuck.add(SHOE)

    def pick_up(self, places: Sequence[str]) -> None:
        for place in places:
            self.felt.setdefault(place, [str(card.face) for card in self.world.cards(place)])
        super().pick_up(places)
        if places:  # each entry moved one card to the rack
            self.racked += [str(card.face) for card in self.world.cards(DISCARD)[-len(places) :]]

    def new_round(self) -> None:
        self.felt, self.racked = {}, []


def stack_top(world: TableWorld, names: Sequence[str]) -> None:
    """A test's hand in the shoe: bring these faces (one physical card each) to its top, in order."""
    with world.lock:
        shoe = world.places[SHOE]
        picked = []
        for name in names:
            face = Card.parse(name)
            picked.append(shoe.pop(next(i for i, card in enumerate(shoe) if card.face == face)))
        shoe[0:0] = picked
