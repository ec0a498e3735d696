"""The one event path's hub (decision 0031): durable listeners first; a durable listener's failure
stops the publisher, any other listener's is logged and the rest still hear."""

from __future__ import annotations

from dataclasses import dataclass

import pytest
from structlog.testing import capture_logs

from vocabulary.events import Event, Events


@dataclass(frozen=True)
class Happened(Event):
    what: str


@pytest.mark.listener_failure_expected
def test_a_listener_that_raises_is_logged_and_the_others_still_hear() -> None:
    events, heard = Events(), list[Event]()

    def broken(event: Event) -> None:
        raise RuntimeError("a screen gone away")

    events.subscribe(broken)
    events.subscribe(heard.append)
    with capture_logs() as logs:
        events.publish(Happened("a card"))
        events.publish(Happened("another"))
    assert heard == [Happened("a card"), Happened("another")]
    assert [entry["event"] for entry in logs] == ["event listener failed"] * 2
    assert logs[0]["log_level"] == "error"


def test_a_durable_listener_that_raises_stops_the_publisher_before_anyone_hears() -> None:
    events, heard = Events(), list[Event]()

    def journal(event: Event) -> None:
        raise OSError("disk full")

    events.subscribe(heard.append)
    events.subscribe(journal, durable=True)
    with pytest.raises(OSError, match="disk full"):
        events.publish(Happened("a card"))
    assert heard == []


def test_unsubscribed_listeners_hear_nothing_more_and_a_hub_says_whether_anyone_listens() -> None:
    events, heard = Events(), list[Event]()
    assert not events
    events.subscribe(heard.append)
    assert events
    events.publish(Happened("a card"))
    events.unsubscribe(heard.append)
    events.publish(Happened("another"))
    assert heard == [Happened("a card")] and not events
