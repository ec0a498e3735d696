"""What an idle table costs: CPU share of one core and resident memory of the daemon holding the
Free Bet Blackjack table, every device connected and heartbeating, no rounds played.

    python bench/daemon_idle.py [--seconds S] [--interval S]

The daemon is ``croupier run`` itself, with the local API served (so it waits for the dealer's
screen, as at a table between rounds), its audit trail and state in a scratch directory, measured
twice in one run:

- simulated: the default simulated table as ``croupier run`` serves it, its simulated devices in
  the child process the daemon starts (``croupier firmware --serve-table``, decision 0048): the
  figure is the daemon and that process together, each printed beside it; and the same with
  ``--simulated-devices in-process``, the devices on threads inside the daemon;
- daemon alone: the same table with its shoe, shuffler and card reader each served by a separate
  ``croupier firmware`` process over a pty, as real equipment is on a table PC (the table then
  waits for a supervisor to open it, decision 0013); the firmware processes' share is printed
  beside it.

Once the API answers, the /proc/<pid>/stat CPU ticks are read at the start and end of the idle
window and VmRSS from /proc/<pid>/status is sampled throughout. Targets: under 0.5 % of a core with
every device simulated, under 100 MB. Prints each figure and, last,
``ratio=<simulated cpu share / 0.5 %>``.
"""

from __future__ import annotations

import argparse
import os
import socket
import subprocess
import sys
import tempfile
import time
import tomllib
from pathlib import Path
from urllib.request import urlopen

from _common import ROOT, stop_peer  # the bench directory is on sys.path when a script in it runs

from croupier.config import DEFAULT_TABLE_CONFIG

TOKENS = '[[operators]]\ntoken = "bench-token-0123456789abcdef012345"\nident = "S-1"\nrole = "supervisor"\n'
CPU_TARGET = 0.005  # of one core
#: The Free Bet Blackjack table's devices, each served by ``croupier firmware`` for the daemon alone.
DEVICES = ("shoe", "shuffler", "card-reader")
RSS_TARGET_MB = 100.0


