"""The local API over the real simulated table: tokens, roles, malformed requests, a fault cleared
by a supervisor, the secrecy of face-down cards, and the served OpenAPI document."""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from aiohttp.test_utils import TestClient, TestServer

from croupier.api.app import ANSWERS, make_app
from croupier.api.auth import Tokens
from croupier.api.openapi import COMMITTED, document
from croupier.api.sessions import Sessions
from croupier.audit.writer import AuditTrail
from croupier.config.limits import Limits
from croupier.screen.prompts import NO_WAGER
from croupier.service.journal import ACCESS_LOGGED, ACCESS_RECORDS, TableJournal
from croupier.service.table_service import TableService
from croupier.state import TableState
from firmware_sim.world import SHOE
from simulator.players import table_options
from simulator.tables import SimulatedTable, simulated_table
from tests.links import FAST, run
from tests.screen import Screen, answer_for
from vocabulary.operators import SUPERVISOR_CLEARS, Operator, Role

DEALER = {"Authorization": "Bearer dealer-token"}
SUPERVISOR = {"Authorization": "Bearer floor-token"}
TOKENS = Tokens(
    {"dealer-token": Operator("D-1", Role.DEALER), "floor-token": Operator("FLOOR-7", Role.SUPERVISOR)}
)
CARD_TOKEN = re.compile(r"\b[A2-9TJQK][cdhs]\b")


@dataclass
class Rig(Screen):
    sim: SimulatedTable[Any, Any] | None = None
    service: TableService | None = None


@contextlib.asynccontextmanager
async def api_rig(
    tmp_path: Path,
    game: str = "free-bet-blackjack",
    *,
    limits: Limits | None = None,
    sessions: Sessions | None = None,
    **options: Any,
) -> AsyncIterator[Rig]:
    """The game's simulated table in service, driven from the screen, its API on a real socket;
    ``limits``: the posted table limits; ``sessions``: the API's browser sessions. Its state
    database is kept in ``tmp_path`` across rigs."""
    async with simulated_table(game, name="API", settings=FAST, **options) as sim:
        with AuditTrail(tmp_path / "audit", "API") as trail, TableState(tmp_path / "state.db") as state:
            journal = TableJournal(trail, state, table="API", game=game)
            journal.keep(sim.table)
            cover = table_options(game, sim).get("cover")
            service = TableService(sim.table, journal, game=game, cover=cover, limits=limits)
            stop = asyncio.Event()
            serving = asyncio.create_task(service.serve(stop))
            try:
                async with TestClient(TestServer(make_app(service, TOKENS, sessions))) as client:
                    hands = sim.table.dealer._hands
                    counts = {"stub_count": "count_stub", "chip_count": "count_progressive_chips"}
                    yield Rig(client, DEALER, lambda kind: getattr(hands, counts[kind])(), sim, service)
            finally:
                stop.set()
                await asyncio.wait_for(serving, 20)


def test_no_token_or_a_wrong_token_is_401_and_says_so(tmp_path):
    async def scenario():
        async with api_rig(tmp_path) as rig:
            for headers in ({}, {"Authorization": "Bearer nope"}, {"Authorization": "Basic dealer-token"}):
                status, body = await rig.get("/v1/table", headers)
                assert status == 401, headers
                assert "token" in body["error"] and body["clause"] is None
            status, _ = await rig.post("/v1/wagers", {"seat": 1, "blackjack": 500}, headers={})
            assert status == 401
            async with rig.client.get("/v1/events") as response:
                assert response.status == 401
            assert rig.sim.table.rounds == 0, "nothing was played"

    run(scenario())


def test_461a_10_s_every_access_refused_is_an_access_record_without_the_token(tmp_path):
    """461a.10(s): a request refused for who sent it is an access record: no or an unknown token
    (401) with no operator, a dealer on a supervisor's route (403) naming the dealer; the token is
    never written. Past ACCESS_RECORDS a minute the refusals are counted in the next record instead
    (before, no refusal reached the trail: found in review)."""

    async def scenario():
        async with api_rig(tmp_path) as rig:
            assert (await rig.get("/v1/table", {"Authorization": "Bearer not-a-token-of-ours"}))[0] == 401
            assert (await rig.post("/v1/table/close", {}, headers=DEALER))[0] == 403
            for _ in range(ACCESS_RECORDS + 5):
                await rig.get("/v1/table", {})
            rig.service.journal._access_window -= 60.0  # a minute later
            await rig.get("/v1/table", {})

    run(scenario())
    lines = b"".join(path.read_bytes() for path in sorted((tmp_path / "audit").glob("*.jsonl")))
    assert b"not-a-token-of-ours" not in lines
    refused = [r["fields"] for r in map(json.loads, lines.splitlines()) if r["kind"] == "access_refused"]
    assert refused[0] == {
        "request": "GET /v1/table",
        "status": 401,
        "reason": "unknown token",
        "operator": None,
        "role": None,
        "unrecorded": 0,
        "clause": ACCESS_LOGGED,
    }
    assert (refused[1]["request"], refused[1]["status"], refused[1]["operator"], refused[1]["role"]) == (
        "POST /v1/table/close",
        403,
        "D-1",
        "dealer",
    )
    assert len(refused) == ACCESS_RECORDS + 1 and refused[-1]["unrecorded"] == 7


