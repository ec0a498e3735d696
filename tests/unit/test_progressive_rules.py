"""The progressive system's rules (devices/progressive.py), each test named after the clause it proves.

The devices are the simulated controller and sign, reached through the real codec, host link and
device engine wired back to back in process (``Loopback``): the rules meet the real protocol with no
port, thread or timer, so every test is deterministic.
"""

from __future__ import annotations

import asyncio
import dataclasses
import random
import re
from hashlib import sha256

import pytest

from devices.equipment import FIRMWARE_UNVERIFIED
from devices.faults import Fault
from devices.progressive import Progressive, meter_problems
from devices.progressive_rules import (
    AWARD_TO_WAGER,
    CHIP_COUNT,
    KEYED_RESET,
    NEXT_ROUND,
    NO_MORE_BETS,
    READY_TO_DEAL,
    SIGN_SHOWS,
)
from drivers.authenticity import AuthenticityChecked, CheckKind, Trigger
from drivers.connection import ConnectionState, DeviceSwapped, StateChanged
from drivers.errors import CommandTimeout, DeviceRefused, NotConnected, OutcomeUnknown
from drivers.host_link import CommandRejected, EventReceived, HostLink, ReplyReceived
from drivers.progressive import MeterSignDriver, ProgressiveDriver
from drivers.protocol.classes.meter_sign import Shown
from drivers.protocol.classes.progressive import GetHits, Hit, HitsPage, LevelInfo, seat_mask, seats_in
from drivers.protocol.core import PROTOCOL_VERSION, DeviceClass, FaultCode, Hello, Identity
from drivers.protocol.fields import U8, ListOf, PayloadError
from drivers.protocol.message import Command, Event, Reply
from firmware_sim.engine import DeviceEngine
from firmware_sim.personality import Personality
from firmware_sim.progressive import ControllerPersonality, LevelConfig, SignPersonality
from tests.links import run
from vocabulary.operators import Operator, Role
from vocabulary.rules import RuleViolation

DEALER = Operator("dealer-7", Role.DEALER)
SUPERVISOR = Operator("supervisor-2", Role.SUPERVISOR)
KEY = "PROG-KEY-1"


class Loopback:
    """A DeviceConnection stand-in: HostLink and DeviceEngine back to back, no port and no thread."""

    def __init__(self, personality: Personality, name: str) -> None:
        self.name = name
        self.expected_class = personality.device_class
        self.state = ConnectionState.READY
        self.engine = DeviceEngine(personality, rng=random.Random(7))
        self.link = HostLink(self.engine.address)
        self.received: list[Event] = []
        self.accepted = False
        self.identity = self._exchange(Hello(session_id=1, protocol_version=PROTOCOL_VERSION))

    @property
    def personality(self):
        return self.engine.personality

    async def request(self, command: Command) -> Reply:
        if self.state is not ConnectionState.READY:
            raise NotConnected(f"{self.name}: link is {self.state.value}")
        return self._exchange(command)

    def accept_identity(self) -> None:
        """A supervisor accepts the unit answering (the real connection checks it again first)."""
        self.accepted = True

    async def wait_ready(self, timeout: float) -> None:
        if self.state is not ConnectionState.READY:
            await asyncio.sleep(timeout)
            raise NotConnected(f"{self.name}: not ready after {timeout} s")

    def _exchange(self, command: Command) -> Reply:
        self.link.submit(command, 0.0)
        data = self.link.data_to_send()
        while data:  # the command, then ACKs of the events the device sends behind its response
            self.engine.receive(data, 0.0)
            self.link.receive(self.engine.data_to_send(), 0.0)
            data = self.link.data_to_send()
        reply = None
        for outcome in self.link.outcomes():
            if isinstance(outcome, EventReceived):
                self.received.append(outcome.event)
            elif isinstance(outcome, ReplyReceived):
                reply = outcome.reply
            elif isinstance(outcome, CommandRejected):
                raise DeviceRefused(type(command).__name__, outcome.status.name, outcome.detail)
        assert reply is not None
        return reply


