"""Properties of the protocol codec and of both link ends, over generated input (docs/protocol.md §2-§5).

Strategies are built from each message class's LAYOUT, so a message added to the catalog is covered
without a change here, and a new wire type without a strategy fails loudly. Decoder output is checked
against a ledger of the input: the decoder only ever consumes bytes from the front of what it was
fed, so walking its frames and noise reports along the input locates every frame it yielded, and each
one must be there intact, its CRC valid by the independent bitwise CRC of the vectors test.
"""

from __future__ import annotations

import dataclasses
import itertools
import random
import re
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from drivers.host_link import HostLink
from drivers.protocol.core import CATALOG, ClearFault, Echo, FaultCode, Hello
from drivers.protocol.fields import BLOB, BOOL, STR, U8, U16, U32, Fixed, ListOf, PayloadError, WireType
from drivers.protocol.frame import (
    CRC_SIZE,
    DIRECTION_FROM_DEVICE,
    HEADER_SIZE,
    MAX_PAYLOAD,
    OVERHEAD,
    SYNC,
    Frame,
    FrameDecoder,
    Kind,
    Noise,
    NoiseReason,
)
from drivers.protocol.message import Command, Event, Message, Status
from firmware_sim.engine import DeviceEngine
from firmware_sim.personality import DiagnosticPersonality
from tests.unit.test_protocol_vectors import MESSAGE_CLASSES, crc16_bitwise

PROPERTY = settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow])
PER_CLASS = settings(PROPERTY, max_examples=60)

COMMANDS = sorted(CATALOG.commands.values(), key=lambda cls: cls.MSG_ID)
EVENTS = sorted(CATALOG.events.values(), key=lambda cls: cls.MSG_ID)
KNOWN_IDS = sorted({cls.MSG_ID for cls in COMMANDS + EVENTS})
_INT_MAX = {U8: 0xFF, U16: 0xFFFF, U32: 0xFFFF_FFFF}


# -- strategies ------------------------------------------------------------------------------------------
def values(wire: WireType, *, small: bool) -> st.SearchStrategy[Any]:
    """Every valid value of one wire type; ``small`` keeps variable-length fields short, so that any
    message of the catalog fits in one frame."""
    limit = 12 if small else 255
    if wire in _INT_MAX:
        return st.integers(0, _INT_MAX[wire])
    if wire is BOOL:
        return st.booleans()
    if isinstance(wire, Fixed):
        return st.binary(min_size=wire.size, max_size=wire.size)
    if wire is BLOB:
        return st.binary(max_size=limit)
    if wire is STR:
        # At most `limit` bytes of UTF-8 (not characters): cut the encoding, drop a split character.
        return st.text(max_size=limit).map(lambda text: text.encode()[:limit].decode("utf-8", "ignore"))
    if isinstance(wire, ListOf):
        return st.lists(values(wire.item, small=small), max_size=4 if small else limit).map(tuple)
    raise TypeError(f"no strategy for wire type {wire.name}: add one to values()")


def messages(cls: type[Message], *, small: bool) -> st.SearchStrategy[Message]:
    fields = {name: values(wire, small=small) for name, wire in cls.LAYOUT}
    return st.fixed_dictionaries(fields).map(lambda kwargs: cls(**kwargs))


@st.composite
def framed_messages(draw: st.DrawFn) -> tuple[Frame, Message]:
    """A message of any catalog type in the frame that carries it: a command, an event, or an OK
    response (status byte, then the reply) to a command whose reply type it is."""
    cls = draw(st.sampled_from(MESSAGE_CLASSES))
    message = draw(messages(cls, small=True))
    address, seq = draw(st.integers(0x01, 0xFE)), draw(st.integers(0, 0xFF))
    if isinstance(message, Command):
        frame = Frame(address, Kind.COMMAND, False, seq, cls.MSG_ID, message.to_payload())
    elif isinstance(message, Event):
        frame = Frame(address, Kind.EVENT, True, seq, cls.MSG_ID, message.to_payload())
    else:
        command = draw(st.sampled_from([c for c in COMMANDS if c.REPLY is cls]))
        frame = Frame(
            address, Kind.RESPONSE, True, seq, command.MSG_ID, bytes((Status.OK,)) + message.to_payload()
        )
    return frame, message