def test_malformed_bodies_are_400_naming_the_field_and_change_nothing(tmp_path):
    async def scenario():
        async with api_rig(tmp_path) as rig:
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


def test_an_unknown_route_is_a_json_404(tmp_path):
    async def scenario():
        async with api_rig(tmp_path) as rig:
            status, body = await rig.get("/v1/nowhere")
            assert status == 404 and "/v1/nowhere" in body["error"]
            status, body = await rig.post("/v1/faults/JAM/clear", headers=SUPERVISOR)
            assert status == 404 and "JAM is not latched" in body["error"]

    run(scenario())


def test_a_jammed_shoe_holds_the_round_until_a_supervisor_clears_it_through_the_api(tmp_path):
    async def scenario():
        async with api_rig(tmp_path) as rig:
            betting = await rig.betting()
            await rig.ok("/v1/wagers", {"prompt": betting, "seat": 2, "blackjack": 2500})
            rig.sim.world.faults.stuck.add(SHOE)
            await rig.ok("/v1/rounds/no-more-bets", {"prompt": betting})
            async with asyncio.timeout(10):
                while not (await rig.get("/v1/faults"))[1]["faults"]:
                    await asyncio.sleep(0.05)
            status, state = await rig.get("/v1/table")
            assert [f["code"] for f in state["faults"]] == ["JAM"] and state["round_in_progress"]
            for path in ("/v1/faults/JAM/clear", "/v1/rounds/held/resolve"):
                status, body = await rig.post(path, {"resolution": "void"})
                assert status == 403 and body["clause"] == SUPERVISOR_CLEARS.clause, path
            status, body = await rig.post("/v1/table/dealer-change", {"dealer": "D-2"})
            assert status == 409 and "a round is in play" in body["error"] and body["clause"]
            status, body = await rig.post("/v1/faults/JAM/clear", headers=SUPERVISOR)
            assert status == 409 and "JAM" in body["error"], "the device refuses while still jammed"
            rig.sim.world.faults.stuck.clear()
            status, body = await rig.post("/v1/faults/JAM/clear", headers=SUPERVISOR)
            assert (status, body["faults"], body["by"]) == (200, [], "FLOOR-7")
            async with asyncio.timeout(15):  # the round goes on; the screen answers what it asks
                while (state := await rig.state())["round_in_progress"]:
                    if state["prompt"] is not None and state["prompt"]["kind"] != "wagers":
                        await rig.ok(*answer_for(state["prompt"]))
                    await asyncio.sleep(0.01)
            assert state["rounds"] == 1 and state["faults"] == []

    run(scenario())


