"""The pages when the session or the network fails, in a real browser (headless Chromium) over
``croupier run`` at a simulated Over/Under table: the sign-in page without its script sends no
token; a sign-out in one tab ends the other tab's stream; an answer whose reply the network lost is
sent again with its Idempotency-Key and taken once, and one the network could not carry gives its
buttons back; after a restart of the service both pages say the connection is lost, then go to the
sign-in page, with one access record for their dead session (docs/decisions/0033-browser-sign-in.md)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

from tests.browser.harness import Daemon, daemon, key_wager, prompt_shown, screenshot, sign_in, wait
from tests.tokens import DEALER_TOKEN, SUPERVISOR_TOKEN

pytestmark = pytest.mark.timeout(180)

#: How long a page may take to notice its stream ended (the waits between its attempts included).
NOTICED = 30


@pytest.fixture(scope="module")
def table(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Daemon]:
    """One daemon for the module's tests."""
    with daemon(tmp_path_factory.mktemp("connection"), "over-under") as served:
        yield served


@pytest.fixture
def tabs(browser: Any) -> Iterator[Any]:  # Any: a Selenium WebDriver
    """The browser with no session and one tab; the tabs a test opened closed after it."""
    first = browser.current_window_handle
    browser.delete_all_cookies()
    yield browser
    for handle in browser.window_handles:
        if handle != first:
            browser.switch_to.window(handle)
            browser.close()
    browser.switch_to.window(first)


def on_sign_in_page(driver: Any) -> bool:  # Any: a Selenium WebDriver
    return bool(driver.find_elements(By.ID, "token"))


def signed_in(driver: Any, table: Daemon, token: str, page: str) -> None:  # Any: a Selenium WebDriver
    """Signed in with ``token``, at ``page`` once it follows the table (its first prompt or state)."""
    sign_in(driver, table.base, token)
    wait(driver, lambda d: not on_sign_in_page(d))
    driver.get(f"{table.base}{page}")
    if page == "/dealer":
        wait(driver, lambda d: prompt_shown(d)[1] == "wagers")
    else:
        wait(driver, lambda d: d.find_element(By.ID, "table-open").get_attribute("data-state") == "open")


def test_the_sign_in_page_without_its_script_sends_no_token(tabs, table: Daemon):
    """If the page's script does not load, Enter in the token field sends nothing: before, the form
    sent GET /?token=..., the token in the address and the history (found in review)."""
    tabs.execute_cdp_cmd("Network.enable", {})
    tabs.execute_cdp_cmd("Network.setBlockedURLs", {"urls": ["*/pages/sign-in.js"]})
    try:
        tabs.get(f"{table.base}/")
        field = wait(tabs, lambda d: d.find_element(By.ID, "token"))
        field.send_keys(DEALER_TOKEN, Keys.ENTER)
        assert tabs.current_url == f"{table.base}/"
        assert not tabs.find_element(By.ID, "sign-in-button").is_enabled()
    finally:
        tabs.execute_cdp_cmd("Network.setBlockedURLs", {"urls": []})


def test_signing_out_in_one_tab_ends_the_other_tabs_stream(tabs, table: Daemon):
    """Both tabs share the session: signed out in one, the other goes to the sign-in page at once,
    its stream closed by the service for that reason (1008), so it asks nothing with the dead session
    (before, it went on showing the table: found in review)."""
    signed_in(tabs, table, DEALER_TOKEN, "/dealer")
    first = tabs.current_window_handle
    tabs.switch_to.new_window("tab")
    tabs.get(f"{table.base}/dealer")
    wait(tabs, lambda d: prompt_shown(d)[1] == "wagers")
    before = len(table.records())
    tabs.find_element(By.ID, "sign-out").click()
    wait(tabs, on_sign_in_page)
    tabs.switch_to.window(first)
    wait(tabs, on_sign_in_page, timeout=NOTICED)
    assert not [r for r in table.records()[before:] if r["kind"] == "access_refused"]


