"""Every ```python block of docs/**/*.md and README.md is run, as a reader would run it.

How a block is run:

- A block is run in a fresh interpreter, in an empty directory, with this repository importable. A
  block with top-level ``await`` runs as in ``python -m asyncio`` (the asyncio REPL the docs' device
  walk-throughs are written for).
- ``<!-- doc-test: NAME -->`` on the line before a block names a setup in ``SETUPS`` below: what the
  block talks to or reads (a simulated device served by ``croupier firmware``, a stack file, a
  directory to write to). A setup may pass the block arguments (``sys.argv[1:]``) and put its own
  paths for those the block names on a table PC (a ``/dev/serial/by-id/...`` port, a ``/var/log``
  directory).
- A block that cannot run on its own (a fragment of a module, a walk-through over objects it does not
  build) is listed in ``NOT_RUN`` with the reason; its import lines are still run, so the names it
  shows exist. Any block not listed is run: one that does not run as written fails the test, and
  so does a listing that matches no block, or more than one.
"""

from __future__ import annotations

import ast
import contextlib
import os
import re
import shlex
import subprocess
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from tests.integration.test_firmware_console import Console

ROOT = Path(__file__).resolve().parents[2]
MARKER = re.compile(r"<!-- doc-test: (\S+) -->")

#: Blocks not run, by file and a piece of text found in that block only: why each is not run.
NOT_RUN: dict[tuple[str, str], str] = {
    ("docs/adding-a-game.md", "GAME = Game("): "an excerpt of games/over_under/__init__.py: its "
    "names are that module's (the module itself is imported by every test of the game)",
    ("docs/adding-a-game.md", "class KeyedOverUnder"): "an outline of croupier/tables/over_under.py, "
    "with bodies left out",
    ("docs/adding-a-game.md", "dealer=Crazy4ScreenDealer"): "one line of croupier/tables/"
    "crazy_4_poker.py, with its other arguments left out (...)",
    ("docs/adding-a-game.md", "SIMULATION = Simulation("): "an excerpt of simulator/games/over_under.py: "
    "its names are that module's",
    ("docs/devices.md", "await shuffler.open_table()"): "a shuffler's day in outline: the table "
    "service's event pump and the dealer loading each batch happen between its lines (the whole "
    "is played by tests/integration/test_shuffler.py)",
    ("docs/devices.md", "await reader.record_inspection("): "a card reader's day in outline: the "
    "event pump and the dealer sliding the hole card in happen between its lines "
    "(tests/integration/test_card_reader.py)",
    ("docs/devices.md", "progressive = Progressive("): "a progressive round in outline: the seat "
    "sensors, the jackpot hit and the attendant's key happen between its lines "
    "(tests/integration/test_progressive.py)",
}


@dataclass(frozen=True)
class Snippet:
    """One ```python block: where it is, its code, and the setup its marker names (if any)."""

    path: str  # relative to the repository
    line: int  # of the opening fence
    code: str
    setup: str | None

    def __str__(self) -> str:
        return f"{self.path}:{self.line}"


def snippets() -> list[Snippet]:
    found = []
    for path in [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]:
        lines = path.read_text(encoding="utf-8").splitlines()
        for number, line in enumerate(lines):
            if line.strip() != "```python":
                continue
            end = next(i for i in range(number + 1, len(lines)) if lines[i].strip() == "```")
            before = next((lines[i] for i in range(number - 1, -1, -1) if lines[i].strip()), "")
            marker = MARKER.fullmatch(before.strip())
            code = "\n".join(lines[number + 1 : end]) + "\n"
            found.append(Snippet(str(path.relative_to(ROOT)), number + 1, code, marker and marker[1]))
    return found


SNIPPETS = snippets()


def not_run(snippet: Snippet) -> str | None:
    """Why ``snippet`` is not run, if it is listed in NOT_RUN."""
    reasons = [why for (path, text), why in NOT_RUN.items() if path == snippet.path and text in snippet.code]
    return reasons[0] if reasons else None


@dataclass
class Setup:
    """What a setup gives the block: arguments, its own paths for those the block names, and code
    run before and after it in the same interpreter (the objects the block says it is given)."""

    argv: list[str] = field(default_factory=list)
    paths: dict[str, str] = field(default_factory=dict)
    before: str = ""
    after: str = ""


#: Runs a block (compiled to allow top-level await, as ``python -m asyncio`` does) in __main__.
RUNNER = """
import ast, asyncio, inspect, sys
path = sys.argv[1]
sys.argv = sys.argv[1:]
code = compile(open(path).read(), path, "exec", flags=ast.PyCF_ALLOW_TOP_LEVEL_AWAIT)
result = eval(code, {"__name__": "__main__", "__file__": path})
if inspect.iscoroutine(result):
    asyncio.run(result)
"""


