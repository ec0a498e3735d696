"""A device away is a warning when it goes, then at most one line per interval while it stays away,
and its failed attempts counted when it is back (drivers/outage.py) — on a fake clock."""

from __future__ import annotations

import structlog
from structlog.testing import capture_logs

from drivers.outage import OutageLog


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_an_outage_is_said_at_once_then_once_per_interval_then_counted_at_its_end():
    clock = Clock()
    outage = OutageLog(structlog.get_logger("croupier.link"), repeat=60.0, clock=clock)
    with capture_logs() as logs:
        for _ in range(100):  # a failed attempt every 5 s (the longest back-off) for 500 s
            outage.failed("shoe: no device there")
            clock.now += 5.0
        ended = outage.ended()
    assert [(entry["log_level"], entry["event"]) for entry in logs] == [
        ("warning", "link state"),
        *[("warning", "link still down")] * 8,
    ]
    assert [entry.get("failures") for entry in logs] == [None, 13, 25, 37, 49, 61, 73, 85, 97]
    assert logs[1]["down_s"] == 60.0
    assert ended == {"failures": 100, "down_s": 500.0}
    assert not outage.ongoing


def test_a_new_outage_is_said_at_once_again():
    clock = Clock()
    outage = OutageLog(structlog.get_logger("croupier.link"), repeat=60.0, clock=clock)
    with capture_logs() as logs:
        outage.failed("gone")
        clock.now += 1.0
        assert outage.ended() == {"failures": 1, "down_s": 1.0}
        outage.failed("gone again")
    assert [entry["reason"] for entry in logs] == ["gone", "gone again"]
    assert outage.ended() == {"failures": 1, "down_s": 0.0}
    assert outage.ended() == {}
