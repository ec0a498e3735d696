"""The import contracts in pyproject.toml hold (decision 0032): who may import whom is checked, not
hoped for. ``lint-imports`` (import-linter) reads them; this test runs it so the suite fails on an
import that crosses a floor, and checks that the list of the host's driver modules the simulated
firmware may not import names every one of them but the codec."""

from __future__ import annotations

import pkgutil
import subprocess
import sys
import tomllib
from pathlib import Path

import drivers

ROOT = Path(__file__).resolve().parents[2]


def contracts() -> list[dict[str, object]]:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    return config["tool"]["importlinter"]["contracts"]


def test_every_import_contract_is_kept():
    lint = Path(sys.executable).with_name("lint-imports")
    run = subprocess.run(
        [str(lint), "--config", str(ROOT / "pyproject.toml"), "--no-cache"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-2000:]
    assert f"Contracts: {len(contracts())} kept, 0 broken." in run.stdout


def test_the_firmware_is_kept_from_every_host_driver_module_but_the_codec():
    (firmware,) = [c for c in contracts() if "firmware_sim" in c.get("source_modules", [])]
    modules = {f"drivers.{module.name}" for module in pkgutil.iter_modules(drivers.__path__)}
    assert set(firmware["forbidden_modules"]) == modules - {"drivers.protocol"}
