"""Round trip of a small status request through the full driver stack to a simulated device over a
pty, against this machine's floor: the same bytes echoed over a raw pty by minimal code.

    python bench/link_rtt.py [--count N] [--block N]

Both peers run in their own process (``croupier firmware diagnostic --port pty`` for the device, a
few lines of os.read/os.write for the echo), so neither shares the host's interpreter lock. The
two are measured in alternating blocks in one run, so load changes on a shared machine affect both
alike. Prints median and p99 of each and, last, ``ratio=<stack median / raw median>``.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

import structlog

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from drivers.connection import DeviceConnection, SupervisorSettings  # noqa: E402
from drivers.protocol.core import DeviceStatus, GetStatus  # noqa: E402
from drivers.protocol.frame import OVERHEAD, Frame, Kind  # noqa: E402
from drivers.transport.serial import SerialTransport  # noqa: E402

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


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def start_peer(args: list[str]) -> tuple[subprocess.Popen[str], str]:
    """Start a peer process and read the port it prints (the last word of its first line)."""
    peer = subprocess.Popen([sys.executable, *args], stdout=subprocess.PIPE, text=True, cwd=ROOT)
    assert peer.stdout is not None
    return peer, peer.stdout.readline().split()[-1]


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


async def measure(count: int, block: int) -> tuple[list[float], list[float]]:
    request = Frame(1, Kind.COMMAND, False, 0, GetStatus.MSG_ID).encode()
    reply_len = OVERHEAD + 1 + len(DeviceStatus(0, 0, 0, 0).to_payload())
    echo_peer, echo_path = start_peer(["-c", ECHO_PEER, str(reply_len)])
    device_peer, device_path = start_peer(
        ["-m", "croupier", "--log-level", "warning", "firmware", "diagnostic", "--port", "pty"]
    )
    raw = RawEcho(echo_path, request, reply_len)
    conn = DeviceConnection(
        lambda: SerialTransport(device_path),
        name="bench",
        settings=SupervisorSettings(heartbeat_interval=3600.0),
    )
    raw_samples: list[float] = []
    stack_samples: list[float] = []
    try:
        await conn.start()
        await conn.wait_ready(10.0)
        for _ in range(200):  # warm-up both paths
            await conn.request(GetStatus())
            raw.round_trip()
        while len(stack_samples) < count:
            raw_samples += [raw.round_trip() for _ in range(block)]
            for _ in range(block):
                start = time.perf_counter()
                await conn.request(GetStatus())
                stack_samples.append(time.perf_counter() - start)
    finally:
        await conn.stop()
        os.close(raw.fd)
        for peer in (echo_peer, device_peer):
            peer.terminate()
            peer.wait(timeout=10)
    return raw_samples, stack_samples


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--count", type=int, default=5000, help="round trips of each kind")
    parser.add_argument("--block", type=int, default=250, help="round trips per alternating block")
    args = parser.parse_args()
    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(logging.WARNING))
    raw, stack = asyncio.run(measure(args.count, args.block))
    for name, samples in (("raw pty echo", raw), ("driver stack", stack)):
        print(
            f"{name:>13}: median {statistics.median(samples) * 1e6:7.1f} us   "
            f"p99 {percentile(samples, 0.99) * 1e6:7.1f} us   (n={len(samples)})"
        )
    print(f"ratio={statistics.median(stack) / statistics.median(raw):.2f}")


if __name__ == "__main__":
    main()
