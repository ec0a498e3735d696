"""``croupier run``'s start-up as a careless operator meets it: a second daemon started on a table
that is running, a token file that cannot be read, an API port already taken. Each is refused with
one line and exit status 2, before the state database, the audit trail or a device is touched, and
the running table's trail still verifies."""

from __future__ import annotations

import json
import signal
import socket
import ssl
import subprocess
import sys
import time
from http.client import HTTPException
from pathlib import Path
from urllib.error import URLError
from urllib.request import Request, urlopen

import pytest

from tests.integration.test_run_command import ROOT, croupier, events, simulated_config
from tests.tokens import SUPERVISOR_TOKEN, write_token_file


def _wait_for(process: subprocess.Popen[str], what: str, path: Path) -> None:
    deadline = time.monotonic() + 60
    while not (path.exists() and what in path.read_text()):
        assert process.poll() is None, process.communicate()[1]
        assert time.monotonic() < deadline, f"{what!r} never reached {path}"
        time.sleep(0.1)


def _first_file(tmp_path: Path) -> Path:
    return tmp_path / "state" / "audit" / "sim-free-bet-blackjack-000001.jsonl"


def _finished(process: subprocess.Popen[str]) -> str:
    """The process's standard error once it exits; killed if it is still running after 60 s (a
    second daemon that was not refused must not outlive the test)."""
    try:
        return process.communicate(timeout=60)[1]
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()


def _trail(tmp_path: Path) -> list[Path]:
    return sorted((tmp_path / "state" / "audit").glob("*.jsonl"))


