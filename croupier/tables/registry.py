"""Each game's table, as its table module declares it: ``TABLE = TableKind(...)`` in
croupier/tables/<game>.py, found by the game's module name (games.registry.Game.module), so
adding a game adds that module and edits no list here (decision 0029, docs/adding-a-game.md).
"""

from __future__ import annotations

import contextlib
import importlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from croupier.screen.bodies import Body, message_body
from croupier.screen.dealer import CHIP_COUNT, STUB_COUNT, ScreenDealer
from croupier.screen.players import KeyedPlayers
from croupier.screen.prompts import CLOSE_BETTING, NO_MORE_BETS_BODY, Screen
from drivers.connection import DeviceConnection
from games import registry
from games.registry import Game
from vocabulary.operators import Operator

#: A table's device connections, by device kind (the keys of Game.devices).
Connections = Mapping[str, DeviceConnection]
#: A table's options by name (croupier.tables.assembly.assemble): the dealer, rules, name, backs...
Options = dict[str, Any]  # Any: each option has its own type, and each game takes its own options


class Table(Protocol):
    """What is done with an assembled table of any game before it plays: it runs (its devices'
    events applied to their machines while the block runs) and opens for the day."""

    def running(self) -> contextlib.AbstractAsyncContextManager[object]: ...

    async def open(
        self,
        floorperson: Operator,
        position: Mapping[str, Any] | None = None,  # Any: JSON values
    ) -> bool: ...


@dataclass(frozen=True)
class TableKind:
    """The service's part of a game: ``assemble`` builds its table (not yet opened) over its
    devices' connections, with the table's options (croupier.tables.assembly.assemble checks the
    devices first); ``players`` are its players keyed on the dealer's screen
    (croupier.screen.players.KeyedPlayers: the wager and the game's own prompts); ``answers`` are
    the bodies of those prompts' answers, by kind of answer (answer_bodies,
    from which the API documents are generated), and of the dealer's own prompts the game adds;
    ``dealer`` shows the dealer's steps and counts on the screen at a table on real equipment:
    croupier.screen.dealer.ScreenDealer, or the game's subclass of it for steps only its dealer
    does."""

    game: Game
    assemble: Callable[[Connections, Options], Table]
    players: type[KeyedPlayers]
    answers: Mapping[str, tuple[Body, ...]]
    dealer: Callable[[Screen], ScreenDealer] = ScreenDealer


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


def answer_bodies() -> dict[str, tuple[Body, ...]]:
    """Each kind of answer's bodies, every game's (the API documents are generated from their
    models): the wagers and the dealer's counts here, each game's own prompts from its table
    (its TableKind). A new prompt's body is added here or to its game's table."""
    kinds = table_kinds()
    bodies: dict[str, tuple[Body, ...]] = {
        "wager": tuple(message_body(kind.players.wager) for kind in kinds),
        CLOSE_BETTING: (NO_MORE_BETS_BODY,),
        "stub_count": (STUB_COUNT,),
        "chip_count": (CHIP_COUNT,),
    }
    for kind in kinds:
        for answer, its in kind.answers.items():
            bodies[answer] = bodies.get(answer, ()) + its
    return bodies
