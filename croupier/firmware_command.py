"""``croupier firmware``: one simulated device on its own, for other software to talk to."""

from __future__ import annotations

import argparse
import threading

import structlog

from firmware_sim.device import SimulatedDevice
from firmware_sim.personality import DiagnosticPersonality
from firmware_sim.ports import serial_port_kinds, serve

PERSONALITIES = {"diagnostic": DiagnosticPersonality}


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "firmware",
        help="run one simulated device and print where to connect",
        description="Run one simulated device until interrupted.",
    )
    p.add_argument("device", choices=sorted(PERSONALITIES), help="which device to simulate")
    p.add_argument(
        "--port",
        choices=serial_port_kinds(),
        default="pty",
        help="how other software reaches it (default: pty)",
    )
    p.add_argument(
        "--address", type=lambda v: int(v, 0), default=1, help="device address on the bus (default 1)"
    )
    p.add_argument("--seed", type=int, help="seed for a reproducible run (tests only)")
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    device = SimulatedDevice(PERSONALITIES[args.device](), address=args.address, seed=args.seed)
    port = serve(args.port, device)
    print(f"{device.name}: connect to {port.url}", flush=True)
    structlog.get_logger("croupier.firmware").info(
        "simulated device up", device=device.name, url=port.url, seeded=args.seed is not None
    )
    try:
        threading.Event().wait()
    finally:
        port.stop()
    return 0
