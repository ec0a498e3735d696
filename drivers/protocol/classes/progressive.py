"""Progressive table game controller: seat wager sensors, the lockout, levels, meters and awards.

Commands 0x28-0x2F and 0x34-0x37 (the second block, 0x35-0x37 unassigned), events 0xA8-0xAF
(docs/protocol.md §11.4). Money crosses the wire as whole
cents in a ``u32`` (at most $42,949,672.95); rates as basis points in a ``u16`` (1 bp = 0.01 %, so
1500 = 15 % of each progressive wager). Seats are numbered from 1 and travel as a ``u16`` mask with
bit (seat - 1) set, which covers tables of up to 16 seats.

Lock and Award are card-moving in the protocol's sense (``MOVES_CARDS``): they move money, so they
execute exactly once, are refused while a fault is latched, and are never resent blindly when their
outcome is unknown (docs/protocol.md §5.6).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Annotated

from drivers.protocol.core import CATALOG
from drivers.protocol.fields import BOOL, STR, U8, U16, U32, ListOf, PayloadError
from drivers.protocol.message import Command, Event, Reply

MAX_SEATS = 16  # bits in the u16 seat mask
HITS_KEPT = 25  # New York 9 NYCRR 5320.8 (analog): a history of the last 25 hits
HITS_PAGE = 10  # hits per GetHits page: a full page fits one frame
BASIS_POINTS = 10_000  # a rate of 10000 bp is 100 %


def seat_mask(seats: Iterable[int]) -> int:
    """The wire mask of ``seats`` (numbered from 1)."""
    mask = 0
    for seat in seats:
        if not 1 <= seat <= MAX_SEATS:
            raise ValueError(f"seat {seat} is not 1..{MAX_SEATS}")
        mask |= 1 << (seat - 1)
    return mask


def seats_in(mask: int) -> tuple[int, ...]:
    """The seats whose bits are set in ``mask``, in seat order."""
    return tuple(seat for seat in range(1, MAX_SEATS + 1) if mask & (1 << (seat - 1)))


class SensorReading(Reply):
    """Which seats' wager sensors are covered, and which sensors failed their self-test."""

    covered: Annotated[int, U16]
    failed: Annotated[int, U16]


@CATALOG.add
class ReadSensors(Command):
    """The progressive wager sensors as they are now."""

    MSG_ID = 0x28
    REPLY = SensorReading


class RoundState(Reply):
    """The controller's round: number, whether wagers are locked, and what was accepted at the lock.

    ``wager_cents`` is the configured progressive wager per seat; ``levels`` how many levels the
    controller keeps (numbered from 1).
    """

    round: Annotated[int, U32]
    locked: Annotated[bool, BOOL]
    accepted: Annotated[int, U16]
    count: Annotated[int, U8]
    wager_cents: Annotated[int, U32]
    levels: Annotated[int, U8]


@CATALOG.add
class Lock(Command):
    """At "no more bets": the keypad's Start Game (687a.9(b), analog). The covered, working sensors
    become the round's accepted wagers, each wager is added to every level's meters, and any wager
    placed afterwards is refused (657a.9(a)(3))."""

    MSG_ID = 0x29
    REPLY = RoundState
    MOVES_CARDS = True


@CATALOG.add
class NewRound(Command):
    """Open betting for the next round; refused while a level awaits its keyed reset."""

    MSG_ID = 0x2A
    REPLY = RoundState


@CATALOG.add
class GetRound(Command):
    """The round as the controller sees it: the reconciliation read after an unknown Lock outcome."""

    MSG_ID = 0x2B
    REPLY = RoundState


class LevelInfo(Reply):
    """One level's parameters and meters (605a.7(a); New Jersey 13:69E-1.39A, analog).

    The meters obey one equation, which the host checks on every read (docs/protocol.md §11.4):
    ``value + overflow + wins = reset x (hits + 1) + in x increment_bp // 10000``.
    """

    level: Annotated[int, U8]
    reset_cents: Annotated[int, U32]
    increment_bp: Annotated[int, U16]
    reserve_bp: Annotated[int, U16]
    limit_cents: Annotated[int, U32]
    value_cents: Annotated[int, U32]
    in_cents: Annotated[int, U32]
    hits: Annotated[int, U32]
    wins_cents: Annotated[int, U32]
    overflow_cents: Annotated[int, U32]
    reserve_cents: Annotated[int, U32]
    frozen: Annotated[bool, BOOL]


@CATALOG.add
class GetLevel(Command):
    MSG_ID = 0x2C
    REPLY = LevelInfo
    level: Annotated[int, U8]


@dataclass(frozen=True)
class Hit:
    """One entry of a level's hit history: the level's hit number, the round, the seat, the amount."""

    number: int
    round: int
    seat: int
    amount_cents: int


