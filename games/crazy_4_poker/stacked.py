"""A stacked automated shuffler, for scenarios and simulations without devices.

It plays the part devices/shuffler.py plays at a real table: it reports the count and the order
of the deck it shuffled, sealed (SHA-256 of the 52 face bytes and a nonce, as vocabulary.cards
seals one face), reveals the order for the round, and checks an order against its seal (the
round's ``verify_order``). ``deal`` then plays the dealer: a ``CardDealt`` for each place due.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Sequence
from dataclasses import dataclass

from games.crazy_4_poker.dealing import deal_sequence
from games.crazy_4_poker.inputs import DEALER, SIX_CARD, CardDealt, Place, SealedOrder, ShuffleReport
from games.crazy_4_poker.round import Round
from vocabulary.cards import Card, new_nonce, standard_deck


@dataclass(frozen=True)
class Seal:
    commitment: bytes


def seal(cards: Sequence[Card], nonce: bytes) -> bytes:
    return hashlib.sha256(bytes(card.code for card in cards) + nonce).digest()


class StackedShuffler:
    def __init__(self, order: Sequence[Card], *, sealed: bool = True) -> None:
        self.order = tuple(order)
        self._nonce = new_nonce()
        self.sealed = Seal(seal(self.order, self._nonce)) if sealed else None

    def report(self, count: int | None = None) -> ShuffleReport:
        return ShuffleReport(len(self.order) if count is None else count, self.sealed)

    def verify(self, sealed: SealedOrder, cards: tuple[Card, ...]) -> bool:
        return hmac.compare_digest(seal(cards, self._nonce), sealed.commitment)

    def deal(self, round_: Round) -> None:
        """Deal every card the round expects, each to its place."""
        while round_.expected is not None:
            round_.handle(CardDealt(round_.expected))


def stack(seats: dict[int, str], dealer: str, six: str | None = None) -> list[Card]:
    """A 52-card order that deals ``seats`` and ``dealer`` their five cards (``"As Kd ..."``) in the
    order of 657a.9(b), the Six Card Bonus card first if given; the rest of the deck follows."""
    wanted: dict[Place, list[Card]] = {
        seat: [Card.parse(w) for w in text.split()] for seat, text in seats.items()
    }
    wanted[DEALER] = [Card.parse(w) for w in dealer.split()]
    if six is not None:
        wanted[SIX_CARD] = [Card.parse(six)]
    order = [wanted[place].pop(0) for place in deal_sequence(list(seats), six is not None)]
    return order + [card for card in standard_deck() if card not in order]
