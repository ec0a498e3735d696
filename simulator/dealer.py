"""The simulated dealer: the physical steps a table asks of its dealer, as moves in a TableWorld.

It moves cards only through the world (``move`` for the top card of a place, and under the world's
lock for the one card a hand does not give from its top: the second card of a split pair, the hole
card under the up card), so the card count is conserved at every step. Places on the layout take
the names the table gives them (``"dealer"``, ``"seat 3 hand 0"``); the world's DEALER place is
the dealer's. It never looks at a face: it is the dealer's hands, not eyes.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from firmware_sim.world import (
    ASIDE,
    COVER,
    DEALER,
    DEALER_HAND,
    DISCARD,
    FLOOR,
    READER,
    SHOE,
    SHOE_TRAY,
    SHUFFLER_INPUT,
    PhysicalCard,
    TableWorld,
    WorldError,
)
from vocabulary.cards import Card

HOLE_INDEX = 1  # the hole card lies under the up card, the dealer's second card (672a.7(e)(4))
FOREIGN_BACK = "foreign"  # the back of a card that belongs to no batch of the table


def batch_box(back: str) -> str:
    """Where an unwrapped batch waits, before its first shuffle."""
    return f"batch box {back}"


class SimulatedDealer:
    """A dealer's hands over ``world``; see croupier.tables.dealer.Dealer for what each step means."""

    def __init__(self, world: TableWorld) -> None:
        self.world = world
        self.drop_next_pickup = False  # the first card of the next pickup falls to the floor
        self.drop_from_stub = False  # one card of the stub falls as the stub is next counted

    def unwrap(self, backs: Iterable[str], decks: int) -> None:
        """Bring the table's batches (one per back) and its cover card onto the table."""
        for back in backs:
            self.world.add_batch(batch_box(back), back, decks)
        self.world.add(ASIDE, [None], COVER)

    def load_shuffler(self, back: str) -> None:
        self.world.move_all(batch_box(back), SHUFFLER_INPUT)

    def insert_cover_card(self, depth: int) -> None:
        with self.world.lock:
            covers = [card for card in self.world.cards(ASIDE) if card.is_cover]
            if not covers:
                raise WorldError("no cover card set aside to insert")
            self._pull(ASIDE, self.world.cards(ASIDE).index(covers[0]), SHOE, at=depth)

    def burn(self) -> None:
        self.world.move(SHOE_TRAY, DISCARD)

    def rack_unread(self) -> None:
        with self.world.lock:
            self._pull(SHOE_TRAY, self.world.count(SHOE_TRAY) - 1, DISCARD)

    def place(self, place: str, face_up: bool) -> None:
        self.world.move(SHOE_TRAY, place)

    def split(self, hand: str, new_hand: str) -> None:
        with self.world.lock:
            self._pull(hand, self.world.count(hand) - 1, new_hand)

    def pay_blackjack(self, place: str, amount: int) -> None:
        """The world holds cards, not chips: announcing and paying a Blackjack moves no card (its
        cards go to the rack with the ``pick_up`` that follows)."""

    def hole_card_to_reader(self) -> None:
        with self.world.lock:
            self._pull(DEALER, HOLE_INDEX, READER)

    def hole_card_from_reader(self) -> None:
        with self.world.lock:
            self._pull(READER, 0, DEALER, at=HOLE_INDEX)

    def pick_up(self, places: Sequence[str]) -> None:
        with self.world.lock:
            if self.drop_next_pickup and places:
                self.world.faults.drop_next, self.drop_next_pickup = 1, False
            for place in places:
                self.world.move(place, DISCARD)

    def count_rack(self) -> int:
        return self.world.count(DISCARD)

    def rack_found(self, cards: int) -> None:
        """Nothing to note: these hands count the rack itself (``count_rack``)."""

    def empty_shoe(self, cards: int) -> None:
        """Every card the shoe holds, whatever its count says: the rack's count then finds a wrong one."""
        self.world.move_all(SHOE, DISCARD)

    def rack_to_shuffler(self) -> None:
        self.world.move_all(DISCARD, SHUFFLER_INPUT)

    def slip_foreign_card(
        self, face: Card, place: str = SHUFFLER_INPUT, *, back: str = FOREIGN_BACK, at: int = 0
    ) -> None:
        """A card that does not belong slipped into ``place`` before position ``at``: by default one
        of a foreign back on top of the shuffler's input, so it joins the next batch shuffled; a
        joker with the batch's own back into the shoe is one the table finds as it is dealt. It
        enters the table through ``add``, as from a pocket, so the world's books still balance."""
        self.world.add(place, [face], back, at=at)

    def slip_copy(self, place: str) -> Card:
        """A card of ``place`` swapped for a second copy of its top card, of the same back (a card
        from another deck of the same design): 52 cards still, one of them twice, which no count
        finds. The card swapped keeps its place in the world's books. Returns the face now twice."""
        with self.world.lock:
            cards = self.world.take(place, self.world.count(place))
            doubled = cards[0].face
            assert doubled is not None, f"{place} begins with a cover card"
            at = next(i for i, card in enumerate(cards) if card.face != doubled)
            cards[at] = PhysicalCard(cards[at].uid, doubled, cards[at].back)
            self.world.put(place, cards)
        return doubled

    def deal_card(self, place: str) -> None:
        """The top card of the hand, face down, to ``place`` (dealing from the hand: 657a.9(b),
        the community cards of 677a.10(c))."""
        self.world.move(DEALER_HAND, place)

    def count_stub(self) -> int:
        """Count the cards left in the hand, face down (657a.9(d))."""
        self.fumble_stub()
        return self.world.count(DEALER_HAND)

    def stub_to_rack(self) -> None:
        """The stub into the discard rack, unexposed (657a.9(c), (e))."""
        self.world.move_all(DEALER_HAND, DISCARD)

    def fumble_stub(self) -> None:
        """If ``drop_from_stub`` is armed: one card of the stub in the hand falls to the floor, just
        before the dealer counts it (``count_stub``)."""
        with self.world.lock:
            if self.drop_from_stub and self.world.count(DEALER_HAND):
                self.drop_from_stub = False
                self.world.move(DEALER_HAND, FLOOR)

    def _pull(self, src: str, index: int, dst: str, *, at: int | None = None) -> None:
        """Move the card at ``index`` of ``src`` to ``dst`` (its bottom, or before ``at``); the
        caller holds the world's lock."""
        stack = self.world.places.get(src, [])
        if not 0 <= index < len(stack):
            raise WorldError(f"{src} holds {len(stack)} card(s): no card at position {index + 1}")
        card = stack.pop(index)
        target = self.world.places.setdefault(dst, [])
        target.insert(len(target) if at is None else at, card)
