"""Browser sessions over the real simulated table (docs/decisions/0033-browser-sign-in.md): a sign-in
with the role's token sets an HttpOnly, SameSite=Strict cookie that every route takes in place of the
bearer token; a wrong token, a signed-out or expired session, another site's page and a dealer on a
supervisor's route are refused, and each sign-in, sign-out and refusal is in the audit trail. The
event stream a session opened ends with it (1008)."""

from __future__ import annotations

import asyncio
import json
from http.cookies import SimpleCookie
from pathlib import Path
from typing import Any

import aiohttp
import pytest

from croupier.api.app import SESSION_ENDED
from croupier.api.sessions import COOKIE, REQUEST_HEADER, Sessions
from croupier.service.journal import ACCESS_LOGGED, ACCESS_RECORDS
from tests.integration.test_api import api_rig
from tests.links import run
from vocabulary.operators import SUPERVISOR_CLEARS

FROM_PAGE = {REQUEST_HEADER: "1"}


async def sign_in(rig: Any, token: str, headers: dict[str, str] | None = None) -> tuple[int, Any, str]:
    """POST /v1/session as the sign-in page does; the status, the reply and the Set-Cookie header."""
    sent = FROM_PAGE if headers is None else headers
    async with rig.client.post("/v1/session", json={"token": token}, headers=sent) as response:
        return response.status, await response.json(), response.headers.get("Set-Cookie", "")


def session_of(set_cookie: str) -> dict[str, str]:
    """The Cookie header a browser sends back for the Set-Cookie header."""
    morsel = SimpleCookie(set_cookie)[COOKIE]
    return {"Cookie": f"{COOKIE}={morsel.value}"}


def trail(tmp_path: Path) -> list[dict[str, Any]]:
    lines = b"".join(path.read_bytes() for path in sorted((tmp_path / "audit").glob("*.jsonl")))
    return [json.loads(line) for line in lines.splitlines()]


def test_a_sign_in_sets_an_httponly_strict_cookie_that_every_route_takes(tmp_path):
    async def scenario():
        async with api_rig(tmp_path) as rig:
            status, reply, set_cookie = await sign_in(rig, "dealer-token")
            assert status == 200, reply
            assert reply == {"operator": "D-1", "role": "dealer", "expires_in": 12 * 3600}
            morsel = SimpleCookie(set_cookie)[COOKIE]
            assert morsel["httponly"] and morsel["samesite"] == "Strict" and morsel["path"] == "/"
            assert not morsel["secure"], "plain HTTP on loopback: Secure only over TLS"
            assert "dealer-token" not in set_cookie and len(morsel.value) >= 40
            cookie = session_of(set_cookie)
            betting = await rig.betting()  # the table has shuffled and opened betting
            status, state = await rig.get("/v1/table", cookie)
            assert status == 200 and state["prompt"]["id"] == betting
            status, me = await rig.get("/v1/session", cookie)
            assert (status, me["operator"], me["role"]) == (200, "D-1", "dealer")
            assert 0 < me["expires_in"] <= 12 * 3600
            wager = {"prompt": betting, "seat": 1, "blackjack": 500}
            status, refused = await rig.post("/v1/wagers", wager, headers=cookie)
            assert status == 403 and REQUEST_HEADER in refused["error"], "a cookie alone changes nothing"
            status, taken = await rig.post("/v1/wagers", wager, headers={**cookie, **FROM_PAGE})
            assert (status, taken["by"]) == (200, "D-1"), taken
            assert (await rig.get("/v1/session", {"Authorization": "Bearer floor-token"}))[1] == {
                "operator": "FLOOR-7",
                "role": "supervisor",
                "expires_in": None,
            }

    run(scenario())


def test_a_wrong_token_or_another_sites_page_is_refused_and_audited(tmp_path):
    async def scenario():
        async with api_rig(tmp_path) as rig:
            status, reply, set_cookie = await sign_in(rig, "not-a-token-of-ours-at-all")
            assert (status, reply["error"], set_cookie) == (401, "unknown token", "")
            status, reply, set_cookie = await sign_in(rig, "dealer-token", headers={})
            assert status == 403 and REQUEST_HEADER in reply["error"] and not set_cookie
            evil = {**FROM_PAGE, "Origin": "http://evil.example"}
            status, reply, set_cookie = await sign_in(rig, "dealer-token", headers=evil)
            assert status == 403 and "evil.example" in reply["error"] and not set_cookie
            status, reply, _ = await sign_in(rig, "")
            assert status == 400 and "token" in reply["error"]

    run(scenario())
    records = trail(tmp_path)
    assert not any("not-a-token-of-ours" in json.dumps(r) for r in records), "never the token"
    refused = [r["fields"] for r in records if r["kind"] == "access_refused"]
    assert [(r["request"], r["status"], r["operator"], r["clause"]) for r in refused] == [
        ("POST /v1/session", 401, None, ACCESS_LOGGED),
        ("POST /v1/session", 403, None, ACCESS_LOGGED),
        ("POST /v1/session", 403, None, ACCESS_LOGGED),
    ]


