"""The frame decoder against hostile bytes (docs/protocol.md §2.3): the same frames as a plain
reference decoder finds, whatever the input and its chunking, at a bounded cost, with one noise
report (and one NAK) per run of discarded bytes rather than one per byte.

``A5 5A`` repeated is a self-consistent header (LEN 0xA5, ~LEN 0x5A) at every second byte, each
announcing a 171-byte frame whose CRC fails: judged one candidate at a time, as before, a megabyte
of it cost thousands of times a megabyte of random bytes, and the host answered every candidate
with a NAK. The work is counted here in CRC computations, not timed (bench/codec_worst.py times it).
"""

from __future__ import annotations

import random

from hypothesis import example, given, settings
from hypothesis import strategies as st

from drivers.host_link import HostLink
from drivers.protocol import frame as frame_module
from drivers.protocol.crc import crc16
from drivers.protocol.frame import (
    CRC_SIZE,
    HEADER_SIZE,
    SYNC,
    Frame,
    FrameDecoder,
    Kind,
    Noise,
    NoiseReason,
)

GOOD = Frame(1, Kind.EVENT, True, 7, 0x21, b"\x01\x02\x03").encode()


def reference_frames(stream: bytes) -> list[bytes]:
    """Every frame in ``stream`` as the protocol defines them, found the plain way: from each
    sync marker, a consistent header and a good CRC make a frame, which is then consumed (a false
    header whose CRC passes by chance, one in 65,536, is consumed too, and is a frame only if its
    CTRL names a kind); anything else drops one byte."""
    found, pos = [], 0
    while (pos := stream.find(SYNC, pos)) >= 0 and len(stream) - pos >= HEADER_SIZE:
        length = stream[pos + 2]
        total = HEADER_SIZE + length + CRC_SIZE
        whole = stream[pos : pos + total]
        if (
            stream[pos + 3] == length ^ 0xFF
            and length >= 4
            and len(whole) == total
            and crc16(whole[2:3] + whole[4:-2]) == int.from_bytes(whole[-2:], "big")
        ):
            if whole[5] & 0x0F in set(Kind):
                found.append(whole)
            pos += total
        else:
            pos += 1
    return found


def decoded(chunks: list[bytes]) -> tuple[list[bytes], int]:
    """The frames (re-encoded) and the noise bytes, once the line goes quiet: a false header left
    waiting for bytes that never come is given up (``resync``), as the link does after its
    partial-frame timeout, so a real frame behind it is still found."""
    decoder, items = FrameDecoder(), []
    for chunk in chunks:
        items += decoder.feed(chunk)
    while more := decoder.resync():
        items += more
    frames = [item.encode() for item in items if isinstance(item, Frame)]
    return frames, sum(item.discarded for item in items if isinstance(item, Noise))


def cut(data: bytes, size: int) -> list[bytes]:
    return [data[i : i + size] for i in range(0, len(data), size)]


repeating = st.sampled_from(
    [b"\xa5\x5a", b"\xa5\x5a\x5a", b"\xa5\x5a\x04\xfb", b"\xa5\x5a\xff\x00", b"\xa5", b"\xa5\x5a\x10\xef\x00"]
)


@settings(max_examples=300, deadline=None)
@example(
    pieces=[b"\xa5Z" * 53, GOOD, b"i\xd3", b"\xa5" * 50],
    chunk=1,
)
@given(
    pieces=st.lists(
        st.one_of(
            st.tuples(repeating, st.integers(1, 400)).map(lambda t: t[0] * t[1]),
            st.just(GOOD),
            st.binary(max_size=40),
            st.integers(1, len(GOOD) - 1).map(lambda n: GOOD[:n]),
        ),
        max_size=8,
    ),
    chunk=st.integers(1, 600),
)
def test_hostile_repetitions_hide_no_frame_and_invent_none(pieces: list[bytes], chunk: int) -> None:
    """Repetitions (skipped a period at a time) around real and cut-off frames, in any chunking:
    the decoder finds exactly the frames the reference decoder finds. Among them, a false header
    whose CRC passes by chance: ``A5 5A`` x53 before a real frame announces a 171-byte frame that
    swallows it, consumed whole and reported as a CTRL naming no kind, as the protocol defines."""
    stream = b"".join(pieces)
    frames, _noise = decoded(cut(stream, chunk))
    expected = reference_frames(stream)
    # A frame the reference finds at the very end is complete; the decoder reports it too.
    assert frames == expected


def test_a_frame_behind_a_megabyte_of_a5_5a_is_found_with_a_few_crc_checks(monkeypatch) -> None:
    """256 KiB of ``A5 5A`` then a frame, in 64-byte reads as a USB-serial adapter delivers them:
    the frame is decoded, and the decoder computes a few CRCs per read, not one per two bytes
    (before: 131,000 CRCs over 171 bytes each)."""
    calls = []
    real = frame_module.crc16_continued

    def counting(data: bytes, register: int) -> int:
        calls.append(len(data))
        return real(data, register)

    monkeypatch.setattr(frame_module, "crc16_continued", counting)
    stream = b"\xa5\x5a" * (128 * 1024) + GOOD
    reads = cut(stream, 64)
    frames, noise = decoded(reads)
    assert frames == [GOOD]
    assert noise == len(stream) - len(GOOD)
    assert len(calls) <= 3 * len(reads), len(calls)


def test_a_run_of_discarded_bytes_is_one_noise_report_with_its_most_telling_reason() -> None:
    """Garbage, a header whose ~LEN disagrees and a candidate whose CRC fails, before a frame:
    one report for the run, reason bad-crc (a corrupted frame is what it most likely was), with
    every discarded byte counted; then the frame."""
    corrupt = bytearray(GOOD)
    corrupt[-1] ^= 0x01
    garbage = b"\x00\x11" + SYNC + b"\x07\x07" + bytes(corrupt)
    items = FrameDecoder().feed(garbage + GOOD)
    assert len(items) == 2
    assert items[0] == Noise(NoiseReason.BAD_CRC, len(garbage))
    assert isinstance(items[1], Frame) and items[1].encode() == GOOD
    only_header = FrameDecoder().feed(b"\x00" + SYNC + b"\x07\x07" + b"\x00" * 8)
    assert only_header == [Noise(NoiseReason.BAD_HEADER, 13)]


def test_the_host_naks_a_run_of_bad_frames_once_not_once_per_byte() -> None:
    """Each noise report with a CRC failure makes the host send one NAK (docs/protocol.md §4):
    a flood of ``A5 5A`` is one report per read, so one NAK per read, where it was one per two
    bytes — sixteen times the flood's own bytes sent back down the line."""
    link = HostLink(1)
    flood = b"\xa5\x5a" * 4096
    for read in cut(flood, 64):
        link.receive(read, 0.0)
    assert link.counters.naks_out <= len(flood) // 64
    assert link.counters.noise_bytes >= len(flood) - 256


def test_random_bytes_decode_as_the_reference_does() -> None:
    """Plain random noise with frames sprinkled in, 64-byte reads: the same frames as the reference."""
    rng = random.Random(5)
    stream = b"".join(rng.randbytes(rng.randrange(0, 300)) + GOOD for _ in range(200))
    frames, _ = decoded(cut(stream, 64))
    assert frames == reference_frames(stream)