class Table:
    """A progressive system on loopbacks, with ``seats`` covered; events are fed to the rules by
    ``feed`` (as the table service feeds them from the connections' queues)."""

    def __init__(self, controller: ControllerPersonality | None = None, sign: SignPersonality | None = None):
        self.controller = Loopback(controller or ControllerPersonality(), "controller")
        self.sign = Loopback(sign or SignPersonality(), "sign")
        self.progressive = Progressive(
            ProgressiveDriver(self.controller), MeterSignDriver(self.sign), win_deadline=0.05
        )

    def cover(self, *seats: int) -> None:
        for seat in seats:
            self.controller.personality.cover(self.controller.engine, seat)

    def feed(self) -> None:
        for loop, apply in (
            (self.controller, self.progressive.apply),
            (self.sign, self.progressive.apply_sign),
        ):
            events, loop.received = loop.received, []
            for event in events:
                apply(event)

    async def locked_round(self, *seats: int) -> Progressive:
        """Synced, ``seats`` covered, locked and counted, dealing."""
        await self.progressive.sync()
        self.cover(*seats)
        await self.progressive.lock()
        self.progressive.chip_count(len(seats))
        self.progressive.begin_dealing()
        return self.progressive


def codes(progressive: Progressive) -> set[str]:
    return {fault.code for fault in progressive.latch.faults}


# -- 657a.9(a)(3): no more bets, lockout, chip count ---------------------------------------------------
def test_657a_9_a_3_no_card_is_dealt_before_the_lock_and_the_chip_count():
    async def scenario():
        table = Table()
        progressive = table.progressive
        with pytest.raises(RuleViolation) as offline:
            progressive.require_ready_to_deal()
        assert offline.value.rule is READY_TO_DEAL
        await progressive.sync()
        table.cover(2, 5)
        for step in (progressive.require_ready_to_deal, progressive.begin_dealing):
            with pytest.raises(RuleViolation, match="open_betting") as refused:
                step()
            assert refused.value.rule is READY_TO_DEAL
        round_state = await progressive.lock()
        assert (seats_in(round_state.accepted), round_state.count) == ((2, 5), 2)
        with pytest.raises(RuleViolation, match="locked"):
            progressive.require_ready_to_deal()
        progressive.chip_count(2)
        progressive.require_ready_to_deal()
        progressive.begin_dealing()
        progressive.require_ready_to_deal()
        assert progressive.state == "dealing" and not progressive.latch

    run(scenario())


def test_657a_9_a_3_a_chip_count_mismatch_latches_until_a_supervisor_clears():
    async def scenario():
        table = Table()
        progressive = table.progressive
        await progressive.sync()
        table.cover(1, 3, 6)
        await progressive.lock()
        for nonsense in (-1, 2.5, "3"):
            with pytest.raises(ValueError, match="a chip count is a whole number of chips"):
                progressive.chip_count(nonsense)
        assert not progressive.latch, "bad input is refused, not taken for a mismatch"
        with pytest.raises(RuleViolation, match=r"2 value chip.* 3 progressive wager") as mismatch:
            progressive.chip_count(2)
        assert mismatch.value.rule is CHIP_COUNT
        (fault,) = progressive.latch.faults
        assert (fault.code, fault.clause, fault.origin) == ("CHIP_COUNT_MISMATCH", "657a.9(a)(3)", "host")
        with pytest.raises(RuleViolation, match="latched CHIP_COUNT_MISMATCH"):
            progressive.chip_count(3)  # no recount past the latch
        with pytest.raises(RuleViolation, match=r"dealer-7 \(dealer\) may not clear"):
            await progressive.clear("CHIP_COUNT_MISMATCH", DEALER)
        with pytest.raises(RuleViolation):
            progressive.require_ready_to_deal()
        await progressive.clear("CHIP_COUNT_MISMATCH", SUPERVISOR)
        progressive.chip_count(3)
        progressive.require_ready_to_deal()

    run(scenario())