def any_frames(
    *,
    address: st.SearchStrategy[int] | None = None,
    from_device: st.SearchStrategy[bool] | None = None,
    seq: st.SearchStrategy[int] | None = None,
    msg: st.SearchStrategy[int] | None = None,
) -> st.SearchStrategy[Frame]:
    """Well-formed frames with arbitrary contents: any kind, ids known or not, any payload bytes;
    each part can be narrowed, to aim frames at one link end."""
    return st.builds(
        Frame,
        address=st.integers(0, 0xFF) if address is None else address,
        kind=st.sampled_from(Kind),
        from_device=st.booleans() if from_device is None else from_device,
        seq=st.integers(0, 0xFF) if seq is None else seq,
        msg=st.integers(0, 0xFF) if msg is None else msg,
        payload=st.binary(max_size=MAX_PAYLOAD),
    )


def raw_frame(ctrl: int, body: bytes) -> bytes:
    """A frame with a valid header and CRC but any CTRL byte (reserved bits, unknown kinds); ``body``
    is ADDR, SEQ, MSG and the payload."""
    length = len(body) + 1
    checked = bytes((length, length ^ 0xFF, body[0], ctrl)) + body[1:]
    return SYNC + checked + crc16_bitwise(checked[0:1] + checked[2:]).to_bytes(2, "big")


def noisy_bytes(frames: st.SearchStrategy[Frame] | None = None) -> st.SearchStrategy[bytes]:
    """Line noise a decoder must survive: random bytes, lone sync markers, plausible false headers,
    whole and cut-off frames, and intact frames whose CTRL is unusual."""
    frames = any_frames() if frames is None else frames
    pieces = st.one_of(
        st.binary(max_size=24),
        st.just(SYNC),
        st.integers(0, 0xFF).map(lambda length: SYNC + bytes((length, length ^ 0xFF))),
        frames.map(Frame.encode),
        st.tuples(frames.map(Frame.encode), st.integers(1, 40)).map(lambda t: t[0][: -t[1]]),
        st.builds(raw_frame, st.integers(0, 0xFF), st.binary(min_size=3, max_size=30)),
    )
    return st.lists(pieces, max_size=8).map(b"".join)


@st.composite
def chunked(draw: st.DrawFn, data: bytes) -> list[bytes]:
    """``data`` cut at arbitrary points, as a transport may deliver it."""
    cuts = sorted(draw(st.sets(st.integers(1, len(data) - 1), max_size=12))) if len(data) > 1 else []
    bounds = [0, *cuts, len(data)]
    return [data[start:end] for start, end in itertools.pairwise(bounds)]


# -- checks ----------------------------------------------------------------------------------------------
def feed(decoder: FrameDecoder, chunks: list[bytes]) -> list[Frame | Noise]:
    items: list[Frame | Noise] = []
    for chunk in chunks:
        items += decoder.feed(chunk)
    return items


def assert_intact(raw: bytes, frame: Frame | None = None) -> None:
    """``raw`` is a whole frame with a valid header and CRC, and (if given) it is ``frame``, up to
    CTRL's reserved bits, which the receiver ignores."""
    assert raw[:2] == SYNC and raw[3] == raw[2] ^ 0xFF and len(raw) == HEADER_SIZE + raw[2] + CRC_SIZE
    assert crc16_bitwise(raw[2:3] + raw[4:-2]) == int.from_bytes(raw[-2:], "big")
    if frame is not None:
        ctrl = int(frame.kind) | (DIRECTION_FROM_DEVICE if frame.from_device else 0)
        assert (raw[4], raw[5] & 0x8F, raw[6], raw[7], raw[8:-2]) == (
            frame.address,
            ctrl,
            frame.seq,
            frame.msg,
            frame.payload,
        )


