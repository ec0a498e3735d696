"""Telling systemd how the service is doing: readiness, status, the watchdog (sd_notify(3)).

No library is needed: the protocol is one datagram per message to the socket systemd names in
NOTIFY_SOCKET. The watchdog is fed from the table's own event loop, so a loop that hangs stops
feeding it and systemd restarts the service (``WatchdogSec=`` in config/systemd/croupier.service).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import socket
from collections.abc import AsyncIterator


def notify(message: str) -> bool:
    """Send ``message`` (``READY=1``, ``STATUS=...``); False when not run by systemd."""
    path = os.environ.get("NOTIFY_SOCKET")
    if not path:
        return False
    address = "\0" + path[1:] if path.startswith("@") else path  # abstract namespace
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as sock:
        sock.sendto(message.encode(), address)
    return True


def watchdog_interval() -> float | None:
    """Half the watchdog period systemd set for this process, in seconds, or None."""
    usec = os.environ.get("WATCHDOG_USEC")
    pid = os.environ.get("WATCHDOG_PID")
    if not usec or (pid and int(pid) != os.getpid()):
        return None
    return int(usec) / 2_000_000


@contextlib.asynccontextmanager
async def watchdog() -> AsyncIterator[None]:
    """Feed the watchdog from this loop while the block runs."""
    interval = watchdog_interval()
    if interval is None:
        yield
        return

    async def feed() -> None:
        while True:
            notify("WATCHDOG=1")
            await asyncio.sleep(interval)

    task = asyncio.create_task(feed(), name="systemd-watchdog")
    try:
        yield
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
