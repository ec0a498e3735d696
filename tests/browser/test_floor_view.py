"""The floor view in headless Chromium (docs/floor.md; decision 0036): two real simulated tables
publishing through a real Mosquitto with the shipped access rules to ``croupier floor``; both are
shown once the view's token is given (a wrong one refused), and the one killed is shown dark from its
death certificate, the broker's will."""

from __future__ import annotations

import asyncio
import signal
from typing import Any

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import WebDriverWait

from tests.integration.floor_broker import (
    Mosquitto,
    croupier_run,
    floor_config,
    floor_service,
    table_config,
    with_password,
)

pytestmark = pytest.mark.timeout(120)
#: The floor view's read-only token.
TOKEN = "floor-view-token-0123456789abcdef"


def _rows(driver: Any) -> dict[str, str]:  # Any: a Selenium WebDriver
    """Each table's row's class (open, held, closed or dark), by table name."""
    rows = driver.find_elements(By.CSS_SELECTOR, "#tables tbody tr")
    return {row.get_attribute("data-table"): row.get_attribute("class") for row in rows}


def test_every_table_is_shown_and_one_killed_is_shown_dark(tmp_path, browser):
    broker = Mosquitto(tmp_path / "mosquitto")
    configs = {
        name: table_config(tmp_path / name, name, broker.port, with_password(tmp_path, name))
        for name in ("T1", "T2")
    }

    async def tables() -> dict[str, asyncio.subprocess.Process]:
        return {name: await croupier_run(config, "--duration", "90") for name, config in configs.items()}

    loop = asyncio.new_event_loop()
    try:
        with floor_service(floor_config(tmp_path / "floor", broker.port, TOKEN)) as service:
            running = loop.run_until_complete(tables())
            browser.get(service.view)
            wait = WebDriverWait(browser, 60, poll_frequency=0.2)
            token = wait.until(lambda driver: driver.find_element(By.ID, "token"))
            wait.until(lambda driver: token.is_displayed())  # asked for: without it, nothing is shown
            token.send_keys("not-" + TOKEN[4:], Keys.ENTER)
            wait.until(lambda driver: "refused" in driver.find_element(By.ID, "sign-in-error").text)
            assert _rows(browser) == {}
            token.clear()
            token.send_keys(TOKEN, Keys.ENTER)
            wait.until(lambda driver: _rows(driver) == {"T1": "open", "T2": "open"})
            row = browser.find_element(By.CSS_SELECTOR, 'tr[data-table="T1"]')
            assert row.find_element(By.CLASS_NAME, "game").text == "free-bet-blackjack"
            assert "shoe: ready" in row.find_element(By.CLASS_NAME, "devices").text
            assert row.find_element(By.CLASS_NAME, "dealer").text == "D-1"
            running["T2"].kill()  # the table PC gone: the broker sends its will
            wait.until(lambda driver: _rows(driver) == {"T1": "open", "T2": "dark"})
            state = browser.find_element(By.CSS_SELECTOR, 'tr[data-table="T2"] .state').text
            assert state.startswith("dark (lost")
            running["T1"].send_signal(signal.SIGTERM)
            for process in running.values():
                loop.run_until_complete(asyncio.wait_for(process.wait(), 30))
    finally:
        loop.close()
        broker.close()
    logs = [  # the requests refused before the token was given are the browser's to note, not errors
        entry
        for entry in browser.get_log("browser")
        if entry["level"] == "SEVERE" and "401 (Unauthorized)" not in entry["message"]
    ]
    assert not logs, logs
