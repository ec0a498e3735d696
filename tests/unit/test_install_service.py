"""scripts/install-service and the systemd unit agree on where the service is (decision 0034): the unit
runs the release the script points /opt/croupier/current at, and names the docs the script copies
into it. The scripts are valid bash."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
INSTALL = ROOT / "scripts" / "install-service"
UNIT = (ROOT / "config" / "systemd" / "croupier.service").read_text()


def prefix() -> str:
    found = re.search(r"^prefix=(\S+)$", INSTALL.read_text(), re.MULTILINE)
    assert found, "scripts/install-service sets no prefix="
    return found[1]


def test_the_unit_runs_the_release_in_service():
    start = re.search(r"^ExecStart=(\S+)", UNIT, re.MULTILINE)
    assert start and start[1] == f"{prefix()}/current/bin/croupier", start


def test_the_unit_names_the_docs_the_release_holds():
    docs = re.search(r"^Documentation=file://(\S+)", UNIT, re.MULTILINE)
    assert docs and docs[1] == f"{prefix()}/current/docs/install.md", docs
    assert 'cp -r "$source_tree/docs" "$release/docs"' in INSTALL.read_text()


@pytest.mark.parametrize("script", ["install-service", "production-venv", "lock"])
def test_the_script_is_valid_bash(script: str):
    checked = subprocess.run(["bash", "-n", ROOT / "scripts" / script], capture_output=True, text=True)
    assert checked.returncode == 0, checked.stderr
