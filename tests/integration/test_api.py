"""The local API over the real simulated table: tokens, roles, malformed requests, a fault cleared
by a supervisor, the secrecy of face-down cards, and the served OpenAPI document."""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import re
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

from aiohttp.test_utils import TestClient, TestServer

from croupier.api.app import make_app
from croupier.api.auth import Tokens
from croupier.api.openapi import COMMITTED, document
from croupier.players.free_bet_blackjack import BasicStrategyPlayers
from croupier.simulated import SimulatedTable, simulated_free_bet_blackjack
from devices.faults import SUPERVISOR_CLEARS, Operator, Role
from firmware_sim.world import SHOE
from tests.links import FAST, run

DEALER = {"Authorization": "Bearer dealer-token"}
SUPERVISOR = {"Authorization": "Bearer floor-token"}
TOKENS = Tokens(
    {"dealer-token": Operator("D-1", Role.DEALER), "floor-token": Operator("FLOOR-7", Role.SUPERVISOR)}
)
CARD_TOKEN = re.compile(r"\b[A2-9TJQK][cdhs]\b")


@dataclass
class Rig:
    client: TestClient
    sim: SimulatedTable

    async def get(self, path: str, headers: dict[str, str] = DEALER) -> tuple[int, Any]:
        async with self.client.get(path, headers=headers) as response:
            return response.status, await response.json()

    async def post(
        self, path: str, body: object = None, headers: dict[str, str] = DEALER, **kw: Any
    ) -> tuple[int, Any]:
        async with self.client.post(path, json=body, headers=headers, **kw) as response:
            return response.status, await response.json()


@contextlib.asynccontextmanager
async def api_rig() -> AsyncIterator[Rig]:
    async with simulated_free_bet_blackjack(name="BJ-API", settings=FAST) as sim:
        app = make_app(sim.table, TOKENS, BasicStrategyPlayers(random.Random(6)))
        async with TestClient(TestServer(app)) as client:
            yield Rig(client, sim)


def test_no_token_or_a_wrong_token_is_401_and_says_so():
    async def scenario():
        async with api_rig() as rig:
            for headers in ({}, {"Authorization": "Bearer nope"}, {"Authorization": "Basic dealer-token"}):
                status, body = await rig.get("/v1/table", headers)
                assert status == 401, headers
                assert "token" in body["error"] and body["clause"] is None
            status, _ = await rig.post("/v1/rounds/play", headers={})
            assert status == 401
            async with rig.client.get("/v1/events") as response:
                assert response.status == 401
            assert rig.sim.table.rounds == 0, "nothing was played"

    run(scenario())


def test_malformed_bodies_are_400_naming_the_field_and_change_nothing():
    async def scenario():
        async with api_rig() as rig:
            status, body = await rig.post("/v1/table/dealer-change", data="{not json", headers=DEALER)
            assert status == 400 and "not valid JSON" in body["error"]
            for bad in ({}, {"dealer": 5}, {"dealer": ""}, ["dealer"]):
                status, body = await rig.post("/v1/table/dealer-change", bad)
                assert status == 400 and "'dealer'" in body["error"], bad
            status, body = await rig.post("/v1/rounds/held/resolve", {"resolution": "maybe"}, SUPERVISOR)
            assert status == 400 and "'resolution'" in body["error"] and "void" in body["error"]
            assert rig.sim.table.dealer_on_duty == "D-1"
            status, body = await rig.post("/v1/rounds/held/resolve", {"resolution": "void"}, SUPERVISOR)
            assert status == 409 and "no round is held" in body["error"]
            status, body = await rig.post("/v1/table/dealer-change", {"dealer": "D-2"})
            assert (status, body) == (200, {"dealer": "D-2"})
            assert rig.sim.table.dealer_on_duty == "D-2"

    run(scenario())


