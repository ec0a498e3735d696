"""Every error the API returns is JSON: ``{"error": ..., "clause": ...}``.

A client (the dealer's screen, the table management system) shows the message and, for an action the
rules forbid, the clause it breaks, so the refusal can be checked against the regulation. A malformed
request is refused before it reaches the table, so it changes nothing.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from aiohttp import web

from devices.rules import RuleViolation
from drivers.errors import DeviceRefused

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


class BadRequest(Exception):
    """A request the API cannot act on: bad JSON, or a field missing or of the wrong type."""


def error_body(status: int, error: str, clause: str | None = None) -> web.Response:
    return web.json_response({"error": error, "clause": clause}, status=status)


def field(body: object, name: str, choices: tuple[str, ...] | None = None) -> str:
    """The non-empty string field ``name`` of a JSON object body, one of ``choices`` if given."""
    if not isinstance(body, dict):
        raise BadRequest(f"the body must be a JSON object with the field {name!r}")
    if name not in body:
        raise BadRequest(f"missing field {name!r}")
    value = body[name]
    if not isinstance(value, str) or not value.strip():
        raise BadRequest(f"field {name!r} must be a non-empty string, got {value!r}")
    if choices is not None and value not in choices:
        raise BadRequest(f"field {name!r} must be one of {list(choices)}, got {value!r}")
    return value


async def json_body(request: web.Request) -> object:
    """The request's JSON body; a body that is not JSON is a 400, not a 500."""
    try:
        return await request.json()
    except ValueError as error:
        raise BadRequest(f"the body is not valid JSON: {error}") from None


@web.middleware
async def json_errors(request: web.Request, handler: Handler) -> web.StreamResponse:
    """Turn each failure into its status and a JSON body; the table is left as it was."""
    try:
        return await handler(request)
    except BadRequest as error:
        return error_body(400, str(error))
    except RuleViolation as violation:
        return error_body(409, violation.detail, violation.rule.clause)
    except DeviceRefused as refusal:
        return error_body(409, str(refusal))
    except KeyError as missing:  # an unknown fault code: what is latched is in the message
        return error_body(404, str(missing.args[0]) if missing.args else "not found")
    except LookupError as missing:  # nothing to act on, e.g. no round is held
        return error_body(409, str(missing))
    except web.HTTPException as http:
        if http.status < 400:
            raise
        return error_body(http.status, f"{http.reason}: {request.method} {request.path}")
