"""A stacked shoe, for scenarios and simulations without devices; used by Free Bet Blackjack (which
adds the card reader's answer), Over/Under's tests and Heads Up Hold'em's stacked deck.

It plays the part devices/shoe.py plays at a real table: it deals the faces it was given, in order,
as the round expects them (a face-down card as the shoe driver's own SealedCard, with a commitment
made as vocabulary.cards makes it), turns a sealed card up on request and checks a card shown
against its seal. A ``None`` face is the cover card, as in firmware_sim.world.read_stack_file.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable
from typing import Protocol

from games.common.messages import COVER_CARD, Arrival, CardArrives, Message
from games.common.records import Record
from vocabulary.cards import Card, SealedCard, commit, new_nonce, opens


class _Due(Protocol):
    @property
    def face_up(self) -> bool: ...


class Dealt(Protocol):
    """A round as the shoe sees it: the card it expects next, and its message handler."""

    @property
    def expected(self) -> _Due | None: ...

    def handle(self, message: Message) -> tuple[Record, ...]: ...


class StackedShoe:
    def __init__(self, faces: Iterable[Card | None]) -> None:
        self._faces = deque(faces)
        self._sealed: dict[bytes, tuple[Card, bytes]] = {}
        self.dealt: list[Card] = []  # every card that left the shoe, cover card excepted
        self.cover_out = False  # the cover card came out to ``take`` (``draw`` hands it over)

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

    def take(self) -> Card:
        """The next face, unsealed: for math mode's direct round (simulator/math), which deals
        without a trail. The cover card is passed over and noted in ``cover_out``, the round going on
        with the next card as a table's does; a card is counted as dealt, as ``draw`` counts it."""
        face = self._faces.popleft()
        if face is None:
            self.cover_out = True
            face = self._faces.popleft()
            assert face is not None, "one cover card per shoe"
        self.dealt.append(face)
        return face

    def twin(self) -> StackedShoe:
        """A second shoe stacked alike from here, the cards dealt so far counted in it too."""
        twin = type(self)(self._faces)
        twin.dealt = list(self.dealt)
        twin.cover_out = self.cover_out
        return twin

    def deal(self, round_: Dealt) -> tuple[Record, ...]:
        """Deal the card the round expects next (the next one, if a cover card comes out first)."""
        slot = round_.expected
        if slot is None:
            raise LookupError(f"{round_!r} expects no card")
        return round_.handle(CardArrives(self.draw(face_up=slot.face_up)))

    def deal_all_due(self, round_: Dealt) -> None:
        """Deal until the round expects no card (a decision, an answer or a step is awaited)."""
        while round_.expected is not None:
            self.deal(round_)

    def verify(self, sealed: Arrival, card: Card) -> bool:
        """The commitment check the round is given as its ``verify`` callback."""
        commitment = _commitment(sealed)
        entry = self._sealed.get(commitment)
        return entry is not None and opens(commitment, card, entry[1])

    def turn_up(self, sealed: Arrival) -> Card:
        """The face of a card dealt face down, when it is turned up (e.g. 672a.7(k))."""
        return self._sealed[_commitment(sealed)][0]


def _commitment(item: Arrival) -> bytes:
    """The commitment of a card dealt face down; a face or the cover card has none."""
    if isinstance(item, Card) or item is COVER_CARD:
        raise ValueError(f"{item!r} was not dealt face down")
    return item.commitment