def _verify(files: list[Path]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "croupier", "audit", "verify", "--expect-closed", *map(str, files)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_a_second_daemon_on_a_running_table_exits_2_naming_the_holder(tmp_path):
    """Two daemons on one table would interleave their records in one audit file. The second
    start finds the table's lock held and exits at once, status 2, one line naming the first's
    pid; the first plays on and its trail verifies closed."""
    path = simulated_config(tmp_path)
    first = croupier("run", "--config", str(path), "--seed", "3")
    try:
        _wait_for(first, '"kind":"wager"', _first_file(tmp_path))
        before = [f.read_bytes() for f in _trail(tmp_path)]
        second = croupier("run", "--config", str(path), "--seed", "4")
        err = _finished(second)
        assert second.returncode == 2, err
        lines = [line for line in err.splitlines() if line.strip()]
        assert len(lines) == 1, err
        assert lines[0].startswith("croupier: cannot start: table sim-free-bet-blackjack is already served")
        assert f"pid {first.pid}" in lines[0]
        assert "Traceback" not in err
        # Nothing of the second reached the trail: each file only grew by the first's records.
        after = [f.read_bytes() for f in _trail(tmp_path)]
        assert all(now.startswith(then) for then, now in zip(before, after, strict=False))
        assert first.poll() is None
    finally:
        first.send_signal(signal.SIGTERM)
        _, first_err = first.communicate(timeout=120)
    assert first.returncode == 0, first_err
    report = _verify(_trail(tmp_path))
    assert report.returncode == 0, report.stdout + report.stderr
    records = [json.loads(line) for f in _trail(tmp_path) for line in f.read_text().splitlines()]
    assert [r["kind"] for r in records if r["kind"].startswith("table_")] == ["table_open", "table_closed"]


def test_two_configurations_naming_one_audit_directory_cannot_both_run(tmp_path):
    """A second table configuration pointing at the same audit directory (another state database)
    is refused too: the audit directory is locked for the life of the first."""
    path = simulated_config(tmp_path)
    other = tmp_path / "other.toml"
    elsewhere = path.read_text().replace(str(tmp_path / "state" / "state.sqlite3"), str(tmp_path / "b.db"))
    other.write_text(elsewhere)
    assert str(tmp_path / "b.db") in other.read_text()
    first = croupier("run", "--config", str(path))
    try:
        _wait_for(first, '"kind":"table_open"', _first_file(tmp_path))
        second = croupier("run", "--config", str(other))
        err = _finished(second)
        assert second.returncode == 2, err
        assert "the audit directory" in err and "in use by another croupier process" in err
        assert not (tmp_path / "b.db").exists(), "the state database was opened before the lock"
    finally:
        first.send_signal(signal.SIGTERM)
        first.communicate(timeout=120)
    assert first.returncode == 0


def test_the_lock_is_released_when_the_daemon_is_killed(tmp_path):
    """The lock is the kernel's (flock): a daemon killed with SIGKILL leaves nothing to clear by
    hand, and the next start serves the table."""
    path = simulated_config(tmp_path)
    first = croupier("run", "--config", str(path))
    _wait_for(first, '"kind":"table_open"', _first_file(tmp_path))
    first.kill()
    first.communicate(timeout=60)
    again = croupier("run", "--config", str(path), "--rounds", "1")
    _, err = again.communicate(timeout=120)
    assert again.returncode == 0, err


def test_an_unreadable_token_file_stops_start_up_before_the_state_or_trail(tmp_path):
    """The token file is read before anything is opened: exit 2, one line naming the key and the
    file, and no state database or audit file made."""
    tokens = tmp_path / "tokens.toml"
    tokens.write_text("[[operators]\n")
    bind = 'api_bind = "127.0.0.1:8443"'
    path = simulated_config(tmp_path, replace=(bind, f'{bind}\napi_tokens = "{tokens}"'))
    process = croupier("run", "--config", str(path))
    _, err = process.communicate(timeout=60)
    assert process.returncode == 2, err
    assert err.strip().count("\n") == 0, err
    assert f"service.api_tokens: {tokens}" in err
    assert f"{tokens}: {tokens}" not in err, "the file is named once before its fault"
    assert _trail(tmp_path) == []
    assert not (tmp_path / "state" / "state.sqlite3").exists()


def test_an_api_port_already_taken_stops_start_up_before_the_state_or_trail(tmp_path):
    """Binding the API's port is checked before the state, the trail and the devices: a taken port
    is one line, exit 2, and nothing opened or made (before, the table opened, wrote its trail and
    only then died on the port; later, it made a new floor spool's file before binding the port)."""
    tokens = write_token_file(tmp_path / "tokens.toml")
    spool = tmp_path / "floor-spool.sqlite3"
    floor = f'\n[floor]\nbroker = "mqtt://127.0.0.1:1"\ngroup = "dev"\nspool = "{spool}"\n'
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        bind = f'api_bind = "127.0.0.1:{port}"\napi_tokens = "{tokens}"'
        path = simulated_config(tmp_path, replace=('api_bind = "127.0.0.1:8443"', bind))
        path.write_text(path.read_text() + floor)
        process = croupier("run", "--config", str(path))
        _, err = process.communicate(timeout=60)
    assert process.returncode == 2, err
    assert f"service.api_bind: cannot listen on 127.0.0.1:{port}" in err
    assert not [e for e in events(err) if e.get("level") == "error"]
    assert _trail(tmp_path) == []
    assert not (tmp_path / "state" / "state.sqlite3").exists()
    assert not spool.exists(), "the floor spool was made before the port was bound"


def test_a_table_with_tls_configured_serves_its_api_over_https_only(tmp_path):
    """With ``api_tls_cert``/``api_tls_key`` the API speaks HTTPS (the only way it may be bound
    beyond loopback): a client trusting the certificate's CA reads the table; plain HTTP on the
    same port gets no API answer."""
    trustme = pytest.importorskip("trustme", reason="pip install trustme (in the test extras)")
    authority = trustme.CA()
    certificate = authority.issue_cert("127.0.0.1")
    certificate.private_key_and_cert_chain_pem.write_to_path(str(tmp_path / "api.pem"))
    certificate.private_key_pem.write_to_path(str(tmp_path / "api.key"))
    tokens = write_token_file(tmp_path / "tokens.toml")
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    service = (
        f'api_bind = "127.0.0.1:{port}"\napi_tokens = "{tokens}"\n'
        f'api_tls_cert = "{tmp_path / "api.pem"}"\napi_tls_key = "{tmp_path / "api.key"}"'
    )
    path = simulated_config(tmp_path, replace=('api_bind = "127.0.0.1:8443"', service))
    process = croupier("run", "--config", str(path))
    context = ssl.create_default_context()
    authority.configure_trust(context)
    headers = {"Authorization": f"Bearer {SUPERVISOR_TOKEN}"}
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                request = Request(f"https://127.0.0.1:{port}/v1/table", headers=headers)
                with urlopen(request, timeout=5, context=context) as reply:
                    assert json.load(reply)["rounds"] == 0
                    break
            except (URLError, ConnectionError):
                assert process.poll() is None, process.communicate()[1]
                assert time.monotonic() < deadline, "the HTTPS API never came up"
                time.sleep(0.1)
        with pytest.raises((URLError, ConnectionError, HTTPException)):
            urlopen(Request(f"http://127.0.0.1:{port}/v1/table", headers=headers), timeout=5)
    finally:
        process.send_signal(signal.SIGTERM)
        _, err = process.communicate(timeout=60)
    assert process.returncode == 0, err
    assert any(e["event"] == "api listening" and e["scheme"] == "https" for e in events(err))


def test_a_sealing_key_that_cannot_be_read_stops_start_up_before_the_state_or_trail(tmp_path):
    """The sealing key is read with the other files before anything is opened: a missing key is one
    line naming the key, exit 2, and no state database or audit file made."""
    path = simulated_config(tmp_path)
    path.write_text(path.read_text() + f'\n[audit]\nsealing_key = "{tmp_path / "no-such.key"}"\n')
    process = croupier("run", "--config", str(path))
    err = _finished(process)
    assert process.returncode == 2, err
    assert err.strip().count("\n") == 0 and "audit.sealing_key" in err, err
    assert _trail(tmp_path) == []
    assert not (tmp_path / "state" / "state.sqlite3").exists()


def test_a_floor_spool_that_is_not_a_spool_stops_start_up_naming_the_file(tmp_path):
    """The floor spool holds what the table owes the floor: a file there that is not a spool (an
    operator's copy gone wrong, a disk's garbage) stops the start-up before the state database, the
    trail or a device is opened, exit 2, one line naming the file and why, no traceback; the file is
    left as it was for whoever looks into it."""
    spool = tmp_path / "floor-spool.sqlite3"
    garbage = bytes(range(256)) * 8
    spool.write_bytes(garbage)
    floor = f'\n[floor]\nbroker = "mqtt://127.0.0.1:1"\ngroup = "dev"\nspool = "{spool}"\n'
    path = simulated_config(tmp_path)
    path.write_text(path.read_text() + floor)
    process = croupier("run", "--config", str(path))
    err = _finished(process)
    assert process.returncode == 2, err
    assert "Traceback" not in err
    last = err.strip().splitlines()[-1]
    assert last == (
        f"croupier: cannot start: the floor spool: {spool}: "
        "not a Croupier floor spool (file is not a database)"
    )
    assert spool.read_bytes() == garbage
    assert err.strip().count("\n") == 0, err
    assert not _trail(tmp_path), "the trail was opened before the spool was checked"
    assert not (tmp_path / "state" / "state.sqlite3").exists(), "the state database was opened first"
