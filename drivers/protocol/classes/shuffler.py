"""Automated card shuffler messages: configure a batch, shuffle and count it, hand it to the shoe.

The shuffler counts the cards after every shuffle and checks their backs (decision 0017: a wrong
count latches a fault and takes the batch out of play). The shuffled order never travels in the
shuffle's report: the report carries a commitment, SHA-256 over the order's face bytes and a nonce
(``commit_order``), and the host reads the order separately, page by page, to keep it sealed for a
dispute. A face byte is ``vocabulary.cards.Card.code``; ``NO_FACE`` stands for a card with no
face (a cover card slipped into a batch).

Enumerations travel as ``u8`` and are checked by both ends (``checked_*``), not by the codec: the
catalog-wide property tests take every value of a ``u8`` field as legal. Commands 0x10-0x17, events
0x90-0x97 (docs/protocol.md §8.1); the class's faults (JAM, DOOR_OPEN, WRONG_COUNT, FOREIGN_CARD,
SENSOR) travel as the core FaultRaised.
"""

from __future__ import annotations

import enum
import hashlib
from typing import Annotated

from drivers.protocol.core import CATALOG
from drivers.protocol.fields import BLOB, BOOL, STR, U8, U16, U32, Fixed, ListOf, PayloadError, enum_member
from drivers.protocol.message import Command, Event, Message, Reply
from vocabulary.cards import COMMITMENT_SIZE, NONCE_SIZE

CARDS_PER_DECK = 52
MAX_DECKS = 8
MAX_JOKERS_PER_DECK = 2
MAX_BACK_LENGTH = 32  # bytes of UTF-8: a colour or a design name, not a description
ORDER_PAGE_SIZE = 200  # cards per ShuffledOrderPage: the page and its nonce fit one frame
NO_FACE = 0x00  # the face byte of a card without a face; no Card has code 0

# Identity capabilities of a shuffler (docs/protocol.md §11.1).
CAPABILITIES = ("count", "foreign-card", "shuffled-order", "modes")
LOADS_SHOE = "loads-shoe"  # DeliverToShoe is supported: the shuffler loads the shoe itself
SEEDED = "seeded"  # a repeatable generator, for tests and simulators only


class ShuffleMode(enum.IntEnum):
    """How the shuffler arranges a batch. Only RANDOM may serve an open table (decision 0017)."""

    RANDOM = 0  # a uniformly random permutation from a cryptographically secure generator
    SORT = 1  # new-deck order: for checking a batch by eye, on a closed table
    VERIFY = 2  # count and check the backs, leave the order as loaded
    DEMO = 3  # a fixed, repeatable order, for training and demonstrations


def expected_count(decks: int, jokers_per_deck: int) -> int:
    """Cards in a batch: 52 per deck plus its jokers. Jokers are counted per deck, as a deck is
    sold with them and ``standard_deck(jokers)`` builds it (603a.15: only where the game allows)."""
    return decks * (CARDS_PER_DECK + jokers_per_deck)


def commit_order(faces: bytes, nonce: bytes) -> bytes:
    """The commitment to a shuffled order: SHA-256 of the face bytes, top card first, then the nonce.
    The nonce keeps the order from being guessed from its hash (a sorted batch has one order)."""
    if len(nonce) != NONCE_SIZE:
        raise PayloadError(f"an order's nonce is {NONCE_SIZE} bytes, got {len(nonce)}")
    return hashlib.sha256(bytes(faces) + bytes(nonce)).digest()


class BatchConfigured(Reply):
    """The count the shuffler will expect from now on, computed by the device: the host compares it
    with its own, so both ends agree on what a right count is before any card moves."""

    expected: Annotated[int, U16]


@CATALOG.add
class ConfigureBatch(Command):
    """Describe the batch the next shuffles must find: ``decks`` decks of 52 with
    ``jokers_per_deck`` jokers each, every card with back ``back``. Not card-moving; kept through a
    power cycle."""

    MSG_ID = 0x10
    REPLY = BatchConfigured
    decks: Annotated[int, U8]
    jokers_per_deck: Annotated[int, U8]
    back: Annotated[str, STR]

    def checked(self) -> ConfigureBatch:
        """This command, or PayloadError naming the field out of range: the device answers with
        BAD_PAYLOAD and the driver refuses to send it."""
        if not 1 <= self.decks <= MAX_DECKS:
            raise PayloadError(f"ConfigureBatch.decks must be 1..{MAX_DECKS}, got {self.decks}")
        if not 0 <= self.jokers_per_deck <= MAX_JOKERS_PER_DECK:
            raise PayloadError(
                f"ConfigureBatch.jokers_per_deck must be 0..{MAX_JOKERS_PER_DECK}, got {self.jokers_per_deck}"
            )
        if not self.back.strip() or len(self.back.encode()) > MAX_BACK_LENGTH:
            raise PayloadError(
                f"ConfigureBatch.back must be 1..{MAX_BACK_LENGTH} bytes of text, got {self.back!r}"
            )
        return self


