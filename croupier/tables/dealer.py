"""What the table asks of the human dealer: the physical steps of a round and of a shoe's life.

The devices deal, read and shuffle; the dealer's hands move the cards between them. On a real
table each method is a prompt on the dealer's screen, answered when the dealer confirms it; the
table never goes on before the step is done, so the record and the felt agree card for card
(672a.7(s)). simulator.dealer.SimulatedDealer does the same steps as moves in a TableWorld.

Places on the layout are named as the round names them (games.free_bet_blackjack: ``Slot.place``,
``Hand.label``): ``"dealer"`` or ``"seat 3 hand 0"``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol


class Dealer(Protocol):
    """The physical actions of the dealer at one table, in the order a shoe's life asks for them."""

    def load_shuffler(self, back: str) -> None:
        """Put the unwrapped batch with ``back`` into the shuffler's input (633a.3(b), analog: batches)."""

    def insert_cover_card(self, depth: int) -> None:
        """Insert the cover card into the shoe, ``depth`` cards from the top (672a.7(d))."""

    def burn(self) -> None:
        """Move the burn card from the shoe's tray to the discard rack, unseen (672a.7(c))."""

    def rack_unread(self) -> None:
        """Move the card the shoe let out unread (a misread: the last in its tray, nothing let out
        after it), or unrecorded while a dispense's outcome was unknown, to the discard rack unseen:
        no record names it, so it is dealt to no place."""

    def place(self, place: str, face_up: bool) -> None:
        """Move the card in the shoe's tray to ``place``, face up or down (672a.7(b), (e))."""

    def split(self, hand: str, new_hand: str) -> None:
        """Move the second card of ``hand`` to start ``new_hand`` beside it."""

    def pay_blackjack(self, place: str, amount: int) -> None:
        """Announce the Blackjack at ``place`` and pay it ``amount`` cents now, as the dealer reaches
        its seat going clockwise (672a.7(h)(1)); its cards leave the layout next (``pick_up``), unless
        they are tucked under a Push 22 Wager."""

    def hole_card_to_reader(self) -> None:
        """Slide the dealer's face-down card into the card reader (672a.7(g))."""

    def hole_card_from_reader(self) -> None:
        """Take the hole card back from the reader to its place under the up card."""

    def pick_up(self, places: Sequence[str]) -> None:
        """Move one card per entry, the first left at that place, to the discard rack, in this
        order (672a.7(s); 672a.7(h)(1) for a hand removed when paid)."""

    def count_rack(self) -> int:
        """Count the cards in the discard rack."""

    def rack_found(self, cards: int) -> None:
        """The table goes on after a restart from a batch the shoe still holds: the discard rack
        holds ``cards`` of it, every card that has left the shoe (the shoe's dispensed count; a round
        cut off is picked up to the rack, docs/recovery.md)."""

    def empty_shoe(self, cards: int) -> None:
        """Move the ``cards`` remaining in the shoe (the shoe's count) to the discard rack
        (672a.7(d)(1))."""

    def rack_to_shuffler(self) -> None:
        """Put the counted discard rack into the shuffler's input to be reshuffled (672a.7(d)(2))."""
