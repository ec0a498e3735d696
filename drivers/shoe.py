"""Driver of the automated dealing shoe: dispense, seal, reveal, count.

A card dealt face down comes back as a SealedCard: a reference and a commitment, and nothing from
which its face could be read, however it is printed or logged. ``reveal`` fetches the face when the
card is turned up and proves it is the card dealt: a face that does not open the commitment means
the device swapped a card or its firmware is broken, and is raised as CommitmentMismatch.
"""

from __future__ import annotations

from dataclasses import dataclass

from drivers.driver import Driver, ProtocolMismatch
from drivers.errors import DriverError, Severity
from drivers.protocol.classes.shoe import (
    MAX_STACK,
    NO_REFERENCE,
    BatchLoaded,
    DispenseFaceDown,
    DispenseFaceUp,
    DispenseOutcome,
    DispenseStack,
    EndRound,
    FaceDownDispensed,
    FaceUpDispensed,
    GetCounts,
    RevealCard,
    RevealedCard,
    SetMode,
    ShoeCounts,
    StackDispensed,
)
from drivers.protocol.core import DeviceClass
from vocabulary.cards import Card, CardError, SealedCard, opens


class CommitmentMismatch(DriverError):
    """A revealed face does not open the commitment made when the card was dealt: the card shown is
    not provably the card dealt. Never retried; the device is not to be trusted with secrets."""

    severity = Severity.FATAL


@dataclass(frozen=True, slots=True)
class Dispensed:
    """What one dispense did: the cards read, in the order they left the shoe (Cards when dealt
    face up, SealedCards when face down), the outcome, and the shoe's counts after it."""

    outcome: DispenseOutcome
    cards: tuple[Card | SealedCard, ...]
    dispensed: int
    remaining: int

    @property
    def unread(self) -> int:
        """Cards that left the shoe without being read (a misread): 0 or 1."""
        return int(self.outcome is DispenseOutcome.MISREAD)


class ShoeDriver(Driver):
    """The shoe's commands as methods; faces of face-down cards stay sealed."""

    DEVICE_CLASS = DeviceClass.SHOE

    async def dispense(self, *, face_up: bool) -> Dispensed:
        """Dispense the next card, face up (its face) or face down (a SealedCard)."""
        if face_up:
            up = await self.call(DispenseFaceUp(), FaceUpDispensed)
            cards: tuple[Card | SealedCard, ...] = ()
            if up.outcome == DispenseOutcome.CARD:
                cards = (self._face(up.face, "FaceUpDispensed"),)
            return Dispensed(self._outcome(up.outcome), cards, up.dispensed, up.remaining)
        down = await self.call(DispenseFaceDown(), FaceDownDispensed)
        cards = ()
        if down.outcome == DispenseOutcome.CARD:
            cards = (self._sealed(down.reference, down.commitment),)
        return Dispensed(self._outcome(down.outcome), cards, down.dispensed, down.remaining)

    async def dispense_stack(self, count: int) -> Dispensed:
        """Dispense ``count`` cards as one face-down stack (677a.10(b)): one SealedCard per card read.

        A stack is always face down: a stack is delivered face down, and community cards dispensed
        first (677a.10(g)) are turned up later, each with ``reveal``.
        """
        if not 1 <= count <= MAX_STACK:
            raise ValueError(f"a stack holds 1 to {MAX_STACK} cards (one frame of commitments), not {count}")
        stack = await self.call(DispenseStack(count), StackDispensed)
        cards = tuple(
            self._sealed((stack.first_reference + i - 1) % 0xFFFF + 1, commitment)
            for i, commitment in enumerate(stack.commitments)
        )
        return Dispensed(self._outcome(stack.outcome), cards, stack.dispensed, stack.remaining)

    async def reveal(self, card: SealedCard) -> Card:
        """The face of a face-down card that is being turned up, checked against its commitment."""
        revealed = await self.call(RevealCard(card.reference), RevealedCard)
        if revealed.reference != card.reference:
            raise ProtocolMismatch(
                f"{self.name}: asked to reveal #{card.reference}, the device revealed #{revealed.reference}"
            )
        face = self._face(revealed.face, "RevealedCard")
        if not opens(card.commitment, face, revealed.nonce):
            raise CommitmentMismatch(
                f"{self.name}: the face revealed for card #{card.reference} does not open the "
                "commitment made when it was dealt: take the shoe out of play"
            )
        return face

    async def batch_loaded(self) -> ShoeCounts:
        """Tell the shoe a new batch was placed in it (672a.7(a)); it resets and counts."""
        return await self.call(BatchLoaded(), ShoeCounts)

    async def end_round(self) -> ShoeCounts:
        """Auto-reshuffling mode: the round's discards go back in and are shuffled in."""
        return await self.call(EndRound(), ShoeCounts)

    async def set_mode(self, *, auto_reshuffle: bool, community_first: bool = False) -> ShoeCounts:
        return await self.call(SetMode(auto_reshuffle, community_first), ShoeCounts)

    async def counts(self) -> ShoeCounts:
        """Cards dispensed since the load and left in the shoe: the reconciliation read."""
        return await self.call(GetCounts(), ShoeCounts)

    # -- checks of what the device sent ---------------------------------------------------------------
    def _outcome(self, value: int) -> DispenseOutcome:
        try:
            return DispenseOutcome(value)
        except ValueError:
            raise ProtocolMismatch(f"{self.name}: unknown dispense outcome {value}") from None

    def _face(self, code: int, reply: str) -> Card:
        try:
            return Card.from_code(code)
        except CardError as exc:
            raise ProtocolMismatch(f"{self.name}: {reply} carries no card: {exc}") from None

    def _sealed(self, reference: int, commitment: bytes) -> SealedCard:
        if reference == NO_REFERENCE:
            raise ProtocolMismatch(f"{self.name}: a face-down card came without a reference")
        return SealedCard(reference, commitment)
