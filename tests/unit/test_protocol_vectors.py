"""The protocol's test vectors (tests/vectors/protocol_v1.json) against the code and docs/protocol.md.

The vectors are what a firmware engineer tests a device against, so they are checked from every side:
the codec encodes each one to its bytes and decodes it back, a CRC written here bit by bit (not the
codec's table-driven one) agrees with every frame, every message in the catalog has its vectors, the
hex printed in the specification is the same bytes, and the simulated device, replaying the host's
side of the conversation, sends the device's side byte for byte. Spec, vectors and code cannot drift.
"""

from __future__ import annotations

import importlib
import json
import pkgutil
import random
import re
from pathlib import Path
from typing import Any

import pytest

import drivers
from drivers.protocol.core import CATALOG, DoorChanged, FaultCode, FaultRaised
from drivers.protocol.crc import crc16
from drivers.protocol.fields import BLOB, STR, Fixed, ListOf, WireType
from drivers.protocol.frame import SYNC, Frame, FrameDecoder, Kind, NakReason, Noise, NoiseReason
from drivers.protocol.message import Message, Status
from firmware_sim.engine import DeviceEngine
from firmware_sim.personality import DiagnosticPersonality

ROOT = Path(__file__).resolve().parents[2]
VECTORS_DIR = ROOT / "tests" / "vectors"
VECTORS_FILE = VECTORS_DIR / "protocol_v1.json"  # the core messages; one more file per device class
SPEC_FILE = ROOT / "docs" / "protocol.md"

DOCUMENT: dict[str, Any] = json.loads(VECTORS_FILE.read_text(encoding="utf-8"))
VECTORS: list[dict[str, Any]] = [
    vector
    for path in sorted(VECTORS_DIR.glob("*.json"))
    for vector in json.loads(path.read_text(encoding="utf-8"))["vectors"]
]
BY_NAME = {vector["name"]: vector for vector in VECTORS}


def crc16_bitwise(data: bytes) -> int:
    """CRC-16/CCITT-FALSE one bit at a time, straight from its parameters (poly 0x1021, init 0xFFFF,
    no reflection, no final XOR): an implementation independent of the codec's to check it against."""
    crc = 0xFFFF
    for byte in data:
        crc ^= byte << 8
        for _ in range(8):
            crc = ((crc << 1) ^ 0x1021) & 0xFFFF if crc & 0x8000 else (crc << 1) & 0xFFFF
    return crc


def all_message_classes() -> list[type[Message]]:
    """Every command, event and reply type, after importing every drivers module.

    Messages register in the catalog when their module is imported, so importing them all makes the
    result (and the coverage check below) independent of which tests happened to run first.
    """
    for module in pkgutil.walk_packages(drivers.__path__, f"{drivers.__name__}."):
        importlib.import_module(module.name)
    classes: dict[str, type[Message]] = {}
    for command in CATALOG.commands.values():
        classes[command.__name__] = command
        classes[command.REPLY.__name__] = command.REPLY
    for event in CATALOG.events.values():
        classes[event.__name__] = event
    return [classes[name] for name in sorted(classes)]


MESSAGE_CLASSES = all_message_classes()
CLASS_BY_NAME = {cls.__name__: cls for cls in MESSAGE_CLASSES}


def _from_json(wire: WireType, value: Any) -> object:
    """A field value as the vectors file writes it (bytes as hex, sequences as lists) to Python."""
    if isinstance(wire, ListOf):
        return tuple(_from_json(wire.item, item) for item in value)
    if isinstance(wire, Fixed) or wire is BLOB:
        return bytes.fromhex(value)
    return value


def _message(vector: dict[str, Any]) -> Message:
    spec = vector["message"]
    cls = CLASS_BY_NAME[spec["class"]]
    fields = spec["fields"]
    assert set(fields) == {name for name, _ in cls.LAYOUT}, f"{vector['name']}: fields of {cls.__name__}"
    return cls(**{name: _from_json(wire, fields[name]) for name, wire in cls.LAYOUT})


