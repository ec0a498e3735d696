"""``croupier run``, the README's main command, as a process: the simulated table plays rounds,
stops cleanly on SIGTERM (as systemd stops it), and refuses configurations it cannot serve."""

from __future__ import annotations

import asyncio
import json
import re
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from urllib.request import Request, urlopen

import aiohttp
import pytest
import uvloop

from croupier.cli import main
from croupier.commands import run as run_command
from croupier.config import DEFAULT_TABLE_CONFIG
from tests.screen import Screen
from tests.tokens import SUPERVISOR_TOKEN, write_token_file

ROOT = Path(__file__).resolve().parents[2]
#: The default simulated table, croupier run's with no --config.
DEFAULT = DEFAULT_TABLE_CONFIG.name


def croupier(*args: str, **kwargs: object) -> subprocess.Popen[str]:
    pipes = {"stdout": subprocess.PIPE, "stderr": subprocess.PIPE, **kwargs}
    return subprocess.Popen(
        [sys.executable, "-m", "croupier", "--log-json", *args],
        cwd=ROOT,
        text=True,
        **pipes,  # type: ignore[arg-type]
    )


def simulated_config(
    tmp_path: Path, *, replace: tuple[str, str] = ("", ""), config: str = DEFAULT
) -> Path:
    """A simulated table (the default one unless ``config`` names another in config/tables/), with
    its audit trail and state under ``tmp_path``."""
    text = (DEFAULT_TABLE_CONFIG if config == DEFAULT else ROOT / "config" / "tables" / config).read_text()
    text = re.sub(r"~/\.local/state/croupier/sim[\w-]*", str(tmp_path / "state"), text).replace(*replace)
    path = tmp_path / "table.toml"
    path.write_text(text)
    return path


def events(stderr: str) -> list[dict[str, object]]:
    return [json.loads(line) for line in stderr.splitlines() if line.startswith("{")]


