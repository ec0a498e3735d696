"""Garbage keyed at every answer route while rounds are played (each game, from a fixed seed):
every request gets a 4xx naming what was wrong or is taken as a legal answer, the service never
stops, and the rounds still finish with every card accounted for (TableWorld.check).

A legal answer in the garbage may be a count the dealer keyed wrong (a stub of 3 at Hold 'Em): the
rules take their course (677a.10(f): the round void, the deck removed and counted as it leaves),
and that holds nothing either. Before, a Hold 'Em deck removed that way was counted missing and
held the table on a WRONG_COUNT (it timed out here once)."""

from __future__ import annotations

import asyncio
import random
from typing import Any

import pytest

from croupier.screen.players import ANSWERS
from games import registry
from simulator.games.registry import simulation
from tests.integration.test_api import api_rig
from tests.links import run
from tests.screen import answer_for

VALUES: list[Any] = [None, True, -1, 0, 1, 2, 3, 7, 10**12, 2.5, "", "x", "play", "fold", "hit", [], {}]
FIELDS = ["seat", "action", "choice", "multiple", "amount", "count", "counts", "misdealt", "ante", "prompt"]
#: The routes a round's prompts are answered at (betting is keyed properly, so the rounds go on).
PROMPTED = [route for route in ANSWERS if route not in ("/v1/wagers", "/v1/rounds/no-more-bets")]


def _proper(rig: Any, prompt: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """The dealer's own answer to ``prompt``: a count as counted, else a plain player's choice."""
    if prompt["kind"] in ("stub_count", "chip_count"):
        route = "/v1/" + prompt["kind"].replace("_", "-")
        return route, {"prompt": prompt["id"], "count": rig.count(prompt["kind"])}
    return answer_for(prompt)


def garbage(rng: random.Random, shown: int) -> Any:
    """Garbage, naming the prompt shown (``shown``) half the time so that the body is read further."""
    if rng.random() < 0.1:
        return rng.choice(VALUES)
    body = {rng.choice(FIELDS): rng.choice(VALUES) for _ in range(rng.randint(0, 4))}
    return {"prompt": shown, **body} if rng.random() < 0.5 else body


@pytest.mark.parametrize("game", registry.slugs())
def test_garbage_at_the_answer_routes_is_refused_and_the_table_plays_on(tmp_path, game: str) -> None:
    async def scenario() -> None:
        rng = random.Random(game)
        async with api_rig(tmp_path, game) as rig:
            for number in (1, 2, 3, 4, 5):
                betting = await rig.betting()
                for seat in (1, 2, 3):
                    await rig.ok("/v1/wagers", {"prompt": betting, **simulation(game).keyed(seat)})
                await rig.ok("/v1/rounds/no-more-bets", {"prompt": betting})
                taken: list[Any] = []  # the garbage taken as an answer, for a failure's message
                async with asyncio.timeout(30):
                    while (state := await rig.state())["round_in_progress"] or state["prompt"] is None:
                        assert not state["faults"] and not state["held_round"], (state, taken)
                        shown = state["prompt"]["id"] if state["prompt"] else 1
                        for _ in range(6):
                            route, body = rng.choice(PROMPTED), garbage(rng, shown)
                            status, reply = await rig.post(route, body)
                            assert status in (200, 400, 409) and (status == 200 or reply["error"]), reply
                            if status == 200:
                                taken.append((route, body))
                        prompt = (await rig.state())["prompt"]
                        if prompt is not None and prompt["kind"] != "wagers":
                            status, _ = await rig.post(*_proper(rig, prompt))
                            assert status in (200, 409)  # 409: a legal answer in the garbage came first
                        await asyncio.sleep(0.005)
                assert state["rounds"] == number and state["faults"] == []
            assert rig.sim is not None
            rig.sim.world.check()

    run(scenario(), timeout=120)
