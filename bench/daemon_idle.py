"""What an idle table costs: CPU share of one core and resident memory of the daemon holding the
simulated Free Bet Blackjack table open, every device connected and heartbeating, no rounds played.

    python bench/daemon_idle.py [--seconds S] [--interval S]

The daemon is ``croupier run`` itself on the default simulated table, with the local API served
(so it waits for the dealer's screen, as at a table between rounds), its audit trail and state in a
scratch directory. Its simulated devices run on threads inside it, so the figure is an upper bound on
the daemon alone. Once it says the table is in service, its /proc/<pid>/stat CPU ticks are read at
the start and end of the idle window and its VmRSS from /proc/<pid>/status is sampled throughout.
Targets: under 1 % of a core, under 100 MB. Prints both and, last, ``ratio=<cpu share / 1 %>``.
"""

from __future__ import annotations

import argparse
import os
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from urllib.request import urlopen

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from croupier.config import DEFAULT_TABLE_CONFIG  # noqa: E402

TOKENS = '[[operators]]\ntoken = "bench-token-0123456789abcdef012345"\nident = "S-1"\nrole = "supervisor"\n'
CPU_TARGET = 0.01  # of one core
RSS_TARGET_MB = 100.0


def daemon_config(directory: Path) -> tuple[Path, int]:
    """The default simulated table with its trail and state in ``directory`` and the API served on
    a free loopback port; returns the file and the port."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    tokens = directory / "tokens.toml"
    tokens.write_text(TOKENS)
    tokens.chmod(0o600)  # the service refuses a token file others may read
    text = DEFAULT_TABLE_CONFIG.read_text()
    text = text.replace("~/.local/state/croupier/sim", str(directory))
    served = f'api_bind = "127.0.0.1:{port}"\napi_tokens = "tokens.toml"'
    path = directory / "table.toml"
    path.write_text(text.replace('api_bind = "127.0.0.1:8443"', served))
    return path, port


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
    with tempfile.TemporaryDirectory() as scratch:
        config, port = daemon_config(Path(scratch))
        command = [sys.executable, "-m", "croupier", "--log-json", "--log-level", "warning", "run"]
        daemon = subprocess.Popen([*command, "--config", str(config)], stderr=subprocess.DEVNULL, cwd=ROOT)
        try:
            _wait_for_api(daemon, port)
            time.sleep(1.0)  # past the start-up work: measure the idle state
            start_cpu, start = cpu_seconds(daemon.pid), time.monotonic()
            samples = []
            while time.monotonic() - start < seconds:
                samples.append(rss_mb(daemon.pid))
                time.sleep(interval)
            share = (cpu_seconds(daemon.pid) - start_cpu) / (time.monotonic() - start)
        finally:
            daemon.terminate()
            daemon.wait(timeout=30)
    return share, sum(samples) / len(samples), max(samples)


def _wait_for_api(daemon: subprocess.Popen[bytes], port: int) -> None:
    """The table is in service once its API answers (the devices connected, the table open)."""
    deadline = time.monotonic() + 60
    while True:
        try:
            with urlopen(f"http://127.0.0.1:{port}/openapi.json", timeout=2):
                return
        except OSError:
            if daemon.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"the daemon did not come up (exit {daemon.poll()})") from None
            time.sleep(0.1)


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
