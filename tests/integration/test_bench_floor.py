"""``bench/floor.py`` run briefly (docs/floor.md, docs/scale.md): a few table publishers through a
real Mosquitto restarted mid-run to the floor service, nothing lost or counted twice, and its last
line the ratio the benchmarks end with."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

from tests.integration.floor_broker import ROOT, need_mosquitto

pytestmark = pytest.mark.timeout(120)


def test_the_floor_bench_loses_nothing_across_a_broker_restart_and_ends_with_its_ratio():
    need_mosquitto()  # without it the bench uses amqtt, which keeps no session across its restart
    command = [sys.executable, str(ROOT / "bench" / "floor.py"), "--tables", "3", "--pace", "120"]
    command += ["--seconds", "6"]
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=100)
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    assert re.search(r"^broker: Mosquitto on 127\.0\.0\.1:\d+, stopped at ", done.stdout, re.M), done.stdout
    made = re.search(r"^messages: (\d+) made", done.stdout, re.M)
    assert made is not None, done.stdout
    assert int(made[1]) > 3 * 6, "each table made its birth's worth and a round's at least"
    assert re.search(r"^around the restart: \d+ messages", done.stdout, re.M), "some were made around it"
    assert re.search(r"^lost=0 duplicated=0 ", done.stdout, re.M), done.stdout
    assert re.fullmatch(r"ratio=\d+\.\d\d", lines[-1]), lines[-1]


def test_a_run_too_short_to_time_a_message_says_so_and_gives_no_ratio():
    """Two tables at a live table's pace for four seconds make no message past their start and away
    from the restart: the bench prints ``n=0`` and says to run longer, with no ratio (the benchmarks'
    last line compares two measures; there is none) and no traceback."""
    need_mosquitto()
    command = [sys.executable, str(ROOT / "bench" / "floor.py"), "--tables", "2", "--seconds", "4"]
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=100)
    assert done.returncode == 2, done.stdout + done.stderr
    assert "Traceback" not in done.stderr, done.stderr
    assert re.search(r"^table->floor latency: none timed +\(n=0, ", done.stdout, re.M), done.stdout
    assert re.search(r"^lost=0 duplicated=0 ", done.stdout, re.M), done.stdout
    assert not re.search(r"^ratio=", done.stdout, re.M), done.stdout
    assert "no ratio: " in done.stderr and "--seconds" in done.stderr, done.stderr