def ledger(stream: bytes, items: list[Frame | Noise], buffered: int) -> list[tuple[int, int, Frame | Noise]]:
    """(offset, size, item) of every item along the input, checking that each frame and each frame
    dropped for its CTRL was there intact, and that every input byte is accounted for."""
    entries = []
    offset = 0
    for item in items:
        if isinstance(item, Frame):
            size = len(item.payload) + OVERHEAD
            assert_intact(stream[offset : offset + size], item)
        else:
            size = item.discarded
            if item.reason is NoiseReason.BAD_CTRL:
                assert_intact(stream[offset : offset + size])
                assert stream[offset + 5] & 0x0F not in {int(kind) for kind in Kind}
        entries.append((offset, size, item))
        offset += size
    assert offset + buffered == len(stream), "bytes lost or invented by the decoder"
    return entries


def frames_at(entries: list[tuple[int, int, Frame | Noise]]) -> dict[int, Frame]:
    return {offset: item for offset, _, item in entries if isinstance(item, Frame)}


def spans(entries: list[tuple[int, int, Frame | Noise]], offset: int) -> bool:
    """Whether an intact frame (delivered, or dropped for its CTRL) starts before ``offset`` and
    ends after it: the decoder rightly took those bytes as part of that frame."""
    return any(
        start < offset < start + size and (isinstance(item, Frame) or item.reason is NoiseReason.BAD_CTRL)
        for start, size, item in entries
    )


def decode(frame: Frame) -> Message:
    """The message a command, event or OK response frame carries."""
    if frame.kind is Kind.COMMAND:
        return CATALOG.command(frame.msg).from_payload(frame.payload)
    if frame.kind is Kind.EVENT:
        return CATALOG.event(frame.msg).from_payload(frame.payload)
    assert frame.kind is Kind.RESPONSE and frame.payload[0] == Status.OK
    return CATALOG.command(frame.msg).REPLY.from_payload(frame.payload[1:])


def class_params(classes: list[type[Message]]) -> list[Any]:
    return [pytest.param(cls, id=cls.__name__) for cls in classes]


# -- round trips -----------------------------------------------------------------------------------------
@pytest.mark.parametrize("cls", class_params(MESSAGE_CLASSES))
@PER_CLASS
@given(data=st.data())
def test_every_message_round_trips_through_its_payload(cls, data):
    message = data.draw(messages(cls, small=False))
    assert cls.from_payload(message.to_payload()) == message


@PROPERTY
@given(
    st.lists(framed_messages(), min_size=1, max_size=5).flatmap(
        lambda framed: st.tuples(st.just(framed), chunked(b"".join(frame.encode() for frame, _ in framed)))
    )
)
def test_messages_round_trip_through_frames_in_any_chunking(case):
    framed, chunks = case
    decoder = FrameDecoder()
    items = feed(decoder, chunks)
    assert items == [frame for frame, _ in framed]
    assert decoder.buffered == 0
    assert [decode(frame) for frame in items] == [message for _, message in framed]


# -- garbage ---------------------------------------------------------------------------------------------
@PROPERTY
@given(noisy_bytes().flatmap(lambda stream: st.tuples(st.just(stream), chunked(stream))))
def test_decoder_never_raises_on_garbage_and_yields_only_intact_frames(case):
    stream, chunks = case
    decoder = FrameDecoder()
    ledger(stream, feed(decoder, chunks), decoder.buffered)


# -- mutation --------------------------------------------------------------------------------------------
Mutation = tuple[str, int, int]


