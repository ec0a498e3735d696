"""The progressive table game system's rules: lockout before any card, chip count, meters, awards.

Crazy 4 Poker dealt from the hand (657a.9(a)(3)), and its sister chapters (657a.8(b);
670a.10(a)(2)(ii), analog): the dealer announces "no more bets" and locks the progressive system
before any card is dealt, collects the progressive wagers and verifies that the value chips equal
the wagers the system accepted; a mismatch calls a supervisor. The system keeps meters per level,
freezes a level that hits until its keyed reset, and shows its meters and wins on a sign at the
table (605a.7(a)).

Device I/O is asynchronous and a transitions machine is not, so each step runs in three parts:
the machine's state and conditions are checked first (``may_trigger``: a step the rules refuse
never reaches the device), then the device is asked, then the trigger records what the device did.
The conditions of such a trigger read only this model, which no other step changes while the device
is asked (the table's queue runs one step at a time), so they cannot fail after the device has acted.
A device event may still arrive meanwhile: the fault latch is checked before the device is asked and
not after, and a link that went as the answer came (the machine offline) is reported as a lost link,
or as an unknown outcome for a step that moves money, and the controller is read again (``sync``)
before the step is finished.
"""

from __future__ import annotations

import asyncio

from transitions import EventData

from devices.equipment import DEVICE_FAULT, Equipment, link_fault
from devices.faults import SPOOL_UNWRITTEN, SPOOL_UNWRITTEN_CODE, Fault, FaultLatch
from devices.linked import HitRefused, LinkedLevels, Unspooled
from devices.progressive_rules import (
    AWARD_TO_WAGER,
    CHIP_COUNT,
    CHIP_COUNT_RECORD,
    KEYED_RESET,
    LINK_MISMATCH,
    LOCKOUT_FAILED,
    METERS_AGREE,
    NEXT_ROUND,
    NO_MORE_BETS,
    READY_TO_DEAL,
    SENSORS_LOCKED_OUT,
    SIGN_SHOWS,
)
from drivers.authenticity import AuthenticityChecked, identity_fields
from drivers.connection import ConnectionState, DeviceConnection, DeviceSwapped, EventsHeldBack, StateChanged
from drivers.errors import CommandTimeout, DeviceRefused, DriverError, LinkLost, NotConnected, OutcomeUnknown
from drivers.progressive import MeterSignDriver, ProgressiveDriver
from drivers.protocol.classes.progressive import (
    BASIS_POINTS,
    AwardResult,
    LevelInfo,
    RoundState,
    SensorChanged,
    WagerAfterLock,
    WagerLockedOut,
    seats_in,
)
from drivers.protocol.core import FaultCode, FaultRaised
from drivers.protocol.message import Status
from vocabulary.machines import DeclaredMachine, Spec, Trigger
from vocabulary.operators import Operator
from vocabulary.rules import Rule, RuleViolation

OFFLINE, OPEN_BETTING, LOCKED, RECONCILED, DEALING = (
    "offline",
    "open_betting",
    "locked",
    "reconciled",
    "dealing",
)
ONLINE = [OPEN_BETTING, LOCKED, RECONCILED, DEALING]
SIGN_FAULT_PREFIX = "SIGN_"  # a fault the sign itself raised, latched as SIGN_<code>
_SIGN = "sign"  # Fault.origin of those: cleared on the sign
#: The sign's host faults that clear only with the sign's link up.
SIGN_LINK_FAULTS = ("SIGN_LINK_LOST", SIGN_FAULT_PREFIX + "DEVICE_SWAPPED")
# Link states of a device that is not there (STOPPED too: a connection stopped on purpose is gone).
_GONE = (ConnectionState.BACKOFF, ConnectionState.FAILED, ConnectionState.STOPPED)

