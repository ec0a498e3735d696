"""A table on real equipment, as its configuration names it.

Each device is reached at its URL — a serial path (a udev name such as /dev/croupier/shoe, a
/dev/serial/by-id path), a pyserial URL (``rfc2217://`` for a serial device server,
``socket://``), or ``usb://VID:PID?serial=...`` — through its connection supervisor, with its line
settings, its link timers (``heartbeat``, ``response_timeout``, ``retries``), its firmware
allow-list and approved images, and the due time of its next authenticity check, kept in the state
database across restarts (58 Pa. Code § 605a.4(c), § 461a.20(b); decision 0026). Devices that
share one RS-485 line (the same URL, each at its own address) share one port through the host-side
arbiter (decision 0007). The dealer is the human at the table, prompted on the dealer's screen
(croupier.screen.dealer). The table is not opened here: a supervisor opens it from the screen,
which records the reader's start-of-day inspection under their name (673a.2(d)).
"""

from __future__ import annotations

import contextlib
import dataclasses
from collections import Counter
from collections.abc import AsyncIterator, Callable, Iterable, Mapping
from functools import partial
from pathlib import Path
from typing import Any

from croupier.config import TableConfig
from croupier.config.devices import DeviceConfig
from croupier.config.urls import Via
from croupier.tables.assembly import assemble
from drivers.connection import DeviceConnection, SupervisorSettings
from drivers.trace import WireTrace
from drivers.transport.base import Transport
from drivers.transport.serial import SerialTransport
from drivers.transport.shared import SharedLine
from drivers.transport.usb import UsbTransport


def supervisor_settings(device: DeviceConfig) -> SupervisorSettings:
    """The connection supervisor's timers as the device's ``[devices.NAME]`` sets them."""
    base = SupervisorSettings()
    timings = dataclasses.replace(
        base.timings, response_timeout=device.link.response_timeout, max_retries=device.link.retries
    )
    return dataclasses.replace(
        base,
        heartbeat_interval=device.link.heartbeat,
        timings=timings,
        event_queue_limit=device.event_queue,
        firmware_recheck=device.link.firmware_check_interval,
    )


def transport_for(device: DeviceConfig) -> Transport:
    """A fresh transport to ``device`` with its configured line settings (one per connection)."""
    if device.url.via is Via.USB:
        return UsbTransport(device.url.url)
    line: dict[str, object] = {}
    if device.baudrate is not None:
        line["baudrate"] = device.baudrate
    if device.parity is not None:
        line["parity"] = device.parity
    return SerialTransport(device.url.url, **line)  # type: ignore[arg-type]


def device_connections(
    devices: Iterable[DeviceConfig], trace_dir: Path, dues: Mapping[str, float | None] | None = None
) -> dict[str, DeviceConnection]:
    """A connection to each device, by its kind; devices on one URL share the line. Each keeps a
    wire trace in ``trace_dir``, written while switched on (``trace = true``, or from the API).
    ``dues``: when each device's next authenticity check is due, by name, as last saved."""
    dues = dues or {}
    devices = list(devices)
    shared = {url for url, n in Counter(d.url.url for d in devices).items() if n > 1}
    lines: dict[str, SharedLine] = {}
    connections: dict[str, DeviceConnection] = {}
    for device in devices:
        factory: Callable[[], Transport]
        if device.url.url in shared:
            line = lines.setdefault(device.url.url, SharedLine(partial(transport_for, device)))
            factory = partial(line.tap, device.address)
        else:
            factory = partial(transport_for, device)
        connections[device.kind.value] = DeviceConnection(
            factory,
            name=device.name,
            address=device.address,
            expected_class=device.kind.device_class,
            firmware_allow_list=device.firmware_allow_list,
            firmware_images=device.firmware_images,
            check_due=dues.get(device.name),
            settings=supervisor_settings(device),
            trace=WireTrace.in_directory(trace_dir, device.name, enabled=device.trace),
        )
    return connections


@contextlib.asynccontextmanager
async def hardware_table(
    config: TableConfig, dealer: Any, dues: Mapping[str, float | None] | None = None  # Any: any game's dealer
) -> AsyncIterator[Any]:  # Any: a table of any game
    """The configured game's table over its devices, their events applied while the block runs;
    the connections keep trying in the background (a device not yet plugged in is connected as
    soon as it appears) and are stopped afterwards. ``dues``: as ``device_connections``."""
    connections = device_connections(config.devices.values(), config.service.trace_dir, dues)  # each one used
    table = assemble(config.game, connections, dealer=dealer, rules=config.rules, name=config.name)
    try:
        for connection in connections.values():
            await connection.start()
        async with table.running():
            yield table
    finally:
        for connection in connections.values():
            await connection.stop()
            if connection.trace is not None:
                connection.trace.close()
