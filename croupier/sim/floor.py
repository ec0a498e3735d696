"""The simulated floor supervisor: on a real floor a person clears a latched fault and rules on a
held round; in the simulator one does so after a short delay, so that a batch run finishes and the
rules' reaction is still visible (the hold happens, is audited, and is counted in the summary)."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable
from typing import Any

import structlog

from croupier.journal import TableJournal
from croupier.sim.summary import Tally
from croupier.simulated import FLOORPERSON
from games.common.messages import Resolution

log = structlog.get_logger("croupier.sim")

#: How long the floor person takes to walk over: long enough that a hold is a hold.
DELAY = 0.2


class FloorSupervisor:
    """Watches ``table`` and, after DELAY, clears each latched fault (``repair`` first: free a jam),
    rules on a held round (CONTINUE where the irregularity offers it, else VOID) and turns the
    reset key of each level a jackpot froze (``reset_key`` reads the controller's key)."""

    def __init__(
        self,
        table: Any,
        tally: Tally | None,
        journal: TableJournal | None,
        *,
        repair: Callable[[], None] = lambda: None,
        reset_key: Callable[[], str] | None = None,
        delay: float = DELAY,
    ) -> None:
        self.table, self.tally, self.journal, self.repair, self.delay = table, tally, journal, repair, delay
        self.reset_key = reset_key

    async def patrol(self) -> None:
        """Run until cancelled."""
        while True:
            await asyncio.sleep(self.delay)
            if self.table.faults:
                await self._clear()
            held = self.table.held_round
            if held is not None:
                self._rule(held)
            await keyed_resets(self.table, self.reset_key, self.journal)

    async def _clear(self) -> None:
        self.repair()
        for code in sorted({fault.code for fault in self.table.faults}):
            try:
                await self.table.clear(code, FLOORPERSON)
            except Exception as exc:  # the device still down (unplugged): try again on the next walk
                log.warning("clear refused", code=code, error=str(exc))
                continue
            if self.tally is not None:
                self.tally.fault_cleared(code)
            if self.journal is not None:
                self.journal.operator_action("clear", FLOORPERSON, code=code)

    def _rule(self, held: Any) -> None:
        offered = held.hold.resolutions
        ruling = Resolution.CONTINUE if Resolution.CONTINUE in offered else Resolution.VOID
        self.table.resolve(FLOORPERSON, ruling)
        if self.journal is not None:
            fields = {"resolution": ruling.value, "held_round": held.number}
            self.journal.operator_action("ruling", FLOORPERSON, **fields)


async def keyed_resets(table: Any, reset_key: Callable[[], str] | None, journal: TableJournal | None) -> None:
    """Turn the reset key of each level a jackpot froze, as the floorperson does before the next
    round: at Crazy 4 Poker betting opens again only after it (605a.7(a))."""
    progressive = getattr(table, "progressive", None)
    if progressive is None or reset_key is None:
        return
    for level in progressive.frozen_levels:
        await table.reset_level(level, reset_key(), FLOORPERSON)
        if journal is not None:
            journal.operator_action("progressive_reset", FLOORPERSON, level=level)


def controller_key(sim: Any) -> Callable[[], str] | None:
    """What the simulated controller's keyed reset switch reads, at a table with one."""
    controller = sim.devices.get("progressive")
    if controller is None:
        return None
    return lambda: str(controller.call(lambda engine: engine.personality.reset_key))


@contextlib.asynccontextmanager
async def on_the_floor(supervisor: FloorSupervisor) -> AsyncIterator[FloorSupervisor]:
    """The supervisor patrols while the block runs."""
    task = asyncio.create_task(supervisor.patrol())
    try:
        yield supervisor
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
