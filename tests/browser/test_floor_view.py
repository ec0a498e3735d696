"""The floor view in headless Chromium (docs/floor.md; decision 0036): two real simulated tables
publishing through a real Mosquitto with the shipped access rules to ``croupier floor``; both are
shown once the browser has signed in with the view's token on the shared sign-in page (a wrong one
refused), no script in the page can read the token or the session, each with its held rounds and
what the count found (gaps, repeats, malformed messages), the one killed is shown dark from its death
certificate, the broker's will, a table not heard for long shown silent, and signing out sends the
view back to the sign-in page.
And a linked progressive (decision 0039) as the floor sees it: each level's value, the hit that
locks one, and the table whose progressive wagers are locked, with the reason it gave."""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
import signal
import sqlite3
from typing import Any

import aiomqtt
import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import WebDriverWait

from tests.integration.floor_broker import (
    Mosquitto,
    birth_body,
    croupier_run,
    floor_config,
    floor_service,
    table_config,
    with_password,
)

pytestmark = pytest.mark.timeout(120)
#: The floor view's read-only token.
TOKEN = "floor-view-token-0123456789abcdef"


def _rows(driver: Any) -> dict[str, dict[str, str]]:  # Any: a Selenium WebDriver
    """Each table's row, by table name: its class (open, held, closed or dark) as ``class`` and each
    cell's text by the cell's class, read at once (the page draws its rows anew every second)."""
    return driver.execute_script(  # type: ignore[no-any-return]
        """return Object.fromEntries(Array.from(document.querySelectorAll("#tables tbody tr"), (row) =>
            [row.dataset.table, Object.fromEntries([["class", row.className],
                ...Array.from(row.cells, (cell) => [cell.className, cell.textContent])])]));"""
    )


def _floor_cookies(driver: Any) -> list[dict[str, Any]]:  # Any: a Selenium WebDriver; a cookie's fields
    return [cookie for cookie in driver.get_cookies() if cookie["name"] == "croupier_floor_session"]


def _classes(driver: Any) -> dict[str, str]:  # Any: a Selenium WebDriver
    return {name: row["class"] for name, row in _rows(driver).items()}


