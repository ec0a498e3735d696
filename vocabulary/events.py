"""The one way anything at a table is told what happened (decision 0031): typed events, one
listener interface, and the hub that publishes each event once to every listener.

Whoever makes events (a table, a device's rules, a fault latch, the dealer's screen, the event
feeds) keeps an ``Events`` hub and publishes each event on it once; whoever wants to hear (the
journal, the API's event stream, the simulator's live view and summary) subscribes a ``Listener``.
Each kind of event is a value of its own type, defined beside what makes it, and a listener picks
out the kinds it wants by type.
"""

from __future__ import annotations

from typing import Protocol

import structlog

_log = structlog.get_logger("croupier.events")


class Event:
    """What every event is: a typed value (a round's record, an irregularity a device's rules
    found, a fault latched or released, a prompt shown, ...), made by one layer and heard by any."""

    __slots__ = ()


class Listener(Protocol):
    """Hears every event published on the hubs it is subscribed to; it ignores the kinds it does
    not want."""

    def __call__(self, event: Event, /) -> None: ...


class Events:
    """A hub: each event published once, first to the durable listeners, then to the others.

    A durable listener is one the table cannot go on without: it persists what it hears (the
    journal: the audit trail with its fsync, the state store) or proves what must hold (a simulated
    table's card count after each round). It is told first, in the order subscribed, so nothing is
    published or acknowledged before it is on disk; one that raises (the disk cannot be written, a
    card vanished) stops whoever published, and no other listener hears the event. Any other
    listener that raises is logged and skipped: the table and the listeners after it go on."""

    def __init__(self) -> None:
        self._durable: list[Listener] = []
        self._others: list[Listener] = []

    def subscribe(self, listener: Listener, *, durable: bool = False) -> None:
        """Tell ``listener`` of every event from now on; ``durable``: it persists them, see above."""
        (self._durable if durable else self._others).append(listener)

    def unsubscribe(self, listener: Listener) -> None:
        for listeners in (self._durable, self._others):
            if listener in listeners:
                listeners.remove(listener)

    def __bool__(self) -> bool:
        """Whether anyone listens."""
        return bool(self._durable or self._others)

    def publish(self, event: Event) -> None:
        for listener in self._durable:
            listener(event)
        for listener in self._others:
            try:
                listener(event)
            except Exception:  # a listener's fault is its own: the table goes on
                _log.exception("event listener failed", kind=type(event).__name__, listener=repr(listener))
