"""Every game, as each declares itself: one ``Game`` a package, found by convention.

A game package (``games/<game>/``) says what it is in its ``__init__.py``: ``GAME = Game(...)``.
The registry finds every package of ``games`` that has one, so adding a game means adding its
package and never editing a list here (decision 0029, docs/adding-a-game.md). The table service
(croupier.tables.registry) and the simulator (simulator.games) find their part of a game by its
``module`` name in the same way.
"""

from __future__ import annotations

import functools
import importlib
import pkgutil
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import games
from games.common.config import Configurable
from games.common.records import Value
from games.common.round_base import RoundBase
from vocabulary.rules import Rule

#: A wager a ``decision`` record placed on the layout, as the settlement names it: its kind, the
#: hand it rides on (None, or 0, for the position's first) and its amount in cents.
Staked = tuple[str, int | None, int]


def no_stakes(decision: Mapping[str, Value]) -> Staked | None:
    """A game whose decisions place no wager."""
    return None


@dataclass(frozen=True)
class Game:
    """What every layer needs to know of one game: its slug (the ``game`` of a table's
    configuration, of the trail's records and of ``croupier sim --game``), its name and title,
    its round, its configuration reader (``RuleSet``: rules and pay tables from ``[rules]``), the
    message a position's wagers are placed with (its fields are the wager kinds, ``[limits]``),
    and the devices its table drives, each with the rule that asks for it, and the wager a
    decision places. ``position`` is where it comes in every list of games (the order they were
    integrated; a new game takes the next)."""

    slug: str
    name: str
    title: str
    package: str
    position: int
    round: type[RoundBase[Any]]  # Any: each game settles its own kind of action
    rules: type[Configurable]
    wager: type[Any]  # Any: each game's own wager message, a dataclass of a seat and its wager kinds
    devices: Mapping[str, Rule]
    #: The wager a ``decision`` record of a round placed, if it placed one (an Over 23 election, a
    #: Play, a paid double down): what a round cut off by a restart left on the layout besides its
    #: ``wager`` records (croupier.service.journal).
    staked: Callable[[Mapping[str, Value]], Staked | None] = no_stakes

    @property
    def module(self) -> str:
        """The package's own name (``free_bet_blackjack``): the name of its table module in
        croupier/tables/ and of its simulator module in simulator/games/."""
        return self.package.rpartition(".")[2]


class UnknownGame(ValueError):
    """A slug no game declares; the message names the known ones, so a typo says what would work."""

    def __init__(self, slug: str) -> None:
        super().__init__(f"unknown game {slug!r}; known games: {', '.join(slugs())}")


@functools.cache
def registered() -> tuple[Game, ...]:
    """Every game package's ``GAME``, by ``position``."""
    found = []
    for info in pkgutil.iter_modules(games.__path__, f"{games.__name__}."):
        if info.ispkg:
            declared = getattr(importlib.import_module(info.name), "GAME", None)
            if isinstance(declared, Game):
                found.append(declared)
    return tuple(sorted(found, key=lambda game: game.position))


def slugs() -> tuple[str, ...]:
    """The slugs of every game, in order."""
    return tuple(game.slug for game in registered())


def game(slug: str) -> Game:
    """The game whose slug is ``slug``; UnknownGame if none is."""
    for declared in registered():
        if declared.slug == slug:
            return declared
    raise UnknownGame(slug)
