"""What a simulated player sees of the felt: their own cards, and nothing else.

At Hold 'Em and Crazy 4 Poker the cards are dealt face down and the round learns their faces only at
the showdown, so the table cannot tell the players their cards; a player lifts them. A simulated
player is given a ``Look``: the faces of the cards at its own seat, which is all a player at the
table could see. ``own_cards`` looks at a simulated table's world.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from firmware_sim.world import TableWorld
from vocabulary.cards import Card

#: The faces of the cards lying at a seat, as the player sitting there lifts them.
Look = Callable[[int], Sequence[Card]]


def own_cards(world: TableWorld) -> Look:
    """A ``Look`` at the cards the simulated dealer put at ``"seat N"`` in ``world``."""

    def look(seat: int) -> Sequence[Card]:
        return [card.face for card in world.cards(f"seat {seat}") if card.face is not None]

    return look
