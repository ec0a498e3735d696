"""Every citation names something a reader of the repository can open: the regulation (``686a.7(f)``),
a sister chapter or another state's rule, published game rules, a house convention or a decision
record in docs/decisions/. Two background files that never shipped with Croupier were once cited in
their place; this test keeps them from coming back.

The names are built from parts so that this file does not cite them itself.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
#: The background files that are not part of the repository, as a pattern that does not spell them.
UNSHIPPED = re.compile(r"\b(?:" + "NO" + "TES" + "|" + "ARCHI" + "TECTURE" + r")\.md\b")


def tracked_files() -> list[Path]:
    """The files git tracks in this checkout; the test is skipped outside a git checkout."""
    try:
        listed = subprocess.run(
            ["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True, timeout=60
        ).stdout
    except (OSError, subprocess.CalledProcessError) as error:
        pytest.skip(f"not a git checkout: {error}")
    return [ROOT / name for name in listed.decode().split("\0") if name]


def citations_of_unshipped_files(paths: list[Path], root: Path = ROOT) -> list[str]:
    """``path:line: text`` for each line of a text file among ``paths`` (under ``root``) that names
    an unshipped file."""
    found = []
    for path in paths:
        try:
            text = path.read_text(encoding="utf-8")
        except (UnicodeDecodeError, FileNotFoundError, IsADirectoryError):
            continue  # binary, or deleted in the work tree but not yet in the index
        for number, line in enumerate(text.splitlines(), start=1):
            if UNSHIPPED.search(line):
                found.append(f"{path.relative_to(root)}:{number}: {line.strip()}")
    return found


def test_no_tracked_file_cites_a_file_that_is_not_in_the_repository():
    """Cite the regulation, a standard or a decision record (docs/decisions/), never the background
    notes or the architecture sketch, which are not in the repository."""
    found = citations_of_unshipped_files(tracked_files())
    assert not found, "cite the regulation or a decision record instead:\n" + "\n".join(found)


def test_the_check_finds_a_citation_of_an_unshipped_file(tmp_path):
    """The pattern matches both names as they were cited, and nothing that merely resembles them."""
    cited = tmp_path / "cited.py"
    cited.write_text('X = Rule("' + "NO" + "TES.md §2 (published rules)" + '", "...")\n')
    sketch = tmp_path / "sketch.md"
    sketch.write_text("(" + "ARCHI" + 'TECTURE.md, "Two logs, never mixed")\n')
    clean = tmp_path / "clean.md"
    clean.write_text("docs/decisions/0017 and RELEASE_NOTES.markdown and FOOT" + "NO" + "TES.md\n")
    found = citations_of_unshipped_files([cited, sketch, clean], root=tmp_path)
    assert [line.split(":", 1)[0] for line in found] == ["cited.py", "sketch.md"]