def test_657a_9_a_3_a_wager_after_the_lock_is_refused_and_recorded():
    async def scenario():
        table = Table()
        progressive = table.progressive
        await progressive.sync()
        table.cover(4)
        await progressive.lock()
        table.controller.personality.uncover(table.controller.engine, 4)  # collected by the dealer
        table.cover(2)  # too late
        await progressive.driver.read_sensors()  # the next exchange carries the events
        table.feed()
        (irregularity,) = progressive.irregularities
        assert irregularity.rule is NO_MORE_BETS and irregularity.rule.clause == "657a.9(a)(3)"
        assert "seat 2" in irregularity.detail and "round 1" in irregularity.detail
        assert progressive.covered == (2,)
        assert (await progressive.driver.read_round()).count == 1  # refused: not counted
        with pytest.raises(RuleViolation, match="no more bets refused") as again:
            await progressive.lock()
        assert again.value.rule is NO_MORE_BETS
        progressive.chip_count(1)

    run(scenario())


def test_657a_9_a_3_without_progressive_wagers_there_are_no_chips_to_count():
    async def scenario():
        table = Table()
        await table.progressive.sync()
        assert (await table.progressive.lock()).count == 0
        assert table.progressive.state == "reconciled"
        table.progressive.require_ready_to_deal()

    run(scenario())


def test_657a_9_a_3_a_lock_without_wagers_met_by_a_fault_is_reconciled_once_the_fault_is_cleared():
    """657a.9(a)(3): with no Progressive Payout Wager there are no chips to count, but the lock met a
    fault (the sign gone as the meters were shown): the system stays locked, unreconciled, while the
    fault holds the table. Once a supervisor clears it, dealing begins — before, begin_dealing was
    refused ("the progressive is locked") and threw the table out of the round."""

    async def scenario():
        table = Table()
        progressive = table.progressive
        await progressive.sync()
        table.sign.state = ConnectionState.BACKOFF
        assert (await progressive.lock()).count == 0
        assert progressive.state == "locked" and codes(progressive) == {"SIGN_LINK_LOST"}
        with pytest.raises(RuleViolation, match="latched SIGN_LINK_LOST"):
            progressive.begin_dealing()
        table.sign.state = ConnectionState.READY
        await progressive.clear("SIGN_LINK_LOST", SUPERVISOR)
        progressive.begin_dealing()
        assert progressive.state == "dealing"
        progressive.require_ready_to_deal()

    run(scenario())


def test_notes_5_2_betting_reopens_only_after_the_locked_round_is_reconciled():
    async def scenario():
        table = Table()
        progressive = table.progressive
        await progressive.sync()
        table.cover(1)
        await progressive.lock()
        with pytest.raises(
            RuleViolation, match="opening betting refused: the progressive is locked"
        ) as early:
            await progressive.open_round()
        assert early.value.rule is NEXT_ROUND
        progressive.chip_count(1)
        round_state = await progressive.open_round()
        assert (round_state.round, round_state.locked, progressive.state) == (2, False, "open_betting")

    run(scenario())


# -- awards, jackpot lock, keyed reset (605a.7(a) and vendor practice, "jackpot lock") ------------------
def test_657a_9_a_3_a_controller_back_from_a_dropout_keeps_its_round_where_it_was():
    """LINK_LOST cleared with the controller back: read again, a round being dealt goes on being
    dealt (its awards may follow), and after it betting opens on the next round."""

    async def scenario():
        table = Table()
        progressive = await table.locked_round(3)
        progressive.apply(StateChanged(ConnectionState.READY, "connected"))

        async def dropout() -> None:
            table.controller.state = ConnectionState.BACKOFF
            progressive.apply(StateChanged(ConnectionState.BACKOFF, "no response after 4 attempts"))
            assert progressive.state == "offline" and codes(progressive) == {"LINK_LOST"}
            table.controller.state = ConnectionState.READY
            progressive.apply(StateChanged(ConnectionState.READY, "back"))
            await progressive.clear("LINK_LOST", SUPERVISOR)

        await dropout()
        assert progressive.state == "dealing" and not progressive.latch
        award = await progressive.award(1, 3)
        assert award.seat == 3
        await progressive.reset_level(1, table.controller.personality.reset_key)
        await dropout()  # between rounds: the last round's lock is reconciled, so betting opens
        await progressive.open_round()
        assert progressive.state == "open_betting"

    run(scenario())


