"""The automated card shuffler's rules: a batch is counted before play, and only a right one plays.

One batch's life in the shuffler, as a transitions machine:

    idle --start_shuffle--> shuffling --shuffled--> ready | failed
    ready --hold--> held
    ready | held --start_delivery--> delivering --delivered--> idle | failed
    failed --batch_removed--> idle          (after a supervisor's clear)

A wrong count or a foreign card latches a fault and takes the batch out of play; only a supervisor
clears it, and the device refuses the clear while the batch is still in its output tray (decision
0017: a wrong count latches a fault, takes the batch out of play and needs a supervisor; no dealer
override). Batches alternate at the shoe (633a.3(b), 673a.3(b), analog). Non-random modes are
refused while the table is open, here and on the device (decision 0017).

Why the operations are split: the machine is plain and synchronous (decision 0019), the device
I/O is async. A card-moving operation is therefore a request trigger whose conditions check the
rules (raising RuleViolation with the clause) and which enters an in-flight state, so the machine
says where the batch is while the device works; then the await on the driver; then a completion
trigger carrying the device's answer, whose conditions choose the state it lands in. A refusal goes
back; an unknown outcome takes the batch out of play (docs/protocol.md §5.6). Settings that move no
card (configure, mode, table open) are checked with ``may_trigger`` before the device is asked
and committed by the same trigger once it has answered.

Secrecy: the shuffled order is held as a SealedOrder, whose repr shows the commitment only; no log
line, exception or irregularity here carries a card.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Mapping
from dataclasses import dataclass
from typing import TypeVar

import structlog
from transitions import EventData, MachineError

from devices.equipment import (
    FIRMWARE_UNVERIFIED_CODE,
    IMPOSSIBLE_COUNT,
    IMPOSSIBLE_COUNT_CODE,
    Equipment,
)
from devices.faults import Fault, FaultLatch
from drivers.errors import DeviceRefused, LinkLost, NotConnected
from drivers.protocol.classes.shuffler import ShuffleMode, ShuffleModeChanged, ShuffleReport
from drivers.protocol.core import FaultCode
from drivers.shuffler import SealedOrder, ShufflerDriver
from vocabulary.machines import DeclaredMachine, Spec, Trigger
from vocabulary.operators import Operator
from vocabulary.rules import Rule, RuleViolation

T = TypeVar("T")

COUNT_AFTER_SHUFFLE = Rule(
    "COMAR 36.05.03.27(C) (analog); decision 0017",
    "the shuffler counts the batch after every shuffle against the batch's expected count; a wrong "
    "count latches, takes the batch out of play and needs a supervisor",
)
SHUFFLED_BY_VERIFIED_FIRMWARE = Rule(
    "461a.20(b); 605a.4(c); decision 0026",
    "a batch whose shuffle ended while the shuffler's firmware stood unverified (a failed authenticity "
    "check latched) is out of play: shuffled again once the firmware is verified and cleared",
)
#: The host fault a batch shuffled by unverified firmware latches.
BATCH_UNVERIFIED = "BATCH_UNVERIFIED"
NO_FOREIGN_CARD = Rule(
    "603a.15",
    "every card of a batch has the batch's back (and jokers only where configured); a foreign card "
    "latches and takes the batch out of play",
)
BATCH_AS_CONFIGURED = Rule(
    "decision 0017",
    "the shuffler counts against the batch the host configured: the same expected count and back",
)
ORDER_SEALED = Rule(
    "decision 0018",
    "the shuffled order read back opens the shuffle's commitment, so hands can be reconstructed in a dispute",
)
FAILED_BATCH_OUT_OF_PLAY = Rule(
    "COMAR 36.05.03.27(C) (analog); decision 0017",
    "a batch whose count failed is out of play: it is never handed to the shoe",
)
BATCHES_ALTERNATE = Rule(
    "633a.3(b), 673a.3(b) (analog)",
    "batches alternate every shoe: the batch handed to the shoe has another back than the one just played",
)
SETTINGS_RECORDED = Rule(
    "461a.10(s); decision 0027",
    "every change of the shuffler's mode and settings, set by the host or at the device's own panel, is "
    "a record (a configuration change of the equipment)",
)
RANDOM_ON_OPEN_TABLE = Rule(
    "decision 0017",
    "non-random shuffler modes (sort, verify, demo) are refused while the table is open, and no batch "
    "arranged in one reaches an open table",
)
UNSEEDED_ON_OPEN_TABLE = Rule(
    "603a.17(d); COMAR 36.05.02.17(F) (analog)",
    "a batch shuffled from a seeded, repeatable generator never reaches an open table",
)
OUTCOME_RECONCILED = Rule(
    "docs/protocol.md §5.6",
    "a card-moving command whose outcome is unknown takes the batch out of play until a supervisor "
    "has reconciled the counts",
)
WHOLE_BATCH_DELIVERED = Rule("decision 0017", "the shoe receives every card of the counted batch")
RESUMED_AS_LEFT = Rule(
    "decision 0017; docs/protocol.md §5.6",
    "after the host restarts, a held batch goes back into play only if the shuffler's counters show "
    "it untouched: the same shuffle last, its cards all in the output tray",
)

#: The kind of the audit record each shuffle makes (decision 0027).
SHUFFLE_RECORD = "batch_shuffled"

# Host-found faults that tie a batch to the failed state, with the device faults that do.
BATCH_FAULTS = frozenset(
    {
        "WRONG_COUNT",
        "FOREIGN_CARD",
        "BATCH_MISMATCH",
        "ORDER_UNSEALED",
        "OUTCOME_UNKNOWN",
        "DELIVERY_SHORT",
        IMPOSSIBLE_COUNT_CODE,
        BATCH_UNVERIFIED,
    }
)
# Refused before anything ran on the device: the batch is where it was.
_NOT_EXECUTED = (DeviceRefused, NotConnected, LinkLost)

IDLE = "idle"  # no batch in the shuffler, or the last one delivered
SHUFFLING = "shuffling"  # a shuffle is in flight
READY = "ready"  # a passed batch in the output tray
HELD = "held"  # a passed batch kept back while the other batch plays
DELIVERING = "delivering"  # a delivery to the shoe is in flight
FAILED = "failed"  # the batch is out of play until it is removed (after a supervisor's clear)
STATES = [IDLE, SHUFFLING, READY, HELD, DELIVERING, FAILED]
TRANSITIONS: list[Spec] = [
    {"trigger": "configured", "source": IDLE, "dest": None, "after": "_record_config"},
    {
        "trigger": "settings_changed",
        "source": "*",
        "dest": None,
        "conditions": "_random_while_open",
        "after": "_record_settings",
    },
    {
        "trigger": "start_shuffle",
        "source": IDLE,
        "dest": SHUFFLING,
        "conditions": ["_fault_free", "_configured_batch"],
    },
    {
        "trigger": "shuffled",
        "source": SHUFFLING,
        "dest": READY,
        "conditions": "_batch_passes",
        "after": "_record_batch",
    },
    {"trigger": "shuffled", "source": SHUFFLING, "dest": FAILED, "after": "_record_failed_batch"},
    {"trigger": "shuffle_refused", "source": SHUFFLING, "dest": IDLE},
    {
        "trigger": "shuffle_unconfirmed",
        "source": SHUFFLING,
        "dest": FAILED,
        "after": "_record_unconfirmed",
    },
    {"trigger": "hold", "source": READY, "dest": HELD},
    {
        "trigger": "start_delivery",
        "source": [READY, HELD],
        "dest": DELIVERING,
        "conditions": [
            "_fault_free",
            "_batches_alternate",
            "_random_batch_if_open",
            "_unseeded_batch_if_open",
        ],
    },
    {"trigger": "start_delivery", "source": FAILED, "dest": None, "conditions": "_refuse_failed_batch"},
    {
        "trigger": "delivered",
        "source": DELIVERING,
        "dest": IDLE,
        "conditions": "_whole_batch_arrived",
        "after": "_record_delivery",
    },
    {"trigger": "delivered", "source": DELIVERING, "dest": FAILED, "after": "_record_short_delivery"},
    {"trigger": "delivery_refused", "source": DELIVERING, "dest": HELD},
    # A game dealt from the hand (657a.9(a)): the dealer takes the passed batch from the shuffler
    # under the same checks as a delivery to the shoe, but with one deck there is no alternation.
    {
        "trigger": "taken_by_hand",
        "source": [READY, HELD],
        "dest": IDLE,
        "conditions": ["_fault_free", "_random_batch_if_open", "_unseeded_batch_if_open"],
        "after": "_record_taken",
    },
    {
        "trigger": "delivery_unconfirmed",
        "source": DELIVERING,
        "dest": FAILED,
        "after": "_record_unconfirmed",
    },
    # The host restarted with the table's day under way (TableJournal.position): the batch it had
    # shuffled and held is taken back as it was, or none when the tray should be empty.
    {
        "trigger": "resumed",
        "source": IDLE,
        "dest": HELD,
        "conditions": ["_as_left", "_holding"],
        "after": "_record_resumed",
    },
    {
        "trigger": "resumed",
        "source": IDLE,
        "dest": None,
        "conditions": "_as_left",
        "after": "_record_resumed",
    },
    {
        "trigger": "batch_removed",
        "source": FAILED,
        "dest": IDLE,
        "conditions": "_no_batch_fault",
        "after": "_record_removal",
    },
]


@dataclass(frozen=True)
class Batch:
    """A shuffled batch: the device's report and its sealed order (None when not read)."""

    report: ShuffleReport
    order: SealedOrder | None


