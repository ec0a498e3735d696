"""Each message on the floor's topics, read and checked against its kind's published JSON Schema
before it is acted on (croupier/floor_link/schemas/, which docs/floor.md links to: the one copy, shipped
with the package so the running services read the same schemas the integrators read). The floor service
checks every message it hears before its store sees it; a linked table checks the link controller's
state before it shows, locks or pays anything from it (decision 0039). The reader and the schemas are
here, below both: they describe what tables publish and read, so a table needs neither the floor
service's code nor its files (decision 0032).

A message that fails is malformed: the floor logs and counts it, and it is acknowledged (sent again,
it would be no better), so one table's bad message never holds up the rest (decision 0036); a table
logs a link state that fails and does not count the link as heard by it.
jsonschema is a runtime dependency, not the floor extra's: every table on a link needs it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

import jsonschema

if TYPE_CHECKING:
    from jsonschema.protocols import Validator

#: The schemas of every message on the floor's topics, one file per kind: this package's data.
SCHEMAS = Path(__file__).with_name("schemas")


class Malformed(ValueError):
    """A message that is not what its kind's schema says."""


class Schemas:
    """Every kind's schema, read from ``SCHEMAS`` once, as validators."""

    def __init__(self) -> None:
        self._best_match = jsonschema.exceptions.best_match
        checker = jsonschema.Draft202012Validator.FORMAT_CHECKER
        self.validators: dict[str, Validator] = {
            path.name.removesuffix(".schema.json"): jsonschema.Draft202012Validator(
                json.loads(path.read_text()), format_checker=checker
            )
            for path in SCHEMAS.glob("*.schema.json")
        }

    def read(self, kind: str, payload: object) -> dict[str, Any]:  # Any: the message's JSON fields
        """The body of a ``kind`` message, checked against its schema; Malformed, saying why, if it is
        not JSON, not a kind the floor knows, or not what the schema says."""
        validator = self.validators.get(kind)
        if validator is None:
            raise Malformed(f"no kind of message is called {kind!r}")
        try:
            body = json.loads(payload if isinstance(payload, bytes | str) else b"")
        except ValueError as exc:
            raise Malformed(f"not JSON: {exc}") from None
        error = self._best_match(validator.iter_errors(body))
        if error is not None:
            where = "/".join(str(part) for part in error.absolute_path) or "the message"
            raise Malformed(f"{where}: {error.message}")
        return body  # type: ignore[no-any-return]
