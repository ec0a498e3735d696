"""The API's OpenAPI 3.1 document, built here and nowhere else.

Served at ``GET /openapi.json`` and committed as docs/api/openapi.json, which
``python -m croupier.api.openapi`` rewrites; a test fails when the committed copy is stale.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

COMMITTED = Path(__file__).resolve().parents[2] / "docs" / "api" / "openapi.json"

_ERROR = {"$ref": "#/components/schemas/Error"}


def _responses(ok: str, *codes: int) -> dict[str, Any]:
    """The success response and the error statuses a route can answer, each with the Error body."""
    meaning = {
        400: "Malformed body: the message names the field; nothing changed",
        401: "No token, or an unknown token",
        403: "A dealer asked a supervisor action; the clause is devices.faults.SUPERVISOR_CLEARS'",
        404: "Not latched, or no such route",
        409: "Refused by the rules (the clause it breaks) or by the device",
    }
    body = {"content": {"application/json": {"schema": _ERROR}}}
    return {"200": {"description": ok}} | {
        str(code): {"description": meaning[code], **body} for code in (401, *codes)
    }


def _body(name: str, enum: list[str] | None = None) -> dict[str, Any]:
    prop: dict[str, Any] = {"type": "string", "minLength": 1}
    if enum:
        prop["enum"] = enum
    schema = {"type": "object", "required": [name], "properties": {name: prop}}
    return {"required": True, "content": {"application/json": {"schema": schema}}}


#: The routes that key an answer for the prompt shown, with what each keys (croupier.api.app).
ANSWER_ROUTES = {
    "/v1/wagers": "A wager while betting is open: the game's wager fields, in cents (docs/api.md)",
    "/v1/rounds/no-more-bets": "No more bets: the deal begins",
    "/v1/decisions": "The decision (or election) of the seat in turn",
    "/v1/insurance": "The insurance answer of the seat in turn (672a.7(f))",
    "/v1/stub-count": "The dealer's count of the stub (677a.10(d), 657a.9(d))",
    "/v1/chip-count": "The dealer's count of the progressive chips (657a.9(a)(3))",
    "/v1/misdeal-finding": "After a wrong stub count, whether the cards were misdealt (677a.10(f))",
    "/v1/place-counts": "After a wrong stub count, the cards counted at each place (657a.9(f))",
    "/v1/hand-report": "A Crazy 4 Poker hand turned up, where the shuffler reports no order (657a.1)",
}


def _answer(summary: str) -> dict[str, Any]:
    schema = {"type": "object", "description": "See docs/api.md for each game's fields"}
    return {
        "post": {
            "summary": summary,
            "description": "Refused (409, with the clause) unless the table waits for it; answers once "
            "the round has taken it and its records are on disk.",
            "requestBody": {"required": True, "content": {"application/json": {"schema": schema}}},
            "responses": _responses("Taken", 400, 409),
        }
    }


def document() -> dict[str, Any]:
    """The OpenAPI document of the API's routes."""
    supervisor = "Supervisor only (decision 0017: no dealer override)."
    return {
        "openapi": "3.1.0",
        "info": {"title": "Croupier table API", "version": "0.1.0", "description": "See docs/api.md."},
        "servers": [{"url": "http://127.0.0.1:8443"}],
        "security": [{"bearer": []}],
        "paths": {
            "/openapi.json": {
                "get": {
                    "summary": "This document",
                    "security": [],
                    "responses": {"200": {"description": "OpenAPI 3.1"}},
                }
            },
            "/v1/table": {
                "get": {
                    "summary": "Table state: rounds, prompt, shoe, faults, held round; no face-down card",
                    "responses": _responses("The state"),
                }
            },
            "/v1/faults": {
                "get": {
                    "summary": "Faults latched on the table's devices",
                    "responses": _responses("The faults"),
                }
            },
            "/v1/faults/{code}/clear": {
                "post": {
                    "summary": "Clear a latched fault",
                    "description": supervisor,
                    "parameters": [
                        {"name": "code", "in": "path", "required": True, "schema": {"type": "string"}}
                    ],
                    "responses": _responses("Cleared", 403, 404, 409),
                }
            },
            "/v1/rounds/held/resolve": {
                "post": {
                    "summary": "Rule on the held round",
                    "description": supervisor,
                    "requestBody": _body("resolution", ["continue", "void"]),
                    "responses": _responses("Ruled", 400, 403, 409),
                }
            },
            "/v1/table/dealer-change": {
                "post": {
                    "summary": "A new dealer, between rounds (a burn follows, 672a.7(c))",
                    "requestBody": _body("dealer"),
                    "responses": _responses("Changed", 400, 409),
                }
            },
            "/v1/table/open": {
                "post": {
                    "summary": "Open the table: betting opens for the next round",
                    "description": supervisor,
                    "responses": _responses("Opened", 403),
                }
            },
            "/v1/table/close": {
                "post": {
                    "summary": "Close the table: no new round begins; one in play is finished",
                    "description": supervisor,
                    "responses": _responses("Closed", 403),
                }
            },
            "/v1/devices/{name}/trace": {
                "post": {
                    "summary": "Switch a device's hex wire trace on or off (docs/wire-trace.md)",
                    "description": supervisor,
                    "parameters": [
                        {"name": "name", "in": "path", "required": True, "schema": {"type": "string"}}
                    ],
                    "requestBody": {
                        "required": True,
                        "content": {
                            "application/json": {
                                "schema": {
                                    "type": "object",
                                    "required": ["enabled"],
                                    "properties": {"enabled": {"type": "boolean"}},
                                }
                            }
                        },
                    },
                    "responses": _responses("Switched", 400, 403, 404, 409),
                }
            },
            "/v1/progressive/levels/{level}/reset": {
                "post": {
                    "summary": "The keyed reset of a level a hit froze (605a.7(a)); betting opens again",
                    "description": supervisor,
                    "parameters": [
                        {"name": "level", "in": "path", "required": True, "schema": {"type": "integer"}}
                    ],
                    "requestBody": _body("key"),
                    "responses": _responses("Reset", 400, 403, 404, 409),
                }
            },
            "/v1/prompt": {
                "get": {
                    "summary": "What the table waits for from the screen (null: nothing)",
                    "responses": _responses("The prompt"),
                }
            },
            **{path: _answer(summary) for path, summary in ANSWER_ROUTES.items()},
            "/v1/events": {
                "get": {
                    "summary": "WebSocket: device events and round records as JSON messages",
                    "responses": {
                        "101": {"description": "Switching to WebSocket"},
                        "401": {"description": "No or unknown token"},
                    },
                }
            },
        },
        "components": {
            "securitySchemes": {"bearer": {"type": "http", "scheme": "bearer"}},
            "schemas": {
                "Error": {
                    "type": "object",
                    "required": ["error", "clause"],
                    "properties": {"error": {"type": "string"}, "clause": {"type": ["string", "null"]}},
                }
            },
        },
    }


def render() -> str:
    return json.dumps(document(), indent=2) + "\n"


if __name__ == "__main__":
    COMMITTED.write_text(render())
    print(f"wrote {COMMITTED}")
