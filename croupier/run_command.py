"""``croupier run``: with no hardware configured, simulated devices served over their real
transports (a pseudo-terminal and the simulated USB bus) and driven through the full driver stack,
with a readable log of the links.

The table service (config, games, API) grows on this entry point; today it proves the wire.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time
from collections.abc import Callable

import structlog

from drivers.connection import DeviceConnection
from drivers.protocol.core import DeviceClass, Echo, IncrementTestCounter
from drivers.transport.base import Transport
from drivers.transport.serial import SerialTransport
from drivers.transport.usb import UsbTransport
from firmware_sim.device import SimulatedDevice
from firmware_sim.personality import DiagnosticPersonality
from firmware_sim.ports import Port, serve
from firmware_sim.ports.usb import SimulatedUsbBus, UsbPort

log = structlog.get_logger("croupier.run")


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "run",
        help="run the table service (no config: simulated devices)",
        description="Run the table service. With no hardware configured, simulated "
        "devices are served over real pseudo-terminals.",
    )
    p.add_argument(
        "--duration",
        type=float,
        default=0.0,
        help="stop after this many seconds (default: run until interrupted)",
    )
    p.add_argument("--interval", type=float, default=1.0, help="seconds between link checks (default 1)")
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    return asyncio.run(_run(args.duration, args.interval))


async def _run(duration: float, interval: float) -> int:
    # No kernel USB is needed: the simulated bus is a pyusb backend inside this process.
    bus = SimulatedUsbBus()
    ports: list[Port] = [
        serve("pty", SimulatedDevice(DiagnosticPersonality(), name="diagnostic-pty")),
        UsbPort(
            SimulatedDevice(DiagnosticPersonality(serial_number="SIM-0002"), name="diagnostic-usb"), bus
        ).start(),
    ]
    transports: list[Callable[[], Transport]] = [
        lambda: SerialTransport(ports[0].url),
        lambda: UsbTransport(ports[1].url, backend=bus),
    ]
    connections = [
        DeviceConnection(factory, name=port.device.name, expected_class=DeviceClass.DIAGNOSTIC)
        for port, factory in zip(ports, transports, strict=True)
    ]
    try:
        for conn in connections:
            await conn.start()
        for conn in connections:
            await conn.wait_ready(5.0)
        loop = asyncio.get_running_loop()
        stop_at = loop.time() + duration if duration > 0 else None
        while stop_at is None or loop.time() < stop_at:
            for conn in connections:
                await _check(conn)
            await asyncio.sleep(interval)
    finally:
        for conn in connections:
            await conn.stop()
        for port in ports:
            port.stop()
    return 0


async def _check(conn: DeviceConnection) -> None:
    """One exchange burst: round-trip figures and an exactly-once counter step."""
    rtts = []
    try:
        for _ in range(20):
            start = time.perf_counter()
            await conn.request(Echo(b"croupier"))
            rtts.append((time.perf_counter() - start) * 1e6)
        counter = await conn.request(IncrementTestCounter(1))
    except Exception as exc:  # a link check never stops the service: the supervisor recovers
        log.warning("link check failed", device=conn.name, error=str(exc), state=conn.state.value)
        return
    c = conn.link.counters
    log.info(
        "link ok",
        device=conn.name,
        rtt_median_us=round(statistics.median(rtts)),
        rtt_max_us=round(max(rtts)),
        counter=getattr(counter, "value", None),
        retransmissions=c.retransmissions,
        noise_bytes=c.noise_bytes,
    )