def mutate(data: bytes, mutations: list[Mutation]) -> bytes:
    """Apply flips (bit), inserts (byte) and deletes at positions taken modulo the current length."""
    out = bytearray(data)
    for op, where, value in mutations:
        if op == "insert":
            out.insert(where % (len(out) + 1), value)
        elif out and op == "delete":
            del out[where % len(out)]
        elif out:
            out[where % len(out)] ^= 1 << (value % 8)
    return bytes(out)


MUTATIONS = st.lists(
    st.tuples(st.sampled_from(["flip", "insert", "delete"]), st.integers(0, 300), st.integers(0, 0xFF)),
    min_size=1,
    max_size=6,
)


@PROPERTY
@given(st.tuples(framed_messages(), MUTATIONS).flatmap(lambda t: chunked(mutate(t[0][0].encode(), t[1]))))
def test_mutated_frames_never_raise_and_yield_only_intact_frames(chunks):
    """Bits flipped, bytes inserted or deleted anywhere in a frame: whatever the decoder still yields
    was in the input intact."""
    stream = b"".join(chunks)
    decoder = FrameDecoder()
    ledger(stream, feed(decoder, chunks), decoder.buffered)


@PROPERTY
@given(any_frames(), st.integers(0, 10_000), st.integers(0, 7))
def test_a_single_bit_error_is_always_detected(frame, where, bit):
    """Header check and CRC together catch every one-bit error: the damaged frame is never delivered
    (a frame nested in its payload, which is intact, still may be)."""
    damaged = mutate(frame.encode(), [("flip", where, bit)])
    decoder = FrameDecoder()
    entries = ledger(damaged, decoder.feed(damaged), decoder.buffered)
    assert 0 not in frames_at(entries)


@PROPERTY
@given(
    st.one_of(
        any_frames().map(Frame.encode),
        st.tuples(any_frames(), MUTATIONS).map(lambda t: mutate(t[0].encode(), t[1])),
        st.builds(raw_frame, st.integers(0, 0xFF), st.binary(min_size=3, max_size=30)),
        st.tuples(any_frames(), st.binary(min_size=1, max_size=8)).map(lambda t: t[0].encode() + t[1]),
    )
)
def test_a_chunk_read_whole_decodes_as_the_scan_decodes_it(data):
    """A chunk that is one frame, read whole into an empty decoder, is taken without the scan: its
    frame, damage, unknown CTRL or trailing bytes come out exactly as the scan makes them (fed its
    first byte alone, which the decoder only holds, the same bytes go through the scan)."""
    assume(data[:1] == SYNC[:1])
    whole, scanned = FrameDecoder(), FrameDecoder()
    assert scanned.feed(data[:1]) == []
    assert whole.feed(data) == scanned.feed(data[1:])
    assert whole.buffered == scanned.buffered


# -- resynchronisation -----------------------------------------------------------------------------------
@PROPERTY
@given(
    st.tuples(noisy_bytes(), any_frames(), noisy_bytes()).flatmap(
        lambda t: st.tuples(st.just(t), chunked(t[0] + t[1].encode() + t[2]))
    )
)
def test_decoder_finds_a_frame_behind_garbage_at_once_or_after_resync(case):
    """The contract the host link relies on (spec §3): a valid frame behind garbage is yielded by
    ``feed``, unless a false header in the garbage still holds the decoder; then ``resync()``, which
    the link calls after the partial-frame timeout, releases it. The only exception: an intact frame
    in the garbage that overlaps it, which the decoder rightly takes."""
    (garbage, frame, _), chunks = case
    stream = b"".join(chunks)
    start = len(garbage)
    decoder = FrameDecoder()
    items = feed(decoder, chunks)
    entries = ledger(stream, items, decoder.buffered)
    if start not in frames_at(entries) and not spans(entries, start):
        # Not yet found: only a partial frame begun in the garbage may be holding the decoder.
        assert len(stream) - decoder.buffered <= start
    while more := decoder.resync():
        items += more
    entries = ledger(stream, items, decoder.buffered)
    assert spans(entries, start) or frames_at(entries).get(start) == frame


