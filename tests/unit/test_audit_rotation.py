"""Rotation at each configured period, and retention: archive after ``online_days``, never too early.

The trail takes its time from an injected clock, so each boundary is crossed by moving the clock a
millisecond, not by waiting; each test checks both sides of the boundary.
"""

from __future__ import annotations

import argparse
import json
import logging
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

import pytest

from croupier.audit import AuditError, AuditTrail, Retention, Rotation, verify_series
from croupier.audit.rotation import (
    ARCHIVE,
    RECORD_DAYS,
    archived_files,
    closed_at,
    series_files,
    tables_in,
    years_in_days,
)
from croupier.commands.audit import _verify
from croupier.config.service import ROTATIONS, AuditConfig

TICK = timedelta(milliseconds=1)


class Clock:
    """A clock the test sets by hand."""

    def __init__(self, now: datetime) -> None:
        self.now = now

    def __call__(self) -> datetime:
        return self.now


def files_after(tmp_path: Path, rotation: Rotation, times: list[datetime]) -> list[Path]:
    """Append one record at each of ``times`` and return the series written."""
    clock = Clock(times[0])
    with AuditTrail(tmp_path, "T1", rotation=rotation, clock=clock) as trail:
        for n, when in enumerate(times):
            clock.now = when
            trail.append("wager", n, {"amount": 5})
    return series_files(tmp_path, "T1")


def headers(files: list[Path]) -> list[str]:
    return [json.loads(path.read_bytes().splitlines()[0])["at"] for path in files]


@pytest.mark.parametrize(
    ("period", "before", "boundary"),
    [
        ("daily", datetime(2026, 3, 1, 23, 59, 59, 999000, tzinfo=UTC), datetime(2026, 3, 2, tzinfo=UTC)),
        # Sunday 2026-03-08 ends ISO week 10; Monday 00:00 UTC starts week 11.
        ("weekly", datetime(2026, 3, 8, 23, 59, 59, 999000, tzinfo=UTC), datetime(2026, 3, 9, tzinfo=UTC)),
        ("monthly", datetime(2026, 3, 31, 23, 59, 59, 999000, tzinfo=UTC), datetime(2026, 4, 1, tzinfo=UTC)),
    ],
)
def test_each_period_rotates_at_its_boundary_and_not_before(
    tmp_path: Path, period: str, before: datetime, boundary: datetime
) -> None:
    start = {"daily": before.replace(hour=0, minute=0), "weekly": datetime(2026, 3, 2, tzinfo=UTC)}.get(
        period, datetime(2026, 3, 1, tzinfo=UTC)
    )
    files = files_after(tmp_path, Rotation(period=period), [start, start + TICK, before, boundary])
    assert len(files) == 2, "one file for the period, a second from the boundary on"
    assert headers(files)[1] == boundary.isoformat(timespec="milliseconds")
    assert json.loads(files[0].read_bytes().splitlines()[-1])["fields"]["reason"] == "rotation"
    report = verify_series(files, expect_closed=True)
    assert report.ok and report.anchored and report.records == 4 + 4


def test_weekly_ignores_day_and_month_changes_within_an_iso_week(tmp_path: Path) -> None:
    # Wednesday 2025-12-31 and Sunday 2026-01-04 are in ISO week 1 of 2026: a new year, not a new week.
    times = [datetime(2025, 12, 31, 10, tzinfo=UTC), datetime(2026, 1, 4, 23, tzinfo=UTC)]
    assert len(files_after(tmp_path, Rotation(period="weekly"), times)) == 1


def test_monthly_ignores_day_changes_and_size_only_ignores_time(tmp_path: Path) -> None:
    times = [datetime(2026, 2, 1, tzinfo=UTC), datetime(2026, 2, 28, 23, tzinfo=UTC)]
    assert len(files_after(tmp_path / "m", Rotation(period="monthly"), times)) == 1
    times = [datetime(2026, 2, 1, tzinfo=UTC), datetime(2027, 2, 1, tzinfo=UTC)]
    assert len(files_after(tmp_path / "s", Rotation(period=None), times)) == 1


def test_period_boundaries_are_utc_whatever_the_clock_zone(tmp_path: Path) -> None:
    east = timezone(timedelta(hours=10))
    # 09:00 and 11:00 local on 2 March at UTC+10 are 23:00 on 1 March and 01:00 on 2 March UTC.
    times = [datetime(2026, 3, 2, 9, tzinfo=east), datetime(2026, 3, 2, 11, tzinfo=east)]
    assert len(files_after(tmp_path, Rotation(period="daily"), times)) == 2


def test_size_still_rotates_within_a_period(tmp_path: Path) -> None:
    start = datetime(2026, 3, 2, tzinfo=UTC)
    times = [start + n * TICK for n in range(80)]
    files = files_after(tmp_path, Rotation(max_bytes=4096, period="monthly"), times)
    assert len(files) > 1 and verify_series(files).ok


