"""Each message the floor hears, read and checked against its kind's published JSON Schema before the
store sees it (floor/schemas/, which docs/floor.md links to: the one copy, shipped with the package
so the running service reads the same schemas the integrators read).

A message that fails is malformed: the floor logs and counts it, and it is acknowledged (sent again,
it would be no better), so one table's bad message never holds up the rest (decision 0036).
jsonschema comes with the floor extra, as amqtt and psycopg do: it is imported when a floor service
starts, not by every ``croupier`` command a table PC runs.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from croupier.errors import StartupError

if TYPE_CHECKING:
    from jsonschema.protocols import Validator

#: The schemas of every message on the floor's topics, one file per kind.
SCHEMAS = Path(__file__).resolve().parent / "schemas"


class Malformed(ValueError):
    """A message that is not what its kind's schema says."""


class Schemas:
    """Every kind's schema, read from ``SCHEMAS`` once, as validators."""

    def __init__(self) -> None:
        try:
            import jsonschema
        except ImportError:
            raise StartupError("the floor service checks each message with jsonschema: "
                               "pip install 'croupier[floor]'") from None  # fmt: skip
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