def test_an_unknown_route_is_a_json_404():
    async def scenario():
        async with api_rig() as rig:
            status, body = await rig.get("/v1/nowhere")
            assert status == 404 and "/v1/nowhere" in body["error"]
            status, body = await rig.post("/v1/faults/JAM/clear", headers=SUPERVISOR)
            assert status == 404 and "JAM is not latched" in body["error"]

    run(scenario())


def test_a_jammed_shoe_holds_the_round_until_a_supervisor_clears_it_through_the_api():
    async def scenario():
        async with api_rig() as rig:
            rig.sim.world.faults.stuck.add(SHOE)
            playing = asyncio.create_task(rig.post("/v1/rounds/play"))
            async with asyncio.timeout(10):
                while not (await rig.get("/v1/faults"))[1]["faults"]:
                    await asyncio.sleep(0.05)
            status, state = await rig.get("/v1/table")
            assert [f["code"] for f in state["faults"]] == ["JAM"] and state["round_in_progress"]
            for path in ("/v1/faults/JAM/clear", "/v1/rounds/held/resolve"):
                status, body = await rig.post(path, {"resolution": "void"})
                assert status == 403 and body["clause"] == SUPERVISOR_CLEARS.clause, path
            status, body = await rig.post("/v1/rounds/play")
            assert status == 409 and "already in play" in body["error"] and body["clause"]
            status, body = await rig.post("/v1/faults/JAM/clear", headers=SUPERVISOR)
            assert status == 409 and "JAM" in body["error"], "the device refuses while still jammed"
            assert not playing.done()
            rig.sim.world.faults.stuck.clear()
            status, body = await rig.post("/v1/faults/JAM/clear", headers=SUPERVISOR)
            assert (status, body["faults"], body["by"]) == (200, [], "FLOOR-7")
            status, played = await asyncio.wait_for(playing, 15)
            assert status == 200 and played["round"] == 1
            assert (await rig.get("/v1/table"))[1]["faults"] == []

    run(scenario())


def test_no_response_or_event_shows_a_face_down_card_before_it_is_turned_up():
    async def scenario():
        async with api_rig() as rig:
            async with rig.client.ws_connect("/v1/events", headers=DEALER) as ws:
                records: list[dict[str, Any]] = []
                for _ in range(3):
                    status, played = await rig.post("/v1/rounds/play")
                    assert status == 200
                    state = json.dumps((await rig.get("/v1/table"))[1])
                    assert not CARD_TOKEN.search(state), state
                    expected = len(played["records"])
                    got: list[dict[str, Any]] = []
                    while len(got) < expected:
                        message = await ws.receive_json(timeout=5)
                        if message["type"] == "round_record":
                            got.append(message["record"])
                        else:
                            assert message["type"] == "device_event"
                            assert not CARD_TOKEN.search(json.dumps(message)), message
                    assert got == played["records"]
                    records += got
            sealed = [r for r in records if r["kind"] == "card" and r["card"] is None]
            assert len(sealed) == 3, "one hole card a round, by its commitment only"
            for hole in sealed:
                assert len(str(hole["commitment"])) == 64
                revealed = [
                    r
                    for r in records
                    if r["kind"] == "hole_revealed" and r["commitment"] == hole["commitment"]
                ]
                assert len(revealed) == 1 and records.index(revealed[0]) > records.index(hole)
                before = records[: records.index(revealed[0])]
                assert all(r.get("commitment") != hole["commitment"] or r["card"] is None for r in before)

    run(scenario())


def test_the_served_openapi_document_is_the_committed_one():
    async def scenario():
        async with api_rig() as rig:
            async with rig.client.get("/openapi.json") as response:
                assert response.status == 200
                served = await response.json()
            assert served == json.loads(COMMITTED.read_text()), "run python -m croupier.api.openapi"
            assert served == document()
            assert set(served["paths"]) >= {"/v1/table", "/v1/faults/{code}/clear", "/v1/events"}

    run(scenario())
