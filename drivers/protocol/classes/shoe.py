"""Messages of the automated dealing shoe (card-recognising): commands 0x18-0x1F, events 0x98-0x9F.

A face-down card never crosses the wire as a face (docs/protocol.md §11.2, "Secrecy"). Face up and
face down are therefore separate commands with separate reply types: the reply to a face-down
dispense has no field that could hold a face, so no firmware slip can leak one, and a wire trace
needs no rule to tell which bytes to redact. The face travels only in RevealCard's reply, sent when
the card is turned up (672a.7(k)), with the nonce that opens the commitment.
"""

from __future__ import annotations

import enum
from typing import Annotated

from drivers.protocol.core import CATALOG, FaultCode
from drivers.protocol.fields import BOOL, U8, U16, Fixed, ListOf
from drivers.protocol.frame import MAX_PAYLOAD
from drivers.protocol.message import Command, Event, Reply
from vocabulary.cards import COMMITMENT_SIZE, NONCE_SIZE

NO_CARD = 0  # the face byte of a reply that dealt no readable card: rank 0 names no card
NO_REFERENCE = 0  # the reference of a reply that sealed no card; references run 1..65535



#: The dispensed count travels as a u16 and wraps there (docs/protocol.md): an auto-reshuffling
#: shoe's runs on past 65,535 cards, so the cards out between two counts are their difference modulo this.
DISPENSED_WRAPS = 0x10000

class DispenseOutcome(enum.IntEnum):
    """What the mechanism did with a dispense. Anything but CARD and COVER_CARD latches a fault."""

    CARD = 0  # the card(s) left the shoe and were read
    COVER_CARD = 1  # the cover card came out and was set aside; no card dealt (672a.7(d))
    MISREAD = 2  # a card left the shoe but could not be read; MISREAD latched
    COVER_CARD_MISPLACED = 3  # the cover card where it cannot be; COVER_CARD_MISPLACED latched
    JAM = 4  # nothing moved; JAM latched
    EMPTY = 5  # not enough cards; nothing moved; EMPTY latched


#: The fault each failed dispense latches on the device (and on the host, from the reply).
FAULT_OF_OUTCOME = {
    DispenseOutcome.MISREAD: FaultCode.MISREAD,
    DispenseOutcome.COVER_CARD_MISPLACED: FaultCode.COVER_CARD_MISPLACED,
    DispenseOutcome.JAM: FaultCode.JAM,
    DispenseOutcome.EMPTY: FaultCode.EMPTY,
}


class ShoeCounts(Reply):
    """The shoe's books: cards dispensed since the batch was loaded, cards left (the cover card not
    counted), and its mode. Also the reconciliation read after an unknown outcome (docs/protocol.md
    §5.6)."""

    dispensed: Annotated[int, U16]
    remaining: Annotated[int, U16]
    auto_reshuffle: Annotated[bool, BOOL]
    community_first: Annotated[bool, BOOL]


class FaceUpDispensed(Reply):
    """A card dispensed face up: its face, which everyone at the table is about to see."""

    outcome: Annotated[int, U8]
    dispensed: Annotated[int, U16]
    remaining: Annotated[int, U16]
    face: Annotated[int, U8]  # the card's code when outcome is CARD, else NO_CARD


class FaceDownDispensed(Reply):
    """A card dispensed face down: a commitment to its face and the reference that reveals it."""

    outcome: Annotated[int, U8]
    dispensed: Annotated[int, U16]
    remaining: Annotated[int, U16]
    reference: Annotated[int, U16]  # NO_REFERENCE unless outcome is CARD
    commitment: Annotated[bytes, Fixed(COMMITMENT_SIZE)]  # all zero unless outcome is CARD


class StackDispensed(Reply):
    """A face-down stack: one commitment per card read, in the order they left the shoe; their
    references are ``first_reference``, ``first_reference + 1``, ... (wrapping past 65535 to 1)."""

    outcome: Annotated[int, U8]
    dispensed: Annotated[int, U16]
    remaining: Annotated[int, U16]
    first_reference: Annotated[int, U16]
    commitments: Annotated[tuple[bytes, ...], ListOf(Fixed(COMMITMENT_SIZE))]


class RevealedCard(Reply):
    """The face of a face-down card and the nonce that opens its commitment."""

    reference: Annotated[int, U16]
    face: Annotated[int, U8]
    nonce: Annotated[bytes, Fixed(NONCE_SIZE)]


# The largest stack whose reply fits a frame: the reply's fixed fields and list count, then one
# commitment per card, within a RESPONSE payload less its status byte.
_STACK_REPLY_FIXED = 1 + 2 + 2 + 2 + 1
MAX_STACK = (MAX_PAYLOAD - 1 - _STACK_REPLY_FIXED) // COMMITMENT_SIZE


@CATALOG.add
class DispenseFaceUp(Command):
    """Dispense the next card face up and report its face."""

    MSG_ID = 0x18
    REPLY = FaceUpDispensed
    MOVES_CARDS = True


@CATALOG.add
class DispenseFaceDown(Command):
    """Dispense the next card face down (a hole card, a burn card) and report only a commitment."""

    MSG_ID = 0x19
    REPLY = FaceDownDispensed
    MOVES_CARDS = True


@CATALOG.add
class DispenseStack(Command):
    """Dispense ``count`` cards to the tray as one face-down stack (677a.10(b): stacks of two)."""

    MSG_ID = 0x1A
    REPLY = StackDispensed
    MOVES_CARDS = True
    count: Annotated[int, U8]


@CATALOG.add
class RevealCard(Command):
    """The face-down card ``reference`` has been turned up: send its face and nonce (672a.7(k))."""

    MSG_ID = 0x1B
    REPLY = RevealedCard
    reference: Annotated[int, U16]


@CATALOG.add
class BatchLoaded(Command):
    """A new batch was placed in the shoe (672a.7(a)): reset the counts and count the cards."""

    MSG_ID = 0x1C
    REPLY = ShoeCounts


@CATALOG.add
class EndRound(Command):
    """Auto-reshuffling mode: take the round's discards back in and shuffle them in."""

    MSG_ID = 0x1D
    REPLY = ShoeCounts
    MOVES_CARDS = True


@CATALOG.add
class SetMode(Command):
    """Choose automatic reshuffling, and whether community cards come first (677a.10(g))."""

    MSG_ID = 0x1E
    REPLY = ShoeCounts
    auto_reshuffle: Annotated[bool, BOOL]
    community_first: Annotated[bool, BOOL]


@CATALOG.add
class GetCounts(Command):
    """Read the shoe's counts and mode without moving anything."""

    MSG_ID = 0x1F
    REPLY = ShoeCounts


@CATALOG.add
class CoverCardReached(Event):
    """The cover card came out and was set aside (672a.7(d)); the counts at that moment."""

    MSG_ID = 0x98
    dispensed: Annotated[int, U16]
    remaining: Annotated[int, U16]
