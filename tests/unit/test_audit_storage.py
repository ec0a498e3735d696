"""The trail kept five years (465a.6): closed files compressed and still verified byte for byte, a
series mixing plain and compressed files, and the index that finds one round without reading the
trail (decision 0025), which can make an answer faster but never different."""

from __future__ import annotations

import gzip
import hashlib
import json
import logging
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from croupier.audit import (
    AuditError,
    AuditRecord,
    AuditTrail,
    Retention,
    Rotation,
    index,
    storage,
    verify_series,
)
from croupier.audit.lookup import find_round
from croupier.audit.record import read_records
from croupier.audit.replay import replay
from croupier.audit.rotation import archived_files, compress_closed, series_files
from croupier.audit.storage import compress, index_path, is_compressed, last_line, read_bytes
from croupier.cli import main

GAME = "free-bet-blackjack"


def play(trail: AuditTrail, number: int, steps: int = 4) -> None:
    """One round's records as the adapter writes them (``game`` and ``round_seq``)."""
    trail.append("wager", number, {"game": GAME, "round_seq": 1, "seat": 1, "wager": "main", "amount": 500})
    for step in range(2, steps):
        card = {"place": "seat 1 hand 1", "seat": 1, "hand": 1, "card": "As", "face_up": True, "clause": "x"}
        trail.append("card", number, {"game": GAME, "round_seq": step, **card})
    trail.append("settlement", number, {"game": GAME, "round_seq": steps, "seat": 1, "movement": "pay"})


def series(tmp_path: Path, *, compressed: bool = True) -> list[Path]:
    """Forty rounds over many small files: a burn every fifth round, round 3 held and finished after
    round 4, a fault recorded in round 12, and round numbers 1 to 5 played again (a count restarted)."""
    with AuditTrail(tmp_path, "T1", rotation=Rotation(max_bytes=4096, compress=compressed)) as trail:
        for number in [*range(1, 41), *range(1, 6)]:
            if number % 5 == 0:
                trail.append("burn", None, {"reason": "batch", "dealer": "D-1"})
            if number == 12:
                trail.append("fault_latched", 12, {"device": "shoe", "code": "JAM"})
            if number == 3:
                trail.append(
                    "wager", 3, {"game": GAME, "round_seq": 1, "seat": 2, "wager": "main", "amount": 5}
                )
                continue
            play(trail, number)
            if number == 4:
                trail.append("settlement", 3, {"game": GAME, "round_seq": 2, "seat": 2, "movement": "push"})
    return series_files(tmp_path, "T1")


def last(path: Path) -> AuditRecord:
    return AuditRecord.parse(last_line(path))


def cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    capsys.readouterr()
    code = main(list(args))
    return code, capsys.readouterr().out


def test_closed_files_are_compressed_and_the_series_verifies_as_written_465a_6(tmp_path: Path) -> None:
    files = series(tmp_path / "gz")
    plain = series(tmp_path / "plain", compressed=False)
    assert all(is_compressed(path) for path in files[:-1]) and not is_compressed(files[-1])
    assert verify_series(files).ok
    # The hashed and sealed bytes are the decompressed lines, unchanged: gzip gives them back.
    body = [json.loads(line)["fields"] for line in gzip.decompress(files[0].read_bytes()).splitlines()]
    assert body[0]["file"] == 1 and body[-1]["reason"] == "rotation"
    assert [r.kind for r in read_records(files)] == [r.kind for r in read_records(plain)]
    assert sum(p.stat().st_size for p in files[:-1]) < sum(p.stat().st_size for p in plain[:-1])


def test_a_byte_changed_inside_a_compressed_file_is_detected(tmp_path: Path) -> None:
    files = series(tmp_path)
    data = bytearray(files[2].read_bytes())
    data[len(data) // 2] ^= 0x01
    files[2].write_bytes(bytes(data))
    report = verify_series(files)
    assert not report.ok and report.problem is not None and report.problem.path == files[2]


def test_a_series_mixing_plain_and_compressed_files_verifies(tmp_path: Path) -> None:
    files = series(tmp_path, compressed=False)
    compress(files[1])
    compress(files[4])
    mixed = series_files(tmp_path, "T1")
    assert [is_compressed(p) for p in mixed[:6]] == [False, True, False, False, True, False]
    assert verify_series(mixed, expect_closed=True).ok


def test_a_crash_between_rename_and_removal_leaves_one_complete_series(tmp_path: Path) -> None:
    """The compressed copy renamed into place, the plain file not yet removed: both are complete,
    the series reads the plain one once, and the next compression finishes the job."""
    files = series(tmp_path, compressed=False)
    original = files[1].read_bytes()
    compress(files[1])
    files[1].write_bytes(original)  # as if the crash came before the removal
    assert series_files(tmp_path, "T1") == files and verify_series(files).ok
    compress_closed(tmp_path, "T1")
    assert all(is_compressed(p) for p in series_files(tmp_path, "T1")[:-1])
    assert read_bytes(series_files(tmp_path, "T1")[1]) == original


@pytest.mark.parametrize("number", [1, 3, 12, 20, 40])
def test_show_and_replay_of_a_round_through_the_index_equal_a_full_read(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], number: int
) -> None:
    names = list(map(str, series(tmp_path)))
    assert find_round(series_files(tmp_path, "T1"), number) is not None  # the index answers
    indexed = [cli(capsys, "audit", "show", *names, "--round", str(number))]
    indexed.append(cli(capsys, "replay", *names, "--round", str(number), "--json"))
    for path in tmp_path.glob("*.idx"):
        path.unlink()
    full = [cli(capsys, "audit", "show", *names, "--round", str(number))]
    full.append(cli(capsys, "replay", *names, "--round", str(number), "--json"))
    assert indexed == full and full[0][0] == 0 and full[1][0] == 0
    replayed = json.loads(full[1][1])["rounds"]
    assert len(replayed) == (2 if number in (1, 3) else 1)  # rounds 1 to 5 were played twice
    if number == 20:
        assert [step["kind"] for step in replayed[0]["burns"]] == ["burn"]


