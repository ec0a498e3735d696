"""Rules with their sources, and the errors and records that carry them.

A guard that refuses an action raises ``RuleViolation`` naming its rule; an event that breaks the
procedure is recorded as an ``Irregularity``. Either way the clause travels with it, so
docs/conformance.md can be generated from the code and an API answer can say which rule was broken.
"""

from __future__ import annotations

from dataclasses import dataclass

#: The source of a rule taken from the game's published rules where no Pennsylvania text was found.
PUBLISHED_RULES = "published game rules (not PA text)"
#: The source of a rule the house sets where neither the regulation nor the published rules say.
HOUSE_CONVENTION = "house convention"


@dataclass(frozen=True)
class Rule:
    """One rule: ``clause`` as cited in the regulation (``672a.7(c)``), or its source where the rule
    comes from outside the seed sections: a sister chapter's clause (``633a.3(b) (analog)``), another
    section (``605a.4(c)``), ``PUBLISHED_RULES``, ``HOUSE_CONVENTION`` or a decision record
    (``decision 0017``, docs/decisions/)."""

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
