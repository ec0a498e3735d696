"""``croupier firmware DEVICE`` as an integrator meets it: the block it prints is pasted into a table
configuration as it stands, the configuration loads, and ``croupier run`` accepts each device over
a real pseudo-terminal and a real TCP socket (its firmware on the allow-list, 605a.4(c)). The batch
a shoe or shuffler is found with has the back colour asked for."""

from __future__ import annotations

import contextlib
import json
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from urllib.request import Request, urlopen

import pytest

from croupier.audit.sealing import generate
from croupier.config import load_table_config
from drivers.connection import DeviceConnection
from drivers.protocol.classes.shuffler import ConfigureBatch, Shuffle
from drivers.protocol.core import DeviceClass
from drivers.transport.serial import SerialTransport
from tests.integration.test_firmware_console import Console
from tests.links import FAST, run
from tests.tokens import SUPERVISOR_TOKEN, write_token_file

ROOT = Path(__file__).resolve().parents[2]


def block(console: Console) -> str:
    """The ``[devices.X]`` table as printed: from its header to the blank line that ends it."""
    start = next(i for i, line in enumerate(console.header) if line.startswith("[devices."))
    end = console.header.index("", start)
    return "\n".join(console.header[start : end + 1]) + "\n"


@pytest.fixture
def shoe_and_shuffler() -> Iterator[tuple[Console, Console]]:
    """An over/under table's equipment: the shoe on a pty, the shuffler behind a TCP server, its
    batch of blue backs (not the default red, so the option is seen to apply)."""
    shoe = Console("shoe", "--port", "pty")
    try:
        shuffler = Console("shuffler", "--port", "tcp", "--back-colour", "blue")
        try:
            yield shoe, shuffler
        finally:
            assert shuffler.close() == 0
    finally:
        assert shoe.close() == 0


def _call(url: str) -> dict[str, object]:
    headers = {"Authorization": f"Bearer {SUPERVISOR_TOKEN}"}
    with urlopen(Request(url, headers=headers), timeout=10) as reply:
        return json.load(reply)


def test_the_printed_blocks_pasted_into_a_table_configuration_are_accepted_by_the_daemon(
    tmp_path, shoe_and_shuffler
):
    shoe, shuffler = shoe_and_shuffler
    assert shoe.header[1].startswith("firmware 1.0.0, SHA-256 ")
    firmware_hash = shoe.header[1].rsplit(" ", 1)[1]
    assert block(shoe) == (
        f'[devices.shoe]\nkind = "shoe"\nurl = "{shoe.url}"\naddress = 1\n'
        f'firmware_allow_list = ["{firmware_hash}"]\n\n'
    )
    assert shuffler.url.startswith("socket://127.0.0.1:")
    tokens = write_token_file(tmp_path / "tokens.toml")
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    sealing = tmp_path / "sealing.key"
    sealing.write_bytes(generate("OU-02", datetime.now(UTC))[1])
    example = (ROOT / "config" / "tables" / "over-under.toml").read_text()
    config = tmp_path / "table.toml"  # the example's devices replaced by the blocks as printed
    config.write_text(
        f"""{example[: example.index("[devices.")]}{block(shoe)}{block(shuffler)}[service]
api_bind = "127.0.0.1:{port}"
api_tokens = "{tokens}"
audit_dir = "{tmp_path / "audit"}"
state_db = "{tmp_path / "state.db"}"
trace_dir = "{tmp_path / "trace"}"

[audit]
sealing_key = "{sealing}"
"""
    )
    loaded = load_table_config(config)
    assert {name: device.url.url for name, device in loaded.devices.items()} == {
        "shoe": shoe.url,
        "shuffler": shuffler.url,
    }
    assert all(
        device.firmware_allow_list == {bytes.fromhex(firmware_hash)} for device in loaded.devices.values()
    )

    with (tmp_path / "run.log").open("w") as log:
        daemon = subprocess.Popen(
            [sys.executable, "-m", "croupier", "--log-json", "run", "--config", str(config)],
            cwd=ROOT,
            stdout=subprocess.DEVNULL,
            stderr=log,
            text=True,
        )
    try:
        deadline = time.monotonic() + 60
        links: object = None
        while links != {"shoe": "ready", "shuffler": "ready"}:
            assert daemon.poll() is None, (tmp_path / "run.log").read_text()
            assert time.monotonic() < deadline, f"devices {links}: {(tmp_path / 'run.log').read_text()}"
            with contextlib.suppress(OSError):
                links = _call(f"http://127.0.0.1:{port}/v1/table")["devices"]
            time.sleep(0.1)
    finally:
        daemon.send_signal(signal.SIGTERM)
        daemon.wait(timeout=60)
    assert daemon.returncode == 0, (tmp_path / "run.log").read_text()

    async def shuffle_the_batch_found() -> tuple[int, int]:
        conn = DeviceConnection(
            lambda: SerialTransport(shuffler.url),
            name="shuffler",
            settings=FAST,
            expected_class=DeviceClass.SHUFFLER,
        )
        await conn.start()
        try:
            await conn.wait_ready(5.0)
            await conn.request(ConfigureBatch(decks=6, jokers_per_deck=0, back="blue"))
            report = await conn.request(Shuffle())
            return report.count, report.foreign
        finally:
            await conn.stop()

    assert run(shuffle_the_batch_found()) == (312, 0), "the batch found is of the back colour asked for"


def test_back_colour_is_refused_for_a_device_without_a_batch():
    done = subprocess.run(
        [sys.executable, "-m", "croupier", "firmware", "card-reader", "--back-colour", "red", "--no-console"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert done.returncode == 2
    assert "--back-colour: the card-reader holds no batch (it is for shoe, shuffler)" in done.stderr
