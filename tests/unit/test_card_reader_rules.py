"""The card reader's rules, each test named after the clause it enforces.

Three layers, no transport: the protocol (no message can carry a rank: 672a.7(g), decision
0018), the simulated reader's firmware driven sans-I/O through its DeviceEngine, and the devices/
machine over a scripted driver, so every refusal and its clause can be reached in a line or two.
"""

from __future__ import annotations

import asyncio
import json
import random
from datetime import datetime, timedelta
from pathlib import Path
from types import SimpleNamespace

import pytest

from devices.card_reader import (
    DAILY_INSPECTION,
    FLOORPERSON_INSPECTS,
    LINK_REQUIRED,
    ONE_ANSWER_PER_ROUND,
    PEEK_ONLY_ON_ACE_OR_TEN,
    WORKING_ORDER,
    CardReader,
)
from devices.faults import LATCH_BLOCKS
from drivers.card_reader import CardReaderDriver
from drivers.connection import ConnectionState, StateChanged
from drivers.driver import ProtocolMismatch
from drivers.errors import DeviceRefused
from drivers.protocol.classes.card_reader import (
    Peek,
    PeekAnswer,
    SelfTest,
    SelfTestCode,
    SelfTestReport,
    UpCard,
)
from drivers.protocol.core import (
    CATALOG,
    PROTOCOL_VERSION,
    DeviceClass,
    FaultCode,
    FaultRaised,
    Hello,
    Identity,
)
from drivers.protocol.fields import BOOL, U8, U32, PayloadError
from drivers.protocol.frame import Frame, FrameDecoder, Kind
from drivers.protocol.message import Command, Status
from firmware_sim.card_reader import MISREAD_DETAIL, CardReaderPersonality
from firmware_sim.engine import DeviceEngine
from firmware_sim.world import DEALER, READER, TableWorld
from tests.links import run
from vocabulary.cards import Card, standard_deck
from vocabulary.operators import SUPERVISOR_CLEARS, Operator, Role
from vocabulary.rules import RuleViolation

VECTORS = Path(__file__).resolve().parents[1] / "vectors" / "card_reader.json"
COMMAND_IDS = range(0x20, 0x28)
EVENT_IDS = range(0xA0, 0xA8)
TEN_VALUE = ("T", "J", "Q", "K")


# -- the protocol: no message of the class can carry a rank ----------------------------------------------
def class_messages() -> list[type]:
    commands = [cls for msg_id, cls in CATALOG.commands.items() if msg_id in COMMAND_IDS]
    events = [cls for msg_id, cls in CATALOG.events.items() if msg_id in EVENT_IDS]
    return commands + [cls.REPLY for cls in commands] + events


#: The only fields wider than a bool, and why none can carry a rank or a face.
JUSTIFIED = {
    ("Peek", "up_card"): "two legal values (ACE, TEN_VALUE), every other byte refused",
    ("SelfTestReport", "code"): "five legal values, each tied to the verdict, every other byte refused",
    ("SelfTestReport", "peeks_since_power_on"): "a count of Peek commands, whatever the cards were",
}


def test_672a_7_g_no_card_reader_field_can_carry_a_rank_or_face():
    messages = class_messages()
    assert {cls.__name__ for cls in messages} == {"Peek", "PeekAnswer", "SelfTest", "SelfTestReport"}
    wide = {(cls.__name__, name): wire for cls in messages for name, wire in cls.LAYOUT if wire is not BOOL}
    assert set(wide) == set(JUSTIFIED), "a new field wider than a bool needs its justification here"
    assert wide[("Peek", "up_card")] is U8 and wide[("SelfTestReport", "code")] is U8
    assert wide[("SelfTestReport", "peeks_since_power_on")] is U32
    assert PeekAnswer.LAYOUT == (("blackjack", BOOL),), "the answer is one bool and nothing else"


def test_672a_7_g_up_card_code_has_two_legal_values():
    legal = {int(UpCard.ACE), int(UpCard.TEN_VALUE)}
    for value in range(256):
        if value in legal:
            assert Peek(value).checked_up_card() == value
        else:
            with pytest.raises(PayloadError, match=r"^Peek\.up_card must be one of 1 \(ACE\), 10 \("):
                Peek(value).checked_up_card()


