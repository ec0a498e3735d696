"""No game is named outside its own modules (decision 0029): a slug (``"over-under"``) or a game
package's path (``"games.over_under"``) written as a string, or an import of a game's package
(``from games.crazy_4_poker.inputs import SIX_CARD``), in croupier/, simulator/ or games/ is
in that game's own modules — games/<game>/, or a module named as the game's package
(croupier/tables/<game>.py, simulator/games/<game>.py, croupier/audit/procedure/<game>.py). Code
that needs a game looks it up in the registry, so adding a game edits no list and no branch."""

from __future__ import annotations

import ast
import io
import tokenize
from pathlib import Path

from games import registry

ROOT = Path(__file__).resolve().parents[2]
SCANNED = ("croupier", "simulator", "games")


def names_of(game: registry.Game, text: str) -> bool:
    """Whether the string ``text`` names ``game``: its slug, or its package or a module in it."""
    return (
        text == game.slug or text == game.package or text.startswith((f"{game.package}.", f"{game.package}:"))
    )


def strings(path: Path) -> list[tuple[int, str]]:
    """Every plain string literal of the module at ``path``, with its line (f-strings left out)."""
    found = []
    for token in tokenize.generate_tokens(io.StringIO(path.read_text()).readline):
        if token.type == tokenize.STRING:
            try:
                value = ast.literal_eval(token.string)
            except (ValueError, SyntaxError):
                continue
            if isinstance(value, str):
                found.append((token.start[0], value))
    return found


def imported(path: Path) -> list[tuple[int, str]]:
    """Every module the module at ``path`` imports, with its line (``from games import over_under``
    imports ``games.over_under`` as well as ``games``)."""
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            found.append((node.lineno, node.module))
            found += [(node.lineno, f"{node.module}.{alias.name}") for alias in node.names]
    return found


def own(game: registry.Game, path: Path) -> bool:
    relative = path.relative_to(ROOT)
    return game.module in relative.parts[:-1] or relative.stem == game.module


def test_no_game_is_named_outside_its_own_modules():
    games = registry.registered()
    strays = [
        f"{path.relative_to(ROOT)}:{line}: {text!r}"
        for top in SCANNED
        for path in sorted((ROOT / top).rglob("*.py"))
        for line, text in strings(path)
        for game in games
        if names_of(game, text) and not own(game, path)
    ]
    assert not strays, "a game named outside its own modules; look it up in games.registry:\n" + "\n".join(
        strays
    )


def test_no_game_is_imported_outside_its_own_modules():
    """The screen, the service and the simulator's shared parts reach a game only through the
    registry (decision 0032: the screen knows no game), so a fifth game's modules are all it takes."""
    games = registry.registered()
    strays = sorted(
        {
            f"{path.relative_to(ROOT)}:{line}: imports {game.package}"
            for top in SCANNED
            for path in (ROOT / top).rglob("*.py")
            for line, module in imported(path)
            for game in games
            if names_of(game, module) and not own(game, path)
        }
    )
    assert not strays, "a game imported outside its own modules; look it up in games.registry:\n" + "\n".join(
        strays
    )
