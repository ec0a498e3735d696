"""The human dealer at a table on real equipment: each physical step shown on the dealer's screen,
each count the rules ask for keyed there.

The devices deal, read and shuffle; the dealer's hands move the cards between them, and the table
cannot see those moves. So each step the table needs done is a ``dealer_step`` notice on the
screen's event stream ("burn the card in the tray", "place the card at seat 3 face up"), in the
table's order, and what the rules make the dealer count — the stub (677a.10(d), 657a.9(d)), the
progressive chips (657a.9(a)(3)), each place after a wrong stub count (657a.9(f)), whether the cards
were misdealt (677a.10(f)), a Crazy 4 Poker hand turned up where the shuffler reports no order — is a
prompt the dealer answers. The discard rack is not counted round
by round at a real table: its tally is the cards the table sent there, and the batch is counted
for real by the shuffler when it is reshuffled (decision 0017), which latches a wrong count.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from croupier.screen.answers import Offer
from croupier.screen.bodies import cards_body, count_body, flag_body, place_counts_body
from croupier.screen.prompts import Screen
from games.crazy_4_poker.evaluator import HAND_SIZE
from games.crazy_4_poker.inputs import SIX_CARD
from vocabulary.cards import Card

#: The dealer's counts, read by their models (croupier.screen.bodies).
STUB_COUNT = count_body("count", "StubCount")
CHIP_COUNT = count_body("count", "ChipCount")
MISDEAL_FINDING = flag_body("misdealt", "MisdealFinding")
#: A Crazy 4 Poker hand turned up and keyed (five cards), or the Six Card Bonus card alone.
HAND_REPORT = cards_body("cards", HAND_SIZE, "HandReport")
SIX_CARD_REPORT = cards_body("cards", 1, "SixCardReport")


class ScreenDealer:
    """The dealer's steps as notices on ``screen`` (the API publishes each as a ``dealer_step``
    event), the counts as its prompts."""

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

    def empty_shoe(self) -> None:
        self._step("empty_shoe")

    def rack_to_shuffler(self) -> None:
        self.rack = 0
        self._step("rack_to_shuffler")

    # -- a Hold 'Em table's (croupier.tables.heads_up_holdem.HoldemDealer) ------------------------
    def unwrap_deck(self, back: str) -> None:
        self._step("unwrap_deck", back=back)

    def place_stack(self, place: str, count: int) -> None:
        self.felt[place] += count
        self._step("place_stack", place=place, count=count)

    def take_stub(self) -> None:
        self._step("take_stub")

    def rack_unread(self) -> None:
        self.rack += 1
        self._step("rack_unread")

    def deal_card(self, place: str) -> None:
        """One card from the hand (a Hold 'Em community card, 677a.10(c); every card at Crazy 4 Poker)."""
        self.felt[place] += 1
        self._step("deal_card", place=place)

    async def count_stub(self) -> Offer[int]:
        return await self.screen.ask("stub_count", STUB_COUNT, clause="677a.10(d); 657a.9(d)")

    def stub_to_rack(self) -> None:
        self._step("stub_to_rack")

    async def misdealt(self) -> Offer[bool]:
        return await self.screen.ask("misdeal_finding", MISDEAL_FINDING, clause="677a.10(f)")

    def remove_deck(self) -> int:
        removed, self.rack = self.rack, 0
        self._step("remove_deck")
        return removed

    # -- a Crazy 4 Poker table's (croupier.tables.crazy_4_poker.Crazy4Dealer) ---------------------
    def take_deck(self) -> None:
        self._step("take_deck")

    def count_places(self, places: Sequence[str]) -> Mapping[str, int]:
        """The cards at each place as the table placed them (the pickup's order)."""
        return {place: self.felt[place] for place in places}

    async def recount_places(self, places: Sequence[str]) -> Offer[Mapping[str, int]]:
        parse = place_counts_body("PlaceCounts", places)
        return await self.screen.ask("place_counts", parse, places=list(places))

    def replace_deck(self, back: str) -> None:
        self.rack = 0
        self._step("replace_deck", back=back)

    async def report_hand(self, place: str) -> Offer[tuple[Card, ...] | None]:
        """The hand at ``place`` turned up and keyed (five cards; the Six Card Bonus card alone)."""
        size = 1 if place == SIX_CARD else HAND_SIZE
        body = HAND_REPORT if size == HAND_SIZE else SIX_CARD_REPORT
        return await self.screen.ask("hand_report", body, place=place, clause="657a.1")

    async def count_progressive_chips(self) -> Offer[int]:
        return await self.screen.ask("chip_count", CHIP_COUNT, clause="657a.9(a)(3)")