def test_an_answer_the_network_lost_is_sent_again_with_its_key_and_taken_once(tabs, table: Daemon):
    """Decision 0022: a wager whose reply the network lost (the service took it) is sent again with
    the same Idempotency-Key and taken once; a wager the network could not carry at all (the
    browser offline) says it was not sent and gives the buttons back, and is taken when tapped again
    once the network is back (before, the buttons stayed off for good: found in review)."""
    signed_in(tabs, table, DEALER_TOKEN, "/dealer")
    round_before = len(table.records())
    # The first reply to a wager is lost on its way back, after the service took the wager.
    tabs.execute_script("""
        const real = window.fetch;
        window.keys = [];
        window.fetch = async (path, init) => {
          const wager = String(path) === "/v1/wagers";
          if (wager) window.keys.push(init.headers["Idempotency-Key"]);
          const response = await real(path, init);
          if (wager && window.keys.length === 1) throw new TypeError("Failed to fetch");
          return response;
        };
    """)
    key_wager(tabs, 1, {"ante": 1000})
    keys = tabs.execute_script("return window.keys")
    assert len(keys) == 2 and keys[0] == keys[1], keys
    tabs.execute_cdp_cmd("Network.enable", {})
    offline = {"offline": True, "latency": 0, "downloadThroughput": -1, "uploadThroughput": -1}
    tabs.execute_cdp_cmd("Network.emulateNetworkConditions", offline)
    try:
        tabs.find_element(By.CSS_SELECTOR, '.seat-picks button[data-seat="2"]').click()
        tabs.find_element(By.ID, "wager-ante").send_keys("5.00")
        tabs.find_element(By.ID, "place-wager").click()
        message = wait(tabs, lambda d: d.find_element(By.CSS_SELECTOR, "#prompt-message.error").text)
        assert message.startswith("Not sent"), message
        assert tabs.find_element(By.ID, "place-wager").is_enabled(), "the buttons are back"
        screenshot(tabs, "not-sent")
    finally:
        online = {**offline, "offline": False}
        tabs.execute_cdp_cmd("Network.emulateNetworkConditions", online)
    tabs.find_element(By.ID, "place-wager").click()
    wait(tabs, lambda d: d.find_element(By.ID, "prompt-message").text == "Seat 2: wager taken")
    wagers = [r["fields"] for r in table.records()[round_before:] if r["kind"] == "wager"]
    assert [(w["seat"], w["amount"]) for w in wagers] == [(1, 1000), (2, 500)], "each taken once"


def test_after_a_restart_both_pages_say_so_then_go_to_sign_in(tabs, table: Daemon):
    """A restart signs everyone out: while the service is down both pages say the connection is
    lost; once it is back each goes to the sign-in page, asking with its dead session once rather
    than every second, so the trail holds one access record for it (before, the pages stayed on a
    dead screen and filled the minute's access records: found in review)."""
    signed_in(tabs, table, SUPERVISOR_TOKEN, "/supervisor")
    console = tabs.current_window_handle
    tabs.switch_to.new_window("tab")
    tabs.get(f"{table.base}/dealer")
    wait(tabs, lambda d: prompt_shown(d)[1] == "wagers")
    screen = tabs.current_window_handle
    assert table.stop() == 0
    for tab in (screen, console):
        tabs.switch_to.window(tab)
        lost = wait(tabs, lambda d: d.find_element(By.ID, "connection-lost"), timeout=NOTICED)
        assert lost.is_displayed() and lost.text.startswith("Connection lost"), lost.text
    screenshot(tabs, "connection-lost")
    before = len(table.records())
    table.start()
    for tab in (console, screen):
        tabs.switch_to.window(tab)
        wait(tabs, on_sign_in_page, timeout=NOTICED)
    refused = [r["fields"] for r in table.records()[before:] if r["kind"] == "access_refused"]
    assert [(r["request"], r["status"]) for r in refused] == [("GET /v1/session", 401)], refused
