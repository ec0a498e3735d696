"""``croupier run``, the README's main command, as a process: the simulated table plays rounds,
stops cleanly on SIGTERM (as systemd stops it), and refuses configurations it cannot serve."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def croupier(*args: str, **kwargs: object) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "croupier", "--log-json", *args],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        **kwargs,  # type: ignore[arg-type]
    )


def events(stderr: str) -> list[dict[str, object]]:
    return [json.loads(line) for line in stderr.splitlines() if line.startswith("{")]


def test_default_simulated_table_plays_the_rounds_asked_for():
    process = croupier("run", "--rounds", "3", "--seed", "7")
    _, err = process.communicate(timeout=120)
    assert process.returncode == 0, err
    rounds = [e for e in events(err) if e["event"] == "round complete"]
    assert [e["round"] for e in rounds] == [1, 2, 3]
    assert all(len(e["net_by_seat"]) == 6 for e in rounds)
    assert any(e["event"] == "table closed" for e in events(err))


def test_sigterm_closes_the_table_cleanly():
    process = croupier("run", "--seed", "7")
    assert process.stderr is not None
    for line in process.stderr:
        if '"round complete"' in line:
            break
    process.send_signal(signal.SIGTERM)
    _, err = process.communicate(timeout=60)
    assert process.returncode == 0, err
    assert any(e["event"] == "table closed" for e in events(err))


def test_a_config_with_real_devices_is_refused_with_the_device_named(tmp_path):
    config = (ROOT / "config" / "tables" / "simulated.toml").read_text()
    path = tmp_path / "table.toml"
    allow = "a" * 64
    path.write_text(
        config.replace(
            'url = "sim://shoe"', f'url = "/dev/serial/by-id/usb-shoe"\nfirmware_allow_list = ["{allow}"]'
        )
    )
    process = croupier("run", "--config", str(path), "--rounds", "1")
    _, err = process.communicate(timeout=60)
    assert process.returncode == 2
    assert f"{path}: devices.shoe: real equipment needs the dealer's screen" in err


def test_a_bad_config_names_file_and_key(tmp_path):
    path = tmp_path / "table.toml"
    path.write_text('[table]\nname = "t"\ngame = "roulette"\nseats = 6\n')
    process = croupier("run", "--config", str(path))
    _, err = process.communicate(timeout=60)
    assert process.returncode == 2
    assert str(path) in err and "table.game" in err and "roulette" in err
