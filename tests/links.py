"""Test harness: a simulated device behind a real port, and the driver stack connected to it."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable, Coroutine
from dataclasses import dataclass
from typing import TypeVar

from drivers import event_loop
from drivers.connection import ConnectionState, DeviceConnection, SupervisorSettings
from drivers.host_link import LinkTimings
from drivers.transport.base import Transport
from firmware_sim.device import SimulatedDevice
from firmware_sim.ports import Port

T = TypeVar("T")
E = TypeVar("E")

#: Fast timers for tests, still generous against scheduling noise on a shared machine.
FAST = SupervisorSettings(
    heartbeat_interval=0.1,
    backoff_initial=0.05,
    backoff_max=0.5,
    presence_poll=0.05,
    timings=LinkTimings(response_timeout=0.1, max_retries=3, partial_frame_timeout=0.1),
)


@dataclass
class Rig:
    port: Port
    conn: DeviceConnection

    @property
    def device(self) -> SimulatedDevice:
        return self.port.device


@contextlib.asynccontextmanager
async def connected(
    port: Port,
    transport: Callable[[str], Transport],
    *,
    settings: SupervisorSettings = FAST,
    wait: bool = True,
    **kwargs: object,
) -> AsyncIterator[Rig]:
    """Connect the driver stack to a started ``port``; stop both afterwards."""
    conn = DeviceConnection(lambda: transport(port.url), name=port.device.name, settings=settings, **kwargs)  # type: ignore[arg-type]
    try:
        await conn.start()
        if wait:
            await conn.wait_ready(5.0)
        yield Rig(port, conn)
    finally:
        await conn.stop()
        port.stop()


def run(coro: Coroutine[object, object, T], timeout: float = 30.0) -> T:
    """Run a test scenario on a fresh loop of the kind the table service runs on (uvloop's: decision
    0051); fail if it leaves a task running behind it."""

    async def guarded() -> T:
        result = await asyncio.wait_for(coro, timeout)
        leftover = [t for t in asyncio.all_tasks() if t is not asyncio.current_task() and not t.done()]
        assert not leftover, f"tasks leaked by the scenario: {leftover}"
        return result

    return event_loop.run(guarded())


async def wait_for_state(conn: DeviceConnection, state: ConnectionState, timeout: float = 5.0) -> float:
    """Wait until the connection reaches ``state``; return how long it took."""
    loop = asyncio.get_running_loop()
    start = loop.time()
    while conn.state is not state:
        if loop.time() - start > timeout:
            raise AssertionError(
                f"{conn.name} stayed {conn.state.value}, wanted {state.value} (last error: {conn.last_error})"
            )
        await asyncio.sleep(0.005)
    return loop.time() - start


async def next_event(conn: DeviceConnection, kind: type[E], timeout: float = 3.0) -> E:
    """The next queued connection event of ``kind``, skipping others."""
    async with asyncio.timeout(timeout):
        while True:
            event = await conn.events.get()
            if isinstance(event, kind):
                return event