def _frame(vector: dict[str, Any], payload: bytes) -> Frame:
    f = vector["frame"]
    return Frame(f["address"], Kind[f["kind"]], f["from_device"], f["seq"], f["msg"], payload)


def _payload(vector: dict[str, Any]) -> bytes:
    """The payload built from the vector's decoded content (not from its hex)."""
    kind = Kind[vector["frame"]["kind"]]
    if kind in (Kind.COMMAND, Kind.EVENT):
        return _message(vector).to_payload()
    if kind is Kind.RESPONSE:
        status = Status[vector["status"]]
        if status is Status.OK:
            return bytes((status,)) + _message(vector).to_payload()
        return bytes((status,)) + STR.encode(vector["detail"])
    if kind is Kind.NAK:
        return bytes((getattr(NakReason, vector["nak_reason"]),))
    return b""


def _spec_blocks() -> dict[str, bytes]:
    """Each ```hex vector=NAME block of the spec as bytes; text after '#' on a line is commentary."""
    text = SPEC_FILE.read_text(encoding="utf-8")
    openers = re.findall(r"^```hex.*$", text, re.MULTILINE)
    blocks = re.findall(r"^```hex vector=([a-z0-9-]+)\n(.*?)^```$", text, re.MULTILINE | re.DOTALL)
    assert len(blocks) == len(openers), "every ```hex block in the spec must name its vector"
    found: dict[str, bytes] = {}
    for name, body in blocks:
        assert name not in found, f"vector {name} is printed twice in the spec"
        tokens = [token for line in body.splitlines() for token in line.split("#", 1)[0].split()]
        bad = [token for token in tokens if not re.fullmatch(r"[0-9a-f]{2}", token)]
        assert not bad, f"spec block {name}: not hex bytes: {bad}"
        found[name] = bytes.fromhex("".join(tokens))
    return found


def vector_params(vectors: list[dict[str, Any]]) -> list[Any]:
    return [pytest.param(vector, id=vector["name"]) for vector in vectors]


def test_vector_names_are_unique():
    assert len(BY_NAME) == len(VECTORS)


@pytest.mark.parametrize("vector", vector_params(VECTORS))
def test_vector_encodes_to_its_bytes(vector):
    payload = _payload(vector)
    assert payload.hex() == vector["payload"]
    assert _frame(vector, payload).encode().hex() == vector["bytes"]


@pytest.mark.parametrize("vector", vector_params(VECTORS))
def test_vector_decodes_to_its_frame_and_message(vector):
    raw = bytes.fromhex(vector["bytes"])
    (frame,) = FrameDecoder().feed(raw)
    assert frame == _frame(vector, bytes.fromhex(vector["payload"]))
    if frame.kind is Kind.COMMAND:
        assert CATALOG.command(frame.msg).from_payload(frame.payload) == _message(vector)
    elif frame.kind is Kind.EVENT:
        assert CATALOG.event(frame.msg).from_payload(frame.payload) == _message(vector)
    elif frame.kind is Kind.RESPONSE:
        assert Status(frame.payload[0]) is Status[vector["status"]]
        if "message" in vector:
            reply = CATALOG.command(frame.msg).REPLY.from_payload(frame.payload[1:])
            assert reply == _message(vector)
        else:
            assert STR.decode(frame.payload, 1) == (vector["detail"], len(frame.payload))
    elif frame.kind is Kind.ACK:
        assert frame.payload == b"" and CATALOG.event(frame.msg)
    else:
        assert frame.payload == bytes((getattr(NakReason, vector["nak_reason"]),))


def test_bitwise_crc_has_the_catalogued_check_value():
    assert crc16_bitwise(b"123456789") == 0x29B1 == crc16(b"123456789")


def test_vectors_file_names_the_crc_checked_here():
    crc = DOCUMENT["crc"]
    named = (crc["algorithm"], crc["width"], crc["refin"], crc["refout"])
    numbers = [int(crc[key], 16) for key in ("poly", "init", "xorout", "check")]
    assert named == ("CRC-16/CCITT-FALSE", 16, False, False)
    assert numbers == [0x1021, 0xFFFF, 0x0000, crc16_bitwise(b"123456789")]


