"""Drivers of the progressive table game system: the controller and its meter sign.

Typed calls over the class messages (drivers/protocol/classes/progressive.py and meter_sign.py),
nothing more: whether a lock may happen now, or a chip count is right, is the business of
devices/progressive.py.
"""

from __future__ import annotations

from drivers.driver import Driver
from drivers.protocol.classes.meter_sign import Display, Shown, ShowWin
from drivers.protocol.classes.progressive import (
    HITS_PAGE,
    Award,
    AwardResult,
    GetHits,
    GetLevel,
    GetRound,
    Hit,
    HitsPage,
    LevelInfo,
    Lock,
    LockoutState,
    NewRound,
    ReadSensors,
    ResetLevel,
    RoundState,
    SensorReading,
    SetLockout,
)
from drivers.protocol.core import DeviceClass


class ProgressiveDriver(Driver):
    """The progressive controller: wager sensors, the lockout, levels and awards."""

    DEVICE_CLASS = DeviceClass.PROGRESSIVE_CONTROLLER

    async def read_sensors(self) -> SensorReading:
        return await self.call(ReadSensors(), SensorReading)

    async def lockout(self, locked_out: bool) -> LockoutState:
        """Lock out (or re-enable) wager acceptance at the sensors: while locked out, a Lock accepts
        nothing. Safe to send again: it sets a state, it moves nothing."""
        return await self.call(SetLockout(locked_out), LockoutState)

    async def lock(self) -> RoundState:
        """No more bets: the accepted wagers of the round. Money moves: see OutcomeUnknown."""
        return await self.call(Lock(), RoundState)

    async def new_round(self) -> RoundState:
        return await self.call(NewRound(), RoundState)

    async def read_round(self) -> RoundState:
        return await self.call(GetRound(), RoundState)

    async def level(self, level: int) -> LevelInfo:
        return await self.call(GetLevel(level), LevelInfo)

    async def hits(self, level: int) -> list[Hit]:
        """The level's stored hit history, newest first, read page by page."""
        first = await self.call(GetHits(level, 0), HitsPage)
        hits = list(first.hits)
        pages = -(-first.stored // HITS_PAGE)
        for page in range(1, pages):
            hits += (await self.call(GetHits(level, page), HitsPage)).hits
        return hits

    async def award(self, level: int, seat: int) -> AwardResult:
        """Pay ``level`` to ``seat``; the level is frozen until reset_level. Never resent blindly:
        an OutcomeUnknown is reconciled with ``hits``."""
        return await self.call(Award(level, seat), AwardResult)

    async def reset_level(self, level: int, key: str) -> LevelInfo:
        """The keyed reset of a frozen level."""
        return await self.call(ResetLevel(level, key), LevelInfo)


class MeterSignDriver(Driver):
    """The meter sign: shows what the host tells it and says what it shows."""

    DEVICE_CLASS = DeviceClass.METER_SIGN

    async def display(self, level: int, amount_cents: int) -> Shown:
        return await self.call(Display(level, amount_cents), Shown)

    async def show_win(self, level: int, seat: int, amount_cents: int) -> Shown:
        return await self.call(ShowWin(level, seat, amount_cents), Shown)
