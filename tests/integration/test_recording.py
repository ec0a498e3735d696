"""The HIL recorder and its replay: an exchange captured from a device over a real pty plays back
through a DeviceConnection with no device at all, and a host that writes something else is caught
at the offset where it differs."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from drivers.connection import ConnectionState, DeviceConnection
from drivers.errors import LinkLost
from drivers.protocol.core import DeviceStatus, GetStatus
from drivers.transport.recording import Recorder, RecordingTransport, Replay, ReplayMismatch
from drivers.transport.serial import SerialTransport
from firmware_sim.device import SimulatedDevice
from firmware_sim.ports.pty import PtyPort
from firmware_sim.world import TableWorld
from tests.conformance.profiles.shoe import PROFILE as SHOE
from tests.links import FAST, run, wait_for_state

#: No heartbeat between the handshake and the status request: the host's writes are then the same
#: on replay as when recorded, whatever the timing.
QUIET = dataclasses.replace(FAST, heartbeat_interval=30.0)
FIXTURE = Path(__file__).parent.parent / "fixtures" / "shoe-handshake-status.jsonl"


def _shoe() -> SimulatedDevice:
    world = TableWorld()
    SHOE.prepare_world(world)
    return SimulatedDevice(SHOE.personality(world), seed=11)


async def _handshake_and_status(conn: DeviceConnection) -> DeviceStatus:
    try:
        await conn.start()
        await conn.wait_ready(5.0)
        status = await conn.request(GetStatus())
        assert isinstance(status, DeviceStatus)
        return status
    finally:
        await conn.stop()


def _record(path: Path) -> DeviceStatus:
    port = PtyPort(_shoe()).start()
    recorder = Recorder(path, "shoe", port.url)
    try:
        conn = DeviceConnection(
            lambda: RecordingTransport(SerialTransport(port.url), recorder),
            name="shoe",
            expected_class=SHOE.device_class,
            settings=QUIET,
        )
        return run(_handshake_and_status(conn))
    finally:
        recorder.close()
        port.stop()


def _replay_conn(replay: Replay) -> DeviceConnection:
    return DeviceConnection(replay.transport, name="shoe", expected_class=SHOE.device_class, settings=QUIET)


def test_an_exchange_recorded_over_a_pty_replays_with_no_device(tmp_path):
    path = tmp_path / "shoe.jsonl"
    recorded = _record(path)
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    assert lines[0]["format"] == "croupier-wire-recording" and lines[0]["device"] == "shoe"
    assert [line.get("event") for line in lines if "event" in line] == ["open", "close"]
    assert {line["dir"] for line in lines if "dir" in line} == {"tx", "rx"}

    replay = Replay(path)
    status = run(_handshake_and_status(_replay_conn(replay)))
    assert status.boot_id == recorded.boot_id
    replay.check()


def test_a_host_write_that_differs_is_reported_with_its_offset(tmp_path):
    path = tmp_path / "shoe.jsonl"
    _record(path)
    # Change the last recorded write (the status request's sequence number): the handshake still
    # replays, the request does not.
    lines = path.read_text().splitlines()
    last_tx = max(i for i, line in enumerate(lines) if json.loads(line).get("dir") == "tx")
    record = json.loads(lines[last_tx])
    tokens = record["hex"].split()
    tokens[6] = f"{int(tokens[6], 16) ^ 0x40:02x}"  # SEQ (sync 2, LEN, ~LEN, ADDR, CTRL, SEQ)
    record["hex"] = " ".join(tokens)
    lines[last_tx] = json.dumps(record)
    path.write_text("\n".join(lines) + "\n")

    replay = Replay(path)

    async def scenario() -> None:
        conn = _replay_conn(replay)
        try:
            await conn.start()
            await conn.wait_ready(5.0)
            with pytest.raises(LinkLost, match="tx offset"):
                await conn.request(GetStatus())
            await wait_for_state(conn, ConnectionState.BACKOFF)
        finally:
            await conn.stop()

    run(scenario())
    assert replay.mismatch is not None
    assert "differs from the recording at tx offset" in str(replay.mismatch)
    with pytest.raises(ReplayMismatch, match=f"line {last_tx + 1}"):
        replay.check()


def test_the_checked_in_fixture_replays():
    """tests/fixtures/shoe-handshake-status.jsonl: a shoe's handshake and one status request."""
    replay = Replay(FIXTURE)
    run(_handshake_and_status(_replay_conn(replay)))
    replay.check()
