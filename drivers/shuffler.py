"""The automated card shuffler driver: its commands as methods, its shuffled order as a sealed value.

The driver knows the shuffler's protocol (drivers/protocol/classes/shuffler.py) and nothing of the
rules of play: whether a batch may go to the shoe is devices/shuffler.py's decision. It does check
what the protocol itself promises, so that a firmware bug surfaces here as a ProtocolMismatch: the
expected count the device computes, and the pages of a shuffled order fitting together.
"""

from __future__ import annotations

import hmac
from dataclasses import dataclass
from typing import ClassVar

from drivers.driver import Driver, ProtocolMismatch
from drivers.protocol.classes.shuffler import (
    NO_FACE,
    BatchConfigured,
    ConfigureBatch,
    DeliveredToShoe,
    DeliverToShoe,
    GetShuffleMode,
    GetShufflerCounters,
    ReadShuffledOrder,
    SetShuffleMode,
    SetTableOpen,
    Shuffle,
    ShuffledOrderPage,
    ShuffleMode,
    ShuffleModeReport,
    ShufflerCounters,
    ShuffleReport,
    commit_order,
    expected_count,
)
from drivers.protocol.core import DeviceClass
from vocabulary.cards import Card


@dataclass(frozen=True, eq=False, repr=False)
class SealedOrder:
    """The order of one shuffle, kept for reconstructing hands in a dispute and shown to no one
    before: its repr and str give the shuffle, the card count and the commitment, never a face.

    ``opens`` checks the order against the commitment the device reported before the host read the
    order, so the device cannot change the order afterwards and the host cannot claim another.
    """

    shuffle_id: int
    commitment: bytes
    _faces: bytes
    nonce: bytes

    def __len__(self) -> int:
        return len(self._faces)

    def __repr__(self) -> str:
        return (
            f"SealedOrder(shuffle_id={self.shuffle_id}, cards={len(self)}, "
            f"commitment={self.commitment.hex()[:16]}...)"
        )

    __str__ = __repr__

    def opens(self, commitment: bytes) -> bool:
        """Whether this order and nonce are what ``commitment`` was made from."""
        return hmac.compare_digest(commit_order(self._faces, self.nonce), commitment)

    def unseal(self) -> tuple[Card | None, ...]:
        """The faces, top card first (None for a card without a face): for a dispute only."""
        return tuple(None if code == NO_FACE else Card.from_code(code) for code in self._faces)


class ShufflerDriver(Driver):
    """Typed access to one automated card shuffler."""

    DEVICE_CLASS: ClassVar[DeviceClass] = DeviceClass.SHUFFLER

    @property
    def capabilities(self) -> tuple[str, ...]:
        identity = self.conn.identity
        return identity.capabilities if identity is not None else ()

    async def configure(self, decks: int, jokers_per_deck: int, back: str) -> int:
        """Tell the shuffler the batch it must find; returns the expected count both ends agree on.
        A value out of range raises PayloadError (a ValueError) naming it, before anything is sent."""
        command = ConfigureBatch(decks, jokers_per_deck, back).checked()
        reply = await self.call(command, BatchConfigured)
        mine = expected_count(decks, jokers_per_deck)
        if reply.expected != mine:
            raise ProtocolMismatch(f"{self.name}: device expects {reply.expected} cards, the host {mine}")
        return reply.expected

    async def shuffle(self) -> ShuffleReport:
        """Shuffle the loaded batch. Card-moving: an unknown outcome raises OutcomeUnknown."""
        return await self.call(Shuffle(), ShuffleReport)

    async def read_order(self, report: ShuffleReport) -> SealedOrder:
        """Read the order of the shuffle ``report`` describes, page by page, sealed."""
        faces = bytearray()
        while True:
            page = await self.call(ReadShuffledOrder(report.shuffle_id, len(faces)), ShuffledOrderPage)
            wanted = (report.shuffle_id, len(faces), report.count)
            fits = 0 < len(page.cards) <= report.count - len(faces)
            if (page.shuffle_id, page.offset, page.total) != wanted or not fits:
                raise ProtocolMismatch(
                    f"{self.name}: order page of shuffle {page.shuffle_id} at {page.offset} of "
                    f"{page.total} with {len(page.cards)} cards, wanted shuffle {wanted[0]} at "
                    f"{wanted[1]} of {wanted[2]}"
                )
            faces += bytes(page.cards)
            if len(faces) == report.count:
                return SealedOrder(report.shuffle_id, report.commitment, bytes(faces), page.nonce)

    async def deliver_to_shoe(self, shuffle_id: int) -> DeliveredToShoe:
        """Load the shoe with shuffled batch ``shuffle_id``. Card-moving."""
        return await self.call(DeliverToShoe(shuffle_id), DeliveredToShoe)

    async def mode(self) -> ShuffleModeReport:
        return await self.call(GetShuffleMode(), ShuffleModeReport)

    async def set_mode(self, mode: ShuffleMode) -> ShuffleModeReport:
        return await self.call(SetShuffleMode(int(mode)), ShuffleModeReport)

    async def set_table_open(self, is_open: bool) -> ShuffleModeReport:
        return await self.call(SetTableOpen(is_open), ShuffleModeReport)

    async def counters(self) -> ShufflerCounters:
        """The reconciliation read after an unknown outcome (docs/protocol.md §5.6)."""
        return await self.call(GetShufflerCounters(), ShufflerCounters)