def test_every_table_is_shown_and_one_killed_is_shown_dark(tmp_path, browser):
    broker = Mosquitto(tmp_path / "mosquitto")
    configs = {
        name: table_config(tmp_path / name, name, broker.port, with_password(tmp_path, name))
        for name in ("T1", "T2")
    }

    async def tables() -> dict[str, asyncio.subprocess.Process]:
        return {name: await croupier_run(config, "--duration", "90") for name, config in configs.items()}

    loop = asyncio.new_event_loop()
    running: dict[str, asyncio.subprocess.Process] = {}
    try:
        with floor_service(floor_config(tmp_path / "floor", broker.port, TOKEN)) as service:
            running = loop.run_until_complete(tables())
            browser.get_log("browser")  # what earlier tests' pages said is theirs
            browser.get(service.view)  # the shared sign-in page (decision 0033)
            wait = WebDriverWait(browser, 60, poll_frequency=0.2)
            token = wait.until(lambda driver: driver.find_element(By.ID, "token"))
            wait.until(lambda driver: driver.find_element(By.ID, "sign-in-button").is_enabled())
            token.send_keys("not-" + TOKEN[4:], Keys.ENTER)
            wait.until(lambda driver: "unknown token" in driver.find_element(By.ID, "sign-in-error").text)
            token.send_keys(TOKEN, Keys.ENTER)
            wait.until(lambda driver: driver.current_url == f"{service.view}/floor")
            wait.until(lambda driver: _classes(driver) == {"T1": "open", "T2": "open"})
            readable = browser.execute_script(  # all a script in the page could read
                "return [document.cookie, JSON.stringify(sessionStorage), JSON.stringify(localStorage),"
                " document.documentElement.outerHTML].join(' ');"
            )
            assert TOKEN not in readable and "croupier_floor_session" not in readable
            [cookie] = _floor_cookies(browser)  # the browser may hold a table's too: same host
            assert TOKEN not in cookie["value"]
            assert cookie["httpOnly"] and cookie["sameSite"] == "Strict"
            row = _rows(browser)["T1"]
            assert row["game"] == "free-bet-blackjack" and row["dealer"] == "D-1"
            assert "shoe: ready" in row["devices"]
            pace = wait.until(lambda driver: _rows(driver)["T1"]["rounds-per-hour"].strip("0"))  # counters
            assert pace.isdigit(), pace
            counted = "from seq 1, gaps 0, repeats 0, malformed 0, unspooled 0"
            assert (row["held-rounds"], row["counted"]) == ("0", counted)
            running["T2"].kill()  # the table PC gone: the broker sends its will
            wait.until(lambda driver: _classes(driver) == {"T1": "open", "T2": "dark"})
            assert _rows(browser)["T2"]["state"].startswith("dark (lost")
            with contextlib.closing(sqlite3.connect(tmp_path / "floor" / "floor.sqlite3", timeout=10)) as db:
                # a table last heard long ago, not dark: its will died with a broker that went down
                db.execute(
                    "INSERT INTO floor_tables (name, heard_at) VALUES ('T3', '2026-01-01T00:00:00.000+00:00')"
                )
                db.commit()
            wait.until(lambda driver: _classes(driver) == {"T1": "open", "T2": "dark", "T3": "silent"})
            assert _rows(browser)["T3"]["state"] == "silent (not heard since 2026-01-01T00:00:00.000+00:00)"
            logs = [  # the wrong token's refusal is the browser's note, no error
                entry
                for entry in browser.get_log("browser")
                if entry["level"] == "SEVERE" and "401 (Unauthorized)" not in entry["message"]
            ]
            browser.find_element(By.ID, "sign-out").click()
            wait.until(lambda driver: driver.current_url == f"{service.view}/")
            assert _floor_cookies(browser) == []
            browser.get(f"{service.view}/floor")  # signed out: the view sends the browser to sign in
            wait.until(lambda driver: driver.current_url == f"{service.view}/")
            browser.get("about:blank")  # no more asking a floor service about to stop
            running["T1"].send_signal(signal.SIGTERM)
            for process in running.values():
                loop.run_until_complete(asyncio.wait_for(process.wait(), 30))
    finally:
        for process in running.values():  # a table left playing by a failure
            if process.returncode is None:
                process.kill()
                loop.run_until_complete(process.wait())
        loop.close()
        broker.close()
    assert not logs, logs


def _link_rows(driver: Any, table: str) -> list[dict[str, str]]:  # Any: a Selenium WebDriver
    """The rows of the linked jackpots' table ``table`` (``link-levels`` or ``link-tables``): each
    one's class as ``class`` and each cell's text by the cell's class, read at once."""
    return driver.execute_script(  # type: ignore[no-any-return]
        """return Array.from(document.querySelectorAll(`#${arguments[0]} tbody tr`), (row) =>
            Object.fromEntries([["class", row.className],
                ...Array.from(row.cells, (cell) => [cell.className, cell.textContent])]));""",
        table,
    )