def run_python(code: str, cwd: Path, argv: list[str]) -> subprocess.CompletedProcess[str]:
    script = cwd / "snippet.py"
    script.write_text(code, encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PYTHONDONTWRITEBYTECODE": "1"}
    return subprocess.run(
        [sys.executable, "-c", RUNNER, str(script), *argv],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )


# -- setups ------------------------------------------------------------------------------------------
def shell_command(doc: str, starts: str) -> list[str]:
    """The one ```sh line of ``doc`` starting with ``starts``: the setup runs what the doc says."""
    text = (ROOT / doc).read_text(encoding="utf-8")
    blocks = re.findall(r"^```sh\n(.*?)^```", text, flags=re.MULTILINE | re.DOTALL)
    lines = [line for block in blocks for line in block.splitlines() if line.startswith(starts)]
    assert len(lines) == 1, f"{doc}: expected one ```sh line starting {starts!r}, found {lines}"
    return shlex.split(lines[0])


@contextlib.contextmanager
def croupier_firmware_shoe(tmp_path: Path) -> Iterator[Setup]:
    """docs/connecting.md's simulated shoe, started with the command the doc gives; the block is
    run with the URL it printed."""
    command = shell_command("docs/connecting.md", "croupier firmware shoe")
    assert command[:2] == ["croupier", "firmware"], command
    shoe = Console(*command[2:])
    try:
        yield Setup(argv=[shoe.url])
    finally:
        assert shoe.close() == 0


@contextlib.contextmanager
def trace_directory(tmp_path: Path) -> Iterator[Setup]:
    """docs/wire-trace.md's trace, written under the test's directory rather than /var/log."""
    yield Setup(paths={"/var/log/croupier/trace": str(tmp_path / "trace")})


@contextlib.contextmanager
def blackjack_stack(tmp_path: Path) -> Iterator[Setup]:
    """docs/devices.md's stack file: a few cards, the cover card, more cards."""
    (tmp_path / "blackjack.stack").write_text("# first out first\nAs Kd 9h\nCOVER\n2c 3c\n")
    yield Setup()


#: A table's equipment, simulated over real pseudo-terminals as ``croupier sim`` serves it: the
#: started connections, the dealer's hands and the floorperson the docs/tables/ blocks are given.
EQUIPMENT = """\
import contextlib as _contextlib

from drivers.connection import SupervisorSettings as _Settings
from drivers.protocol.core import DeviceClass as _Class
from firmware_sim.card_reader import CardReaderPersonality as _Reader
from firmware_sim.device import SimulatedDevice as _Device
from firmware_sim.world import TableWorld as _World
from simulator.dealer import SimulatedDealer as _Dealer
from simulator.tables.devices import FLOORPERSON as floorperson
from simulator.tables.devices import DeviceSpec as _Spec
from simulator.tables.devices import connected_devices as _connected
from simulator.tables.devices import shoe_and_shuffler as _shoe_and_shuffler

_world = _World()
dealer = _Dealer(_world)
dealer.unwrap(("red", "blue"), 6)
_reader = _Spec("card-reader", _Device(_Reader(world=_world)), _Class.CARD_READER)
_equipment = _contextlib.AsyncExitStack()
_connected_now = _connected(_world, [*_shoe_and_shuffler(_world), _reader], settings=_Settings())
_connections = (await _equipment.enter_async_context(_connected_now)).connections
shoe_conn, shuffler_conn, reader_conn = (_connections[n] for n in ("shoe", "shuffler", "card-reader"))
"""


@contextlib.contextmanager
def simulated_equipment(tmp_path: Path) -> Iterator[Setup]:
    """A shoe, a shuffler and a card reader connected, and the dealer's hands on their world; the
    connections stopped afterwards, which checks that no card was created or lost."""
    yield Setup(before=EQUIPMENT, after="await _equipment.aclose()\n")


SETUPS: dict[str, Callable[[Path], contextlib.AbstractContextManager[Setup]]] = {
    "croupier-firmware-shoe": croupier_firmware_shoe,
    "trace-directory": trace_directory,
    "blackjack-stack": blackjack_stack,
    "simulated-equipment": simulated_equipment,
}


# -- the tests ---------------------------------------------------------------------------------------
RUN = [s for s in SNIPPETS if not_run(s) is None]


@pytest.mark.parametrize("snippet", RUN, ids=str)
def test_the_block_runs(snippet: Snippet, tmp_path: Path) -> None:
    setup = SETUPS[snippet.setup](tmp_path) if snippet.setup else contextlib.nullcontext(Setup())
    with setup as given:
        code = snippet.code
        for path, ours in given.paths.items():
            assert path in code, f"{snippet}: the setup replaces {path}, which the block does not name"
            code = code.replace(path, ours)
        done = run_python(given.before + code + given.after, tmp_path, given.argv)
    assert done.returncode == 0, f"{snippet} failed:\n{done.stdout}{done.stderr}"


def test_every_block_is_run_or_listed_with_its_reason() -> None:
    for (path, text), why in NOT_RUN.items():
        matching = [s for s in SNIPPETS if s.path == path and text in s.code]
        assert len(matching) == 1, f"NOT_RUN[{path!r}, {text!r}] ({why}) matches {len(matching)} blocks"
    unknown = {s.setup for s in SNIPPETS} - {None, *SETUPS}
    assert not unknown, f"doc-test markers name no setup: {unknown}"
    for snippet in SNIPPETS:
        if snippet.setup is not None:
            assert not_run(snippet) is None, f"{snippet} has a setup and is listed as not run"


def test_the_imports_of_the_blocks_not_run_exist(tmp_path: Path) -> None:
    imports = []
    for snippet in SNIPPETS:
        if not_run(snippet) is not None:
            flags = ast.PyCF_ONLY_AST | ast.PyCF_ALLOW_TOP_LEVEL_AWAIT  # it compiles, too
            tree = compile(snippet.code, str(snippet), "exec", flags=flags)
            nodes = [node for node in tree.body if isinstance(node, ast.Import | ast.ImportFrom)]
            imports += [ast.unparse(node) for node in nodes]
    done = run_python("\n".join(imports) + "\n", tmp_path, [])
    assert done.returncode == 0, done.stderr
