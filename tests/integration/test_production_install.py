"""The production environment as scripts/install-service builds it (scripts/production-venv; decision
0034): from the system Python, the lock installed with --require-hashes, Croupier as a wheel. It runs,
it is complete (`pip check`, run by the script, fails it otherwise) and it holds no test tool; and a
floor server's, from requirements/floor.lock.

Needs the package index (CI has it) and /usr/bin/python3 3.11 or newer with venv support
(`apt-get install python3-venv`); about 30 s with pip's cache warm."""

from __future__ import annotations

import subprocess
import tomllib
from pathlib import Path

import pytest

from croupier.floor_link.messages import SCHEMAS
from tests import debian

ROOT = Path(__file__).resolve().parents[2]
SYSTEM_PYTHON = Path("/usr/bin/python3")
VERSION = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
PROBE = """
import importlib.util, sys
import croupier
from croupier.floor_link.messages import Schemas
print(croupier.__file__)
tools = ("pytest", "hypothesis", "mypy", "ruff", "mutmut")
print(" ".join(name for name in tools if importlib.util.find_spec(name)))
print(" ".join(sorted(Schemas().validators)))
"""
#: Every floor message's schema, which a table reads from its own package (a linked table checks the
#: link controller's state against one) with no floor service installed.
KINDS = sorted(path.name.removesuffix(".schema.json") for path in SCHEMAS.glob("*.schema.json"))


def _built(tmp_path_factory: pytest.TempPathFactory, *options: str) -> Path:
    """scripts/production-venv run with ``options`` into a new directory, which it returns."""
    if not SYSTEM_PYTHON.exists():
        debian.missing("python3 and python3-venv", f"{SYSTEM_PYTHON} is missing")
    probe = "import sys, ensurepip; print(sys.version_info >= (3, 11))"
    found = subprocess.run([SYSTEM_PYTHON, "-c", probe], capture_output=True, text=True)
    if found.stdout.strip() != "True":
        debian.missing("python3 and python3-venv", f"{SYSTEM_PYTHON} is older than 3.11 or lacks venv")
    dest = tmp_path_factory.mktemp("production") / "venv"
    built = subprocess.run(
        [ROOT / "scripts" / "production-venv", *options, dest], capture_output=True, text=True, timeout=240
    )
    assert built.returncode == 0, built.stdout + built.stderr
    assert built.stdout.splitlines()[-1] == f"croupier {VERSION}", built.stdout
    return dest


@pytest.fixture(scope="module")
def venv(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A table PC's environment."""
    return _built(tmp_path_factory)


@pytest.mark.timeout(300)
def test_the_production_environment_runs_croupier_from_a_wheel_without_test_tools(venv: Path):
    version = subprocess.run([venv / "bin" / "croupier", "--version"], capture_output=True, text=True)
    assert version.stdout.strip() == f"croupier {VERSION}", version.stderr
    probed = subprocess.run([venv / "bin" / "python", "-c", PROBE], capture_output=True, text=True, cwd="/")
    assert probed.returncode == 0, probed.stderr
    where, tools, kinds = probed.stdout.splitlines()
    assert Path(where).is_relative_to(venv / "lib"), f"croupier imported from {where}: not the wheel"
    assert not tools, f"test tools in the production environment: {tools}"
    assert kinds.split() == KINDS, "the wheel carries every floor message's schema"
    licences = list((venv / "lib").glob("python3*/site-packages/croupier-*.dist-info/licenses/LICENSE"))
    assert len(licences) == 1 and "Apache License" in licences[0].read_text(), "the wheel carries LICENSE"
    python = (venv / "bin" / "python").resolve()
    assert python == SYSTEM_PYTHON.resolve(), f"the environment runs {python}, not the system Python"


@pytest.mark.timeout(120)
def test_the_release_checks_its_default_simulated_table_with_no_source_tree(venv: Path, tmp_path: Path):
    """`croupier run` with no --config runs the simulated table shipped in the wheel."""
    checked = subprocess.run(
        [venv / "bin" / "croupier", "run", "--check"], capture_output=True, text=True, cwd=tmp_path,
        env={"HOME": str(tmp_path), "PATH": "/usr/bin:/bin"},
    )
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert str(venv / "lib") in checked.stdout + checked.stderr, "the default table is not the wheel's"


@pytest.mark.timeout(300)
def test_a_floor_servers_environment_holds_the_floor_extra_and_no_test_tool(tmp_path_factory):
    """``scripts/production-venv --floor`` (docs/floor.md): requirements/floor.lock, complete (the
    script's `pip check`), with which the floor service, its embedded broker and its PostgreSQL driver
    import, and no test tool."""
    floor = _built(tmp_path_factory, "--floor")
    probe = PROBE + "import floor.service, amqtt.broker, psycopg\nprint(psycopg.pq.__impl__)\n"
    probed = subprocess.run([floor / "bin" / "python", "-c", probe], capture_output=True, text=True, cwd="/")
    assert probed.returncode == 0, probed.stderr
    where, tools, _, psycopg = probed.stdout.splitlines()
    assert Path(where).is_relative_to(floor / "lib") and not tools, probed.stdout
    assert psycopg == "binary", "psycopg's own libpq, as the lock's psycopg-binary gives it"
