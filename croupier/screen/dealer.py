"""The human dealer at a table on real equipment: each physical step shown on the dealer's screen,
each count the rules ask for keyed there.

The devices deal, read and shuffle; the dealer's hands move the cards between them, and the table
cannot see those moves. So each step the table needs done is a ``dealer_step`` notice on the
screen's event stream ("burn the card in the tray", "place the card at seat 3 face up"), in the
table's order, and what the rules make the dealer count — the stub (677a.10(d), 657a.9(d)), the
progressive chips (657a.9(a)(3)) — is a prompt the dealer answers. A game's own steps and prompts
(whether the cards were misdealt, each place counted, a hand turned up) are its table module's
screen dealer's (croupier.tables.registry.TableKind ``dealer``). The discard rack is not counted round
by round at a real table: its tally is the cards the table sent there, and the batch is counted
for real by the shuffler when it is reshuffled (decision 0017), which latches a wrong count.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

from croupier.screen.answers import Offer
from croupier.screen.bodies import count_body
from croupier.screen.prompts import Screen

#: The dealer's counts, read by their models (croupier.screen.bodies).
STUB_COUNT = count_body("count", "StubCount")
CHIP_COUNT = count_body("count", "ChipCount")


class ScreenDealer:
    """The dealer's steps as notices on ``screen`` (the API publishes each as a ``dealer_step``
    event), the counts as its prompts: the steps every table's dealer may be asked for. A game
    whose dealer does more subclasses it in its table module and names it in its
    croupier.tables.registry.TableKind (``dealer``), so this screen knows no game (decision 0032)."""

    def __init__(self, screen: Screen) -> None:
        self.screen = screen
        self.rack = 0  # cards the table has sent to the discard rack
        self.felt: Counter[str] = Counter()  # cards the table has placed at each place

    def _step(self, step: str, **arguments: Any) -> None:  # Any: JSON values
        self.screen.step(step, arguments)

    # -- a shoe's life (croupier.tables.dealer.Dealer) --------------------------------------------
    def load_shuffler(self, back: str) -> None:
        self._step("load_shuffler", back=back)

    def insert_cover_card(self, depth: int) -> None:
        self._step("insert_cover_card", depth=depth)

    def burn(self) -> None:
        self.rack += 1
        self._step("burn")

    def rack_unread(self) -> None:
        self.rack += 1
        self._step("rack_unread")

    def place(self, place: str, face_up: bool) -> None:
        self.felt[place] += 1
        self._step("place", place=place, face_up=face_up)

    def split(self, hand: str, new_hand: str) -> None:
        self.felt[hand] -= 1
        self.felt[new_hand] += 1
        self._step("split", hand=hand, new_hand=new_hand)

    def pay_blackjack(self, place: str, amount: int) -> None:
        self._step("pay_blackjack", place=place, amount=amount)

    def hole_card_to_reader(self) -> None:
        self._step("hole_card_to_reader")

    def hole_card_from_reader(self) -> None:
        self._step("hole_card_from_reader")

    def pick_up(self, places: Sequence[str]) -> None:
        for place in places:
            self.felt[place] -= 1
        self.rack += len(places)
        self._step("pick_up", places=list(places))

    def count_rack(self) -> int:
        return self.rack

    def rack_found(self, cards: int) -> None:
        """The tally taken up after a restart, which the service's memory of it did not survive."""
        self.rack = cards

    def empty_shoe(self, cards: int) -> None:
        self.rack += cards
        self._step("empty_shoe", cards=cards)

    def rack_to_shuffler(self) -> None:
        self.rack = 0
        self._step("rack_to_shuffler")

    # -- a deck dealt from the hand (Heads Up Hold 'Em, Crazy 4 Poker: their table modules'
    # screen dealers add each game's own steps) ----------------------------------------------------
    def deal_card(self, place: str) -> None:
        """One card from the hand (a Hold 'Em community card, 677a.10(c); every card at Crazy 4 Poker)."""
        self.felt[place] += 1
        self._step("deal_card", place=place)

    async def count_stub(self) -> Offer[int]:
        return await self.screen.ask("stub_count", STUB_COUNT, clause="677a.10(d); 657a.9(d)")

    def stub_to_rack(self) -> None:
        self._step("stub_to_rack")

    # -- a progressive system's (devices.progressive) ---------------------------------------------
    async def count_progressive_chips(self) -> Offer[int]:
        return await self.screen.ask("chip_count", CHIP_COUNT, clause="657a.9(a)(3)")
