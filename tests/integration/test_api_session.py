"""Browser sessions over the real simulated table (docs/decisions/0033-browser-sign-in.md): a sign-in
with the role's token sets an HttpOnly, SameSite=Strict cookie that every route takes in place of the
bearer token; a wrong token, a signed-out or expired session, another site's page and a dealer on a
supervisor's route are refused, and each sign-in, sign-out and refusal is in the audit trail."""

from __future__ import annotations

import json
from http.cookies import SimpleCookie
from pathlib import Path
from typing import Any

import aiohttp
import pytest

from croupier.api.sessions import COOKIE, REQUEST_HEADER
from croupier.service.journal import ACCESS_LOGGED
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