def daemon_config(directory: Path, devices: str | None = None) -> tuple[Path, int]:
    """The default simulated table with its trail and state in ``directory`` and the API served on
    a free loopback port, its ``[devices.*]`` replaced by ``devices`` where given; returns the file
    and the port."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    tokens = directory / "tokens.toml"
    tokens.write_text(TOKENS)
    tokens.chmod(0o600)  # the service refuses a token file others may read
    text = DEFAULT_TABLE_CONFIG.read_text()
    text = text.replace("~/.local/state/croupier/sim", str(directory))
    if devices is not None:  # real equipment keeps a sealed trail: the table's keys, as installed
        keys = [f"--out={directory / 'verify.key'}", f"--sealing-key={directory / 'sealing.key'}"]
        croupier = [sys.executable, "-m", "croupier", "--log-level", "warning", "audit", "keys"]
        name = tomllib.loads(text)["table"]["name"]
        subprocess.run([*croupier, "--table", name, *keys], check=True, stdout=subprocess.DEVNULL, cwd=ROOT)
        head, _, rest = text.partition("[devices.")
        sealed = f'[audit]\nsealing_key = "{directory / "sealing.key"}"\n'
        text = head + devices + "\n" + sealed + "\n[service]" + rest.partition("[service]")[2]
    served = f'api_bind = "127.0.0.1:{port}"\napi_tokens = "tokens.toml"'
    path = directory / "table.toml"
    path.write_text(text.replace('api_bind = "127.0.0.1:8443"', served))
    return path, port


def firmware(kind: str) -> tuple[subprocess.Popen[str], str]:
    """``croupier firmware KIND`` on a pty, and the ``[devices.KIND]`` block it prints for a table."""
    command = [sys.executable, "-m", "croupier", "--log-level", "warning", "firmware", kind, "--no-console"]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, text=True, cwd=ROOT)
    assert process.stdout is not None
    block: list[str] = []
    for line in process.stdout:
        if line.startswith("[devices.") or block:
            block.append(line)
            if line.startswith("firmware_allow_list"):
                return process, "".join(block)
    raise RuntimeError(f"croupier firmware {kind} printed no [devices.{kind}] block (exit {process.poll()})")


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


def children(pid: int) -> list[int]:
    """The processes ``pid`` started (a simulated table's devices' process)."""
    tasks = Path(f"/proc/{pid}/task").iterdir()
    return [int(child) for task in tasks for child in (task / "children").read_text().split()]


def measure(
    seconds: float, interval: float, devices: str | None = None, *options: str
) -> tuple[float, float, float, float]:
    """CPU share over the idle window, the mean and peak resident memory in MB, and the CPU share
    of the processes the daemon started (its simulated devices' process)."""
    with tempfile.TemporaryDirectory() as scratch:
        config, port = daemon_config(Path(scratch), devices)
        command = [sys.executable, "-m", "croupier", "--log-json", "--log-level", "warning", "run", *options]
        daemon = subprocess.Popen([*command, "--config", str(config)], stderr=subprocess.DEVNULL, cwd=ROOT)
        try:
            _wait_for_api(daemon, port)
            time.sleep(1.0)  # past the start-up work: measure the idle state
            started = children(daemon.pid)
            start_cpu, start = cpu_seconds(daemon.pid), time.monotonic()
            start_children = sum(map(cpu_seconds, started))
            samples = []
            while time.monotonic() - start < seconds:
                samples.append(rss_mb(daemon.pid))
                time.sleep(interval)
            elapsed = time.monotonic() - start
            share = (cpu_seconds(daemon.pid) - start_cpu) / elapsed
            children_share = (sum(map(cpu_seconds, started)) - start_children) / elapsed
        finally:
            daemon.terminate()
            daemon.wait(timeout=30)
    return share, sum(samples) / len(samples), max(samples), children_share


def measure_alone(seconds: float, interval: float) -> tuple[tuple[float, float, float, float], float]:
    """``measure`` with the devices in ``croupier firmware`` processes; also their CPU share."""
    served = [firmware(kind) for kind in DEVICES]
    try:
        start = sum(cpu_seconds(process.pid) for process, _ in served), time.monotonic()
        figures = measure(seconds, interval, "\n".join(block for _, block in served))
        share = (sum(cpu_seconds(process.pid) for process, _ in served) - start[0]) / (
            time.monotonic() - start[1]
        )
    finally:
        for process, _ in served:
            stop_peer(process)
    return figures, share


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
    parser.add_argument("--seconds", type=float, default=20.0, help="length of each idle window")
    parser.add_argument("--interval", type=float, default=0.5, help="seconds between memory samples")
    args = parser.parse_args()
    daemon, mean_rss, peak_rss, child = measure(args.seconds, args.interval)
    share = daemon + child
    inside, inside_mean, inside_peak, _ = measure(
        args.seconds, args.interval, None, "--simulated-devices", "in-process"
    )
    (alone, alone_mean, alone_peak, _), devices = measure_alone(args.seconds, args.interval)
    print(
        f"simulated: cpu {share * 100:5.2f} % of one core   (target < {CPU_TARGET * 100:.1f} %): "
        f"the daemon {daemon * 100:.2f} %, its devices' process {child * 100:.2f} %"
    )
    print(
        f"simulated: rss {mean_rss:6.1f} MB mean, {peak_rss:.1f} MB peak   (target < {RSS_TARGET_MB:.0f} MB)"
    )
    print(
        f"simulated, devices in process: cpu {inside * 100:5.2f} % of one core, rss {inside_mean:6.1f} MB "
        f"mean, {inside_peak:.1f} MB peak"
    )
    print(
        f"daemon alone: cpu {alone * 100:5.2f} % of one core, rss {alone_mean:6.1f} MB mean, "
        f"{alone_peak:.1f} MB peak   (its {len(DEVICES)} firmware processes: {devices * 100:.2f} %)"
    )
    print(f"ratio={share / CPU_TARGET:.2f}")


if __name__ == "__main__":
    main()