def test_the_linked_jackpots_are_shown_with_their_locks(tmp_path, browser):
    """Two tables on the link c4p, their messages sent as a table's floor link sends them: T1
    contributes $100.00 of progressive wagers, T2 hits level 1 and reports its wagers locked for a
    lost link. The floor's own link controller applies them and the view shows its state."""
    config = floor_config(tmp_path / "floor", None)  # the embedded broker, the view open on loopback
    links = (
        '[links.c4p]\ntables = ["T1", "T2"]\n'
        "[links.c4p.levels.1]\nrate_bp = 500\nreset_cents = 100000\nlimit_cents = 25000000\n"
        "[links.c4p.levels.2]\nrate_bp = 100\nreset_cents = 5000\nlimit_cents = 500000\n"
    )
    config.write_text(config.read_text().replace("[store]", links + "[store]"))
    port = int(re.findall(r'bind = "127\.0\.0\.1:(\d+)"', config.read_text())[0])
    lost = "link c4p: the link controller not heard within 3 s"
    at = "2026-12-02T03:00:00.000+00:00"

    spools = {"T1": "a" * 32, "T2": "b" * 32}

    def birth(table: str, wagers_locked: str | None, limit: int) -> dict[str, object]:
        """The table's birth, its controller's level 1 holding at most ``limit`` cents."""
        body = birth_body(0, spool=spools[table], table=table)
        meters = [{"level": level, "value_cents": 5000, "limit_cents": most, "in_cents": 0, "hits": 0,
                   "wins_cents": 0, "frozen": False}
                  for level, most in ((1, limit), (2, 500_000))]  # fmt: skip
        return {**body, "game": "crazy-4-poker", "meters": meters, "wagers_locked": wagers_locked}

    def linked(table: str, number: int, event: str, **fields: object) -> dict[str, object]:
        unit = {"controller": {"vendor": "Acme", "model": "PC-1", "serial_number": table}}
        return {"table": table, "seq": number, "at": at, "link": "c4p", "spool": spools[table],
                "number": number, "event": event, **fields, **unit}  # fmt: skip

    async def tables() -> None:
        v311 = aiomqtt.ProtocolVersion.V311
        async with aiomqtt.Client("127.0.0.1", port, identifier="tables", protocol=v311) as client:
            await client.subscribe("croupier/v1/dev/host/+/state", qos=1)
            async for message in client.messages:  # the floor is online: subscribed to the tables
                if json.loads(message.payload)["online"]:  # type: ignore[arg-type]
                    break
            for topic, body in (
                ("T1/birth", birth("T1", None, 25_000_000)),
                ("T2/birth", birth("T2", lost, 20_000_000)),  # below the link's level 1 limit
                ("T1/linked", linked("T1", 1, "contribution", round=1, count=1, wagered_cents=10_000,
                                     levels=[1, 2])),
                ("T2/linked", linked("T2", 1, "contribution", round=7, count=1, wagered_cents=100,
                                     levels=[1])),
                ("T2/linked", linked("T2", 2, "hit", level=1, seat=3, round=7)),
            ):
                await client.publish(f"croupier/v1/dev/table/{topic}", json.dumps(body), qos=1)

    with floor_service(config) as service:
        asyncio.run(tables())
        browser.get_log("browser")  # what earlier tests' pages said is theirs
        browser.get(f"{service.view}/floor")
        wait = WebDriverWait(browser, 30, poll_frequency=0.2)
        locks = ["locked", "unlocked"]  # level 1 hit, level 2 not
        wait.until(lambda driver: [row["class"] for row in _link_rows(driver, "link-levels")] == locks)
        levels = _link_rows(browser, "link-levels")
        assert [(row["level"], row["value"], row["limit"], row["locked-by"]) for row in levels] == [
            # frozen for the hit; restarted at reset; stopping at T2's controller's limit (decision 0050)
            ("1", "$1,000.00", "$200,000.00", "T2 seat 3, round 7: $1,005.05"),
            ("2", "$51.00", "$5,000.00", "not locked"),  # 5,000 cents, 1 % of T1's 10,000 (T2 funds 1 only)
        ]
        over = (
            "link c4p: level 1's limit_cents 25000000 is above table T2's progressive controller limit of "
            "20000000 cents: the level stops at 20000000 cents, the rest kept as its overflow"
        )
        linked = _link_rows(browser, "link-tables")
        assert [(row["name"], row["wagers"], row["limits"]) for row in linked] == [
            ("T1", "taken", "within"),
            ("T2", f"locked: {lost}", over),
        ]
        logs = [  # an open view has no sessions: the page's question for one is answered 404
            entry
            for entry in browser.get_log("browser")
            if entry["level"] == "SEVERE" and "/v1/session - " not in entry["message"]
        ]
        browser.get("about:blank")  # no more asking a floor service about to stop
    assert not logs, logs
