"""The command line as a person types it (croupier/cli.py): the log options before or after the
command, ``--version``, the games ``croupier sim --game`` takes, listed in its help, and only the
command run imported."""

from __future__ import annotations

import importlib.metadata
import subprocess
import sys

import pytest

from croupier.cli import COMMANDS, build_parser, main, named_command
from games import registry


@pytest.mark.parametrize(
    ("argv", "level", "json"),
    [
        (["run"], None, None),
        (["--log-level", "warning", "--log-json", "run"], "warning", True),
        (["run", "--log-level", "debug", "--log-json"], "debug", True),
        (["--log-level", "warning", "run", "--log-level", "error"], "error", None),
        (["audit", "verify", "BJ-07-000001.jsonl", "--log-json"], None, True),
        (["sim", "--game", "over-under", "--log-level", "error"], "error", None),
    ],
)
def test_the_log_options_work_before_and_after_the_command(argv, level, json):
    args = build_parser().parse_args(argv)
    assert (args.log_level, args.log_json) == (level, json)


def test_version_names_the_installed_package(capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["--version"])
    assert exit_.value.code == 0
    assert capsys.readouterr().out == f"croupier {importlib.metadata.version('croupier')}\n"


def test_sim_help_lists_the_games(capsys):
    with pytest.raises(SystemExit):
        main(["sim", "--help"])
    usage = " ".join(capsys.readouterr().out.split())  # argparse wraps the usage to the terminal
    assert f"--game {{{','.join(registry.slugs())}}}" in usage


@pytest.mark.parametrize(
    ("argv", "command"),
    [
        (["firmware", "--serve-table", "7", "9", "1"], "firmware"),
        (["--log-level", "warning", "firmware", "--serve-table", "7", "9", "1"], "firmware"),
        (["--log-level=debug", "--log-json", "audit", "verify", "x.jsonl"], "audit"),
        (["--log-level", "run"], None),  # "run" is the log level's (wrong) value: the whole parser says so
        (["--help"], None),
        (["-h", "run"], None),  # help before the command: the whole list
        (["--log-json", "--help", "sim"], None),
        (["--version"], None),
        (["sim-floor"], None),
        ([], None),
    ],
)
def test_the_command_run_is_the_first_word_not_an_option_nor_its_value(argv, command):
    assert named_command(argv) == command


def test_a_command_imports_its_own_modules_only():
    """``croupier firmware`` (the devices' process of every simulated table) starts without the
    table service, its API server or the floor's modules."""
    program = (
        "import sys\n"
        "from croupier.cli import main\n"
        "try:\n"
        "    main(['--log-level', 'warning', 'firmware', '--help'])\n"
        "except SystemExit:\n"
        "    pass\n"
        "print(' '.join(sorted(sys.modules)))\n"
    )
    shown = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, check=True)
    loaded = shown.stdout.splitlines()[-1].split()
    assert "croupier.commands.firmware" in loaded
    for heavy in ("aiohttp", "croupier.service.table_service", "croupier.commands.run", "floor.service"):
        assert heavy not in loaded, f"croupier firmware imported {heavy}"


def test_help_lists_every_command(capsys):
    with pytest.raises(SystemExit):
        main(["--help"])
    listed = [line.split()[0] for line in capsys.readouterr().out.splitlines() if line.startswith("    ")]
    assert [word for word in listed if word in COMMANDS] == list(COMMANDS)