def test_decision_0017_a_controller_lost_again_before_it_is_read_keeps_link_lost_latched():
    """decision 0017, 657a.9(a)(3): the clear of LINK_LOST reads the controller again; when the link
    goes again before that read, LINK_LOST stays latched and the clear is refused, so the table holds
    rather than going on with the controller offline (before, the latch was released first and the
    next "no more bets" was refused out of the table)."""

    async def scenario():
        table = Table()
        progressive = await table.locked_round(3)
        progressive.apply(StateChanged(ConnectionState.READY, "connected"))
        progressive.apply(StateChanged(ConnectionState.BACKOFF, "no response after 4 attempts"))
        progressive.apply(StateChanged(ConnectionState.READY, "back"))
        table.controller.state = ConnectionState.BACKOFF  # gone again before it is read
        with pytest.raises(NotConnected):
            await progressive.clear("LINK_LOST", SUPERVISOR)
        assert progressive.state == "offline" and codes(progressive) == {"LINK_LOST"}
        table.controller.state = ConnectionState.READY
        await progressive.clear("LINK_LOST", SUPERVISOR)
        assert progressive.state == "dealing" and not progressive.latch

    run(scenario())


def test_657a_9_a_3_a_lock_whose_meter_read_is_lost_is_reconciled_not_locked_again():
    """657a.9(a)(3), decision 0016: the controller locks at "no more bets" and its link goes before
    the levels' meters are read: the lock reports an unknown outcome (asking it again would be
    refused, the system being locked, and crashed the table out of the round), and once the
    controller is back ``reconcile_lock`` takes the round as locked with its accepted wagers."""

    async def scenario():
        table = Table()
        progressive = table.progressive
        await progressive.sync()
        table.cover(3)
        driver, level = progressive.driver, progressive.driver.level

        async def lost(number: int):
            driver.level = level  # the link is back for the reconciliation
            raise CommandTimeout("controller: GetLevel: no response after 4 attempts")

        driver.level = lost
        with pytest.raises(OutcomeUnknown, match="locked, its meters not read"):
            await progressive.lock()
        assert progressive.state == "locked"
        state = await progressive.reconcile_lock()
        assert state.locked and state.count == 1 and progressive.state == "locked"
        progressive.chip_count(1)
        assert progressive.state == "reconciled"

    run(scenario())


def test_notes_657a_1_an_award_goes_only_to_a_seat_whose_wager_was_accepted():
    async def scenario():
        table = Table()
        progressive = await table.locked_round(3)
        executions = table.controller.engine.executions
        with pytest.raises(RuleViolation, match="seat 4 has no progressive wager accepted") as refused:
            await progressive.award(1, 4)
        assert refused.value.rule is AWARD_TO_WAGER
        assert table.controller.engine.executions == executions, "the device was never asked"

    run(scenario())


def test_605a_7_a_jackpot_lock_freezes_the_level_until_the_keyed_reset():
    async def scenario():
        table = Table()
        progressive = await table.locked_round(3)
        award = await progressive.award(1, 3)
        assert award.amount_cents == 1_000_000 + 100 * 1000 // 10_000  # reset + one wager at 10 %
        level = progressive.levels[1]
        assert level.frozen and level.value_cents == 1_000_000 and level.wins_cents == award.amount_cents
        assert table.sign.personality.shown[1] == Shown(1, award.amount_cents, True, 3)
        with pytest.raises(RuleViolation, match=r"level\(s\) 1 jackpot-locked") as frozen:
            await progressive.open_round()
        assert frozen.value.rule is KEYED_RESET
        with pytest.raises(DeviceRefused, match="wrong reset key") as wrong:
            await progressive.reset_level(1, "a guess")
        assert "a guess" not in str(wrong.value)
        assert progressive.levels[1].frozen and progressive.wins[1] == award
        info = await progressive.reset_level(1, KEY)
        assert not info.frozen and 1 not in progressive.wins
        assert table.sign.personality.shown[1] == Shown(1, 1_000_000, False, 0)
        with pytest.raises(RuleViolation, match="level 1 is not jackpot-locked"):
            await progressive.reset_level(1, KEY)
        assert (await progressive.open_round()).round == 2

    run(scenario())


