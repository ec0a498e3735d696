"""Frames: sync, length, header check, body, CRC; and a decoder that resynchronises after garbage.

Layout (docs/protocol.md §2)::

    A5 5A | LEN | ~LEN | ADDR | CTRL | SEQ | MSG | PAYLOAD (LEN-4 bytes) | CRC hi | CRC lo

LEN counts ADDR..PAYLOAD. The CRC covers LEN through the end of PAYLOAD. Frames are found by sync
marker, length and CRC, never by silence on the line: USB-serial adapters batch bytes into ~16 ms
chunks, so a pause proves nothing about frame boundaries.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from drivers.protocol.crc import crc16

SYNC = b"\xa5\x5a"
HEADER_SIZE = 4  # sync (2), LEN, ~LEN
BODY_HEADER_SIZE = 4  # ADDR, CTRL, SEQ, MSG
CRC_SIZE = 2
OVERHEAD = HEADER_SIZE + BODY_HEADER_SIZE + CRC_SIZE
MAX_BODY = 255
MAX_PAYLOAD = MAX_BODY - BODY_HEADER_SIZE

HOST_ADDRESS = 0x00
RESERVED_ADDRESS = 0xFF  # no broadcast in version 1: reserved
DIRECTION_FROM_DEVICE = 0x80


class Kind(enum.IntEnum):
    """What a frame is for: the low nibble of CTRL."""

    COMMAND = 1
    RESPONSE = 2
    EVENT = 3
    ACK = 4
    NAK = 5


@dataclass(frozen=True, slots=True)
class Frame:
    """One decoded frame. ``address`` is always the device's address, in both directions."""

    address: int
    kind: Kind
    from_device: bool
    seq: int
    msg: int
    payload: bytes = b""

    def encode(self) -> bytes:
        """The frame's bytes on the wire."""
        if not 0 <= self.address <= 0xFF or not 0 <= self.seq <= 0xFF or not 0 <= self.msg <= 0xFF:
            raise ValueError(f"frame field out of range: {self!r}")
        if len(self.payload) > MAX_PAYLOAD:
            raise ValueError(f"payload of {len(self.payload)} bytes exceeds {MAX_PAYLOAD}")
        length = BODY_HEADER_SIZE + len(self.payload)
        ctrl = int(self.kind) | (DIRECTION_FROM_DEVICE if self.from_device else 0)
        checked = bytes((length, length ^ 0xFF, self.address, ctrl, self.seq, self.msg)) + self.payload
        return SYNC + checked + crc16(checked[0:1] + checked[2:]).to_bytes(2, "big")


class NoiseReason(enum.Enum):
    """Why bytes were discarded by the decoder."""

    GARBAGE = "garbage"  # bytes outside any frame
    BAD_HEADER = "bad-header"  # sync found but LEN/~LEN disagree or LEN too small
    BAD_CRC = "bad-crc"  # a well-formed header whose CRC failed
    BAD_CTRL = "bad-ctrl"  # CRC good but CTRL names no kind


@dataclass(frozen=True, slots=True)
class Noise:
    """Bytes the decoder threw away, reported so the link can NAK and count line quality."""

    reason: NoiseReason
    discarded: int


class FrameDecoder:
    """Incremental decoder: feed any chunking of the byte stream, get frames and noise reports.

    Never raises on input. After a bad header or CRC it drops only the first sync byte and scans on,
    so a valid frame that started inside the rejected bytes is still found. Memory is bounded by
    one maximal frame.
    """

    def __init__(self) -> None:
        self._buf = bytearray()

    @property
    def buffered(self) -> int:
        """Bytes held while waiting for the rest of a frame."""
        return len(self._buf)

    def clear(self) -> None:
        """Forget all partial input, on reconnect, so the next session starts clean."""
        self._buf.clear()

    def resync(self) -> list[Frame | Noise]:
        """Give up on the pending partial frame and scan on from the byte after its sync.

        A false sync in garbage can announce a length that swallows a real frame behind it; the
        link calls this when a partial frame has waited too long, so the real frame is found.
        """
        if not self._buf.startswith(SYNC):
            return []
        del self._buf[:1]
        return [Noise(NoiseReason.BAD_HEADER, 1), *self.feed(b"")]

    def feed(self, data: bytes) -> list[Frame | Noise]:
        """Add bytes; return every complete frame and noise report they produce, in order."""
        buf = self._buf
        buf += data
        out: list[Frame | Noise] = []
        while buf:
            start = buf.find(SYNC)
            if start < 0:
                # Keep a trailing first sync byte: its partner may arrive in the next chunk.
                drop = len(buf) - (buf[-1] == SYNC[0])
                if drop:
                    out.append(Noise(NoiseReason.GARBAGE, drop))
                    del buf[:drop]
                break
            if start:
                out.append(Noise(NoiseReason.GARBAGE, start))
                del buf[:start]
            if len(buf) < HEADER_SIZE:
                break
            length = buf[2]
            if buf[3] != length ^ 0xFF or length < BODY_HEADER_SIZE:
                out.append(Noise(NoiseReason.BAD_HEADER, 1))
                del buf[:1]
                continue
            total = HEADER_SIZE + length + CRC_SIZE
            if len(buf) < total:
                break
            frame = bytes(buf[:total])
            if crc16(frame[2:3] + frame[HEADER_SIZE:-CRC_SIZE]) != int.from_bytes(frame[-CRC_SIZE:], "big"):
                out.append(Noise(NoiseReason.BAD_CRC, 1))
                del buf[:1]
                continue
            del buf[:total]
            ctrl = frame[5]
            kind = _KINDS.get(ctrl & 0x0F)
            if kind is None:
                out.append(Noise(NoiseReason.BAD_CTRL, total))
                continue
            out.append(
                Frame(
                    frame[4], kind, bool(ctrl & DIRECTION_FROM_DEVICE), frame[6], frame[7], frame[8:-CRC_SIZE]
                )
            )
        return out


_KINDS = {int(kind): kind for kind in Kind}
