"""The floor view: one page, served by the floor service, showing every table it has heard.

Read-only: the page and its one request, ``GET /floor/v1/tables`` (every table's game, state, faults,
held rounds, links, meters, rounds in the last hour and whether it went dark, as the store keeps
them), change nothing, and nothing else is served. With ``[view] token_file`` the request needs
that token as a bearer token, which the page asks for once (decision 0036); without, the view is
served only on loopback (croupier.config.floor_service).
"""

from __future__ import annotations

import hmac
import stat
from pathlib import Path

from aiohttp import web
from aiohttp.typedefs import Handler

from croupier.errors import StartupError
from floor.store import Store

PAGES = Path(__file__).parent / "pages"
#: 32 characters of a random token (``openssl rand -hex 16``) are 128 bits, as the API's are.
MIN_TOKEN_LENGTH = 32
STORE_KEY = web.AppKey("store", Store)


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


def view_app(store: Store, token: str | None) -> web.Application:
    """The floor view's application over ``store``; ``token``: the bearer token its data needs."""

    @web.middleware
    async def signed_in(request: web.Request, handler: Handler) -> web.StreamResponse:
        if token is not None and request.path.startswith("/floor/v1/"):
            scheme, _, given = request.headers.get("Authorization", "").partition(" ")
            if scheme.lower() != "bearer" or not hmac.compare_digest(given.strip().encode(), token.encode()):
                return web.json_response(
                    {"error": "unauthorised", "detail": "the floor view's token is needed"},
                    status=401,
                    headers={"WWW-Authenticate": "Bearer"},
                )
        response = await handler(request)
        response.headers["Cache-Control"] = "no-store"
        response.headers["Content-Security-Policy"] = (
            "default-src 'self'; img-src 'self' data:; frame-ancestors 'none'"
        )
        return response

    app = web.Application(middlewares=[signed_in])
    app[STORE_KEY] = store
    app.router.add_get("/", _page)
    app.router.add_get("/floor/v1/tables", _tables)
    app.router.add_static("/static/", PAGES)
    return app


async def _page(request: web.Request) -> web.FileResponse:
    return web.FileResponse(PAGES / "floor.html")


async def _tables(request: web.Request) -> web.Response:
    return web.json_response({"tables": request.app[STORE_KEY].tables()})
