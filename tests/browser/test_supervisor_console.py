"""The supervisor's console in a real browser (headless Chromium) over ``croupier run`` at a simulated
Crazy 4 Poker table (it has a progressive) whose faults are scripted (``--faults``): in round 1 the
shuffler's lid opens for a few seconds, the meter sign goes silent, and a card falls to the floor as
the dealer picks up, so the discard count is short and the round holds (657a.9(c)).

The dealer's part is keyed over the API with the dealer's token (the dealer's screen is tested in
test_dealer_screen.py); everything the supervisor does is done on the page: close and open the
table, clear the latched faults (refused, with the device's reason, while the lid is still open),
rule on the held round (only the rulings the irregularity offers are shown), read each device's
link and last error, the progressive's levels and the audit trail's head, and close the table. A
double click takes effect once. A dealer's session is refused on the console.

A second daemon, whose progressive pays often, has a level hit and frozen: the supervisor turns the
reset key on the console (605a.7(a)), a wrong key refused first.

On configured equipment (Free Bet Blackjack, its firmware simulated over real pseudo-terminals and
TCP, tests/integration/test_hardware_table.py) the table is closed until a supervisor opens it, and
the open answers at once and the console shows the opening's steps as they go, held on a jam until
the supervisor clears it there (decision 0037); a dealer is changed there between rounds."""

from __future__ import annotations

import asyncio
import contextlib
import json
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from selenium.common.exceptions import StaleElementReferenceException
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By

from firmware_sim.world import SHUFFLER_INPUT, TableWorld
from tests.browser.harness import Daemon, daemon, screenshot, sign_in, wait
from tests.integration.test_hardware_table import felt
from tests.screen import answer_for, dealer_counts, jackpot_held
from tests.tokens import DEALER_TOKEN, SUPERVISOR_TOKEN

pytestmark = pytest.mark.timeout(240)

GAME = "crazy-4-poker"
#: How long the shuffler's lid stays open: the first clear is refused while it is.
LID_OPEN = 6.0
PROFILE = f"""
[[script]]
round = 1
fault = "door"
device = "shuffler"
seconds = {LID_OPEN}

[[script]]
round = 1
fault = "unplug"
device = "meter-sign"
seconds = 5.0

[[script]]
round = 1
fault = "miscount"
at = "pickup"
"""
#: The progressive paid on three of a kind and two pairs (the simulator's own pay table), so that a
#: level is hit within a few rounds: in place of the example configuration's, which pays on four of a
#: kind and better.
PAYS_OFTEN = 'three_of_a_kind = "100%"\ntwo_pairs = "100%"\nstraight = 2500'


def wager(seat: int) -> dict[str, int]:
    """A seat's wager, with a progressive chip (657a.9(a)(3))."""
    return {"seat": seat, "ante": 1000, "super_bonus": 1000, "progressive": 100}


@pytest.fixture(scope="module")
def table(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Daemon]:
    """One daemon for the module's tests."""
    folder = tmp_path_factory.mktemp("console")
    profile = folder / "faults.toml"
    profile.write_text(PROFILE)
    with daemon(folder, GAME, "--faults", str(profile)) as served:
        yield served


