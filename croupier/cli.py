"""The ``croupier`` command line."""

from __future__ import annotations

import argparse
import os
import sys

from croupier import logs
from croupier.errors import ConfigError, StartupError

#: The log level of a command run without ``--log-level``: info, but warning for ``sim``, whose live
#: view redraws the screen and would be torn by every round's info lines (a fault's warning still
#: shows).
DEFAULT_LOG_LEVEL = {"sim": "warning"}


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="croupier",
        description="Device control for live casino table games.",
    )
    parser.add_argument(
        "--log-level",
        default=None,
        choices=["debug", "info", "warning", "error"],
        help="default: info (for `run`, the table configuration's [service] log_level); warning for "
        "`sim`, whose live view the game's info lines would fight",
    )
    parser.add_argument(
        "--log-json", action="store_true", default=None, help="JSON log lines even on a terminal"
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    from croupier.commands import audit, devices, firmware, replay, run, sim

    run.add_parser(sub)
    firmware.add_parser(sub)
    audit.add_parser(sub)
    replay.add_parser(sub)
    sim.add_parser(sub)
    devices.add_parser(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
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
