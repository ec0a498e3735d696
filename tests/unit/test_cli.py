"""The command line as a person types it (croupier/cli.py): the log options before or after the
command, ``--version``, and the games ``croupier sim --game`` takes, listed in its help."""

from __future__ import annotations

import importlib.metadata

import pytest

from croupier.cli import build_parser, main
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
