"""The hole-card reader's rules: when a peek is allowed, what it may tell, and the daily inspection.

672a.7(g): with an ace or a 10-value card up, the dealer learns from the reader whether the hole
card gives the dealer a Blackjack; the hole card's rank stays unknown to everyone until it is
turned up (672a.7(k)). 673a.2(d) (analog): a floorperson inspects the reader for tampering and
working order at the start of each gaming day. So the reader here:

- takes the dealer's up card (a Card, which is face up and public) and peeks only for an ace or a
  10-value card; any other up card is refused before a byte is sent;
- keeps the answer, one bool, only until the round ends, and gives one answer per round: a second
  peek claiming the other up card would tell whether the hole card is an ace, a 10-value card or
  neither, more than the rules let anyone know;
- refuses peeks on a gaming day without a passed inspection of this unit (by serial number): a
  supervisor's self-test record, voided by a tamper alarm or a sensor failure;
- latches faults as all equipment does (devices/equipment.py): only a supervisor clears them.

The machine is written as every device's is (decision 0030): a guard is a condition that raises
RuleViolation naming its clause, so a refusal says why. Device I/O cannot run
inside a synchronous callback, so each I/O runs while the reader is in ``peeking`` or
``inspecting``, between the trigger that checked the rules and the one that takes the result.
Events applied meanwhile (a lost link) move the reader away, or (a fault) latch beside the state,
and the late result is then discarded. ``settle`` derives the resting state from two facts, in
priority order: link up, inspected today. A latched fault is not a state (decision 0009): it is
the latch beside the state, and every guard refuses while it holds.

States: offline, uninspected, inspecting, ready, peeking.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta

import structlog

from devices.equipment import LINK_REQUIRED, Equipment
from devices.faults import LATCH_BLOCKS, FaultLatch
from drivers.card_reader import CardReaderDriver
from drivers.connection import ConnectionState
from drivers.protocol.classes.card_reader import SelfTestCode, SelfTestReport, peek_class
from drivers.protocol.core import FaultCode, FaultRaised
from vocabulary.cards import Card
from vocabulary.machines import DeclaredMachine, Spec, Trigger
from vocabulary.operators import Operator, Role
from vocabulary.rules import Rule, RuleViolation

PEEK_ONLY_ON_ACE_OR_TEN = Rule(
    "672a.7(g)", "the hole card is peeked at only when the dealer's up card is an ace or a 10-value card"
)
ONE_ANSWER_PER_ROUND = Rule(
    "672a.7(g); decision 0018",
    "the reader answers blackjack or not once per round; the hole card's rank stays secret",
)
DAILY_INSPECTION = Rule(
    "673a.2(d) (analog)",
    "the reader is inspected for tampering and working order at the start of each gaming day before use",
)
FLOORPERSON_INSPECTS = Rule("673a.2(d) (analog)", "the reader's daily inspection is made by a floorperson")
WORKING_ORDER = Rule("673a.2(d) (analog)", "an inspection passes only with a passed self-test")
INSPECTION_VOIDED = Rule(
    "673a.2(d) (analog); decision 0017",
    "a tamper alarm or a failed sensor voids the day's inspection: the reader is inspected again",
)

#: Faults after which the reader can no longer be taken as inspected (tampering, working order).
VOIDS_INSPECTION = frozenset({FaultCode.TAMPER, FaultCode.SENSOR})

OFFLINE = "offline"  # the link is not up
UNINSPECTED = "uninspected"  # up, but no passed inspection of this unit today
INSPECTING = "inspecting"  # the floorperson's self-test is running
READY = "ready"  # inspected today: peeks allowed (unless a fault is latched)
PEEKING = "peeking"  # a peek is in flight
STATES = [OFFLINE, UNINSPECTED, INSPECTING, READY, PEEKING]
_IDLE = [OFFLINE, UNINSPECTED, READY]

TRANSITIONS: list[Spec] = [
    # The resting state: link first, then the day's inspection.
    {"trigger": "settle", "source": "*", "dest": OFFLINE, "unless": "_link_is_ready"},
    {"trigger": "settle", "source": _IDLE, "dest": UNINSPECTED, "unless": "_inspected_today"},
    {"trigger": "settle", "source": _IDLE, "dest": READY},
    # A peek: the rules, then the device's answer (or its failure).
    {
        "trigger": "begin_peek",
        "source": "*",
        "dest": PEEKING,
        "conditions": [
            "_require_peekable_up_card",
            "_require_one_answer_per_round",
            "_require_link",
            "_require_no_fault",
            "_require_inspection",
        ],
    },
    # A result that arrives after the link went (offline) or a fault latched is not trusted.
    {
        "trigger": "end_peek",
        "source": PEEKING,
        "dest": READY,
        "conditions": "_has_latched_fault",
        "after": "_refuse_late_result",
    },
    {"trigger": "end_peek", "source": PEEKING, "dest": READY, "after": "_keep_answer"},
    {"trigger": "end_peek", "source": OFFLINE, "dest": None, "before": "_refuse_late_result"},
    {"trigger": "abort_peek", "source": PEEKING, "dest": READY},
    {"trigger": "abort_peek", "source": OFFLINE, "dest": None},
    # The daily inspection: who, then the self-test's verdict.
    {
        "trigger": "begin_inspection",
        "source": "*",
        "dest": INSPECTING,
        "conditions": ["_require_floorperson", "_require_link", "_require_no_fault", "_require_no_peek"],
    },
    {
        "trigger": "finish_inspection",
        "source": INSPECTING,
        "dest": UNINSPECTED,
        "conditions": "_has_latched_fault",
        "after": "_refuse_late_result",
    },
    {
        "trigger": "finish_inspection",
        "source": INSPECTING,
        "dest": READY,
        "conditions": "_self_test_passed",
        "after": "_accept_inspection",
    },
    {"trigger": "finish_inspection", "source": INSPECTING, "dest": UNINSPECTED, "after": "_void"},
    {"trigger": "finish_inspection", "source": OFFLINE, "dest": None, "before": "_refuse_late_result"},
    {"trigger": "abort_inspection", "source": INSPECTING, "dest": UNINSPECTED},
    {"trigger": "abort_inspection", "source": OFFLINE, "dest": None},
]


@dataclass(frozen=True)
class InspectionRecord:
    """One start-of-day inspection: which unit, by whom, when, and what its self-test said."""

    gaming_day: date
    at: datetime
    inspector: str
    serial_number: str
    self_test: SelfTestReport

    @property
    def passed(self) -> bool:
        return self.self_test.passed


def _local_now() -> datetime:
    return datetime.now().astimezone()


class CardReader(Equipment[CardReaderDriver]):
    """A hole-card reader under the peek rules. ``apply`` it the driver's events in order."""

    state: str  # set by the machine
    # The machine's triggers, which it binds (vocabulary/machines.py; decision 0030).
    settle: Trigger
    begin_peek: Trigger
    end_peek: Trigger
    abort_peek: Trigger
    begin_inspection: Trigger
    finish_inspection: Trigger
    abort_inspection: Trigger

    def __init__(
        self,
        driver: CardReaderDriver,
        latch: FaultLatch | None = None,
        *,
        clock: Callable[[], datetime] = _local_now,
        gaming_day_starts: time = time(6, 0),
    ) -> None:
        super().__init__(driver, latch)
        self.inspections: list[InspectionRecord] = []  # every inspection, passed or not
        self._clock = clock
        self._day_offset = timedelta(hours=gaming_day_starts.hour, minutes=gaming_day_starts.minute)
        self._valid: InspectionRecord | None = None
        self._answer: bool | None = None
        self.log = structlog.get_logger("croupier.card_reader").bind(device=self.name)
        DeclaredMachine(
            model=self,
            model_override=True,
            states=STATES,
            transitions=TRANSITIONS,
            initial=OFFLINE,
            auto_transitions=False,
        )

    # -- what the table sees ----------------------------------------------------------------------
    @property
    def answer(self) -> bool | None:
        """This round's answer, True for a dealer Blackjack; None before a peek or after the round."""
        return self._answer

    @property
    def inspection(self) -> InspectionRecord | None:
        """The passed inspection the reader is working under today, if any."""
        return self._valid if self._inspected_today() else None

    def gaming_day(self, when: datetime) -> date:
        return (when - self._day_offset).date()

    # -- actions ----------------------------------------------------------------------------------
    async def peek(self, up_card: Card) -> bool:
        """Ask the reader whether the hole card in its slot gives the dealer a Blackjack."""
        self.settle()
        up = peek_class(up_card)
        try:
            self.begin_peek(up_card=up_card)
        except RuleViolation as exc:
            self.log.warning("peek refused", rule=exc.rule.clause, detail=exc.detail)
            raise
        assert up is not None  # begin_peek refused every other up card
        try:
            blackjack = await self.driver.peek(up)
        except BaseException:  # a refusal, a lost link, a cancelled task: nothing was learned
            self.abort_peek()
            self.settle()
            raise
        try:
            self.end_peek(blackjack=blackjack)
        except RuleViolation:
            self.settle()  # the late answer is discarded; the reader rests as the facts say
            raise
        self.log.info("peek answered", blackjack=blackjack)
        return blackjack

    def end_round(self) -> None:
        """The round is over (672a.7(k): the hole card is turned up): forget the answer."""
        if self._peek_in_flight():
            raise RuleViolation(ONE_ANSWER_PER_ROUND, "a peek is in flight: the round cannot end before it")
        self._answer = None

    async def record_inspection(self, inspector: Operator) -> InspectionRecord:
        """The start-of-day inspection: a floorperson runs the reader's self-test; a pass makes the
        reader usable for the rest of the gaming day. A failed self-test is recorded and raised."""
        self.settle()
        self.begin_inspection(inspector=inspector)
        try:
            report = await self.driver.self_test()
        except BaseException:
            self.abort_inspection()
            self.settle()
            raise
        now = self._clock()
        identity = self.driver.conn.identity
        record = InspectionRecord(
            gaming_day=self.gaming_day(now),
            at=now,
            inspector=inspector.ident,
            serial_number=identity.serial_number if identity is not None else "",
            self_test=report,
        )
        self.inspections.append(record)
        try:
            self.finish_inspection(record=record)
        except RuleViolation:
            self.settle()  # the late verdict is discarded; the reader rests as the facts say
            raise
        self.log.info(
            "reader inspection recorded",
            inspector=record.inspector,
            gaming_day=record.gaming_day.isoformat(),
            passed=record.passed,
            code=SelfTestCode(report.code).name,
        )
        if not record.passed:
            raise RuleViolation(
                WORKING_ORDER,
                f"inspection by {inspector.ident} failed: self-test {SelfTestCode(report.code).name}",
            )
        return record

    def apply(self, event: object) -> None:
        super().apply(event)
        if isinstance(event, FaultRaised) and event.code in VOIDS_INSPECTION and self._valid is not None:
            self.log.warning(
                "reader inspection voided", rule=INSPECTION_VOIDED.clause, fault=FaultCode(event.code).name
            )
            self._void()
        self.settle()

    async def clear(self, code: str, operator: Operator) -> None:
        await super().clear(code, operator)
        self.settle()

    # -- facts the resting state is derived from ---------------------------------------------------
    def _link_is_ready(self) -> bool:
        return self.link is ConnectionState.READY

    def _has_latched_fault(self, **_: object) -> bool:
        return bool(self.latch)

    def _peek_in_flight(self) -> bool:
        """A peek whose answer will be taken: one that a fault overtook will be discarded."""
        return self.state == PEEKING and not self.latch

    def _inspected_today(self) -> bool:
        identity = self.driver.conn.identity
        return (
            self._valid is not None
            and identity is not None
            and self._valid.serial_number == identity.serial_number
            and self._valid.gaming_day == self.gaming_day(self._clock())
        )

    # -- guards: each raises RuleViolation naming its clause -----------------------------------------
    def _require_peekable_up_card(self, up_card: Card) -> bool:
        if peek_class(up_card) is None:
            raise RuleViolation(
                PEEK_ONLY_ON_ACE_OR_TEN, f"no peek with {up_card} up: neither an ace nor a 10-value card"
            )
        return True

    def _require_one_answer_per_round(self, **_: object) -> bool:
        if self._peek_in_flight():
            raise RuleViolation(ONE_ANSWER_PER_ROUND, "a peek is already in flight")
        if self._answer is not None:
            raise RuleViolation(ONE_ANSWER_PER_ROUND, "this round's peek was answered; end the round first")
        return True

    def _require_link(self, **_: object) -> bool:
        if not self._link_is_ready():
            raise RuleViolation(LINK_REQUIRED, f"{self.name} is offline")
        return True

    def _require_no_fault(self, **_: object) -> bool:
        self.latch.require_clear(f"use of {self.name}")
        return True

    def _require_inspection(self, **_: object) -> bool:
        if not self._inspected_today():
            day = self.gaming_day(self._clock()).isoformat()
            raise RuleViolation(
                DAILY_INSPECTION, f"{self.name} has no passed inspection for gaming day {day}"
            )
        return True

    def _require_floorperson(self, inspector: Operator) -> bool:
        if inspector.role is not Role.SUPERVISOR:
            raise RuleViolation(
                FLOORPERSON_INSPECTS, f"{inspector.ident} ({inspector.role.value}) may not inspect the reader"
            )
        return True

    def _require_no_peek(self, **_: object) -> bool:
        if self.state in (PEEKING, INSPECTING):
            raise RuleViolation(DAILY_INSPECTION, f"{self.name} is {self.state}: inspect it when it is idle")
        return True

    def _self_test_passed(self, record: InspectionRecord) -> bool:
        return record.passed

    # -- records ---------------------------------------------------------------------------------
    def _keep_answer(self, blackjack: bool) -> None:
        self._answer = blackjack

    def _accept_inspection(self, record: InspectionRecord) -> None:
        self._valid = record

    def _void(self, **_: object) -> None:
        self._valid = None

    def _refuse_late_result(self, **_: object) -> None:
        """An answer or a self-test that arrives after a fault or a lost link is not trusted."""
        if self.state == OFFLINE:
            raise RuleViolation(LINK_REQUIRED, f"{self.name} went offline mid-command: result discarded")
        raise RuleViolation(LATCH_BLOCKS, f"{self.name} faulted mid-command: result discarded")
