"""One card on its way to the discard rack, as the round records it; used by Free Bet Blackjack,
Over/Under and Heads Up Hold'em (whose pickup orders differ, so each game builds its own).

A card seen face up is recorded by its face; a card dealt face down and never turned up goes to
the rack face down and is listed by its commitment only, so no face leaks into the record.
"""

from __future__ import annotations

from dataclasses import dataclass

from games.common.messages import Arrival, CoverCard
from vocabulary.cards import Card

#: Where a card the round held out of play lies until the pickup.
SET_ASIDE = "set aside"


@dataclass(frozen=True)
class Pickup:
    place: str  # "seat 3 hand 0", "dealer", "set aside"
    card: str | None  # the face, for a card seen face up
    commitment: str | None = None  # for a card dealt face down and never turned up

    @classmethod
    def of(cls, item: Arrival, place: str) -> Pickup:
        if isinstance(item, Card):
            return cls(place, str(item))
        assert not isinstance(item, CoverCard), "the cover card goes aside, never to a hand's pickup"
        return cls(place, None, item.commitment.hex())
