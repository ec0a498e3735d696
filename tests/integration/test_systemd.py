"""The service under systemd (Type=notify): readiness after the table opens, status per round, the
watchdog fed from the table's loop, and STOPPING on the way out, over a real notify socket."""

from __future__ import annotations

import os
import socket
import subprocess
import sys

from croupier.service import systemd
from tests.integration.test_run_command import ROOT, simulated_config


def test_notify_is_silent_outside_systemd(monkeypatch):
    monkeypatch.delenv("NOTIFY_SOCKET", raising=False)
    assert systemd.notify("READY=1") is False


def test_watchdog_interval_is_half_the_period_and_only_for_this_process(monkeypatch):
    monkeypatch.setenv("WATCHDOG_USEC", "30000000")
    monkeypatch.setenv("WATCHDOG_PID", str(os.getpid()))
    assert systemd.watchdog_interval() == 15.0
    monkeypatch.setenv("WATCHDOG_PID", str(os.getpid() + 1))
    assert systemd.watchdog_interval() is None


def test_run_tells_systemd_ready_status_watchdog_and_stopping(tmp_path):
    path = tmp_path / "notify"
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as sock:
        sock.bind(str(path))
        sock.settimeout(60)
        env = {**os.environ, "NOTIFY_SOCKET": str(path), "WATCHDOG_USEC": "200000"}
        process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "croupier",
                "--log-level",
                "warning",
                "run",
                "--config",
                str(simulated_config(tmp_path)),
                "--rounds",
                "5",
                "--seed",
                "2",
            ],
            cwd=ROOT,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        messages = []
        while not messages or messages[-1] != "STOPPING=1":
            messages.append(sock.recv(4096).decode())
        _, err = process.communicate(timeout=60)
    assert process.returncode == 0, err
    ready = messages.index("READY=1\nSTATUS=table sim-free-bet-blackjack open")
    assert "WATCHDOG=1" in messages, "the watchdog is fed"
    statuses = [m for m in messages if m.startswith("STATUS=") and "rounds played" in m]
    assert statuses[-1] == "STATUS=table sim-free-bet-blackjack: 5 rounds played"
    assert messages.index(statuses[0]) > ready
