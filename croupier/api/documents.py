"""The API documents (OpenAPI, AsyncAPI) as committed: one JSON rendering for both, so that the
served and the committed copies are compared byte for byte by their freshness tests."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any


def render(document: dict[str, Any]) -> str:  # Any: a JSON document
    return json.dumps(document, indent=2) + "\n"


def write(path: Path, text: str) -> None:
    path.write_text(text)
    print(f"wrote {path}")
