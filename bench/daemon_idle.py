"""What an idle table costs: CPU share of one core and resident memory of a process holding the
simulated Free Bet Blackjack table open, every device connected and heartbeating, no rounds played.

    python bench/daemon_idle.py [--seconds S] [--interval S]

The table runs in a child process of its own (``croupier.simulated``: the supervisors, drivers
and device rules, and the simulated devices on their threads, so the figure is an upper bound on the
daemon alone). Once it reports the table open, its /proc/<pid>/stat CPU ticks are read at the start
and end of the idle window and its VmRSS from /proc/<pid>/status is sampled throughout. Targets:
under 1 % of a core, under 100 MB. Prints both and, last, ``ratio=<cpu share / 1 %>``.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

TABLE = """
import asyncio, logging, sys
import structlog
from croupier.simulated import simulated_free_bet_blackjack
structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(logging.WARNING))
async def idle(seconds):
    async with simulated_free_bet_blackjack():
        print("open", flush=True)
        await asyncio.sleep(seconds)
asyncio.run(idle(float(sys.argv[1])))
"""

CPU_TARGET = 0.01  # of one core
RSS_TARGET_MB = 100.0


def cpu_seconds(pid: int) -> float:
    """User plus system time of ``pid`` (threads included), from /proc/<pid>/stat."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    utime, stime = int(fields[11]), int(fields[12])  # fields 14 and 15, counted after "pid (comm)"
    return (utime + stime) / os.sysconf("SC_CLK_TCK")


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError(f"no VmRSS in /proc/{pid}/status")


def measure(seconds: float, interval: float) -> tuple[float, float, float]:
    """CPU share over the idle window, and the mean and peak resident memory in MB."""
    table = subprocess.Popen(
        [sys.executable, "-c", TABLE, str(seconds + 30.0)], stdout=subprocess.PIPE, text=True, cwd=ROOT
    )
    try:
        assert table.stdout is not None
        if table.stdout.readline().strip() != "open":
            raise RuntimeError(f"the simulated table did not open (exit {table.wait(timeout=30)})")
        time.sleep(1.0)  # past the start-up work: measure the idle state
        start_cpu, start = cpu_seconds(table.pid), time.monotonic()
        samples = []
        while time.monotonic() - start < seconds:
            samples.append(rss_mb(table.pid))
            time.sleep(interval)
        share = (cpu_seconds(table.pid) - start_cpu) / (time.monotonic() - start)
    finally:
        table.terminate()
        table.wait(timeout=30)
    return share, sum(samples) / len(samples), max(samples)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=20.0, help="length of the idle window")
    parser.add_argument("--interval", type=float, default=0.5, help="seconds between memory samples")
    args = parser.parse_args()
    share, mean_rss, peak_rss = measure(args.seconds, args.interval)
    print(f"cpu: {share * 100:6.2f} % of one core   (target < {CPU_TARGET * 100:.0f} %)")
    print(f"rss: {mean_rss:6.1f} MB mean, {peak_rss:.1f} MB peak   (target < {RSS_TARGET_MB:.0f} MB)")
    print(f"ratio={share / CPU_TARGET:.2f}")


if __name__ == "__main__":
    main()
