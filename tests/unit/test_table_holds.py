"""The table's wait on a lost link (croupier.tables.holding): a card-moving step whose device link
was already down did not run; it waits for LINK_LOST to latch, for a supervisor's clear, then runs
again, once. Here the equipment is a stand-in: this is the hold's own logic, one layer."""

from __future__ import annotations

import asyncio
from typing import Any

import structlog

from croupier.tables.holding import SupervisorHolds
from devices.faults import Fault, FaultLatch
from drivers.errors import NotConnected
from tests.links import run
from vocabulary.operators import Operator, Role

FLOOR = Operator("FLOOR-1", Role.SUPERVISOR)


class Machine:
    """A device machine's latch and clear, without a device."""

    name = "shoe"

    def __init__(self) -> None:
        self.latch = FaultLatch()

    async def clear(self, code: str, operator: Operator) -> None:
        self.latch.authorise_clear(code, operator)
        self.latch.release(code)


class Feeds:
    """The link's state change reaching the machine when the feeds settle."""

    def __init__(self, machine: Machine) -> None:
        self.machine = machine

    async def settled(self) -> None:
        self.machine.latch.latch(Fault("LINK_LOST", "no heartbeat", "decision 0017", "host"))


class Table(SupervisorHolds):
    def __init__(self) -> None:
        self.name, self.log = "T", structlog.get_logger("test")
        self.machine = Machine()
        self.feeds = Feeds(self.machine)
        self._init_holds()

    @property
    def equipment(self) -> tuple[Any, ...]:
        return (self.machine,)


def test_a_step_on_a_link_already_down_waits_for_the_clear_and_runs_once_more() -> None:
    async def scenario() -> None:
        table, attempts = Table(), []

        async def deal() -> str:
            attempts.append(1)
            if len(attempts) == 1:
                raise NotConnected("shoe: Dispense refused: link is backoff")
            return "card"

        step = asyncio.create_task(table._held_on_fault(deal))
        async with asyncio.timeout(5):
            while not table.faults:
                await asyncio.sleep(0.01)
        await asyncio.sleep(0.05)
        assert not step.done() and len(attempts) == 1, "held, not retried while latched"
        await table.clear("LINK_LOST", FLOOR)
        assert await asyncio.wait_for(step, 5) == "card" and len(attempts) == 2

    run(scenario())