def test_a_stale_or_tampered_index_never_changes_the_answer(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A run dropped or moved in a chunk, the chunk's digest rewritten too, an index of another
    file, or none: a chunk that does not match its digest sends the reader to the whole series, a
    first line that does not match the close record's digest sends it to that file read whole."""
    files = series(tmp_path)
    names = list(map(str, files))
    expected = cli(capsys, "replay", *names, "--round", "1", "--json")
    round_1 = [r for r in read_records(files) if r.round == 1]
    first = index_path(files[0])
    top, chunk, *rest = first.read_bytes().split(b"\n")
    runs = json.loads(chunk)
    dropped = json.dumps(runs[1:], separators=(",", ":")).encode()  # an occurrence of round 1 hidden
    moved = json.dumps([[*run[:6], run[6] + 1, *run[7:]] for run in runs], separators=(",", ":")).encode()
    for line in (dropped, moved):
        first.write_bytes(b"\n".join([top, line, *rest]))
        assert find_round(files, 1) is None  # the chunk is not the one the first line names
        assert cli(capsys, "replay", *names, "--round", "1", "--json") == expected
        document = json.loads(top)
        document["chunks"][0][4] = hashlib.sha256(line).hexdigest()
        first.write_bytes(b"\n".join([json.dumps(document, separators=(",", ":")).encode(), line, *rest]))
        found = find_round(files, 1)  # the first line is not the close record's: file 1 read whole
        assert found is not None and found.records == round_1
        assert cli(capsys, "replay", *names, "--round", "1", "--json") == expected
    first.write_bytes(index_path(files[1]).read_bytes())  # another file's index
    assert cli(capsys, "replay", *names, "--round", "1", "--json") == expected
    first.unlink()
    assert cli(capsys, "replay", *names, "--round", "1", "--json") == expected


def test_replay_through_the_index_still_refuses_an_altered_round(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    files = series(tmp_path, compressed=False)
    data = files[-1].read_bytes()
    assert b'"movement":"pay"' in data
    files[-1].write_bytes(data.replace(b'"movement":"pay"', b'"movement":"push"', 1))
    code, out = cli(capsys, "replay", *map(str, files), "--round", "5")
    assert code == 1 and out.startswith("croupier replay: refused, the trail fails verification:")


def test_show_takes_several_files_plain_and_compressed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    files = series(tmp_path)
    code, out = cli(capsys, "audit", "show", *map(str, files))
    assert code == 0
    seqs = [int(line.split()[0][1:]) for line in out.splitlines()]
    assert seqs == list(range(1, len(seqs) + 1)) == [r.seq for r in read_records(files)]


def test_archiving_moves_compressed_files_with_their_indexes(tmp_path: Path) -> None:
    files = series(tmp_path)
    moved = Retention().archive(tmp_path, "T1", datetime.now(UTC) + timedelta(days=31))
    assert [p.name for p in moved] == [p.name for p in files[:-1]]
    assert all(index_path(p).exists() for p in moved)
    archived = archived_files(tmp_path, "T1")
    assert verify_series([*archived, *series_files(tmp_path, "T1")]).ok
    assert find_round([*archived, *series_files(tmp_path, "T1")], 7) is not None


def test_deletion_past_retention_spares_the_newest_file_and_is_logged_465a_6(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    files = series(tmp_path)
    later = datetime.now(UTC) + timedelta(days=2000)
    retention = Retention()
    with pytest.raises(AuditError, match="newest file of its series"):
        retention.delete(files[-1], later)
    with caplog.at_level(logging.WARNING, logger="croupier.audit"):
        retention.delete(files[0], later)
    assert not files[0].exists() and not index_path(files[0]).exists()
    assert f"deleted {files[0]}" in caplog.text


def test_every_round_found_across_many_chunks_equals_a_full_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Chunks of three runs, cut only where no round is open (round 3 is held over round 4): each
    round's records and the burns before it are those the whole series gives."""
    monkeypatch.setattr(index, "CHUNK", 3)
    monkeypatch.setattr(storage, "MEMBER", 512)
    with AuditTrail(tmp_path, "T1", rotation=Rotation(max_bytes=16384, compress=True)) as trail:
        for number in [*range(1, 41), *range(1, 6)]:
            if number % 5 == 0:
                trail.append("burn", None, {"reason": "batch", "dealer": "D-1"})
            play(trail, number)
            if number == 4:
                trail.append("settlement", 3, {"game": GAME, "round_seq": 5, "seat": 2, "movement": "push"})
    files = series_files(tmp_path, "T1")
    assert len(index.load(files[0], last(files[0]).fields["index"]).chunks) > 3
    everything = list(read_records(files))
    for number in range(1, 41):
        found = find_round(files, number)
        assert found is not None, number
        assert found.records == [r for r in everything if r.round == number]
        assert replay(found.burns + found.records, number) == replay(everything, number)


def test_the_procedure_auditor_reads_a_compressed_series_as_the_plain_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    plain = series(tmp_path / "plain", compressed=False)
    packed = series(tmp_path / "packed")
    assert any(is_compressed(path) for path in packed)
    assert cli(capsys, "audit", "procedure", *map(str, packed), "--json") == cli(
        capsys, "audit", "procedure", *map(str, plain), "--json"
    )