TRANSITIONS: list[Spec] = [
    # Coming online, the controller's round decides the state; a round reconciled before the link
    # dropped stays reconciled.
    {
        "trigger": "came_online",
        "source": OFFLINE,
        "dest": OPEN_BETTING,
        "unless": "_device_locked",
        "after": "_record_round",
    },
    {
        "trigger": "came_online",
        "source": OFFLINE,
        "dest": RECONCILED,
        "conditions": ["_device_locked", "_round_was_reconciled"],
        "after": "_record_round",
    },
    {"trigger": "came_online", "source": OFFLINE, "dest": LOCKED, "after": "_record_round"},
    {"trigger": "went_offline", "source": ONLINE, "dest": OFFLINE},
    {
        "trigger": "betting_opened",
        "source": [OPEN_BETTING, RECONCILED, DEALING],
        "dest": OPEN_BETTING,
        "conditions": "_no_level_frozen",
        "after": "_record_round",
    },
    {"trigger": "bets_locked", "source": OPEN_BETTING, "dest": LOCKED, "after": "_record_round"},
    {
        "trigger": "chips_reconciled",
        "source": LOCKED,
        "dest": RECONCILED,
        "conditions": ["_latch_clear", "_chips_match"],
        "after": "_record_reconciled",
    },
    {"trigger": "dealing_started", "source": RECONCILED, "dest": DEALING, "conditions": "_latch_clear"},
    {
        "trigger": "jackpot_paid",
        "source": DEALING,
        "dest": None,
        "conditions": "_seat_accepted",
        "after": "_record_award",
    },
    {
        "trigger": "level_reset",
        "source": ONLINE,
        "dest": None,
        "conditions": "_level_frozen",
        "after": "_record_reset",
    },
]


def meter_problems(info: LevelInfo) -> list[str]:
    """What is wrong with a level's meters, by the meter equation of docs/protocol.md §11.4:
    every cent is in the value, the overflow or the wins, and came from a reset or a contribution."""
    problems = []
    contributed = info.in_cents * info.increment_bp // BASIS_POINTS
    seeded = info.reset_cents * (info.hits + 1)
    held = info.value_cents + info.overflow_cents + info.wins_cents
    if held != seeded + contributed:
        problems.append(
            f"value + overflow + wins = {held} cents, resets + contributions = {seeded + contributed}"
        )
    reserve = info.in_cents * info.reserve_bp // BASIS_POINTS
    if info.reserve_cents != reserve:
        problems.append(f"reserve {info.reserve_cents} cents, {reserve} by its rate")
    if not info.reset_cents <= info.value_cents <= info.limit_cents:
        problems.append(f"value {info.value_cents} cents outside reset..limit")
    return problems


