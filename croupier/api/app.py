"""The routes of the local API over one Free Bet Blackjack table.

Each handler authenticates, checks the request, then asks the table (croupier/tables/): the table and
its device machines enforce the rules and refuse with the clause; errors.py turns a refusal into a
409 carrying it. ``POST /v1/rounds/play`` plays one whole round with the simulated players: the
dealer-driven round (wagers, decisions keyed in by the dealer) is a later slice of issue 6.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
from collections.abc import Awaitable, Callable
from typing import Any

from aiohttp import WSMsgType, web

from croupier.api.auth import Tokens, authenticate, forbid_dealer
from croupier.api.errors import field, json_body, json_errors
from croupier.api.events import Hub, Json, event_json
from croupier.api.openapi import document
from croupier.tables.free_bet_blackjack import FreeBetBlackjackTable
from croupier.tables.players import Players
from devices.faults import Operator
from devices.rules import Rule, RuleViolation
from games.common.messages import Resolution

ONE_ROUND_AT_A_TIME = Rule(
    "ARCHITECTURE.md (one event queue per table); 672a.7(c)",
    "a table plays one round at a time, and a dealer changes only between rounds",
)

Action = Callable[[web.Request, Operator], Awaitable[web.StreamResponse]]


class TableApi:
    """The handlers over one table; ``players`` stand in for the players at the table."""

    def __init__(self, table: FreeBetBlackjackTable, tokens: Tokens, players: Players) -> None:
        self.table, self.tokens, self.players = table, tokens, players
        self.hub = Hub()
        self._round = asyncio.Lock()
        self._sockets: set[web.WebSocketResponse] = set()
        table.feeds.add_listener(lambda event: self.hub.publish(event_json(event)))

    def routes(self) -> list[web.RouteDef]:
        return [
            web.get("/openapi.json", self.openapi),
            web.get("/v1/table", self._auth(self.state)),
            web.get("/v1/faults", self._auth(self.faults)),
            web.post("/v1/faults/{code}/clear", self._auth(self.clear, supervisor=True)),
            web.post("/v1/rounds/held/resolve", self._auth(self.resolve, supervisor=True)),
            web.post("/v1/table/dealer-change", self._auth(self.dealer_change)),
            web.post("/v1/rounds/play", self._auth(self.play)),
            web.get("/v1/events", self._auth(self.events)),
        ]

    def _auth(self, action: Action, *, supervisor: bool = False) -> Callable[[web.Request], Awaitable[Any]]:
        """The handler behind the token check, and for a supervisor action the role check."""

        async def handler(request: web.Request) -> web.StreamResponse:
            operator = authenticate(self.tokens, request)
            if isinstance(operator, web.Response):
                return operator
            refused = forbid_dealer(operator) if supervisor else None
            return refused or await action(request, operator)

        return handler

    async def openapi(self, request: web.Request) -> web.Response:
        return web.json_response(document())

    async def state(self, request: web.Request, operator: Operator) -> web.Response:
        """What the table is doing; no card at all, so no face-down card's face."""
        table, shoe = self.table, self.table.shoe
        held = table.held_round
        return web.json_response(
            {
                "name": table.name,
                "rounds": table.rounds,
                "dealer": table.dealer_on_duty,
                "round_in_progress": self._round.locked(),
                "shoe": {
                    "state": shoe.state,
                    "dispensed": shoe.dispensed,
                    "remaining": shoe.remaining,
                    "batch_in_shoe": table.in_shoe,
                    "batch_held": table.held,
                },
                "faults": self._faults(),
                "held_round": None
                if held is None
                else {
                    "round": held.number,
                    "clause": held.hold.irregularity.rule.clause,
                    "irregularity": held.hold.irregularity.detail,
                },
            }
        )

    async def faults(self, request: web.Request, operator: Operator) -> web.Response:
        return web.json_response({"faults": self._faults()})

    def _faults(self) -> list[Json]:
        return [dataclasses.asdict(fault) for fault in self.table.faults]

    async def clear(self, request: web.Request, operator: Operator) -> web.Response:
        """A supervisor clears a latched fault; the device refuses while the condition persists."""
        code = request.match_info["code"]
        await self.table.clear(code, operator)
        return web.json_response({"cleared": code, "by": operator.ident, "faults": self._faults()})

    async def resolve(self, request: web.Request, operator: Operator) -> web.Response:
        resolution = field(await json_body(request), "resolution", tuple(r.value for r in Resolution))
        self.table.resolve(operator, Resolution(resolution))
        return web.json_response({"resolution": resolution, "by": operator.ident})

    async def dealer_change(self, request: web.Request, operator: Operator) -> web.Response:
        """A new dealer between rounds; the shoe burns a card before the next deal (672a.7(c))."""
        dealer = field(await json_body(request), "dealer")
        if self._round.locked():
            raise RuleViolation(ONE_ROUND_AT_A_TIME, f"dealer change to {dealer} refused: a round is in play")
        self.table.dealer_change(dealer)
        return web.json_response({"dealer": dealer})

    async def play(self, request: web.Request, operator: Operator) -> web.Response:
        """One round with the simulated players, to completion; its records go to the stream."""
        if self._round.locked():
            raise RuleViolation(ONE_ROUND_AT_A_TIME, "a round is already in play")
        async with self._round:
            round_ = await self.table.play_round(self.players)
        records = list(round_.log)
        self.hub.publish_records(records)
        return web.json_response({"round": round_.number, "records": [r.as_dict() for r in records]})

    async def events(self, request: web.Request, operator: Operator) -> web.WebSocketResponse:
        """Stream every message published from now on until either side closes."""
        ws = web.WebSocketResponse()
        await ws.prepare(request)
        queue = self.hub.subscribe()
        self._sockets.add(ws)
        closed = asyncio.create_task(_until_closed(ws))
        message: asyncio.Task[Json] | None = None
        try:
            while not closed.done():
                message = asyncio.create_task(queue.get())
                await asyncio.wait({message, closed}, return_when=asyncio.FIRST_COMPLETED)
                if message.done():
                    await ws.send_json(message.result())
        finally:
            self.hub.unsubscribe(queue)
            self._sockets.discard(ws)
            for task in (message, closed):
                if task is not None and not task.done():
                    task.cancel()
                    with contextlib.suppress(asyncio.CancelledError):
                        await task
            await ws.close()
        return ws

    async def close_sockets(self, app: web.Application) -> None:
        """On shutdown: end every stream, so no handler outlives the server."""
        for ws in list(self._sockets):
            await ws.close(code=1001, message=b"server shutdown")


async def _until_closed(ws: web.WebSocketResponse) -> None:
    """Read (and ignore) what the client sends until it closes the socket."""
    async for message in ws:
        if message.type is WSMsgType.ERROR:
            return


def make_app(table: FreeBetBlackjackTable, tokens: Tokens, players: Players) -> web.Application:
    """The API application over ``table``, for ``croupier run`` to serve (127.0.0.1 by default)."""
    api = TableApi(table, tokens, players)
    app = web.Application(middlewares=[json_errors])
    app.add_routes(api.routes())
    app.on_shutdown.append(api.close_sockets)
    return app
