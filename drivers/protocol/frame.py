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

from drivers.protocol.crc import crc16, crc16_continued

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


class NakReason:
    """Payload byte of a NAK frame: why the receiver refused a frame (docs/protocol.md)."""

    BAD_CRC = 1


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
        return encode_frame(self.address, self.kind, self.from_device, self.seq, self.msg, self.payload)


def encode_frame(
    address: int, kind: Kind, from_device: bool, seq: int, msg: int, payload: bytes = b""
) -> bytes:
    """The bytes of the frame with these fields, made without a ``Frame``: each end's hot path (a
    command, its response) sends one per round trip and needs no object for it."""
    if not 0 <= address <= 0xFF or not 0 <= seq <= 0xFF or not 0 <= msg <= 0xFF:
        frame = Frame(address, kind, from_device, seq, msg, payload)
        raise ValueError(f"frame field out of range: {frame!r}")
    if len(payload) > MAX_PAYLOAD:
        raise ValueError(f"payload of {len(payload)} bytes exceeds {MAX_PAYLOAD}")
    length = BODY_HEADER_SIZE + len(payload)
    body = bytes((address, kind | (DIRECTION_FROM_DEVICE if from_device else 0), seq, msg)) + payload
    check = crc16_continued(body, _AFTER_LEN[length])
    return b"".join((SYNC, bytes((length, length ^ 0xFF)), body, check.to_bytes(2, "big")))


class NoiseReason(enum.Enum):
    """Why bytes were discarded by the decoder. A run of discarded bytes is reported with the most
    telling reason met in it: a CRC failure over a header's mere disagreement over garbage."""

    GARBAGE = "garbage"  # bytes outside any frame
    BAD_HEADER = "bad-header"  # sync found but LEN/~LEN disagree or LEN too small
    BAD_CRC = "bad-crc"  # a well-formed header whose CRC failed
    BAD_CTRL = "bad-ctrl"  # CRC good but CTRL names no kind


#: How telling a reason is, for the one report of a run: a CRC failure over a header's mere
#: disagreement over garbage (BAD_CTRL is a whole frame's own report, never part of a run).
_RANK = {NoiseReason.GARBAGE: 0, NoiseReason.BAD_HEADER: 1, NoiseReason.BAD_CRC: 2}


@dataclass(frozen=True, slots=True)
class Noise:
    """Bytes the decoder threw away, reported so the link can NAK and count line quality. One
    report covers a whole run of discarded bytes between two frames (within one ``feed``), so a
    line of garbage costs one report and at most one NAK, not one per byte."""

    reason: NoiseReason
    discarded: int


#: The CRC register after the LEN byte, for each LEN (the CRC skips ~LEN, so a frame's check runs
#: from this state over the body and the CRC itself, and a good frame leaves the register at 0).
_AFTER_LEN = tuple(crc16(bytes((length,))) for length in range(256))
_SYNC0, _SYNC1 = SYNC


