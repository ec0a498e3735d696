"""``croupier audit verify`` and ``show`` on real files, and a writer killed with SIGKILL mid-run."""

from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path

import pytest

from croupier.audit import AuditRecord, AuditTrail, verify_series
from croupier.audit.rotation import series_files
from croupier.cli import main

ROOT = Path(__file__).resolve().parents[2]

WRITER = """
import sys
from pathlib import Path
from croupier.audit import AuditTrail
trail = AuditTrail(Path(sys.argv[1]), "T9")
n = 0
while True:
    n += 1
    record = trail.append("card", n // 10, {"place": "seat 1", "card": "As", "n": n})
    print(record.seq, flush=True)  # acknowledged only once append has returned
"""


def trail_files(tmp_path: Path, rounds: int = 3) -> list[Path]:
    with AuditTrail(tmp_path, "T1") as trail:
        for number in range(1, rounds + 1):
            trail.append("wager", number, {"seat": 1, "amount": 500})
            trail.append("settlement", number, {"seat": 1, "movement": "pay", "amount": 500})
    return series_files(tmp_path, "T1")


def test_verify_ok_prints_count_and_last_hash(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    files = trail_files(tmp_path)
    assert main(["audit", "verify", *map(str, files)]) == 0
    out = capsys.readouterr().out
    assert out.startswith("ok: 8 records, chain intact, last hash ")
    assert verify_series(files).last_hash in out


def test_verify_names_the_first_bad_record(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (path,) = trail_files(tmp_path)
    path.write_bytes(path.read_bytes().replace(b'"movement":"pay"', b'"movement":"collect"', 1))
    assert main(["audit", "verify", str(path)]) == 1
    out = capsys.readouterr().out
    assert out.startswith(f"bad: {path}:3 (seq 3): altered")


def test_verify_expect_closed_catches_a_cut_last_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (path,) = trail_files(tmp_path)
    path.write_bytes(b"".join(path.read_bytes().splitlines(keepends=True)[:-1]))
    assert main(["audit", "verify", str(path)]) == 0
    assert "newest file still open" in capsys.readouterr().out
    assert main(["audit", "verify", "--expect-closed", str(path)]) == 1
    assert "closing record" in capsys.readouterr().out


def test_show_prints_one_round(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (path,) = trail_files(tmp_path)
    assert main(["audit", "show", str(path), "--round", "2"]) == 0
    shown = capsys.readouterr().out.splitlines()
    assert len(shown) == 2
    assert shown[0].startswith("#4 ") and "round 2 wager: amount=500 seat=1" in shown[0]
    assert "round 2 settlement" in shown[1]


def test_writer_killed_mid_run_loses_no_acknowledged_record(tmp_path: Path) -> None:
    with subprocess.Popen(
        [sys.executable, "-c", WRITER, str(tmp_path)], cwd=ROOT, stdout=subprocess.PIPE, text=True
    ) as writer:
        acknowledged = [int(writer.stdout.readline()) for _ in range(200)]
        writer.send_signal(signal.SIGKILL)
        writer.wait(timeout=10)
    assert writer.returncode == -signal.SIGKILL
    files = series_files(tmp_path, "T9")
    report = verify_series(files)
    assert report.ok, report.problem
    assert report.last_seq >= acknowledged[-1]
    written = {AuditRecord.parse(line).seq for line in files[0].read_bytes().splitlines()}
    assert set(acknowledged) <= written
    # A restart closes the interrupted file and carries the chain on.
    with AuditTrail(tmp_path, "T9") as trail:
        assert (
            trail.append("fault_clear", None, {"by": "S-1"}).seq == report.last_seq + 3
        )  # after close and header
    assert verify_series(series_files(tmp_path, "T9"), expect_closed=True).ok
