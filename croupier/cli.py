"""The ``croupier`` command line."""

from __future__ import annotations

import argparse
import importlib
import importlib.metadata
import os
import sys
from collections.abc import Iterable, Sequence

from croupier import logs
from croupier.errors import ConfigError, StartupError

#: The log level of a command run without ``--log-level``: info, but warning for ``sim``, whose live
#: view redraws the screen and would be torn by every round's info lines (a fault's warning still
#: shows).
DEFAULT_LOG_LEVEL = {"sim": "warning"}

#: Each command's module, in the order ``croupier --help`` lists them. Only the module of the
#: command run is imported (``named_command``): ``croupier firmware``, started for each simulated
#: table's devices and each device served alone, needs none of the table service's modules, and
#: a process that imports them all takes some 70 MB and a second and a half to start.
COMMANDS = {
    "run": "croupier.commands.run",
    "firmware": "croupier.commands.firmware",
    "audit": "croupier.commands.audit",
    "replay": "croupier.commands.replay",
    "sim": "croupier.commands.sim",
    "devices": "croupier.commands.devices",
    "floor": "croupier.commands.floor",
}


def version() -> str:
    """The installed package's version; a source tree run without installing has none."""
    try:
        return importlib.metadata.version("croupier")
    except importlib.metadata.PackageNotFoundError:
        return "unknown (not installed)"


def add_log_options(parser: argparse.ArgumentParser, default: object) -> None:
    """``--log-level`` and ``--log-json``, with ``default`` when not given."""
    parser.add_argument(
        "--log-level",
        default=default,
        choices=["debug", "info", "warning", "error"],
        help="default: info (for `run`, the table configuration's [service] log_level); warning for "
        "`sim`, whose live view the game's info lines would fight",
    )
    parser.add_argument(
        "--log-json", action="store_true", default=default, help="JSON log lines even on a terminal"
    )


def add_log_options_to_commands(parser: argparse.ArgumentParser) -> None:
    """The log options after every command and action too (``croupier run --log-json``): given
    there, they stand; not given, they leave the value given before the command (SUPPRESS)."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for command in dict.fromkeys(action.choices.values()):  # an alias repeats its parser
                add_log_options(command, argparse.SUPPRESS)
                add_log_options_to_commands(command)


def build_parser(commands: Iterable[str] = COMMANDS) -> argparse.ArgumentParser:
    """The command line with ``commands`` (by default every one), each command's module imported."""
    parser = argparse.ArgumentParser(
        prog="croupier",
        description="Device control for live casino table games.",
    )
    parser.add_argument("--version", action="version", version=f"croupier {version()}")
    add_log_options(parser, None)
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for command in commands:
        importlib.import_module(COMMANDS[command]).add_parser(sub)
    add_log_options_to_commands(parser)
    return parser


def named_command(argv: Sequence[str]) -> str | None:
    """The command ``argv`` runs, if it names one: its first word that is neither an option nor the
    value of one of the options before the command. None where help or the version is asked for
    before any command: that answer lists every command."""
    before = argparse.ArgumentParser(add_help=False)
    add_log_options(before, None)
    valued = {option for action in before._actions if action.nargs != 0 for option in action.option_strings}
    words = iter(argv)
    for word in words:
        if word in ("-h", "--help", "--version"):
            return None
        if word in valued:
            next(words, None)
        elif not word.startswith("-"):
            return word if word in COMMANDS else None
    return None


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    command = named_command(argv)
    parser = build_parser(COMMANDS if command is None else [command])
    args = parser.parse_args(argv)
    logs.configure(args.log_level or DEFAULT_LOG_LEVEL.get(args.command, "info"), json=args.log_json)
    try:
        return int(args.handler(args) or 0)
    except ConfigError as exc:
        print(f"croupier: configuration error: {exc}", file=sys.stderr)
        return 2
    except StartupError as exc:
        print(f"croupier: cannot start: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:  # the reader (`| head`) went away: not an error of ours
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0


if __name__ == "__main__":
    sys.exit(main())