@pytest.mark.parametrize("vector", vector_params(VECTORS))
def test_vector_header_and_crc_agree_with_the_bitwise_crc(vector):
    raw = bytes.fromhex(vector["bytes"])
    length = raw[2]
    assert raw[:2] == SYNC and raw[3] == length ^ 0xFF and len(raw) == length + 6
    # Covered: LEN, then ADDR..PAYLOAD; not the sync bytes, not ~LEN. Sent high byte first.
    assert crc16_bitwise(raw[2:3] + raw[4:-2]) == int.from_bytes(raw[-2:], "big")


def test_every_catalog_message_has_its_vectors():
    """A message added to the catalog without vectors (and so without a spec example) fails here."""
    shown = {(v["frame"]["kind"], v["frame"]["msg"], v.get("status")) for v in VECTORS}
    missing = [
        f"{cls.__name__}: {what}"
        for cls in CATALOG.commands.values()
        for what, key in (
            ("command", ("COMMAND", cls.MSG_ID, None)),
            ("OK response", ("RESPONSE", cls.MSG_ID, "OK")),
        )
        if key not in shown
    ] + [
        f"{cls.__name__}: {what}"
        for cls in CATALOG.events.values()
        for what, key in (("event", ("EVENT", cls.MSG_ID, None)), ("ACK", ("ACK", cls.MSG_ID, None)))
        if key not in shown
    ]
    assert not missing, f"messages without test vectors in {VECTORS_DIR}: {missing}"


def test_error_response_and_naks_have_vectors():
    kinds = {(v["frame"]["kind"], v["frame"]["from_device"]) for v in VECTORS}
    assert {("NAK", False), ("NAK", True)} <= kinds
    assert any(v["frame"]["kind"] == "RESPONSE" and v["status"] != "OK" for v in VECTORS)


def test_spec_prints_exactly_the_vectors():
    """Every example printed in the spec is a vector, and every core vector is printed."""
    blocks = _spec_blocks()
    assert set(blocks) <= set(BY_NAME), f"spec examples with no vector: {sorted(set(blocks) - set(BY_NAME))}"
    core = {vector["name"] for vector in DOCUMENT["vectors"]}
    assert core <= set(blocks), f"core vectors missing from the spec: {sorted(core - set(blocks))}"
    for name, raw in blocks.items():
        assert raw.hex() == BY_NAME[name]["bytes"], f"spec example {name} differs from its vector"


class _BootIdOf(random.Random):
    """Draws the boot id the vectors show, so the simulated device's Identity is byte-exact."""

    def __init__(self, boot_id: int) -> None:
        super().__init__(0)
        self.boot_id = boot_id

    def getrandbits(self, k: int) -> int:
        return self.boot_id


