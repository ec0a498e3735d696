"""What every table does when something needs a supervisor: latched device faults and held rounds.

A latched fault on any of the table's devices stops every card-moving step until a supervisor
clears it; a round that met an irregularity its section does not resolve waits, cards where they
lie, for a supervisor's ruling. Both waits are the same for every game, so each table inherits them.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from functools import partial
from typing import Any, Protocol, TypeVar

import structlog

from croupier.tables.dealer import Dealer
from croupier.tables.events import PlayedRound, Publishing
from croupier.tables.feeding import Feeds
from devices.equipment import LINK_LOST, LINK_REQUIRED, Equipment
from devices.faults import LATCH_BLOCKS, Fault
from devices.progressive import Progressive
from devices.shoe import RECONCILED, Shoe, ShoeFault
from devices.shuffler import OUTCOME_RECONCILED
from drivers.errors import CommandTimeout, DeviceRefused, LinkLost, NotConnected, OutcomeUnknown
from drivers.protocol.classes.shoe import ShoeCounts
from drivers.protocol.core import FaultCode
from drivers.protocol.message import Status
from games.common.holds import Hold
from games.common.messages import Resolution, SupervisorResolve
from vocabulary.operators import Operator
from vocabulary.rules import Rule, RuleViolation

T = TypeVar("T")

#: How long a step waits before retrying when a link was down but no LINK_LOST has latched yet.
LINK_POLL = 0.05
#: A device's status refusing any command while one of its faults is latched (docs/protocol.md §7).
FAULT_LATCHED = Status.FAULT_LATCHED.name

HOLD_FOR_SUPERVISOR = Rule(
    "decision 0017",
    "a latched device fault holds the table's dealing until a supervisor clears it",
)


class HeldRound(PlayedRound, Protocol):
    """What a table needs of a round of any game to hold it and pass on a ruling."""

    hold: Hold | None


class SupervisorHolds(Publishing):
    """Fault holds and held rounds for a table; call ``_init_holds`` from the table's __init__.

    Every table also says what it has, for whoever shows the table (the API's table state): its
    dealing shoe, its progressive system and the dealer on duty, None where it has none."""

    shoe: Shoe | None = None
    progressive: Progressive | None = None
    dealer_on_duty: str | None = None
    name: str
    log: structlog.typing.FilteringBoundLogger
    feeds: Feeds
    dealer: Dealer

    @property
    def equipment(self) -> tuple[Equipment[Any], ...]:  # Any: any device's driver
        raise NotImplementedError

    def _init_holds(self) -> None:
        self._cleared = asyncio.Event()
        self._ruled = asyncio.Event()
        self.held_round: HeldRound | None = None  # a round waiting for a supervisor's ruling

    @property
    def faults(self) -> tuple[Fault, ...]:
        """Every fault latched on the table's devices, each for a supervisor to clear."""
        return tuple(fault for machine in self.equipment for fault in machine.latch.faults)

    @property
    def holding(self) -> tuple[Fault, ...]:
        """The latched faults that hold the table: while any is, no card is dealt. A link's
        (LINK_MISMATCH) refuses only the progressive wagers (``Fault.holds``, decision 0039)."""
        held: tuple[Fault, ...] = ()
        for machine in self.equipment:  # asked before every card dealt: a loop, not a generator
            held += machine.latch.holding
        return held

    async def clear(self, code: str, operator: Operator) -> None:
        """A supervisor clears a latched fault (the device too, for its own faults); a held step
        then goes on. A dealer is refused (vocabulary.operators.SUPERVISOR_CLEARS)."""
        await self.feeds.settled()  # the clear acts on every device event already received
        owners = [machine for machine in self.equipment if code in {f.code for f in machine.latch.faults}]
        if not owners:
            latched = sorted({fault.code for fault in self.faults}) or "none"
            raise KeyError(f"{code} is not latched at {self.name}; latched: {latched}")
        for machine in owners:
            await machine.clear(code, operator)
        self._cleared.set()

    def resolve(self, operator: Operator, resolution: Resolution) -> None:
        """A supervisor's ruling on the held round: CONTINUE as the irregularity's kind says, or
        VOID (every unsettled wager returned, the cards picked up). A dealer's ruling, or one not
        offered for this irregularity, is refused with its rule and changes nothing."""
        if self.held_round is None:
            raise LookupError(f"{self.name}: no round is held")
        self._give(self.held_round, SupervisorResolve(operator, resolution))
        self._ruled.set()

    async def _await_ruling(self, round_: HeldRound) -> None:
        """An irregularity the section does not resolve holds the round, cards where they lie,
        until a supervisor rules on it through ``resolve``."""
        assert round_.hold is not None  # a held round holds
        self.log.warning("round held", round=round_.number, irregularity=str(round_.hold.irregularity))
        self.held_round = round_
        self._ruled.clear()
        try:
            await self._ruled.wait()
        finally:
            self.held_round = None

    async def _held_on_fault(self, action: Callable[[], Awaitable[T]], *, runs_latched: bool = False) -> T:
        """Run a card-moving action; if a fault is (or gets) latched, wait for the supervisor's
        clear and run it again. A jam or an empty shoe moved no card, so nothing is lost.
        ``runs_latched``: a step no latched fault blocks (a count read, an inspection) runs at once,
        and waits for a clear only after its link was lost."""
        wait = not runs_latched
        while True:
            if wait:
                await self._while_latched()
            wait = True
            try:
                return await action()
            except ShoeFault as fault:
                self.log.warning("shoe fault", fault=fault.code.name, detail=fault.detail)
            except RuleViolation as refusal:
                if refusal.rule is LINK_REQUIRED:  # the link went as the answer came: asked again
                    self.log.warning("device link lost", detail=refusal.detail, clause=refusal.rule.clause)
                    await self._fault_reaches_the_latch()
                elif refusal.rule is not LATCH_BLOCKS:
                    raise
            except (NotConnected, LinkLost, CommandTimeout) as lost:
                # The command did not run (the link was down), or it moves no card and is safely
                # asked again (a peek, a mode read: OutcomeUnknown is a card mover's, never here).
                self.log.warning("device link lost", detail=str(lost), clause=LINK_LOST.clause)
                await self._fault_reaches_the_latch()
            except DeviceRefused as refused:  # the device latched a fault first: it ran nothing
                if refused.status != FAULT_LATCHED:
                    raise
                self.log.warning("device fault latched", detail=refused.detail)
                await self._fault_reaches_the_latch()

    async def _reconciled(self, shoe: Shoe, dispense: Callable[[], Awaitable[T]]) -> tuple[T, int]:
        """A shoe's dispense, held on a fault like any card-moving step, and reconciled when its
        outcome is unknown (the link died with the command out, docs/protocol.md §5.6): the step
        waits for the device and a supervisor's clear of its LINK_LOST, then for every event the shoe
        sent meanwhile to be applied (``events_told``), then the shoe's counts are read. A card
        that left meanwhile is unrecorded (RECORD_EVERY_CARD, written to the trail as the shoe's
        irregularity): the dealer moves it unseen from the tray to the discard rack
        (``rack_unread``: the last cards in the tray, after any of a stack the shoe read and
        recorded first), and the dispense is made again. So is a card the shoe let out unread
        (MISREAD, latched until a supervisor clears it): no record names it, and left in the tray
        it would be the card placed next, in place of the card the shoe read. Returns the
        dispense's result and the cards so moved."""
        aside = 0

        async def unread_racked() -> T:
            nonlocal aside
            try:
                return await dispense()
            except ShoeFault as fault:
                if fault.code is FaultCode.MISREAD:
                    self.dealer.rack_unread()
                    aside += 1
                raise

        while True:
            try:
                return await self._held_on_fault(unread_racked), aside
            except OutcomeUnknown as unknown:
                self._outcome_unknown("dispense", unknown, RECONCILED)
            await self._fault_reaches_the_latch()
            before = shoe.unrecorded
            await self._held_on_fault(partial(self._shoe_read, shoe))
            for _ in range(shoe.unrecorded - before):
                self.dealer.rack_unread()
                aside += 1

    async def _shoe_read(self, shoe: Shoe) -> ShoeCounts:
        """The shoe's counts (``Shoe.sync``), read once every event it holds unacknowledged has been
        applied (``events_told``): a cover card leaves the counts as they were, so judged from them
        alone a cover card that came out looks like a dispense that never ran, and its event, come
        after the next card, would be stale. The event is one whose answer was lost with the link, or
        one the shoe tells a service started since (at ``open``)."""
        await shoe.events_told()
        await self.feeds.settled()
        return await shoe.sync()

    async def _delivered_to_shoe(
        self, shoe: Shoe, shuffler: Any, reshuffle: Callable[[], Awaitable[None]]  # Any: any shuffler
    ) -> None:
        """The shuffler's batch into the shoe (672a.7(a), 686a.7(a), 677a.10(a)(1)), held on a fault like any
        card-moving step. A delivery whose outcome is unknown (the link died with it out, docs/protocol.md
        §5.6) takes the batch out of play (OUTCOME_UNKNOWN); the step waits for the supervisor's clears, then
        the shoe's counts tell: holding the batch, the delivery ran; empty, it did not, the supervisor put the
        batch back in the shuffler's input to clear, and ``reshuffle`` shuffles it again before the next
        delivery."""
        while True:
            try:
                await self._held_on_fault(shuffler.deliver_to_shoe)
                return
            except OutcomeUnknown as unknown:
                self._outcome_unknown("delivery", unknown, OUTCOME_RECONCILED)
            await self._fault_reaches_the_latch()
            await self._while_latched()
            if (await self._held_on_fault(shoe.sync)).remaining:
                return
            await reshuffle()

    async def _collected(self, shoe: Shoe) -> None:
        """The ended shoe's cards collected to the rack and the batch counted there (672a.7(d)(1),
        686a.7(d)(1)), held on a lost link like any step: the count is the dealer's, and the shoe's counts are
        only read, so a collect a lost link interrupted is simply asked again once the link is cleared. A
        fault already latched does not hold it (a wrong count latches on it in turn)."""
        counted = self.dealer.count_rack()
        await self._held_on_fault(lambda: shoe.collect(counted), runs_latched=True)

    async def _shoe_round_ended(self, shoe: Shoe) -> None:
        """The shoe told the round is over (an auto-reshuffling shoe takes the discards back); an
        end whose answer was lost is reconciled from the shoe's counts (``Shoe.reconcile_end_round``)."""
        await self._or_reconciled(shoe.end_round, shoe.reconcile_end_round, "end of round", RECONCILED)

    async def _or_reconciled(
        self,
        act: Callable[[], Awaitable[T]],
        reconcile: Callable[[], Awaitable[T]],
        command: str,
        rule: Rule,
    ) -> T:
        """``act``, a card- or money-moving step, held on a fault like any other; when its outcome
        is unknown (the link died with it out, docs/protocol.md §5.6) the step waits for the
        device and a supervisor's clear, then ``reconcile`` reads what the device did and finishes
        it — never a resend on a guess."""
        try:
            return await self._held_on_fault(act)
        except OutcomeUnknown as unknown:
            self._outcome_unknown(command, unknown, rule)
        await self._fault_reaches_the_latch()
        await self._while_latched()
        return await self._held_on_fault(reconcile)

    def _outcome_unknown(self, command: str, unknown: OutcomeUnknown, rule: Rule) -> None:
        self.log.warning(f"{command} outcome unknown", detail=str(unknown), clause=rule.clause)

    async def _fault_reaches_the_latch(self) -> None:
        """Wait for the fault behind a refusal — a lost link's LINK_LOST, a device's own latched
        fault — to reach the latch (its event is on the way through the feeds): the step then waits
        for a supervisor to clear it (``Equipment.clear`` refuses while the link is still down, the
        device while the condition persists)."""
        await self.feeds.settled()
        if not self.holding:
            await asyncio.sleep(LINK_POLL)  # the connection had not yet reported its state change

    async def _while_latched(self) -> None:
        while faults := self.holding:
            self.log.warning(
                "table held", faults=[fault.code for fault in faults], clause=HOLD_FOR_SUPERVISOR.clause
            )
            self._cleared.clear()
            await self._cleared.wait()

    async def _shuffle_until_it_passes(self, shuffler: Any) -> None:  # Any: a shuffler of any kind
        """The batch in the shuffler's input shuffled and counted until it passes (decision 0017).
        A failed batch (a wrong count, a foreign card, 603a.15) latches and is out of play: the table
        waits for the supervisor, who takes the batch out of the output tray, removes what does not
        belong and puts the rest back in the input before clearing; the table then shuffles it again.
        Without the second shuffle a cleared failed batch left the table with no batch to deal. A
        shuffle whose outcome is unknown (the link died with it out) is such a failed batch: the
        shuffler clears it only once its output tray is empty (devices/shuffler.py)."""
        while True:
            try:
                await self._held_on_fault(shuffler.shuffle)
            except OutcomeUnknown as unknown:  # OUTCOME_UNKNOWN latched: the batch is out of play
                self._outcome_unknown("shuffle", unknown, OUTCOME_RECONCILED)
            await self._while_latched()
            if shuffler.batch is not None:
                return
            self.log.warning("failed batch out of play: shuffling the batch put back in the input")
