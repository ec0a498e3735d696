"""Rules with their sources, and the errors and records that carry them.

A guard that refuses an action raises ``RuleViolation`` naming its rule; an event that breaks the
procedure is recorded as an ``Irregularity``. Either way the clause travels with it, so
docs/conformance.md can be generated from the code and an API answer can say which rule was broken.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Rule:
    """One rule: ``clause`` as cited in the regulation (``672a.7(c)``) or a source with its section
    (``NOTES.md §3 605a.4(c)``) where the rule comes from outside the seed sections."""

    clause: str
    summary: str

    def __str__(self) -> str:
        return f"{self.clause}: {self.summary}"


class RuleViolation(Exception):
    """An action refused because a rule forbids it."""

    def __init__(self, rule: Rule, detail: str) -> None:
        super().__init__(f"{detail} ({rule})")
        self.rule = rule
        self.detail = detail


@dataclass(frozen=True)
class Irregularity:
    """Something that happened against the procedure, for the record and the supervisor."""

    rule: Rule
    detail: str
