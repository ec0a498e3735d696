"""The production install's locks (requirements/*.lock, made by scripts/lock; decision 0034): every
runtime dependency of pyproject.toml pinned to one version that its specifier accepts, each pin with
its hashes (pip's --require-hashes refuses a lock without them), and no test tool on a table PC; a
floor server's lock the same with the floor extra, at the table PC's versions of the rest.

That the lock also holds every dependency of those dependencies, at versions they accept, is
proved where it can be exactly, against the locked distributions' own metadata: by `pip check` in
the environment tests/integration/test_production_install.py builds from the lock."""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import NormalizedName, canonicalize_name
from packaging.version import Version

ROOT = Path(__file__).resolve().parents[2]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())
PRODUCTION_LOCK = ROOT / "requirements" / "production.lock"
#: A floor server's: the runtime dependencies and the floor extra's (docs/floor.md).
FLOOR_LOCK = ROOT / "requirements" / "floor.lock"
BUILD_LOCK = ROOT / "requirements" / "build.lock"
PIN = re.compile(r"^(?P<name>[A-Za-z0-9][A-Za-z0-9._-]*)==(?P<version>\S+)\s*\\$")
HASH = re.compile(r"^\s+--hash=sha256:[0-9a-f]{64}(\s*\\)?$")
#: Tools of the test suite and the developer's desk, whatever pulls them in (the [test] extra's
#: own names are added below).
TEST_TOOLS = {"pytest", "hypothesis", "ruff", "mypy", "mutmut", "coverage", "pip-tools", "import-linter"}


@dataclass(frozen=True)
class Pin:
    version: Version
    hashes: int


def parse_lock(text: str) -> dict[NormalizedName, Pin]:
    """Each pinned distribution with its version and number of hashes. Anything but a pin, its
    hash lines and comments fails the test: a lock is only what scripts/lock writes."""
    pins: dict[NormalizedName, Pin] = {}
    name: NormalizedName | None = None
    for number, line in enumerate(text.splitlines(), 1):
        pinned = PIN.match(line)
        if pinned:
            name = canonicalize_name(pinned["name"])
            assert name not in pins, f"line {number}: {name} pinned twice"
            pins[name] = Pin(Version(pinned["version"]), 0)
        elif HASH.match(line):
            assert name is not None, f"line {number}: a hash before any pin"
            pins[name] = Pin(pins[name].version, pins[name].hashes + 1)
        else:
            assert not line.strip() or line.lstrip().startswith("#"), f"line {number}: not a pin: {line!r}"
            name = None
    return pins


def test_a_lock_is_pins_each_with_its_hashes():
    text = "a==1.0 \\\n    --hash=sha256:" + "0" * 64 + "\n    # via croupier\nb==2 \\\n    # via a\n"
    assert parse_lock(text) == {"a": Pin(Version("1.0"), 1), "b": Pin(Version("2"), 0)}
    for refused in ("a>=1.0", "a==1.0\na==1.1 \\", "-e .", "--hash=sha256:" + "0" * 64):
        with pytest.raises(AssertionError):
            parse_lock(refused)


@pytest.mark.parametrize("lock", [PRODUCTION_LOCK, FLOOR_LOCK, BUILD_LOCK], ids=lambda path: path.name)
def test_each_pin_has_a_hash_and_the_lock_says_how_it_is_remade(lock: Path):
    text = lock.read_text()
    unhashed = sorted(name for name, pin in parse_lock(text).items() if pin.hashes == 0)
    assert not unhashed, f"{lock.name}: pinned without a hash: {unhashed}; run scripts/lock"
    assert "#    scripts/lock\n" in text, f"{lock.name}: not made by scripts/lock"


def check_pinned(requirements: list[str], pins: dict[NormalizedName, Pin]) -> list[str]:
    """What is wrong with ``pins`` for ``requirements``: missing, or a version the specifier refuses."""
    wrong = []
    for requirement in map(Requirement, requirements):
        name = canonicalize_name(requirement.name)
        if requirement.marker is not None and not requirement.marker.evaluate({"python_version": "3.11"}):
            continue  # not installed on the table PC's Python
        if name not in pins:
            wrong.append(f"{requirement}: not in the lock")
        elif not requirement.specifier.contains(pins[name].version, prereleases=True):
            wrong.append(f"{requirement}: the lock pins {pins[name].version}")
    return wrong


def test_the_production_lock_pins_every_runtime_dependency_at_a_version_it_accepts():
    wrong = check_pinned(PYPROJECT["project"]["dependencies"], parse_lock(PRODUCTION_LOCK.read_text()))
    assert not wrong, "; ".join(wrong) + " (run scripts/lock)"


def test_the_floor_lock_pins_the_floor_extra_and_the_table_pcs_versions_of_the_rest():
    """A floor server installs the floor extra (amqtt, psycopg) besides the runtime dependencies, and
    runs the table PC's version of every distribution both locks hold (with the same files): the
    floor service and the floor link speak through the same aiomqtt and paho-mqtt as the tables."""
    project = PYPROJECT["project"]
    floor = parse_lock(FLOOR_LOCK.read_text())
    wrong = check_pinned([*project["dependencies"], *project["optional-dependencies"]["floor"]], floor)
    assert not wrong, "; ".join(wrong) + " (run scripts/lock)"
    production = parse_lock(PRODUCTION_LOCK.read_text())
    differ = sorted(name for name in production.keys() & floor.keys() if production[name] != floor[name])
    assert not differ, f"pinned otherwise than on a table PC: {differ} (remove floor.lock, run scripts/lock)"
    assert production.keys() <= floor.keys(), "the floor lock lacks a runtime dependency (run scripts/lock)"


def test_the_build_lock_pins_what_builds_the_wheel():
    wrong = check_pinned(PYPROJECT["build-system"]["requires"], parse_lock(BUILD_LOCK.read_text()))
    assert not wrong, "; ".join(wrong) + " (run scripts/lock)"


@pytest.mark.parametrize("lock", [PRODUCTION_LOCK, FLOOR_LOCK], ids=lambda path: path.name)
def test_no_test_tool_is_in_a_production_lock(lock: Path):
    extras = PYPROJECT["project"]["optional-dependencies"]
    floor = {canonicalize_name(Requirement(line).name) for line in extras["floor"]}
    extra = {canonicalize_name(Requirement(line).name) for line in extras["test"]} - floor
    tools = extra | {canonicalize_name(name) for name in TEST_TOOLS}
    pinned = set(parse_lock(lock.read_text()))
    found = sorted(name for name in pinned if name in tools or name.startswith(("pytest-", "types-")))
    assert not found, f"test tools in the production lock: {found}"
