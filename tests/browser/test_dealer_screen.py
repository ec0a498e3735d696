"""The dealer's screen in a real browser (headless Chromium), over ``croupier run`` at a simulated
table of each game: signing in (at an Over/Under table), a whole round of each game played through
the page only (wagers keyed, no more bets, every prompt answered by tapping its button or keying its
count, until the next betting opens), a double tap taking one answer, face-down cards shown as backs
with no face in the page until turned up, and the banner of a table a supervisor must act on."""

from __future__ import annotations

import json
import re
import urllib.request
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By

from tests.browser.harness import (
    Daemon,
    daemon,
    faces,
    key_count,
    key_wager,
    next_prompt,
    prompt_shown,
    screenshot,
    sign_in,
    tap,
    wait,
)
from tests.screen import dealer_counts
from tests.tokens import DEALER_TOKEN, SUPERVISOR_TOKEN

pytestmark = pytest.mark.timeout(180)

#: What each seat keys, in cents, per game.
KEYED = {
    "free-bet-blackjack": {1: {"blackjack": 1000, "push22": 500}, 2: {"blackjack": 2500}},
    "over-under": {1: {"ante": 1000}, 2: {"ante": 500, "bonus": 100}},
    "heads-up-holdem": {1: {"ante": 1000, "odds": 1000}, 2: {"ante": 500, "odds": 500}},
    "crazy-4-poker": {
        1: {"ante": 1000, "super_bonus": 1000, "progressive": 100},
        2: {"ante": 500, "super_bonus": 500},
    },
}
#: The header once a round is over: its number and its final state.
OVER = re.compile(r"Round (\d+) \((\w+)\)")
#: A plain player's answer, by preference among the buttons the prompt shows.
PLAIN = ("decline", "check", "stand", "under_18", "play-1")
#: A prompt handled by the test itself: (prompt id, kind) -> whether it answered it.
Special = Callable[[str, str], bool]


def answers(driver: Any) -> list[str]:  # Any: a Selenium WebDriver
    """The answers the prompt offers: its buttons' ``data-answer``."""
    buttons = driver.find_elements(By.CSS_SELECTOR, "#prompt button[data-answer]")
    return [button.get_attribute("data-answer") for button in buttons]


def play_round(
    driver: Any,  # Any: a Selenium WebDriver
    game: str,
    special: Special | None = None,
    held: Callable[[str], None] | None = None,
    shot: str = "",
    bets: Callable[[], None] | None = None,
) -> int:
    """One whole round through the page: each seat's wager keyed (or ``bets`` keys them; ``shot``:
    the screenshot then), no more bets, then every prompt answered (``special`` first) until the next
    betting opens (``held``: what a supervisor does while the banner holds the table); returns its
    number."""
    betting, _ = wait(driver, lambda d: prompt_shown(d) if prompt_shown(d)[1] == "wagers" else None)
    if bets is not None:
        bets()
    for seat, amounts in KEYED[game].items() if bets is None else ():
        key_wager(driver, seat, amounts)
    if shot:
        screenshot(driver, shot)
    tap(driver, "no_more_bets")
    progressive = sum(1 for amounts in KEYED[game].values() if amounts.get("progressive"))
    counts = dealer_counts(game, len(KEYED[game]), progressive=progressive)
    prompt = betting
    while True:
        prompt, kind = next_prompt(driver, prompt, held)
        if kind == "wagers":
            header = wait(driver, lambda d: OVER.fullmatch(d.find_element(By.ID, "round").text))
            return int(header[1])
        if special is not None and special(prompt, kind):
            continue
        if kind in ("stub_count", "chip_count"):
            key_count(driver, counts(kind))
        else:
            offered = answers(driver)
            tap(driver, next(answer for answer in PLAIN if answer in offered))