class FrameDecoder:
    """Incremental decoder: feed any chunking of the byte stream, get frames and noise reports.

    Never raises on input. After a bad header or CRC it drops only the first sync byte and scans on,
    so a valid frame that started inside the rejected bytes is still found. Memory is bounded by
    one maximal frame.

    The cost of hostile input is bounded (docs/protocol.md §2.3, ``bench/codec_worst.py``): the
    scan keeps an index into the buffer instead of deleting byte by byte, a candidate's CRC is one C
    call over the body and the CRC (a good frame leaves the register at zero), discarded bytes are
    reported as one run, and a periodic stretch — ``A5 5A`` repeated makes a self-consistent header
    at every second byte — is judged once per period and skipped: inside it every candidate frame
    is the same bytes as one already judged, so none of them can be a frame.
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
        # The 5A left in front is no sync: the run of discarded bytes always goes on from the byte
        # given up, so the first report covers both (one report per run).
        first, *rest = self.feed(b"")
        assert isinstance(first, Noise)
        reason = max(first.reason, NoiseReason.BAD_HEADER, key=_RANK.__getitem__)
        return [Noise(reason, first.discarded + 1), *rest]

    def feed(self, data: bytes) -> list[Frame | Noise]:
        """Add bytes; return every complete frame and noise report they produce, in order."""
        buf = self._buf
        if not buf and len(data) > HEADER_SIZE and data[0] == _SYNC0 and data[1] == _SYNC1:
            # The common case, a reply or a command read whole with nothing held before it: when
            # the chunk is exactly one frame whose header and CRC check, it is that frame (what the
            # scan below would find), without copying it into the buffer and out again.
            length = data[2]
            if (
                len(data) == HEADER_SIZE + length + CRC_SIZE
                and data[3] == length ^ 0xFF
                and length >= BODY_HEADER_SIZE
                and crc16_continued(data[HEADER_SIZE:], _AFTER_LEN[length]) == 0
            ):
                return [_frame(bytes(data))]
        buf += data
        out: list[Frame | Noise] = []
        # The hot loop's names are locals: a global or attribute lookup per candidate is a
        # measurable share of the worst case (one candidate every four bytes).
        find, crc, after_len, bad_crc = buf.find, crc16_continued, _AFTER_LEN, NoiseReason.BAD_CRC
        header, smallest, check = HEADER_SIZE, BODY_HEADER_SIZE, CRC_SIZE
        size = len(buf)
        pos = 0  # the first byte not yet judged
        noise = 0  # bytes discarded since the last frame
        reason = NoiseReason.GARBAGE
        start = find(SYNC)
        while True:
            if start < 0:
                # Keep a trailing first sync byte: its partner may arrive in the next chunk.
                end = size - (size > pos and buf[-1] == _SYNC0)
                noise += end - pos
                pos = end
                break
            noise += start - pos
            pos = start
            if size - pos < header:
                break
            length = buf[pos + 2]
            judged = header  # the bytes this candidate is judged on
            if buf[pos + 3] != length ^ 0xFF or length < smallest:
                reason = max(reason, NoiseReason.BAD_HEADER, key=_RANK.__getitem__)
            else:
                judged += length + check
                if size - pos < judged:
                    break
                if crc(buf[pos + header : pos + judged], after_len[length]) == 0:
                    if noise:
                        out.append(Noise(reason, noise))
                        noise, reason = 0, NoiseReason.GARBAGE
                    out.append(_frame(bytes(buf[pos : pos + judged])))
                    pos += judged
                    start = find(SYNC, pos)
                    continue
                reason = bad_crc
            # The candidate at ``pos`` is no frame: drop its first byte, or the whole repetition
            # behind it when the bytes from here repeat up to the next sync marker.
            start = find(SYNC, pos + 1)
            if start > 0 and start + judged <= size and buf[start + 2] == length:
                skip = _repeated(buf, pos, start, judged)
                if skip:
                    noise += skip
                    pos += skip
                    start = find(SYNC, pos)
        if noise:
            out.append(Noise(reason, noise))
        del buf[:pos]
        return out


def _repeated(buf: bytearray, pos: int, after: int, judged: int) -> int:
    """How many bytes from ``pos`` may be dropped unjudged (0: none beyond the first), when the
    candidate at ``pos`` was judged no frame on its first ``judged`` bytes and ``after`` is the
    next sync marker. If the bytes from ``pos`` repeat with the period ``d = after - pos``, every
    candidate in ``[pos, after)`` is judged (``pos`` just was; the rest hold no sync), and a
    candidate at ``s`` inside the repetition has the same header as the one at ``s - d``, so it is
    judged on as many bytes, and if those lie inside the repetition they are the same bytes: it is
    no frame either. The repetition's extent is found by comparing doubling blocks, a few
    ``memcmp`` calls in all, so ``A5 5A`` repeated costs no more than random bytes."""
    if buf[pos : pos + judged] != buf[after : after + judged]:
        return 0
    size = len(buf)
    same = judged  # buf[pos : pos + same] == buf[after : after + same]
    block = judged
    while block:
        block = min(block, size - after - same)
        if block and buf[pos + same : pos + same + block] == buf[after + same : after + same + block]:
            same += block
            block *= 2
        else:
            block //= 2
    # Candidates from ``after`` up to ``after + same - judged`` repeat ones already judged.
    return after - pos + same - judged + 1


def _frame(frame: bytes) -> Frame | Noise:
    kind = _KINDS.get(frame[5] & 0x0F)
    if kind is None:
        return Noise(NoiseReason.BAD_CTRL, len(frame))
    from_device = bool(frame[5] & DIRECTION_FROM_DEVICE)
    payload = frame[HEADER_SIZE + BODY_HEADER_SIZE : -CRC_SIZE]
    return Frame(frame[4], kind, from_device, frame[6], frame[7], payload)


_KINDS = {int(kind): kind for kind in Kind}
