"""The scenario language's parser is pure (docs/scenarios.md): text in, a typed Scenario out. It
reads no file and reaches no device, so a scenario can be checked without a simulated table and
the parser can be tested on strings; reading a file is simulator.scenario.run's ``load``."""

from __future__ import annotations

import ast
from pathlib import Path

from simulator.scenario import parse as module
from simulator.scenario.parse import Scenario, parse

#: What a pure parser never imports: the event loop, the devices, their firmware and the tables.
IMPURE = ("asyncio", "drivers", "devices", "firmware_sim", "croupier", "simulator.tables", "simulator.floor")


def test_the_parser_imports_nothing_that_does_io_or_reaches_a_device():
    tree = ast.parse(Path(module.__file__).read_text())
    imported = [alias.name for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names]
    imported += [node.module or "" for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)]
    assert not [name for name in imported if name.startswith(IMPURE)]
    calls = {
        node.func.attr
        for node in ast.walk(tree)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
    }
    assert not calls & {"read_text", "read_bytes", "open"}


def test_text_parses_into_a_typed_scenario():
    scenario = parse("# A title\ngame over-under\nseats 2\nwager 1 ante=1000\ndecide 1 over_23\n", "x.txt")
    assert isinstance(scenario, Scenario) and scenario.title == "A title" and scenario.game == "over-under"
    assert scenario.rounds[0].wagers[1][0] == {"ante": 1000}