@pytest.mark.parametrize(
    ("config", "seats"),
    [
        (DEFAULT, 6),
        ("simulated-over-under.toml", 7),
        ("simulated-heads-up-holdem.toml", 6),
        ("simulated-crazy-4-poker.toml", 6),
    ],
)
def test_simulated_table_plays_the_rounds_asked_for_and_audits_them(tmp_path, config, seats):
    path = simulated_config(tmp_path, config=config)
    process = croupier("run", "--config", str(path), "--rounds", "3", "--seed", "7")
    _, err = process.communicate(timeout=120)
    assert process.returncode == 0, err
    rounds = [e for e in events(err) if e["event"] == "round complete"]
    assert [e["round"] for e in rounds] == [1, 2, 3]
    assert all(len(e["net_by_seat"]) == seats for e in rounds)
    assert any(e["event"] == "table closed" for e in events(err))
    trail = sorted((tmp_path / "state" / "audit").glob("*.jsonl*"))  # the files, not their indexes
    verify = subprocess.run(
        [sys.executable, "-m", "croupier", "audit", "verify", "--expect-closed", *map(str, trail)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert verify.returncode == 0, verify.stdout + verify.stderr
    records = [json.loads(line) for path in trail for line in path.read_text().splitlines()]
    assert {r["round"] for r in records if r["kind"] not in ("table_open", "table_closed")} >= {1, 2, 3}
    assert [r["kind"] for r in records if r["kind"].startswith("table_")] == ["table_open", "table_closed"]


def test_the_configured_log_level_applies_unless_the_command_line_sets_one(tmp_path):
    path = simulated_config(tmp_path, replace=('log_level = "info"', 'log_level = "warning"'))
    _, err = croupier("run", "--config", str(path), "--rounds", "2").communicate(timeout=120)
    assert not [e for e in events(err) if e["level"] == "info"], "[service] log_level = warning"
    again = croupier("--log-level", "info", "run", "--config", str(path), "--rounds", "4")  # 2 more
    _, err = again.communicate(timeout=120)
    assert [e for e in events(err) if e["event"] == "round complete"], "--log-level wins"


def test_the_table_service_runs_on_uvloop(tmp_path, monkeypatch):
    """Decision 0051: the table's device links are served on uvloop's loop, the one the link's round
    trip was measured on (bench/link_rtt.py) and the drivers' tests run on (tests/links.py)."""
    loops: list[type[asyncio.AbstractEventLoop]] = []

    async def serve(*args: object) -> int:
        loops.append(type(asyncio.get_running_loop()))
        return 0

    monkeypatch.setattr(run_command, "_serve", serve)
    assert main(["run", "--config", str(simulated_config(tmp_path)), "--rounds", "1"]) == 0
    assert loops == [uvloop.Loop]


def test_sigterm_closes_the_table_cleanly(tmp_path):
    process = croupier("run", "--config", str(simulated_config(tmp_path)), "--seed", "7")
    assert process.stderr is not None
    for line in process.stderr:
        if '"round complete"' in line:
            break
    process.send_signal(signal.SIGTERM)
    _, err = process.communicate(timeout=60)
    assert process.returncode == 0, err
    assert any(e["event"] == "table closed" for e in events(err))


def test_real_equipment_needs_the_screen_and_is_never_mixed_with_simulated(tmp_path):
    """Real equipment is played from the dealer's screen (the API's token file is required), and a
    table is simulated whole or not at all; each refusal names the file and the key."""
    allow = "a" * 64
    real_shoe = f'url = "/dev/serial/by-id/usb-shoe"\nfirmware_allow_list = ["{allow}"]'
    path = simulated_config(tmp_path, replace=('url = "sim://shoe"', real_shoe))
    process = croupier("run", "--config", str(path), "--rounds", "1")
    _, err = process.communicate(timeout=60)
    assert process.returncode == 2
    assert f"{path}: devices.card-reader: sim:// cannot be mixed with real equipment" in err
    text = path.read_text()
    for port, kind in enumerate(("shuffler", "card-reader"), start=9):
        real = f'url = "socket://127.0.0.1:{port}"\nfirmware_allow_list = ["{allow}"]'
        text = text.replace(f'url = "sim://{kind}"', real)
    path.write_text(text)
    process = croupier("run", "--config", str(path), "--rounds", "1")
    _, err = process.communicate(timeout=60)
    assert process.returncode == 2
    assert f"{path}: service.api_tokens: real equipment is played from the dealer's screen" in err


def test_a_fault_profile_strikes_only_a_simulated_table(tmp_path):
    """``--faults`` rehearses the floor's part at a simulated table (docs/sim.md); real equipment's
    faults are its own, so a profile for it is refused before anything is opened, and a profile with
    a mistake is refused naming it."""
    real = ROOT / "config" / "tables" / "crazy-4-poker.toml"
    lossy = ROOT / "config" / "faults" / "lossy-line.toml"
    process = croupier("run", "--config", str(real), "--faults", str(lossy))
    _, err = process.communicate(timeout=60)
    assert process.returncode == 2
    assert "--faults: " in err and "a fault profile strikes only a simulated table" in err, err
    profile = tmp_path / "faults.toml"
    profile.write_text('[[script]]\nround = 1\nfault = "flood"\n')
    simulated = simulated_config(tmp_path)
    process = croupier("run", "--config", str(simulated), "--faults", str(profile), "--check")
    _, err = process.communicate(timeout=60)
    assert process.returncode == 2
    assert str(profile) in err and "'flood'" in err, err


def test_a_fault_profile_at_a_table_played_by_simulated_players_is_repaired_by_the_simulated_floor(tmp_path):
    """With no screen the simulated floor supervisor clears what the profile strikes, having put it
    right first as in ``croupier sim`` (a jam freed), and the table plays on."""
    profile = tmp_path / "faults.toml"
    profile.write_text('[[script]]\nround = 2\nfault = "jam"\ndevice = "shoe"\n')
    path = simulated_config(tmp_path)
    process = croupier("run", "--config", str(path), "--rounds", "3", "--seed", "7", "--faults", str(profile))
    _, err = process.communicate(timeout=120)
    assert process.returncode == 0, err
    assert [e["round"] for e in events(err) if e["event"] == "round complete"] == [1, 2, 3]
    trail = sorted((tmp_path / "state" / "audit").glob("*.jsonl"))
    records = [json.loads(line) for path in trail for line in path.read_text().splitlines()]
    cleared = [r["fields"]["code"] for r in records if r["kind"] == "operator_action"]
    assert cleared == ["JAM"], cleared


def test_a_bad_config_names_file_and_key(tmp_path):
    path = tmp_path / "table.toml"
    path.write_text('[table]\nname = "t"\ngame = "roulette"\nseats = 6\n')
    process = croupier("run", "--config", str(path))
    _, err = process.communicate(timeout=60)
    assert process.returncode == 2
    assert str(path) in err and "table.game" in err and "roulette" in err


def test_check_validates_the_config_and_exits(tmp_path):
    path = simulated_config(tmp_path)
    process = croupier("run", "--config", str(path), "--check")
    out, err = process.communicate(timeout=60)
    assert process.returncode == 0, err
    assert out.startswith(f"ok: {path}: table sim-free-bet-blackjack, free-bet-blackjack, 6 seats;")
    assert out.splitlines()[1] == "read: no token file; no TLS (the API on loopback); no sealing key"
    assert not (tmp_path / "state").exists(), "a check opens no device and writes no trail"


def test_check_reads_the_token_file_as_the_start_up_does(tmp_path):
    """Run as the service's user, the check proves the files the service reads at start are there
    and readable, and refused as the start-up would refuse them."""
    tokens = write_token_file(tmp_path / "tokens.toml")
    bind = 'api_bind = "127.0.0.1:8443"'
    path = simulated_config(tmp_path, replace=(bind, f'{bind}\napi_tokens = "{tokens}"'))
    out, err = croupier("run", "--config", str(path), "--check").communicate(timeout=60)
    assert out.splitlines()[1].startswith("read: the token file (2 operators); no TLS"), out + err
    tokens.chmod(0o644)
    process = croupier("run", "--config", str(path), "--check")
    _, err = process.communicate(timeout=60)
    assert process.returncode == 2 and "mode 0644 lets group or others read the tokens" in err, err


async def key_a_round(base: str, headers: dict[str, str]) -> int:
    async with aiohttp.ClientSession(base_url=base) as session:
        return await Screen(session, headers).play_round("free-bet-blackjack")


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def api_up(process: subprocess.Popen[str], base: str, headers: dict[str, str]) -> dict[str, object]:
    """The table state, once the service's API answers."""
    deadline = time.monotonic() + 60
    while True:
        try:
            with urlopen(Request(f"{base}/v1/table", headers=headers), timeout=5) as reply:
                return dict(json.load(reply))
        except OSError:
            assert process.poll() is None, process.communicate()[1]
            assert time.monotonic() < deadline, "the API never came up"
            time.sleep(0.1)


def test_with_a_token_file_the_api_is_served_and_plays_the_rounds(tmp_path):
    """The dealer's screen drives the table through the API; each round it plays is audited."""
    tokens = write_token_file(tmp_path / "tokens.toml")
    port = free_port()
    bind = f'api_bind = "127.0.0.1:{port}"\napi_tokens = "{tokens}"'
    path = simulated_config(tmp_path, replace=('api_bind = "127.0.0.1:8443"', bind))
    process = croupier("run", "--config", str(path), "--seed", "5")
    headers = {"Authorization": f"Bearer {SUPERVISOR_TOKEN}", "Content-Type": "application/json"}
    base = f"http://127.0.0.1:{port}"
    try:
        assert api_up(process, base, headers)["rounds"] == 0
        assert asyncio.run(key_a_round(base, headers)) == 1
    finally:
        process.send_signal(signal.SIGTERM)
        _, err = process.communicate(timeout=60)
    assert process.returncode == 0, err
    records = [json.loads(line) for f in (tmp_path / "state" / "audit").glob("*.jsonl") for line in f.open()]
    assert {r["round"] for r in records if r["round"] is not None} == {1}
    requests = [event for event in events(err) if event["event"] == "http request"]
    assert requests, "each request is a structured event in the log"
    assert {"logger": "croupier.api.access", "method": "GET", "path": "/v1/table", "status": 200}.items() <= (
        requests[0].items()
    )
    assert {"bytes", "duration_ms", "client"} <= requests[0].keys()


def test_screens_serve_a_simulated_table_with_a_dealer_and_a_supervisor_token_made_for_the_run(tmp_path):
    """`croupier run --screens`: no token file to write; the two tokens printed sign in on the pages
    and play the table from the screen."""
    port = free_port()
    path = simulated_config(tmp_path, replace=('"127.0.0.1:8443"', f'"127.0.0.1:{port}"'))
    process = croupier("run", "--config", str(path), "--screens", "--no-live")
    base = f"http://127.0.0.1:{port}"
    try:
        assert process.stdout is not None
        assert process.stdout.readline() == f"screens: {base}/ — sign in with\n"
        dealer = re.fullmatch(r"  dealer D-1: ([0-9a-f]{32})\n", process.stdout.readline())
        supervisor = re.fullmatch(r"  supervisor S-1: ([0-9a-f]{32})\n", process.stdout.readline())
        assert dealer and supervisor
        headers = {"Authorization": f"Bearer {dealer[1]}", "Content-Type": "application/json"}
        assert api_up(process, base, headers)["open"] is True, "a simulated table opens by itself"
        sign_in = Request(
            f"{base}/v1/session",
            data=json.dumps({"token": supervisor[1]}).encode(),
            headers={"Content-Type": "application/json", "X-Croupier-Request": "1"},
            method="POST",
        )
        with urlopen(sign_in, timeout=5) as reply:
            assert json.load(reply)["role"] == "supervisor"
        assert asyncio.run(key_a_round(base, headers)) == 1, "the rounds are the screen's to play"
    finally:
        process.send_signal(signal.SIGTERM)
        _, err = process.communicate(timeout=60)
    assert process.returncode == 0, err


def test_screens_are_refused_for_real_equipment(tmp_path):
    process = croupier("run", "--config", str(ROOT / "config" / "tables" / "over-under.toml"), "--screens")
    _, err = process.communicate(timeout=60)
    assert process.returncode == 2
    assert "--screens:" in err and "names real equipment (devices." in err and "api_tokens" in err, err