class RecordingConnection:
    """Enough of a DeviceConnection for the driver: records requests, answers with ``reply``."""

    def __init__(self, reply: object) -> None:
        self.name = "reader-1"
        self.expected_class = None
        self.reply = reply
        self.requests: list[object] = []

    async def request(self, command: object) -> object:
        self.requests.append(command)
        return self.reply


def test_672a_7_g_the_driver_sends_no_other_up_card():
    conn = RecordingConnection(PeekAnswer(False))
    driver = CardReaderDriver(conn)  # type: ignore[arg-type]
    with pytest.raises(PayloadError, match=r"got 7$"):
        run(driver.peek(7))  # type: ignore[arg-type]
    assert conn.requests == []
    assert run(driver.peek(UpCard.TEN_VALUE)) is False and conn.requests == [Peek(UpCard.TEN_VALUE)]


def test_the_driver_refuses_a_self_test_report_that_contradicts_itself():
    driver = CardReaderDriver(
        RecordingConnection(SelfTestReport(True, SelfTestCode.TAMPER, False, True, True, True, 0))
    )  # type: ignore[arg-type]
    with pytest.raises(ProtocolMismatch, match="contradicts code TAMPER"):
        run(driver.self_test())


def test_self_test_code_must_be_known_and_agree_with_the_verdict():
    def report(passed: bool, code: int) -> SelfTestReport:
        return SelfTestReport(passed, code, True, True, True, True, 0)

    assert report(True, 0).checked_code() is SelfTestCode.OK
    assert report(False, SelfTestCode.OPTICS).checked_code() is SelfTestCode.OPTICS
    with pytest.raises(PayloadError, match="contradicts code OK"):
        report(False, 0).checked_code()
    with pytest.raises(PayloadError, match="contradicts code TAMPER"):
        report(True, SelfTestCode.TAMPER).checked_code()
    with pytest.raises(PayloadError, match=r"SelfTestReport\.code must be one of"):
        report(False, 5).checked_code()


# -- the simulated reader, sans-I/O ----------------------------------------------------------------------
class Bench:
    """A simulated reader on a bench: its engine in session, and the world it reads from."""

    def __init__(self, **personality: object) -> None:
        self.world = TableWorld()
        self.personality = CardReaderPersonality(world=self.world, **personality)
        self.engine = DeviceEngine(self.personality, rng=random.Random(1))
        self.seq = 0
        self.send(Hello(7, 1))

    def send(self, command: Command) -> list[Frame]:
        """Every frame the reader sends in answer (its response, then any event), events ACKed."""
        self.seq = (self.seq + 1) & 0xFF
        frame = Frame(1, Kind.COMMAND, False, self.seq, command.MSG_ID, command.to_payload())
        self.engine.receive(frame.encode(), 0.0)
        frames = [item for item in FrameDecoder().feed(self.engine.data_to_send()) if isinstance(item, Frame)]
        for event in frames[1:]:
            self.engine.receive(Frame(1, Kind.ACK, False, event.seq, event.msg).encode(), 0.0)
        return frames

    def slot(self, *faces: Card | None) -> None:
        """The dealer's hand: empty the slot, then slide in ``faces``."""
        self.world.move_all(READER, DEALER)
        for face in faces:
            self.world.add(DEALER, [face], "blue", at=0)  # on top, the next card the dealer slides
            self.world.move(DEALER, READER)


def expected(up: UpCard, hole: Card) -> bool:
    text = str(hole)
    if up is UpCard.ACE:
        return text[0] in TEN_VALUE
    return text[0] == "A"


def test_672a_7_g_the_peek_response_depends_on_nothing_but_blackjack_or_not():
    """Every face, both jokers, both up cards: the reader's whole response is one of two byte
    strings, the OK answer true or false. Nothing else about the hole card reaches the wire."""
    bench = Bench()
    responses: dict[bool, set[bytes]] = {True: set(), False: set()}
    for up in UpCard:
        for hole in standard_deck(jokers=2):
            bench.slot(hole)
            (response,) = bench.send(Peek(up))
            assert response.payload == bytes((Status.OK,)) + PeekAnswer(expected(up, hole)).to_payload()
            responses[expected(up, hole)].add(response.payload)
    assert {key: len(found) for key, found in responses.items()} == {True: 1, False: 1}
    assert bench.personality.peeks_since_power_on == 2 * 54
    bench.world.check()