def test_605a_7_a_simultaneous_hits_are_settled_in_the_order_awarded():
    async def scenario():
        table = Table()
        progressive = await table.locked_round(2, 5)
        first = await progressive.award(2, 5)
        second = await progressive.award(2, 2)
        assert first.amount_cents == 50_000 + 200 * 500 // 10_000
        assert second.amount_cents == 50_000, "the second hit gets the value the level restarted at"
        assert (first.hit_number, second.hit_number) == (1, 2)
        with pytest.raises(DeviceRefused, match="seat 5 was already paid level 2 in round 1"):
            await progressive.award(2, 5)
        hits = await progressive.driver.hits(2)
        assert [(hit.number, hit.seat, hit.amount_cents) for hit in hits] == [(2, 2, 50_000), (1, 5, 50_010)]
        assert not progressive.latch

    run(scenario())


# -- meters (605a.7(a), New Jersey 13:69E-1.39A, New York 9 NYCRR 5320.8) ------------------------------------
def test_605a_7_a_the_meter_equation_holds_through_limits_overflow_and_hits():
    async def scenario():
        small = LevelConfig(reset_cents=1_000, increment_bp=3_333, limit_cents=1_500, reserve_bp=77)
        table = Table(ControllerPersonality(seats=7, wager_cents=125, level_configs=(small,)))
        progressive = table.progressive
        await progressive.sync()
        rng = random.Random(11)
        overflowed = 0
        for _ in range(12):
            table.cover(*rng.sample(range(1, 8), rng.randint(0, 7)))
            round_state = await progressive.lock()  # every meter read is checked: a fault would latch
            overflowed = max(overflowed, progressive.levels[1].overflow_cents)
            if round_state.count:  # with none there are no chips to count
                progressive.chip_count(round_state.count)
            progressive.begin_dealing()
            if round_state.count and rng.random() < 0.4:
                await progressive.award(1, seats_in(round_state.accepted)[0])
                await progressive.reset_level(1, KEY)
            for seat in range(1, 8):
                table.controller.personality.uncover(table.controller.engine, seat)
            await progressive.open_round()
        level = progressive.levels[1]
        assert meter_problems(level) == [] and not progressive.latch
        assert overflowed > 0, "the limit was reached and the overflow meter used"
        assert level.hits >= 2 and level.wins_cents > level.hits * 1_000, "hits carried the overflow"

    run(scenario())


GOOD_LEVEL = LevelInfo(
    level=1,
    reset_cents=1_000,
    increment_bp=1_000,
    reserve_bp=100,
    limit_cents=5_000,
    value_cents=1_050,
    in_cents=2_500,
    hits=1,
    wins_cents=1_200,
    overflow_cents=0,
    reserve_cents=25,
    frozen=False,
)


@pytest.mark.parametrize(
    ("change", "problem"),
    [
        ({"value_cents": 1_051}, "value \\+ overflow \\+ wins = 2251 cents, resets \\+ contributions = 2250"),
        ({"wins_cents": 1_100}, "value \\+ overflow \\+ wins"),
        ({"reserve_cents": 30}, "reserve 30 cents, 25 by its rate"),
        ({"value_cents": 5_100, "wins_cents": 150}, "value 5100 cents outside reset..limit"),
    ],
)
def test_605a_7_a_meter_problems_names_each_disagreement(change, problem):
    assert meter_problems(GOOD_LEVEL) == []
    found = meter_problems(dataclasses.replace(GOOD_LEVEL, **change))
    assert any(re.search(problem, text) for text in found), found


