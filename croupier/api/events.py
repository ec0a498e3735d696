"""The event stream: the devices' events, the rounds' records, the prompts and the dealer's steps,
as JSON, to every subscriber.

The API is one listener (decision 0031) of the table's hub (device events as each is applied to its
machine, croupier.tables.feeding; each round's beginning, records and end, once the journal has
written them, and each step of the table's opening, croupier.tables.events) and of the dealer's
screen's (croupier.screen.prompts).
None can carry a face-down card's face: device events have no face field (docs/protocol.md §11.2),
a round record names a face-down card by its commitment until the card is turned up, and a prompt
or a step names places and counts, not faces.
"""

from __future__ import annotations

import asyncio
import dataclasses
import enum
from typing import Any

from croupier.screen.prompts import DealerStep, PromptShown
from croupier.tables.events import Opening, RoundBegan, RoundEnded, TableRecord
from croupier.tables.feeding import DeviceEventApplied
from games.common.records import Record
from vocabulary.events import Event

Json = dict[str, Any]  # Any: JSON values


def message_of(event: Event) -> Json | None:
    """The stream's message for ``event``; None for a kind the stream does not carry (the devices'
    rules' own findings, which go to the audit trail)."""
    match event:
        case Record():
            return {"type": "round_record", "record": event.as_dict()}
        case DeviceEventApplied(event=applied):
            return event_json(applied)
        case RoundBegan(round=round_):
            return {"type": "round_began", "round": round_.number}
        case RoundEnded(round=round_):
            return {"type": "round_ended", "round": round_.number, "state": round_.state}
        case Opening(step=step, state=state):
            return {"type": "opening", "step": step, "state": state}
        case TableRecord(kind=kind, fields=fields):
            return {"type": "table_record", "kind": kind, **fields}
        case PromptShown(prompt=prompt):
            return {"type": "prompt", "prompt": prompt}
        case DealerStep(step=step, arguments=arguments):
            return {"type": "dealer_step", "step": step, **arguments}
    return None


def event_json(event: object) -> Json:
    """A device or link event as JSON: its type and its fields."""
    fields = dataclasses.asdict(event) if dataclasses.is_dataclass(event) else {}  # type: ignore[arg-type]
    return {"type": "device_event", "event": type(event).__name__, "fields": _plain(fields)}


def _plain(value: object) -> Any:  # Any: JSON values
    """JSON-safe: bytes as hex, enums by name, containers element by element."""
    if isinstance(value, bytes):
        return value.hex()
    if isinstance(value, enum.Enum):
        return value.name
    if isinstance(value, dict):
        return {str(key): _plain(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(item) for item in value]
    if value is None or isinstance(value, bool | int | float | str):
        return value
    return str(value)


class Hub:
    """Fan-out to WebSocket subscribers; a subscriber too slow to keep up loses the oldest messages
    it has not read rather than holding the table up."""

    def __init__(self, backlog: int = 1000) -> None:
        self.backlog = backlog
        self._queues: set[asyncio.Queue[Json]] = set()

    def subscribe(self) -> asyncio.Queue[Json]:
        queue: asyncio.Queue[Json] = asyncio.Queue(self.backlog)
        self._queues.add(queue)
        return queue

    def unsubscribe(self, queue: asyncio.Queue[Json]) -> None:
        self._queues.discard(queue)

    def publish(self, message: Json) -> None:
        for queue in self._queues:
            if queue.full():
                queue.get_nowait()
            queue.put_nowait(message)
