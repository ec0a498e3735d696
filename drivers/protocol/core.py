"""The messages every device speaks: handshake, heartbeat, faults, and link diagnostics.

Ids 0x01-0x0F are core commands, 0x40-0x4F diagnostic commands, 0x80-0x8F core events
(docs/protocol.md §8). Device-class messages register in the same catalog with their own ranges.
"""

from __future__ import annotations

import enum
import hashlib
import hmac
from typing import Annotated

from drivers.protocol.fields import BLOB, BOOL, STR, U8, U16, U32, Fixed, ListOf
from drivers.protocol.message import Catalog, Command, Event, Reply

PROTOCOL_VERSION = 1
FIRMWARE_HASH_SIZE = 32  # SHA-256 of the firmware image
NONCE_SIZE = 32  # the host's challenge to Attest: 32 bytes from the operating system's CSPRNG

CATALOG = Catalog()


class DeviceClass(enum.IntEnum):
    """What a device is; announced in the handshake and checked against the configuration."""

    SHUFFLER = 1
    SHOE = 2
    CARD_READER = 3
    PROGRESSIVE_CONTROLLER = 4
    METER_SIGN = 5
    DIAGNOSTIC = 0x7F


class FaultCode(enum.IntEnum):
    """Latched fault conditions. A latched fault blocks card movement until an authorised clear."""

    JAM = 1
    DOOR_OPEN = 2
    WRONG_COUNT = 3
    FOREIGN_CARD = 4
    SENSOR = 5
    MISREAD = 6
    EMPTY = 7
    COVER_CARD_MISPLACED = 8
    TAMPER = 9
    NO_CARD = 10
    SIGN_LINK_LOST = 11
    METER_MISMATCH = 12
    MEMORY = 13
    POWER_LOST = 14


def fault_mask(codes: set[FaultCode] | frozenset[FaultCode]) -> int:
    """The STATUS bitmask: bit (code - 1) set for each latched fault."""
    mask = 0
    for code in codes:
        mask |= 1 << (int(code) - 1)
    return mask


def faults_in(mask: int) -> frozenset[FaultCode]:
    """Inverse of fault_mask; unknown bits are ignored (a newer device may know more faults)."""
    return frozenset(code for code in FaultCode if mask & (1 << (int(code) - 1)))


class Identity(Reply):
    """Who the device is; the host checks class, protocol version and firmware hash."""

    device_class: Annotated[int, U8]
    vendor: Annotated[str, STR]
    model: Annotated[str, STR]
    serial_number: Annotated[str, STR]
    firmware_version: Annotated[str, STR]
    protocol_version: Annotated[int, U8]
    capabilities: Annotated[tuple[str, ...], ListOf(STR)]
    firmware_hash: Annotated[bytes, Fixed(FIRMWARE_HASH_SIZE)]
    boot_id: Annotated[int, U32]


@CATALOG.add
class Hello(Command):
    """Start (or confirm) a session. A new session id resets sequence state on the device."""

    MSG_ID = 0x01
    REPLY = Identity
    session_id: Annotated[int, U32]
    protocol_version: Annotated[int, U8]


class Attestation(Reply):
    """The device's answer to a challenge: HMAC-SHA256 of its running image keyed by the nonce."""

    digest: Annotated[bytes, Fixed(FIRMWARE_HASH_SIZE)]


@CATALOG.add
class Attest(Command):
    """A challenge (58 Pa. Code § 461a.20(b), § 605a.4(c)): the device proves it holds its image now,
    not a stored hash, by a digest over a fresh nonce and the whole image (docs/protocol.md §6.6)."""

    MSG_ID = 0x04
    REPLY = Attestation
    nonce: Annotated[bytes, Fixed(NONCE_SIZE)]


def attestation_digest(nonce: bytes, image: bytes) -> bytes:
    """HMAC-SHA256 keyed by ``nonce`` over ``image``: what a device answers to Attest, and what the
    host computes from the approved image to compare. Keyed by the nonce, the digest cannot be
    computed before the nonce is known, nor from a stored hash or a hash state saved part-way
    through the image (docs/protocol.md §6.6; decision 0026)."""
    return hmac.new(nonce, image, hashlib.sha256).digest()


class DeviceStatus(Reply):
    """Heartbeat answer: a changed boot_id means the device rebooted."""

    boot_id: Annotated[int, U32]
    uptime_ms: Annotated[int, U32]
    faults: Annotated[int, U32]
    pending_events: Annotated[int, U8]


@CATALOG.add
class GetStatus(Command):
    """Heartbeat and health query."""

    MSG_ID = 0x02
    REPLY = DeviceStatus


@CATALOG.add
class ClearFault(Command):
    """Clear a latched fault: refused while the condition persists (a door still open)."""

    MSG_ID = 0x03
    code: Annotated[int, U8]
    operator: Annotated[str, STR]


@CATALOG.add
class FaultRaised(Event):
    """A fault latched on the device."""

    MSG_ID = 0x80
    code: Annotated[int, U8]
    detail: Annotated[str, STR]


@CATALOG.add
class FaultCleared(Event):
    """A latched fault was cleared, and by whom."""

    MSG_ID = 0x81
    code: Annotated[int, U8]
    operator: Annotated[str, STR]


@CATALOG.add
class DoorChanged(Event):
    """A door or lid opened or closed (an access record for the audit trail)."""

    MSG_ID = 0x82
    door: Annotated[int, U8]
    is_open: Annotated[bool, BOOL]


class EchoReply(Reply):
    data: Annotated[bytes, BLOB]


@CATALOG.add
class Echo(Command):
    """Returns its data: measures the round trip without touching the device's function."""

    MSG_ID = 0x40
    REPLY = EchoReply
    data: Annotated[bytes, BLOB]


class CounterValue(Reply):
    value: Annotated[int, U32]


@CATALOG.add
class IncrementTestCounter(Command):
    """Adds to a counter: a stand-in for a card-moving command, to prove exactly-once execution."""

    MSG_ID = 0x41
    REPLY = CounterValue
    MOVES_CARDS = True
    amount: Annotated[int, U16]


@CATALOG.add
class ReadTestCounter(Command):
    MSG_ID = 0x42
    REPLY = CounterValue


@CATALOG.add
class DiagnosticEvent(Event):
    """Emitted by a diagnostic device on request; exercises event delivery and acknowledgement."""

    MSG_ID = 0x8F
    number: Annotated[int, U32]


@CATALOG.add
class RequestDiagnosticEvents(Command):
    """Ask a diagnostic device to emit ``count`` DiagnosticEvents."""

    MSG_ID = 0x43
    count: Annotated[int, U8]