def test_from_config_accepts_every_configured_rotation() -> None:
    for name in ROTATIONS:
        rotation = Rotation.from_config(AuditConfig(rotation=name, online_days=45, retention_years=7))
        assert rotation.period == name
        assert rotation.retention == Retention(online_days=45, keep_days=years_in_days(7))
    assert years_in_days(5) == RECORD_DAYS
    with pytest.raises(AuditError, match="hourly"):
        Rotation(period="hourly")


def daily_series(tmp_path: Path, days: int, rotation: Rotation | None = None) -> Clock:
    """``days`` days of one record a day from 2026-01-01, then shut down."""
    clock = Clock(datetime(2026, 1, 1, 12, tzinfo=UTC))
    with AuditTrail(tmp_path, "T1", rotation=rotation or Rotation(), clock=clock) as trail:
        for _ in range(days):
            trail.append("wager", 1, {"amount": 5})
            clock.now += timedelta(days=1)
    return clock


def test_files_past_online_days_move_to_archive_and_the_chain_still_verifies(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    policy = Rotation.from_config(AuditConfig(rotation="daily", online_days=30, retention_years=5))
    clock = daily_series(tmp_path, 40)
    assert len(series_files(tmp_path, "T1")) == 40 and not archived_files(tmp_path, "T1")
    with caplog.at_level(logging.INFO, logger="croupier.audit"):
        trail = AuditTrail(tmp_path, "T1", rotation=policy, clock=clock)
    archived, online = archived_files(tmp_path, "T1"), series_files(tmp_path, "T1")
    # Now is 2026-02-10 12:00; files 1..10 closed at 12:00 on 2 to 11 January, 30 days or more ago.
    assert [p.name for p in archived] == [f"T1-{n:06d}.jsonl.gz" for n in range(1, 11)]
    assert all(clock.now - closed_at(p) >= timedelta(days=30) for p in archived)
    assert all(clock.now - closed_at(p) < timedelta(days=30) for p in online[:-1])
    assert "archived T1-000001.jsonl.gz" in caplog.text
    trail.append("wager", 2, {"amount": 5})
    trail.close()
    report = verify_series(archived + series_files(tmp_path, "T1"), expect_closed=True)
    assert report.ok and report.anchored and report.last_seq == report.records
    assert not verify_series(series_files(tmp_path, "T1")).anchored


def test_the_cli_verifies_archive_and_online_files_together(tmp_path: Path) -> None:
    policy = Rotation(retention=Retention())
    clock = daily_series(tmp_path, 35)
    AuditTrail(tmp_path, "T1", rotation=policy, clock=clock).close()
    files = archived_files(tmp_path, "T1") + series_files(tmp_path, "T1")
    assert (tmp_path / ARCHIVE).is_dir() and len(archived_files(tmp_path, "T1")) >= 1
    assert (
        _verify(argparse.Namespace(files=files, expect_closed=True, key=None, state=None, manifest=None)) == 0
    )
    # Leaving out the file where archive meets on-line storage is named: the chain is one across both.
    seam = len(archived_files(tmp_path, "T1"))
    gap = files[:seam] + files[seam + 1 :]
    assert (
        _verify(argparse.Namespace(files=gap, expect_closed=True, key=None, state=None, manifest=None)) == 1
    )


def test_young_and_newest_files_are_never_moved_and_young_ones_never_deleted(tmp_path: Path) -> None:
    retention = Retention(online_days=30, keep_days=RECORD_DAYS)
    daily_series(tmp_path, 3)  # files 1, 2, 3 closed at 12:00 on 2, 3 and 4 January
    first, second, newest = series_files(tmp_path, "T1")
    # A minute short of 30 days after file 1 closed: nothing leaves the on-line directory.
    assert retention.archive(tmp_path, "T1", datetime(2026, 2, 1, 11, 59, tzinfo=UTC)) == []
    assert series_files(tmp_path, "T1") == [first, second, newest]
    # At 30 days file 1 goes, file 2 (29 days) stays.
    moved = retention.archive(tmp_path, "T1", datetime(2026, 2, 1, 12, tzinfo=UTC))
    assert moved == [tmp_path / ARCHIVE / first.name] and not first.exists() and second.exists()
    # The newest file is never moved, however old: the next writer continues the chain from it.
    moved = retention.archive(tmp_path, "T1", datetime(2040, 1, 1, tzinfo=UTC))
    assert moved == [tmp_path / ARCHIVE / second.name] and series_files(tmp_path, "T1") == [newest]
    # Archived files younger than keep_days are refused deletion, by the close time in the chain.
    for path in archived_files(tmp_path, "T1"):
        with pytest.raises(AuditError, match=r"465a\.6"):
            retention.delete(path, closed_at(path) + timedelta(days=RECORD_DAYS - 1))
        assert path.exists()
    assert retention.due_for_deletion(archived_files(tmp_path, "T1"), datetime(2030, 1, 1, tzinfo=UTC)) == []


def test_a_file_whose_close_date_was_edited_gets_no_age(tmp_path: Path) -> None:
    daily_series(tmp_path, 2)
    first = series_files(tmp_path, "T1")[0]
    lines = first.read_bytes().splitlines(keepends=True)
    lines[-1] = lines[-1].replace(b'"at":"2026-01-02', b'"at":"2019-01-02')
    first.write_bytes(b"".join(lines))
    assert closed_at(first) is None
    retention = Retention()
    assert retention.archive(tmp_path, "T1", datetime(2026, 1, 20, tzinfo=UTC)) == []
    with pytest.raises(AuditError):
        retention.delete(first, datetime(2026, 1, 20, tzinfo=UTC))
    assert first.exists()


def test_a_fully_archived_series_continues_its_chain(tmp_path: Path) -> None:
    clock = daily_series(tmp_path, 3)
    (tmp_path / ARCHIVE).mkdir()
    for path in series_files(tmp_path, "T1"):
        path.rename(tmp_path / ARCHIVE / path.name)
    with AuditTrail(tmp_path, "T1", rotation=Rotation(retention=Retention()), clock=clock) as trail:
        record = trail.append("wager", 9, {"amount": 5})
    online = series_files(tmp_path, "T1")
    assert online[0].name == "T1-000004.jsonl" and record.seq > 3
    assert verify_series(archived_files(tmp_path, "T1") + online, expect_closed=True).ok


def test_461a10s_a_series_ending_on_a_rotations_close_is_not_a_clean_stop(tmp_path: Path) -> None:
    """461a.10(s), decision 0027: ``previous_clean`` is true only after a shutdown's close. A
    rotation's close is followed at once by the next file's header, so a series that ends on one was
    cut by a crash between the two, and the next run must say so, not report a clean stop."""
    audit, crashed = tmp_path / "audit", tmp_path / "crashed"
    clock = daily_series(audit, 2)
    first = series_files(audit, "T1")[0]
    assert json.loads(first.read_bytes().splitlines()[-1])["fields"]["reason"] == "rotation"
    crashed.mkdir()  # the disk as the power loss left it: file 1 closed, file 2 not yet begun
    (crashed / first.name).write_bytes(first.read_bytes())
    with AuditTrail(audit, "T1", clock=clock) as trail:
        assert trail.previous_clean is True
    with AuditTrail(crashed, "T1", clock=clock) as trail:
        assert trail.previous_clean is False


def test_461a10s_a_newest_file_cut_off_before_its_header_is_removed_and_the_series_goes_on(
    tmp_path: Path,
) -> None:
    """461a.10(s): the power goes between a rotation creating the next file and writing its header:
    the newest file is empty. It holds no record, so the next start removes it and goes on from the
    file before (not refusing to start for ever, as "an empty file" is no valid trail file); the
    series verifies whole afterwards. Found when export's completeness was reviewed."""
    clock = daily_series(tmp_path, 2)
    files = series_files(tmp_path, "T1")
    files[-1].unlink()  # as the crash left it: file 1 closed by its rotation, file 2 created empty
    files[-1].write_bytes(b"")
    with AuditTrail(tmp_path, "T1", clock=clock) as trail:
        assert trail.previous_clean is False
        record = trail.append("wager", 9, {"amount": 5})
    after = series_files(tmp_path, "T1")
    assert [path.name for path in after] == ["T1-000001.jsonl", "T1-000002.jsonl"]
    assert record.seq == json.loads(files[0].read_bytes().splitlines()[-1])["seq"] + 2  # header, then it
    assert verify_series(after, expect_closed=True).ok

    altered, empty = tmp_path / "altered", tmp_path / "altered" / "T1-000002.jsonl"
    altered.mkdir()  # a series that fails its check keeps its empty newest file, as found
    (altered / after[0].name).write_bytes(after[0].read_bytes().replace(b'"seq":2}', b'"seq":9}', 1))
    empty.write_bytes(b"")
    with pytest.raises(AuditError):
        AuditTrail(altered, "T1", clock=clock).__enter__()
    assert empty.exists()


def test_the_tables_of_a_directory_are_read_from_their_files_not_a_compressions_temporary(
    tmp_path: Path,
) -> None:
    """``croupier audit head DIR`` finds the tables from the series' names; a compression running
    beside them writes a hidden temporary file (``.T1-000001.jsonl.gz.tmp``) that names no table
    (before, it was taken for a table '.T1' and the command failed)."""
    daily_series(tmp_path, 2)
    (tmp_path / ".T1-000001.jsonl.gz.tmp").write_bytes(b"")
    assert tables_in(tmp_path) == ["T1"]
