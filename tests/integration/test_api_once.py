"""Every API command takes effect exactly once (decision 0022): an answer names its prompt, a repeat
changes nothing and is given the first reply, an Idempotency-Key is kept across a restart; a refused
wager changes nothing; bodies are typed; the posted table limits; garbage JSON is a JSON 400."""

from __future__ import annotations

import asyncio
import contextlib
import json
from pathlib import Path
from typing import Any

import pytest

from croupier.api.asyncapi import COMMITTED as ASYNCAPI
from croupier.api.asyncapi import document as asyncapi
from croupier.api.openapi import document as openapi
from croupier.config.limits import TABLE_LIMITS, Limit
from croupier.screen.prompts import ONCE
from games.free_bet_blackjack import clauses as fbb_clauses
from tests.integration.test_api import DEALER, SUPERVISOR, Rig, api_rig
from tests.links import run
from tests.screen import answer_for

GAME = "free-bet-blackjack"


async def until_decision(rig: Rig, *, hit: bool = False) -> dict[str, Any]:
    """Rounds at seat 1 until it is asked to decide (with ``hit`` allowed); that prompt."""
    async with asyncio.timeout(60):
        while True:
            state = await rig.state()
            prompt = state["prompt"]
            if prompt is None:
                await asyncio.sleep(0.01)
            elif prompt["kind"] == "wagers":
                await rig.ok("/v1/wagers", {"prompt": prompt["id"], "seat": 1, "blackjack": 1000})
                await rig.ok("/v1/rounds/no-more-bets", {"prompt": prompt["id"]})
            elif prompt["kind"] == "decision" and (not hit or "hit" in prompt["legal"]):
                return prompt
            elif prompt["kind"] == "decision":
                await rig.ok("/v1/decisions", {"prompt": prompt["id"], "seat": 1, "action": "stand"})
            else:
                await rig.ok(*answer_for(prompt))


async def received(ws: Any) -> list[dict[str, Any]]:
    """The round records the stream sends until it is quiet for half a second."""
    records = []
    with contextlib.suppress(TimeoutError):
        while True:
            message = await ws.receive_json(timeout=0.5)
            if message["type"] == "round_record":
                records.append(message["record"])
    return records


def audited(tmp_path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for path in sorted((tmp_path / "audit").glob("*.jsonl")) for line in path.open()]


def test_the_same_hit_sent_twice_deals_one_card_and_gives_the_first_reply(tmp_path):
    """672a.7(h): a player's hit is one card. The screen's retry of the same answer (sent again, or
    twice at once) changes nothing and is given the first reply."""

    async def scenario():
        async with api_rig(tmp_path) as rig:
            prompt = await until_decision(rig, hit=True)
            async with rig.client.ws_connect("/v1/events", headers=DEALER) as ws:
                hit = {"prompt": prompt["id"], "seat": 1, "action": "hit"}
                first, second = await asyncio.gather(
                    rig.post("/v1/decisions", hit), rig.post("/v1/decisions", hit)
                )
                assert first[0] == second[0] == 200 and first[1] == second[1], (first, second)
                assert first[1]["answered"] == prompt["id"] and first[1]["taken"] == "decision"
                async with asyncio.timeout(10):  # the card dealt, the table asks again
                    while (await rig.state())["prompt"] is None:
                        await asyncio.sleep(0.01)
                third = await rig.post("/v1/decisions", hit)
                assert third == first, "a repeat after the answer was taken is given the first reply"
                records = await received(ws)
            decisions = [r["action"] for r in records if r["kind"] == "decision"]
            cards = [r for r in records if r["kind"] == "card" and r["place"].startswith("seat 1")]
            assert decisions == ["hit"] and len(cards) == 1, ("one card for one hit", records)

    run(scenario())


