"""The routes of the local API over one table in service (croupier.service.table_service).

Each handler authenticates, checks the request, then asks the service: the table and its device
machines enforce the rules and refuse with the clause; errors.py turns a refusal into a 409 carrying
it. The round is driven from the dealer's screen: wagers until "no more bets", then each prompt the
table shows (a decision, an insurance answer, a count) answered in turn (croupier.screen.prompts).
Every command takes effect once (decision 0022): an answer names the prompt it answers, and a repeat
is given the first reply; any POST may carry an Idempotency-Key (croupier.api.once). Bodies are read
and replies built by typed models (croupier.screen.bodies, croupier.api.replies), from which the
OpenAPI document is generated.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import json
from collections.abc import Awaitable, Callable, Mapping
from datetime import UTC, datetime

from aiohttp import WSCloseCode, WSMsgType, web

from croupier.api import pages, replies
from croupier.api.asyncapi import document as asyncapi_document
from croupier.api.auth import Tokens, authenticate, forbid_dealer
from croupier.api.errors import MAX_BODY, BadRequest, error_body, json_body, json_errors
from croupier.api.events import Hub, Json, message_of
from croupier.api.once import Once
from croupier.api.openapi import document
from croupier.api.replies import reply
from croupier.api.sessions import COOKIE, Sessions, clear_cookie, from_own_page, session_id, set_cookie
from croupier.screen.bodies import DealerChange, KeyedReset, Ruling, SignIn, Trace, prompt_of, validated
from croupier.screen.players import ANSWERS
from croupier.service.table_service import DayOpening, TableService
from games.common.messages import Resolution
from vocabulary.events import Event
from vocabulary.operators import Operator

Action = Callable[[web.Request, Operator], Awaitable[web.StreamResponse]]
#: Why a stream opened with a browser session is closed when the session ends (close code 1008).
SESSION_ENDED = "the session has expired or was signed out: sign in again"


class TableApi:
    """The handlers over one table in service."""

    def __init__(self, service: TableService, tokens: Tokens, sessions: Sessions[Operator]) -> None:
        self.service, self.table, self.tokens, self.sessions = service, service.table, tokens, sessions
        self.hub = Hub()
        self.once = Once(service.journal.state)
        self.round: Json = {"round": None, "ended": None, "records": []}
        self._sockets: dict[web.WebSocketResponse, str | None] = {}  # each open stream: its session id
        self.table.events.subscribe(self.heard)
        service.screen.events.subscribe(self.heard)

    def routes(self) -> list[web.RouteDef]:
        return [
            web.get("/openapi.json", self.openapi),
            web.get("/asyncapi.json", self.asyncapi),
            *pages.routes(),
            web.post("/v1/session", self.sign_in),
            web.get("/v1/session", self._auth(self.session)),
            web.delete("/v1/session", self._auth(self.sign_out)),
            web.get("/v1/table", self._auth(self.state)),
            web.get("/v1/prompt", self._auth(self.prompt)),
            web.get("/v1/round", self._auth(self.current_round)),
            web.get("/v1/faults", self._auth(self.faults)),
            web.post("/v1/faults/{code}/clear", self._auth(self.clear, supervisor=True)),
            web.get("/v1/devices", self._auth(self.devices)),
            web.get("/v1/progressive", self._auth(self.progressive)),
            web.get("/v1/audit", self._auth(self.audit)),
            web.post("/v1/rounds/held/resolve", self._auth(self.resolve, supervisor=True)),
            web.post("/v1/table/dealer-change", self._auth(self.dealer_change)),
            web.post("/v1/table/open", self._auth(self.open, supervisor=True)),
            web.post("/v1/table/close", self._auth(self.close, supervisor=True)),
            web.post("/v1/devices/{name}/trace", self._auth(self.trace, supervisor=True)),
            web.post("/v1/devices/{name}/verify", self._auth(self.verify, supervisor=True)),
            web.post("/v1/progressive/levels/{level}/reset", self._auth(self.reset_level, supervisor=True)),
            *(web.post(path, self._auth(self._answer(kinds))) for path, kinds in ANSWERS.items()),
            web.get("/v1/events", self._auth(self.events)),
        ]

    def heard(self, event: Event) -> None:
        """One event of the table or the screen, to the stream if it carries its kind; a round's
        messages also kept for ``GET /v1/round`` until the next round begins."""
        message = message_of(event)
        if message is None:
            return
        if message["type"] == "round_began":
            self.round = {"round": message["round"], "ended": None, "records": []}
        elif message["type"] == "round_record" and message["record"]["round"] == self.round["round"]:
            self.round["records"].append(message["record"])
        elif message["type"] == "round_ended" and message["round"] == self.round["round"]:
            self.round["ended"] = message["state"]
        self.hub.publish(message)

    def _auth(
        self, action: Action, *, supervisor: bool = False
    ) -> Callable[[web.Request], Awaitable[web.StreamResponse]]:
        """The handler behind the token check, and for a supervisor action the role check."""

        async def handler(request: web.Request) -> web.StreamResponse:
            operator = authenticate(self.tokens, self.sessions, request)
            if isinstance(operator, web.Response):
                sid = session_id(request)
                again = operator.status == 401 and sid is not None and self.sessions.refused_again(sid)
                self._refused(request, operator, None, again=again)
                return operator
            refused = forbid_dealer(operator) if supervisor else None
            if refused is not None:
                self._refused(request, refused, operator)
                return refused
            if request.method == "POST":
                return await self.once.respond(request, operator, lambda: action(request, operator))
            return await action(request, operator)

        return handler

    def _refused(
        self, request: web.Request, response: web.Response, operator: Operator | None, *, again: bool = False
    ) -> None:
        """An access refused, to the audit trail (``access_refused``): the request and why; ``again``
        for a dead session refused before, which is counted, not written again."""
        reason = json.loads(response.text or "{}").get("error", "")
        self.service.journal.access_refused(
            f"{request.method} {request.path}", response.status, reason, operator, again=again
        )

    async def sign_in(self, request: web.Request) -> web.Response:
        """A browser signs in with the role's token: the reply sets the session cookie (decision
        0033). A sign-in from another site's page or with an unknown token is refused and audited.
        The session the browser held until now ends (audited as its operator's ``sign_out``), so
        that signing in again leaves no session behind that only its cookie forgot."""
        refused, operator = from_own_page(request), None
        if refused is None:
            operator = self.tokens.operator(validated(SignIn, await json_body(request)).token)
        if operator is None:
            refused = refused or error_body(401, "unknown token")
            self._refused(request, refused, None)
            return refused
        previous = request.cookies.get(COOKIE)
        ended = None if previous is None else await self._end_session(previous)
        if ended is not None:
            self.service.journal.operator_action("sign_out", ended, replaced_by=operator.ident)
        sid = self.sessions.open(operator)
        self.service.journal.operator_action("sign_in", operator)
        lifetime = self.sessions.lifetime
        response = reply(
            replies.SignedIn, operator=operator.ident, role=operator.role.value, expires_in=int(lifetime)
        )
        set_cookie(response, request, sid, lifetime)
        return response

    async def session(self, request: web.Request, operator: Operator) -> web.Response:
        """Who the request is signed in as: the page asks before it shows anything."""
        sid = session_id(request)
        expires = None if sid is None else self.sessions.expires_in(sid)
        return reply(replies.SignedIn, operator=operator.ident, role=operator.role.value, expires_in=expires)

    async def sign_out(self, request: web.Request, operator: Operator) -> web.Response:
        """The session is deleted and its cookie cleared; audited."""
        sid = request.cookies.get(COOKIE)
        if sid is not None:
            await self._end_session(sid)
        self.service.journal.operator_action("sign_out", operator)
        response = reply(replies.SignedOut, signed_out=operator.ident)
        clear_cookie(response, request)
        return response

    async def _end_session(self, sid: str) -> Operator | None:
        """The session deleted and every stream opened with it closed (1008): a signed-out screen
        stops hearing the table at once, in every tab. Its operator, if it was open."""
        operator = self.sessions.close(sid)
        for ws in [ws for ws, opened_with in self._sockets.items() if opened_with == sid]:
            await ws.close(code=WSCloseCode.POLICY_VIOLATION, message=SESSION_ENDED.encode())
        return operator

    async def openapi(self, request: web.Request) -> web.Response:
        return web.json_response(document())

    async def asyncapi(self, request: web.Request) -> web.Response:
        return web.json_response(asyncapi_document())

    async def state(self, request: web.Request, operator: Operator) -> web.Response:
        """What the table is doing; no card face-down, and no card at all but in the prompt."""
        table, service = self.table, self.service
        held = table.held_round
        state: Json = {
            "name": table.name,
            "game": service.game,
            "open": service.is_open,
            "opening": _opening_json(service.opening),
            "rounds": table.rounds,
            "round_in_progress": service.round_in_play,
            "prompt": self._prompt(),
            "devices": table.feeds.links(),
            "faults": self._faults(),
            "held_round": None
            if held is None
            else {
                "round": held.number,
                "clause": held.hold.irregularity.rule.clause,
                "irregularity": held.hold.irregularity.detail,
                "kind": held.hold.kind.code,
                "resolutions": sorted(resolution.value for resolution in held.hold.resolutions),
                "on_continue": held.hold.kind.on_continue,
            },
        }
        if table.dealer_on_duty is not None:
            state["dealer"] = table.dealer_on_duty
        progressive = table.progressive
        if progressive is not None:
            state["progressive"] = {
                "locked": progressive.round is not None and progressive.round.locked,
                "jackpot_locked": progressive.frozen_levels,
                "meters": [
                    {"level": info.level, "value_cents": info.value_cents, "frozen": info.frozen}
                    for _, info in sorted(progressive.levels.items())
                ],
            }
        shoe = table.shoe
        if shoe is not None:
            state["shoe"] = {"state": shoe.state, "dispensed": shoe.dispensed, "remaining": shoe.remaining}
        return reply(replies.TableState, **state)

    async def prompt(self, request: web.Request, operator: Operator) -> web.Response:
        return reply(replies.PromptReply, prompt=self._prompt())

    async def current_round(self, request: web.Request, operator: Operator) -> web.Response:
        """The round in play (or the last one) as the stream carried it, for a page that loads
        mid-round: the very messages the stream sent, so no face-down card's face."""
        return reply(replies.CurrentRound, **self.round)

    def _prompt(self) -> Json | None:
        prompt = self.service.screen.shown
        return None if prompt is None else prompt.as_json()

    async def faults(self, request: web.Request, operator: Operator) -> web.Response:
        return reply(replies.Faults, faults=self._faults())

    def _faults(self) -> list[Json]:
        return [dataclasses.asdict(fault) for fault in self.table.faults]

    async def devices(self, request: web.Request, operator: Operator) -> web.Response:
        """Each device's link state and the last error its link met (the driver's error, which names
        the device, the command and the link, never a card's face)."""
        listed = []
        for name, conn in self.table.feeds.connections().items():
            error = conn.last_error
            last = None if error is None else {"error": type(error).__name__, "detail": str(error)}
            listed.append({"name": name, "link": conn.state.value, "last_error": last})
        return reply(replies.Devices, devices=listed)

    async def progressive(self, request: web.Request, operator: Operator) -> web.Response:
        """The progressive's levels as their meters stand, and the win a frozen level shows until its
        keyed reset (605a.7(a)); 404 at a table without a progressive system."""
        system = self.table.progressive
        if system is None:
            raise KeyError(f"{self.table.name} has no progressive system")
        levels = []
        for level, info in sorted(system.levels.items()):
            win = system.wins.get(level) if info.frozen else None
            levels.append(
                {
                    "level": level,
                    **{key: getattr(info, key) for key in ("value_cents", "reset_cents", "limit_cents")},
                    **{key: getattr(info, key) for key in ("hits", "wins_cents", "frozen")},
                    "win_seat": None if win is None else win.seat,
                    "win_cents": None if win is None else win.amount_cents,
                }
            )
        return reply(replies.ProgressiveLevels, levels=levels)

    async def audit(self, request: web.Request, operator: Operator) -> web.Response:
        """The audit trail's head, whether it is sealed, and the verification the service made of the
        series it continues when it opened the trail (docs/audit.md)."""
        trail = self.service.journal.trail
        head, verified = trail.head, trail.verified
        check = None
        if verified is not None:
            at, report = verified.at.isoformat(timespec="seconds"), verified.report
            check = {"at": at, "files": verified.files, "records": report.records}
            check["last_hash"] = report.last_hash
        return reply(
            replies.AuditStatus,
            file=None if head is None else head.file,
            seq=None if head is None else head.seq,
            hash=None if head is None else head.hash,
            epoch=None if head is None else head.epoch,
            sealed=trail.sealed,
            verified=check,
        )

    async def clear(self, request: web.Request, operator: Operator) -> web.Response:
        """A supervisor clears a latched fault; the device refuses while the condition persists."""
        code = request.match_info["code"]
        await self.service.clear(code, operator)
        return reply(replies.Cleared, cleared=code, by=operator.ident, faults=self._faults())

    async def resolve(self, request: web.Request, operator: Operator) -> web.Response:
        resolution = validated(Ruling, await json_body(request)).resolution
        self.service.resolve(operator, Resolution(resolution))
        return reply(replies.Ruled, resolution=resolution, by=operator.ident)

    async def dealer_change(self, request: web.Request, operator: Operator) -> web.Response:
        dealer = validated(DealerChange, await json_body(request)).dealer
        self.service.dealer_change(dealer, operator)
        return reply(replies.DealerChanged, dealer=dealer)

    async def open(self, request: web.Request, operator: Operator) -> web.Response:
        """The table opened at once (200), or on real equipment the day's opening started or joined
        and answered as it stands (202): it runs on in the service, its steps and its end on the
        event stream and in the table's state (decision 0037)."""
        opening = self.service.open(operator)
        if opening is None:
            return reply(replies.Opened, open=True, by=operator.ident)
        response = reply(replies.Opening, **dataclasses.asdict(opening))
        response.set_status(202)
        return response

    async def close(self, request: web.Request, operator: Operator) -> web.Response:
        self.service.close(operator)
        return reply(replies.Opened, open=False, by=operator.ident)

    async def reset_level(self, request: web.Request, operator: Operator) -> web.Response:
        """The keyed reset of a jackpot-locked level; the controller refuses a wrong key (409)."""
        text = request.match_info["level"]
        if not text.isdigit():
            raise BadRequest(f"the level must be a whole number, got {text!r}")
        key = validated(KeyedReset, await json_body(request)).key
        await self.service.reset_level(int(text), key, operator)
        return reply(replies.LevelReset, reset=int(text), by=operator.ident)

    async def trace(self, request: web.Request, operator: Operator) -> web.Response:
        enabled = validated(Trace, await json_body(request)).enabled
        device = request.match_info["name"]
        self.service.trace(device, enabled, operator)
        return reply(replies.Traced, device=device, trace=enabled, by=operator.ident)

    async def verify(self, request: web.Request, operator: Operator) -> web.Response:
        """The device's firmware checked now; the reply is the check's record, and a failure is also
        a latched FIRMWARE_UNVERIFIED in ``faults``."""
        device = request.match_info["name"]
        check = await self.service.verify(device, operator)
        due = datetime.fromtimestamp(check.next_due, UTC).isoformat(timespec="seconds")
        return reply(
            replies.Verified, **check.fields(), next_due=due, by=operator.ident, faults=self._faults()
        )

    def _answer(self, kinds: tuple[str, ...]) -> Action:
        """The handler keying one of ``kinds`` for the prompt the body names; it answers once the
        round has taken it (its records on disk) or with the round's refusal. A repeat of an answer
        that closed its prompt is given the first one's reply (decision 0022)."""

        async def answer(request: web.Request, operator: Operator) -> web.Response:
            body = await json_body(request)
            answered = prompt_of(body)
            assert isinstance(body, Mapping)  # prompt_of refused any other body
            screen = self.service.screen
            kind = screen.kind(answered, kinds)

            def taken() -> Json:
                taken = replies.Taken(taken=kind, answered=answered, by=operator.ident, prompt=self._prompt())
                return taken.model_dump(mode="json")

            return web.json_response(await screen.answer(kind, body, taken))

        return answer

    async def events(self, request: web.Request, operator: Operator) -> web.WebSocketResponse:
        """Stream every message published from now on until either side closes. A stream opened
        with a browser session ends (1008) when the session does: at sign-out (``_end_session``) and
        at its expiry, which is checked before each message is sent and awaited while none comes."""
        sid = session_id(request)
        ws = web.WebSocketResponse()
        await ws.prepare(request)
        queue = self.hub.subscribe()
        self._sockets[ws] = sid
        closed = asyncio.create_task(_until_closed(ws))
        message: asyncio.Task[Json] = asyncio.create_task(queue.get())
        try:
            while not (closed.done() or ws.closed):
                left = None if sid is None else self.sessions.remaining(sid)
                await asyncio.wait({message, closed}, timeout=left, return_when=asyncio.FIRST_COMPLETED)
                if sid is not None and self.sessions.operator(sid) is None:
                    await ws.close(code=WSCloseCode.POLICY_VIOLATION, message=SESSION_ENDED.encode())
                elif message.done() and not ws.closed:
                    await ws.send_json(message.result())
                    message = asyncio.create_task(queue.get())
        finally:
            self.hub.unsubscribe(queue)
            del self._sockets[ws]
            for task in (message, closed):
                if not task.done():
                    task.cancel()
                    with contextlib.suppress(asyncio.CancelledError):
                        await task
            await ws.close()
        return ws

    async def close_sockets(self, app: web.Application) -> None:
        """On shutdown: end every stream, so no handler outlives the server."""
        for ws in list(self._sockets):
            await ws.close(code=1001, message=b"server shutdown")


def _opening_json(opening: DayOpening | None) -> Json | None:
    return None if opening is None else dataclasses.asdict(opening)


async def _until_closed(ws: web.WebSocketResponse) -> None:
    """Read (and ignore) what the client sends until it closes the socket."""
    async for message in ws:
        if message.type is WSMsgType.ERROR:
            return


def make_app(
    service: TableService, tokens: Tokens, sessions: Sessions[Operator] | None = None
) -> web.Application:
    """The API application over a table in service, for ``croupier run`` to serve (127.0.0.1 by
    default); ``sessions``: its browser sessions (a test's, on a clock it moves)."""
    api = TableApi(service, tokens, Sessions[Operator]() if sessions is None else sessions)
    app = web.Application(middlewares=[json_errors], client_max_size=MAX_BODY)
    app.add_routes(api.routes())
    app.on_shutdown.append(api.close_sockets)
    return app
