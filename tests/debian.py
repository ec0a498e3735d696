"""A test that needs a Debian package the machine lacks: skipped on a developer's machine, with the
package and the command that installs it; failed where the packages are required (``.ci/run`` sets
``CROUPIER_REQUIRE_PACKAGES=1`` after ``scripts/debian-packages``), so that a CI run whose install
went wrong cannot pass with the browser, broker or systemd tests quietly skipped."""

from __future__ import annotations

import os
from typing import NoReturn

import pytest

REQUIRED = "CROUPIER_REQUIRE_PACKAGES"


def missing(packages: str, what: str) -> NoReturn:
    """Skip (or, where required, fail) the test: ``what`` is missing, Debian's ``packages`` bring it."""
    message = f"{what}: install Debian's {packages} (sudo ./scripts/debian-packages)"
    if os.environ.get(REQUIRED) == "1":
        pytest.fail(f"{message}; {REQUIRED}=1 requires it", pytrace=False)
    pytest.skip(message)