def test_605a_7_a_a_controller_meter_error_latches_meter_mismatch():
    async def scenario():
        table = Table(ControllerPersonality(meter_error_cents=7))
        await table.progressive.sync()
        table.cover(1)
        await table.progressive.lock()
        (fault,) = table.progressive.latch.faults
        assert fault.code == "METER_MISMATCH" and fault.clause == "605a.7(a)"
        assert "level 1: value + overflow + wins" in fault.detail
        with pytest.raises(RuleViolation, match="latched METER_MISMATCH"):
            table.progressive.chip_count(1)

    run(scenario())


def test_605a_7_a_the_sign_must_show_the_meter_kept():
    async def scenario():
        table = Table(sign=SignPersonality(display_error_cents=100))
        await table.progressive.sync()
        (fault,) = table.progressive.latch.faults
        assert fault.code == "METER_MISMATCH"
        assert "the sign shows 1000100 cents for level 1, the meter is 1000000" in fault.detail

    run(scenario())


def test_605a_7_a_hit_history_keeps_the_last_25_newest_first_across_pages():
    async def scenario():
        table = Table()
        progressive = await table.locked_round(*range(1, 8))
        for round_number in range(1, 5):
            for seat in range(1, 8):
                await progressive.award(2, seat)
            await progressive.reset_level(2, KEY)
            assert (await progressive.open_round()).round == round_number + 1
            await progressive.lock()  # the seats stay covered: all seven again
            progressive.chip_count(7)
            progressive.begin_dealing()
        hits = await progressive.driver.hits(2)
        assert [hit.number for hit in hits] == list(range(28, 3, -1))
        assert [hit.round for hit in hits[:8]] == [4] * 7 + [3]
        assert progressive.levels[2].hits == 28 and not progressive.latch
        with pytest.raises(DeviceRefused, match="page 3 is past the 25 hit"):
            await progressive.driver.call(GetHits(2, 3), HitsPage)

    run(scenario())


# -- the sign (605a.7(a): a visible meter; Arkansas: a win shown within 30 seconds) --------------------------
def test_605a_7_a_a_sign_gone_or_too_slow_for_a_win_latches_sign_link_lost():
    async def scenario():
        table = Table()
        progressive = await table.locked_round(6)
        table.sign.state = ConnectionState.BACKOFF  # gone, before its connection has said so
        award = await progressive.award(1, 6)  # the money is paid; the win cannot be shown
        (fault,) = progressive.latch.faults
        assert fault.code == "SIGN_LINK_LOST" and fault.clause == SIGN_SHOWS.clause
        assert "level 1 win not shown" in fault.detail
        progressive.apply_sign(StateChanged(ConnectionState.BACKOFF, "no response after 4 attempts"))
        assert codes(progressive) == {"SIGN_LINK_LOST"}
        with pytest.raises(RuleViolation, match="the award refused: latched SIGN_LINK_LOST"):
            await progressive.award(2, 6)
        with pytest.raises(RuleViolation, match="SIGN_LINK_LOST stays: sign is backoff"):
            await progressive.clear("SIGN_LINK_LOST", SUPERVISOR)
        table.sign.state = ConnectionState.READY
        await progressive.clear("SIGN_LINK_LOST", SUPERVISOR)
        assert table.sign.personality.shown[1] == Shown(1, award.amount_cents, True, 6)
        assert not progressive.latch

    run(scenario())


def sign_unit(serial: str, image: bytes) -> Identity:
    return Identity(
        DeviceClass.METER_SIGN, "Croupier", "SIGN", serial, "1.0", 1, (), sha256(image).digest(), 7
    )


