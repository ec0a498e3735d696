"""``croupier audit export`` and ``croupier audit verify EXPORT --manifest``: a period of a sealed,
rotated and compressed trail exported for the Gaming Control Board and checked on the exported copy
alone (465a.6: records kept five years and produced; decision 0025)."""

from __future__ import annotations

import hashlib
import json
from datetime import timedelta
from pathlib import Path

import pytest

from croupier.audit import AuditTrail, Rotation
from croupier.audit.rotation import series_files
from croupier.audit.sealing import SealingKey, generate
from croupier.audit.storage import read_bytes
from croupier.cli import main
from tests.unit.test_audit_chain import START, Clock


@pytest.fixture
def trail(tmp_path: Path) -> tuple[list[str], Path]:
    """Four days of a sealed table, a round every two hours, rotated daily and compressed."""
    verify, first = generate("T1", START)
    (tmp_path / "sealing.key").write_bytes(first)
    (tmp_path / "verify.key").write_bytes(verify.text())
    clock = Clock()
    rotation = Rotation(period="daily", compress=True)
    audit = tmp_path / "audit"
    with AuditTrail(
        audit, "T1", clock=clock, sealing=SealingKey.read(tmp_path / "sealing.key"), rotation=rotation
    ) as t:
        for number in range(1, 49):
            t.append("wager", number, {"seat": 1, "wager": "main", "amount": 1000})
            if number % 6 == 0:
                t.append("burn", None, {"reason": "batch", "dealer": "D-1"})
            t.append("settlement", number, {"seat": 1, "movement": "collect", "amount": 1000})
            clock.now += timedelta(hours=2)
    return list(map(str, series_files(audit, "T1"))), tmp_path / "verify.key"


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    code, out, _ = run_with_err(capsys, *args)
    return code, out


