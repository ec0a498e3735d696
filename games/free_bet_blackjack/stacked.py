"""A stacked shoe and card reader, for scenarios and simulations without devices.

It plays the part devices/shoe.py and devices/card_reader.py play at a real table: it deals the
faces it was given, in order, as the round expects them (a face-down card as the shoe driver's own
SealedCard, with a commitment made as drivers.protocol.cards makes it), answers the peek with yes or
no only, turns the hole card up on request and checks a card shown against its seal. A ``None``
face is the cover card, as in firmware_sim.world.read_stack_file.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable

from drivers.protocol.cards import Card, SealedCard, commit, new_nonce, opens
from games.free_bet_blackjack.hand import is_blackjack
from games.free_bet_blackjack.inputs import COVER_CARD, Arrival, CardArrives, Sealed
from games.free_bet_blackjack.records import Record
from games.free_bet_blackjack.round import Round


class StackedShoe:
    def __init__(self, faces: Iterable[Card | None]) -> None:
        self._faces = deque(faces)
        self._sealed: dict[bytes, tuple[Card, bytes]] = {}
        self.dealt: list[Card] = []  # every card that left the shoe, cover card excepted

    def __len__(self) -> int:
        return len(self._faces)

    def draw(self, *, face_up: bool) -> Arrival:
        """The next card out of the shoe, face up or sealed."""
        face = self._faces.popleft()
        if face is None:
            return COVER_CARD
        self.dealt.append(face)
        if face_up:
            return face
        nonce = new_nonce()
        commitment = commit(face, nonce)
        self._sealed[commitment] = (face, nonce)
        return SealedCard(len(self._sealed), commitment)  # the shoe driver's own sealed card

    def deal(self, round_: Round) -> tuple[Record, ...]:
        """Deal the card the round expects next (the next one, if a cover card comes out first)."""
        slot = round_.expected
        if slot is None:
            raise LookupError(f"{round_!r} expects no card")
        return round_.handle(CardArrives(self.draw(face_up=slot.face_up)))

    def deal_all_due(self, round_: Round) -> None:
        """Deal until the round expects no card (a decision, an answer or a step is awaited)."""
        while round_.expected is not None:
            self.deal(round_)

    def verify(self, sealed: Sealed, card: Card) -> bool:
        """The commitment check the round is given as its ``verify`` callback."""
        entry = self._sealed.get(sealed.commitment)
        return entry is not None and opens(sealed.commitment, card, entry[1])

    def turn_up(self, sealed: Sealed) -> Card:
        """The face of a card dealt face down, when it is turned up (672a.7(k))."""
        return self._sealed[sealed.commitment][0]

    def reader_answer(self, up_card: Card, sealed: Sealed) -> bool:
        """The card reader's whole answer: does the hole card give the dealer a Blackjack?"""
        return is_blackjack([up_card, self.turn_up(sealed)])