@dataclass(frozen=True)
class _Problem:
    """One reason a batch fails, as the fault it latches: ``origin`` "device" when the device
    latched the same fault (so a clear must reach it), "host" when only the host found it."""

    rule: Rule
    code: str
    origin: str
    detail: str


class Shuffler(Equipment[ShufflerDriver]):
    """The rules of one automated card shuffler over its driver. Feed it the driver's events with
    ``apply``; call its async operations from the table's single event queue."""

    state: str  # set by the machine
    # The machine's triggers, which it binds (vocabulary/machines.py; decision 0030).
    configured: Trigger
    settings_changed: Trigger
    start_shuffle: Trigger
    shuffled: Trigger
    shuffle_refused: Trigger
    shuffle_unconfirmed: Trigger
    hold: Trigger
    start_delivery: Trigger
    delivered: Trigger
    delivery_refused: Trigger
    taken_by_hand: Trigger
    delivery_unconfirmed: Trigger
    resumed: Trigger
    batch_removed: Trigger
    trigger: Trigger
    may_trigger: Trigger

    def __init__(
        self,
        driver: ShufflerDriver,
        latch: FaultLatch | None = None,
        *,
        alternate_batches: bool = True,
        allow_seeded: bool = False,
        read_order: bool = True,
        table_open: bool = True,
    ) -> None:
        """``alternate_batches``: two batch colours take turns at the shoe (blackjack family); set
        False for games that reuse one batch. ``allow_seeded``: only for ``croupier sim`` demos.
        ``table_open`` starts True (fail safe) until the table service says otherwise."""
        super().__init__(driver, latch)
        self.alternate_batches = alternate_batches
        self.allow_seeded = allow_seeded
        self.reads_order = read_order
        self.table_is_open = table_open
        self.mode = ShuffleMode.RANDOM  # the device's mode, as last reported
        self.expected: int | None = None
        self.back: str | None = None
        self.batch: Batch | None = None  # the batch in the shuffler
        self.in_play: Batch | None = None  # the batch last handed to the shoe
        self.log = structlog.get_logger("croupier.devices.shuffler").bind(device=self.name)
        # One operation at a time: a setting's check and its commit must not straddle another's.
        self._one_at_a_time = asyncio.Lock()
        # One machine per shuffler: a table has one, and a shared machine would keep every model alive.
        self.machine = DeclaredMachine(
            model=self,
            model_override=True,
            states=STATES,
            transitions=TRANSITIONS,
            initial=IDLE,
            auto_transitions=False,
            send_event=True,
        )

    # -- operations -------------------------------------------------------------------------------
    async def configure(self, decks: int, jokers_per_deck: int, back: str) -> int:
        """Tell the shuffler the next batch: returns its expected count (jokers count per deck)."""
        async with self._one_at_a_time:
            self._check("configured")
            expected = await self.driver.configure(decks, jokers_per_deck, back)
            self.configured(expected=expected, back=back)
            return expected

    async def shuffle(self) -> ShuffleReport:
        """Shuffle the loaded batch, read its order sealed, and judge it: ready or failed."""
        async with self._one_at_a_time:
            self.start_shuffle()
            report = await self._card_moving(self.driver.shuffle(), "shuffle_refused", "shuffle_unconfirmed")
            order, unread = None, "not read"
            try:
                if self.reads_order:
                    order = await self.driver.read_order(report)
            except Exception as exc:  # the order stays unverified, and the batch fails below
                unread = f"{type(exc).__name__}: {exc}"
            finally:  # even when cancelled: the cards have moved, the batch is judged
                self.shuffled(report=report, order=order, unread=unread)
            return report

    async def deliver_to_shoe(self) -> int:
        """Hand the shuffled batch to the shoe; returns the cards delivered."""
        async with self._one_at_a_time:
            self.start_delivery()
            assert self.batch is not None
            shuffle_id = self.batch.report.shuffle_id
            reply = await self._card_moving(
                self.driver.deliver_to_shoe(shuffle_id), "delivery_refused", "delivery_unconfirmed"
            )
            self.delivered(reply=reply)
            return reply.count

    def saved(self) -> dict[str, str | None]:
        """The batches to take back after a restart (``resume``): the one held in the output tray
        and the one last handed on, each as its shuffle report's payload in hex (no card face:
        the order stays in the device, sealed)."""
        return {
            "held": None if self.batch is None else self.batch.report.to_payload().hex(),
            "in_play": None if self.in_play is None else self.in_play.report.to_payload().hex(),
        }

    async def resume(self, saved: Mapping[str, str | None], input_count: int) -> None:
        """The host restarted while the table's day was under way: take back the batch it had
        shuffled and held (its order read again from the device and checked against the
        shuffle's commitment) and the one it handed on (for the batches' alternation), from
        ``saved()``. The device's counters must show the held batch untouched and
        ``input_count`` cards in the input tray, else RESUMED_AS_LEFT is raised naming what
        differs and nothing is taken back."""
        held, in_play = (_report(saved.get(key)) for key in ("held", "in_play"))
        async with self._one_at_a_time:
            counters = await self.driver.counters()
            self._check("resumed", held=held, counters=counters, input_count=input_count)
            order = None
            if held is not None and self.reads_order:
                order = await self.driver.read_order(held)
                if not order.opens(held.commitment):
                    detail = f"shuffle {held.shuffle_id}: the order read again does not open its commitment"
                    raise RuleViolation(ORDER_SEALED, detail)
            self.resumed(held=held, in_play=in_play, counters=counters, input_count=input_count, order=order)

    async def set_mode(self, mode: ShuffleMode) -> None:
        mode = ShuffleMode(mode)
        async with self._one_at_a_time:
            self._check("settings_changed", mode=mode, table_open=self.table_is_open)
            reply = await self.driver.set_mode(mode)
            self.settings_changed(mode=reply.checked_mode(), table_open=self.table_is_open)

    async def open_table(self) -> None:
        """The table opens: asks the device its mode first, so a shuffler left in a non-random
        mode (from its own panel, by another tool) is found before a card is dealt."""
        async with self._one_at_a_time:
            mode = (await self.driver.mode()).checked_mode()
            self._check("settings_changed", mode=mode, table_open=True)
            await self.driver.set_table_open(True)
            self.settings_changed(mode=mode, table_open=True)

    async def close_table(self) -> None:
        async with self._one_at_a_time:
            reply = await self.driver.set_table_open(False)
            self.settings_changed(mode=reply.checked_mode(), table_open=False)

    async def clear(self, code: str, operator: Operator) -> None:
        """A supervisor's clear; once no batch fault is left, the failed batch is gone and the
        shuffler takes the next one. OUTCOME_UNKNOWN is the host's own fault, which the device
        cannot check: it clears only once the counters show the output tray empty (a shuffle that
        did run left its batch there, to be put back in the input and shuffled again); a delivery
        the counters show did run put the batch in play, so the batches still alternate."""
        async with self._one_at_a_time:
            delivered = False
            if code == "OUTCOME_UNKNOWN":
                self.latch.authorise_clear(code, operator)  # a dealer is refused before any read
                counters = await self.driver.counters()
                if counters.output_count:
                    raise RuleViolation(
                        OUTCOME_RECONCILED,
                        f"the output tray holds {counters.output_count} cards: put them back in the input "
                        "tray, or take them off the table, before clearing",
                    )
                delivered = self.batch is not None and counters.last_delivered == self.batch.report.shuffle_id
            await super().clear(code, operator)
            if self.may_trigger("batch_removed"):
                self.batch_removed(delivered=delivered)

    def apply(self, event: object) -> None:
        super().apply(event)
        if isinstance(event, ShuffleModeChanged):
            self._observe_mode(event.mode)

    # -- helpers ------------------------------------------------------------------------------------
    def _check(self, trigger: str, **kwargs: object) -> None:
        """Run ``trigger``'s conditions now, before the device is asked: a broken rule raises its
        RuleViolation; a trigger the current state does not offer raises MachineError."""
        if not self.may_trigger(trigger, **kwargs):
            raise MachineError(f"{self.name}: {trigger} is not possible while the shuffler is {self.state}")

    async def _card_moving(self, command: Awaitable[T], refused: str, unconfirmed: str) -> T:
        """Await a card-moving command; on failure fire ``refused`` when it surely did not run,
        ``unconfirmed`` when it may have (the batch then goes out of play)."""
        try:
            return await command
        except _NOT_EXECUTED as exc:
            self.trigger(refused, error=exc)
            raise
        except BaseException as exc:
            self.trigger(unconfirmed, error=exc)
            raise

    def _observe_mode(self, raw: int) -> None:
        """A ShuffleModeChanged from the device (its own panel included): recorded; a non-random mode on
        an open table is an irregularity that latches until a supervisor clears it."""
        try:
            mode = ShuffleMode(raw)
        except ValueError:
            self.log.warning("unknown shuffler mode reported", mode=raw)
            return
        self.mode = mode
        self.notify(
            SETTINGS_RECORDED, "shuffler_mode", mode=mode.name, by="device", table_open=self.table_is_open
        )
        if self.table_is_open and mode is not ShuffleMode.RANDOM:
            self._irregular(
                _Problem(
                    RANDOM_ON_OPEN_TABLE, "NON_RANDOM_MODE", "host", f"{mode.name} mode on an open table"
                )
            )

    def _irregular(self, problem: _Problem) -> None:
        self.irregular(problem.rule, problem.detail)
        self.latch.latch(Fault(problem.code, problem.detail, problem.rule.clause, problem.origin))
        self.log.warning(
            "shuffler irregularity", code=problem.code, detail=problem.detail, clause=problem.rule.clause
        )

    def _problems(self, report: ShuffleReport, order: SealedOrder | None, unread: str) -> list[_Problem]:
        """Why a shuffled batch may not play; none for a right batch."""
        sid = report.shuffle_id
        found = []
        if report.count != report.expected:
            detail = f"shuffle {sid}: counted {report.count} cards, expected {report.expected}"
            found.append(_Problem(COUNT_AFTER_SHUFFLE, FaultCode.WRONG_COUNT.name, "device", detail))
        if report.foreign:
            detail = f"shuffle {sid}: {report.foreign} card(s) foreign to the {report.back} batch"
            found.append(_Problem(NO_FOREIGN_CARD, FaultCode.FOREIGN_CARD.name, "device", detail))
        if (report.expected, report.back) != (self.expected, self.back):
            detail = (
                f"shuffle {sid}: the device counted a {report.back} batch of {report.expected}, "
                f"the host configured a {self.back} batch of {self.expected}"
            )
            found.append(_Problem(BATCH_AS_CONFIGURED, "BATCH_MISMATCH", "host", detail))
        if FIRMWARE_UNVERIFIED_CODE in {fault.code for fault in self.latch.faults}:
            detail = f"shuffle {sid}: ended while the shuffler's firmware failed its authenticity check"
            found.append(_Problem(SHUFFLED_BY_VERIFIED_FIRMWARE, BATCH_UNVERIFIED, "host", detail))
        if self.reads_order and (order is None or not order.opens(report.commitment)):
            why = f"could not be read ({unread})" if order is None else "does not open the commitment"
            found.append(_Problem(ORDER_SEALED, "ORDER_UNSEALED", "host", f"shuffle {sid}: the order {why}"))
        return found

    # -- conditions (each raises the RuleViolation of its rule, or answers a question) ------------
    def _fault_free(self, event: EventData) -> bool:
        self.latch.require_clear(event.event.name)
        return True

    def _configured_batch(self, event: EventData) -> bool:
        if self.expected is None:
            raise RuleViolation(COUNT_AFTER_SHUFFLE, "shuffle refused: no batch configured to count against")
        return True

    def _random_while_open(self, event: EventData) -> bool:
        mode, table_open = event.kwargs["mode"], event.kwargs["table_open"]
        if table_open and mode is not ShuffleMode.RANDOM:
            raise RuleViolation(RANDOM_ON_OPEN_TABLE, f"{mode.name} mode refused while the table is open")
        return True

    def _batch_passes(self, event: EventData) -> bool:
        return not self._problems(event.kwargs["report"], event.kwargs["order"], event.kwargs["unread"])

    def _refuse_failed_batch(self, event: EventData) -> bool:
        raise RuleViolation(
            FAILED_BATCH_OUT_OF_PLAY,
            "delivery refused: the batch failed and is out of play until a supervisor clears it",
        )

    def _as_left(self, event: EventData) -> bool:
        held, counters, loaded = event.kwargs["held"], event.kwargs["counters"], event.kwargs["input_count"]
        if counters.input_count != loaded:
            raise RuleViolation(
                RESUMED_AS_LEFT,
                f"the input tray holds {counters.input_count} cards; the table left {loaded} there",
            )
        if held is None:
            if counters.output_count:
                raise RuleViolation(
                    RESUMED_AS_LEFT,
                    f"the output tray holds {counters.output_count} cards the table did not leave there",
                )
            return True
        if counters.last_shuffle != held.shuffle_id or counters.output_count != held.count:
            raise RuleViolation(
                RESUMED_AS_LEFT,
                f"the held {held.back} batch (shuffle {held.shuffle_id}, {held.count} cards) is not as left: "
                f"the shuffler's last shuffle is {counters.last_shuffle}, its output tray holds "
                f"{counters.output_count} cards",
            )
        return True

    def _holding(self, event: EventData) -> bool:
        return event.kwargs["held"] is not None

    def _record_resumed(self, event: EventData) -> None:
        held, in_play = event.kwargs["held"], event.kwargs["in_play"]
        self.in_play = None if in_play is None else Batch(in_play, None)
        if held is not None:
            self.batch = Batch(held, event.kwargs["order"])
            self.expected, self.back = held.expected, held.back
        self.log.info(
            "batches taken back after a restart",
            held=None if held is None else held.shuffle_id,
            in_play=None if in_play is None else in_play.shuffle_id,
        )

    def _batches_alternate(self, event: EventData) -> bool:
        assert self.batch is not None
        back = self.batch.report.back
        if self.alternate_batches and self.in_play is not None and self.in_play.report.back == back:
            raise RuleViolation(
                BATCHES_ALTERNATE,
                f"delivery refused: the {back} batch was just played; hand the other batch to the shoe",
            )
        return True

    def _random_batch_if_open(self, event: EventData) -> bool:
        assert self.batch is not None
        mode = self.batch.report.checked_mode()
        if self.table_is_open and mode is not ShuffleMode.RANDOM:
            raise RuleViolation(
                RANDOM_ON_OPEN_TABLE, f"delivery refused: the batch was arranged in {mode.name} mode"
            )
        return True

    def _unseeded_batch_if_open(self, event: EventData) -> bool:
        assert self.batch is not None
        if self.table_is_open and self.batch.report.seeded and not self.allow_seeded:
            raise RuleViolation(
                UNSEEDED_ON_OPEN_TABLE, "delivery refused: the batch was shuffled by a seeded generator"
            )
        return True

    def _whole_batch_arrived(self, event: EventData) -> bool:
        assert self.batch is not None
        reply = event.kwargs["reply"]
        return (reply.shuffle_id, reply.count) == (self.batch.report.shuffle_id, self.batch.report.count)

    def _no_batch_fault(self, event: EventData) -> bool:
        return not any(fault.code in BATCH_FAULTS for fault in self.latch.faults)

    # -- records (after a transition: nothing here can refuse) --------------------------------------
    def _record_config(self, event: EventData) -> None:
        self.expected, self.back = event.kwargs["expected"], event.kwargs["back"]
        self.log.info("batch configured", expected=self.expected, back=self.back)

    def _record_settings(self, event: EventData) -> None:
        self.mode, self.table_is_open = event.kwargs["mode"], event.kwargs["table_open"]
        self.log.info("shuffler settings", mode=self.mode.name, table_open=self.table_is_open)
        self.notify(
            SETTINGS_RECORDED, "shuffler_mode", mode=self.mode.name, by="host", table_open=self.table_is_open
        )

    def _record_batch(self, event: EventData) -> None:
        report = event.kwargs["report"]
        self.batch = Batch(report, event.kwargs["order"])
        self._record_shuffle(report, "passed")
        self.log.info(
            "batch shuffled",
            shuffle_id=report.shuffle_id,
            count=report.count,
            back=report.back,
            mode=report.checked_mode().name,
            seeded=report.seeded,
            commitment=report.commitment.hex(),
        )

    def _record_failed_batch(self, event: EventData) -> None:
        report, order = event.kwargs["report"], event.kwargs["order"]
        self.batch = Batch(report, order)
        self._record_shuffle(report, "failed")
        for problem in self._problems(report, order, event.kwargs["unread"]):
            self._irregular(problem)

    def _record_shuffle(self, report: ShuffleReport, result: str) -> None:
        """Every shuffle to the audit trail as judged: the device's count against the batch's
        expected count, any foreign card, passed or failed, the batch by its back and the order's
        sealed commitment (decision 0018: never the order itself)."""
        self.notify(
            COUNT_AFTER_SHUFFLE,
            SHUFFLE_RECORD,
            shuffle_id=report.shuffle_id,
            count=report.count,
            expected=report.expected,
            foreign=report.foreign,
            result=result,
            batch=report.back,
            commitment=report.commitment.hex(),
        )

    def _record_unconfirmed(self, event: EventData) -> None:
        error = event.kwargs["error"]
        detail = f"{event.event.name}: {type(error).__name__}: {error}"
        self._irregular(_Problem(OUTCOME_RECONCILED, "OUTCOME_UNKNOWN", "host", detail))

    def _record_delivery(self, event: EventData) -> None:
        self.in_play, self.batch = self.batch, None
        assert self.in_play is not None
        self.log.info("batch delivered to the shoe", shuffle_id=self.in_play.report.shuffle_id)

    def _record_taken(self, event: EventData) -> None:
        self.in_play, self.batch = self.batch, None
        assert self.in_play is not None
        self.log.info("batch taken by hand", shuffle_id=self.in_play.report.shuffle_id)

    def _record_short_delivery(self, event: EventData) -> None:
        reply = event.kwargs["reply"]
        assert self.batch is not None
        detail = (
            f"shuffle {self.batch.report.shuffle_id}: {reply.count} of {self.batch.report.count} cards "
            f"reached the shoe (device reported shuffle {reply.shuffle_id})"
        )
        self.in_play, self.batch = self.batch, None
        if reply.count > self.in_play.report.count:  # more out than it counted in: a count that cannot be
            self._irregular(_Problem(IMPOSSIBLE_COUNT, IMPOSSIBLE_COUNT_CODE, "host", detail))
        else:
            self._irregular(_Problem(WHOLE_BATCH_DELIVERED, "DELIVERY_SHORT", "host", detail))

    def _record_removal(self, event: EventData) -> None:
        if event.kwargs.get("delivered"):  # reconciled: the unconfirmed delivery did reach the shoe
            self.in_play = self.batch
        self.batch = None
        self.log.info("failed batch removed", delivered=bool(event.kwargs.get("delivered")))


def _report(payload: str | None) -> ShuffleReport | None:
    """A shuffle report saved by ``Shuffler.saved``; a damaged one is refused naming the field."""
    return None if payload is None else ShuffleReport.from_payload(bytes.fromhex(payload))