def test_672a_7_g_device_refuses_any_other_up_card_code_without_reading():
    bench = Bench()
    bench.slot(Card.parse("As"))
    for value in (0, 2, 7, 9, 11, 0xFF):
        (response,) = bench.send(Peek(value))
        assert response.payload[0] == Status.BAD_PAYLOAD
        assert b"Peek.up_card must be one of 1 (ACE), 10 (TEN_VALUE)" in response.payload
    assert bench.personality.peeks_since_power_on == 0 and not bench.engine.latched


def test_misread_looks_the_same_whatever_was_in_the_slot():
    """A cover card, two cards, a smudged marking: one refusal and one fault text, naming no card."""
    seen = set()
    for faces, smudged in (([None], 0), ([Card.parse("Kh"), Card.parse("2c")], 0), ([Card.parse("Ad")], 1)):
        bench = Bench(misread_next=smudged)
        bench.slot(*faces)
        response, fault = bench.send(Peek(UpCard.ACE))
        assert response.payload[0] == Status.REFUSED
        assert FaultRaised.from_payload(fault.payload) == FaultRaised(FaultCode.MISREAD, MISREAD_DETAIL)
        seen.add((response.payload, fault.payload))
        bench.world.check()
    assert len(seen) == 1


def test_no_card_latches_and_a_latched_reader_refuses_to_read():
    bench = Bench()
    response, fault = bench.send(Peek(UpCard.ACE))
    assert response.payload[0] == Status.REFUSED and b"NO_CARD latched" in response.payload
    assert FaultRaised.from_payload(fault.payload).code == FaultCode.NO_CARD
    bench.slot(Card.parse("Ts"))
    (refused,) = bench.send(Peek(UpCard.ACE))
    assert refused.payload[0] == Status.FAULT_LATCHED
    assert bench.personality.peeks_since_power_on == 0


def test_tamper_persists_until_resealed_and_survives_a_reboot():
    bench = Bench()
    bench.personality.tamper(bench.engine)
    assert FaultCode.TAMPER in bench.engine.latched
    assert bench.personality.condition_persists(FaultCode.TAMPER)
    bench.engine.reboot(1.0)
    bench.send(Hello(8, 1))
    (report,) = bench.send(SelfTest())
    assert SelfTestReport.from_payload(report.payload[1:]).checked_code() is SelfTestCode.TAMPER
    assert FaultCode.TAMPER in bench.engine.latched, "a latched fault survives the power cycle"
    bench.personality.restore_seal()
    assert not bench.personality.condition_persists(FaultCode.TAMPER)


@pytest.mark.parametrize(
    ("setup", "code", "fault"),
    [
        ({"optics_ok": False}, SelfTestCode.OPTICS, FaultCode.SENSOR),
        ({"slot_sensor_ok": False}, SelfTestCode.SLOT_SENSOR, FaultCode.SENSOR),
        ({}, SelfTestCode.SLOT_OCCUPIED, None),
    ],
    ids=["optics", "slot-sensor", "card-left-in-slot"],
)
def test_673a_2_d_self_test_reports_working_order(setup, code, fault):
    bench = Bench(**setup)
    if code is SelfTestCode.SLOT_OCCUPIED:
        bench.slot(Card.parse("9c"))
    report = SelfTestReport.from_payload(bench.send(SelfTest())[0].payload[1:])
    assert report.checked_code() is code and not report.passed
    assert report.slot_empty is (code is not SelfTestCode.SLOT_OCCUPIED)
    assert set(bench.engine.latched) == ({fault} if fault else set())