def test_605a_4_c_a_meter_sign_swapped_for_another_unit_latches_until_a_supervisor_accepts_it():
    """605a.4(c), decision 0017: the meter sign answering is another unit: SIGN_DEVICE_SWAPPED latches
    on its progressive, naming the old and the new sign (model, serial number, firmware hash); a
    dealer may not clear it; a supervisor clears it only with the sign's link up, accepting the new
    unit after the host's checks."""

    async def scenario():
        table = Table()
        await table.progressive.sync()
        old, new = sign_unit("SG-1", b"sign fw"), sign_unit("SG-2", b"sign fw")
        table.progressive.apply_sign(DeviceSwapped(old, new))
        (fault,) = table.progressive.latch.faults
        assert (fault.code, fault.clause, fault.origin) == (
            "SIGN_DEVICE_SWAPPED",
            "605a.4(c); decision 0017",
            "host",
        )
        assert (
            "s/n SG-1" in fault.detail
            and "s/n SG-2" in fault.detail
            and new.firmware_hash.hex() in fault.detail
        )
        with pytest.raises(RuleViolation):
            await table.progressive.clear("SIGN_DEVICE_SWAPPED", DEALER)
        table.sign.state = ConnectionState.BACKOFF
        with pytest.raises(RuleViolation, match="SIGN_DEVICE_SWAPPED stays: sign is backoff"):
            await table.progressive.clear("SIGN_DEVICE_SWAPPED", SUPERVISOR)
        table.sign.state = ConnectionState.READY
        await table.progressive.clear("SIGN_DEVICE_SWAPPED", SUPERVISOR)
        assert table.sign.accepted and not table.progressive.latch

    run(scenario())


def test_a_fault_the_sign_raises_latches_and_is_cleared_on_the_sign():
    async def scenario():
        table = Table()
        await table.progressive.sync()
        table.sign.engine.raise_fault(FaultCode.TAMPER, "sign cabinet opened")
        await table.progressive.sign.display(1, 1_000_000)  # the event rides behind a response
        table.feed()
        (fault,) = table.progressive.latch.faults
        assert (fault.code, fault.origin) == ("SIGN_TAMPER", "sign")
        await table.progressive.clear("SIGN_TAMPER", SUPERVISOR)
        assert not table.sign.engine.latched and not table.progressive.latch

    run(scenario())


def test_a_failed_wager_sensor_blocks_the_lock_until_repaired_and_cleared():
    async def scenario():
        table = Table()
        progressive = table.progressive
        await progressive.sync()
        table.controller.personality.fail_sensor(table.controller.engine, 4)
        assert (await progressive.driver.read_sensors()).failed == seat_mask([4])
        table.feed()
        assert codes(progressive) == {"SENSOR"}
        with pytest.raises(RuleViolation, match="no more bets refused: latched SENSOR"):
            await progressive.lock()
        with pytest.raises(DeviceRefused, match="FAULT_LATCHED"):
            await progressive.driver.lock()  # and the controller refuses on its own
        with pytest.raises(DeviceRefused, match="condition still present"):
            await progressive.clear("SENSOR", SUPERVISOR)
        table.controller.personality.repair_sensor(4)
        await progressive.clear("SENSOR", SUPERVISOR)
        table.cover(4)
        assert (await progressive.lock()).count == 1

    run(scenario())


# -- the wire types ---------------------------------------------------------------------------------------
def test_seat_masks_name_seats_from_one():
    assert seat_mask([1, 3, 16]) == 0b1000_0000_0000_0101
    assert seats_in(0b1000_0000_0000_0101) == (1, 3, 16)
    with pytest.raises(ValueError, match=r"seat 17 is not 1\.\.16"):
        seat_mask([17])


def test_a_hits_page_whose_columns_disagree_yields_no_hits():
    page = HitsPage(level=1, page=0, stored=1, numbers=(1,), rounds=(9,), seats=(3,), amounts=(500,))
    payload = page.to_payload()
    assert payload[13:15] == ListOf(U8).encode((3,))  # after level, page, stored and two u32 columns
    two_seats = HitsPage.from_payload(payload[:13] + ListOf(U8).encode((3, 4)) + payload[15:])
    assert page.hits == (Hit(1, 9, 3, 500),)
    with pytest.raises(PayloadError, match="HitsPage: its columns hold 1, 1, 2, 1 entries"):
        _ = two_seats.hits


