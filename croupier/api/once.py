"""Idempotency keys: a request sent again with the same ``Idempotency-Key`` takes effect once.

A dealer's screen retries when an answer is lost on the network, and people double-tap. A request
that creates something (a wager, the table opened or closed, a fault cleared, a ruling) may carry an
``Idempotency-Key`` header; the first request's response with that key is kept in the state
database (croupier.state), so a repeat — even after a restart — changes nothing and is given the
first response again. The same key with another route, operator or body is refused (409) naming
the key: a key names one request. Only a taken request is kept (200, or 202 for the day's opening
started or joined: the repeat is given that reply, the opening as it stood; decision 0037): a
refused one changed nothing, and the same request may be taken later. Why the response is kept after
its effect and before it is returned: decision 0022.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
from collections.abc import Awaitable, Callable

from aiohttp import web

from croupier.api.errors import BadRequest, raw_body
from croupier.state import KeptResponse, TableState
from vocabulary.operators import Operator
from vocabulary.rules import Rule, RuleViolation

HEADER = "Idempotency-Key"
KEY_NAMES_ONE_REQUEST = Rule("decision 0022", "an idempotency key names one request: route, operator, body")
#: Keys are the client's: a UUID fits; anything printable up to this length is taken.
LONGEST_KEY = 200


class Once:
    """The idempotency keys of one table's API, kept in ``state``."""

    def __init__(self, state: TableState) -> None:
        self.state = state
        self._in_flight: dict[str, asyncio.Event] = {}

    async def respond(
        self, request: web.Request, operator: Operator, act: Callable[[], Awaitable[web.StreamResponse]]
    ) -> web.StreamResponse:
        """``act``'s response, or, for a key already used, the response it was given."""
        key = request.headers.get(HEADER)
        if key is None:
            return await act()
        if not 1 <= len(key) <= LONGEST_KEY or not key.isprintable():
            raise BadRequest(f"header {HEADER!r} must be 1 to {LONGEST_KEY} printable characters")
        route = f"{request.method} {request.path}"
        digest = hashlib.sha256(route.encode() + b"\n" + await raw_body(request)).hexdigest()
        while (running := self._in_flight.get(key)) is not None:
            await running.wait()  # the same request sent twice at once: the first one's response
        kept = self.state.kept_response(key)
        if kept is not None:
            if (kept.route, kept.operator, kept.request_hash) != (route, operator.ident, digest):
                used = f"{kept.route} by {kept.operator}"
                refused = f"{HEADER} {key!r} was used for another request ({used}); send a new key"
                raise RuleViolation(KEY_NAMES_ONE_REQUEST, refused)
            return web.json_response(kept.body, status=kept.status, headers={"Idempotent-Replay": "true"})
        running = self._in_flight[key] = asyncio.Event()
        try:
            response = await act()
            taken = response.status in (200, 202)
            if taken and isinstance(response, web.Response) and response.body is not None:
                body = json.loads(bytes(response.body))  # type: ignore[arg-type]
                kept = KeptResponse(route, operator.ident, digest, response.status, body)
                self.state.keep_response(key, kept)
            return response
        finally:
            del self._in_flight[key]
            running.set()
