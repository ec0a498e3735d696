"""The browser tests' harness: a real daemon (``croupier run``) at a simulated table, and the steps a
person takes in the pages, for Selenium to drive (the browser itself: tests/browser/conftest.py)."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import time
import urllib.request
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from selenium.common.exceptions import StaleElementReferenceException, WebDriverException
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from croupier.audit.storage import lines_of
from tests.integration.test_daemon_end_to_end import daemon_config
from tests.integration.test_run_command import croupier

#: Where the tests write the screenshots the docs show, when set (docs/screens.md).
SCREENSHOTS = os.environ.get("CROUPIER_SCREENSHOTS")
#: How long a page may take to show what the table did (a new deck shuffled and counted included).
WAIT = 60
#: What chromedriver answers a command sent while the page navigates away (it names no error class).
NAVIGATING = "aborted by navigation"

@dataclass
class Daemon:
    """``croupier run`` of one game's simulated table (``arguments``: the command's): its address,
    its audit trail and its log. It can be stopped and started again on the same configuration,
    address, trail and state, as a restart of the service does."""

    base: str
    audit: Path
    arguments: tuple[str, ...]
    log: Path
    process: subprocess.Popen[str] | None = None

    def records(self) -> list[dict[str, Any]]:  # Any: JSON values
        """The audit trail's records so far, those of the files a restart compressed included."""
        files = {path.name.removesuffix(".gz"): path for path in self.audit.glob("*.jsonl.gz")}
        files |= {path.name: path for path in self.audit.glob("*.jsonl")}  # one being compressed
        texts = [lines_of(files[name]) for name in sorted(files)]
        return [json.loads(line) for lines in texts for line in b"".join(lines).splitlines()]

    def start(self) -> None:
        """Run the daemon, until it answers."""
        with self.log.open("a") as err:
            self.process = process = croupier("run", *self.arguments, stderr=err)
        deadline = time.monotonic() + 60
        while True:
            try:
                with urllib.request.urlopen(f"{self.base}/openapi.json", timeout=5):
                    return
            except OSError:
                assert process.poll() is None, self.log.read_text()
                if time.monotonic() > deadline:
                    self.stop()
                    raise AssertionError(f"the daemon did not come up: {self.log.read_text()}") from None
                time.sleep(0.1)

    def stop(self) -> int:
        """Stop the daemon with SIGTERM; its exit status."""
        assert self.process is not None, "not started"
        self.process.send_signal(signal.SIGTERM)
        self.process.communicate(timeout=60)
        return self.process.returncode


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
    served = Daemon(base, tmp_path / "audit", ("--config", str(config), *options), tmp_path / "daemon.log")
    served.start()
    try:
        yield served
    finally:
        status = served.stop()
    assert status == 0, served.log.read_text()


def screenshot(driver: Any, name: str) -> None:  # Any: a Selenium WebDriver
    """The page as it is now, as docs/screens/NAME.png, when CROUPIER_SCREENSHOTS names the folder."""
    if SCREENSHOTS:
        folder = Path(SCREENSHOTS)
        folder.mkdir(parents=True, exist_ok=True)
        driver.save_screenshot(str(folder / f"{name}.png"))


def wait(driver: Any, until: Any, timeout: float = WAIT) -> Any:  # Any: a WebDriver, a condition, its value
    """``until(driver)``'s first truthy value, polled until ``timeout``; an element the page redrew
    while it was read (stale), or a read the browser aborted because the page was navigating away
    (a sign-out's redirect), is looked for again at the next poll."""

    def read(driver: Any) -> Any:  # Any: a WebDriver; the condition's value
        try:
            return until(driver)
        except WebDriverException as error:
            if NAVIGATING not in (error.msg or ""):
                raise
            return False

    waiting = WebDriverWait(
        driver, timeout, poll_frequency=0.05, ignored_exceptions=[StaleElementReferenceException]
    )
    return waiting.until(read)


