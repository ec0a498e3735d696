"""The audit trail: hash chain, tamper detection, fsync before acknowledgement, rotation, retention,
secrecy of face-down cards, and a Free Bet Blackjack round recorded through the adapter."""

from __future__ import annotations

import hashlib
import itertools
import json
import os
import threading
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from croupier.audit import (
    AuditError,
    AuditRecord,
    AuditTrail,
    Retention,
    Rotation,
    record_round,
    verify_series,
)
from croupier.audit.rotation import series_files
from croupier.service.journal import TableJournal
from croupier.state import TableState
from games.common.records import Record, RecordKind
from games.free_bet_blackjack.inputs import PlayerAction
from tests.dealing import journaled
from tests.games import dealt, decide, finish
from vocabulary.cards import Card

START = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)


class Clock:
    """A clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = START

    def __call__(self) -> datetime:
        return self.now


def written(tmp_path: Path, count: int = 5) -> Path:
    """A closed file: header, ``count`` wagers, closing record."""
    with AuditTrail(tmp_path, "T1") as trail:
        for seat in range(count):
            trail.append("wager", 7, {"seat": seat, "amount": 1000})
    return series_files(tmp_path, "T1")[0]


def lines_of(path: Path) -> list[bytes]:
    return path.read_bytes().splitlines(keepends=True)


def problem(path: Path, lines: list[bytes], **kwargs: bool):
    path.write_bytes(b"".join(lines))
    report = verify_series([path], **kwargs)
    assert not report.ok
    return report.problem


def test_intact_file_verifies_with_every_record_chained(tmp_path: Path) -> None:
    path = written(tmp_path)
    report = verify_series([path])
    assert report.ok and report.closed and report.anchored
    assert report.records == 7
    records = [AuditRecord.parse(line) for line in lines_of(path)]
    assert [r.seq for r in records] == list(range(1, 8))
    assert all(later.prev == earlier.hash for earlier, later in itertools.pairwise(records))
    assert report.last_hash == records[-1].hash


def test_edited_field_is_altered(tmp_path: Path) -> None:
    path = written(tmp_path)
    lines = lines_of(path)
    lines[3] = lines[3].replace(b'"amount":1000', b'"amount":9000')
    found = problem(path, lines)
    assert (found.line, found.seq) == (4, 4) and found.reason.startswith("altered")


def test_deleted_line_is_removed(tmp_path: Path) -> None:
    path = written(tmp_path)
    lines = lines_of(path)
    del lines[2]
    found = problem(path, lines)
    assert found.line == 3 and found.reason.startswith("removed") and "3..3" in found.reason


def test_duplicated_line_is_inserted(tmp_path: Path) -> None:
    path = written(tmp_path)
    lines = lines_of(path)
    lines.insert(4, lines[1])
    found = problem(path, lines)
    assert found.line == 5 and "inserted" in found.reason


def test_forged_record_with_a_valid_hash_breaks_the_chain(tmp_path: Path) -> None:
    path = written(tmp_path)
    lines = lines_of(path)
    before = AuditRecord.parse(lines[2])
    forged = AuditRecord.seal(before.seq + 1, before.at, "wager", 7, {"seat": 9, "amount": 5}, "f" * 64)
    # The forger renumbers everything after so that seq alone looks right.
    rest = [AuditRecord.parse(line) for line in lines[3:]]
    renumbered = [
        AuditRecord(r.seq + 1, r.at, r.kind, r.round, r.fields, r.prev, r.hash).line() for r in rest
    ]
    found = problem(path, [*lines[:3], forged.line(), *renumbered])
    assert found.line == 4 and "prev" in found.reason


def test_swapped_lines_are_reordered(tmp_path: Path) -> None:
    path = written(tmp_path)
    lines = lines_of(path)
    lines[2], lines[3] = lines[3], lines[2]
    found = problem(path, lines)
    assert found.line == 3 and found.reason.startswith("reordered")


def test_partial_last_line_is_truncated(tmp_path: Path) -> None:
    path = written(tmp_path)
    data = path.read_bytes()
    found = problem(path, [data[: len(data) - 20]])
    assert found.line == 7 and "incomplete" in found.reason


def test_cut_closing_record_detected_when_the_file_should_be_closed(tmp_path: Path) -> None:
    path = written(tmp_path)
    found = problem(path, lines_of(path)[:-1], expect_closed=True)
    assert found.line == 6 and "closing record" in found.reason
    # Without that expectation the file reads as still open, and says so.
    report = verify_series([path])
    assert report.ok and not report.closed


def test_append_fsyncs_the_record_before_returning(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    synced: list[int] = []
    real_fsync = os.fsync

    def recording_fsync(fd: int) -> None:
        real_fsync(fd)
        if os.path.isfile(f"/proc/self/fd/{fd}"):
            synced.append(os.fstat(fd).st_size)

    with AuditTrail(tmp_path, "T1") as trail:
        monkeypatch.setattr(os, "fsync", recording_fsync)
        trail.append("decision", 3, {"seat": 1, "action": "hit"})
        size = trail.path.stat().st_size
        assert synced and synced[-1] == size  # the file was synced with the record in it
        monkeypatch.setattr(os, "fsync", real_fsync)


def test_face_down_face_is_refused_and_nothing_is_written(tmp_path: Path) -> None:
    with AuditTrail(tmp_path, "T1") as trail:
        before = trail.path.read_bytes()
        with pytest.raises(AuditError, match="hole_card") as hole:
            trail.append("card", 2, {"hole_card": Card.parse("As")})
        with pytest.raises(AuditError, match="cards") as marked:
            trail.append("card", 2, {"cards": [Card.parse("Kd")]}, face_down=True)
        assert "As" not in str(hole.value) and "Kd" not in str(marked.value)
        assert trail.path.read_bytes() == before
        record = trail.append("card", 2, {"card": Card.parse("Qh")})
        assert record.fields["card"] == "Qh"
        with pytest.raises(AuditError, match="'blob' is a object"):
            trail.append("x", 1, {"blob": object()})


def test_bad_kind_and_round_are_named(tmp_path: Path) -> None:
    with AuditTrail(tmp_path, "T1") as trail:
        with pytest.raises(AuditError, match="'Bad Kind'"):
            trail.append("Bad Kind", 1, {})
        with pytest.raises(AuditError, match="written by the trail"):
            trail.append("header", 1, {})
        with pytest.raises(AuditError, match="round"):
            trail.append("wager", -1, {})


def test_rotation_by_size_keeps_one_chain_across_files(tmp_path: Path) -> None:
    with AuditTrail(tmp_path, "T1", rotation=Rotation(max_bytes=4096)) as trail:
        for n in range(60):
            trail.append("card", 1, {"place": "seat 1", "card": "As", "n": n})
    files = series_files(tmp_path, "T1")
    assert len(files) > 1
    report = verify_series(files)
    assert report.ok and report.anchored and report.last_seq == report.records
    assert not verify_series(files[1:]).anchored and verify_series(files[1:]).ok
    # Cutting file 1's closing record is caught even though file 1 is not checked on its own.
    files[0].write_bytes(b"".join(lines_of(files[0])[:-1]))
    assert "closing record" in verify_series(files).problem.reason


def test_daily_rotation_on_a_new_utc_day(tmp_path: Path) -> None:
    clock = Clock()
    with AuditTrail(tmp_path, "T1", clock=clock) as trail:
        trail.append("wager", 1, {"amount": 5})
        clock.now += timedelta(days=1)
        trail.append("wager", 2, {"amount": 5})
    files = series_files(tmp_path, "T1")
    assert len(files) == 2 and verify_series(files).ok


def test_series_out_of_order_is_named(tmp_path: Path) -> None:
    with AuditTrail(tmp_path, "T1", rotation=Rotation(max_bytes=4096)) as trail:
        for n in range(60):
            trail.append("card", 1, {"n": n})
    files = series_files(tmp_path, "T1")
    found = verify_series([files[0], files[2], files[1]]).problem
    assert found.path == files[2] and found.line == 1


def test_a_header_that_numbers_no_file_is_named(tmp_path: Path) -> None:
    """A forger who recomputes the chain of an unsealed series still cannot give a header a file
    number that is not a number: the verifier names the header (it used to fail on the next file)."""
    with AuditTrail(tmp_path, "T1", rotation=Rotation(max_bytes=4096)) as trail:
        for n in range(60):
            trail.append("card", 1, {"n": n})
    files = series_files(tmp_path, "T1")[:2]
    prev = None
    for path in files:
        rewritten = []
        for line in lines_of(path):
            record = AuditRecord.parse(line)
            fields = {**record.fields, "file": "one"} if record.seq == 1 else record.fields
            prev = prev or record.prev
            record = AuditRecord.seal(record.seq, record.at, record.kind, record.round, fields, prev)
            rewritten.append(record.line())
            prev = record.hash
        path.write_bytes(b"".join(rewritten))
    found = verify_series(files).problem
    assert found.path == files[0] and found.line == 1 and "file number" in found.reason


def test_reopening_continues_the_chain_and_refuses_a_damaged_series(tmp_path: Path) -> None:
    path = written(tmp_path)
    with AuditTrail(tmp_path, "T1") as trail:
        record = trail.append("dealer_change", None, {"dealer": "D-2"})
    files = series_files(tmp_path, "T1")
    assert record.seq == 9 and verify_series(files).ok
    path.write_bytes(path.read_bytes().replace(b'"amount":1000', b'"amount":1', 1))
    with pytest.raises(AuditError, match="altered"):
        AuditTrail(tmp_path, "T1")


def test_concurrent_appends_keep_one_order(tmp_path: Path) -> None:
    with AuditTrail(tmp_path, "T1") as trail:

        def worker(seat: int) -> None:
            for n in range(25):
                trail.append("wager", 1, {"seat": seat, "n": n})

        threads = [threading.Thread(target=worker, args=(seat,)) for seat in range(4)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    report = verify_series(series_files(tmp_path, "T1"))
    assert report.ok and report.records == 102


def test_retention_never_deletes_young_or_open_files(tmp_path: Path) -> None:
    clock = Clock()
    with AuditTrail(tmp_path, "T1", clock=clock) as trail:
        trail.append("wager", 1, {"amount": 5})
        clock.now += timedelta(days=1)
        trail.append("wager", 2, {"amount": 5})
        old, newest = series_files(tmp_path, "T1")
        retention = Retention()
        later = START + timedelta(days=40)
        assert retention.due_for_archive([old, newest], later) == [old]
        with pytest.raises(AuditError, match=r"465a\.6"):
            retention.delete(old, later)
        assert old.exists()
        with pytest.raises(AuditError, match="not closed"):
            retention.delete(newest, START + timedelta(days=3000))
        retention.delete(old, START + timedelta(days=5 * 366))
        assert not old.exists()
    with pytest.raises(AuditError, match=r"461a\.10"):
        Retention(online_days=10)


def test_free_bet_blackjack_round_records_the_hole_card_only_as_a_commitment(tmp_path: Path) -> None:
    round_, shoe = dealt(["Ts 7c"], "6h 9d", rest="5s 8c")
    decide(round_, shoe, 1, PlayerAction.STAND)
    finish(round_, shoe)
    with AuditTrail(tmp_path, "T1") as trail:
        records = record_round(trail, "free_bet_blackjack", round_.log)
    kinds = [r.kind for r in records]
    revealed = kinds.index(RecordKind.HOLE_REVEALED.value)
    hole = next(r for r in records if r.kind == "card" and r.fields["face_up"] is False)
    assert hole.fields["card"] is None and len(hole.fields["commitment"]) == 64
    text = b"".join(lines_of(series_files(tmp_path, "T1")[0]))
    lines = text.splitlines()
    before_reveal = b"\n".join(lines[: revealed + 1])  # header + records up to the reveal
    assert b'"9d"' not in before_reveal
    assert records[revealed].fields["card"] == "9d"
    assert records[revealed].fields["commitment"] == hole.fields["commitment"]
    assert all(r.round == 1 for r in records)
    assert verify_series(series_files(tmp_path, "T1")).ok


def test_the_journal_writes_each_round_record_as_it_is_made_once_in_order(tmp_path: Path) -> None:
    """A record is on disk before the round returns from the message that made it (the service
    acknowledges nothing earlier): after each step the trail holds every record made so far."""
    round_, shoe = dealt(["Ts 7c"], "6h 9d", rest="5s 8c")
    with AuditTrail(tmp_path, "T1") as trail, TableState(tmp_path / "state.db") as state:
        journal = TableJournal(trail, state, table="T1", game="free_bet_blackjack")
        journaled(round_, journal)

        def on_disk() -> list[int]:
            lines = b"".join(lines_of(series_files(tmp_path, "T1")[0])).splitlines()
            return [AuditRecord.parse(line).fields["round_seq"] for line in lines[1:]]

        assert on_disk() == list(range(1, len(round_.log) + 1))
        decide(round_, shoe, 1, PlayerAction.STAND)
        assert on_disk() == list(range(1, len(round_.log) + 1))
        finish(round_, shoe)
        assert on_disk() == list(range(1, len(round_.log) + 1))


def test_adapter_refuses_a_face_down_record_that_names_its_face(tmp_path: Path) -> None:
    leaky = Record(4, 9, RecordKind.CARD, {"place": "dealer", "card": "9d", "face_up": False})
    with AuditTrail(tmp_path, "T1") as trail:
        before = trail.path.read_bytes()
        with pytest.raises(AuditError, match="face-down card record") as refused:
            record_round(trail, "free_bet_blackjack", [leaky])
        assert "9d" not in str(refused.value) and trail.path.read_bytes() == before


def _keys_reordered(line: bytes) -> bytes:
    record = json.loads(line)
    return json.dumps({"seq": record.pop("seq"), **record}, separators=(",", ":")).encode() + b"\n"


@pytest.mark.parametrize(
    ("name", "change"),
    [
        ("CRLF line", lambda line: line.replace(b"\n", b"\r\n")),
        ("extra whitespace", lambda line: line.replace(b'","', b'", "', 1)),
        ("\\u-escaped char", lambda line: line.replace(b'"wager"', b'"w\\u0061ger"', 1)),
        ("key order", _keys_reordered),
    ],
)
def test_a_line_not_in_its_canonical_encoding_is_refused(tmp_path: Path, name: str, change: Any) -> None:
    """The bytes on disk are what is hashed and sealed: the same record in other bytes (which JSON
    reads alike) is not the record, so a trail's bytes can be compared and signed as they are."""
    path = written(tmp_path)
    lines = lines_of(path)
    edited = change(lines[3])
    assert edited != lines[3] and json.loads(edited) == json.loads(lines[3])
    found = problem(path, [*lines[:3], edited, *lines[4:]])
    assert (found.line, found.seq) == (4, 4), name
    assert found.reason.startswith("not canonical")


