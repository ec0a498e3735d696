"""What the dealer's screen refuses, before the table sees it.

These are the screen's own refusals, not HTTP's: the API (croupier.api.errors) maps a ``BadRequest``
to 400 and a ``PromptNotCurrent`` to 409, and any other adapter (a terminal, a test) can catch them
the same way. They live here so the service never imports its HTTP adapter.
"""

from __future__ import annotations

from typing import Any

from vocabulary.rules import Rule, RuleViolation


class BadRequest(Exception):
    """A request the API cannot act on: bad JSON, or a field missing or of the wrong type."""


class PromptNotCurrent(RuleViolation):
    """An answer to a prompt the screen no longer shows (409); ``shown`` is the prompt it shows
    (None: nothing), returned in the error body as ``prompt``."""

    def __init__(self, rule: Rule, detail: str, shown: dict[str, Any] | None) -> None:  # Any: JSON values
        super().__init__(rule, detail)
        self.shown = shown