def sign_in(driver: Any, base: str, token: str) -> None:  # Any: a Selenium WebDriver
    """Sign in on the sign-in page as a person does: type the token, tap Sign in."""
    driver.get(f"{base}/")
    field = wait(driver, lambda d: d.find_element(By.ID, "token"))
    field.send_keys(token)
    wait(driver, lambda d: d.find_element(By.ID, "sign-in-button").is_enabled())  # its script loaded
    driver.find_element(By.ID, "sign-in-button").click()


def prompt_shown(driver: Any) -> tuple[str, str]:  # Any: a Selenium WebDriver
    """The prompt the page shows: its id and kind (both "" while nothing is awaited)."""
    panel = driver.find_element(By.ID, "prompt")
    return panel.get_attribute("data-prompt") or "", panel.get_attribute("data-kind") or ""


def next_prompt(
    driver: Any, after: str, held: Callable[[str], None] | None = None  # Any: a Selenium WebDriver
) -> tuple[str, str]:
    """The next prompt the page shows once the one with id ``after`` is gone, failing on an error the
    page shows (a refused answer) rather than waiting it out; ``held`` is given the banner's text
    while the page shows one and no prompt (a supervisor's turn)."""

    def shown(d: Any) -> tuple[str, str] | None:  # Any: a Selenium WebDriver
        errors = d.find_elements(By.CSS_SELECTOR, "#prompt-message.error")
        assert not errors or not errors[0].text, errors[0].text
        prompt, kind = prompt_shown(d)
        banner = d.find_element(By.ID, "banner")
        if held is not None and not prompt and banner.is_displayed():
            held(banner.text)
        return (prompt, kind) if prompt and prompt != after else None

    return wait(driver, shown)


def faces(driver: Any, selector: str) -> list[str | None]:  # Any: a Selenium WebDriver
    """Each card's face (``data-card``; None for a back) matching ``selector``, read in one go in the
    page: the page redraws the layout as records arrive, so an element found first and read after
    may be gone (a stale element)."""
    script = "return [...document.querySelectorAll(arguments[0])].map(c => c.getAttribute('data-card'))"
    return list(driver.execute_script(script, selector))


def tap(driver: Any, answer: str) -> None:  # Any: a Selenium WebDriver
    """Tap the prompt's button for ``answer`` (its ``data-answer``) once the page lets it be tapped:
    a button is off while the table answers its last tap, and a tap on it then is lost, as a
    person's would be (a wager keyed again for the same seat leaves its "wager taken" showing from
    the tap before, so the next wager's tap can come while this one is still being answered)."""

    def enabled(d: Any) -> Any:  # Any: a WebDriver, and the button or None
        button = d.find_element(By.CSS_SELECTOR, f'#prompt button[data-answer="{answer}"]')
        return button if button.is_enabled() else None

    wait(driver, enabled).click()


def key_wager(driver: Any, seat: int, amounts: dict[str, int]) -> None:  # Any: a Selenium WebDriver
    """Key one seat's wager on the betting prompt: tap the seat, type each amount (in dollars, as a
    dealer keys it), tap Place wager, and wait until the page says it was taken."""
    driver.find_element(By.CSS_SELECTOR, f'.seat-picks button[data-seat="{seat}"]').click()
    for field, cents in amounts.items():
        box = driver.find_element(By.ID, f"wager-{field}")
        box.clear()
        box.send_keys(f"{cents / 100:.2f}")
    tap(driver, "wager")
    wait(driver, lambda d: d.find_element(By.ID, "prompt-message").text == f"Seat {seat}: wager taken")


def key_count(driver: Any, count: int) -> None:  # Any: a Selenium WebDriver
    """Key a count on the number pad and enter it."""
    for digit in str(count):
        driver.find_element(By.CSS_SELECTOR, f'#prompt .pad button[data-key="{digit}"]').click()
    tap(driver, "count")
