"""Browser sessions: a dealer or a supervisor signs in with the role's token and the browser holds only
an HttpOnly cookie naming a session the service keeps (docs/decisions/0033-browser-sign-in.md).

A browser cannot send an ``Authorization`` header on a WebSocket, and a token kept where the page's
script can read it (localStorage, sessionStorage, a cookie without HttpOnly) is read by any script
that gets into the page. So ``POST /v1/session`` takes the token once and answers with the cookie
``croupier_session``: HttpOnly (no script reads it), SameSite=Strict (no other site's page sends it),
Path=/, Secure when the API is served over TLS. The cookie's value is a random id (256 bits) naming a
session held in memory, bound to the operator, with an expiry; signing out (or signing in again on
the same browser) deletes it, and a restart of the service signs everyone out. Every route takes the
session as it takes a bearer token, and an event stream opened with it ends when it does.

The floor service's view (floor.view) signs its browsers in the same way, with its own cookie name
(a browser keeps cookies by host, not port, so a floor view and a table's screens on one host would
otherwise sign each other out): what a session names is the table's ``Operator`` here and the
floor view's reader there, hence ``Sessions`` over any holder.

A cookie is sent by the browser whoever made the page that asks, so a request carrying only the
cookie must show it comes from this service's own pages: a request that changes something carries
the header ``X-Croupier-Request`` (a page of another site cannot add a header without asking first,
and the service answers no such question) and, if the browser names an ``Origin``, this service's
own; the WebSocket, which a page of any site may open, must name this service's ``Origin``.
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Generic, TypeVar

from aiohttp import web

from croupier.api.errors import error_body

#: Who a session is for: an operator at a table, the floor view's reader on the floor.
Holder = TypeVar("Holder")
COOKIE = "croupier_session"
#: The header a request authenticated by the cookie must carry to change anything (any value).
REQUEST_HEADER = "X-Croupier-Request"
#: A session lasts a shift; after it the screen asks for the token again.
LIFETIME = 12 * 3600.0
#: Requests that read and change nothing; every other method needs the request header.
SAFE = ("GET", "HEAD")
#: Dead session ids remembered, so that a page asking again with one is audited once (``refused_again``).
REFUSED_REMEMBERED = 1024


@dataclass(frozen=True)
class Session(Generic[Holder]):
    operator: Holder
    expires: float  # on the sessions' clock


class Sessions(Generic[Holder]):
    """The signed-in browsers of one service: session id -> Session, in memory only."""

    def __init__(self, lifetime: float = LIFETIME, clock: Callable[[], float] = time.monotonic) -> None:
        self.lifetime, self._clock = lifetime, clock
        self._sessions: dict[str, Session[Holder]] = {}
        self._refused: dict[str, None] = {}  # dead ids refused, oldest first (``refused_again``)

    def open(self, operator: Holder) -> str:
        """A new session for ``operator``; its id, for the cookie."""
        now = self._clock()
        self._sessions = {sid: s for sid, s in self._sessions.items() if s.expires > now}
        sid = secrets.token_urlsafe(32)
        self._sessions[sid] = Session(operator, now + self.lifetime)
        return sid

    def operator(self, sid: str) -> Holder | None:
        """The session's operator; None for an unknown, signed-out or expired one (which is dropped)."""
        session = self._sessions.get(sid)
        if session is None:
            return None
        if session.expires <= self._clock():
            del self._sessions[sid]
            return None
        return session.operator

    def expires_in(self, sid: str) -> int:
        """Whole seconds the session has left (0 for none)."""
        return int(self.remaining(sid))

    def remaining(self, sid: str) -> float:
        """Seconds the session has left on the sessions' clock (0 for none)."""
        session = self._sessions.get(sid)
        return 0.0 if session is None else max(0.0, session.expires - self._clock())

    def refused_again(self, sid: str) -> bool:
        """Whether the dead session ``sid`` (unknown, signed out or expired) was refused before: a
        page left open across a restart asks with the same dead id until it is told to sign in, and
        that is one refused access, not one per retry. The last ``REFUSED_REMEMBERED`` ids are kept."""
        if sid in self._refused:
            return True
        self._refused[sid] = None
        if len(self._refused) > REFUSED_REMEMBERED:
            del self._refused[next(iter(self._refused))]
        return False

    def close(self, sid: str) -> Holder | None:
        """Sign out: the session is deleted; its operator, if it was open."""
        operator = self.operator(sid)
        self._sessions.pop(sid, None)
        return operator


def session_id(request: web.Request, cookie: str = COOKIE) -> str | None:
    """The id of the session the request is judged by: its cookie's, unless it carries an
    ``Authorization`` header (which alone judges it then)."""
    return None if "Authorization" in request.headers else request.cookies.get(cookie)


def from_cookie(
    sessions: Sessions[Holder], request: web.Request, cookie: str = COOKIE
) -> Holder | web.Response:
    """Who holds the request's session cookie, or the 401 (403 for a request not from this
    service's own pages) to return. Only called for a request that carries the cookie and no bearer
    token."""
    operator = sessions.operator(request.cookies[cookie])
    if operator is None:
        return error_body(401, "the session has expired or was signed out: sign in again")
    return from_own_page(request) or operator


def from_own_page(request: web.Request) -> web.Response | None:
    """The 403 to return unless the request comes from this service's own pages: the ``Origin`` the
    browser names (always named on a WebSocket) is this service's, and a request that may change
    something carries ``REQUEST_HEADER``."""
    origin = request.headers.get("Origin")
    websocket = request.headers.get("Upgrade", "").lower() == "websocket"
    if (websocket or origin is not None) and origin != own_origin(request):
        return error_body(403, f"a session is used only from this service's own pages, not from {origin}")
    if request.method not in SAFE and REQUEST_HEADER not in request.headers:
        return error_body(403, f"{REQUEST_HEADER} missing: a browser changes things only from our pages")
    return None


def own_origin(request: web.Request) -> str:
    """This service's origin as the browser names it: scheme, host and port."""
    return f"{request.scheme}://{request.host}"


def set_cookie(
    response: web.StreamResponse, request: web.Request, sid: str, lifetime: float, cookie: str = COOKIE
) -> None:
    response.set_cookie(
        cookie,
        sid,
        max_age=int(lifetime),
        path="/",
        httponly=True,
        samesite="Strict",
        secure=request.secure,
    )


def clear_cookie(response: web.StreamResponse, request: web.Request, cookie: str = COOKIE) -> None:
    response.del_cookie(cookie, path="/", httponly=True, samesite="Strict", secure=request.secure)
