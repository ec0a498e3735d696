"""The browser tests' harness: a real daemon (``croupier run``) at a simulated table, and the steps a
person takes in the pages, for Selenium to drive (the browser itself: tests/browser/conftest.py)."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import time
import urllib.request
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from tests.integration.test_daemon_end_to_end import daemon_config
from tests.integration.test_run_command import croupier

#: Where the tests write the screenshots the docs show, when set (docs/screens.md).
SCREENSHOTS = os.environ.get("CROUPIER_SCREENSHOTS")
#: How long a page may take to show what the table did.
WAIT = 20

@dataclass
class Daemon:
    """``croupier run`` of one game's simulated table: its address and its audit trail."""

    base: str
    audit: Path

    def records(self) -> list[dict[str, Any]]:  # Any: JSON values
        """The audit trail's records so far."""
        paths = sorted(self.audit.glob("*.jsonl"))
        return [json.loads(line) for path in paths for line in path.read_text().splitlines()]


@contextlib.contextmanager
def daemon(
    tmp_path: Path, game: str, *options: str, edit: Callable[[str], str] | None = None
) -> Iterator[Daemon]:
    """The game's table served by ``croupier run`` (tests/integration/test_daemon_end_to_end.py's
    configuration, changed by ``edit`` if given; ``options``: more of the command's options) until it
    is up; stopped with SIGTERM at the end, which must exit 0."""
    config, base = daemon_config(tmp_path, game)
    if edit is not None:
        config.write_text(edit(config.read_text()))
    log = tmp_path / "daemon.log"
    with log.open("w") as err:
        process = croupier("run", "--config", str(config), *options, stderr=err)
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                with urllib.request.urlopen(f"{base}/openapi.json", timeout=5):
                    break
            except OSError:
                assert process.poll() is None, log.read_text()
                assert time.monotonic() < deadline, "the daemon did not come up"
                time.sleep(0.1)
        yield Daemon(base, tmp_path / "audit")
    finally:
        process.send_signal(signal.SIGTERM)
        process.communicate(timeout=60)
    assert process.returncode == 0, log.read_text()


def screenshot(driver: Any, name: str) -> None:  # Any: a Selenium WebDriver
    """The page as it is now, as docs/screens/NAME.png, when CROUPIER_SCREENSHOTS names the folder."""
    if SCREENSHOTS:
        folder = Path(SCREENSHOTS)
        folder.mkdir(parents=True, exist_ok=True)
        driver.save_screenshot(str(folder / f"{name}.png"))


def wait(driver: Any, until: Any, timeout: float = WAIT) -> Any:  # Any: a WebDriver, a condition, its value
    """``until(driver)``'s first truthy value, polled until ``timeout``."""
    return WebDriverWait(driver, timeout, poll_frequency=0.05).until(until)


def sign_in(driver: Any, base: str, token: str) -> None:  # Any: a Selenium WebDriver
    """Sign in on the sign-in page as a person does: type the token, tap Sign in."""
    driver.get(f"{base}/")
    field = wait(driver, lambda d: d.find_element(By.ID, "token"))
    field.send_keys(token)
    driver.find_element(By.ID, "sign-in-button").click()