def test_vectors_are_the_simulated_readers_own_conversation():
    """tests/vectors/card_reader.json, replayed into a simulated reader with the same hole card moved
    in and out, draws the device's frames byte for byte; each vector's fields are its payload's."""
    vectors = {v["name"]: v for v in json.loads(VECTORS.read_text(encoding="utf-8"))["vectors"]}
    for vector in vectors.values():
        (frame,) = FrameDecoder().feed(bytes.fromhex(vector["bytes"]))
        if "message" in vector:
            kind = frame.kind
            body = frame.payload[1:] if kind is Kind.RESPONSE else frame.payload
            cls = CATALOG.event(frame.msg) if kind is Kind.EVENT else CATALOG.command(frame.msg)
            message = (cls.REPLY if kind is Kind.RESPONSE else cls).from_payload(body)
            assert vars(message) == vector["message"]["fields"], vector["name"]

    bench = Bench()
    bench.world.add(DEALER, [Card.parse("Kh")], "blue")

    def answer(name: str) -> bytes:
        bench.engine.receive(bytes.fromhex(vectors[name]["bytes"]), 1.0)
        return bench.engine.data_to_send()

    def frames(*names: str) -> bytes:
        return b"".join(bytes.fromhex(vectors[name]["bytes"]) for name in names)

    assert answer("card-reader-self-test-command") == frames("card-reader-self-test-response")
    bench.world.move(DEALER, READER)
    for name in ("peek-ace", "peek-ten", "peek-bad-up-card"):
        assert answer(f"card-reader-{name}-command") == frames(f"card-reader-{name}-response")
    bench.world.move(READER, DEALER)
    assert answer("card-reader-peek-no-card-command") == frames(
        "card-reader-peek-no-card-response", "card-reader-no-card-fault-raised"
    )
    assert answer("card-reader-no-card-fault-raised-ack") == b""
    assert answer("card-reader-peek-fault-latched-command") == frames(
        "card-reader-peek-fault-latched-response"
    )
    bench.world.check()


# -- the devices/ machine over a scripted driver ---------------------------------------------------------
FLOORPERSON = Operator("floor-0042", Role.SUPERVISOR)
DEALER_ON_SHIFT = Operator("dealer-0007", Role.DEALER)
PASSED = SelfTestReport(True, SelfTestCode.OK, True, True, True, True, 0)
MONDAY_NOON = datetime(2026, 3, 2, 12, 0)


def unit(serial: str) -> Identity:
    """A card reader's identity as its handshake gives it, with serial number ``serial``."""
    return Identity(
        int(DeviceClass.CARD_READER), "Test", "PEEK", serial, "1.0", PROTOCOL_VERSION, (), bytes(32), 1
    )


class ScriptedReader:
    """Stands in for CardReaderDriver: the test sets the answers and may hold a peek in flight."""

    def __init__(self) -> None:
        self.name = "reader-1"
        self.conn = SimpleNamespace(name=self.name, identity=unit("CR-0001"))
        self.blackjack = False
        self.report = PASSED
        self.error: Exception | None = None
        self.hold: asyncio.Event | None = None
        self.peeks: list[UpCard] = []
        self.clears: list[tuple[FaultCode, str]] = []

    async def peek(self, up_card: UpCard) -> bool:
        self.peeks.append(up_card)
        if self.hold is not None:
            await self.hold.wait()
        if self.error is not None:
            raise self.error
        return self.blackjack

    async def self_test(self) -> SelfTestReport:
        return self.report

    async def clear_fault(self, code: FaultCode, operator: str) -> None:
        self.clears.append((code, operator))


class Clock:
    def __init__(self, now: datetime) -> None:
        self.now = now

    def __call__(self) -> datetime:
        return self.now


def reader(*, inspected: bool = True, clock: Clock | None = None) -> tuple[CardReader, ScriptedReader]:
    driver = ScriptedReader()
    card_reader = CardReader(driver, clock=clock or Clock(MONDAY_NOON))  # type: ignore[arg-type]
    card_reader.apply(StateChanged(ConnectionState.READY))
    if inspected:
        run(card_reader.record_inspection(FLOORPERSON))
    return card_reader, driver


def refused(rule: object, coro: object) -> RuleViolation:
    with pytest.raises(RuleViolation) as caught:
        run(coro)  # type: ignore[arg-type]
    assert caught.value.rule == rule, caught.value
    return caught.value


def test_machine_has_no_state_backdoors():
    card_reader, _ = reader(inspected=False)
    assert not [name for name in dir(card_reader) if name.startswith("to_")]


@pytest.mark.parametrize("up", ["2c", "5d", "7h", "9s", "Xr", "Xb"])
def test_672a_7_g_no_peek_unless_the_up_card_is_an_ace_or_ten_value(up):
    card_reader, driver = reader()
    error = refused(PEEK_ONLY_ON_ACE_OR_TEN, card_reader.peek(Card.parse(up)))
    assert f"no peek with {up} up" in str(error) and "672a.7(g)" in str(error)
    assert driver.peeks == [] and card_reader.state == "ready"