def test_a_signed_out_session_is_refused_and_sign_in_and_out_are_audited(tmp_path):
    async def scenario():
        async with api_rig(tmp_path) as rig:
            cookie = session_of((await sign_in(rig, "dealer-token"))[2])
            async with rig.client.delete("/v1/session", headers=cookie) as response:
                assert response.status == 403, "signing out is a change: it needs the request header"
            async with rig.client.delete("/v1/session", headers={**cookie, **FROM_PAGE}) as response:
                assert response.status == 200 and await response.json() == {"signed_out": "D-1"}
                cleared = SimpleCookie(response.headers["Set-Cookie"])[COOKIE]
                assert cleared.value == "" and cleared["max-age"] == "0"
            status, reply = await rig.get("/v1/table", cookie)
            assert status == 401 and "sign in again" in reply["error"]

    run(scenario())
    records = trail(tmp_path)
    actions = [
        (r["fields"]["action"], r["fields"]["operator"])
        for r in records
        if r["kind"] == "operator_action"
    ]
    assert actions == [("sign_in", "D-1"), ("sign_out", "D-1")]
    refused = [r["fields"] for r in records if r["kind"] == "access_refused"]
    assert [(r["request"], r["status"]) for r in refused] == [
        ("DELETE /v1/session", 403),
        ("GET /v1/table", 401),
    ]


def test_a_dealers_session_is_refused_on_a_supervisors_route(tmp_path):
    async def scenario():
        async with api_rig(tmp_path) as rig:
            cookie = session_of((await sign_in(rig, "dealer-token"))[2])
            status, reply = await rig.post("/v1/table/close", {}, headers={**cookie, **FROM_PAGE})
            assert (status, reply["clause"]) == (403, SUPERVISOR_CLEARS.clause)
            assert (await rig.get("/v1/table", cookie))[1]["open"]
            floor = session_of((await sign_in(rig, "floor-token"))[2])
            assert (await rig.post("/v1/table/close", {}, headers={**floor, **FROM_PAGE}))[0] == 200

    run(scenario())


@pytest.mark.parametrize("origin", ["own", "http://evil.example", None])
def test_the_event_stream_takes_the_session_only_from_the_services_own_origin(tmp_path, origin):
    async def scenario():
        async with api_rig(tmp_path) as rig:
            cookie = session_of((await sign_in(rig, "dealer-token"))[2])
            own = f"http://{rig.client.host}:{rig.client.port}"
            headers = cookie | ({} if origin is None else {"Origin": own if origin == "own" else origin})
            if origin == "own":
                async with rig.client.ws_connect("/v1/events", headers=headers) as ws:
                    await rig.post("/v1/table/close", {}, headers={"Authorization": "Bearer floor-token"})
                    message = await ws.receive_json(timeout=10)
                    assert message["type"] in ("prompt", "table_record", "device_event"), message
                return
            with pytest.raises(aiohttp.WSServerHandshakeError) as refused:
                await rig.client.ws_connect("/v1/events", headers=headers)
            assert refused.value.status == 403

    run(scenario())


async def stream(rig: Any, cookie: dict[str, str]) -> aiohttp.ClientWebSocketResponse:
    """The event stream as a page of the service opens it: the session cookie and its own Origin."""
    own = f"http://{rig.client.host}:{rig.client.port}"
    return await rig.client.ws_connect("/v1/events", headers={**cookie, "Origin": own})


async def ended(ws: aiohttp.ClientWebSocketResponse, timeout: float = 10) -> list[Any]:
    """The messages the stream still sent before it was closed, once it is; the close frame checked:
    1008, the session ended, and why."""
    sent = []
    async with asyncio.timeout(timeout):
        while (message := await ws.receive()).type is aiohttp.WSMsgType.TEXT:
            sent.append(json.loads(message.data))
    assert (message.type, message.data, message.extra) == (aiohttp.WSMsgType.CLOSE, 1008, SESSION_ENDED)
    return sent


