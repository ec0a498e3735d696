"""What the benchmarks share: the raw pty echo that is this machine's floor for one round trip, and
simulated audit trails to measure the trail's tools on.

A peer process answers every write on a raw pty with a fixed number of bytes, and ``RawEcho`` times
a write and the read of that answer: the cost of the link alone, with no protocol code on either
side. ``link_rtt.py`` sets the driver stack against it; ``sim_throughput.py`` turns it into the
rate a round could reach if its device exchanges cost nothing but the link.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from drivers.protocol.core import DeviceStatus, GetStatus  # noqa: E402
from drivers.protocol.frame import OVERHEAD, Frame, Kind  # noqa: E402

ECHO_PEER = """
import os, sys, tty
reply_len = int(sys.argv[1])
master, slave = os.openpty()
tty.setraw(slave)
print(os.ttyname(slave), flush=True)
reply = bytes(reply_len)
while True:
    if not os.read(master, 4096):
        break
    os.write(master, reply)
"""

#: A status request and the length of its answer: the smallest exchange of the protocol.
STATUS_REQUEST = Frame(1, Kind.COMMAND, False, 0, GetStatus.MSG_ID).encode()
STATUS_REPLY_LEN = OVERHEAD + 1 + len(DeviceStatus(0, 0, 0, 0).to_payload())


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def start_peer(args: list[str]) -> tuple[subprocess.Popen[str], str]:
    """Start a peer process and read the port it prints (the last word of its first line)."""
    peer = subprocess.Popen([sys.executable, *args], stdout=subprocess.PIPE, text=True, cwd=ROOT)
    assert peer.stdout is not None
    return peer, peer.stdout.readline().split()[-1]


def stop_peer(peer: subprocess.Popen[str]) -> None:
    peer.terminate()
    peer.wait(timeout=10)
    if peer.stdout is not None:
        peer.stdout.close()


class RawEcho:
    """The host end of the floor: write the request, read as many bytes as the stack's reply."""

    def __init__(self, path: str, request: bytes, reply_len: int) -> None:
        self.fd = os.open(path, os.O_RDWR | os.O_NOCTTY)
        self.request, self.reply_len = request, reply_len

    def round_trip(self) -> float:
        start = time.perf_counter()
        os.write(self.fd, self.request)
        got = 0
        while got < self.reply_len:
            got += len(os.read(self.fd, 4096))
        return time.perf_counter() - start

    def close(self) -> None:
        os.close(self.fd)


def raw_pty_rtt(count: int = 2000, warmup: int = 200) -> list[float]:
    """``count`` round trips of a status-sized exchange over a raw pty to an echo peer process."""
    peer, path = start_peer(["-c", ECHO_PEER, str(STATUS_REPLY_LEN)])
    raw = RawEcho(path, STATUS_REQUEST, STATUS_REPLY_LEN)
    try:
        for _ in range(warmup):
            raw.round_trip()
        return [raw.round_trip() for _ in range(count)]
    finally:
        raw.close()
        stop_peer(peer)


def median_us(samples: list[float]) -> float:
    return statistics.median(samples) * 1e6


def simulated_trail(directory: Path, game: str, rounds: int, seats: int | None = None) -> list[Path]:
    """The trail's files (``croupier sim --audit``), played into ``directory`` unless it holds a
    trail already (a second run reuses it, skipping the minutes of play)."""
    files = sorted(directory.glob("*.jsonl*"))
    if not files:
        started = time.monotonic()
        more = ["--seats", str(seats)] if seats is not None else []
        subprocess.run(
            [sys.executable, "-m", "croupier", "sim", "--game", game, "--rounds", str(rounds), "--seed", "1",
             *more, "--audit", str(directory), "--json"],
            cwd=ROOT, check=True, stdout=subprocess.DEVNULL,
        )  # fmt: skip
        print(f"played {rounds} rounds of {game} in {time.monotonic() - started:.0f} s into {directory}")
        files = sorted(directory.glob("*.jsonl*"))
    return files


def best(repeat: int, work: Callable[[], object]) -> float:
    """The shortest of ``repeat`` timings of ``work``: the least disturbed by the rest of the machine."""
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        work()
        times.append(time.perf_counter() - started)
    return min(times)
