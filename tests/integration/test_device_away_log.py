"""What the log says of a device that is away or refused: a warning, repeated at a bounded rate
while it lasts, not two info lines per back-off (drivers/connection.py, drivers/outage.py)."""

from __future__ import annotations

import asyncio
from dataclasses import replace

from structlog.testing import capture_logs

from drivers.connection import ConnectionState, DeviceConnection
from drivers.transport.serial import SerialTransport
from tests.integration.test_firmware_authenticity import IMAGE, pty
from tests.links import FAST, connected, run, wait_for_state

INTERVAL = 0.5
AWAY = 1.6


def test_a_missing_device_is_a_warning_repeated_once_per_interval(tmp_path):
    settings = replace(FAST, outage_log_interval=INTERVAL)
    path = str(tmp_path / "no-shoe")
    conn = DeviceConnection(lambda: SerialTransport(path), name="shoe", settings=settings)

    async def scenario():
        with capture_logs() as logs:
            await conn.start()
            await asyncio.sleep(AWAY)
            await conn.stop()
        return logs

    logs = [entry for entry in run(scenario()) if entry["log_level"] != "debug"]  # the service's level: info
    said = [(entry["log_level"], entry["event"], entry.get("state")) for entry in logs]
    repeats = said.count(("warning", "link still down", None))
    assert said == [
        ("info", "link state", "connecting"),
        ("warning", "link state", "backoff"),
        *[("warning", "link still down", None)] * repeats,
        ("info", "link state", "stopped"),
    ]
    assert 1 <= repeats <= AWAY / INTERVAL
    assert logs[-1]["failures"] > 2 + repeats, "back-offs went on between the lines"
    assert "no device there" in logs[1]["reason"]


def test_a_device_refused_for_its_firmware_is_a_warning():
    async def scenario():
        with capture_logs() as logs:
            port = pty(tampered=True)
            async with connected(port, SerialTransport, wait=False, firmware_images=(IMAGE,)) as rig:
                await wait_for_state(rig.conn, ConnectionState.FAILED)
        return logs

    logs = run(scenario())
    refused = [entry for entry in logs if entry["log_level"] == "warning"]
    assert [(entry["event"], entry.get("passed"), entry.get("state")) for entry in refused] == [
        ("firmware checked", False, None),
        ("link state", None, "failed"),
    ]
