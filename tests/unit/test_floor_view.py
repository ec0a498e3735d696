"""The floor view's token (floor.view; decisions 0033 and 0036): a token file others may read, or a
short token, is refused at start-up; with a token, the view's data is refused without it or a
session signed in with it; the floor's store refuses a file that is not one."""

from __future__ import annotations

import asyncio
import contextlib
import sqlite3
from pathlib import Path

import pytest
import structlog.testing
from aiohttp.test_utils import TestClient, TestServer

from croupier.config.floor_service import StoreConfig
from croupier.errors import StartupError
from croupier.state import StateError, TableState
from floor.store import FLOOR_FILE, Store
from floor.view import read_token, view_app

TOKEN = "0123456789abcdef0123456789abcdef"


def _token_file(tmp_path: Path, token: str, mode: int) -> Path:
    path = tmp_path / "view-token"
    path.write_text(token + "\n")
    path.chmod(mode)
    return path


def test_a_token_file_others_may_read_or_a_short_token_is_refused(tmp_path):
    assert read_token(_token_file(tmp_path, TOKEN, 0o600)) == TOKEN
    with pytest.raises(StartupError, match=r"view\.token_file: .*mode 0640 lets group or others read"):
        read_token(_token_file(tmp_path, TOKEN, 0o640))
    with pytest.raises(StartupError, match="shorter than 32 characters"):
        read_token(_token_file(tmp_path, TOKEN[:31], 0o600))


@pytest.mark.parametrize("data", ["tables", "links"])  # links: a floor with no linked progressive
@pytest.mark.parametrize("token", [TOKEN, None], ids=["token", "loopback-open"])
def test_the_views_data_needs_its_token_when_it_has_one(tmp_path, token, data):
    store = Store(StoreConfig(None, tmp_path / "floor.sqlite3"))
    path = f"/floor/v1/{data}"

    async def main() -> tuple[int, int, int, str]:
        async with TestClient(TestServer(view_app(store, token))) as client:
            page = await client.get("/")
            without = await client.get(path)
            wrong = await client.get(path, headers={"Authorization": f"Bearer x{TOKEN[1:]}"})
            right = await client.get(path, headers={"Authorization": f"Bearer {TOKEN}"})
            return page.status, without.status, wrong.status, await right.text()

    try:
        page, without, wrong, right = asyncio.run(main())
    finally:
        store.close()
    assert page == 200 and right == f'{{"{data}": []}}'
    assert (without, wrong) == ((401, 401) if token else (200, 200))


def test_a_browser_signs_in_once_for_an_httponly_session_and_signs_out(tmp_path):
    """The view's sign-in is the table's (decision 0033, croupier.api.sessions): the token sent once
    to ``POST /v1/session`` from the view's own page, for an HttpOnly, SameSite=Strict cookie that
    holds no token; another site's request refused; signing out ends the session; each sign-in,
    sign-out and refusal logged, never the token."""
    store = Store(StoreConfig(None, tmp_path / "floor.sqlite3"))
    own = {"X-Croupier-Request": "1"}

    async def main() -> dict[str, object]:
        async with TestClient(TestServer(view_app(store, TOKEN))) as client:
            seen: dict[str, object] = {}
            seen["sign-in page"] = "sign-in.js" in await (await client.get("/")).text()
            forged = await client.post("/v1/session", json={"token": TOKEN})  # no request header
            other = await client.post(
                "/v1/session", json={"token": TOKEN}, headers={**own, "Origin": "https://evil.example"}
            )
            wrong = await client.post("/v1/session", json={"token": "x" + TOKEN[1:]}, headers=own)
            seen["refused"] = (forged.status, other.status, wrong.status)
            signed = await client.post("/v1/session", json={"token": TOKEN}, headers=own)
            seen["signed"] = (signed.status, await signed.json())
            seen["cookie"] = signed.headers["Set-Cookie"]
            seen["with cookie"] = (await client.get("/floor/v1/tables")).status
            seen["session"] = (await client.get("/v1/session")).status
            seen["sign-out forged"] = (await client.delete("/v1/session")).status
            seen["sign-out"] = (await client.delete("/v1/session", headers=own)).status
            client.session.cookie_jar.update_cookies(signed.cookies)  # the old id, copied: worthless
            seen["after"] = (await client.get("/floor/v1/tables")).status
            return seen

    try:
        with structlog.testing.capture_logs() as logged:
            seen = asyncio.run(main())
    finally:
        store.close()
    events = [entry["event"] for entry in logged if entry["event"].startswith("floor view")]
    assert events == [*["floor view: sign-in refused"] * 3, "floor view: signed in", "floor view: signed out"]
    assert TOKEN not in repr(logged)
    assert seen["sign-in page"] and seen["refused"] == (403, 403, 401)
    assert seen["signed"] == (200, {"operator": "floor view", "role": "floor", "expires_in": 43200})
    cookie = str(seen["cookie"])
    assert cookie.startswith("croupier_floor_session=") and TOKEN not in cookie
    assert "HttpOnly" in cookie and "SameSite=Strict" in cookie
    assert (seen["with cookie"], seen["session"], seen["sign-out forged"], seen["sign-out"]) == (
        200,
        200,
        403,
        200,
    )
    assert seen["after"] == 401


