"""Crash recovery: ``croupier run`` killed with SIGKILL at many points of its rounds, then started
again on the same audit trail and state store. After each restart the trail still verifies from its
first record, every record acknowledged before the kill is kept, the round numbering goes on, and a
round the kill cut off is held for a supervisor (ROUND_CUT_OFF) with its wagers and the cards left
on the layout named from the trail, so that none is lost."""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any
from urllib.request import Request, urlopen

import pytest

from croupier.audit.storage import read_bytes
from tests.integration.test_run_command import ROOT, croupier, key_a_round, simulated_config
from tests.tokens import SUPERVISOR_TOKEN, write_token_file

SUPERVISOR = SUPERVISOR_TOKEN
#: Points of the kill, as audit records written by then: the table's opening, the first round's
#: wagers, deal, decisions and pickup, then points in later rounds, many rounds in.
KILL_AFTER_RECORDS = (2, 9, 20, 31, 55, 140, 330, 600)


def _records(audit: Path) -> list[dict[str, object]]:
    return [json.loads(line) for path in _files(audit) for line in read_bytes(path).splitlines()]


def _lines(audit: Path) -> int:
    return sum(len(read_bytes(path).splitlines()) for path in _files(audit))


def _files(audit: Path) -> list[Path]:
    """The series, closed files compressed by the service (croupier.audit.storage), oldest first."""
    return sorted(audit.glob("*.jsonl*"))


def _config_with_api(tmp_path: Path) -> tuple[Path, str]:
    tokens = write_token_file(tmp_path / "tokens.toml")
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    bind = f'api_bind = "127.0.0.1:{port}"\napi_tokens = "{tokens}"'
    return simulated_config(
        tmp_path, replace=('api_bind = "127.0.0.1:8443"', bind)
    ), f"http://127.0.0.1:{port}"


def _call(url: str, body: bytes | None = None) -> dict[str, object]:
    headers = {"Authorization": f"Bearer {SUPERVISOR}", "Content-Type": "application/json"}
    with urlopen(Request(url, data=body, headers=headers), timeout=30) as reply:
        return json.load(reply)


def _wait_for_api(base: str, process: subprocess.Popen[str]) -> dict[str, object]:
    deadline = time.monotonic() + 60
    while True:
        try:
            return _call(f"{base}/v1/table")
        except OSError:
            assert process.poll() is None, "the daemon exited"
            assert time.monotonic() < deadline, "the API never came up"
            time.sleep(0.1)


def _on_layout(records: list[dict[str, Any]]) -> list[tuple[object, ...]]:  # Any: JSON records
    """A Free Bet Blackjack round's wagers still on the layout, from its records: each wagered
    (the ``wager`` records, and a paid double down or split: the player's money) and not yet
    collected, paid or returned by a ``settlement`` record of its seat, wager and hand."""
    placed: dict[tuple[object, ...], int] = {}
    for r in records:
        fields = r["fields"]
        if r["kind"] == "wager":
            placed[(fields["seat"], fields["wager"], None)] = fields["amount"]
        elif r["kind"] == "decision" and fields.get("stake") == "paid":
            hand = fields["new_hand"] if fields["action"] == "split" else fields["hand"]
            key = (fields["seat"], "blackjack", hand or None)
            placed[key] = placed.get(key, 0) + fields["amount"]
    for r in records:
        if r["kind"] == "settlement":
            placed.pop((r["fields"]["seat"], r["fields"]["wager"], r["fields"].get("hand") or None), None)
    return [(seat, wager, hand, amount) for (seat, wager, hand), amount in placed.items()]


def _named(wagers: list[dict[str, Any]]) -> list[tuple[object, ...]]:  # Any: JSON fields
    return sorted((w["seat"], w["wager"], w.get("hand"), w["amount"]) for w in wagers)


def _verify(audit: Path, *options: str) -> subprocess.CompletedProcess[str]:
    files = list(map(str, _files(audit)))
    return subprocess.run(
        [sys.executable, "-m", "croupier", "audit", "verify", *options, *files],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )


@pytest.mark.parametrize("kill_after", KILL_AFTER_RECORDS)
def test_killed_daemon_comes_back_to_the_same_table(tmp_path: Path, kill_after: int) -> None:
    audit = tmp_path / "state" / "audit"
    config = simulated_config(tmp_path)
    with (tmp_path / "first.log").open("w") as log:  # a file, not a pipe nobody reads while it plays
        first = croupier("run", "--config", str(config), "--seed", str(kill_after), stderr=log)
    try:
        deadline = time.monotonic() + 90
        while not audit.exists() or _lines(audit) < kill_after:
            assert first.poll() is None, (tmp_path / "first.log").read_text()
            assert time.monotonic() < deadline, "the table never wrote that far"
            time.sleep(0.005)
    finally:
        os.kill(first.pid, signal.SIGKILL)
        first.communicate(timeout=30)
    before = _records(audit)
    assert _verify(audit).returncode == 0, "the trail of a killed daemon verifies (no half line kept)"
    begun = {r["round"] for r in before if r["round"] is not None}
    complete = {
        r["round"] for r in before if r["kind"] == "state" and (r["fields"] or {}).get("dest") == "complete"
    }
    cut = max(begun - complete, default=None)

    config, base = _config_with_api(tmp_path)  # the same trail and state, now with the API
    with (tmp_path / "second.log").open("w") as log:
        second = croupier("run", "--config", str(config), "--seed", "1", stderr=log)
    try:
        table = _wait_for_api(base, second)
        after = _records(audit)
        assert after[: len(before)] == before, "every record written before the kill is kept as it was"
        changed = [r["fields"] for r in after if r["kind"] == "config_changed"]
        if kill_after > 2:  # the first run had saved its configuration's hash: the API was added since
            assert len(changed) == 1 and changed[0]["from"] != changed[0]["to"], "a changed config is audited"
            assert changed[0]["to"] == hashlib.sha256(config.read_bytes()).hexdigest(), "its sha256sum"
        played = max(begun, default=0)
        faults = {f["code"]: f for f in table["faults"]}
        cut_off = [r for r in after if r["kind"] == "round_cut_off"]
        if cut is None and cut_off:
            # Killed after the next round took its number (state first) and before it made a record:
            # held all the same, with nothing wagered and no card out.
            (record,) = cut_off
            assert record["round"] == played + 1 and "ROUND_CUT_OFF" in faults
            assert record["fields"]["wagers"] == [] and record["fields"]["cards_total"] == 0
            played += 1
            _call(f"{base}/v1/faults/ROUND_CUT_OFF/clear", b"{}")
        assert table["rounds"] == played
        if cut is None:
            assert not cut_off or cut_off[0]["fields"]["cards_total"] == 0
        else:
            assert "ROUND_CUT_OFF" in faults, "a round cut off holds the table for a supervisor"
            (record,) = cut_off
            assert record["round"] == cut
            left = _on_layout([r for r in before if r["round"] == cut])
            assert sorted(left) == _named(record["fields"]["wagers"]), "wagers named, to be returned"
            dealt = [r for r in before if r["round"] == cut and r["kind"] == "card"]
            picked = [r for r in before if r["round"] == cut and r["kind"] == "pickup"]
            assert record["fields"]["cards_total"] == len(dealt) - len(picked), "no card unaccounted"
            _call(f"{base}/v1/faults/ROUND_CUT_OFF/clear", b"{}")
            (voided,) = [r for r in _records(audit) if r["kind"] == "round_voided"]
            assert voided["round"] == cut, "the trail closes the cut-off round as voided"
            assert voided["fields"]["wagers_returned"] == record["fields"]["wagers"]
        headers = {"Authorization": f"Bearer {SUPERVISOR}"}
        assert asyncio.run(key_a_round(base, headers)) == played + 1, "round numbers go on, never repeat"
    finally:
        second.send_signal(signal.SIGTERM)
        second.communicate(timeout=60)
    assert second.returncode == 0, (tmp_path / "second.log").read_text()
    result = _verify(audit)
    assert result.returncode == 0, result.stdout + result.stderr