class HitsPage(Reply):
    """Up to HITS_PAGE hits of a level, newest first; ``stored`` is how many the controller keeps
    (at most HITS_KEPT). The four lists are the columns of the page, one entry per hit: read the rows
    with ``hits``, which refuses columns of different lengths."""

    level: Annotated[int, U8]
    page: Annotated[int, U8]
    stored: Annotated[int, U8]
    numbers: Annotated[tuple[int, ...], ListOf(U32)]
    rounds: Annotated[tuple[int, ...], ListOf(U32)]
    seats: Annotated[tuple[int, ...], ListOf(U8)]
    amounts: Annotated[tuple[int, ...], ListOf(U32)]

    @classmethod
    def of(cls, level: int, page: int, stored: int, hits: Iterable[Hit]) -> HitsPage:
        rows = tuple(hits)
        return cls(
            level=level,
            page=page,
            stored=stored,
            numbers=tuple(hit.number for hit in rows),
            rounds=tuple(hit.round for hit in rows),
            seats=tuple(hit.seat for hit in rows),
            amounts=tuple(hit.amount_cents for hit in rows),
        )

    @property
    def hits(self) -> tuple[Hit, ...]:
        """The page's rows; columns of different lengths are a malformed page, not a shorter one."""
        columns = (self.numbers, self.rounds, self.seats, self.amounts)
        if len({len(column) for column in columns}) != 1:
            lengths = ", ".join(str(len(column)) for column in columns)
            raise PayloadError(f"HitsPage: its columns hold {lengths} entries: one per hit expected")
        return tuple(map(Hit, *columns))


@CATALOG.add
class GetHits(Command):
    """Page ``page`` (from 0) of the level's last-25-hits history (New York 9 NYCRR 5320.8, analog)."""

    MSG_ID = 0x2D
    REPLY = HitsPage
    level: Annotated[int, U8]
    page: Annotated[int, U8]


class AwardResult(Reply):
    """What was paid: the level's value at the hit, frozen there until the keyed reset."""

    level: Annotated[int, U8]
    seat: Annotated[int, U8]
    amount_cents: Annotated[int, U32]
    hit_number: Annotated[int, U32]


@CATALOG.add
class Award(Command):
    """Pay ``level`` to ``seat`` (a wager accepted at this round's lock). Jackpot lock: the amount is
    the level's value now; the level then restarts from its reset value and stays frozen until
    ResetLevel. Simultaneous hits are settled in the order their Awards arrive."""

    MSG_ID = 0x2E
    REPLY = AwardResult
    MOVES_CARDS = True
    level: Annotated[int, U8]
    seat: Annotated[int, U8]


@CATALOG.add
class ResetLevel(Command):
    """The keyed reset (605a.7(a)): ``key`` is what the reset key switch reads; a wrong key is
    refused without echoing it."""

    MSG_ID = 0x2F
    REPLY = LevelInfo
    level: Annotated[int, U8]
    key: Annotated[str, STR]


class LockoutState(Reply):
    """Whether wager acceptance is locked out, and the seats whose sensor is covered now and so
    holds a chip the lockout refuses (the dealer returns it)."""

    locked_out: Annotated[bool, BOOL]
    refused: Annotated[int, U16]


@CATALOG.add
class SetLockout(Command):
    """Lock out (``locked_out`` true) or re-enable the progressive wager sensors: the controller's
    lockout of wager acceptance, as its keypad's lockout key does. While locked out, a Lock accepts no
    wager, whatever covers the sensors (each covered seat is refused with WagerLockedOut), so nothing
    is counted or metered; the state survives a power cycle. Not money-moving: refusing wagers is the
    safe direction, so it is honoured while a fault is latched."""

    MSG_ID = 0x34
    REPLY = LockoutState
    locked_out: Annotated[bool, BOOL]


@CATALOG.add
class SensorChanged(Event):
    """The covered sensors changed (a wager placed or taken back)."""

    MSG_ID = 0xA8
    covered: Annotated[int, U16]


@CATALOG.add
class WagerAfterLock(Event):
    """A sensor was covered after the lock: the wager was refused, and this is its record."""

    MSG_ID = 0xA9
    round: Annotated[int, U32]
    seat: Annotated[int, U8]


@CATALOG.add
class JackpotHit(Event):
    """A level was awarded: the audit trail's copy of an AwardResult."""

    MSG_ID = 0xAA
    level: Annotated[int, U8]
    seat: Annotated[int, U8]
    amount_cents: Annotated[int, U32]
    hit_number: Annotated[int, U32]


@CATALOG.add
class WagerLockedOut(Event):
    """A sensor covered at the Lock while wagering was locked out: that wager was refused (not
    accepted, not counted, not metered), and this is its record."""

    MSG_ID = 0xAB
    round: Annotated[int, U32]
    seat: Annotated[int, U8]
