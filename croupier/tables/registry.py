"""Each game's table, as its table module declares it: ``TABLE = TableKind(...)`` in
croupier/tables/<game>.py, found by the game's module name (games.registry.Game.module), so
adding a game adds that module and edits no list here (decision 0029, docs/adding-a-game.md).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from drivers.connection import DeviceConnection
from games import registry
from games.registry import Game

#: A table's device connections, by device kind (the keys of Game.devices).
Connections = Mapping[str, DeviceConnection]


@dataclass(frozen=True)
class TableKind:
    """The service's part of a game: ``assemble`` builds its table (not yet opened) over its
    devices' connections, with the table's options (croupier.tables.assembly.assemble checks the
    devices first); ``players`` are its players keyed on the dealer's screen
    (croupier.screen.players.KeyedPlayers: the wager and the game's own prompts); ``answers`` are
    the bodies of those prompts' answers, by kind of answer (croupier.screen.players.answer_bodies,
    from which the API documents are generated)."""

    game: Game
    assemble: Callable[[Connections, dict[str, Any]], Any]
    players: type
    answers: Mapping[str, tuple[Any, ...]]


def table_kind(slug: str) -> TableKind:
    """The table of the game ``slug``; games.registry.UnknownGame if no game has that slug."""
    game = registry.game(slug)
    declared = importlib.import_module(f"{__package__}.{game.module}").TABLE
    if not isinstance(declared, TableKind) or declared.game is not game:
        raise TypeError(f"croupier.tables.{game.module}.TABLE is not {slug}'s TableKind")
    return declared


def table_kinds() -> tuple[TableKind, ...]:
    """Every game's table, in the registry's order."""
    return tuple(table_kind(slug) for slug in registry.slugs())
