"""``croupier run``'s round summary at a simulated table proves the card count after each round, and a
count that does not add up stops the table rather than being logged and played past (decision 0031:
the proof listens on the one event path as a durable listener)."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from structlog.testing import capture_logs

from croupier.commands.run import watch_rounds
from croupier.tables.events import RoundEnded
from firmware_sim.world import TableWorld, WorldError
from vocabulary.events import Events


def _ended() -> RoundEnded:
    return RoundEnded(SimpleNamespace(number=1, positions={}, net=lambda seat: 0))


def test_a_vanished_card_stops_the_table_after_the_round():
    world = TableWorld()
    world.add_batch("shoe", "red", 1)
    events = Events()
    watch_rounds(events, "table-1", world)
    events.publish(_ended())  # every card accounted for: the round is summarised
    world.places["shoe"].pop()  # a card gone other than through the world's moves
    with pytest.raises(WorldError, match="card count broken"):
        events.publish(_ended())


def test_a_table_on_real_equipment_is_summarised_without_a_world():
    events = Events()
    watch_rounds(events, "table-1")
    with capture_logs() as logs:
        events.publish(_ended())
    assert [(entry["event"], entry["round"]) for entry in logs] == [("round complete", 1)]
