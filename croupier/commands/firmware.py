"""``croupier firmware``: one simulated device on its own, for other software to talk to."""

from __future__ import annotations

import argparse
import sys
import threading
import tomllib
from collections.abc import Callable
from pathlib import Path

import structlog

from croupier.errors import ConfigError
from firmware_sim.card_reader import CardReaderPersonality
from firmware_sim.device import SimulatedDevice
from firmware_sim.faults import FaultPlan
from firmware_sim.personality import DiagnosticPersonality, Personality
from firmware_sim.ports import serial_port_kinds, serve
from firmware_sim.progressive import ControllerPersonality, SignPersonality
from firmware_sim.shoe import ShoePersonality
from firmware_sim.shuffler import ShufflerPersonality
from firmware_sim.world import SHOE, SHUFFLER_INPUT, TableWorld


def _diagnostic(world: TableWorld) -> Personality:
    return DiagnosticPersonality()


def _shoe(world: TableWorld) -> Personality:
    world.add_batch(SHOE, "red", decks=6)  # a batch placed in the shoe, still to be burned
    return ShoePersonality(world=world)


def _shuffler(world: TableWorld) -> Personality:
    world.add_batch(SHUFFLER_INPUT, "blue", decks=6)  # a batch waiting to be shuffled
    return ShufflerPersonality(world=world)


def _card_reader(world: TableWorld) -> Personality:
    return CardReaderPersonality(world=world)


def _progressive(world: TableWorld) -> Personality:
    return ControllerPersonality()  # seat sensors and meters of its own: no cards


def _meter_sign(world: TableWorld) -> Personality:
    return SignPersonality()


#: Each simulated device on its own table world, stocked as the device would be found at opening.
PERSONALITIES: dict[str, Callable[[TableWorld], Personality]] = {
    "diagnostic": _diagnostic,
    "shoe": _shoe,
    "shuffler": _shuffler,
    "card-reader": _card_reader,
    "progressive": _progressive,
    "meter-sign": _meter_sign,
}


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
    p.add_argument(
        "--faults", type=Path, metavar="FILE", help="TOML fault plan for the wire (see config/faults/)"
    )
    p.add_argument(
        "--console",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="read console commands (faults, unplug, jam, cards) from stdin "
        "(default: on when stdin is a terminal)",
    )
    p.set_defaults(handler=run)


def load_fault_plan(path: Path) -> FaultPlan:
    """Read a fault plan; any problem is a ConfigError naming the file and the key."""
    try:
        with path.open("rb") as f:
            data = tomllib.load(f)
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read: {exc.strerror}") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: not valid TOML: {exc}") from None
    try:
        return FaultPlan.from_mapping(data)
    except ValueError as exc:
        raise ConfigError(f"{path}: {exc}") from None


def run(args: argparse.Namespace) -> int:
    faults = load_fault_plan(args.faults) if args.faults else None
    world = TableWorld()
    device = SimulatedDevice(
        PERSONALITIES[args.device](world), address=args.address, seed=args.seed, faults=faults
    )
    port = serve(args.port, device)
    print(f"{device.name}: connect to {port.url}", flush=True)
    structlog.get_logger("croupier.firmware").info(
        "simulated device up", device=device.name, url=port.url, seeded=args.seed is not None
    )
    console = sys.stdin.isatty() if args.console is None else args.console
    try:
        if console:
            # Imported here: the console is only for a person (or a script) at the bench.
            from croupier.commands.firmware_console import FirmwareConsole

            FirmwareConsole(args.device, device, port, world).cmdloop()
        else:
            threading.Event().wait()
    finally:
        port.stop()
    return 0
