"""A dealer's screen for tests: drives whole rounds of any game through the local API, as the
dealer keys them — wagers, "no more bets", then each prompt the table shows answered in turn."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from simulator.games.registry import simulation

HIGH = set("89TJQKA")
Headers = dict[str, str] | None
Reply = tuple[int, Any]
Counts = Callable[[str], int]


def answer_for(prompt: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """A plain player's answer to a decision prompt: the route and the body, naming the prompt."""
    route, body = _choice(prompt)
    return route, {"prompt": prompt["id"], **body}


def _choice(prompt: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    seat, kind = prompt["seat"], prompt["kind"]
    if kind == "insurance":
        return "/v1/insurance", {"seat": seat, "choice": "decline"}
    if kind == "election":
        choice = "over_23" if prompt["first_card"][0] in HIGH else "under_18"
        return "/v1/decisions", {"seat": seat, "choice": choice}
    if "street" in prompt:  # Heads Up Hold 'Em: check to the river, then Play the least allowed
        if prompt["street"] == "river":
            return "/v1/decisions", {"seat": seat, "choice": "play", "multiple": min(prompt["multiples"])}
        return "/v1/decisions", {"seat": seat, "choice": "check"}
    if "cards" in prompt:  # Free Bet Blackjack: hit a two-card hand at odd seats, else stand
        hit = len(prompt["cards"]) == 2 and seat % 2 and "hit" in prompt["legal"]
        return "/v1/decisions", {"seat": seat, "action": "hit" if hit else "stand"}
    return "/v1/decisions", {"seat": seat, "action": "play", "multiple": 1}  # Crazy 4 Poker


def dealer_counts(game: str, players: int, *, progressive: int = 0, six_card: bool = False) -> Counts:
    """What a dealer counts at a round of ``players`` positions: the stub left in the hand after the
    deal (Heads Up Hold 'Em: 52 - 2 a hand, the dealer's too, - 5 community cards, 677a.10(c)-(e);
    Crazy 4 Poker: 52 - 5 a hand, the dealer's too, - the Six Card Bonus card if dealt, 657a.9(b)-(e))
    and the value chips of the ``progressive`` wagers keyed (657a.9(a)(3))."""
    hands = players + 1
    stub = {"heads-up-holdem": 52 - 2 * hands - 5, "crazy-4-poker": 52 - 5 * hands - int(six_card)}
    return lambda kind: stub[game] if kind == "stub_count" else progressive


def jackpot_held(state: dict[str, Any]) -> bool:
    """No round in play and betting held for the keyed reset of a level a hit froze."""
    locked = bool(state.get("progressive", {}).get("jackpot_locked"))
    return locked and state["prompt"] is None and not state["round_in_progress"]


@dataclass
class Screen:
    """``client``: an aiohttp TestClient or a ClientSession with a base URL; ``count``: what the
    dealer counts when the table asks ("stub_count", "chip_count"); ``supervisor``: a supervisor's
    headers, with which a level a progressive hit froze is reset by ``reset_key`` (605a.7(a)) when
    the screen waits for betting — at a table whose rounds are dealt from unseeded shuffles a hit
    can come in any round."""

    client: Any
    headers: dict[str, str]
    count: Callable[[str], int] | None = None
    supervisor: dict[str, str] | None = field(default=None, kw_only=True)
    reset_key: str = field(default="PROG-KEY-1", kw_only=True)  # the simulated controller's
    resets: list[int] = field(default_factory=list, kw_only=True)  # the levels it reset, in order

    async def get(self, path: str, headers: Headers = None) -> tuple[int, Any]:
        async with self.client.get(path, headers=self.headers if headers is None else headers) as response:
            return response.status, await response.json()

    async def post(self, path: str, body: object = None, headers: Headers = None, **kw: Any) -> Reply:
        """POST ``body`` as JSON (or ``data=`` raw bytes, for a malformed one)."""
        sent = self.headers if headers is None else headers
        payload = kw if "data" in kw else {"json": body}
        async with self.client.post(path, headers=sent, **payload) as response:
            return response.status, await response.json()

    async def ok(self, path: str, body: object = None) -> Any:
        return await self.ok_as(self.headers, path, body)

    async def ok_as(self, headers: dict[str, str], path: str, body: object = None) -> Any:
        status, reply = await self.post(path, body, headers)
        assert status == 200, (path, body, status, reply)
        return reply

    async def state(self) -> dict[str, Any]:
        return (await self.get("/v1/table"))[1]

    async def open_table(self, headers: dict[str, str], timeout: float = 30) -> dict[str, Any]:
        """Open the table on real equipment: the open answers at once (202) with the day's opening,
        which runs on (decision 0037); the table's state once it has ended, the table open."""
        status, started = await self.post("/v1/table/open", None, headers)
        assert status == 202 and started["state"] == "opening", (status, started)
        opening = started
        try:
            async with asyncio.timeout(timeout):
                while (opening := (state := await self.state())["opening"])["state"] in ("opening", "held"):
                    await asyncio.sleep(0.05)
        except TimeoutError:
            raise AssertionError(f"the opening did not end in {timeout} s: {opening}") from None
        assert opening["state"] == "open" and state["open"], opening
        return state

    async def betting(self) -> int:
        """The id of the betting prompt, once it is shown."""
        return int((await self.wait_for("wagers"))["prompt"]["id"])

    async def wait_for(self, kind: str, timeout: float = 15) -> dict[str, Any]:
        """The table's state once it shows a prompt of ``kind``."""
        async with asyncio.timeout(timeout):
            while True:
                state = await self.state()
                if state["prompt"] is not None and state["prompt"]["kind"] == kind:
                    return state
                if kind == "wagers" and self.supervisor and jackpot_held(state):
                    for level in state["progressive"]["jackpot_locked"]:
                        path = f"/v1/progressive/levels/{level}/reset"
                        await self.ok_as(self.supervisor, path, {"key": self.reset_key})
                        self.resets.append(level)
                await asyncio.sleep(0.01)

    async def play_round(
        self,
        game: str,
        seats: Sequence[int] = (1, 2, 3),
        timeout: float = 30,
        wagers: Callable[[int], Mapping[str, int]] | None = None,
    ) -> int:
        """Key one whole round (``wagers``: the body for a seat, by default the game's plain wager,
        its Simulation's ``keyed``); returns its number once it is complete."""
        betting = (await self.wait_for("wagers"))["prompt"]["id"]
        for seat in seats:
            await self.ok("/v1/wagers", {"prompt": betting, **(wagers or simulation(game).keyed)(seat)})
        await self.ok("/v1/rounds/no-more-bets", {"prompt": betting})
        async with asyncio.timeout(timeout):
            while True:
                state = await self.state()
                prompt = state["prompt"]
                assert not state["faults"] and state["held_round"] is None, state
                if jackpot_held(state):
                    return int(state["rounds"])  # complete; betting waits for the keyed reset
                if prompt is None:
                    await asyncio.sleep(0.01)
                elif prompt["kind"] == "wagers":
                    assert not state["round_in_progress"]
                    return int(state["rounds"])
                elif prompt["kind"] in ("stub_count", "chip_count"):
                    assert self.count is not None, f"the table asks for a {prompt['kind']}"
                    route = "/v1/" + prompt["kind"].replace("_", "-")
                    await self.ok(route, {"prompt": prompt["id"], "count": self.count(prompt["kind"])})
                else:
                    await self.ok(*answer_for(prompt))
