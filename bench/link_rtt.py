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
import logging
import statistics
import time

import structlog
from _common import (  # the bench directory is on sys.path when a script in it runs
    ECHO_PEER,
    STATUS_REPLY_LEN,
    STATUS_REQUEST,
    RawEcho,
    percentile,
    start_peer,
    stop_peer,
)

from drivers import event_loop
from drivers.connection import DeviceConnection, SupervisorSettings
from drivers.protocol.core import GetStatus
from drivers.transport.serial import SerialTransport


async def measure(count: int, block: int) -> tuple[list[float], list[float]]:
    echo_peer, echo_path = start_peer(["-c", ECHO_PEER, str(STATUS_REPLY_LEN)])
    device_peer, device_path = start_peer(
        ["-m", "croupier", "--log-level", "warning", "firmware", "diagnostic", "--port", "pty"]
    )
    raw = RawEcho(echo_path, STATUS_REQUEST, STATUS_REPLY_LEN)
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
        raw.close()
        for peer in (echo_peer, device_peer):
            stop_peer(peer)
    return raw_samples, stack_samples


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--count", type=int, default=5000, help="round trips of each kind")
    parser.add_argument("--block", type=int, default=250, help="round trips per alternating block")
    args = parser.parse_args()
    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(logging.WARNING))
    raw, stack = event_loop.run(measure(args.count, args.block))
    for name, samples in (("raw pty echo", raw), ("driver stack", stack)):
        print(
            f"{name:>13}: median {statistics.median(samples) * 1e6:7.1f} us   "
            f"p99 {percentile(samples, 0.99) * 1e6:7.1f} us   (n={len(samples)})"
        )
    print(f"ratio={statistics.median(stack) / statistics.median(raw):.2f}")


if __name__ == "__main__":
    main()