@pytest.mark.parametrize(
    ("step", "command", "raised"),
    [
        ("open", "new_round", "LinkLost"),
        ("lock", "lock", "OutcomeUnknown"),
        ("award", "award", "OutcomeUnknown"),
    ],
)
def test_decision_0016_a_link_that_goes_as_the_controller_answers_is_a_lost_link_not_a_crash(
    step, command, raised
):
    """657a.9(a)(3), decision 0016: the controller answers, and its link goes before the answer is
    taken (the connection's state change is applied while the command is out). The machine is
    offline, so the step is reported as a lost link (opening betting, asked again once the
    controller is back) or an unknown outcome (the lock and the award move money: reconciled from
    the controller, never resent) — before, the trigger ran from "offline" and a MachineError threw
    the table out of the round. Once LINK_LOST is cleared the step finishes exactly once."""

    async def scenario():
        table = Table()
        progressive = table.progressive
        progressive.apply(StateChanged(ConnectionState.READY, "connected"))
        if step == "award":
            await table.locked_round(3)
        else:
            await progressive.sync()
            if step == "lock":
                table.cover(3)
        driver = progressive.driver
        answered = getattr(driver, command)

        async def lost_as_answered(*args):
            result = await answered(*args)
            progressive.apply(StateChanged(ConnectionState.BACKOFF, "no response after 4 attempts"))
            return result

        setattr(driver, command, lost_as_answered)
        act = {
            "open": progressive.open_round,
            "lock": progressive.lock,
            "award": lambda: progressive.award(1, 3),
        }[step]
        with pytest.raises(Exception) as lost:
            await act()
        assert type(lost.value).__name__ == raised and "the link went as" in str(lost.value)
        assert progressive.state == "offline" and codes(progressive) == {"LINK_LOST"}
        setattr(driver, command, answered)
        progressive.apply(StateChanged(ConnectionState.READY, "back"))
        await progressive.clear("LINK_LOST", SUPERVISOR)
        if step == "open":
            await progressive.open_round()
            assert progressive.state == "open_betting"
        elif step == "lock":
            state = await progressive.reconcile_lock()
            assert state.locked and state.count == 1 and progressive.state == "locked"
        else:
            award = await progressive.reconcile_award(1, 3)
            assert award.seat == 3 and progressive.frozen_levels == [1]
            assert table.controller.personality.levels[0].history[0].number == award.hit_number
            assert len(table.controller.personality.levels[0].history) == 1  # paid once

    run(scenario())


def test_decision_0026_a_signs_firmware_fault_restored_after_a_restart_waits_for_the_signs_check():
    """461a.20(b), decision 0026: SIGN_FIRMWARE_UNVERIFIED restored after a restart (the state
    database keeps latched faults) clears only once the SIGN has passed a check, not on the
    controller's passing start-up check (before, the device it named was known only in memory and
    the controller's check was taken: found in review)."""

    def check(device: str) -> AuthenticityChecked:
        unit = sign_unit("SG-1", b"fw")
        return AuthenticityChecked(
            device, Trigger.STARTUP, CheckKind.HASH, unit, ("ab",), "ab", True, "ok", 0.0
        )

    async def scenario():
        table = Table()
        progressive = table.progressive
        await progressive.sync()
        code = "SIGN_FIRMWARE_UNVERIFIED"
        progressive.latch.latch(Fault(code, "restored", FIRMWARE_UNVERIFIED.clause, "host"))
        progressive.last_check[progressive.name] = check(progressive.name)  # the controller passed
        with pytest.raises(RuleViolation, match=f"verify {progressive.sign.name}") as refused:
            await progressive.clear(code, SUPERVISOR)
        assert refused.value.rule is FIRMWARE_UNVERIFIED and codes(progressive) == {code}
        progressive.last_check[progressive.sign.name] = check(progressive.sign.name)
        await progressive.clear(code, SUPERVISOR)
        assert not progressive.latch

    run(scenario())
