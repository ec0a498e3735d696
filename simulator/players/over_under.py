"""Simulated players at an Over/Under table (``croupier.tables.over_under.Players``)."""

from __future__ import annotations

import random
from collections.abc import Sequence

from games.over_under.inputs import Choice, PlaceWager
from games.over_under.points import card_points
from games.over_under.positions import Position

STAKES = (500, 1000, 2500, 5000)  # cents


class FirstCardPlayers:
    """Every position taken; each player elects by the first card alone (every election comes
    before any additional card, 686a.7(f): first cards are all there is to see): Over 23 on 9 or more
    (ace counts 11), Under 18 on 5 or less, Surrender in between. The only chance is the stakes,
    drawn from ``rng``, so a seeded run replays exactly; a Bonus Wager where the table posts one."""

    def __init__(self, rng: random.Random, *, bonus: int = 0) -> None:
        self.rng = rng
        self.bonus = bonus

    def wagers(self, round_number: int, positions: int) -> Sequence[PlaceWager]:
        return [PlaceWager(seat, self.rng.choice(STAKES), self.bonus) for seat in range(1, positions + 1)]

    def choose(self, position: Position) -> Choice:
        points = card_points(position.cards[0])
        if points >= 9:
            return Choice.OVER_23
        return Choice.UNDER_18 if points <= 5 else Choice.SURRENDER