def test_an_answer_to_a_prompt_no_longer_shown_is_refused_naming_the_one_shown(tmp_path):
    """Decision 0022: an answer names its prompt; one naming a prompt the screen does not show (an
    old one, or one never shown) is a 409 whose body carries the prompt shown."""

    async def scenario():
        async with api_rig(tmp_path) as rig:
            betting = await rig.betting()
            for stale in (betting + 1, 999):
                status, body = await rig.post("/v1/wagers", {"prompt": stale, "seat": 1, "blackjack": 500})
                assert status == 409 and body["clause"] == ONCE.clause, body
                assert body["prompt"]["id"] == betting and f"prompt {betting}" in body["error"]
            status, body = await rig.post("/v1/wagers", {"seat": 1, "blackjack": 500})
            assert status == 400 and "'prompt'" in body["error"]
            prompt = await until_decision(rig)
            played = (await rig.state())["rounds"]  # a round with a dealer Blackjack asks nobody
            stood = await rig.ok("/v1/decisions", {"prompt": prompt["id"], "seat": 1, "action": "stand"})
            status, body = await rig.post(
                "/v1/decisions", {"prompt": prompt["id"], "seat": 1, "action": "hit"}
            )
            assert (status, body) == (200, stood), "the first reply, not a second decision"
            assert (await rig.state())["rounds"] == played

    run(scenario())


def test_a_wager_sent_twice_with_one_idempotency_key_is_recorded_once(tmp_path):
    """672a.7(e): the wagers are recorded as placed; the screen's retry with the same Idempotency-Key
    is one wager, and the key used for another body is refused naming the key."""

    async def scenario():
        async with api_rig(tmp_path) as rig:
            async with rig.client.ws_connect("/v1/events", headers=DEALER) as ws:
                betting = await rig.betting()
                keyed = {**DEALER, "Idempotency-Key": "wager-7f3a"}
                wager = {"prompt": betting, "seat": 2, "blackjack": 2500}
                replies = [await rig.post("/v1/wagers", wager, keyed) for _ in range(2)]
                assert replies[0] == replies[1] and replies[0][0] == 200
                status, body = await rig.post("/v1/wagers", {**wager, "blackjack": 5000}, keyed)
                assert status == 409 and "'wager-7f3a'" in body["error"], body
                await rig.ok("/v1/rounds/no-more-bets", {"prompt": betting})
                wagers = []
                async with asyncio.timeout(10):
                    while (message := await ws.receive_json())["type"] != "round_record" or (
                        message["record"]["kind"] != "deal_started"
                    ):
                        if message["type"] == "round_record" and message["record"]["kind"] == "wager":
                            wagers.append(message["record"])
            assert [(w["seat"], w["amount"]) for w in wagers] == [(2, 2500)], wagers

    run(scenario())


def in_play(records: list[dict[str, Any]]) -> dict[int, dict[str, int]]:
    """Each seat's wagers in play by the trail's rule (docs/audit.md §4): a ``wager`` record adds the
    seat's wager of its name, a ``wager_withdrawn`` record takes it back."""
    seats: dict[int, dict[str, int]] = {}
    for r in records:
        if r["kind"] == "wager":
            seats.setdefault(r["seat"], {})[r["wager"]] = r["amount"]
        elif r["kind"] == "wager_withdrawn":
            del seats[r["seat"]][r["wager"]]
    return seats


def test_a_seat_wagered_again_is_recorded_with_its_earlier_wagers_withdrawn(tmp_path):
    """672a.7(e): seat 1's Blackjack and Push 22 Wagers placed again as a Blackjack Wager alone, before
    the deal: GET /v1/round and the trail show the earlier two withdrawn, so the seat's wagers in play
    are the second."""

    async def scenario():
        async with api_rig(tmp_path) as rig:
            betting = await rig.betting()
            await rig.ok("/v1/wagers", {"prompt": betting, "seat": 1, "blackjack": 1000, "push22": 500})
            await rig.ok("/v1/wagers", {"prompt": betting, "seat": 1, "blackjack": 2000})
            status, current = await rig.get("/v1/round")
            assert status == 200
            kinds = [(r["kind"], r.get("wager"), r.get("amount")) for r in current["records"]]
            assert kinds[-3:] == [
                ("wager_withdrawn", "blackjack", 1000),
                ("wager_withdrawn", "push22", 500),
                ("wager", "blackjack", 2000),
            ]
            assert in_play(current["records"]) == {1: {"blackjack": 2000}}
            await rig.ok("/v1/rounds/no-more-bets", {"prompt": betting})
        trail = [{**r["fields"], "kind": r["kind"]} for r in audited(tmp_path) if r["round"] == 1]
        assert in_play(trail) == {1: {"blackjack": 2000}}

    run(scenario())


