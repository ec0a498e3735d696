"""The floors of decision 0032 hold for files as they do for imports: no module of the service
(croupier/) reads a file of a package above it (the floor service, the simulator), the way it may not
import one. import-linter sees only imports, so a path built into such a package (``parents[2] /
"floor" / ...``, ``resources.files("floor")``) would pass it unseen, and a table would depend on the
floor service's files being installed beside it. This test reads every module's source for a path
that starts in one of those packages; the modules the contract lets import a package (the commands
that run it) may read its files too."""

from __future__ import annotations

import ast

import pytest

from tests.unit.test_layers import ROOT, contracts

#: Calls whose string arguments are paths or their parts (``os.path.join``), or for ``files``
#: (importlib.resources) a package whose data is read.
PATH_CALLS = {"Path", "PurePath", "open", "join", "joinpath", "with_name", "files"}


def above() -> tuple[set[str], dict[str, set[str]]]:
    """The packages on the top floor, over the service, and the service's modules the contract lets
    import each (``ignore_imports``)."""
    (floors,) = [c for c in contracts() if c["type"] == "layers" and "containers" not in c]
    top = {name.strip() for name in floors["layers"][0].split("|")}
    allowed: dict[str, set[str]] = {package: set() for package in top}
    for rule in floors.get("ignore_imports", []):
        importer, imported = (side.strip() for side in rule.split("->"))
        allowed[imported.split(".")[0]].add(importer)
    return top, allowed


def reads_above(source: str, top: set[str]) -> list[str]:
    """Each string in ``source`` that names a path (or package data) in one of ``top``: an operand of
    ``/`` or an argument of a call that takes a path, whose first part is such a package."""

    def names_above(node: ast.expr, separator: str) -> bool:
        """A string whose first part (a folder, or for ``files`` a package) is one of ``top``."""
        return isinstance(node, ast.Constant) and str(node.value).split(separator)[0] in top

    found = []
    for node in ast.walk(ast.parse(source)):
        operands: list[ast.expr] = []
        separator = "/"
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div):
            operands = [node.left, node.right]
        elif isinstance(node, ast.Call):
            called = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
            operands = list(node.args) if called in PATH_CALLS else []
            separator = "." if called == "files" else "/"
        if any(names_above(operand, separator) for operand in operands):
            found.append(f"line {node.lineno}: {ast.unparse(node)}")
    return found


MODULES = sorted((ROOT / "croupier").rglob("*.py"))


@pytest.mark.parametrize("path", MODULES, ids=[str(path.relative_to(ROOT)) for path in MODULES])
def test_no_service_module_reads_a_file_of_a_package_above_it(path):
    top, allowed = above()
    module = ".".join(path.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")
    barred = {package for package in top if module not in allowed[package]}
    assert reads_above(path.read_text(), barred) == [], f"{module} reads a file of {sorted(barred)}"


def test_a_path_into_the_floor_package_is_seen():
    top, _ = above()
    assert top == {"floor", "simulator"}
    assert reads_above('SCHEMAS = Path(__file__).resolve().parents[2] / "floor" / "schemas"\n', top)
    assert reads_above('folder = resources.files("floor.pages")\n', top)
    assert reads_above('text = (ROOT / "simulator/scenarios.toml").read_text()\n', top)
    assert reads_above('pages = os.path.join(ROOT, "floor", "pages")\n', top)
    assert not reads_above('section = config["floor"]\nfloor = Path(__file__).with_name("schemas")\n', top)
    assert not reads_above('store = Path(folder) / "floor.sqlite3"\n', top)
