"""The API's OpenAPI 3.1 document, generated from the models the requests are read with
(croupier.screen.bodies, croupier.tables.registry.answer_bodies) and the replies are built with
(croupier.api.replies): an operationId, the request and response schemas and the error schema for
every operation.

Served at ``GET /openapi.json`` and committed as docs/api/openapi.json, which
``python -m croupier.api.openapi`` rewrites; a test fails when the committed copy is stale.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel
from pydantic.json_schema import models_json_schema

from croupier.api import replies
from croupier.api.documents import render, write
from croupier.api.once import HEADER
from croupier.api.sessions import COOKIE
from croupier.screen import bodies
from croupier.screen.players import ANSWERS
from croupier.tables.registry import answer_bodies

COMMITTED = Path(__file__).resolve().parents[2] / "docs" / "api" / "openapi.json"
REF = "#/components/schemas/{model}"

MEANING = {
    400: "Malformed body: the message names the field; nothing changed",
    401: "No token, or an unknown token",
    403: "A dealer asked a supervisor action (the clause is vocabulary.operators.SUPERVISOR_CLEARS'), or "
    "a session used from another origin or without X-Croupier-Request",
    404: "Not latched, or no such route",
    409: "Refused by the rules (the clause it breaks) or by the device, an answer to a prompt no longer "
    "shown (the prompt shown is in `prompt`), or an idempotency key used for another request",
}
SUPERVISOR = "Supervisor only (decision 0017: no dealer override)."
ANSWER = (
    "The body names the prompt it answers (`prompt`). Refused (409, with the clause) unless that "
    "prompt is shown and awaits this kind of answer; answers once the round has taken it and its "
    "records are on disk. A repeat of an answer that closed its prompt changes nothing and is given "
    "the first one's reply (decision 0022)."
)

SESSION = (
    "The session is named only by the cookie `croupier_session` (HttpOnly, SameSite=Strict; Secure "
    "over TLS), which every route takes in place of the bearer token. A request authenticated by it "
    "that changes something must carry the header `X-Croupier-Request`, and the `Origin` a browser "
    "names must be the service's own (the WebSocket's always): else 403 "
    "(docs/decisions/0033-browser-sign-in.md)."
)


@dataclass(frozen=True)
class Operation:
    method: str
    path: str
    operation_id: str
    summary: str
    reply: type[BaseModel] | None
    request: tuple[type[BaseModel], ...] = ()
    errors: tuple[int, ...] = ()
    supervisor: bool = False
    description: str = ""
    public: bool = False  # asked without signing in
    accepted: type[BaseModel] | None = None  # the 202 reply of an action that runs on (decision 0037)


def _answers() -> list[Operation]:
    operations = []
    summaries = {
        "/v1/wagers": ("keyWager", "A wager while betting is open: the game's wager fields, in cents"),
        "/v1/rounds/no-more-bets": ("callNoMoreBets", "No more bets: the deal begins"),
        "/v1/decisions": ("keyDecision", "The decision (or Over/Under election) of the seat in turn"),
        "/v1/insurance": ("keyInsurance", "The insurance answer of the seat in turn (672a.7(f))"),
        "/v1/stub-count": ("keyStubCount", "The dealer's count of the stub (677a.10(d), 657a.9(d))"),
        "/v1/chip-count": ("keyChipCount", "The dealer's count of the progressive chips (657a.9(a)(3))"),
        "/v1/misdeal-finding": (
            "keyMisdealFinding",
            "After a wrong stub count, whether the cards were misdealt (677a.10(f))",
        ),
        "/v1/place-counts": (
            "keyPlaceCounts",
            "After a wrong stub count, the cards counted at each place (657a.9(f))",
        ),
        "/v1/hand-report": (
            "keyHandReport",
            "A Crazy 4 Poker hand turned up, where the shuffler reports no order (657a.1)",
        ),
    }
    bodies = answer_bodies()
    for path, kinds in ANSWERS.items():
        models = tuple(model for kind in kinds for body in bodies[kind] for model in body.models)
        operation_id, summary = summaries[path]
        operations.append(
            Operation(
                "post", path, operation_id, summary, replies.Taken, models, (400, 409), description=ANSWER
            )
        )
    return operations


def operations() -> list[Operation]:
    """Every operation of the API (croupier.api.app.TableApi.routes)."""
    return [
        Operation("get", "/openapi.json", "getOpenApi", "This document", None, public=True),
        Operation(
            "get", "/asyncapi.json", "getAsyncApi", "The AsyncAPI document of /v1/events", None, public=True
        ),
        Operation("get", "/", "getSignInPage", "The browser's sign-in page (HTML)", None, public=True),
        Operation("get", "/dealer", "getDealerScreen", "The dealer's screen (HTML)", None, public=True),
        Operation(
            "get", "/supervisor", "getSupervisorConsole", "The supervisor's console (HTML)", None, public=True
        ),
        Operation("get", "/pages/{name}", "getPageFile", "A script or style of the pages", None, public=True),
        Operation(
            "post",
            "/v1/session",
            "signIn",
            "A browser signs in with the role's token: the reply sets the HttpOnly session cookie",
            replies.SignedIn,
            (bodies.SignIn,),
            (400, 403),
            public=True,
            description=SESSION,
        ),
        Operation("get", "/v1/session", "getSession", "Who the request is signed in as", replies.SignedIn),
        Operation(
            "delete",
            "/v1/session",
            "signOut",
            "Sign out: the session is deleted and its cookie cleared",
            replies.SignedOut,
            errors=(403,),
        ),
        Operation(
            "get",
            "/v1/table",
            "getTable",
            "Table state: rounds, prompt, shoe, faults, held round; no face-down card",
            replies.TableState,
        ),
        Operation(
            "get", "/v1/prompt", "getPrompt", "What the table waits for (null: nothing)", replies.PromptReply
        ),
        Operation(
            "get",
            "/v1/round",
            "getRound",
            "The round in play (or the last one) as the event stream carried its records; a face-down card "
            "by its commitment only",
            replies.CurrentRound,
        ),
        Operation("get", "/v1/faults", "getFaults", "Faults latched on the table's devices", replies.Faults),
        Operation(
            "get",
            "/v1/devices",
            "getDevices",
            "Each device's link state and the last error its link met (never a card)",
            replies.Devices,
        ),
        Operation(
            "get",
            "/v1/progressive",
            "getProgressive",
            "The progressive's levels: meters, hits, and the win a frozen level shows until its keyed reset",
            replies.ProgressiveLevels,
            errors=(404,),
        ),
        Operation(
            "get",
            "/v1/audit",
            "getAudit",
            "The audit trail's head, whether it is sealed, and its verification when the service opened it",
            replies.AuditStatus,
        ),
        Operation(
            "post",
            "/v1/faults/{code}/clear",
            "clearFault",
            "Clear a latched fault",
            replies.Cleared,
            errors=(403, 404, 409),
            supervisor=True,
        ),
        Operation(
            "post",
            "/v1/rounds/held/resolve",
            "resolveHeldRound",
            "Rule on the held round",
            replies.Ruled,
            (bodies.Ruling,),
            (400, 403, 409),
            supervisor=True,
        ),
        Operation(
            "post",
            "/v1/table/dealer-change",
            "changeDealer",
            "A new dealer, between rounds (a burn follows, 672a.7(c))",
            replies.DealerChanged,
            (bodies.DealerChange,),
            (400, 409),
        ),
        Operation(
            "post",
            "/v1/table/open",
            "openTable",
            "Open the table: betting opens for the next round",
            replies.Opened,
            errors=(403, 409),
            supervisor=True,
            description="On real equipment the day's opening starts (or, running, is joined) and runs "
            "on: 202 with the opening as it stands; its steps and end on the event stream (`opening`) "
            "and in the table's state.",
            accepted=replies.Opening,
        ),
        Operation(
            "post",
            "/v1/table/close",
            "closeTable",
            "Close the table: no new round begins; one in play is finished",
            replies.Opened,
            errors=(403,),
            supervisor=True,
        ),
        Operation(
            "post",
            "/v1/devices/{name}/trace",
            "switchWireTrace",
            "Switch a device's hex wire trace on or off (docs/wire-trace.md)",
            replies.Traced,
            (bodies.Trace,),
            (400, 403, 404, 409),
            supervisor=True,
        ),
        Operation(
            "post",
            "/v1/devices/{name}/verify",
            "verifyFirmware",
            "Check a device's firmware for authenticity now (461a.20(b)); a failure latches a fault",
            replies.Verified,
            errors=(403, 404, 409),
            supervisor=True,
        ),
        Operation(
            "post",
            "/v1/progressive/levels/{level}/reset",
            "resetProgressiveLevel",
            "The keyed reset of a level a hit froze (605a.7(a)); betting opens again",
            replies.LevelReset,
            (bodies.KeyedReset,),
            (400, 403, 404, 409),
            supervisor=True,
        ),
        *_answers(),
        Operation("get", "/v1/events", "streamEvents", "WebSocket: the event stream (asyncapi.json)", None),
    ]


def _schemas(listed: list[Operation]) -> dict[str, Any]:  # Any: a JSON document
    models: set[type[BaseModel]] = {
        replies.Error,
        *(m for op in listed for m in (*op.request, *(r for r in (op.reply, op.accepted) if r))),
    }
    ordered = sorted(models, key=lambda model: model.__name__)
    _, schema = models_json_schema(
        [(model, "validation" if model in _requests(listed) else "serialization") for model in ordered],
        ref_template=REF,
    )
    return dict(sorted(schema.get("$defs", {}).items()))


def _requests(listed: list[Operation]) -> set[type[BaseModel]]:
    return {model for op in listed for model in op.request}


def _ref(model: type[BaseModel]) -> dict[str, str]:
    return {"$ref": REF.format(model=model.__name__)}


def _operation(op: Operation) -> dict[str, Any]:  # Any: a JSON document
    error = {"content": {"application/json": {"schema": _ref(replies.Error)}}}
    ok: dict[str, Any] = {"description": "Done"}  # Any: a JSON document
    if op.reply is not None:
        ok["content"] = {"application/json": {"schema": _ref(op.reply)}}
    accepted = {} if op.accepted is None else {
        "202": {
            "description": "Accepted: runs on",
            "content": {"application/json": {"schema": _ref(op.accepted)}},
        }
    }
    responses = {"200": ok} | accepted | {
        str(code): {"description": MEANING[code], **error} for code in (401, *op.errors)
    }
    described = " ".join(filter(None, [SUPERVISOR if op.supervisor else "", op.description]))
    built: dict[str, Any] = {"operationId": op.operation_id, "summary": op.summary}  # Any: a JSON document
    if described:
        built["description"] = described
    parameters: list[dict[str, object]] = [
        {
            "name": name,
            "in": "path",
            "required": True,
            "schema": {"type": "integer" if name == "level" else "string"},
        }
        for name in ("code", "name", "level")
        if "{" + name + "}" in op.path
    ]
    if op.method == "post" and not op.public:
        parameters.append(
            {
                "name": HEADER,
                "in": "header",
                "required": False,
                "description": "Sent again with the same body, the request takes effect once and is given "
                "the first reply, also after a restart (decision 0022)",
                "schema": {"type": "string", "minLength": 1, "maxLength": 200},
            }
        )
    if parameters:
        built["parameters"] = parameters
    if op.request:
        schema = _ref(op.request[0]) if len(op.request) == 1 else {"oneOf": [_ref(m) for m in op.request]}
        built["requestBody"] = {"required": True, "content": {"application/json": {"schema": schema}}}
    if op.public:
        built["security"] = []
    if op.public and op.reply is None:
        responses = {"200": {"description": op.summary}}
    if op.path == "/v1/events":
        responses = {
            "101": {"description": "Switching to WebSocket"},
            "401": {"description": MEANING[401], **error},
        }
    built["responses"] = responses
    return built


def document() -> dict[str, Any]:  # Any: a JSON document
    """The OpenAPI document of the API's routes."""
    listed = operations()
    paths: dict[str, Any] = {}  # Any: a JSON document
    for op in listed:
        paths.setdefault(op.path, {})[op.method] = _operation(op)
    return {
        "openapi": "3.1.0",
        "info": {"title": "Croupier table API", "version": "0.1.0", "description": "See docs/api.md."},
        "servers": [{"url": "http://127.0.0.1:8443"}],
        "security": [{"bearer": []}, {"session": []}],
        "paths": paths,
        "components": {
            "securitySchemes": {
                "bearer": {"type": "http", "scheme": "bearer"},
                "session": {"type": "apiKey", "in": "cookie", "name": COOKIE},
            },
            "schemas": _schemas(listed),
        },
    }


if __name__ == "__main__":
    write(COMMITTED, render(document()))
