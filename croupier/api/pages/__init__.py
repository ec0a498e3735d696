"""The pages a browser shows, served by the daemon as they are (no build step): the sign-in page at
``/``, the dealer's screen at ``/dealer``, the supervisor's console at ``/supervisor``, and their
scripts and style under ``/pages/``. The floor service's view (floor.view) serves the same sign-in
page and scripts, so a browser signs in to it the same way.

The pages carry no data: each asks the API for it as the operator signed in (the session cookie,
croupier.api.sessions), so they are served to anyone. Each is sent with a Content-Security-Policy
that lets a page run only this service's own scripts and talk only to this service, so that a
card's face or a control cannot be lifted into, or out of, another site's page.
"""

from __future__ import annotations

from collections.abc import Mapping
from importlib import resources

from aiohttp import web

#: The pages by the path they are served at.
PAGES = {"/": "sign-in.html", "/dealer": "dealer.html", "/supervisor": "supervisor.html"}
TYPES = {".html": "text/html", ".js": "text/javascript", ".css": "text/css", ".svg": "image/svg+xml"}
HEADERS = {
    "Content-Security-Policy": "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self'; "
    "connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-cache",
}


def _files() -> dict[str, bytes]:
    """Every page, script and style of the package, by file name."""
    folder = resources.files(__name__)
    return {
        item.name: item.read_bytes()
        for item in folder.iterdir()
        if item.is_file() and any(item.name.endswith(suffix) for suffix in TYPES)
    }


def routes(served_pages: Mapping[str, str] = PAGES) -> list[web.RouteDef]:
    """The pages' routes: each of ``served_pages`` (path -> file) at its path, the scripts, styles and
    images at ``/pages/{name}``."""
    files = _files()

    def served(name: str) -> web.Response:
        suffix = name[name.rindex(".") :]
        return web.Response(body=files[name], content_type=TYPES[suffix], headers=HEADERS)

    async def page(request: web.Request) -> web.Response:
        return served(served_pages[request.path])

    async def asset(request: web.Request) -> web.Response:
        name = request.match_info["name"]
        if name not in files or name.endswith(".html"):
            raise web.HTTPNotFound()
        return served(name)

    return [*(web.get(path, page) for path in served_pages), web.get("/pages/{name}", asset)]