def test_an_idempotency_key_is_kept_across_a_restart(tmp_path):
    """Decision 0022: a supervisor's close sent again after the service restarted is given the first
    reply and is audited once."""

    async def scenario():
        keyed = {**SUPERVISOR, "Idempotency-Key": "close-2026-12-01"}
        async with api_rig(tmp_path) as rig:
            first = await rig.post("/v1/table/close", None, keyed)
            assert first[0] == 200
        async with api_rig(tmp_path) as rig:
            async with rig.client.post("/v1/table/close", headers=keyed, json=None) as response:
                again = (response.status, await response.json())
                assert response.headers.get("Idempotent-Replay") == "true"
            assert again == first
            status, body = await rig.post("/v1/table/open", None, keyed)
            assert (
                status == 409
                and "'close-2026-12-01'" in body["error"]
                and "POST /v1/table/close" in body["error"]
            )
        closes = [r for r in audited(tmp_path) if r["kind"] == "operator_action"]
        assert [r["fields"]["action"] for r in closes] == ["table_close"]

    run(scenario())


@pytest.mark.parametrize(
    ("wager", "rule"),
    [
        ({"seat": 9, "blackjack": 500}, fbb_clauses.SIX_POSITIONS),
        ({"seat": 2, "blackjack": 0, "push22": 500}, fbb_clauses.PUSH_22_NEEDS_BLACKJACK_WAGER),
    ],
    ids=["no-betting-position", "push-22-without-a-blackjack-wager"],
)
def test_a_refused_wager_begins_no_round_and_leaves_the_dealer_change_open(tmp_path, wager, rule):
    """672a.2, 672a.7(e)(1): a wager the game refuses — a seat that is no betting position, a Push
    22 Wager without a Blackjack Wager — is refused (409) by the game's own check before a round
    begins: no round number is taken, no round_began is sent, and a dealer change between rounds
    is still taken."""

    async def scenario():
        async with api_rig(tmp_path) as rig, rig.client.ws_connect("/v1/events", headers=DEALER) as ws:
            betting = await rig.betting()
            status, body = await rig.post("/v1/wagers", {"prompt": betting, **wager})
            assert status == 409 and body["clause"] == rule.clause, body
            await asyncio.sleep(0.2)
            state = await rig.state()
            assert (state["rounds"], state["round_in_progress"]) == (0, False)
            assert await rig.ok("/v1/table/dealer-change", {"dealer": "D-2"}) == {"dealer": "D-2"}
            kinds = []
            with contextlib.suppress(TimeoutError):
                while True:
                    kinds.append((await ws.receive_json(timeout=0.3))["type"])
        assert "round_began" not in kinds and "round_record" not in kinds, kinds

    run(scenario())


def test_bodies_are_typed_a_wrong_type_or_an_unknown_field_is_a_400_naming_it(tmp_path):
    """A field of the wrong JSON type or a field the model does not have is refused (400) naming the
    field, before the table sees it."""

    async def scenario():
        async with api_rig(tmp_path) as rig:
            betting = await rig.betting()
            status, body = await rig.post("/v1/wagers", {"prompt": betting, "seat": "1", "blackjack": 500})
            assert status == 400 and "'seat'" in body["error"], body
            prompt = await until_decision(rig)
            status, body = await rig.post(
                "/v1/decisions", {"prompt": prompt["id"], "seat": "1", "action": "stand"}
            )
            assert status == 400 and "'seat'" in body["error"], body
            extra = {"prompt": prompt["id"], "seat": 1, "action": "stand", "extra": 1}
            status, body = await rig.post("/v1/decisions", extra)
            assert status == 400 and "'extra'" in body["error"], body
            status, body = await rig.post("/v1/decisions", {**extra, "extra": None, "seat": True})
            assert status == 400, body
            assert (await rig.state())["prompt"]["id"] == prompt["id"], "nothing was taken"

    run(scenario())


