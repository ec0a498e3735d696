"""tests/debian.py: a missing Debian package skips a test on a developer's machine, naming the package
and the command, and fails it where CI requires the packages (.ci/run)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests import debian

ROOT = Path(__file__).resolve().parents[2]


def test_a_missing_package_skips_naming_it_and_how_to_get_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(debian.REQUIRED, raising=False)
    with pytest.raises(pytest.skip.Exception) as skipped:
        debian.missing("mosquitto", "mosquitto is not installed")
    assert str(skipped.value) == (
        "mosquitto is not installed: install Debian's mosquitto (sudo ./scripts/debian-packages)"
    )


def test_where_packages_are_required_a_missing_one_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(debian.REQUIRED, "1")
    with pytest.raises(pytest.fail.Exception, match=r"Debian.s chromium.*=1 requires"):
        debian.missing("chromium", "no /usr/bin/chromium")


def test_ci_requires_the_packages_it_installs() -> None:
    """.ci/run sets the requirement before installing, so the install script stops on a failure too."""
    run = (ROOT / ".ci" / "run").read_text()
    assert run.index(f"export {debian.REQUIRED}=1") < run.index("./scripts/debian-packages")
    assert f'"${{{debian.REQUIRED}:-}}" = 1 ] && fail=1' in (ROOT / "scripts" / "debian-packages").read_text()