def api(base: str, path: str, body: object = None, token: str = DEALER_TOKEN) -> tuple[int, Any]:
    """One request with a bearer token (the dealer's, by default): GET without a body, else POST."""
    data = None if body is None else json.dumps(body).encode()
    headers = {"Authorization": f"Bearer {token}", "Content-Type": "application/json"}
    request = urllib.request.Request(f"{base}{path}", data=data, headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as refused:
        return refused.code, json.loads(refused.read())


def dealt(base: str, done: Callable[[dict[str, Any]], bool], seats: int = 1) -> dict[str, Any]:
    """The dealer answers every prompt of the round in play (``seats`` keyed, each with a
    progressive chip) until ``done`` says so of the table's state; that state."""
    counts = dealer_counts(GAME, seats, progressive=seats)
    deadline = time.monotonic() + 60
    while not done(state := api(base, "/v1/table")[1]):
        assert time.monotonic() < deadline, state
        assert not state["faults"], state
        prompt = state["prompt"]
        if prompt is None or prompt["kind"] == "wagers":
            time.sleep(0.05)
        elif prompt["kind"] in ("stub_count", "chip_count"):
            count = {"prompt": prompt["id"], "count": counts(prompt["kind"])}
            assert api(base, "/v1/" + prompt["kind"].replace("_", "-"), count)[0] == 200
        else:
            assert api(base, *answer_for(prompt))[0] == 200
    return state


def betting(base: str) -> int:
    """The betting prompt's id, once it is shown."""
    state = dealt(base, lambda s: s["prompt"] is not None and s["prompt"]["kind"] == "wagers")
    return int(state["prompt"]["id"])


def shown(driver: Any, css: str) -> str:  # Any: a Selenium WebDriver
    """The text of the first element ``css`` finds, once there is one with text."""
    return str(wait(driver, lambda d: "".join(e.text for e in d.find_elements(By.CSS_SELECTOR, css)[:1])))


def click(driver: Any, css: str, *, double: bool = False) -> None:  # Any: a Selenium WebDriver
    """Click (or double-click) the element ``css`` finds, found again if the page redrew it first."""

    def clicked(d: Any) -> bool:  # Any: a Selenium WebDriver
        try:
            target = d.find_element(By.CSS_SELECTOR, css)
            if double:
                ActionChains(d).double_click(target).perform()
            else:
                target.click()
        except StaleElementReferenceException:
            return False
        return True

    wait(driver, clicked)


def whole(driver: Any, name: str) -> None:  # Any: a Selenium WebDriver
    """A screenshot of the whole console, every part of it (the window made as tall as the page for
    the moment, then as it was)."""
    size = driver.get_window_size()
    height = driver.execute_script("return document.documentElement.scrollHeight")
    driver.set_window_size(size["width"], max(size["height"], height + 140))
    try:
        screenshot(driver, name)
    finally:
        driver.set_window_size(size["width"], size["height"])


def table_state(driver: Any) -> str:  # Any: a Selenium WebDriver
    return str(driver.find_element(By.ID, "table-open").get_attribute("data-state"))


def test_a_supervisor_runs_the_table_from_the_console(browser, table: Daemon):
    sign_in(browser, table.base, SUPERVISOR_TOKEN)
    wait(browser, lambda d: d.current_url.endswith("/supervisor"))
    assert shown(browser, "#operator") == "S-1 (supervisor)"
    wait(browser, lambda d: table_state(d) == "open")
    levels = wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "#progressive tbody tr"))
    assert [row.get_attribute("data-level") for row in levels] == ["1", "2"]
    assert levels[0].find_element(By.CSS_SELECTOR, ".value").text == "$10,000.00"
    assert shown(browser, "#audit-head").startswith("C4-03-000001.jsonl · seq ")
    assert shown(browser, "#audit-sealed").startswith("yes, epoch ")
    rows = browser.find_elements(By.CSS_SELECTOR, "#devices tbody tr")
    links = {r.get_attribute("data-device"): r.find_element(By.CSS_SELECTOR, ".link").text for r in rows}
    assert links == {"progressive": "ready", "meter-sign": "ready", "shuffler": "ready"}

    browser.find_element(By.ID, "close-table").click()
    wait(browser, lambda d: table_state(d) == "closed")
    assert api(table.base, "/v1/table")[1]["open"] is False
    browser.find_element(By.ID, "open-table").click()
    wait(browser, lambda d: table_state(d) == "open")
    assert shown(browser, "#table-message") == "opened by S-1"

    # Round 1: the dealer keys a wager and "no more bets"; the shuffler's lid opens.
    prompt = betting(table.base)
    assert api(table.base, "/v1/wagers", {"prompt": prompt, **wager(1)})[0] == 200
    assert api(table.base, "/v1/rounds/no-more-bets", {"prompt": prompt})[0] == 200
    door = '#faults li[data-code="DOOR_OPEN"]'
    assert shown(browser, f"{door} .detail") == "shuffler lid open"
    assert shown(browser, f"{door} .clause") == "Clause: decision 0017; docs/protocol.md §7"
    click(browser, f"{door} button.clear")
    refused = shown(browser, f"{door} .message.error")
    assert "DOOR_OPEN condition still present" in refused, refused
    screenshot(browser, "supervisor-fault-refused")
    time.sleep(LID_OPEN)  # the lid is closed now
    click(browser, f"{door} button.clear", double=True)
    wait(browser, lambda d: not d.find_elements(By.CSS_SELECTOR, door))

    # The meter sign went silent for a while: SIGN_LINK_LOST (605a.7(a)), and its link's last error
    # stays on the console after the link came back.
    sign = '#faults li[data-code="SIGN_LINK_LOST"]'
    assert shown(browser, f"{sign} .clause").startswith("Clause: 605a.7(a)")
    row = '#devices tr[data-device="meter-sign"]'
    wait(browser, lambda d: d.find_element(By.CSS_SELECTOR, f"{row} .link").text == "ready")
    last = shown(browser, f"{row} .last-error")
    assert last.startswith(("CommandTimeout: meter-sign", "LinkLost: meter-sign")), last
    whole(browser, "supervisor-faults")
    click(browser, f"{sign} button.clear", double=True)
    wait(browser, lambda d: not d.find_elements(By.CSS_SELECTOR, "#faults li"))
    assert browser.find_element(By.CSS_SELECTOR, "#faults .empty").is_displayed()

    # The dealer plays on; a card falls as the dealer picks up: the round holds (657a.9(c)).
    held = dealt(table.base, lambda state: state["held_round"] is not None)["held_round"]
    assert (held["kind"], held["resolutions"]) == ("discard-count", ["continue"])
    panel = "#held .items[data-round='1']"
    assert shown(browser, f"{panel} .what") == f"Round 1: {held['irregularity']}"
    assert held["clause"] in shown(browser, f"{panel} .clause")
    rulings = browser.find_elements(By.CSS_SELECTOR, f"{panel} button.ruling")
    offered = [b.get_attribute("data-resolution") for b in rulings]
    assert offered == ["continue"], "no VOID: the round is settled"
    assert shown(browser, f"{panel} .means") == held["on_continue"]
    whole(browser, "supervisor-held-round")
    click(browser, f"{panel} button.ruling", double=True)
    assert shown(browser, "#held-message") == "ruled continue by S-1"
    wait(browser, lambda d: d.find_element(By.CSS_SELECTOR, "#held .empty").is_displayed())

    # A Crazy 4 Poker round names no dealer: no dealer change is offered. The table closed.
    assert not browser.find_element(By.ID, "dealer-change").is_displayed()
    wait(browser, lambda d: api(table.base, "/v1/table")[1]["prompt"] is not None)
    whole(browser, "supervisor-console")
    browser.find_element(By.ID, "close-table").click()
    wait(browser, lambda d: table_state(d) == "closed")

    actions = [
        (r["fields"]["action"], r["fields"].get("code") or r["fields"].get("resolution"))
        for r in table.records()
        if r["kind"] == "operator_action" and r["fields"]["operator"] == "S-1"
    ]
    assert actions == [
        ("sign_in", None),
        ("table_close", None),
        ("table_open", None),
        ("clear", "DOOR_OPEN"),
        ("clear", "SIGN_LINK_LOST"),
        ("ruling", "continue"),
        ("table_close", None),
    ], "each double click took effect once"


