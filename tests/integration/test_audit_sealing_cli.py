"""``croupier audit keys``, ``verify --key --state`` and ``head`` on a table run by ``croupier run``
(docs/audit.md §8, §9; docs/install.md): provisioned, sealed, checked, its newest file removed."""

from __future__ import annotations

import json
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from croupier.audit import AuditRecord
from croupier.cli import main
from tests.integration.test_run_command import ROOT, croupier, events, simulated_config


def audit(*args: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "croupier", "audit", *args]
    return subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=60)


def provision(tmp_path: Path, capsys: pytest.CaptureFixture[str], table: str) -> tuple[Path, Path]:
    verify, sealing = tmp_path / "verify.key", tmp_path / "sealing.key"
    args = ["audit", "keys", "--table", table, "--out", str(verify), "--sealing-key", str(sealing)]
    assert main(args) == 0
    out = capsys.readouterr().out
    seed = json.loads(verify.read_text())["key"]
    assert f"verification key (hex, for paper): {seed}" in out and "OFF the table PC" in out
    assert seed not in sealing.read_text()  # the PC is never given k(0)
    assert stat.S_IMODE(verify.stat().st_mode) == stat.S_IMODE(sealing.stat().st_mode) == 0o600
    assert main(args) == 2 and "is never overwritten" in capsys.readouterr().out
    assert json.loads(verify.read_text())["key"] == seed
    return verify, sealing


def test_a_provisioned_simulated_table_writes_a_sealed_trail_that_verifies_and_names_its_head(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    verify, sealing = provision(tmp_path, capsys, "sim-free-bet-blackjack")
    config = simulated_config(tmp_path)
    config.write_text(config.read_text() + f'\n[audit]\nsealing_key = "{sealing}"\n')
    for _run in range(2):  # a restart begins a new file: two files, one chain
        _, err = croupier("run", "--config", str(config), "--rounds", "1").communicate(timeout=120)
        assert "audit trail unsealed" not in err
    audit_dir, state = tmp_path / "state" / "audit", tmp_path / "state" / "state.sqlite3"
    files = sorted(audit_dir.glob("*.jsonl*"))  # the closed file compressed (croupier.audit.storage)
    assert len(files) == 2
    checked = audit("verify", *map(str, files), "--key", str(verify), "--state", str(state))
    assert checked.returncode == 0, checked.stdout
    assert "every record sealed, every seal verified" in checked.stdout
    assert "reaches the state database's last position" in checked.stdout

    last = AuditRecord.parse(files[-1].read_bytes().splitlines()[-1])
    head = audit("head", "--config", str(config), "--json")
    assert json.loads(head.stdout) == {
        "table": "sim-free-bet-blackjack",
        "file": files[-1].name,
        "seq": last.seq,
        "hash": last.hash,
        "epoch": last.epoch,
    }
    position = f"{files[-1].name} seq {last.seq} hash {last.hash} epoch {last.epoch}"
    assert audit("head", str(audit_dir)).stdout == f"head: table sim-free-bet-blackjack {position}\n"

    files[-1].unlink()  # the newest file removed: the rest still chains from genesis
    assert audit("verify", str(files[0])).returncode == 0
    cut = audit("verify", str(files[0]), "--key", str(verify), "--state", str(state))
    assert cut.returncode == 1 and "ends before the state database's last sealed position" in cut.stdout
    process = croupier("run", "--config", str(config), "--rounds", "1")
    _, err = process.communicate(timeout=120)
    assert process.returncode == 2 and "ends before the state database's last sealed position" in err


def test_the_default_simulated_table_runs_unsealed_and_says_so(tmp_path: Path) -> None:
    process = croupier("run", "--config", str(simulated_config(tmp_path)), "--rounds", "1")
    _, err = process.communicate(timeout=120)
    assert process.returncode == 0, err
    assert any(e["event"].startswith("audit trail unsealed") for e in events(err))
    files = sorted((tmp_path / "state" / "audit").glob("*.jsonl"))
    assert AuditRecord.parse(files[0].read_bytes().splitlines()[0]).fields["sealed"] is False
    checked = audit("verify", *map(str, files))
    assert checked.returncode == 0 and "not sealed" in checked.stdout


def test_real_equipment_without_a_sealing_key_does_not_start(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = (ROOT / "config" / "tables" / "over-under.toml").read_text()
    config = tmp_path / "table.toml"
    config.write_text("\n".join(line for line in text.splitlines() if not line.startswith("sealing_key")))
    assert main(["run", "--config", str(config), "--check"]) == 2
    assert "audit.sealing_key: real equipment keeps a sealed audit trail" in capsys.readouterr().err


def test_audit_keys_that_cannot_write_the_sealing_key_keeps_no_half_pair(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """decision 0021: a key pair is written whole or not at all. The sealing key's directory does
    not exist: the command fails naming it, and the verification key it had already written is
    removed (before, it stayed, and every later attempt was refused as "never overwritten")."""
    verify, sealing = tmp_path / "verify.key", tmp_path / "missing" / "sealing.key"
    args = ["audit", "keys", "--table", "T1", "--out", str(verify), "--sealing-key", str(sealing)]
    assert main(args) == 2
    out = capsys.readouterr().out
    assert "cannot write" in out and "sealing.key" in out and "nothing was kept" in out
    assert not verify.exists() and not sealing.exists()
    sealing.parent.mkdir()
    assert main(args) == 0 and verify.exists() and sealing.exists()
