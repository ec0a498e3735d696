"""A table whose game keeps what lasts from round to round (games/<game>/table_state.py: the rounds
played and those since the stub was counted).

The table's round numbering is then the game's own, so the number a restart restores
(croupier.service.journal) is the one the game gives its next round; Heads Up Hold 'Em and Crazy 4
Poker share this, the shoe games number their rounds themselves.
"""

from __future__ import annotations

from typing import Generic, Protocol, TypeVar


class RoundsKept(Protocol):
    """What lasts at the table by the game's rules: at least the rounds played."""

    rounds: int


State = TypeVar("State", bound=RoundsKept)


class GameKept(Generic[State]):
    """Mixed into a table whose ``game`` is its game's table state."""

    game: State

    @property
    def rounds(self) -> int:
        """Rounds played (after a restart the service continues the numbering it saved)."""
        return self.game.rounds

    @rounds.setter
    def rounds(self, played: int) -> None:
        self.game.rounds = played