def test_no_response_or_event_shows_a_face_down_card_before_it_is_turned_up(tmp_path):
    """Secrecy over the API (the table state, each device's last error, the trail's head, the
    stream), and 672a.7(c): the burn of the batch loaded after the cover card is a
    ``table_record`` event carrying its reason and clause, never the burn card's face."""

    async def scenario():
        async with api_rig(tmp_path, cover_depth=20) as rig:  # the cover card within the first rounds
            async with rig.client.ws_connect("/v1/events", headers=DEALER) as ws:
                records: list[dict[str, Any]] = []
                device_events: list[str] = []
                table_records: list[dict[str, Any]] = []
                for _ in range(3):
                    played = asyncio.create_task(rig.play_round("free-bet-blackjack"))
                    prompts = []
                    while not played.done():
                        state = await rig.state()
                        prompts.append(state.pop("prompt"))
                        assert not CARD_TOKEN.search(json.dumps(state)), state
                        for path in ("/v1/devices", "/v1/audit"):  # the supervisor's console's too
                            shown = (await rig.get(path))[1]
                            assert not CARD_TOKEN.search(json.dumps(shown)), shown
                        await asyncio.sleep(0.005)
                    await played
                    while True:
                        message = await ws.receive_json(timeout=5)
                        if message["type"] == "round_ended":
                            break
                        if message["type"] == "round_record":
                            records.append(message["record"])
                        elif message["type"] == "table_record":
                            table_records.append(message)
                        elif message["type"] == "device_event":
                            assert not CARD_TOKEN.search(json.dumps(message)), message
                            device_events.append(message["event"])
                    face_up = {(r["place"], r["card"]) for r in records if r["kind"] == "card" and r["card"]}
                    for prompt in filter(None, prompts):  # a prompt shows face-up cards only
                        shown = [("dealer", prompt.get("dealer_up"))] if "dealer_up" in prompt else []
                        shown += [(prompt["hand"], card) for card in prompt.get("cards", [])]
                        assert set(shown) <= face_up, prompt
                async with asyncio.timeout(10):  # the shoe change after the cover card's round ends
                    while "BatchDelivered" not in device_events:
                        message = await ws.receive_json()
                        if message["type"] == "device_event":
                            assert not CARD_TOKEN.search(json.dumps(message)), message
                            device_events.append(message["event"])
                async with asyncio.timeout(10):  # 672a.7(c): the new batch's burn, before the next bets
                    while not table_records:
                        if (message := await ws.receive_json())["type"] == "table_record":
                            table_records.append(message)
                burn = table_records[0]
                assert (burn["kind"], burn["reason"], burn["clause"]) == ("burn", "batch", "672a.7(c)")
                assert not CARD_TOKEN.search(json.dumps(burn)), "never the burn card's face"
            assert {"CoverCardReached", "BatchDelivered"} <= set(device_events), "device events were checked"
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


def test_a_jackpot_holds_betting_until_a_supervisors_keyed_reset(tmp_path):
    """605a.7(a): a hit freezes its level (jackpot lock) and betting opens again only after the
    keyed reset, which only a supervisor turns and the controller checks."""

    def with_progressive(seat: int) -> dict[str, int]:
        return {"seat": seat, "ante": 1000, "super_bonus": 1000, "progressive": 100}

    async def scenario():
        async with api_rig(tmp_path, "crazy-4-poker") as rig:
            async with asyncio.timeout(60):
                while not (state := await rig.state())["progressive"]["jackpot_locked"]:
                    await rig.play_round("crazy-4-poker", wagers=with_progressive)
            (level, *_) = state["progressive"]["jackpot_locked"]
            frozen = {shown["level"]: shown for shown in (await rig.get("/v1/progressive"))[1]["levels"]}
            won = frozen[level]
            assert won["frozen"] and won["hits"] >= 1 and won["win_seat"] in (1, 2, 3), won
            assert won["win_cents"] >= won["reset_cents"] and won["value_cents"] == won["reset_cents"], won
            await asyncio.sleep(0.1)
            assert (await rig.state())["prompt"] is None, "no betting while the level is frozen"
            path = f"/v1/progressive/levels/{level}/reset"
            status, body = await rig.post(path, {"key": "PROG-KEY-1"})
            assert status == 403 and body["clause"] == SUPERVISOR_CLEARS.clause
            status, body = await rig.post(path, {"key": "not-the-key"}, SUPERVISOR)
            assert status == 409, body
            status, body = await rig.post(path, {}, SUPERVISOR)
            assert status == 400 and "key" in body["error"]
            key = rig.sim.devices["progressive"].call(lambda engine: engine.personality.reset_key)
            for frozen in state["progressive"]["jackpot_locked"]:  # a round may freeze two levels
                path = f"/v1/progressive/levels/{frozen}/reset"
                assert (await rig.post(path, {"key": key}, SUPERVISOR))[0] == 200
            state = await rig.wait_for("wagers")
            assert state["progressive"]["jackpot_locked"] == []
            reset = {shown["level"]: shown for shown in (await rig.get("/v1/progressive"))[1]["levels"]}
            after = reset[level]
            assert (after["frozen"], after["win_seat"], after["win_cents"]) == (False, None, None)
            assert after["hits"] == won["hits"]

    run(scenario(), timeout=90)


def test_no_more_bets_before_any_wager_is_refused_and_the_table_goes_on(tmp_path):
    """672a.7(e): the deal follows the wagers; "no more bets" with none taken is refused with its
    clause, nothing begins, and the next round is played as usual."""

    async def scenario():
        async with api_rig(tmp_path) as rig:
            betting = await rig.betting()
            status, body = await rig.post("/v1/rounds/no-more-bets", {"prompt": betting})
            assert status == 409 and body["clause"] == NO_WAGER.clause
            state = await rig.state()
            assert state["rounds"] == 0 and state["prompt"]["kind"] == "wagers"
            assert await rig.play_round("free-bet-blackjack") == 1

    run(scenario())


