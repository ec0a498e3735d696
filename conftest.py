"""Command-line options of the whole suite. ``--hil RIG_TOML [--record DIR]`` (tests/hil.py) is
registered here, at the root, because ``pytest --hil config/rig.toml`` is parsed before any
conftest under tests/ is loaded: pytest loads the first conftests from the paths on the command
line and their parents, and until ``--hil`` is known the rig file looks like such a path."""

from __future__ import annotations

import pytest

from tests import bytecode, hil


def pytest_addoption(parser: pytest.Parser) -> None:
    hil.add_options(parser)


def pytest_configure(config: pytest.Config) -> None:
    hil.configure(config)
    if not hasattr(config, "workerinput"):  # once, in the process that starts the workers
        bytecode.compile_tree()


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int | None:
    """``-n auto`` (pyproject.toml) runs a rig in one process: a real device has one port, and two
    workers would open it at once."""
    return 0 if config.getoption("hil") else None


def pytest_report_header(config: pytest.Config) -> list[str]:
    return hil.report_header(config)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    hil.deselect(config, items)
