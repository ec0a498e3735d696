"""Browser tests: Debian's headless Chromium driven by Selenium through Debian's chromedriver, over
a real daemon (``croupier run``) at a simulated table.

The paths of both are given, so Selenium Manager never looks for (or downloads) a browser. The flags
keep Chromium from any connection of its own (updates, sync, field trials): the machines these
tests run on may have no network. Without the packages every test here is skipped, saying how to
install them.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from selenium import webdriver
from selenium.webdriver.chrome.service import Service

from tests import debian

CHROMIUM = Path("/usr/bin/chromium")
CHROMEDRIVER = Path("/usr/bin/chromedriver")
FLAGS = (
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
    "--window-size=1280,860",
)


@pytest.fixture(scope="session")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:  # Any: a Selenium WebDriver
    """One headless Chromium for every browser test, with a fresh profile."""
    missing = [str(path) for path in (CHROMIUM, CHROMEDRIVER) if not path.exists()]
    if missing:
        debian.missing("chromium and chromium-driver", f"no {', '.join(missing)}")
    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})  # the pages' console, for errors
    for flag in (*FLAGS, f"--user-data-dir={tmp_path_factory.mktemp('chromium')}"):
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service(executable_path=str(CHROMEDRIVER)), options=options)
    try:
        yield driver
    finally:
        driver.quit()


@pytest.fixture(autouse=True)
def blank_page_after(request: pytest.FixtureRequest) -> Iterator[None]:
    """The shared browser leaves each test's page for a blank one, and what that page said on its
    way out (a request to the test's servers, stopped by then) with it: otherwise a script of the
    page could still log into the next test's console before that test loads its own."""
    yield
    if "browser" in request.fixturenames:
        driver = request.getfixturevalue("browser")
        driver.get("about:blank")
        driver.get_log("browser")


@pytest.fixture(autouse=True)
def no_leaked_ports() -> Iterator[None]:
    """The suite's check (tests/conftest.py) is not made here: the shared browser keeps its
    connection to chromedriver open from one test to the next."""
    yield