def test_a_dealers_session_is_refused_on_the_console(browser, table: Daemon):
    browser.get(f"{table.base}/supervisor")
    browser.delete_all_cookies()
    sign_in(browser, table.base, DEALER_TOKEN)
    wait(browser, lambda d: d.current_url.endswith("/dealer"))
    browser.get(f"{table.base}/supervisor")
    refused = shown(browser, "#refused")
    assert refused.startswith("The supervisor's console is for supervisors: D-1 is signed in as a dealer")
    assert not browser.find_element(By.ID, "console").is_displayed()
    assert not browser.find_elements(By.CSS_SELECTOR, "button.clear, button.ruling")
    screenshot(browser, "supervisor-refused-dealer")


@contextlib.contextmanager
def equipment(tmp_path: Path) -> Iterator[tuple[str, TableWorld]]:
    """Free Bet Blackjack in service on configured equipment (``felt``: the dealer's hands doing each
    step the screen shows), its API on a real port, run on a thread of its own while the browser is
    driven from this one; its base URL and the cards' world."""
    up, served = threading.Event(), {}

    async def serve() -> None:
        async with felt(tmp_path, "free-bet-blackjack") as (screen, world, _ports):
            served["base"], served["world"] = str(screen.client.make_url("/")).rstrip("/"), world
            served["loop"], served["stop"] = asyncio.get_running_loop(), asyncio.Event()
            up.set()
            await served["stop"].wait()

    def serving() -> None:
        try:
            asyncio.run(serve())
        except BaseException as failed:  # told to the test, which fails with it
            served["failed"] = failed
            up.set()

    thread = threading.Thread(target=serving, name="equipment")
    thread.start()
    try:
        assert up.wait(60) and "failed" not in served, served.get("failed")
        yield served["base"], served["world"]
    finally:
        if "stop" in served:
            served["loop"].call_soon_threadsafe(served["stop"].set)
        thread.join(60)
    assert "failed" not in served, served["failed"]


