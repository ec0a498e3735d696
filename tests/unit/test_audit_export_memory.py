"""``croupier audit export`` and the verification of an export hold a record at a time, not the
period: a month of a busy table is a gigabyte of trail, and the export must still run on the table
PC and on the Board's machine (465a.6: records kept five years and produced; decision 0025)."""

from __future__ import annotations

import tracemalloc
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path
from typing import Any, TypeVar

import pytest

from croupier.audit import AuditTrail
from croupier.audit.export import Period, export, verify_export
from croupier.audit.rotation import series_files
from tests.unit.test_audit_chain import START, Clock

T = TypeVar("T")
PERIOD = Period(START - timedelta(hours=1), START + timedelta(days=1))


def trail(directory: Path, records: int) -> list[Path]:
    """One file of ``records`` wagers, a second apart, all in ``PERIOD``."""
    clock = Clock()
    with AuditTrail(directory, "T1", clock=clock) as t:
        for number in range(records):
            t.append("wager", number // 6 + 1, {"seat": number % 6 + 1, "wager": "main", "amount": 1000})
            clock.now += timedelta(seconds=1)
    return series_files(directory, "T1")


def peak(work: Callable[..., T], *args: Any) -> tuple[int, T]:
    """The most memory ``work(*args)`` held at once, in bytes (Python's own allocations), and what
    it returned."""
    tracemalloc.start()
    try:
        done = work(*args)
        return tracemalloc.get_traced_memory()[1], done
    finally:
        tracemalloc.stop()


@pytest.mark.parametrize("fmt", ["jsonl", "csv"])
def test_465a6_export_and_its_check_hold_a_record_at_a_time_not_the_period(tmp_path: Path, fmt: str) -> None:
    """465a.6, decision 0025: four times the records of a period take about the memory of one
    time as many to export and to verify (before, both held every record of the period, twice)."""
    exporting, verifying = [], []
    for records in (300, 1200):
        files = trail(tmp_path / f"trail-{records}", records)
        held, written = peak(export, files, PERIOD, None, fmt, tmp_path / str(records))
        exporting.append(held)
        held, report = peak(verify_export, written.data, written.manifest)
        verifying.append(held)
        assert report.problem is None and report.records == records + 2  # the header and close too
    assert exporting[1] < 1.5 * exporting[0], exporting
    assert verifying[1] < 1.5 * verifying[0], verifying