@pytest.mark.parametrize("sealed", [False, True])
def test_the_writers_line_is_the_records_one_valid_encoding(sealed: bool) -> None:
    """``sealed_line`` encodes a record once and splices ``hash`` (and ``tag``) into it: the bytes must
    be exactly ``line()``'s, the definition the verifier holds each line to, whatever the fields hold
    (a field named ``kind``, ``hash`` or ``tag``, nested objects, quotes, text beyond ASCII)."""
    tricky = [
        {},
        {"kind": "wager", "hash": "x", "tag": "y", "z": {"kind": ',"kind":"', "round": None}},
        {"note": 'a "quoted" ,"kind": and \\ back', "cards": ["As", "Td"], "n": -3, "ok": True},
        {"name": "Zoë ♠", "nested": {"list": [{"kind": 1}], "empty": {}}},
    ]
    sealer = (lambda data: hashlib.sha256(b"key" + data).hexdigest()) if sealed else None
    for n, fields in enumerate(tricky):
        for round_ in (None, 0, 12):
            record, line = AuditRecord.sealed_line(
                n + 1, "2026-12-02T07:00:00.000+00:00", "card", round_, fields, "ab" * 32,
                sealer=sealer, epoch=3 if sealed else None,
            )  # fmt: skip
            assert line == record.line()
            assert record.is_sound() and record.fields == fields and record.round == round_
            assert record.tag == (sealer(record.sealed_bytes()) if sealer else None)
