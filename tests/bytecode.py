"""The tree's modules compiled once, before the suite starts: the tests start ``croupier`` in some
hundreds of processes (a daemon, its simulated devices' firmware, a command line), and a Python told
not to write bytecode (``PYTHONDONTWRITEBYTECODE``, which many container images set) compiles every
module it imports from source again at each start: about 0.9 s of a core each where it was measured.
The compiled files go where Python itself would put them (``__pycache__``, ignored by git), and a
module edited since is compiled again here, so a stale one is never read."""

from __future__ import annotations

import compileall
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def compile_tree() -> None:
    """Compile the packages pyproject.toml names, and the tests and benchmarks the suite starts."""
    packages = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"]["find"]
    names = [name.rstrip("*") for name in packages["include"]] + ["tests", "bench"]
    for name in names:
        assert compileall.compile_dir(ROOT / name, quiet=1, workers=0), f"{name}: a module does not compile"