def test_over_under_screen_asks_every_election_before_any_additional_card(tmp_path):
    """686a.7(f): at Over/Under the screen shows one election prompt per seat, clockwise, and the
    table deals no additional card until the last is keyed; a seat keyed out of turn is refused with
    (f). Then each player's two cards (686a.7(i)), settled and racked before the next (686a.7(j))."""

    async def scenario():
        async with api_rig(tmp_path, "over-under") as rig:
            async with rig.client.ws_connect("/v1/events", headers=DEALER) as ws:
                betting = await rig.betting()
                for seat in (1, 2, 3):
                    await rig.ok("/v1/wagers", {"prompt": betting, "seat": seat, "ante": 1000})
                await rig.ok("/v1/rounds/no-more-bets", {"prompt": betting})
                for seat in (1, 2, 3):
                    async with asyncio.timeout(15):
                        while (prompt := (await rig.state())["prompt"]) is None or prompt["seat"] != seat:
                            await asyncio.sleep(0.01)
                    assert prompt["kind"] == "election"
                    on_felt = [rig.sim.world.count(f"seat {s}") for s in (1, 2, 3)]
                    assert on_felt == [1, 1, 1], "no additional card before the last election"
                    later = {"prompt": prompt["id"], "seat": seat % 3 + 1, "choice": "under_18"}
                    status, body = await rig.post("/v1/decisions", later)
                    assert status == 409 and body["clause"] == "686a.7(f)", body
                    await rig.ok("/v1/decisions", {"prompt": prompt["id"], "seat": seat, "choice": "over_23"})
                records: list[dict[str, Any]] = []
                async with asyncio.timeout(15):
                    while (message := await ws.receive_json())["type"] != "round_ended":
                        if message["type"] == "round_record":
                            records.append(message["record"])
            steps = [
                f"{r['kind']} {r.get('seat') or r['place'].removeprefix('seat ')}"
                for r in records
                if r["kind"] in ("card", "decision", "settlement", "pickup")
            ]
            turns = [[f"card {s}"] * 2 + [f"settlement {s}"] * 2 + [f"pickup {s}"] * 3 for s in (1, 2, 3)]
            assert steps == [
                *[f"card {s}" for s in (1, 2, 3)],
                *[f"decision {s}" for s in (1, 2, 3)],
                *[step for turn in turns for step in turn],
            ]

    run(scenario())


def test_the_served_openapi_document_is_the_committed_one(tmp_path):
    async def scenario():
        async with api_rig(tmp_path) as rig:
            async with rig.client.get("/openapi.json") as response:
                assert response.status == 200
                served = await response.json()
            assert served == json.loads(COMMITTED.read_text()), "run python -m croupier.api.openapi"
            assert served == document()
            assert set(served["paths"]) >= {"/v1/table", "/v1/faults/{code}/clear", "/v1/events", *ANSWERS}

    run(scenario())


def test_the_audit_trail_shows_its_head_and_the_verification_made_when_the_service_opened_it(tmp_path):
    """The supervisor's console shows the trail's head and its last verification (docs/audit.md): a
    new series has none; a service started again verifies the series it continues, and says so."""

    async def audit() -> dict[str, Any]:
        async with api_rig(tmp_path) as rig:
            status, shown = await rig.get("/v1/audit")
            assert status == 200
            return shown

    first = run(audit())
    assert (first["file"], first["sealed"], first["epoch"]) == ("API-000001.jsonl", False, None)
    assert first["verified"] is None and first["seq"] >= 1 and len(first["hash"]) == 64
    written = (tmp_path / "audit" / "API-000001.jsonl").read_text().splitlines()
    records = [json.loads(line) for line in written]
    second = run(audit())
    assert second["file"] == "API-000002.jsonl"
    verified = second["verified"]
    assert (verified["files"], verified["records"]) == (1, len(records))
    assert verified["last_hash"] == records[-1]["hash"]


def test_a_dealer_change_at_a_table_whose_rounds_name_no_dealer_is_refused_not_an_error(tmp_path):
    """Crazy 4 Poker keeps no dealer on duty (its rounds name none): a dealer change is a 409 saying
    so (it was a 500), and nothing is recorded."""

    async def scenario():
        async with api_rig(tmp_path, "crazy-4-poker") as rig:
            status, body = await rig.post("/v1/table/dealer-change", {"dealer": "D-2"})
            assert status == 409 and "keeps no dealer on duty" in body["error"], body
            assert "dealer" not in await rig.state()

    run(scenario())
