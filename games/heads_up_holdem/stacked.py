"""A stacked shoe and a dealer's hands, for scenarios and simulations without devices.

It plays the part of the automated dealing shoe (devices/shoe.py) at a real table: it dispenses the
faces it was given, in order, as sealed stacks (games.common.stacked_shoe seals each card as
the shoe driver does, with a commitment); after the stacks the remaining cards leave it, read sealed,
into the dealer's hand (``hand``), and the dealer deals the community cards from the top of it
(677a.10(c)). Under 677a.10(g) the community cards come out first, as one stack of five.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from games.common.messages import COVER_CARD
from games.common.stacked_shoe import StackedShoe
from games.heads_up_holdem.inputs import (
    Arrival,
    CommunityDealt,
    DeckReport,
    NoMoreBets,
    PlaceWager,
    RevealCommunity,
    RevealHand,
    StackDelivered,
    StubRemoved,
    StubToRack,
)
from games.heads_up_holdem.machine import COMMUNITY, DEALING, FLOP, PREFLOP, STUB, STUB_OUT
from games.heads_up_holdem.round import Round
from games.heads_up_holdem.rules_config import RuleSet
from vocabulary.cards import Card, standard_deck

READY = DeckReport(in_shoe=True)
COMMUNITY_FIRST = DeckReport(in_shoe=True, shuffler_count=52, auto_reshuffle=True, community_first=True)


def arrange(
    hands: Sequence[str], dealer: str, community: str, *, community_first: bool = False
) -> list[Card]:
    """A 52-card deck in dispensing order: the stacks of ``hands`` (clockwise) and the ``dealer``'s,
    then the ``community`` cards (first instead, under 677a.10(g)), then the rest of the deck."""
    stacks = [Card.parse(word) for text in [*hands, dealer] for word in text.split()]
    board = [Card.parse(word) for word in community.split()]
    used = stacks + board
    rest = [card for card in standard_deck() if card not in used]
    return (board + stacks if community_first else stacks + board) + rest


class StackedDeck:
    def __init__(self, faces: Iterable[Card]) -> None:
        self.shoe = StackedShoe(faces)
        self.hand: list[Arrival] = []  # the stub in the dealer's hand, top card first (677a.10(c))

    def __len__(self) -> int:
        """The stub: the cards still in the shoe, or in the dealer's hand once removed from it."""
        return len(self.shoe) + len(self.hand)

    def remove_stub(self) -> StubRemoved:
        """677a.10(c): the remaining cards out of the shoe into the hand, each read sealed as it leaves."""
        self.hand = [self._sealed() for _ in range(len(self.shoe))]
        return StubRemoved(tuple(self.hand))

    def from_hand(self) -> CommunityDealt:
        """677a.10(c): the top card of the hand dealt face down as a community card."""
        return CommunityDealt(self.hand.pop(0))

    @property
    def dealt(self) -> list[Card]:
        """The cards put on the layout: out of the shoe, or dealt from the hand (not the stub left
        in it, the last cards out of the shoe)."""
        return self.shoe.dealt[: len(self.shoe.dealt) - len(self.hand)]

    def verify(self, sealed: Arrival, card: Card) -> bool:
        return self.shoe.verify(sealed, card)

    def _sealed(self) -> Arrival:
        item = self.shoe.draw(face_up=False)
        assert item is not COVER_CARD, "the game's shoe deals no cover card"
        return item

    def deliver(self, round_: Round) -> None:
        """Deliver every stack the round expects, remove the stub and deal the community cards from
        the hand (677a.10(b), (c), (g))."""
        while round_.state in (DEALING, STUB_OUT, COMMUNITY):
            if round_.state == STUB_OUT:
                round_.handle(self.remove_stub())
            elif round_.state == COMMUNITY:
                round_.handle(self.from_hand())
            else:
                due = round_.expected
                assert due is not None
                round_.handle(StackDelivered(tuple(self._sealed() for _ in range(due.count))))

    def reveal_community(self, round_: Round) -> None:
        """Turn up the flop (from the preflop) or the turn and river (from the flop)."""
        part = {PREFLOP: slice(0, 3), FLOP: slice(3, 5)}[round_.state]
        round_.handle(RevealCommunity(tuple(self.shoe.turn_up(item) for item in round_.community[part])))

    def reveal_hand(self, round_: Round, seat: int | None) -> None:
        stack = round_.dealer_stack if seat is None else round_.positions[seat].stack
        round_.handle(RevealHand(seat, tuple(self.shoe.turn_up(item) for item in stack)))


def start(
    faces: Iterable[Card],
    wagers: Mapping[int, int | tuple[int, int, int]] | None = None,
    *,
    rules: RuleSet | None = None,
    deck: DeckReport = READY,
    number: int = 1,
    rounds_since_stub_count: int = 0,
) -> tuple[Round, StackedDeck]:
    """A round with its wagers placed (Ante = Odds; ``(ante, trips, pocket)`` for side wagers),
    "no more bets" announced, every stack and community card delivered and the stub counted into
    the rack (677a.10(c)-(e)): the round awaits the first decision."""
    shoe = StackedDeck(faces)
    round_ = Round(
        number,
        rules=rules or RuleSet.example(),
        verify=shoe.verify,
        rounds_since_stub_count=rounds_since_stub_count,
    )
    for seat, amounts in ({1: 1000} if wagers is None else wagers).items():
        ante, trips, pocket = amounts if isinstance(amounts, tuple) else (amounts, 0, 0)
        round_.handle(PlaceWager(seat, ante, ante, trips, pocket))
    round_.handle(NoMoreBets(deck))
    shoe.deliver(round_)
    if round_.state == STUB:
        round_.handle(StubToRack(len(shoe)))
    return round_, shoe