# -- truncated, extended and arbitrary payloads ----------------------------------------------------------
@pytest.mark.parametrize("cls", class_params(MESSAGE_CLASSES))
@PER_CLASS
@given(data=st.data())
def test_truncated_or_extended_payloads_raise_payload_error_naming_message_and_field(cls, data):
    payload = data.draw(messages(cls, small=False)).to_payload()
    fields = "|".join(re.escape(name) for name, _ in cls.LAYOUT)
    if payload:
        cut = data.draw(st.integers(0, len(payload) - 1))
        with pytest.raises(PayloadError, match=rf"^{cls.__name__}\.({fields}): "):
            cls.from_payload(payload[:cut])
    extra = data.draw(st.binary(min_size=1, max_size=8))
    with pytest.raises(PayloadError, match=rf"^{cls.__name__}: {len(extra)} unexpected trailing bytes$"):
        cls.from_payload(payload + extra)


@pytest.mark.parametrize(
    "cls", class_params([cls for cls in MESSAGE_CLASSES if any(wire in _INT_MAX for _, wire in cls.LAYOUT)])
)
@PER_CLASS
@given(data=st.data())
def test_an_integer_field_out_of_its_type_is_refused_by_name_on_encoding(cls, data):
    """A bool, a float or a value past the field's range is never packed: encoding names the message
    and the field (a layout of integers only is packed at once, and must refuse the same)."""
    message = data.draw(messages(cls, small=True))
    name, wire = data.draw(st.sampled_from([(name, wire) for name, wire in cls.LAYOUT if wire in _INT_MAX]))
    bad = data.draw(st.sampled_from([True, False, 1.0, -1, _INT_MAX[wire] + 1]))
    with pytest.raises(PayloadError, match=rf"^{cls.__name__}\.{name}: "):
        dataclasses.replace(message, **{name: bad}).to_payload()  # type: ignore[type-var]


@pytest.mark.parametrize("cls", class_params(MESSAGE_CLASSES))
@PER_CLASS
@given(payload=st.binary(max_size=64))
def test_arbitrary_payloads_decode_canonically_or_raise_payload_error(cls, payload):
    """A payload either is the one encoding of a message, or is refused with PayloadError."""
    try:
        message = cls.from_payload(payload)
    except PayloadError as exc:
        assert str(exc).startswith(cls.__name__)
    else:
        assert message.to_payload() == payload


# -- both link ends never raise on their input -----------------------------------------------------------
@st.composite
def host_link_cases(draw: st.DrawFn) -> tuple[list[Command], list[bytes]]:
    """Commands to submit, and what the host link then hears: line noise around responses to those
    commands (the link numbers them 0, 1, 2, ...) that are valid, refusals or garbage, events that
    decode or not, ACKs, NAKs, and frames from other devices."""
    commands = draw(
        st.lists(st.sampled_from(COMMANDS).flatmap(lambda cls: messages(cls, small=True)), max_size=4)
    )
    payloads = [
        st.one_of(
            messages(type(command).REPLY, small=True).map(
                lambda reply: bytes((Status.OK,)) + reply.to_payload()
            ),
            st.tuples(st.integers(0, 0xFF), st.text(max_size=20)).map(
                lambda t: bytes((t[0],)) + STR.encode(t[1])
            ),
            st.binary(max_size=40),
        )
        for command in commands
    ]
    responses = [
        payload.map(lambda data, seq=seq, msg=command.MSG_ID: Frame(1, Kind.RESPONSE, True, seq, msg, data))
        for seq, (command, payload) in enumerate(zip(commands, payloads, strict=True))
    ]
    events = st.sampled_from(EVENTS).flatmap(
        lambda cls: st.tuples(st.integers(0, 3), messages(cls, small=True)).map(
            lambda t: Frame(1, Kind.EVENT, True, t[0], cls.MSG_ID, t[1].to_payload())
        )
    )
    others = any_frames(
        address=st.sampled_from([1, 1, 1, 2]),
        from_device=st.sampled_from([True, True, True, False]),
        seq=st.integers(0, 3),
        msg=st.one_of(st.sampled_from(KNOWN_IDS), st.integers(0, 0xFF)),
    )
    traffic = draw(noisy_bytes(st.one_of(*responses, events, others)))
    return commands, draw(chunked(traffic))