def test_a_wager_outside_the_posted_table_limits_is_refused_naming_the_limit(tmp_path):
    """Decision 0022: a wager below the posted minimum or above the posted maximum for its kind is
    refused (409) naming the limit; within them it is taken."""

    async def scenario():
        limits = {"blackjack": Limit(500, 50_000), "push22": Limit(100, 10_000)}
        async with api_rig(tmp_path, limits=limits) as rig:
            betting = await rig.betting()
            for wager, named in (
                ({"blackjack": 10**38}, "limits.blackjack.max"),
                ({"blackjack": 499}, "limits.blackjack.min"),
                ({"blackjack": 500, "push22": 10_001}, "limits.push22.max"),
            ):
                status, body = await rig.post("/v1/wagers", {"prompt": betting, "seat": 1, **wager})
                assert status == 409 and body["clause"] == TABLE_LIMITS.clause and named in body["error"], (
                    body
                )
            assert (await rig.state())["rounds"] == 0, "no round begun"
            await rig.ok("/v1/wagers", {"prompt": betting, "seat": 1, "blackjack": 50_000, "push22": 100})

    run(scenario())


def test_deeply_nested_or_oversized_json_is_a_json_400(tmp_path):
    """Garbage JSON (nested 100,000 deep, or larger than the API reads) is refused with a JSON 400,
    never a plain 500, and changes nothing."""

    async def scenario():
        async with api_rig(tmp_path) as rig:
            nested = ('{"seat": ' * 2000 + "1" + "}" * 2000, "[" * 5000 + "]" * 5000)
            for raw in (
                *nested,
                "[" * 100_000 + "]" * 100_000,
                json.dumps({"seat": 1, "pad": "x" * 100_000}),
            ):
                for route in ("/v1/wagers", "/v1/table/dealer-change"):
                    for headers in (DEALER, {**DEALER, "Idempotency-Key": "k-1"}):
                        status, body = await rig.post(route, data=raw, headers=headers)
                        assert status == 400 and body["error"], (route, body)
            assert (await rig.state())["rounds"] == 0

    run(scenario())


def test_the_served_asyncapi_and_openapi_documents_describe_every_message_and_operation(tmp_path):
    async def scenario():
        async with api_rig(tmp_path) as rig, rig.client.get("/asyncapi.json") as response:
            assert response.status == 200
            served = await response.json()
        assert served == json.loads(ASYNCAPI.read_text()) == asyncapi(), "run python -m croupier.api.asyncapi"
        assert set(served["components"]["messages"]) == {  # every "type" the stream publishes
            "device_event",
            "round_began",
            "round_record",
            "round_ended",
            "table_record",
            "prompt",
            "dealer_step",
            "opening",
        }
        document = openapi()
        for path, methods in document["paths"].items():
            for method, operation in methods.items():
                assert operation["operationId"], (method, path)
                if method == "post" and not path.endswith(("/clear", "/open", "/close", "/verify")):
                    assert "requestBody" in operation, path
                for status, response in operation["responses"].items():
                    if status.startswith("4") or status.startswith("5"):
                        assert response["content"]["application/json"]["schema"] == {
                            "$ref": "#/components/schemas/Error"
                        }
        served_routes = {
            (route.method.lower(), route.resource.canonical)
            for route in rig.client.server.app.router.routes()
            if route.method != "HEAD" and route.resource is not None
        }
        documented = {(method, path) for path, methods in document["paths"].items() for method in methods}
        assert served_routes == documented, served_routes ^ documented
        ids = [op["operationId"] for methods in document["paths"].values() for op in methods.values()]
        assert len(ids) == len(set(ids))
        wager = document["paths"]["/v1/wagers"]["post"]["requestBody"]["content"]["application/json"][
            "schema"
        ]
        assert len(wager["oneOf"]) == 4, "one wager model per game"

    run(scenario())
