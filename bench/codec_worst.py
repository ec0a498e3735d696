"""The frame decoder's cost per megabyte of hostile input, against random bytes in the same run.

    python bench/codec_worst.py [--megabytes N] [--read N]

Bytes reach the decoder in reads: a USB-serial adapter delivers bulk packets of at most 64 bytes,
so that is the default read size (``--read``); the figures at 4 KiB reads (the serial transport's
largest read, reached only by a pty or a TCP device server in a burst) are printed too. Each
pattern is fed to a fresh decoder in those reads and timed, best of three; the patterns, worst
first of those known:

- ``header-flood``: ``A5 5A x ~x`` with a random ``x`` >= 4 in every 4 bytes: a self-consistent
  header every 4 bytes, each announcing a different frame whose CRC fails. Not periodic, so
  every candidate costs its own CRC: the bound the decoder cannot go below.
- ``a5-5a``: ``A5 5A`` repeated: a self-consistent header at every second byte (LEN 0xA5),
  skipped a period at a time.
- ``a5-5a-5a``, ``min-header``: the period-3 and period-4 (LEN 4) repetitions.
- ``sync-byte``: ``A5`` repeated, a first sync byte that never finds its partner.

Prints ms per MB for each and its ratio to random bytes; last, ``ratio=<worst / random>`` at the
default read size (target: 10 or less).
"""

from __future__ import annotations

import argparse
import random
import time

from _common import ROOT  # noqa: F401  (puts the project on sys.path)

from drivers.protocol.frame import FrameDecoder

MB = 1 << 20


def header_flood(size: int, rng: random.Random) -> bytes:
    out = bytearray()
    while len(out) < size:
        x = rng.randrange(4, 256)
        out += bytes((0xA5, 0x5A, x, x ^ 0xFF))
    return bytes(out[:size])


def patterns(size: int) -> dict[str, bytes]:
    rng = random.Random(1)
    return {
        "random": rng.randbytes(size),
        "header-flood": header_flood(size, rng),
        "a5-5a": (b"\xa5\x5a" * size)[:size],
        "a5-5a-5a": (b"\xa5\x5a\x5a" * size)[:size],
        "min-header": (b"\xa5\x5a\x04\xfb" * size)[:size],
        "sync-byte": b"\xa5" * size,
    }


def cost_per_mb(data: bytes, read: int) -> float:
    """Seconds per MB to decode ``data`` fed in ``read``-byte reads, best of three."""
    reads = [data[i : i + read] for i in range(0, len(data), read)]
    best = float("inf")
    for _ in range(3):
        decoder = FrameDecoder()
        started = time.perf_counter()
        for chunk in reads:
            decoder.feed(chunk)
        best = min(best, time.perf_counter() - started)
    return best / (len(data) / MB)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--megabytes", type=float, default=1.0, help="size of each pattern")
    parser.add_argument("--read", type=int, default=64, help="bytes per read (default: a USB packet)")
    args = parser.parse_args()
    data = patterns(int(args.megabytes * MB))
    ratio = 0.0
    for read in dict.fromkeys((4096, args.read)):  # the default read size last: its ratio is the figure
        costs = {name: cost_per_mb(pattern, read) for name, pattern in data.items()}
        print(f"reads of {read} bytes:")
        for name, cost in costs.items():
            print(f"  {name:>13}: {cost * 1e3:9.1f} ms/MB   x{cost / costs['random']:7.1f}")
        ratio = max(cost for name, cost in costs.items() if name != "random") / costs["random"]
    print(f"ratio={ratio:.2f}")


if __name__ == "__main__":
    main()
