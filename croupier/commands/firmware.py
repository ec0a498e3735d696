"""``croupier firmware``: one simulated device on its own, for other software to talk to."""

from __future__ import annotations

import argparse
import sys
import threading
import tomllib
from collections.abc import Callable
from pathlib import Path

import structlog

from croupier.config.devices import KINDS
from croupier.errors import ConfigError
from firmware_sim.card_reader import CardReaderPersonality
from firmware_sim.device import SimulatedDevice
from firmware_sim.faults import FaultPlan
from firmware_sim.personality import DiagnosticPersonality, Personality
from firmware_sim.ports import serial_port_kinds, serve
from firmware_sim.progressive import ControllerPersonality, SignPersonality
from firmware_sim.remote import die_with_parent, serve_table
from firmware_sim.shoe import ShoePersonality
from firmware_sim.shuffler import ShufflerPersonality
from firmware_sim.world import SHOE, SHUFFLER_INPUT, TableWorld

#: The back colour of the batch a shoe or shuffler is found with: the table's first batch, the one
#: its opening shuffles and places in the shoe first (croupier/tables/shoe_table.py, ``backs``).
OPENING_BACK = "red"


def _diagnostic(world: TableWorld, back: str) -> Personality:
    return DiagnosticPersonality()


def _shoe(world: TableWorld, back: str) -> Personality:
    world.add_batch(SHOE, back, decks=6)  # a batch placed in the shoe, still to be burned
    return ShoePersonality(world=world)


def _shuffler(world: TableWorld, back: str) -> Personality:
    world.add_batch(SHUFFLER_INPUT, back, decks=6)  # a batch waiting to be shuffled
    return ShufflerPersonality(world=world)


def _card_reader(world: TableWorld, back: str) -> Personality:
    return CardReaderPersonality(world=world)


def _progressive(world: TableWorld, back: str) -> Personality:
    return ControllerPersonality()  # seat sensors and meters of its own: no cards


def _meter_sign(world: TableWorld, back: str) -> Personality:
    return SignPersonality()


#: Each simulated device on its own table world, stocked as the device would be found at opening
#: (a shoe or shuffler with a batch of the given back colour).
PERSONALITIES: dict[str, Callable[[TableWorld, str], Personality]] = {
    "diagnostic": _diagnostic,
    "shoe": _shoe,
    "shuffler": _shuffler,
    "card-reader": _card_reader,
    "progressive": _progressive,
    "meter-sign": _meter_sign,
}
#: The devices found with a batch, whose back colour ``--back-colour`` sets.
WITH_A_BATCH = ("shoe", "shuffler")


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "firmware",
        help="run one simulated device and print where to connect",
        description="Run one simulated device until interrupted.",
    )
    p.add_argument("device", nargs="?", choices=sorted(PERSONALITIES), help="which device to simulate")
    p.add_argument(
        "--port",
        choices=serial_port_kinds(),
        default="pty",
        help="how other software reaches it (default: pty)",
    )
    p.add_argument(
        "--address", type=lambda v: int(v, 0), default=1, help="device address on the bus (default 1)"
    )
    p.add_argument(
        "--back-colour",
        metavar="COLOUR",
        help=f"(shoe, shuffler) the back colour of the 6-deck batch the device is found with "
        f"(default {OPENING_BACK}: the batch a table opens with)",
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
    # ``croupier run`` and ``croupier sim`` start the devices of a simulated table this way
    # (firmware_sim.remote): not for a person, so not in the help.
    p.add_argument("--serve-table", nargs=3, type=int, metavar=("WORLD_FD", "CONTROL_FD", "TABLE_PID"),
                   help=argparse.SUPPRESS)  # fmt: skip
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


def devices_block(kind: str, url: str, address: int, firmware_hash: bytes) -> str:
    """The ``[devices.KIND]`` table a table configuration needs for the device at ``url``: its kind,
    where it is, its bus address and its firmware's hash as the allow-list (605a.4(c))."""
    return (
        f"[devices.{kind}]\n"
        f'kind = "{kind}"\n'
        f'url = "{url}"\n'
        f"address = {address}\n"
        f'firmware_allow_list = ["{firmware_hash.hex()}"]\n'
    )


def run(args: argparse.Namespace) -> int:
    if args.serve_table is not None:  # a simulated table's devices, for the table that started us
        world_fd, control_fd, table_pid = args.serve_table
        die_with_parent(table_pid)
        serve_table(world_fd, control_fd, args.port)
        return 0
    if args.device is None:
        raise ConfigError("croupier firmware: name the device to simulate")
    faults = load_fault_plan(args.faults) if args.faults else None
    if args.back_colour is not None and args.device not in WITH_A_BATCH:
        raise ConfigError(
            f"--back-colour: the {args.device} holds no batch (it is for {', '.join(WITH_A_BATCH)})"
        )
    world = TableWorld()
    personality = PERSONALITIES[args.device](world, args.back_colour or OPENING_BACK)
    device = SimulatedDevice(personality, address=args.address, seed=args.seed, faults=faults)
    port = serve(args.port, device)
    print(f"{device.name}: connect to {port.url}", flush=True)
    print(f"firmware {personality.firmware_version}, SHA-256 {personality.firmware_hash.hex()}")
    if args.device in KINDS:
        print("for a table configuration (docs/configuration.md):\n")
        print(devices_block(args.device, port.url, args.address, personality.firmware_hash), flush=True)
    else:
        print(
            f"(a {args.device} device is for other software: no table configuration names one)\n", flush=True
        )
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
