"""Simulated progressive table game system: the controller (seat sensors, keypad, levels) and the
meter sign. Both usually share one RS-485 line (firmware_sim/multidrop.py).

The controller keeps its meters as a real one keeps them in battery-backed memory: they survive a
reboot, and they obey the meter equation of docs/protocol.md §11.4 exactly, sub-cent
contributions included, so the host can check every read. Physical happenings (a wager placed on a
sensor, a sensor failing) are methods the tests and the console call through ``SimulatedDevice.call``.
"""

from __future__ import annotations

import collections
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from drivers.protocol.classes.meter_sign import Display, Shown, ShowWin
from drivers.protocol.classes.progressive import (
    BASIS_POINTS,
    HITS_KEPT,
    HITS_PAGE,
    MAX_SEATS,
    Award,
    AwardResult,
    GetHits,
    GetLevel,
    GetRound,
    Hit,
    HitsPage,
    JackpotHit,
    LevelInfo,
    Lock,
    LockoutState,
    NewRound,
    ReadSensors,
    ResetLevel,
    RoundState,
    SensorChanged,
    SensorReading,
    SetLockout,
    WagerAfterLock,
    WagerLockedOut,
    seat_mask,
)
from drivers.protocol.core import DeviceClass, FaultCode
from drivers.protocol.message import Command, Reply, Status
from firmware_sim.personality import Personality, Refusal

if TYPE_CHECKING:
    from firmware_sim.engine import DeviceEngine


def _refuse(detail: str) -> Refusal:
    return Refusal(Status.REFUSED, detail)


def _check_level(level: int, levels: int) -> None:
    if not 1 <= level <= levels:
        raise _refuse(f"no level {level}: levels are 1..{levels}")


@dataclass(frozen=True)
class LevelConfig:
    """A level's parameters (New Jersey 13:69E-1.39A, analog): where it restarts after a hit,
    the share of each wager it grows by and the share held in reserve, and the value it stops at."""

    reset_cents: int
    increment_bp: int
    limit_cents: int
    reserve_bp: int = 0

    def __post_init__(self) -> None:
        if not 0 <= self.reset_cents <= self.limit_cents:
            raise ValueError(f"need 0 <= reset ({self.reset_cents}) <= limit ({self.limit_cents})")
        if self.increment_bp < 0 or self.reserve_bp < 0:
            raise ValueError("rates must not be negative")
        if self.increment_bp + self.reserve_bp > BASIS_POINTS:
            raise ValueError("increment and reserve rates together exceed 100 %")


@dataclass
class _Level:
    """One level's meters. Contributions are kept to 1/10000 of a cent, so nothing is lost to
    rounding: the meter equation holds after any number of wagers."""

    config: LevelConfig
    value: int = field(init=False)
    in_cents: int = 0
    hits: int = 0
    wins: int = 0
    overflow: int = 0
    reserve: int = 0
    frozen: bool = False
    value_units: int = 0  # sub-cent remainder of the value contributions, in 1/10000 cent
    reserve_units: int = 0
    history: collections.deque[Hit] = field(default_factory=lambda: collections.deque(maxlen=HITS_KEPT))

    def __post_init__(self) -> None:
        self.value = self.config.reset_cents

    def contribute(self, cents: int) -> None:
        self.in_cents += cents
        whole, self.value_units = divmod(self.value_units + cents * self.config.increment_bp, BASIS_POINTS)
        self._grow(whole)
        whole, self.reserve_units = divmod(self.reserve_units + cents * self.config.reserve_bp, BASIS_POINTS)
        self.reserve += whole

    def _grow(self, cents: int) -> None:
        """Add to the value up to the limit; beyond it the money waits in the overflow meter."""
        room = self.config.limit_cents - self.value
        self.value += min(cents, room)
        self.overflow += max(0, cents - room)

    def hit(self, round_number: int, seat: int) -> Hit:
        """Jackpot lock: pay the value, restart at the reset value plus what the overflow holds."""
        hit = Hit(self.hits + 1, round_number, seat, self.value)
        self.hits += 1
        self.wins += hit.amount_cents
        self.frozen = True
        self.history.appendleft(hit)
        carried, self.overflow = self.overflow, 0
        self.value = self.config.reset_cents
        self._grow(carried)
        return hit

    def info(self, number: int) -> LevelInfo:
        c = self.config
        return LevelInfo(
            level=number,
            reset_cents=c.reset_cents,
            increment_bp=c.increment_bp,
            reserve_bp=c.reserve_bp,
            limit_cents=c.limit_cents,
            value_cents=self.value,
            in_cents=self.in_cents,
            hits=self.hits,
            wins_cents=self.wins,
            overflow_cents=self.overflow,
            reserve_cents=self.reserve,
            frozen=self.frozen,
        )


