"""``Any`` only where a comment says why (issue 14): ``Any`` switches the type checker off for a value,
so each use of it in Croupier's packages carries a ``# Any: <why>`` comment (JSON values, TOML values,
each game's own round type ...); everywhere else the real type is named.

What counts as a use: the name ``Any`` (or ``typing.Any``) in code, read with ``ast``, including inside
string annotations; the import of it, docstrings and comments do not count. Where the comment may sit:
on the physical line of the use, or on the first line of the innermost statement that contains it
(the ``def`` line of a signature spread over several lines, the first line of an assignment). The
comment is a comment token (read with ``tokenize``) that starts ``# Any:`` and gives a reason.
"""

from __future__ import annotations

import ast
import io
import re
import tokenize
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("vocabulary", "drivers", "devices", "games", "firmware_sim", "croupier", "simulator")
#: A comment that says why: ``# Any:`` followed by a reason.
SAYS_WHY = re.compile(r"#\s*Any:\s*\S")


def _is_any(node: ast.AST) -> bool:
    """``Any`` or ``typing.Any`` (any module's ``.Any``)."""
    return (isinstance(node, ast.Name) and node.id == "Any") or (
        isinstance(node, ast.Attribute) and node.attr == "Any"
    )


def _anys(tree: ast.AST) -> Iterator[tuple[int, int]]:
    """(line of the use, first line of the innermost statement holding it) for each use of ``Any``."""

    def visit(node: ast.AST, statement: int) -> Iterator[tuple[int, int]]:
        if isinstance(node, ast.stmt):
            statement = node.lineno
        if _is_any(node) or (isinstance(node, ast.Constant) and _annotation_naming_any(node.value)):
            yield node.lineno, statement
        for child in ast.iter_child_nodes(node):
            yield from visit(child, statement)

    yield from visit(tree, 0)


def _annotation_naming_any(value: object) -> bool:
    """A string that parses as an expression naming ``Any`` (a forward-referenced annotation) uses it;
    any other string (a docstring, a message) does not."""
    if not isinstance(value, str) or "Any" not in value:
        return False
    try:
        parsed = ast.parse(value.strip(), mode="eval")
    except SyntaxError:
        return False
    return any(_is_any(inner) for inner in ast.walk(parsed))


def _lines_saying_why(source: str) -> set[int]:
    """The lines that carry a ``# Any: <why>`` comment token."""
    tokens = tokenize.generate_tokens(io.StringIO(source).readline)
    return {
        token.start[0] for token in tokens if token.type == tokenize.COMMENT and SAYS_WHY.match(token.string)
    }


def unexplained_anys(paths: list[Path], root: Path = ROOT) -> list[str]:
    """``path:line: text`` for each use of ``Any`` among ``paths`` (under ``root``) with no comment
    saying why on its line or on its statement's first line."""
    found = []
    for path in paths:
        source = path.read_text(encoding="utf-8")
        why = _lines_saying_why(source)
        lines = source.splitlines()
        for line, statement in sorted(set(_anys(ast.parse(source, filename=str(path))))):
            if line not in why and statement not in why:
                found.append(f"{path.relative_to(root)}:{line}: {lines[line - 1].strip()}")
    return found


def package_files() -> list[Path]:
    """Every Python file of Croupier's packages."""
    return [path for package in PACKAGES for path in sorted((ROOT / package).rglob("*.py"))]


def test_every_any_says_why():
    """Name the real type (a Protocol, a TypeVar, a union, ``object``), or say why it is dynamic."""
    found = unexplained_anys(package_files())
    assert not found, (
        f"{len(found)} uses of Any without a '# Any: <why>' comment; name the type or say why:\n"
        + "\n".join(found)
    )


def test_the_check_finds_an_any_that_does_not_say_why(tmp_path):
    """A use passes with the comment on its own line or on its statement's first line, not on another
    line of the statement; a bare use, a string annotation and ``typing.Any`` are found; the import, a
    docstring and a comment are not uses."""
    module = tmp_path / "module.py"
    module.write_text(
        '"""Any docstring names Any."""\n'  # 1: prose
        "import typing\n"  # 2
        "from typing import Any\n"  # 3: the import
        "# Any old comment\n"  # 4: a comment
        "a: Any = 1  # Any: JSON values\n"  # 5: says why
        "b: Any = 2\n"  # 6: found
        "def f(  # Any: any shuffler\n"  # 7: the statement's first line says why ...
        "    x: Any,\n"  # 8: ... for this use
        ") -> None:\n"  # 9
        "    pass\n"  # 10
        "def g(x: 'list[Any]') -> typing.Any:  # a reason without the marker\n"  # 11: found (once)
        "    pass\n"  # 12
        "def h(\n"  # 13
        "    x: Any,  # Any: a value of any key\n"  # 14: says why on its own line
        "    y: Any,\n"  # 15: found: neither its line nor its statement's first line says why
        ") -> None:  # Any: too late\n"  # 16
        "    pass\n"  # 17
    )
    found = unexplained_anys([module], root=tmp_path)
    assert [entry.split(":")[1] for entry in found] == ["6", "11", "15"]