def run_with_err(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    capsys.readouterr()
    code = main(list(args))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def exported(out: str) -> tuple[Path, Path]:
    lines = out.splitlines()
    return Path(lines[0].split(" to ", 1)[1]), Path(lines[1].split(": ", 1)[1])


@pytest.mark.parametrize("fmt", ["jsonl", "csv"])
def test_a_period_exported_verifies_on_the_copy_with_its_seals(
    tmp_path: Path, trail: tuple[list[str], Path], capsys: pytest.CaptureFixture[str], fmt: str
) -> None:
    files, key = trail
    assert any(name.endswith(".jsonl.gz") for name in files)
    code, out = run(capsys, "audit", "export", *files, "--from", "2026-03-02", "--to", "2026-03-02",
                    "--format", fmt, "--out", str(tmp_path / "board"))  # fmt: skip
    assert code == 0, out
    data, manifest = exported(out)
    document = json.loads(manifest.read_text())
    assert document["records"] == int(out.split()[1]) and len(document["runs"]) == 1
    assert document["sources"] and document["before"] and document["after"]
    # On the Board's machine: only the export, its manifest and the verification key.
    code, out = run(capsys, "audit", "verify", str(data), "--manifest", str(manifest), "--key", str(key))
    assert code == 0, out
    assert "complete for the period" in out and "every seal verified" in out
    rows = data.read_text().splitlines()
    assert all("2026-03-02T" in row for row in rows[(1 if fmt == "csv" else 0) :])


def test_a_tampered_export_is_detected(
    tmp_path: Path, trail: tuple[list[str], Path], capsys: pytest.CaptureFixture[str]
) -> None:
    files, _ = trail
    _, out = run(capsys, "audit", "export", *files, "--from", "2026-03-02", "--to", "2026-03-03",
                 "--out", str(tmp_path / "board"))  # fmt: skip
    data, manifest = exported(out)
    original = data.read_bytes()
    lines = original.splitlines(keepends=True)

    data.write_bytes(original.replace(b'"amount":1000', b'"amount":9000', 1))
    code, out = run(capsys, "audit", "verify", str(data), "--manifest", str(manifest))
    assert code == 1 and "SHA-256 differs" in out

    # The manifest's digest and runs rewritten to match a record removed: the chain breaks.
    document = json.loads(manifest.read_text())
    data.write_bytes(b"".join(lines[:5] + lines[6:]))

    document["sha256"] = hashlib.sha256(data.read_bytes()).hexdigest()
    manifest.write_text(json.dumps(document))
    code, out = run(capsys, "audit", "verify", str(data), "--manifest", str(manifest))
    assert code == 1 and "removed" in out, out


def test_a_subset_by_kind_proves_each_record_but_says_it_cannot_prove_completeness(
    tmp_path: Path, trail: tuple[list[str], Path], capsys: pytest.CaptureFixture[str]
) -> None:
    files, key = trail
    _, out = run(capsys, "audit", "export", *files, "--from", "2026-03-01", "--to", "2026-03-04",
                 "--kind", "burn", "--out", str(tmp_path / "board"))  # fmt: skip
    data, manifest = exported(out)
    assert all(json.loads(line)["kind"] == "burn" for line in data.read_text().splitlines())
    code, out = run(capsys, "audit", "verify", str(data), "--manifest", str(manifest), "--key", str(key))
    assert code == 0 and "cannot be checked from the subset" in out, out


def test_bad_dates_and_empty_periods_are_named(
    tmp_path: Path, trail: tuple[list[str], Path], capsys: pytest.CaptureFixture[str]
) -> None:
    files, _ = trail
    code, out = run(capsys, "audit", "export", *files, "--from", "2026-13-01", "--to", "2026-03-02")
    assert code == 1 and "'2026-13-01' is not a date" in out
    code, out = run(capsys, "audit", "export", *files, "--from", "2027-01-01", "--to", "2027-01-02",
                    "--out", str(tmp_path))  # fmt: skip
    assert code == 1 and "no record of T1" in out


def test_a_sealed_compressed_series_verifies_with_the_key_and_replays(
    trail: tuple[list[str], Path], capsys: pytest.CaptureFixture[str]
) -> None:
    """The seals are of the decompressed lines: verify --key reads the compressed files as written."""
    files, key = trail
    code, out = run(capsys, "audit", "verify", *files, "--key", str(key))
    assert code == 0 and "every record sealed, every seal verified" in out, out
    code, out = run(capsys, "audit", "show", *files, "--round", "30")
    assert code == 0 and [line.split()[2:4] for line in out.splitlines()] == [["round", "30"]] * 2


def test_465a6_an_export_whose_files_stop_inside_the_period_is_not_called_complete(
    tmp_path: Path, trail: tuple[list[str], Path], capsys: pytest.CaptureFixture[str]
) -> None:
    """465a.6, decision 0025: given only the files of the period's first two days, the export warns
    where they stop, and the verifier says the end is unproven (exit 3), never "complete"."""
    files, key = trail
    code, out, err = run_with_err(capsys, "audit", "export", *files[:2], "--from", "2026-03-01",
                                  "--to", "2026-03-04", "--out", str(tmp_path / "board"))  # fmt: skip
    assert code == 0, out
    last = json.loads(read_bytes(Path(files[1])).splitlines()[-1])
    assert "WARNING: the files given end inside the period" in err
    assert f"at seq {last['seq']} ({last['at']}" in err and "Give the next file" in err, err
    data, manifest = exported(out)
    code, out = run(capsys, "audit", "verify", str(data), "--manifest", str(manifest), "--key", str(key))
    assert code == 3, out
    assert out.startswith("unproven: ") and "complete for the period" not in out
    assert "NOT proven complete at its end" in out and f"after seq {last['seq']}" in out


def test_465a6_an_export_cut_at_the_series_end_and_its_manifest_rewritten_is_not_complete(
    tmp_path: Path, trail: tuple[list[str], Path], capsys: pytest.CaptureFixture[str]
) -> None:
    """465a.6, decision 0025: a period running past the series' last record has no record after it;
    its last 20 lines (the shutdown's close among them) cut and the manifest's count, runs and digest
    rewritten to match, the verifier still verifies every seal but says the end is unproven. So does
    the untouched export: a later start could have written on in a new file."""
    files, key = trail
    code, out, err = run_with_err(capsys, "audit", "export", *files, "--from", "2026-03-04",
                                  "--to", "2026-03-05", "--out", str(tmp_path / "board"))  # fmt: skip
    assert code == 0 and "end inside the period" in err, err
    data, manifest = exported(out)
    code, out = run(capsys, "audit", "verify", str(data), "--manifest", str(manifest), "--key", str(key))
    assert code == 3 and "closed the trail at a shutdown" in out, out
    assert "complete for the period" not in out

    lines = data.read_bytes().splitlines(keepends=True)[:-20]
    data.write_bytes(b"".join(lines))
    kept = json.loads(lines[-1])
    document = json.loads(manifest.read_text())
    document["records"] = len(lines)
    document["runs"][0] |= {"last_seq": kept["seq"], "last_hash": kept["hash"]}
    document["sha256"] = hashlib.sha256(data.read_bytes()).hexdigest()
    manifest.write_text(json.dumps(document))
    code, out = run(capsys, "audit", "verify", str(data), "--manifest", str(manifest), "--key", str(key))
    assert code == 3, out
    assert "complete for the period" not in out and f"after seq {kept['seq']}" in out
    assert "every seal verified" in out
