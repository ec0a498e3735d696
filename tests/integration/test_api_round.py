"""What a page needs from the API beyond the prompt: the round in play as its records (``GET
/v1/round``, for a page that loads mid-round) with no face-down card's face before it is turned up
(672a.7(c); decision 0018), the betting prompt's positions and wager fields, the answers every
decision prompt allows, and the progressive's meters and lock."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from tests.integration.test_api import api_rig
from tests.links import run


def test_the_round_in_play_names_the_hole_card_by_its_commitment_until_it_is_turned_up(tmp_path):
    snapshots: list[dict[str, Any]] = []

    async def scenario():
        async with api_rig(tmp_path) as rig:
            played = asyncio.create_task(rig.play_round("free-bet-blackjack"))
            while not played.done():
                snapshots.append((await rig.get("/v1/round"))[1])
                await asyncio.sleep(0.005)
            number = await played
            # The round as it ended, kept until the next round begins (no wager is keyed): the last
            # snapshot of the loop may be from before the end, the round ending and play_round seeing
            # betting open between two of its reads (under load).
            snapshots.append((await rig.get("/v1/round"))[1])
            return number

    number = run(scenario())
    paths = sorted((tmp_path / "audit").glob("*.jsonl"))
    trail = [json.loads(line) for path in paths for line in path.read_text().splitlines()]
    kept = [
        (r["fields"]["round_seq"], r["kind"])
        for r in trail
        if "round_seq" in r["fields"] and r["round"] == number
    ]
    (hole,) = [r["fields"] for r in trail if r["kind"] == "hole_revealed" and r["round"] == number]
    during = [s for s in snapshots if s["round"] == number]
    sealed = [
        s
        for s in during
        if any(r.get("commitment") == hole["commitment"] and r["card"] is None for r in s["records"])
    ]
    assert sealed, "a snapshot taken while the hole card was face down"
    for snapshot in during:
        turned = [r["seq"] for r in snapshot["records"] if r["kind"] == "hole_revealed"]
        for record in snapshot["records"]:
            if record["kind"] == "card" and record.get("commitment") == hole["commitment"]:
                assert record["card"] is None, "the card dealt face down is its commitment only"
            if not turned or record["seq"] < turned[0]:
                face = json.dumps(hole["card"])  # as a JSON string: "9d" may be in a hex commitment
                assert face not in json.dumps(record) or record.get("commitment") is None, record
    last = during[-1]
    assert last["ended"] == "complete"
    assert [(r["seq"], r["kind"]) for r in last["records"]] == kept, "the round's records, in order"


def test_the_prompts_show_what_a_screen_may_offer_and_the_progressive_its_meters(tmp_path):
    async def scenario():
        async with api_rig(tmp_path, "crazy-4-poker") as rig:
            await rig.betting()  # the table has shuffled and opened betting
            state = await rig.state()
            betting = state["prompt"]
            assert betting["positions"] == [1, 2, 3, 4, 5, 6]
            assert betting["required"] == ["ante", "super_bonus"]
            assert set(betting["wager_fields"]) >= {"ante", "super_bonus", "progressive"}
            progressive = state["progressive"]
            assert progressive["locked"] is False and progressive["jackpot_locked"] == []
            assert [m["level"] for m in progressive["meters"]] == [1, 2]
            assert all(m["value_cents"] > 0 and m["frozen"] is False for m in progressive["meters"])
            for seat in (1, 2):
                wager = {"prompt": betting["id"], "seat": seat, "ante": 500, "super_bonus": 500}
                await rig.ok("/v1/wagers", wager)
            await rig.ok("/v1/rounds/no-more-bets", {"prompt": betting["id"]})
            decision = await rig.wait_for("decision")
            assert decision["prompt"]["legal"] == ["fold", "play"]
            assert decision["prompt"]["multiples"] == [1, 2, 3]
            assert decision["progressive"]["locked"] is True, "locked from no more bets"

    run(scenario())
