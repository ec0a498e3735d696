"""The AsyncAPI 3.0 document of the event stream (``GET /v1/events``, a WebSocket), built here.

Served at ``GET /asyncapi.json`` and committed as docs/api/asyncapi.json, which
``python -m croupier.api.asyncapi`` rewrites; a test fails when the committed copy is stale. The
messages are those croupier.api.app publishes (croupier.api.events): device events, round records,
a round's beginning and end, the prompt shown, the dealer's physical steps and the steps of the
table's opening. None carries a
face-down card's face (decision 0018).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from croupier.api.documents import render, write
from croupier.api.replies import PromptShown

COMMITTED = Path(__file__).resolve().parents[2] / "docs" / "api" / "asyncapi.json"


def _message(
    name: str, summary: str, properties: dict[str, Any], required: list[str]  # Any: a JSON document
) -> dict[str, Any]:  # Any: a JSON document
    schema = {
        "type": "object",
        "required": ["type", *required],
        "properties": {"type": {"const": name}, **properties},
    }
    return {"name": name, "summary": summary, "payload": schema}


#: The prompt as croupier.api.replies.PromptShown describes it (GET /v1/prompt shows the same).
_PROMPT = {"anyOf": [PromptShown.model_json_schema(), {"type": "null"}]}

MESSAGES: dict[str, dict[str, Any]] = {  # Any: a JSON document
    "device_event": _message(
        "device_event",
        "An event of one of the table's devices or links, as its machine applies it",
        {"event": {"type": "string"}, "fields": {"type": "object"}},
        ["event", "fields"],
    ),
    "round_began": _message(
        "round_began",
        "A round has begun: its first wager was taken (its number is taken)",
        {"round": {"type": "integer"}},
        ["round"],
    ),
    "round_record": _message(
        "round_record",
        "One record of the round in play, as it is made and written to the audit trail (docs/audit.md); "
        "a face-down card by its commitment until turned up",
        {
            "record": {
                "type": "object",
                "required": ["kind"],
                "properties": {"kind": {"type": "string"}},
            }
        },
        ["record"],
    ),
    "table_record": _message(
        "table_record",
        "A record the table makes between rounds (a burn, docs/audit.md), with its fields; never a "
        "burn card's face",
        {"kind": {"type": "string"}},
        ["kind"],
    ),
    "opening": _message(
        "opening",
        "A step of the table's opening for the day as it begins (state \"under way\"); \"held\" with "
        "the fault and its clause as the step when a latched fault holds it until a supervisor's "
        "clear; then \"open\" once the table is open, or \"refused\" with the reason as the step",
        {"step": {"type": "string"}, "state": {"enum": ["under way", "held", "open", "refused"]}},
        ["step", "state"],
    ),
    "round_ended": _message(
        "round_ended",
        "The round is complete, its cards in the rack, settled or voided",
        {"round": {"type": "integer"}, "state": {"type": "string"}},
        ["round", "state"],
    ),
    "prompt": _message(
        "prompt", "The prompt the screen shows now (null: nothing awaited)", {"prompt": _PROMPT}, ["prompt"]
    ),
    "dealer_step": _message(
        "dealer_step",
        "A physical step the table asks of the dealer now (place a card, burn, pick up ...), "
        "with its arguments",
        {"step": {"type": "string"}},
        ["step"],
    ),
}


def document() -> dict[str, Any]:  # Any: a JSON document
    """The AsyncAPI document of the event stream."""
    refs = {name: {"$ref": f"#/components/messages/{name}"} for name in MESSAGES}
    return {
        "asyncapi": "3.0.0",
        "info": {
            "title": "Croupier table events",
            "version": "0.1.0",
            "description": "The event stream of one table: see docs/api.md. Messages are JSON objects "
            "told apart by `type`; a subscriber too slow to keep up loses the oldest it has not read.",
        },
        "servers": {
            "table": {
                "host": "127.0.0.1:8443",
                "protocol": "ws",
                "security": [{"$ref": "#/components/securitySchemes/bearer"}],
            }
        },
        "channels": {"events": {"address": "/v1/events", "messages": refs}},
        "operations": {
            "receiveEvents": {
                "action": "receive",
                "channel": {"$ref": "#/channels/events"},
                "messages": [{"$ref": f"#/channels/events/messages/{name}"} for name in MESSAGES],
            }
        },
        "components": {
            "messages": MESSAGES,
            "securitySchemes": {"bearer": {"type": "http", "scheme": "bearer"}},
        },
    }


if __name__ == "__main__":
    write(COMMITTED, render(document()))