@pytest.mark.parametrize(
    ("up", "sent"),
    [("As", UpCard.ACE)] + [(up, UpCard.TEN_VALUE) for up in ("Th", "Jd", "Qc", "Ks")],
)
def test_672a_7_g_the_up_card_is_sent_as_its_peek_class_only(up, sent):
    card_reader, driver = reader()
    driver.blackjack = True
    assert run(card_reader.peek(Card.parse(up))) is True
    assert driver.peeks == [sent] and card_reader.answer is True and card_reader.state == "ready"


def test_672a_7_g_one_answer_per_round_and_it_is_forgotten_when_the_round_ends():
    card_reader, driver = reader()
    assert run(card_reader.peek(Card.parse("As"))) is False
    error = refused(ONE_ANSWER_PER_ROUND, card_reader.peek(Card.parse("Kd")))
    assert "end the round first" in str(error) and driver.peeks == [UpCard.ACE]
    card_reader.end_round()
    assert card_reader.answer is None
    driver.blackjack = True
    assert run(card_reader.peek(Card.parse("Kd"))) is True and card_reader.answer is True


def test_672a_7_g_one_peek_in_flight_and_no_round_end_under_it():
    card_reader, driver = reader()

    async def scenario() -> None:
        driver.hold = asyncio.Event()
        first = asyncio.ensure_future(card_reader.peek(Card.parse("As")))
        await asyncio.sleep(0)
        assert card_reader.state == "peeking"
        with pytest.raises(RuleViolation, match="already in flight") as second:
            await card_reader.peek(Card.parse("As"))
        assert second.value.rule == ONE_ANSWER_PER_ROUND
        with pytest.raises(RuleViolation, match="round cannot end"):
            card_reader.end_round()
        driver.hold.set()
        assert await first is False

    run(scenario())
    assert driver.peeks == [UpCard.ACE] and card_reader.state == "ready"


def test_a_refused_peek_teaches_nothing_and_the_round_may_peek_again():
    card_reader, driver = reader()
    driver.error = DeviceRefused("Peek", "REFUSED", "no card in the reader: NO_CARD latched")
    with pytest.raises(DeviceRefused):
        run(card_reader.peek(Card.parse("As")))
    assert card_reader.answer is None and card_reader.state == "ready"
    driver.error = None
    assert run(card_reader.peek(Card.parse("As"))) is False


def test_673a_2_d_no_peek_before_the_days_inspection():
    card_reader, driver = reader(inspected=False)
    assert card_reader.state == "uninspected"
    error = refused(DAILY_INSPECTION, card_reader.peek(Card.parse("As")))
    assert "no passed inspection for gaming day 2026-03-02" in str(error) and driver.peeks == []


def test_673a_2_d_only_a_floorperson_inspects():
    card_reader, _ = reader(inspected=False)
    refused(FLOORPERSON_INSPECTS, card_reader.record_inspection(DEALER_ON_SHIFT))
    assert card_reader.inspections == [] and card_reader.state == "uninspected"
    record = run(card_reader.record_inspection(FLOORPERSON))
    assert (record.inspector, record.serial_number, record.passed) == ("floor-0042", "CR-0001", True)
    assert (record.gaming_day.isoformat(), record.at) == ("2026-03-02", MONDAY_NOON)
    assert card_reader.state == "ready" and card_reader.inspection == record


def test_673a_2_d_a_failed_self_test_is_recorded_and_voids_the_day():
    card_reader, driver = reader()
    driver.report = SelfTestReport(False, SelfTestCode.OPTICS, True, False, True, True, 3)
    error = refused(WORKING_ORDER, card_reader.record_inspection(FLOORPERSON))
    assert "self-test OPTICS" in str(error)
    assert [r.passed for r in card_reader.inspections] == [True, False]
    assert card_reader.state == "uninspected" and card_reader.inspection is None
    refused(DAILY_INSPECTION, card_reader.peek(Card.parse("As")))


