"""The simulated dealer of a Heads Up Hold 'Em table: SimulatedDealer's hands, plus the steps of
677a.10 that a blackjack table does not have.

A new deck is unwrapped for each deck the table puts in play (a deck removed under 677a.10(f) leaves
the table); a stack of two (or of five community cards, 677a.10(g)) is placed from the shoe's tray in
one move; the stub the shoe lets out into its tray is taken into the hand, the community cards are
dealt from its top (``deal_card``), and it is counted face down and put in the discard rack
(677a.10(c)-(e)). As its base, it moves cards only through the world and never looks at a face.
"""

from __future__ import annotations

from firmware_sim.dealer import SimulatedDealer, batch_box
from firmware_sim.world import DEALER_HAND, DISCARD, FLOOR, SHOE_TRAY

DECK = 1  # one 52-card deck per batch (677a.10(e))


class SimulatedHoldemDealer(SimulatedDealer):
    """A dealer's hands over ``world`` at a Hold 'Em table; see croupier.tables.heads_up_holdem
    .HoldemDealer for what each step means."""

    def unwrap_deck(self, back: str) -> None:
        self.world.add_batch(batch_box(back), back, DECK)

    def place_stack(self, place: str, count: int) -> None:
        self.world.move(SHOE_TRAY, place, count)

    def take_stub(self) -> None:
        self.world.move_all(SHOE_TRAY, DEALER_HAND)

    def rack_unread(self) -> None:
        with self.world.lock:
            self._pull(SHOE_TRAY, self.world.count(SHOE_TRAY) - 1, DISCARD)

    def misdealt(self) -> bool:
        """A wrong count from a card gone astray is no misdeal: the dealer finds none."""
        return False

    def remove_deck(self) -> int:
        """The deck in the rack, and any card of it on the floor, taken off the table."""
        with self.world.lock:
            return len(self.world.remove(DISCARD)) + len(self.world.remove(FLOOR))