@PROPERTY
@given(host_link_cases())
def test_host_link_never_raises_on_what_it_receives(case):
    commands, chunks = case
    link = HostLink(1)
    for command in commands:
        link.submit(command, 0.0)
    for step, chunk in enumerate(chunks):
        now = step * 0.1
        link.receive(chunk, now)
        link.tick(now)
        link.outcomes()
        link.data_to_send()


def host_traffic() -> st.SearchStrategy[bytes]:
    """What a device may hear: line noise around commands (valid encodings of every catalog command,
    and arbitrary payloads for known and unknown ids), ACKs, NAKs, and frames not meant for it."""
    valid = st.sampled_from(COMMANDS).flatmap(
        lambda cls: st.tuples(messages(cls, small=True), st.integers(0, 0xFF)).map(
            lambda t: Frame(1, Kind.COMMAND, False, t[1], type(t[0]).MSG_ID, t[0].to_payload())
        )
    )
    arbitrary = any_frames(
        address=st.sampled_from([1, 1, 1, 2]),
        from_device=st.sampled_from([False, False, False, True]),
        msg=st.one_of(st.sampled_from(KNOWN_IDS), st.integers(0, 0xFF)),
    )
    return noisy_bytes(st.one_of(valid, arbitrary))


@PROPERTY
@given(st.booleans(), st.booleans(), host_traffic().flatmap(chunked))
def test_device_engine_never_raises_on_what_it_receives(in_session, jammed, chunks):
    device = DeviceEngine(DiagnosticPersonality(), rng=random.Random(0))
    if jammed:
        device.raise_fault(FaultCode.JAM, "card jammed at exit")
    if in_session:
        device.receive(
            Frame(1, Kind.COMMAND, False, 0xFF, Hello.MSG_ID, Hello(7, 1).to_payload()).encode(), 0.0
        )
    for step, chunk in enumerate(chunks):
        now = step * 0.1
        device.receive(chunk, now)
        device.tick(now)
        device.data_to_send()


# -- replies and refusals that must fit a frame ----------------------------------------------------------
def _answer(command_frame: Frame) -> list[Frame | Noise]:
    device = DeviceEngine(DiagnosticPersonality(), rng=random.Random(0))
    device.receive(Frame(1, Kind.COMMAND, False, 0, Hello.MSG_ID, Hello(7, 1).to_payload()).encode(), 0.0)
    device.data_to_send()
    device.receive(command_frame.encode(), 0.0)
    return FrameDecoder().feed(device.data_to_send())


def test_device_cuts_a_long_error_detail_to_fit_its_frame():
    operator = b"\xff" * 200  # not UTF-8; the error names it by its repr, four times as long
    payload = bytes((FaultCode.JAM, len(operator))) + operator
    (response,) = _answer(Frame(1, Kind.COMMAND, False, 1, ClearFault.MSG_ID, payload))
    assert response.kind is Kind.RESPONSE and response.payload[0] == Status.BAD_PAYLOAD
    detail, end = STR.decode(response.payload, 1)
    assert end == len(response.payload) <= MAX_PAYLOAD and str(detail).startswith("ClearFault.operator: ")


def test_device_refuses_rather_than_send_a_reply_too_long_for_a_frame():
    """An Echo of 250 bytes is a valid command whose reply (status, length, 250 bytes) cannot fit."""
    (response,) = _answer(Frame(1, Kind.COMMAND, False, 1, Echo.MSG_ID, Echo(bytes(250)).to_payload()))
    assert response.kind is Kind.RESPONSE and response.payload[0] == Status.REFUSED
