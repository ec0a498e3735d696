"""``pytest --hil RIG_TOML``: the conformance suite against the devices a rig file names.

The "real devices" here are simulated firmware served on a real pty and a real TCP socket by this
test, so the rig path runs exactly as on a bench: serial URLs from a rig file, the configured
allow-lists, no simulator hooks. The suite runs in a subprocess, as an engineer runs it.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from croupier.config.rig import load_rig_config
from croupier.errors import ConfigError
from drivers.connection import DeviceConnection
from drivers.transport.recording import Replay
from firmware_sim.device import SimulatedDevice
from firmware_sim.ports import Port
from firmware_sim.ports.pty import PtyPort
from firmware_sim.ports.tcp import TcpPort
from firmware_sim.world import TableWorld
from tests.conformance.profile import ConformanceProfile
from tests.conformance.profiles.card_reader import PROFILE as READER
from tests.conformance.profiles.shoe import PROFILE as SHOE
from tests.hil import FAULTS_SKIP
from tests.links import run

ROOT = Path(__file__).resolve().parents[2]
HASH = "ab" * 32


def _device(profile: ConformanceProfile) -> SimulatedDevice:
    world = TableWorld()
    profile.prepare_world(world)
    return SimulatedDevice(profile.personality(world), seed=11)


@pytest.fixture
def bench(tmp_path: Path) -> Iterator[Path]:
    """A rig file naming a shoe on a pty and a card reader behind a TCP serial server."""
    ports: list[Port] = [PtyPort(_device(SHOE)).start(), TcpPort(_device(READER)).start()]
    try:
        shoe, reader = ports
        rig = tmp_path / "rig.toml"
        rig.write_text(
            f"""[rig]
name = "test-bench"

[devices.shoe]
kind = "shoe"
url = "{shoe.url}"
firmware_allow_list = ["{shoe.device.engine.personality.firmware_hash.hex()}"]

[devices.reader]
kind = "card-reader"
url = "{reader.url}"
firmware_allow_list = ["{reader.device.engine.personality.firmware_hash.hex()}", "{HASH}"]
""",
            encoding="utf-8",
        )
        yield rig
    finally:
        for port in ports:
            port.stop()


def _pytest(*args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-rs", "-p", "no:cacheprovider", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=90,
    )


def test_the_conformance_suite_runs_on_the_rig_devices_and_skips_fault_checks(bench, tmp_path):
    recordings = tmp_path / "recorded"
    result = _pytest("tests/conformance", "--hil", str(bench), "--record", str(recordings))
    out = result.stdout + result.stderr
    assert result.returncode == 0, out
    # 3 fault-free checks pass and 4 fault-injecting ones skip, for each of the two devices; the
    # simulated cases are not run at all.
    assert re.search(r"\b6 passed, 8 skipped\b", out), out
    assert f"SKIPPED [8] tests/conformance/test_conformance.py: {FAULTS_SKIP}" in out, out
    assert "-pty" not in out and "-usb" not in out

    # Every connection was recorded, and a recording replays with no device at all.
    names = sorted(path.name for path in recordings.iterdir())
    assert any(name.startswith("shoe-test_handshake") for name in names), names
    assert any(name.startswith("reader-test_open_and_close") for name in names), names
    replay = Replay(next(recordings.glob("reader-test_handshake*-1.jsonl")))

    async def handshake() -> None:
        conn = DeviceConnection(replay.transport, name="reader", expected_class=READER.device_class)
        try:
            await conn.start()
            await conn.wait_ready(5.0)
        finally:
            await conn.stop()

    run(handshake())
    replay.check()


def test_absent_devices_are_named_once_each_and_their_checks_skipped(tmp_path):
    """A rig whose devices are not plugged in: one preflight line per device saying what to do, its
    checks skipped with that reason, no connection attempted (no retries in the output), exit 0."""
    rig = _rig(
        tmp_path,
        f"""[devices.shoe]
kind = "shoe"
url = "{tmp_path / "croupier-shoe"}"
firmware_allow_list = ["{HASH}"]

[devices.reader]
kind = "card-reader"
url = "usb://1209:0001?serial=NOT-HERE"
firmware_allow_list = ["{HASH}"]
""",
    )
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
    command = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "--hil", str(rig)]
    command.append("tests/conformance")  # as the engineer types it, without -q: the header shows
    result = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=90)
    out = result.stdout + result.stderr
    assert result.returncode == 0, out
    shoe = f"hil preflight: shoe: {tmp_path / 'croupier-shoe'} not found — connect it or edit {rig}"
    reader = f"hil preflight: reader: usb://1209:0001?serial=NOT-HERE not found — connect it or edit {rig}"
    lines = out.splitlines()
    assert [line for line in lines if line.startswith("hil preflight:")] == [shoe, reader], out
    assert f"SKIPPED [7] tests/conformance/test_conformance.py: {shoe}" in lines, out
    assert re.search(r"\b14 skipped\b", out) and "passed" not in out and "failed" not in out, out
    assert "link state" not in out and len(lines) < 25, out
    assert "workers" not in out, f"a rig runs in one process, never spread over workers: {out}"


def test_without_hil_the_simulated_cases_run(tmp_path):
    result = _pytest("tests/conformance", "--collect-only", "-k", "handshake")
    assert "shoe-pty" in result.stdout and "card_reader-usb" in result.stdout, result.stdout


def test_record_without_a_rig_is_refused():
    result = _pytest("tests/conformance", "--record", "/tmp/nowhere", "--collect-only")
    assert result.returncode != 0
    assert "--record needs --hil" in result.stderr


def _rig(tmp_path: Path, body: str) -> Path:
    path = tmp_path / "rig.toml"
    path.write_text(body, encoding="utf-8")
    return path


def test_a_rig_device_needs_its_firmware_allow_list(tmp_path):
    path = _rig(tmp_path, '[devices.shoe]\nkind = "shoe"\nurl = "/dev/croupier/shoe"\n')
    with pytest.raises(
        ConfigError, match=rf"{re.escape(str(path))}: devices\.shoe\.firmware_allow_list: .*605a"
    ):
        load_rig_config(path)


def test_a_rig_names_no_simulated_device(tmp_path):
    path = _rig(tmp_path, '[devices.shoe]\nkind = "shoe"\nurl = "sim://shoe"\n')
    with pytest.raises(ConfigError, match=r"devices\.shoe\.url: sim://shoe is simulated"):
        load_rig_config(path)


def test_a_misspelt_key_is_named(tmp_path):
    path = _rig(
        tmp_path,
        f'[devices.shoe]\nkind = "shoe"\nurl = "/dev/x"\nfirmware_allow_list = ["{HASH}"]\nbaud = 9600\n',
    )
    with pytest.raises(ConfigError, match=r"devices\.shoe\.baud: unknown key"):
        load_rig_config(path)


def test_the_example_rig_file_is_valid():
    rig = load_rig_config(ROOT / "config" / "rig.toml")
    assert {device.kind.value for device in rig.devices.values()} == {"shoe", "card-reader"}