def test_673a_2_d_the_inspection_lasts_one_gaming_day():
    clock = Clock(datetime(2026, 3, 2, 5, 59))  # before 06:00: still Sunday's gaming day
    card_reader, driver = reader(clock=clock)
    assert card_reader.inspection is not None
    assert card_reader.inspection.gaming_day.isoformat() == "2026-03-01"
    clock.now += timedelta(minutes=1)
    error = refused(DAILY_INSPECTION, card_reader.peek(Card.parse("As")))
    assert "gaming day 2026-03-02" in str(error) and card_reader.state == "uninspected"
    run(card_reader.record_inspection(FLOORPERSON))
    assert run(card_reader.peek(Card.parse("As"))) is False and driver.peeks == [UpCard.ACE]


def test_673a_2_d_the_inspection_is_of_the_unit_inspected():
    """A reader swapped during the day (another serial number behind the same link) is uninspected."""
    card_reader, driver = reader()
    driver.conn.identity = unit("CR-0002")
    refused(DAILY_INSPECTION, card_reader.peek(Card.parse("As")))


def test_673a_2_d_tamper_voids_the_inspection_and_only_a_supervisor_clears_it():
    card_reader, driver = reader()
    card_reader.apply(FaultRaised(FaultCode.TAMPER, "reader case opened"))
    assert card_reader.latch and card_reader.state == "uninspected" and card_reader.inspection is None
    error = refused(LATCH_BLOCKS, card_reader.peek(Card.parse("As")))
    assert "TAMPER" in str(error)
    refused(SUPERVISOR_CLEARS, card_reader.clear("TAMPER", DEALER_ON_SHIFT))
    refused(LATCH_BLOCKS, card_reader.record_inspection(FLOORPERSON))
    run(card_reader.clear("TAMPER", FLOORPERSON))
    assert driver.clears == [(FaultCode.TAMPER, "floor-0042")]
    assert card_reader.state == "uninspected", "cleared, but not inspected again"
    run(card_reader.record_inspection(FLOORPERSON))
    assert run(card_reader.peek(Card.parse("As"))) is False


def test_a_no_card_fault_blocks_until_cleared_but_keeps_the_inspection():
    card_reader, _ = reader()
    card_reader.apply(FaultRaised(FaultCode.NO_CARD, "no card in the reader"))
    refused(LATCH_BLOCKS, card_reader.peek(Card.parse("As")))
    run(card_reader.clear("NO_CARD", FLOORPERSON))
    assert card_reader.state == "ready"


def test_an_answer_that_arrives_after_a_fault_is_discarded():
    card_reader, driver = reader()

    async def scenario() -> None:
        driver.hold = asyncio.Event()
        peek = asyncio.ensure_future(card_reader.peek(Card.parse("As")))
        await asyncio.sleep(0)
        card_reader.apply(FaultRaised(FaultCode.TAMPER, "reader case opened"))
        driver.hold.set()
        with pytest.raises(RuleViolation, match="faulted mid-command: result discarded") as late:
            await peek
        assert late.value.rule == LATCH_BLOCKS

    run(scenario())
    assert card_reader.answer is None and card_reader.latch and card_reader.state == "uninspected"


def test_offline_reader_refuses_and_comes_back_inspected():
    card_reader, driver = reader()
    card_reader.apply(StateChanged(ConnectionState.BACKOFF, "no response"))
    assert card_reader.state == "offline"
    assert [f.code for f in card_reader.latch.faults] == ["LINK_LOST"], "a lost link latches"
    refused(LINK_REQUIRED, card_reader.peek(Card.parse("As")))
    card_reader.apply(StateChanged(ConnectionState.READY))
    assert card_reader.latch and card_reader.state == "ready", "the latch, not the state, blocks"
    refused(LATCH_BLOCKS, card_reader.peek(Card.parse("As")))
    run(card_reader.clear("LINK_LOST", FLOORPERSON))
    assert card_reader.state == "ready" and driver.clears == []


def test_decision_0026_the_readers_firmware_is_tampered_apart_from_its_case():
    """decision 0026: every simulated device's firmware image can be altered (the `tamper` fault of
    ``croupier sim``, the console's ``tamper on``) — the card reader too, whose own ``tamper`` is its
    case opened (a TAMPER fault). The two are told apart: before, the reader's case tamper hid the
    firmware one and a random ``tamper`` striking the reader crashed ``croupier sim``."""
    bench = Bench()
    approved = bench.personality.running_image
    bench.personality.tamper_firmware()
    assert bench.personality.running_image != approved and FaultCode.TAMPER not in bench.engine.latched
    bench.personality.reinstall_firmware()
    assert bench.personality.running_image == approved
