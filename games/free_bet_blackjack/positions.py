"""What lies on a betting position: the wagers, and the hands with their stakes.

Every hand at a position is staked in units of the position's Blackjack Wager. A hand's ``wager``
is real money (the Blackjack Wager itself, or a paid double or split); its ``lammers`` are the Free
Bet lammers the house put up for a free double or a free split: paid "an equivalent amount" when
the hand wins (672a.7(o)), collected and worth nothing otherwise.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable
from dataclasses import dataclass, field

from games.free_bet_blackjack.hand import Total, is_blackjack, total
from vocabulary.cards import Card


@dataclass(eq=False, slots=True)
class Hand:
    seat: int
    number: int  # 0 is the hand dealt; split hands are numbered in the order they are made
    wager: int  # cents of real money on the hand (0 for a hand made by a free split)
    # A tuple, replaced whole as a card is added or moved out: the total counted from it stays
    # valid while the hand holds the same tuple (``total``).
    cards: tuple[Card, ...] = ()
    lammers: list[int] = field(default_factory=list)  # cents each Free Bet lammer stands for
    split: bool = False  # the hand took part in a split: it can no longer be a Blackjack
    doubled: bool = False
    stood: bool = False
    awaiting: bool = False  # a hit or a double's card is due
    paid: bool = False  # settled before the showdown: a Blackjack (672a.7(h)(1)) or even money
    removed: bool = False  # its cards went to the discard rack when it was paid (672a.7(h)(1))
    # The total and the tuple of cards it was counted from (``total``).
    _counted: tuple[tuple[Card, ...], Total] | None = field(default=None, init=False, repr=False)

    @property
    def total(self) -> Total:
        """The hand's total, kept with the cards it was counted from: counted again only once the
        hand holds other cards (a card added, or one moved out by a split, replaces the tuple). The
        round asks for it some 120 times a round; compared with the tuple it was counted from, not
        with a copy of the cards made on every call (decision 0042)."""
        cards, counted = self.cards, self._counted
        if counted is not None and counted[0] is cards:
            return counted[1]
        value = total(cards)
        self._counted = (cards, value)
        return value

    @property
    def blackjack(self) -> bool:
        return not self.split and is_blackjack(self.cards, self.total)

    @property
    def card_due(self) -> bool:
        return not self.paid and (len(self.cards) < 2 or self.awaiting)

    @property
    def done(self) -> bool:
        """No decision is left: stood, settled, doubled (672a.7(j)(2)), or at 21 or more (672a.7(j))."""
        if self.paid or self.stood:
            return True
        if self.card_due:
            return False
        return self.doubled or self.total.value >= 21

    @property
    def label(self) -> str:
        return f"seat {self.seat} hand {self.number}"


@dataclass(eq=False, slots=True)
class Position:
    seat: int
    blackjack: int  # the Blackjack Wager, in cents: the unit of every stake at the position
    push22: int = 0
    insurance: int = 0
    even_money: bool = False
    hands: list[Hand] = field(default_factory=list)  # in the order they are played

    def __post_init__(self) -> None:
        if not self.hands:
            self.hands.append(Hand(self.seat, 0, self.blackjack))

    @property
    def dealt_hand(self) -> Hand:
        return next(hand for hand in self.hands if hand.number == 0)

    def hand(self, number: int) -> Hand:
        return next(hand for hand in self.hands if hand.number == number)

    def split(self, hand: Hand, *, paid: bool) -> Hand:
        """Split ``hand``'s pair: the second card starts a new hand played right after it, staked
        with real money (a paid split) or a Free Bet lammer (a free split)."""
        *kept, moved = hand.cards
        hand.cards = tuple(kept)
        new = Hand(
            self.seat,
            len(self.hands),
            self.blackjack if paid else 0,
            cards=(moved,),
            lammers=[] if paid else [self.blackjack],
            split=True,
        )
        hand.split = True
        self.hands.insert(self.hands.index(hand) + 1, new)
        return new

    def double(self, hand: Hand, *, paid: bool) -> None:
        """Double ``hand``: match the Blackjack Wager with money or a lammer; one card follows."""
        if paid:
            hand.wager += self.blackjack
        else:
            hand.lammers.append(self.blackjack)
        hand.doubled = True
        hand.awaiting = True


def any_live(positions: Iterable[Position]) -> bool:
    """672a.7(m): some hand's outcome still depends on the dealer's total: one neither paid nor bust."""
    return any(not hand.paid and not hand.total.bust for position in positions for hand in position.hands)


def outcome_open(positions: Collection[Position]) -> bool:
    """672a.7(m): the dealer's cards can still change an outcome: a Push 22 Wager on the table, or a
    hand still live (``any_live``)."""
    return any(position.push22 for position in positions) or any_live(positions)