def test_signing_out_closes_every_stream_the_session_opened(tmp_path):
    """Decision 0033: a signed-out session is worthless at once, its open streams (two tabs)
    included; a stream opened with a bearer token goes on (before, the streams went on hearing the
    table after sign-out: found in review)."""

    async def scenario():
        async with api_rig(tmp_path) as rig:
            cookie = session_of((await sign_in(rig, "dealer-token"))[2])
            tabs = [await stream(rig, cookie), await stream(rig, cookie)]
            floor = {"Authorization": "Bearer floor-token"}
            program = await rig.client.ws_connect("/v1/events", headers=floor)
            async with rig.client.delete("/v1/session", headers={**cookie, **FROM_PAGE}) as response:
                assert response.status == 200
            for tab in tabs:
                await ended(tab)
            await rig.post("/v1/table/close", {}, headers=floor)
            assert (await program.receive_json(timeout=10))["type"], "the bearer token's stream goes on"
            await program.close()

    run(scenario())


def test_an_expired_sessions_stream_is_closed_before_its_next_message(tmp_path):
    """Expiry is checked before each message is sent: a stream whose session expired sends nothing
    more and is closed (1008)."""
    now = [1000.0]
    sessions = Sessions(lifetime=60, clock=lambda: now[0])

    async def scenario():
        async with api_rig(tmp_path, sessions=sessions) as rig:
            await rig.betting()
            cookie = session_of((await sign_in(rig, "dealer-token"))[2])
            ws = await stream(rig, cookie)
            now[0] += 60
            await rig.post("/v1/table/close", {}, headers={"Authorization": "Bearer floor-token"})
            assert await ended(ws) == [], "nothing sent after the expiry"

    run(scenario())


def test_an_idle_stream_is_closed_when_its_session_expires(tmp_path):
    async def scenario():
        async with api_rig(tmp_path, sessions=Sessions(lifetime=2.0)) as rig:
            await rig.betting()
            ws = await stream(rig, session_of((await sign_in(rig, "dealer-token"))[2]))
            await ended(ws, timeout=5)

    run(scenario())


def test_signing_in_again_ends_the_session_the_browser_held(tmp_path):
    """A sign-in over a session (another operator at the same screen) ends that session and its
    streams, audited as its operator's sign-out, rather than leaving it valid for the rest of its
    12 hours."""

    async def scenario():
        async with api_rig(tmp_path) as rig:
            dealer = session_of((await sign_in(rig, "dealer-token"))[2])
            ws = await stream(rig, dealer)
            status, reply, set_cookie = await sign_in(rig, "floor-token", headers={**dealer, **FROM_PAGE})
            assert (status, reply["operator"]) == (200, "FLOOR-7")
            await ended(ws)
            rig.client.session.cookie_jar.clear()  # the client's jar would send the new cookie too
            assert (await rig.get("/v1/table", dealer))[0] == 401
            assert (await rig.get("/v1/session", session_of(set_cookie)))[1]["operator"] == "FLOOR-7"

    run(scenario())
    actions = [r["fields"] for r in trail(tmp_path) if r["kind"] == "operator_action"]
    assert [(a["action"], a["operator"], a.get("replaced_by")) for a in actions] == [
        ("sign_in", "D-1", None),
        ("sign_out", "D-1", "FLOOR-7"),
        ("sign_in", "FLOOR-7", None),
    ]


def test_a_dead_session_asking_again_is_recorded_once_and_counted(tmp_path):
    """A page left open across a restart asks with its dead session until it is told to sign in:
    one access record for that session, the repeats counted in the next record written, so that
    they cannot use up the minute's ACCESS_RECORDS (before, each retry was a record: found in
    review)."""

    async def scenario():
        async with api_rig(tmp_path) as rig:
            dead = {"Cookie": f"{COOKIE}=a-session-of-the-service-before-its-restart"}
            for _ in range(ACCESS_RECORDS + 5):
                assert (await rig.get("/v1/session", dead))[0] == 401
            with pytest.raises(aiohttp.WSServerHandshakeError):
                await stream(rig, dead)
            assert (await rig.get("/v1/table", {"Authorization": "Bearer not-a-token-of-ours"}))[0] == 401

    run(scenario())
    refused = [r["fields"] for r in trail(tmp_path) if r["kind"] == "access_refused"]
    assert [(r["request"], r["status"], r["unrecorded"]) for r in refused] == [
        ("GET /v1/session", 401, 0),
        ("GET /v1/table", 401, ACCESS_RECORDS + 5),
    ]
