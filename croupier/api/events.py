"""The event stream: the devices' events and the rounds' records, as JSON, to every subscriber.

Device events come from the table's event feeds (croupier.tables.feeding: each one as it is applied
to its machine); round records as the round makes them (the API watches each round). Neither can
carry a face-down card's face: device events have no face field (docs/protocol.md §11.2) and a round
record names a face-down card by its commitment until the card is turned up.
"""

from __future__ import annotations

import asyncio
import dataclasses
import enum
from typing import Any

from games.common.records import Record

Json = dict[str, Any]  # Any: JSON values


def event_json(event: object) -> Json:
    """A device or link event as JSON: its type and its fields."""
    fields = dataclasses.asdict(event) if dataclasses.is_dataclass(event) else {}  # type: ignore[arg-type]
    return {"type": "device_event", "event": type(event).__name__, "fields": _plain(fields)}


def record_json(record: Record) -> Json:
    return {"type": "round_record", "record": record.as_dict()}


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