def supervisor(table: Daemon, path: str, body: object = None) -> None:
    """A supervisor's action over the API (the console is not part of this page)."""
    request = urllib.request.Request(
        f"{table.base}{path}",
        data=json.dumps(body or {}).encode(),
        method="POST",
        headers={"Authorization": f"Bearer {SUPERVISOR_TOKEN}", "Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=10) as response:
        assert response.status == 200


def completed(table: Daemon) -> list[int]:
    """The rounds the trail shows complete."""
    return [
        r["round"]
        for r in table.records()
        if r["kind"] == "state" and r["fields"].get("dest") == "complete"
    ]


def no_page_errors(driver: Any) -> None:  # Any: a Selenium WebDriver
    """No script error in the page's console (refused requests, which the tests make, aside)."""
    logged = driver.get_log("browser")
    severe = [entry for entry in logged if entry["level"] == "SEVERE" and entry["source"] != "network"]
    assert not severe, severe


def test_a_dealer_signs_in_with_the_token_and_a_wrong_token_is_refused(browser, tmp_path: Path):
    """Signed in with the token, the page holds no token and no script sees the session; an
    Over/Under round keyed on the page (686a.7(f): one election per seat); signed out, the page
    is refused until the next sign-in."""

    def elect(prompt: str, kind: str) -> bool:
        if kind == "election":
            assert set(answers(browser)) == {"over_23", "under_18", "surrender"}
            screenshot(browser, "over-under-election")
        return False

    with daemon(tmp_path, "over-under") as table:
        sign_in(browser, table.base, "not-a-token-of-ours-0123456789abcdef")
        error = wait(browser, lambda d: d.find_element(By.ID, "sign-in-error").text)
        assert error == "unknown token"
        screenshot(browser, "sign-in-refused")
        sign_in(browser, table.base, DEALER_TOKEN)
        wait(browser, lambda d: d.current_url.endswith("/dealer"))
        assert wait(browser, lambda d: d.find_element(By.ID, "operator").text) == "D-1 (dealer)"
        assert browser.execute_script("return document.cookie") == "", "no script reads the session"
        assert browser.execute_script("return localStorage.length + sessionStorage.length") == 0
        assert play_round(browser, "over-under", elect, shot="betting") == 1
        browser.find_element(By.ID, "sign-out").click()
        wait(browser, lambda d: d.find_element(By.ID, "token"))
        browser.get(f"{table.base}/dealer")
        wait(browser, lambda d: d.find_element(By.ID, "token"))  # signed out: back to the sign-in page
        no_page_errors(browser)
    records = table.records()
    actions = [
        (r["fields"]["action"], r["fields"]["operator"]) for r in records if r["kind"] == "operator_action"
    ]
    assert actions == [("sign_in", "D-1"), ("sign_out", "D-1")]
    refused = [r["fields"]["request"] for r in records if r["kind"] == "access_refused"]
    assert refused[0] == "POST /v1/session"
    assert completed(table) == [1]


def test_free_bet_blackjack_a_double_tap_hits_once_and_the_hole_card_is_a_back(browser, tmp_path: Path):
    """672a.7(c): the hole card is a back in the page, with no face anywhere in it, until it is
    turned up, also in a page loaded mid-round; a double tap on Hit deals one card (decision 0022).
    The banner of a closed table."""
    seen: dict[str, Any] = {}  # Any: what the page showed at the first decision

    def first_hit(prompt: str, kind: str) -> bool:
        if "hit" not in answers(browser) or seen:
            return False

        def shown(driver: Any) -> dict[str, Any]:  # Any: what the page shows; read again if redrawn
            back = driver.find_element(By.CSS_SELECTOR, '[data-place="dealer"] .card.back')
            in_turn = driver.find_element(By.CSS_SELECTOR, ".seat.in-turn").get_attribute("id")
            return {
                "commitment": back.get_attribute("data-commitment"),
                "back": (back.text, back.get_attribute("data-card")),
                "faces": Counter(faces(driver, "[data-card]")),
                "source": driver.page_source,
                "seat": int(in_turn.removeprefix("seat-")),
            }

        seen.update(wait(browser, shown))  # a redraw between two reads (a card arriving) reads again
        screenshot(browser, "free-bet-blackjack-decision")
        browser.refresh()  # a page loaded mid-round shows the round as it stands
        wait(browser, lambda d: prompt_shown(d)[0] == prompt)
        assert Counter(faces(browser, "[data-card]")) == seen["faces"]
        back = browser.find_element(By.CSS_SELECTOR, '[data-place="dealer"] .card.back')
        assert back.get_attribute("data-commitment") == seen["commitment"]
        button = browser.find_element(By.CSS_SELECTOR, '#prompt button[data-answer="hit"]')
        ActionChains(browser).double_click(button).perform()
        return True

    with daemon(tmp_path, "free-bet-blackjack") as table:
        sign_in(browser, table.base, DEALER_TOKEN)
        played = []
        while not seen and len(played) < 3:  # a dealer Blackjack asks nobody: another round
            played.append(play_round(browser, "free-bet-blackjack", first_hit))
        screenshot(browser, "free-bet-blackjack-settled")
        supervisor(table, "/v1/table/close")
        banner = wait(browser, lambda d: d.find_element(By.ID, "banner").text)
        assert "The table is closed" in banner and "supervisor" in banner
        supervisor(table, "/v1/table/open")
        wait(browser, lambda d: not d.find_element(By.ID, "banner").is_displayed())
        no_page_errors(browser)
    assert seen, "no round asked a player to decide"
    assert completed(table) == played
    records = [r for r in table.records() if r["round"] == played[-1]]
    hits = [r for r in records if r["kind"] == "decision" and r["fields"]["action"] == "hit"]
    assert [r["fields"]["seat"] for r in hits] == [seen["seat"]], "the double tap took one hit"
    place = f"seat {seen['seat']} hand 0"
    dealt = [r for r in records if r["kind"] == "card" and r["fields"]["place"] == place]
    assert len(dealt) == 3, "two cards dealt and one hit"
    (reveal,) = [r for r in records if r["kind"] == "hole_revealed"]
    assert reveal["fields"]["commitment"] == seen["commitment"] and seen["back"] == ("", None)
    first = next(r["seq"] for r in records if r["kind"] == "decision")
    dealt_before = [r["fields"] for r in records if r["kind"] == "card" and r["seq"] < first]
    face_up = Counter(fields["card"] for fields in dealt_before if fields["card"])
    assert seen["faces"] == face_up, "the page showed exactly the cards dealt face up"
    hole = reveal["fields"]["card"]
    assert seen["source"].count(f'data-card="{hole}"') == face_up[hole], "no hole card face in the page"


def test_heads_up_holdem_rounds_through_the_page_backs_until_turned_up_and_a_dropped_card_held(
    browser, tmp_path: Path
):
    """677a.10(b)-(c): the hole and community cards are backs on the page until turned up; whole
    rounds keyed on the page, street by street. 677a.10(d)-(f): a card of the stub falls to the
    floor as it is counted (the daemon's fault profile), so the count keyed on the number pad, and
    the deck's count after it, make 51: no misdeal, the round void, and the deck removed, found
    short as the shoe takes the round's cards back: WRONG_COUNT latches, which the banner shows with
    what to call a supervisor for; once the supervisor has cleared it betting opens on a new deck.
    (Before, a wrong count keyed with every card there latched the same, from the removed deck
    counted missing.)"""
    community: list[list[str | None]] = []
    keyed: list[int] = []
    cleared: list[str] = []
    short = dealer_counts("heads-up-holdem", len(KEYED["heads-up-holdem"]))("stub_count") - 1

    def hand(prompt: str, kind: str) -> bool:
        if not community and kind == "decision":
            community.append(faces(browser, '[data-place="community"] .card'))
            assert faces(browser, '[data-place="seat 1"] .card') == [None, None]
            screenshot(browser, "heads-up-holdem-decision")
        if kind == "stub_count":
            keyed.append(short)  # what the hand holds, one card on the floor
            key_count(browser, short)
            return True
        return False

    def fault(banner: str) -> None:
        if "WRONG_COUNT" in banner and not cleared:
            cleared.append(banner)
            screenshot(browser, "banner")
            supervisor(table, "/v1/faults/WRONG_COUNT/clear")

    profile = tmp_path / "faults.toml"
    profile.write_text('[[script]]\nround = 1\nfault = "miscount"\nat = "stub"\n')
    with daemon(tmp_path, "heads-up-holdem", "--faults", str(profile)) as table:
        sign_in(browser, table.base, DEALER_TOKEN)
        played = []
        while not cleared and len(played) < 3:  # the stub is counted every other round
            played.append(play_round(browser, "heads-up-holdem", hand, fault))
            if not cleared:
                turned_up = faces(browser, '[data-place="community"] .card[data-card]')
                assert len(turned_up) == 5, "turned up by the end of the round"
        no_page_errors(browser)
    assert community == [[None] * 5]
    assert keyed == [short, short], "the wrong count, then the deck counted for the misdeal finding"
    assert cleared[0].startswith("WRONG_COUNT: ") and cleared[0].endswith("call a supervisor to clear it")
    assert "the shoe holds 51 of 52 cards" in cleared[0], "counted as the shoe takes the round back"
    assert completed(table) == played
    voided = [r["round"] for r in table.records() if r["kind"] == "misdeal"]
    assert voided == played[-1:], "the round the wrong count was keyed in is void"


def test_crazy_4_poker_round_with_its_progressive_through_the_page(browser, tmp_path: Path):
    """657a.9(a)(3): the progressive's meters on the page, its lock from "no more bets", and the
    dealer's count of the progressive chips keyed on the number pad. A hit that freezes a level holds
    betting until a supervisor's keyed reset (605a.7(a)), shown on the banner."""
    locked: list[str] = []
    reset: set[str] = set()

    def counted(prompt: str, kind: str) -> bool:
        if kind == "chip_count" and not locked:
            locked.append(browser.find_element(By.ID, "progressive").text)
            key_count_shown = browser.find_elements(By.CSS_SELECTOR, "#prompt .pad button[data-key]")
            assert len(key_count_shown) == 12, "a number pad"
            screenshot(browser, "crazy-4-poker-count")
        return False

    def jackpot(banner: str) -> None:
        for level in re.findall(r"Progressive level (\d+) was hit", banner):
            if level not in reset:
                reset.add(level)
                supervisor(table, f"/v1/progressive/levels/{level}/reset", {"key": "PROG-KEY-1"})

    with daemon(tmp_path, "crazy-4-poker") as table:
        sign_in(browser, table.base, DEALER_TOKEN)
        meters = wait(browser, lambda d: d.find_element(By.ID, "progressive").text)
        assert "Level 1: $" in meters and "Taking wagers" in meters, meters
        assert play_round(browser, "crazy-4-poker", counted, jackpot) == 1
        no_page_errors(browser)
    assert locked and "Wagers locked" in locked[0], locked
    assert completed(table) == [1]
    (chips,) = [r["fields"] for r in table.records() if r["kind"] == "chip_count"]
    assert chips["chips"] == chips["accepted"] == 1, chips


def seat_wagers(driver: Any, seat: int) -> list[str]:  # Any: a Selenium WebDriver
    """The wagers the page's layout shows at ``seat``, read in one go (the layout is redrawn)."""
    script = (
        "return [...document.querySelectorAll(`#seat-${arguments[0]} .wagers li`)].map(li => li.textContent)"
    )
    return list(driver.execute_script(script, seat))


def test_over_under_a_double_tapped_wager_is_placed_once_and_a_seat_keyed_again_shows_its_new_wagers(
    browser, tmp_path: Path
):
    """686a.7(e): wagers are placed before the deal, and a seat keyed again before "no more bets"
    plays its new wagers alone. A double tap of Place wager places the wager once (the button is
    off from the tap until the table answers: the betting prompt keeps its id from wager to wager,
    so it is the page that takes the tap once); seat 1 keyed again with fewer wagers shows exactly
    the table's wagers, on the page and in GET /v1/round, whose records show the Bonus withdrawn."""
    shown: dict[str, Any] = {}  # Any: what the page and GET /v1/round showed before no more bets

    def bets() -> None:
        browser.find_element(By.CSS_SELECTOR, '.seat-picks button[data-seat="1"]').click()
        browser.find_element(By.ID, "wager-ante").send_keys("10.00")
        browser.find_element(By.ID, "wager-bonus").send_keys("5.00")
        ActionChains(browser).double_click(browser.find_element(By.ID, "place-wager")).perform()
        wait(browser, lambda d: d.find_element(By.ID, "prompt-message").text == "Seat 1: wager taken")
        wait(browser, lambda d: seat_wagers(d, 1) == ["ante $10.00", "bonus $5.00"])
        key_wager(browser, 1, {"ante": 2000})
        key_wager(browser, 2, {"ante": 500})
        shown["page"] = wait(browser, lambda d: seat_wagers(d, 1) if len(seat_wagers(d, 2)) == 1 else None)
        script = "fetch('/v1/round').then(r => r.json()).then(arguments[0])"
        shown["round"] = browser.execute_async_script(script)

    with daemon(tmp_path, "over-under") as table:
        sign_in(browser, table.base, DEALER_TOKEN)
        number = play_round(browser, "over-under", bets=bets)
        assert seat_wagers(browser, 1) == ["ante $20.00"], "the round's end shows the same wagers"
        no_page_errors(browser)
    assert shown["page"] == ["ante $20.00"]
    betting = [
        (r["kind"], r["seat"], r["wager"], r["amount"])
        for r in shown["round"]["records"]
        if r["kind"] in ("wager", "wager_withdrawn")
    ]
    placed = [("wager", 1, "ante", 1000), ("wager", 1, "bonus", 500)]
    withdrawn = [("wager_withdrawn", 1, "ante", 1000), ("wager_withdrawn", 1, "bonus", 500)]
    again = [("wager", 1, "ante", 2000), ("wager", 2, "ante", 500)]
    assert betting == placed + withdrawn + again, "one wager per tap taken: the double tap placed once"
    records = [r for r in table.records() if r["round"] == number]
    trail = [
        (r["kind"], *(r["fields"][k] for k in ("seat", "wager", "amount")))
        for r in records
        if r["kind"] in ("wager", "wager_withdrawn")
    ]
    assert trail == betting, "the trail as the page saw it"
    settled = [
        (r["fields"]["wager"], r["fields"]["amount"])
        for r in records
        if r["kind"] == "settlement" and r["fields"]["seat"] == 1
    ]
    assert settled[0] == ("ante", 2000) and "bonus" not in dict(settled), "settled by the second wagers"
