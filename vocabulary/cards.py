"""Cards on the wire: one byte per card face, and commitments for faces that must stay secret.

A face is ``suit << 4 | rank`` (rank 1 = ace .. 13 = king; suit 0 clubs, 1 diamonds, 2 hearts,
3 spades); a joker is ``0x0E | colour << 4`` (0 red, 1 black). A card dealt face down never crosses
the wire as a face: the reading device sends a commitment, SHA-256 of the face byte and a 16-byte
nonce, and reveals face and nonce when the card is turned up, so the host can check that the card
shown is the card dealt (docs/protocol.md §11 and §11.2).
"""

from __future__ import annotations

import functools
import hashlib
import hmac
import secrets
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

RANKS = "A23456789TJQK"
SUITS = "cdhs"
JOKER_RANK = 0x0E
NONCE_SIZE = 16
COMMITMENT_SIZE = 32


class CardError(ValueError):
    """A byte or text that names no card."""


@dataclass(frozen=True, slots=True, order=True)
class Card:
    """A card face. ``str(card)`` is the short form used in stacked-deck files: ``As``, ``Td``, ``Xr``."""

    rank: int  # 1..13, or JOKER_RANK
    suit: int  # 0..3; for a joker its colour (0 red, 1 black)

    def __post_init__(self) -> None:
        if self.rank == JOKER_RANK:
            if self.suit not in (0, 1):
                raise CardError(f"joker colour must be 0 (red) or 1 (black), got {self.suit}")
        elif not (1 <= self.rank <= 13 and 0 <= self.suit <= 3):
            raise CardError(f"no card has rank {self.rank} and suit {self.suit}")

    @property
    def is_joker(self) -> bool:
        return self.rank == JOKER_RANK

    def __reduce__(self) -> tuple[object, tuple[int]]:
        """Pickled as its wire code and read back as the one face of that code (``from_code``): a
        frozen slotted dataclass otherwise pickles field by field, and a simulated table's devices in
        a child process send stacks of cards to and fro with every shuffle (decision 0048)."""
        return type(self).from_code, (self.code,)

    @property
    def code(self) -> int:
        return self.suit << 4 | self.rank

    @classmethod
    @functools.cache
    def from_code(cls, code: int) -> Card:
        """The card of a wire code; each face made once (a card is immutable), as a shuffle's order is
        read 52 cards at a time. A code no card has raises CardError every time."""
        return cls(code & 0x0F, code >> 4)

    @classmethod
    def parse(cls, text: str) -> Card:
        """``As``, ``Td``, ``10h``, ``Xr``/``Xb`` (jokers); case-insensitive suit."""
        t = text.strip()
        if len(t) == 2 and t[0].upper() == "X":
            colour = "rb".find(t[1].lower())
            if colour < 0:
                raise CardError(f"{text!r}: a joker is Xr or Xb")
            return cls(JOKER_RANK, colour)
        if t[:2] == "10":
            t = "T" + t[2:]
        if len(t) != 2 or t[0].upper() not in RANKS or t[1].lower() not in SUITS:
            raise CardError(f"{text!r} is not a card (expected e.g. As, Td, 9c, Xr)")
        return cls(RANKS.index(t[0].upper()) + 1, SUITS.index(t[1].lower()))

    def __str__(self) -> str:
        if self.rank == JOKER_RANK:  # is_joker, read without a property's call: every record writes cards
            return "X" + "rb"[self.suit]
        return RANKS[self.rank - 1] + SUITS[self.suit]


def standard_deck(jokers: int = 0) -> list[Card]:
    """52 cards in new-deck order, then the jokers (603a.15: jokers only where the game allows)."""
    if not 0 <= jokers <= 2:
        raise CardError(f"a deck has 0, 1 or 2 jokers, not {jokers}")
    deck = [Card(rank, suit) for suit in range(4) for rank in range(1, 14)]
    return deck + [Card(JOKER_RANK, colour) for colour in range(jokers)]


def repeats(cards: Sequence[Card], before: Iterable[Card] = ()) -> list[int]:
    """The positions in ``cards`` of each card seen already, in ``before`` or earlier in ``cards``:
    one deck holds each card once, so a repeat shows a deck that is not one (or a card misread)."""
    seen = set(before)
    found = []
    for at, card in enumerate(cards):
        if card in seen:
            found.append(at)
        seen.add(card)
    return found


def new_nonce() -> bytes:
    return secrets.token_bytes(NONCE_SIZE)


def commit(card: Card, nonce: bytes) -> bytes:
    """The commitment a device sends for a face-down card."""
    if len(nonce) != NONCE_SIZE:
        raise CardError(f"a nonce is {NONCE_SIZE} bytes")
    return hashlib.sha256(bytes((card.code,)) + nonce).digest()


def opens(commitment: bytes, card: Card, nonce: bytes) -> bool:
    """Whether (card, nonce) is what ``commitment`` was made from."""
    return len(nonce) == NONCE_SIZE and hmac.compare_digest(commit(card, nonce), commitment)


@dataclass(frozen=True, slots=True)
class SealedCard:
    """A face-down card as the host knows it before it is turned up (672a.7(k)): the reading
    device's reference and commitment.

    It holds no face, so no repr, log line, event or API answer built from it can leak one.
    """

    reference: int
    commitment: bytes

    def __repr__(self) -> str:
        return f"SealedCard(#{self.reference}, commitment {self.commitment[:4].hex()}...)"

    __str__ = __repr__