class Progressive(Equipment[ProgressiveDriver]):
    """The controller's rules, and the sign that must show its meters.

    Feed the controller's events to ``apply`` and the sign's to ``apply_sign``; call ``sync`` once
    the controller's link is READY. ``win_deadline`` is the time a win has to appear on the sign.
    """

    state: str  # set by the machine
    # The machine's triggers, which it binds (vocabulary/machines.py; decision 0030).
    came_online: Trigger
    went_offline: Trigger
    betting_opened: Trigger
    bets_locked: Trigger
    chips_reconciled: Trigger
    dealing_started: Trigger
    jackpot_paid: Trigger
    level_reset: Trigger
    may_trigger: Trigger

    def __init__(
        self,
        driver: ProgressiveDriver,
        sign: MeterSignDriver,
        *,
        latch: FaultLatch | None = None,
        win_deadline: float = 30.0,
    ) -> None:
        super().__init__(driver, latch)
        self.sign = sign
        self.win_deadline = win_deadline
        self.round: RoundState | None = None
        self._dealing_when_lost = False  # the link went while a round was being dealt
        self._hits_before_award = 0  # the level's hits when the last award was sent
        self._void_owed = False  # a voided round to withdraw from the link once the controller is read
        self.levels: dict[int, LevelInfo] = {}
        self.wins: dict[int, AwardResult] = {}  # the win a frozen level shows until its reset
        self.covered: tuple[int, ...] = ()
        self._reconciled_round: int | None = None
        self._chip_counts = 0  # the chip counts made for the locked round: the first, then recounts
        self.linked: LinkedLevels | None = None  # the levels shared with other tables (decision 0039)
        self._sign_lock = asyncio.Lock()  # the table's steps and the link's values take turns on the sign
        #: Whether the controller was last told to lock its sensors out (SetLockout); None: not told
        #: since it came online, or the telling failed.
        self.sensors_locked_out: bool | None = None
        self._lockout_turn = asyncio.Lock()  # one SetLockout at a time, in the order wanted
        self._lockouts: set[asyncio.Task[None]] = set()
        DeclaredMachine(
            model=self,
            model_override=True,
            states=[OFFLINE, *ONLINE],
            transitions=TRANSITIONS,
            initial=OFFLINE,
            auto_transitions=False,
            send_event=True,
        )

    def attach(self, link: LinkedLevels) -> None:
        """Put the levels ``link`` names on the link: their jackpot is the link controller's. A
        controller read already (a simulated table opens first) is checked against the link now,
        else when it is read (``sync``)."""
        self.linked, link.progressive = link, self
        if self.state != OFFLINE and self.round is not None and self.levels:
            link.check_device(self.round, self.in_meter())

    def in_meter(self) -> int:
        """The controller's wagers-in meter (every level takes every wager: its first level's)."""
        return self.levels[min(self.levels)].in_cents

    @property
    def controller_unit(self) -> dict[str, str]:
        """The controller unit answering now, by what tells one unit from another (vendor, model,
        serial number: what DEVICE_SWAPPED is judged by, drivers.connection.unit): the link names
        each round by its unit and number, since a replaced controller numbers from 1 again and its
        meters may match the old unit's (decision 0039). Read only once the controller answered."""
        identity = self.driver.conn.identity
        assert identity is not None  # a round was locked, voided or won: the controller answered
        return {"vendor": identity.vendor, "model": identity.model, "serial_number": identity.serial_number}

    def wagers_refused(self) -> str | None:
        """Why a progressive wager is refused now (the link is lost or not reconciled, or a hit at
        any table of the link locks a linked level), or None."""
        return None if self.linked is None else self.linked.refusal()

    def follow_refusal(self) -> None:
        """Called whenever the refusal may have changed (each look of the link): when the sensors are
        not as ``wagers_refused`` wants them, they are told, outside the table's step."""
        wanted = self.wagers_refused() is not None
        failed = any(fault.code == LOCKOUT_FAILED for fault in self.latch.faults)  # told at its clear
        if self.state != OFFLINE and self.sensors_locked_out != wanted and not failed:
            task = asyncio.get_running_loop().create_task(self.match_lockout())
            self._lockouts.add(task)
            task.add_done_callback(self._lockouts.discard)

    async def match_lockout(self) -> None:
        """Lock the controller's sensors out while the table refuses progressive wagers, whatever
        the reason, and re-enable them once it takes them again: told when that changed since the
        controller was last told, and whenever it comes back (``sync``), so a chip on a sensor is
        never accepted at the lock while the table refuses its wager. A controller that cannot be
        told latches LOCKOUT_FAILED, which holds the table: a wager the table refuses would be
        accepted at the lock, or one it takes refused there. A controller whose firmware has no
        lockout (UNKNOWN_COMMAND) takes every wager: that is what re-enabling asks, so only locking
        it out fails."""
        async with self._lockout_turn:
            refused = self.wagers_refused()
            wanted = refused is not None
            if self.state == OFFLINE or self.sensors_locked_out == wanted:
                return  # told once it is back
            what = "locked out" if wanted else "re-enabled"
            try:
                told = await self.driver.lockout(wanted)
            except DeviceRefused as exc:
                if not wanted and exc.status == Status.UNKNOWN_COMMAND.name:
                    self.sensors_locked_out = False  # a controller without a lockout is never locked out
                    return
                self._lockout_failed(f"the wager sensors could not be {what}: {exc}")
                return
            except (NotConnected, LinkLost):  # LINK_LOST holds the table; told when it is back (``sync``)
                self.sensors_locked_out = None
                return
            except DriverError as exc:
                self._lockout_failed(f"the wager sensors could not be {what}: {exc}")
                return
            if told.locked_out != wanted:
                self._lockout_failed(f"the wager sensors were to be {what}; the controller says they are not")
                return
            self.sensors_locked_out = wanted
            if wanted:
                covered = list(seats_in(told.refused))
                self.notify(SENSORS_LOCKED_OUT, "sensors_locked_out", reason=refused, covered=covered)
            else:
                self.notify(SENSORS_LOCKED_OUT, "sensors_enabled")

    def _linked(self, level: int) -> LinkedLevels | None:
        return self.linked if self.linked is not None and level in self.linked.rates else None

    # -- events -----------------------------------------------------------------------------------
    def apply(self, event: object) -> None:
        super().apply(event)
        if isinstance(event, StateChanged) and event.state in _GONE:
            if self.state != OFFLINE:
                self._dealing_when_lost = self.state == DEALING
                self.went_offline()
            self.sensors_locked_out = None  # a controller back (maybe another) is told again
        elif isinstance(event, SensorChanged):
            self.covered = seats_in(event.covered)
        elif isinstance(event, WagerAfterLock):
            self.irregular(
                NO_MORE_BETS,
                f"seat {event.seat}: a progressive wager placed after the lock of round "
                f"{event.round} was refused by the controller",
            )
        elif isinstance(event, WagerLockedOut):
            self.irregular(
                SENSORS_LOCKED_OUT,
                f"seat {event.seat}: a progressive wager on the sensor at the lock of round {event.round} "
                "was refused by the controller: wagering locked out",
            )

    def connections(self) -> tuple[DeviceConnection, ...]:
        return (self.driver.conn, self.sign.conn)

    def unit_of(self, code: str) -> dict[str, str | None]:
        """The sign's own faults are about the sign's unit."""
        if code.startswith(SIGN_FAULT_PREFIX):
            return identity_fields(self.sign.conn.identity)
        return super().unit_of(code)

    def unverified_device(self, code: str) -> str:
        """The sign's own faults name the sign, also a FIRMWARE_UNVERIFIED restored after a restart,
        before the sign has been checked again: its clear then waits for the sign's check, never
        the controller's."""
        if code.startswith(SIGN_FAULT_PREFIX):
            return self.sign.name
        return super().unverified_device(code)

    def apply_sign(self, event: object) -> None:
        """The sign's events: a sign that is gone, or faulted, stops the progressive; its doors,
        reboots and returns are recorded as the controller's are (``note_link_event``)."""
        self.note_link_event(self.sign.conn, event)
        if isinstance(event, StateChanged) and event.state in _GONE:
            self._latch("SIGN_LINK_LOST", f"{self.sign.name}: {event.reason or 'link lost'}", SIGN_SHOWS)
        elif isinstance(event, FaultRaised):
            try:
                name = FaultCode(event.code).name
            except ValueError:
                name = f"FAULT_{event.code}"
            self.latch.latch(Fault(SIGN_FAULT_PREFIX + name, event.detail, DEVICE_FAULT.clause, _SIGN))
        elif isinstance(event, DeviceSwapped | EventsHeldBack):
            self.latch.latch(link_fault(self.sign.name, event, SIGN_FAULT_PREFIX))
        elif isinstance(event, AuthenticityChecked):
            self.checked(event, SIGN_FAULT_PREFIX)

    # -- the round ----------------------------------------------------------------------------------
    async def sync(self) -> RoundState:
        """Learn the controller's round, sensors and meters, and show the meters on the sign. On a
        link, in this order: the controller checked against what the table sent (``check_device``:
        a locked round never spooled is sent now), then a void owed (``voided``: so it withdraws
        that round too, the device base rising by its cents), then the sensors told what the
        refusal now is (``match_lockout``: a LINK_MISMATCH either latched refuses the wagers)."""
        round_state = await self.driver.read_round()
        self.covered = seats_in((await self.driver.read_sensors()).covered)
        for level in range(1, round_state.levels + 1):
            info = await self.driver.level(level)
            self._keep(info)
            if info.frozen and level not in self.wins:
                last = (await self.driver.hits(level))[0]
                self.wins[level] = AwardResult(level, last.seat, last.amount_cents, last.number)
        if self.state == OFFLINE:
            self.came_online(round_state=round_state)
            if self._dealing_when_lost and self.state == RECONCILED:  # the deal it was in goes on
                self.dealing_started()
        if self.linked is not None and self.levels:
            self.linked.check_device(round_state, self.in_meter())
        if self._void_owed and self.linked is not None:  # a cut-off round cleared before this read
            self._void_owed = False
            self.linked.void(round_state)
        await self.match_lockout()
        await self._show_all()
        return round_state

    async def resume(self) -> RoundState:
        """``sync`` when the host restarted between rounds: the controller's last round is over,
        locked or not (completed, or cut off and voided by a supervisor before the table could
        open again), so betting may open on the next one."""
        self._reconciled_round = (await self.driver.read_round()).round
        return await self.sync()

    def _lockout_failed(self, detail: str) -> None:
        self.sensors_locked_out = None
        self._latch(LOCKOUT_FAILED, detail, SENSORS_LOCKED_OUT)

    async def open_round(self) -> RoundState:
        """Open betting for the next round."""
        self._require("betting_opened", "opening betting", NEXT_ROUND)
        self.latch.require_clear("opening betting")
        round_state = await self.driver.new_round()
        self._still_online("opening betting", moves_money=False)
        self.betting_opened(round_state=round_state)
        return round_state

    async def lock(self) -> RoundState:
        """Lock the system at "no more bets" and learn the accepted wagers; then check the meters
        and show them. With no progressive wager there are no chips to count (657a.9(a)(3): "if
        any Progressive Payout Wagers have been made")."""
        self._require("bets_locked", "no more bets", NO_MORE_BETS)
        await self.match_lockout()  # the sensors as the table's refusal is now, whatever told it
        self.latch.require_clear("no more bets")
        if self.sensors_locked_out is None:  # its link went as it was told: no lock on a guess
            raise NotConnected(f"{self.name}: the sensors' lockout is not confirmed: no more bets waits")
        round_state = await self.driver.lock()
        self._still_online("no more bets", moves_money=True)
        self.bets_locked(round_state=round_state)
        wagered = round_state.count * round_state.wager_cents
        if self.linked is not None:
            self.linked.contribute(round_state)
        try:
            for level in range(1, round_state.levels + 1):
                self._keep(await self.driver.level(level), in_added=wagered)
        except (NotConnected, LinkLost, CommandTimeout) as lost:
            # Locked, but the link went before its meters were read: the lock is not asked again
            # (it would be refused, the system being locked); it is finished as a lock whose answer
            # was lost, from the controller once it is back (``reconcile_lock``).
            raise OutcomeUnknown(f"{self.name}: locked, its meters not read: {lost}") from lost
        await self._show_all()
        if round_state.count == 0 and not self.latch:
            self.chips_reconciled(count=0)
        return round_state

    async def reconcile_lock(self) -> RoundState:
        """The lock whose answer was lost (OutcomeUnknown: it moves money, so it is never simply
        resent), once the controller is back and read again (``sync``, on the LINK_LOST clear): a
        round the controller did lock is taken as locked, its accepted wagers read from it — its
        meters were read afresh, so this lock's increase is not checked against the levels before
        it; a round it did not lock is locked now."""
        if self.state != LOCKED:
            return await self.lock()
        round_state = await self.driver.read_round()
        if self.linked is not None:  # sent once per round: a lock already contributed is not sent again
            self.linked.contribute(round_state)
        await self._show_all()
        if round_state.count == 0 and not self.latch:
            self.chips_reconciled(count=0)
        return round_state

    def chip_count(self, count: int) -> None:
        """The dealer's count of the value chips collected; a mismatch latches CHIP_COUNT_MISMATCH,
        which only a supervisor clears, before the dealer may count again."""
        if isinstance(count, bool) or not isinstance(count, int) or count < 0:
            raise ValueError(f"a chip count is a whole number of chips, not {count!r}")
        if self.state == LOCKED and self.round is not None and not self.latch:
            self._record_chip_count(self.round, count)
        self._require("chips_reconciled", "the chip count", CHIP_COUNT, count=count)
        self.chips_reconciled(count=count)

    def _record_chip_count(self, round_state: RoundState, counted: int) -> None:
        """Each count the rules judge, the first and every recount after a mismatch, to the audit
        trail before its judgment: what the dealer counted, what the controller accepted, whether
        they agree, and which count of the round it is."""
        self._chip_counts += 1
        self.notify(
            CHIP_COUNT,
            CHIP_COUNT_RECORD,
            controller_round=round_state.round,
            count=self._chip_counts,
            counted=counted,
            accepted=round_state.count,
            match=counted == round_state.count,
        )

    def begin_dealing(self) -> None:
        """The first card of the round is about to leave. A lock with no wager accepted has no chips
        to count; if a fault was latched at the lock, it was left unreconciled while the fault held
        the table, and is reconciled now that a supervisor has cleared it."""
        self.latch.require_clear("dealing")
        if self.state == LOCKED and self.round is not None and self.round.count == 0:
            self.chips_reconciled(count=0)
        self._require("dealing_started", "dealing", READY_TO_DEAL)
        self.dealing_started()

    def require_ready_to_deal(self) -> None:
        """For the games layer, before every card: locked, reconciled and nothing latched."""
        self.latch.require_clear("dealing")
        if self.state not in (RECONCILED, DEALING):
            raise RuleViolation(READY_TO_DEAL, f"no card may be dealt: the progressive is {self.state}")

    # -- awards -------------------------------------------------------------------------------------
    async def award(self, level: int, seat: int) -> AwardResult:
        """Pay ``level`` to ``seat``: the level freezes at the amount paid (jackpot lock) and the
        sign must show the win within ``win_deadline``, or SIGN_LINK_LOST latches. An
        OutcomeUnknown from the driver is reconciled with the level's hits (``reconcile_award``),
        never by resending."""
        self._require("jackpot_paid", "the award", AWARD_TO_WAGER, seat=seat)
        self.latch.require_clear("the award")
        link = self._linked(level)
        if link is not None:  # a level the link cannot pay is refused before the controller freezes it
            link.require_level(level)
        known = self.levels.get(level)
        self._hits_before_award = 0 if known is None else known.hits
        result = await self.driver.award(level, seat)
        self._still_online("the award", moves_money=True)
        return await self._paid(level, seat, result)

    async def reconcile_award(self, level: int, seat: int) -> AwardResult:
        """The award whose answer was lost, once the controller is back and cleared: a hit the
        level counted since the award was sent, to ``seat``, is the award paid (from the level's
        hit history); with none, the award is made now."""
        info = await self.driver.level(level)
        if info.hits <= self._hits_before_award:
            return await self.award(level, seat)
        last = (await self.driver.hits(level))[0]
        if last.seat != seat:
            detail = f"level {level}: the controller's last hit went to seat {last.seat}, not {seat}"
            raise RuleViolation(AWARD_TO_WAGER, detail)
        return await self._paid(level, seat, AwardResult(level, last.seat, last.amount_cents, last.number))

    async def _paid(self, level: int, seat: int, result: AwardResult) -> AwardResult:
        """Record the award, then read its level and show the win. The award is paid once recorded:
        a link lost after that is not the award's (asking it again would be refused as paid twice);
        the level is read and the win shown when the controller is back (``sync``). A linked
        level pays what the link controller froze for this hit, once it has told it. One the link
        controller refuses (HitRefused) is not paid: its level, frozen by this table's controller at
        the award, is read back so the table holds for its keyed reset as for any frozen level, and
        the award is recorded as an irregularity citing the rule before the refusal is raised for the
        round to go on (decision 0044)."""
        link = self._linked(level)
        if link is not None:
            assert self.round is not None
            try:
                amount = await link.hit(level, seat, self.round.round)
            except HitRefused as refused:
                self.irregular(
                    refused.rule,
                    f"seat {seat}: the level {level} award not paid: {refused.detail}; the controller "
                    f"froze the level at {result.amount_cents} cents: it holds until the keyed reset",
                )
                await self._read_level(level)
                raise
            result = AwardResult(result.level, result.seat, amount, result.hit_number)
        self.jackpot_paid(seat=seat, award=result)
        await self._read_level(level)
        return result

    async def _read_level(self, level: int) -> None:
        """Read a level back after an award and show it; a link lost meanwhile is not the award's:
        the level is read and shown when the controller is back (``sync``)."""
        try:
            self._keep(await self.driver.level(level))
        except (NotConnected, LinkLost, CommandTimeout):
            return
        await self._show(level)

    def voided(self) -> None:
        """The round of this controller voided at the table (its wagers returned, the progressive
        ones too; a round cut off by a restart and ruled void by a supervisor): on a link, its
        contribution is withdrawn and any hit of it taken out of the link's order. The round is the
        controller's last: the one locked, or, after a restart, the one read back from it, at once
        if it was read already, else as it is read (``sync``), the controller not yet reached."""
        if self.linked is None:
            return
        if self.round is None:
            self._void_owed = True
            return
        self.linked.void(self.round)

    @property
    def frozen_levels(self) -> list[int]:
        """The levels a hit froze, waiting for their keyed reset (605a.7(a)): here, or at any
        table of the link for a linked level (the jackpot lock), as the table's state shows them.
        Only those frozen here hold the table (``frozen_here``); a linked level locked elsewhere
        refuses the progressive wagers (``wagers_refused``)."""
        linked = self.linked.locked_levels if self.linked is not None else ()
        return sorted({*self.frozen_here, *linked})

    @property
    def frozen_here(self) -> list[int]:
        """The levels a hit at this table froze: the ones its keyed reset releases."""
        return [level for level, info in sorted(self.levels.items()) if info.frozen]

    async def reset_level(self, level: int, key: str) -> LevelInfo:
        """The keyed reset releases a frozen level (its value restarted at the hit) and the sign
        shows its value again. A wrong key is refused by the controller (DeviceRefused) and the
        level stays frozen."""
        self._require("level_reset", "the keyed reset", KEYED_RESET, level=level)
        info = await self.driver.reset_level(level, key)
        self._still_online("the keyed reset", moves_money=True)
        self.level_reset(level=level)
        self._keep(info)
        link = self._linked(level)
        if link is not None:
            link.reset(level)
        await self._show(level)
        return info

    # -- faults -----------------------------------------------------------------------------------
    async def clear(self, code: str, operator: Operator) -> None:
        """A supervisor's clear. SIGN_LINK_LOST clears only with the sign back, and the sign is then
        brought up to date; a fault the sign raised is cleared on the sign. LINK_LOST clears only
        with the controller back (Equipment.clear), which is then read again (``sync``): a round
        being dealt goes on being dealt, and one it had locked and the host had reconciled stays
        reconciled, so betting opens on the next. LOCKOUT_FAILED: the sensors are told again.
        FLOOR_SPOOL_UNWRITTEN clears only once the link's messages the spool could not take are
        spooled (``LinkedLevels.flush``, tried again here)."""
        fault = self.latch.authorise_clear(code, operator)
        if code == SPOOL_UNWRITTEN_CODE and self.linked is not None and not self.linked.flush():
            owed = ", ".join(self.linked.owed)
            detail = f"{code} stays: link {self.linked.link}: not yet spooled: {owed}"
            raise RuleViolation(SPOOL_UNWRITTEN, detail)
        if code == LINK_MISMATCH and self.linked is not None:
            try:
                self.linked.cleared()
            except Unspooled as exc:  # the difference not kept: not taken, the fault stays
                raise RuleViolation(SPOOL_UNWRITTEN, f"{code} stays: the difference not kept: {exc}") from exc
            self.latch.release(code)
            return
        if code == LOCKOUT_FAILED:  # the sensors told again at once: a failure latches it again
            self.latch.release(code)
            await self.match_lockout()
            return
        if code in SIGN_LINK_FAULTS and self.sign.conn.state is not ConnectionState.READY:
            raise RuleViolation(SIGN_SHOWS, f"{code} stays: {self.sign.name} is {self.sign.conn.state.value}")
        if code == SIGN_FAULT_PREFIX + "DEVICE_SWAPPED":
            self.sign.conn.accept_identity()  # HandshakeRejected: the new sign fails the host's checks
        if fault.origin == _SIGN:
            await self.sign.clear_fault(FaultCode[code.removeprefix(SIGN_FAULT_PREFIX)], operator.ident)
            self.latch.release(code)
        else:
            await super().clear(code, operator)
        if code == "SIGN_LINK_LOST":
            await self._show_all()
        elif code == "LINK_LOST":  # the controller is back: its round, sensors and meters read again
            try:
                await self.sync()
            except BaseException:  # lost again before it was read: the table must not go on offline
                self.latch.latch(fault)
                raise

    # -- the sign and the meters -------------------------------------------------------------------
    async def _show_all(self) -> None:
        for level in sorted(self.levels):
            await self._show(level)

    async def show_linked(self, level: int) -> None:
        """A linked level's value or lock as the link controller last told it, on the sign, and
        what the sign confirmed it shows in the trail."""
        async with self._sign_lock:
            shown = await self._shown(level)
        link = self.linked
        if shown is not None and link is not None:
            self.notify(SIGN_SHOWS, "linked_value_shown", link=link.link, level=level, amount_cents=shown)

    async def _show(self, level: int) -> None:
        """Show the level as its meters stand: its win while frozen, else its value (a linked
        level's, the link controller's: the first hit's frozen amount while a hit at another table
        locks it, and a win the amount the link froze for this table's hit, also after a restart,
        when the win read back from the controller holds its own meter's amount). A win may wait for
        the sign up to the deadline; a value is shown at once or SIGN_LINK_LOST latches."""
        async with self._sign_lock:
            await self._shown(level)

    async def _shown(self, level: int) -> int | None:
        """``_show``'s work: the amount the sign confirmed it shows, or None (nothing shown)."""
        info = self.levels[level]
        win = self.wins.get(level) if info.frozen else None
        amount = info.value_cents if win is None else win.amount_cents
        link = self._linked(level)
        if link is not None:
            linked = link.value(level) if win is None else link.paid(level)
            if linked is None:  # the controller not heard yet: the sign keeps what it shows
                return None
            if win is not None and win.amount_cents != linked:  # read from the meters after a restart
                win = self.wins[level] = AwardResult(win.level, win.seat, linked, win.hit_number)
            amount = linked
        try:
            if win is None:
                shown = await self.sign.display(level, amount)
            else:
                async with asyncio.timeout(self.win_deadline):
                    await self.sign.conn.wait_ready(self.win_deadline)
                    shown = await self.sign.show_win(level, win.seat, amount)
        except (DriverError, TimeoutError) as exc:
            what = "value" if win is None else "win"
            why = str(exc) or f"no confirmation within {self.win_deadline} s"
            self._latch("SIGN_LINK_LOST", f"level {level} {what} not shown: {why}", SIGN_SHOWS)
            return None
        if (shown.amount_cents, shown.win) != (amount, win is not None):
            self._latch(
                "METER_MISMATCH",
                f"the sign shows {shown.amount_cents} cents for level {level}, the meter is {amount}",
                METERS_AGREE,
            )
        return shown.amount_cents

    def _keep(self, info: LevelInfo, *, in_added: int | None = None) -> None:
        """Keep a level's meters after checking them: any disagreement latches METER_MISMATCH."""
        problems = meter_problems(info)
        before = self.levels.get(info.level)
        if in_added is not None and before is not None and info.in_cents - before.in_cents != in_added:
            problems.append(f"in meter rose {info.in_cents - before.in_cents} cents for {in_added} wagered")
        if problems:
            self._latch("METER_MISMATCH", f"level {info.level}: {'; '.join(problems)}", METERS_AGREE)
        self.levels[info.level] = info

    def _still_online(self, action: str, *, moves_money: bool) -> None:
        """The device answered, but its link went as the answer came (a device event applied while
        it was asked): the machine is offline and waits for the controller to be read again. A step
        that moves nothing is asked again then (LinkLost); one that moves money is reconciled from
        the controller, never resent (OutcomeUnknown)."""
        if self.state == OFFLINE:
            lost = OutcomeUnknown if moves_money else LinkLost
            raise lost(f"{self.name}: the link went as {action} was answered")

    def _latch(self, code: str, detail: str, rule: Rule) -> None:
        self.latch.latch(Fault(code, detail, rule.clause, "host"))

    def _require(self, trigger: str, action: str, rule: Rule, **data: object) -> None:
        """Check ``trigger``'s state and conditions before the device is asked. A condition that
        fails raises its own RuleViolation; a False here means the state is wrong."""
        if not self.may_trigger(trigger, **data):
            raise RuleViolation(rule, f"{action} refused: the progressive is {self.state}")

    # -- conditions (raise RuleViolation naming their rule, or return True) ------------------------
    def _device_locked(self, event: EventData) -> bool:
        return bool(event.kwargs["round_state"].locked)

    def _round_was_reconciled(self, event: EventData) -> bool:
        return bool(event.kwargs["round_state"].round == self._reconciled_round)

    def _latch_clear(self, event: EventData) -> bool:
        self.latch.require_clear(event.event.name.replace("_", " "))
        return True

    def _chips_match(self, event: EventData) -> bool:
        assert self.round is not None
        counted, accepted = event.kwargs["count"], self.round.count
        if counted != accepted:
            detail = (
                f"{counted} value chip(s) counted, {accepted} progressive wager(s) accepted "
                f"in round {self.round.round}"
            )
            self._latch("CHIP_COUNT_MISMATCH", detail, CHIP_COUNT)
            raise RuleViolation(CHIP_COUNT, detail)
        return True

    def _seat_accepted(self, event: EventData) -> bool:
        assert self.round is not None
        seat = event.kwargs["seat"]
        if seat not in seats_in(self.round.accepted):
            raise RuleViolation(
                AWARD_TO_WAGER, f"seat {seat} has no progressive wager accepted in round {self.round.round}"
            )
        return True

    def _no_level_frozen(self, event: EventData) -> bool:
        """A level this table's hit froze. (A linked level another table's hit locks refuses only
        the progressive wagers, decision 0039; a round in play when it locks is paid after that
        hit.)"""
        if frozen := ", ".join(map(str, self.frozen_here)):
            raise RuleViolation(KEYED_RESET, f"level(s) {frozen} jackpot-locked: the keyed reset comes first")
        return True

    def _level_frozen(self, event: EventData) -> bool:
        level = event.kwargs["level"]
        info = self.levels.get(level)
        if info is None or not info.frozen:
            raise RuleViolation(KEYED_RESET, f"level {level} is not jackpot-locked: nothing to reset")
        return True

    # -- records (after a transition; they only note what happened) --------------------------------------
    def _record_round(self, event: EventData) -> None:
        round_state: RoundState = event.kwargs["round_state"]
        if self.round is None or round_state.round != self.round.round:  # not the same round read again
            self._chip_counts = 0
        self.round = round_state

    def _record_reconciled(self, event: EventData) -> None:
        assert self.round is not None
        self._reconciled_round = self.round.round

    def _record_award(self, event: EventData) -> None:
        award: AwardResult = event.kwargs["award"]
        self.wins[award.level] = award

    def _record_reset(self, event: EventData) -> None:
        self.wins.pop(event.kwargs["level"], None)
