"""The dealer's screen in a real browser (headless Chromium), over ``croupier run`` at a simulated
table of each game: signing in, whole rounds played through the page only, a double tap taking one
answer, and face-down cards shown as backs with no face in the page until turned up."""

from __future__ import annotations

from pathlib import Path

import pytest
from selenium.webdriver.common.by import By

from tests.browser.harness import daemon, screenshot, sign_in, wait
from tests.tokens import DEALER_TOKEN

pytestmark = pytest.mark.timeout(180)


def test_a_dealer_signs_in_with_the_token_and_a_wrong_token_is_refused(browser, tmp_path: Path):
    with daemon(tmp_path, "free-bet-blackjack") as table:
        sign_in(browser, table.base, "not-a-token-of-ours-0123456789abcdef")
        error = wait(browser, lambda d: d.find_element(By.ID, "sign-in-error").text)
        assert error == "unknown token"
        screenshot(browser, "sign-in-refused")
        sign_in(browser, table.base, DEALER_TOKEN)
        wait(browser, lambda d: d.current_url.endswith("/dealer"))
        assert wait(browser, lambda d: d.find_element(By.ID, "operator").text) == "D-1 (dealer)"
        assert browser.execute_script("return document.cookie") == "", "no script reads the session"
        assert browser.execute_script("return localStorage.length + sessionStorage.length") == 0
        browser.find_element(By.ID, "sign-out").click()
        wait(browser, lambda d: d.find_element(By.ID, "token"))
        browser.get(f"{table.base}/dealer")
        wait(browser, lambda d: d.find_element(By.ID, "token"))  # signed out: back to the sign-in page
    records = table.records()
    actions = [
        (r["fields"]["action"], r["fields"]["operator"])
        for r in records if r["kind"] == "operator_action"
    ]
    assert actions == [("sign_in", "D-1"), ("sign_out", "D-1")]
    refused = [r["fields"]["request"] for r in records if r["kind"] == "access_refused"]
    assert refused[0] == "POST /v1/session"