def test_on_real_equipment_the_console_shows_the_opening_as_it_goes(browser, tmp_path: Path):
    with equipment(tmp_path) as (base, world):
        browser.delete_all_cookies()
        sign_in(browser, base, SUPERVISOR_TOKEN)
        wait(browser, lambda d: d.current_url.endswith("/supervisor"))
        wait(browser, lambda d: table_state(d) == "closed")
        links = '#devices tbody tr td.link'
        wait(browser, lambda d: {e.text for e in d.find_elements(By.CSS_SELECTOR, links)} == {"ready"})
        with world.lock:
            world.faults.stuck.add(SHUFFLER_INPUT)  # the first shuffle jams: the opening is held
        click(browser, "#open-table", double=True)
        wait(browser, lambda d: table_state(d) == "opening held")  # the open answered (202) at once
        # the state and its message are drawn apart: the message may come a moment after the state
        held = "held until"
        message = wait(browser, lambda d: held in shown(d, "#table-message") and shown(d, "#table-message"))
        assert message.startswith("held until a supervisor clears JAM")
        steps = [e.text for e in browser.find_elements(By.CSS_SELECTOR, "#opening li")]
        assert steps == [
            "reading the shoe",
            "opening the shuffler",
            "the card reader's start-of-day inspection, by FLOOR-2",
            "shuffling the first batch (red backs)",
        ], steps
        assert browser.find_element(By.CSS_SELECTOR, "#opening li.current").text == steps[-1]
        with world.lock:
            world.faults.stuck.clear()
        click(browser, "#faults li[data-code='JAM'] button.clear")
        wait(browser, lambda d: table_state(d) == "open", timeout=60)
        assert shown(browser, "#table-message") == "opened by FLOOR-2"
        whole(browser, "supervisor-opened")

        browser.find_element(By.ID, "dealer").send_keys("D-9")
        click(browser, "#change-dealer", double=True)
        assert shown(browser, "#dealer-message") == "D-9 is dealing"
        wait(browser, lambda d: d.find_element(By.ID, "dealer-on-duty").text == "D-9")
    files = sorted((tmp_path / "audit").glob("*.jsonl"))
    trail = [json.loads(line) for path in files for line in path.read_text().splitlines()]
    actions = [r["fields"]["action"] for r in trail if r["kind"] == "operator_action"]
    assert actions == ["sign_in", "clear", "table_open", "dealer_change"], "each double click once"


