"""Every error the API returns is JSON: ``{"error": ..., "clause": ...}``.

A client (the dealer's screen, the table management system) shows the message and, for an action the
rules forbid, the clause it breaks, so the refusal can be checked against the regulation. A malformed
request is refused before it reaches the table, so it changes nothing.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from typing import Any

from aiohttp import web

from croupier.screen.errors import BadRequest, PromptNotCurrent
from croupier.state.sqlite_file import StateError
from drivers.errors import DeviceRefused
from vocabulary.rules import RuleViolation

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]

#: The largest body the API reads: its bodies are a few fields (a larger one is a 400).
MAX_BODY = 16 * 1024


def error_body(
    status: int, error: str, clause: str | None = None, **more: Any  # Any: JSON values
) -> web.Response:
    return web.json_response({"error": error, "clause": clause, **more}, status=status)


async def raw_body(request: web.Request) -> bytes:
    """The request's body; one larger than MAX_BODY (the application's client_max_size) is a 400."""
    try:
        return await request.read()
    except web.HTTPRequestEntityTooLarge:
        raise BadRequest(f"the body is larger than {MAX_BODY} bytes") from None


async def json_body(request: web.Request) -> object:
    """The request's JSON body; a body that is not JSON, larger than MAX_BODY or nested deeper
    than the parser goes is a 400, not a 500."""
    raw = await raw_body(request)
    if not raw:
        return None
    try:
        return json.loads(raw)
    except RecursionError:
        raise BadRequest("the body is not valid JSON: nested too deeply") from None
    except ValueError as error:
        raise BadRequest(f"the body is not valid JSON: {error}") from None


@web.middleware
async def json_errors(request: web.Request, handler: Handler) -> web.StreamResponse:
    """Turn each failure into its status and a JSON body; the table is left as it was."""
    try:
        return await handler(request)
    except BadRequest as error:
        return error_body(400, str(error))
    except PromptNotCurrent as stale:
        return error_body(409, stale.detail, stale.rule.clause, prompt=stale.shown)
    except RuleViolation as violation:
        return error_body(409, violation.detail, violation.rule.clause)
    except DeviceRefused as refusal:
        return error_body(409, str(refusal))
    except KeyError as missing:  # an unknown fault code: what is latched is in the message
        return error_body(404, str(missing.args[0]) if missing.args else "not found")
    except LookupError as missing:  # nothing to act on, e.g. no round is held
        return error_body(409, str(missing))
    except StateError as down:  # the store unreadable for a while: the service, not the request
        return error_body(503, str(down))
    except web.HTTPException as http:
        if http.status < 400:
            raise
        return error_body(http.status, f"{http.reason}: {request.method} {request.path}")