DEFAULT_LEVELS = (
    LevelConfig(reset_cents=1_000_000, increment_bp=1000, limit_cents=25_000_000, reserve_bp=200),
    LevelConfig(reset_cents=50_000, increment_bp=500, limit_cents=500_000),
)


@dataclass
class ControllerPersonality(Personality):
    """A progressive controller with ``seats`` wager sensors and a dealer keypad.

    ``wager_cents`` is the progressive wager each covered sensor stands for; ``reset_key`` what the
    keyed reset switch reads; ``locked_out`` whether wager acceptance is locked out (SetLockout),
    kept, as the round is, across a power cycle. ``meter_error_cents`` is a firmware fault for
    tests: added to level 1's value at the next lock, breaking the meter equation.
    """

    device_class: DeviceClass = DeviceClass.PROGRESSIVE_CONTROLLER
    model: str = "SIM-PROG"
    capabilities: tuple[str, ...] = ("seat-sensors", "keypad", "jackpot-lock", "keyed-reset")
    seats: int = 7
    wager_cents: int = 100
    level_configs: tuple[LevelConfig, ...] = DEFAULT_LEVELS
    reset_key: str = "PROG-KEY-1"
    meter_error_cents: int = 0
    covered: set[int] = field(default_factory=set)
    failed: set[int] = field(default_factory=set)
    round: int = 1
    locked: bool = False
    locked_out: bool = False
    accepted: frozenset[int] = frozenset()
    paid: set[tuple[int, int]] = field(default_factory=set)  # (level, seat) awarded this round
    levels: list[_Level] = field(init=False)

    def __post_init__(self) -> None:
        if not 1 <= self.seats <= MAX_SEATS:
            raise ValueError(f"a controller has 1..{MAX_SEATS} seats, not {self.seats}")
        if not self.level_configs:
            raise ValueError("a controller has at least one level")
        for seat in self.covered | self.failed | self.accepted:
            self._check_seat(seat)
        self.levels = [_Level(config) for config in self.level_configs]

    # -- the table: what tests and the console do to the device ---------------------------------
    def cover(self, engine: DeviceEngine, seat: int) -> None:
        """A chip is placed on ``seat``'s sensor. After the lock it is refused and reported."""
        self._check_seat(seat)
        if seat in self.covered:
            return
        self.covered.add(seat)
        engine.emit(SensorChanged(seat_mask(self.covered)))
        if self.locked and seat not in self.accepted:
            engine.emit(WagerAfterLock(self.round, seat))

    def uncover(self, engine: DeviceEngine, seat: int) -> None:
        """The chip is taken off (collected by the dealer, or withdrawn before the lock)."""
        self._check_seat(seat)
        if seat in self.covered:
            self.covered.discard(seat)
            engine.emit(SensorChanged(seat_mask(self.covered)))

    def fail_sensor(self, engine: DeviceEngine, seat: int) -> None:
        """The seat's sensor fails its self-test: SENSOR latches until it is repaired and cleared."""
        self._check_seat(seat)
        self.failed.add(seat)
        engine.raise_fault(FaultCode.SENSOR, f"seat {seat} wager sensor failed its self-test")

    def repair_sensor(self, seat: int) -> None:
        self.failed.discard(seat)

    def condition_persists(self, code: FaultCode) -> bool:
        return code is FaultCode.SENSOR and bool(self.failed)

    def _check_seat(self, seat: int) -> None:
        if not 1 <= seat <= self.seats:
            raise ValueError(f"no seat {seat}: this table has seats 1..{self.seats}")

    # -- the protocol --------------------------------------------------------------------------------
    def handle(self, command: Command, engine: DeviceEngine) -> Reply:
        if isinstance(command, ReadSensors):
            return SensorReading(seat_mask(self.covered), seat_mask(self.failed))
        if isinstance(command, Lock):
            refused = sorted(self.covered - self.failed) if self.locked_out else []
            round_state = self.start_game()
            for seat in refused:
                engine.emit(WagerLockedOut(self.round, seat))
            return round_state
        if isinstance(command, SetLockout):
            self.locked_out = command.locked_out
            return self._lockout_state()
        if isinstance(command, NewRound):
            return self._new_round()
        if isinstance(command, GetRound):
            return self._round_state()
        if isinstance(command, GetLevel):
            return self._level(command.level).info(command.level)
        if isinstance(command, GetHits):
            return self._hits(command.level, command.page)
        if isinstance(command, Award):
            return self._award(command.level, command.seat, engine)
        if isinstance(command, ResetLevel):
            return self._reset(command.level, command.key)
        return super().handle(command, engine)

    def _round_state(self) -> RoundState:
        return RoundState(
            round=self.round,
            locked=self.locked,
            accepted=seat_mask(self.accepted),
            count=len(self.accepted),
            wager_cents=self.wager_cents,
            levels=len(self.levels),
        )

    def _lockout_state(self) -> LockoutState:
        refused = self.covered - self.failed if self.locked_out else set()
        return LockoutState(locked_out=self.locked_out, refused=seat_mask(refused))

    def _level(self, level: int) -> _Level:
        _check_level(level, len(self.levels))
        return self.levels[level - 1]

    def start_game(self) -> RoundState:
        """The keypad's Start Game, which the Lock command presses: the covered, working sensors
        become the round's accepted wagers and feed every level; while wagering is locked out, none
        is accepted. Called directly, it powers up a controller in the middle of a locked round (the
        conformance profile does)."""
        if self.locked:
            raise _refuse(f"round {self.round} is already locked")
        self.locked = True
        self.accepted = frozenset() if self.locked_out else frozenset(self.covered - self.failed)
        for level in self.levels:
            level.contribute(len(self.accepted) * self.wager_cents)
        self.levels[0].value += self.meter_error_cents
        self.meter_error_cents = 0
        return self._round_state()

    def _new_round(self) -> RoundState:
        frozen = [n for n, level in enumerate(self.levels, start=1) if level.frozen]
        if frozen:
            raise _refuse(f"level(s) {', '.join(map(str, frozen))} jackpot-locked: keyed reset first")
        if self.locked:
            self.round += 1
            self.locked = False
            self.accepted = frozenset()
            self.paid.clear()
        return self._round_state()

    def _hits(self, level: int, page: int) -> HitsPage:
        history = list(self._level(level).history)
        start = page * HITS_PAGE
        if page and start >= len(history):
            raise _refuse(f"page {page} is past the {len(history)} hit(s) kept for level {level}")
        return HitsPage.of(level, page, len(history), history[start : start + HITS_PAGE])

    def _award(self, level: int, seat: int, engine: DeviceEngine) -> AwardResult:
        meters = self._level(level)
        if not self.locked:
            raise _refuse(f"round {self.round} is not locked: awards follow the lock")
        if seat not in self.accepted:
            raise _refuse(f"seat {seat} has no progressive wager accepted in round {self.round}")
        if (level, seat) in self.paid:
            raise _refuse(f"seat {seat} was already paid level {level} in round {self.round}")
        self.paid.add((level, seat))
        hit = meters.hit(self.round, seat)
        engine.emit(JackpotHit(level, seat, hit.amount_cents, hit.number))
        return AwardResult(level, seat, hit.amount_cents, hit.number)

    def _reset(self, level: int, key: str) -> LevelInfo:
        meters = self._level(level)
        if not meters.frozen:
            raise _refuse(f"level {level} is not jackpot-locked")
        if key != self.reset_key:
            raise _refuse("wrong reset key")
        meters.frozen = False
        return meters.info(level)


@dataclass
class SignPersonality(Personality):
    """A meter sign of ``levels`` levels. ``display_error_cents`` is a failing digit for tests:
    added to every amount shown."""

    device_class: DeviceClass = DeviceClass.METER_SIGN
    model: str = "SIM-SIGN"
    capabilities: tuple[str, ...] = ("meters", "win-display")
    levels: int = 2
    display_error_cents: int = 0
    shown: dict[int, Shown] = field(default_factory=dict)

    def handle(self, command: Command, engine: DeviceEngine) -> Reply:
        if isinstance(command, Display):
            return self._show(command.level, command.amount_cents, win=False, seat=0)
        if isinstance(command, ShowWin):
            return self._show(command.level, command.amount_cents, win=True, seat=command.seat)
        return super().handle(command, engine)

    def _show(self, level: int, amount: int, *, win: bool, seat: int) -> Shown:
        _check_level(level, self.levels)
        shown = Shown(level, (amount + self.display_error_cents) & 0xFFFFFFFF, win, seat)
        self.shown[level] = shown
        return shown