class _ShuffleOutcome(Message):
    """What a shuffle found, shared by its reply and its event so the two cannot disagree."""

    shuffle_id: Annotated[int, U32]  # 1 for the device's first shuffle ever, then 2, 3, ...
    mode: Annotated[int, U8]  # ShuffleMode
    count: Annotated[int, U16]  # cards counted, foreign ones included
    expected: Annotated[int, U16]  # from the ConfigureBatch in force
    foreign: Annotated[int, U16]  # cards whose back is not the batch's, jokers not configured, cover cards
    back: Annotated[str, STR]  # the batch's configured back
    seeded: Annotated[bool, BOOL]  # true: a seeded, repeatable generator (tests and simulators only)
    commitment: Annotated[bytes, Fixed(COMMITMENT_SIZE)]  # commit_order(order, nonce)

    def checked_mode(self) -> ShuffleMode:
        return enum_member(ShuffleMode, self.mode, f"{type(self).__name__}.mode")

    @property
    def count_right(self) -> bool:
        """The count matches and no card is foreign: the batch may go into play."""
        return self.count == self.expected and self.foreign == 0


class ShuffleReport(Reply, _ShuffleOutcome):
    """The reply to Shuffle."""


@CATALOG.add
class Shuffle(Command):
    """Take the batch from the input tray, count it, check its backs, arrange it per the mode into
    the output tray, and report. **Card-moving.** A wrong count or a foreign card is still an OK
    reply (the cards did move), and the device latches WRONG_COUNT or FOREIGN_CARD."""

    MSG_ID = 0x11
    REPLY = ShuffleReport
    MOVES_CARDS = True


class ShuffledOrderPage(Reply):
    """Up to ORDER_PAGE_SIZE face bytes of a shuffled order from ``offset``; the nonce comes only
    with the page that ends the order, so the commitment can be opened once the order is whole."""

    shuffle_id: Annotated[int, U32]
    offset: Annotated[int, U16]
    total: Annotated[int, U16]
    cards: Annotated[tuple[int, ...], ListOf(U8)]
    nonce: Annotated[bytes, BLOB]

    def __repr__(self) -> str:
        # The faces are the sealed order: never in a log line or a traceback.
        return (
            f"ShuffledOrderPage(shuffle_id={self.shuffle_id}, offset={self.offset}, total={self.total}, "
            f"cards=<{len(self.cards)} sealed>, nonce=<{len(self.nonce)} bytes>)"
        )


@CATALOG.add
class ReadShuffledOrder(Command):
    """Read the order of shuffle ``shuffle_id`` from card ``offset`` (0 = top). Not card-moving.
    The device keeps the order of its latest shuffle only."""

    MSG_ID = 0x12
    REPLY = ShuffledOrderPage
    shuffle_id: Annotated[int, U32]
    offset: Annotated[int, U16]


class DeliveredToShoe(Reply):
    """How many cards of shuffle ``shuffle_id`` reached the shoe."""

    shuffle_id: Annotated[int, U32]
    count: Annotated[int, U16]


@CATALOG.add
class DeliverToShoe(Command):
    """Move the shuffled batch ``shuffle_id`` from the output tray into the shoe, top card first.
    **Card-moving.** Refused for a batch that failed its count, when the shoe is not empty, and for
    a batch arranged in a non-random mode while the table is open."""

    MSG_ID = 0x13
    REPLY = DeliveredToShoe
    MOVES_CARDS = True
    shuffle_id: Annotated[int, U32]


class ShuffleModeReport(Reply):
    """The shuffler's mode and whether it has been told the table is open."""

    mode: Annotated[int, U8]  # ShuffleMode
    table_open: Annotated[bool, BOOL]

    def checked_mode(self) -> ShuffleMode:
        return enum_member(ShuffleMode, self.mode, "ShuffleModeReport.mode")


@CATALOG.add
class GetShuffleMode(Command):
    """Read the mode. Not card-moving."""

    MSG_ID = 0x14
    REPLY = ShuffleModeReport


@CATALOG.add
class SetShuffleMode(Command):
    """Change the mode; the device refuses a non-random mode while told the table is open."""

    MSG_ID = 0x15
    REPLY = ShuffleModeReport
    mode: Annotated[int, U8]

    def checked_mode(self) -> ShuffleMode:
        return enum_member(ShuffleMode, self.mode, "SetShuffleMode.mode")


@CATALOG.add
class SetTableOpen(Command):
    """Tell the device whether its table is open; opening is refused in a non-random mode. A device
    assumes the table is open from power-on until told otherwise (fail safe)."""

    MSG_ID = 0x16
    REPLY = ShuffleModeReport
    is_open: Annotated[bool, BOOL]


class ShufflerCounters(Reply):
    """The counts a host reconciles with after a card-moving command's outcome was unknown
    (docs/protocol.md §5.6): which shuffle came last, which batch last went to the shoe, and the
    cards in each tray."""

    last_shuffle: Annotated[int, U32]  # 0: none yet
    last_delivered: Annotated[int, U32]  # 0: none yet
    input_count: Annotated[int, U16]
    output_count: Annotated[int, U16]


@CATALOG.add
class GetShufflerCounters(Command):
    """Read the reconciliation counters. Not card-moving."""

    MSG_ID = 0x17
    REPLY = ShufflerCounters


@CATALOG.add
class ShuffleCompleted(Event, _ShuffleOutcome):
    """A shuffle finished: the same fields as its ShuffleReport, for the audit trail and any other
    listener (a shuffle started from the device's own panel has no reply)."""

    MSG_ID = 0x90


@CATALOG.add
class BatchDelivered(Event):
    """A shuffled batch went into the shoe."""

    MSG_ID = 0x91
    shuffle_id: Annotated[int, U32]
    count: Annotated[int, U16]


@CATALOG.add
class ShuffleModeChanged(Event):
    """The mode changed, by SetShuffleMode or on the device's own panel (an options change for the
    event log, as SAS's "operator changed options" exception)."""

    MSG_ID = 0x92
    mode: Annotated[int, U8]
    table_open: Annotated[bool, BOOL]
