"""Each device's events, applied to its machine in the order they arrived: one task per connection.

A device machine (devices/) learns of faults, doors, a cover card or a lost link only through
``apply``; the table service runs one task per connection that takes the connection's events off
its queue and applies them, so each machine sees its own device's events in order and no event is
dropped or applied twice: when the feeds stop (the service stopping), the events a device's link
acknowledged and queued are applied before they end, and the links acknowledge no more, so that an
event told as the service stops is either applied here or kept by the device for the next service
(docs/protocol.md §5.7). ``settled`` waits until every event queued so far has been applied: the
table's way of knowing that what a device said before an action is already in the rules' view.
Each event applied is then published on the table's hub as a ``DeviceEventApplied`` (decision 0031;
the API streams it).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Iterable
from dataclasses import dataclass
from typing import Any

import structlog

from devices.equipment import Equipment
from vocabulary.events import Event, Events

Machine = Equipment[Any]  # Any: any device's driver
_log = structlog.get_logger("croupier.tables.feeding")


@dataclass(frozen=True)
class DeviceEventApplied(Event):
    """A device's driver event (a fault raised, a door, a link state...), once its machine applied it.
    No device event carries a face-down card's face (docs/protocol.md §11.2)."""

    device: str
    event: object


class Feeds:
    """The event feeds of a set of device machines; start them with ``running``. Each event applied
    is published on ``events`` (the table's hub)."""

    def __init__(
        self, machines: Iterable[Machine], record: list[object] | None = None, *, events: Events | None = None
    ) -> None:
        self.machines = tuple(machines)
        self.record = record  # every event applied, in order, when given (for tests and traces)
        self.events = events if events is not None else Events()
        self._tasks: list[asyncio.Task[None]] = []

    @contextlib.asynccontextmanager
    async def running(self) -> AsyncIterator[Feeds]:
        """Feed every machine while the block runs; stop the feeds on the way out."""
        self._tasks = [
            asyncio.create_task(self._feed(machine), name=f"feed-{machine.name}") for machine in self.machines
        ]
        try:
            yield self
        finally:
            # The service is stopping: an event a device tells from now on stays on the device for
            # the next service, and one acknowledged already is applied here, not dropped.
            for machine in self.machines:
                machine.driver.conn.keep_events_on_device()
            for task in self._tasks:
                task.cancel()
            for task in self._tasks:
                with contextlib.suppress(asyncio.CancelledError):
                    await task
            self._tasks = []
            for machine in self.machines:
                events = machine.driver.conn.events
                while not events.empty():
                    self._apply(machine, events.get_nowait())
                    events.task_done()

    def connections(self) -> dict[str, Any]:  # Any: any device's connection
        """Each device's connection by name (a meter sign's too, which has no machine of its own)."""
        return {machine.name: machine.driver.conn for machine in self.machines}

    def links(self) -> dict[str, str]:
        """Each device's link state by name."""
        return {name: conn.state.value for name, conn in self.connections().items()}

    async def settled(self) -> None:
        """Return once every event already queued on each connection has been applied."""
        await asyncio.gather(*(machine.driver.conn.events.join() for machine in self.machines))

    async def _feed(self, machine: Machine) -> None:
        events = machine.driver.conn.events
        while True:
            event = await events.get()
            try:
                self._apply(machine, event)
            finally:
                events.task_done()

    def _apply(self, machine: Machine, event: object) -> None:
        try:
            if self.record is not None:
                self.record.append(event)
            machine.apply(event)
            self.events.publish(DeviceEventApplied(machine.name, event))
        except Exception:  # a bad event must not stop the feed: the next ones still count
            _log.exception("device event not applied", device=machine.name, event=type(event).__name__)
