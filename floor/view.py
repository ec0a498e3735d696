"""The floor view: one page, served by the floor service, showing every table it has heard.

Read-only: the page and its data, ``GET /floor/v1/tables`` (every table's game, state, faults, held
rounds, links, meters, rounds in the last hour and whether it went dark, as the store keeps them)
and ``GET /floor/v1/links`` (each linked progressive's levels, their values and the hits that lock
them, as the link controller tells its tables), change nothing. With ``[view] token_file`` the data
needs that token. A program sends it as a bearer token; a browser signs in with it once, as at a
table's screens (decision 0033, croupier.api.sessions): the shared sign-in page (``/``) sends it to
``POST /v1/session`` and the browser keeps only an HttpOnly, SameSite=Strict session cookie, so no
script in the page can read the token or the session; ``DELETE /v1/session`` signs out. Without a
token file the view is served only on loopback (croupier.config.floor_service), open, and ``/``
leads straight to it.
"""

from __future__ import annotations

import hmac
import stat
from pathlib import Path

import structlog
from aiohttp import web
from aiohttp.typedefs import Handler

from croupier.api import pages, replies
from croupier.api.errors import error_body, json_body, json_errors
from croupier.api.replies import reply
from croupier.api.sessions import Sessions, clear_cookie, from_cookie, from_own_page, session_id, set_cookie
from croupier.errors import StartupError
from croupier.screen.bodies import SignIn, validated
from floor.link_controller import LinkController
from floor.store import Store

log = structlog.get_logger("croupier.floor")
PAGES = Path(__file__).parent / "pages"
#: 32 characters of a random token (``openssl rand -hex 16``) are 128 bits, as the API's are.
MIN_TOKEN_LENGTH = 32
#: The floor view's session cookie: not the table's, so that a floor view and a table's screens
#: served by one host (a developer's ``croupier sim --floor``) do not sign each other out.
COOKIE = "croupier_floor_session"
#: Who a floor view's session is for, and the role the shared sign-in page sends to ``/floor``.
READER, ROLE = "floor view", "floor"
STORE_KEY = web.AppKey("store", Store)
LINKS_KEY: web.AppKey[LinkController | None] = web.AppKey("links")


def read_token(path: Path) -> str:
    """The view's token, refused when group or others may read the file or it is too short."""
    try:
        mode = path.stat().st_mode
        token = path.read_text(encoding="utf-8").strip()
    except (OSError, UnicodeDecodeError) as exc:
        raise StartupError(f"view.token_file: {path}: {exc}") from None
    if stat.S_IMODE(mode) & 0o077:
        raise StartupError(
            f"view.token_file: {path}: mode {stat.S_IMODE(mode):04o} lets group or others read the token "
            "(chmod 0600)"
        )
    if len(token) < MIN_TOKEN_LENGTH:
        raise StartupError(f"view.token_file: {path}: shorter than {MIN_TOKEN_LENGTH} characters")
    return token


class _SignIn:
    """The view's token, its sessions and the routes that check them."""

    def __init__(self, token: str, sessions: Sessions[str]) -> None:
        self.token, self.sessions = token.encode(), sessions

    def reader(self, request: web.Request) -> str | web.Response:
        """Who reads: the bearer token's or the session cookie's holder, or the 401 (403: a session
        used from another site's page) to return."""
        sid = session_id(request, COOKIE)
        if sid is not None:
            return from_cookie(self.sessions, request, COOKIE)
        scheme, _, given = request.headers.get("Authorization", "").partition(" ")
        if scheme.lower() == "bearer" and hmac.compare_digest(given.strip().encode(), self.token):
            return READER
        response = error_body(401, "the floor view's token is needed: sign in (POST /v1/session)")
        response.headers["WWW-Authenticate"] = 'Bearer realm="croupier floor"'
        return response

    async def sign_in(self, request: web.Request) -> web.Response:
        """The token, sent once by the sign-in page, for the session cookie; the session the browser
        held until now ends. Each sign-in, sign-out and refused sign-in is logged (with the address
        it came from), as a table's are audited (decision 0033)."""
        refused = from_own_page(request)
        if refused is None and not hmac.compare_digest(
            validated(SignIn, await json_body(request)).token.encode(), self.token
        ):
            refused = error_body(401, "unknown token")
        if refused is not None:  # logged as the table's API audits it, never the token
            log.warning("floor view: sign-in refused", status=refused.status, remote=request.remote)
            return refused
        previous = request.cookies.get(COOKIE)
        if previous is not None:
            self.sessions.close(previous)
        log.info("floor view: signed in", remote=request.remote)
        sid, lifetime = self.sessions.open(READER), self.sessions.lifetime
        response = reply(replies.SignedIn, operator=READER, role=ROLE, expires_in=int(lifetime))
        set_cookie(response, request, sid, lifetime, COOKIE)
        return response

    async def session(self, request: web.Request) -> web.Response:
        reader = self.reader(request)
        if isinstance(reader, web.Response):
            return reader
        sid = session_id(request, COOKIE)
        expires = None if sid is None else self.sessions.expires_in(sid)
        return reply(replies.SignedIn, operator=reader, role=ROLE, expires_in=expires)

    async def sign_out(self, request: web.Request) -> web.Response:
        reader = self.reader(request)
        if isinstance(reader, web.Response):
            return reader
        sid = session_id(request, COOKIE)
        if sid is not None:
            self.sessions.close(sid)
        log.info("floor view: signed out", remote=request.remote)
        response = reply(replies.SignedOut, signed_out=reader)
        clear_cookie(response, request, COOKIE)
        return response


def view_app(
    store: Store,
    token: str | None,
    sessions: Sessions[str] | None = None,
    links: LinkController | None = None,
) -> web.Application:
    """The floor view's application over ``store``; ``token``: what its data needs (None: open, on
    loopback); ``sessions``: its browsers' sessions (a test's, on a clock it moves); ``links``: the
    link controller of the floor's linked progressives, if it runs any."""
    sign_in = None if token is None else _SignIn(token, Sessions[str]() if sessions is None else sessions)

    @web.middleware
    async def signed_in(request: web.Request, handler: Handler) -> web.StreamResponse:
        if sign_in is not None and request.path.startswith("/floor/v1/"):
            reader = sign_in.reader(request)
            if isinstance(reader, web.Response):
                return reader
        response = await handler(request)
        response.headers.update(pages.HEADERS)
        response.headers["Cache-Control"] = "no-store"
        return response

    app = web.Application(middlewares=[json_errors, signed_in])
    app[STORE_KEY] = store
    app[LINKS_KEY] = links
    app.add_routes(pages.routes({} if sign_in is None else {"/": "sign-in.html"}))
    if sign_in is None:
        app.router.add_get("/", _to_the_view)
    else:
        app.router.add_post("/v1/session", sign_in.sign_in)
        app.router.add_get("/v1/session", sign_in.session)
        app.router.add_delete("/v1/session", sign_in.sign_out)
    app.router.add_get("/floor", _page)
    app.router.add_get("/floor/v1/tables", _tables)
    app.router.add_get("/floor/v1/links", _links)
    app.router.add_static("/static/", PAGES)
    return app


async def _to_the_view(request: web.Request) -> web.Response:
    raise web.HTTPFound("/floor")


async def _page(request: web.Request) -> web.FileResponse:
    return web.FileResponse(PAGES / "floor.html")


async def _tables(request: web.Request) -> web.Response:
    return web.json_response({"tables": request.app[STORE_KEY].tables()})


async def _links(request: web.Request) -> web.Response:
    links = request.app[LINKS_KEY]
    return web.json_response({"links": [] if links is None else links.view()})