def test_an_opening_held_stays_held_on_the_console_when_the_opens_answer_comes_after_the_stream(
    browser, tmp_path: Path
):
    """The stream may tell the console that the opening is held before the open's own answer (202)
    reaches the page: the answer must not write "under way" over "held until a supervisor clears
    JAM", or the supervisor is never told what to clear. The page's fetch is made to hand the
    open's answer over 1.5 s late, so the held state always comes first."""
    late = """
        const real = window.fetch;
        window.fetch = async (path, init) => {
            const response = await real(path, init);
            if (String(path).endsWith("/v1/table/open")) {
                await new Promise((resolve) => setTimeout(resolve, 1500));
                window.openAnswered = true;
            }
            return response;
        };
    """
    with equipment(tmp_path) as (base, world):
        browser.delete_all_cookies()
        sign_in(browser, base, SUPERVISOR_TOKEN)
        wait(browser, lambda d: table_state(d) == "closed")
        browser.execute_script(late)
        with world.lock:
            world.faults.stuck.add(SHUFFLER_INPUT)  # the first shuffle jams: the opening is held
        click(browser, "#open-table")
        wait(browser, lambda d: table_state(d) == "opening held")
        wait(browser, lambda d: d.execute_script("return window.openAnswered === true"))
        # the answer noted and the page drawn again: the open button is no longer pending
        wait(browser, lambda d: d.find_element(By.ID, "open-table").is_enabled())
        assert shown(browser, "#table-message").startswith("held until a supervisor clears JAM")


def pays_often(config: str) -> str:
    """The table's configuration with the progressive pay table ``PAYS_OFTEN``."""
    start = config.index("[rules.progressive_pay_table]")
    end = config.index("\n\n", start)
    return f"{config[:start]}[rules.progressive_pay_table]\n{PAYS_OFTEN}{config[end:]}"


def test_a_supervisor_turns_the_reset_key_of_a_level_a_hit_froze(browser, tmp_path: Path):
    """605a.7(a): a hit freezes its level, showing the win, until its keyed reset; the console
    shows the level frozen with the seat and amount won, a wrong key is refused by the controller,
    and the right one releases the level (turned once, for a double click)."""
    with daemon(tmp_path, GAME, edit=pays_often) as table:
        browser.delete_all_cookies()
        sign_in(browser, table.base, SUPERVISOR_TOKEN)
        wait(browser, lambda d: d.current_url.endswith("/supervisor"))
        deadline = time.monotonic() + 120
        while not (state := api(table.base, "/v1/table")[1])["progressive"]["jackpot_locked"]:
            assert time.monotonic() < deadline, "no level was hit"
            prompt = betting(table.base)
            for seat in (1, 2, 3):
                assert api(table.base, "/v1/wagers", {"prompt": prompt, **wager(seat)})[0] == 200
            assert api(table.base, "/v1/rounds/no-more-bets", {"prompt": prompt})[0] == 200
            number = api(table.base, "/v1/table")[1]["rounds"]

            def over(s: dict[str, Any], number: int = number) -> bool:
                shown = s["prompt"] is not None and s["prompt"]["kind"] == "wagers"
                return s["rounds"] == number and not s["round_in_progress"] and (shown or jackpot_held(s))

            dealt(table.base, over, seats=3)
        frozen = state["progressive"]["jackpot_locked"]
        row = f'#progressive tr[data-level="{frozen[0]}"]'
        wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, f"{row}.frozen"))
        assert shown(browser, f"{row} .won").startswith("seat "), "the seat and the amount won"
        browser.find_element(By.CSS_SELECTOR, f"{row} input.key").send_keys("not-the-key")
        click(browser, f"{row} button.reset-level")
        assert "refused" in shown(browser, "#progressive-message.error")
        whole(browser, "supervisor-keyed-reset")
        for level in frozen:
            row = f'#progressive tr[data-level="{level}"]'
            key = wait(browser, lambda d, row=row: d.find_element(By.CSS_SELECTOR, f"{row} input.key"))
            key.send_keys("PROG-KEY-1")  # the simulated controller's key
            click(browser, f"{row} button.reset-level", double=True)
            wait(browser, lambda d, row=row: not d.find_elements(By.CSS_SELECTOR, f"{row}.frozen"))
        assert shown(browser, "#progressive-message") == f"level {frozen[-1]} reset by S-1"
    actions = [r["fields"] for r in table.records() if r["kind"] == "operator_action"]
    resets = [action["level"] for action in actions if action["action"] == "progressive_reset"]
    assert resets == frozen, "each level reset once"