def test_simulated_device_speaks_the_conversation_of_the_spec():
    """Spec §10: the host's frames, replayed into the simulated device, draw exactly the device's."""
    identity = _message(BY_NAME["hello-response"])
    status = _message(BY_NAME["get-status-response"])
    fault = _message(BY_NAME["fault-raised"])
    door = _message(BY_NAME["door-changed"])
    assert isinstance(fault, FaultRaised) and isinstance(door, DoorChanged)
    personality = DiagnosticPersonality(
        vendor=identity.vendor,
        model=identity.model,
        serial_number=identity.serial_number,
        firmware_version=identity.firmware_version,
        capabilities=identity.capabilities,
    )
    now = status.uptime_ms / 1000
    device = DeviceEngine(personality, address=1, rng=_BootIdOf(identity.boot_id), now=0.0)

    def answer(name: str) -> bytes:
        device.receive(bytes.fromhex(BY_NAME[name]["bytes"]), now)
        return device.data_to_send()

    def frames(*names: str) -> bytes:
        return b"".join(bytes.fromhex(BY_NAME[name]["bytes"]) for name in names)

    assert answer("get-status-no-session-command") == frames("get-status-no-session-response")
    device.raise_fault(FaultCode(fault.code), fault.detail)
    assert answer("hello-command") == frames("hello-response", "fault-raised")
    assert answer("get-status-command") == frames("get-status-response")
    assert answer("fault-raised-ack") == b""
    refused = frames("increment-test-counter-refused-response")
    assert answer("increment-test-counter-refused-command") == refused
    assert answer("clear-fault-command") == frames("clear-fault-response", "fault-cleared")
    assert answer("fault-cleared-ack") == b""
    device.emit(door)
    device.tick(now)
    assert device.data_to_send() == frames("door-changed")
    assert answer("door-changed-ack") == b""
    assert answer("echo-command") == frames("echo-response")
    assert answer("increment-test-counter-command") == frames("increment-test-counter-response")
    executions = device.executions
    # The same command again, as after a lost response: answered from the cache, not executed.
    assert answer("increment-test-counter-command") == frames("increment-test-counter-response")
    assert device.executions == executions and personality.counter == 5
    assert answer("read-test-counter-command") == frames("read-test-counter-response")
    assert answer("request-diagnostic-events-command") == frames(
        "request-diagnostic-events-response", "diagnostic-event"
    )
    assert answer("diagnostic-event-ack") == b""
    # The host's NAK: the device sends its last response again.
    assert answer("nak-from-host") == frames("request-diagnostic-events-response")
    # The challenge (§6.6, 58 Pa. Code § 461a.20(b)): HMAC-SHA256 keyed by the nonce over the image.
    assert answer("attest-command") == frames("attest-response")


# -- what the decoder throws away, and why (docs/protocol.md §2) -----------------------------------------
def test_each_discard_is_reported_with_its_reason_and_size():
    """Bytes outside a frame are GARBAGE, a sync whose LEN and ~LEN disagree is BAD_HEADER (one byte
    dropped, decided as soon as the four header bytes are in), one report for a run of discarded
    bytes with its most telling reason (docs/protocol.md §3), a frame whose CTRL names no kind is
    BAD_CTRL (the whole frame); a trailing first sync byte is kept for the next chunk."""
    good = Frame(1, Kind.EVENT, True, 3, 0x40, b"\x01").encode()
    decoder = FrameDecoder()
    assert decoder.feed(b"\x01\x02\x03\xa5") == [Noise(NoiseReason.GARBAGE, 3)]
    assert decoder.buffered == 1
    assert decoder.feed(b"\x5a\x03\x00") == [Noise(NoiseReason.BAD_HEADER, 4)]
    frame = Frame(1, Kind.EVENT, True, 3, 0x40, b"\x01")
    assert decoder.feed(b"\x07\x07" + good) == [Noise(NoiseReason.GARBAGE, 2), frame]
    checked = bytes((4, 0xFB, 1, 0x0E, 0, 0))  # CTRL 0x0E: kind 14 is no kind
    unknown = SYNC + checked + crc16(checked[0:1] + checked[2:]).to_bytes(2, "big")
    assert decoder.feed(unknown) == [Noise(NoiseReason.BAD_CTRL, len(unknown))]
    assert decoder.feed(b"\xa5\x5a\x40\xbf") == [], "a header announcing 64 bytes waits for them"
    assert decoder.resync() == [Noise(NoiseReason.BAD_HEADER, 4)]


@pytest.mark.parametrize(
    "fields",
    [dict(address=256), dict(seq=256), dict(msg=256), dict(address=-1), dict(seq=-1), dict(msg=-1)],
)
def test_a_frame_field_out_of_a_byte_is_refused_by_name(fields):
    frame = Frame(**{"address": 1, "kind": Kind.COMMAND, "from_device": False, "seq": 0, "msg": 0, **fields})
    with pytest.raises(ValueError, match="frame field out of range: Frame"):
        frame.encode()


def test_the_largest_payload_encodes_and_one_byte_more_is_refused():
    assert len(Frame(255, Kind.EVENT, True, 255, 255, bytes(251)).encode()) == 261
    with pytest.raises(ValueError, match="payload of 252 bytes exceeds 251"):
        Frame(1, Kind.EVENT, True, 0, 0, bytes(252)).encode()