def test_the_floor_store_refuses_a_file_that_is_not_one(tmp_path) -> None:
    """The floor's SQLite file is marked as the state database and the spool are
    (croupier/state/sqlite_file.py): a table's state database named by mistake is refused, not
    written into."""
    TableState(tmp_path / "state.sqlite3").close()
    with pytest.raises(StartupError, match="not a Croupier floor store"):
        Store(StoreConfig(None, tmp_path / "state.sqlite3"))
    Store(StoreConfig(None, tmp_path / "floor.sqlite3")).close()
    Store(StoreConfig(None, tmp_path / "floor.sqlite3")).close()  # opened again: it is one


def test_a_table_missing_from_a_floor_store_is_made_when_it_is_opened(tmp_path) -> None:
    """A table a later Croupier adds to the store is made in a store an earlier one wrote."""
    path = tmp_path / "floor.sqlite3"
    Store(StoreConfig(None, path)).close()
    with contextlib.closing(sqlite3.connect(path)) as db:
        db.execute("DROP TABLE floor_heads")
    store = Store(StoreConfig(None, path))
    try:
        assert store.heads("T1") == []
    finally:
        store.close()


def test_the_floor_store_refuses_a_newer_schema_and_names_itself_when_a_write_fails(tmp_path) -> None:
    """A store a newer Croupier wrote is refused at start-up rather than misread; a write the
    database refuses (here another process holding its write lock) is a StateError naming the store,
    which the service takes as a message left unacknowledged (floor.service)."""
    path = tmp_path / "floor.sqlite3"
    Store(StoreConfig(None, path)).close()
    newer = FLOOR_FILE.schema_version + 1
    with contextlib.closing(sqlite3.connect(path)) as db:
        db.execute(f"PRAGMA user_version = {newer}")
    with pytest.raises(StartupError, match=rf"floor store schema {newer} was written by a newer Croupier"):
        Store(StoreConfig(None, path))
    with contextlib.closing(sqlite3.connect(path)) as db:
        db.execute(f"PRAGMA user_version = {FLOOR_FILE.schema_version}")
    store = Store(StoreConfig(None, path))
    holder = sqlite3.connect(path, isolation_level=None, timeout=0)
    try:
        holder.execute("BEGIN IMMEDIATE")
        store._db.execute("PRAGMA busy_timeout = 0")  # the lock is held: no waiting for it in a test
        with pytest.raises(StateError, match=rf"{path}: cannot write the floor store: database is locked"):
            store.death("T1", {"table": "T1", "session": 1, "reason": "lost"})
        holder.execute("ROLLBACK")
        store.death("T1", {"table": "T1", "session": 1, "reason": "lost"})  # written once it is free
    finally:
        holder.close()
        store.close()


def test_a_store_that_cannot_be_read_answers_503_naming_it(tmp_path, monkeypatch):
    """A floor store unreachable for a while (PostgreSQL restarting, a disk failing) is the service
    being unavailable, not a fault in the request: 503 with what failed, and the view goes on."""
    store = Store(StoreConfig(None, tmp_path / "floor.sqlite3"))

    def unreadable() -> list[object]:
        raise StateError("cannot read the floor store: the connection is closed")

    monkeypatch.setattr(store, "tables", unreadable)

    async def main() -> tuple[int, str, int]:
        async with TestClient(TestServer(view_app(store, None))) as client:
            down = await client.get("/floor/v1/tables")
            links = await client.get("/floor/v1/links")
            return down.status, await down.text(), links.status

    try:
        status, body, links = asyncio.run(main())
    finally:
        store.close()
    assert status == 503 and "cannot read the floor store: the connection is closed" in body
    assert links == 200
