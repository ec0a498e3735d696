"""The simulated floor supervisor: on a real floor a person clears a latched fault and rules on a
held round; in the simulator one does so after a short delay, so that a batch run finishes and the
rules' reaction is still visible (the hold happens, is audited, and is counted in the summary). It
clears and rules through the table service's own path (``supervisor_clear``), as the API does."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable, Collection
from functools import partial
from typing import Any

import structlog

from croupier.service.journal import TableJournal
from croupier.service.table_service import supervisor_clear, supervisor_ruling, supervisor_verify
from devices.equipment import FIRMWARE_UNVERIFIED_CODE
from devices.shuffler import BATCH_UNVERIFIED
from drivers.connection import ConnectionState
from firmware_sim import remote
from firmware_sim.world import DISCARD, FLOOR, SHUFFLER_INPUT, SHUFFLER_OUTPUT, PhysicalCard, TableWorld
from games.common.messages import Resolution
from simulator.dealer import FOREIGN_BACK
from simulator.summary import Tally
from simulator.tables import FLOORPERSON, SimulatedTable

log = structlog.get_logger("simulator")

#: How long the floor person takes to walk over: long enough that a hold is a hold.
DELAY = 0.2
#: A link down and reconnecting on its own: its device's faults wait for it (a FAILED link needs the
#: floor person: a refused firmware is verified again, which reconnects it).
RETRYING = frozenset({ConnectionState.BACKOFF, ConnectionState.CONNECTING, ConnectionState.HANDSHAKING})


class FloorSupervisor:
    """Watches ``table`` and, after DELAY, clears each latched fault (``repair`` first, given the
    codes latched: free a jam, take a failed batch's foreign card out, rack a dropped card),
    rules on a held round (CONTINUE where the irregularity offers it, else VOID) and turns the
    reset key of each level a jackpot froze (``reset_key`` reads the controller's key)."""

    def __init__(
        self,
        table: Any,  # Any: a table of any game
        tally: Tally | None,
        journal: TableJournal | None,
        *,
        repair: Callable[[Collection[str]], None] = lambda codes: None,
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
            try:
                await keyed_resets(self.table, self.reset_key, self.journal)
            except Exception as exc:  # the controller down or held: turn the key again on the next walk
                log.warning("keyed reset refused", error=str(exc))

    async def _clear(self) -> None:
        codes = sorted({fault.code for fault in self.table.faults})
        self.repair(codes)
        away = self._away()
        for code in codes:
            if code in away:  # cleared on a walk after its device is back: until then every try is refused
                continue
            try:
                if code.endswith(FIRMWARE_UNVERIFIED_CODE):  # the approved firmware checked again first
                    await self._verify(code)
                await supervisor_clear(self.table, self.journal, code, FLOORPERSON)
            except Exception as exc:  # the device still down (unplugged): try again on the next walk
                log.warning("clear refused", code=code, error=str(exc))
                continue
            if self.tally is not None:
                self.tally.fault_cleared(code)

    def _away(self) -> set[str]:
        """The faults latched on a device whose link is down and reconnecting: the table refuses their
        clear until the device is back (a LINK_LOST) or cannot reach the device to clear it (its own
        fault), so the floor person waits for the link rather than trying it again on every walk."""
        return {
            fault.code
            for machine in self.table.equipment
            if machine.link in RETRYING
            for fault in machine.latch.faults
        }

    async def _verify(self, code: str) -> None:
        """The device whose check latched ``code`` verified on demand, as the floor would before the
        clear (decision 0026: FIRMWARE_UNVERIFIED clears only after a check passes)."""
        for machine in self.table.equipment:
            if code in {fault.code for fault in machine.latch.faults}:
                device = machine.unverified_device(code)
                await supervisor_verify(self.table, self.journal, device, FLOORPERSON)

    def _rule(self, held: Any) -> None:  # Any: a held round of any game
        self.repair(())  # a card dropped on the way to the rack is found and racked before the ruling
        offered = held.hold.resolutions
        ruling = Resolution.CONTINUE if Resolution.CONTINUE in offered else Resolution.VOID
        supervisor_ruling(self.table, self.journal, FLOORPERSON, ruling)


#: The place a card the floor person took off the table passes through on its way out.
CONFISCATED = "confiscated"


def repair_world(world: TableWorld, codes: Collection[str] = ()) -> None:
    """What the floor person's hands do before clearing the latched ``codes`` or ruling on a held
    round: free a jammed card path; pick up any card dropped on the floor into the discard rack, so
    the next count of the batch finds it rather than latching a wrong count round after round; and,
    for a batch the shuffler failed (FOREIGN_CARD, WRONG_COUNT), take it out of the output tray, take
    every foreign card off the table and put the rest back in the input to be shuffled again (the
    device keeps the fault while the failed batch is in its output tray); a batch whose shuffle's
    outcome was unknown (OUTCOME_UNKNOWN), or that unverified firmware shuffled (BATCH_UNVERIFIED),
    goes back to the input whole. Every card moves through
    the world, and a confiscated one leaves through ``remove``, so the books stay balanced."""
    with world.lock:
        world.faults.stuck.clear()
        if world.count(FLOOR):
            world.move_all(FLOOR, DISCARD)
        output = world.cards(SHUFFLER_OUTPUT)
        if {"OUTCOME_UNKNOWN", BATCH_UNVERIFIED} & set(codes) and output:  # shuffled again, whole
            world.move_all(SHUFFLER_OUTPUT, SHUFFLER_INPUT)
        elif set(codes) & {"FOREIGN_CARD", "WRONG_COUNT"} and any(map(_foreign, output)):
            batch = world.take(SHUFFLER_OUTPUT, len(output))
            world.put(CONFISCATED, [card for card in batch if _foreign(card)])
            world.put(SHUFFLER_INPUT, [card for card in batch if not _foreign(card)], bottom=True)
            world.remove(CONFISCATED)


def repair_sim(
    sim: SimulatedTable[Any, Any], codes: Collection[str] = ()  # Any: a simulated table of any game
) -> None:
    """``repair_world`` on the simulated table's world and, for a FIRMWARE_UNVERIFIED, the approved
    firmware installed again on each device whose last check failed (the ``tamper`` fault); one
    tampered with since is left for its own check to find."""
    repair_world(sim.world, codes)
    if any(code.endswith(FIRMWARE_UNVERIFIED_CODE) for code in codes):
        for machine in sim.table.equipment:
            for device, check in machine.last_check.items():
                if not check.passed:
                    sim.devices[device].call(remote.reinstall_firmware)


def _foreign(card: PhysicalCard) -> bool:
    """A card no batch of these games holds: another back, or a joker (every table here configures
    its batches without jokers, 603a.15; a joker dealt from the shoe was racked with the round)."""
    return card.back == FOREIGN_BACK or (card.face is not None and card.face.is_joker)


async def keyed_resets(
    table: Any, reset_key: Callable[[], str] | None, journal: TableJournal | None  # Any: a table of any game
) -> None:
    """Turn the reset key of each level a jackpot froze, as the floorperson does before the next
    round: at Crazy 4 Poker betting opens again only after it (605a.7(a))."""
    progressive = table.progressive
    if progressive is None or reset_key is None:
        return
    for level in progressive.frozen_here:  # a linked level another table's hit locks is reset there
        await table.reset_level(level, reset_key(), FLOORPERSON)
        if journal is not None:
            journal.operator_action("progressive_reset", FLOORPERSON, level=level)


def controller_key(sim: Any) -> Callable[[], str] | None:  # Any: a simulated table of any game
    """What the simulated controller's keyed reset switch reads, at a table with one."""
    controller = sim.devices.get("progressive")
    if controller is None:
        return None
    return partial(controller.call, remote.reset_key)


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
