"""A Heads Up Hold 'Em table: what lasts from round to round.

677a.10(d): without a counting shuffler's count of the deck, the stub is counted at least once every
``stub_count_interval`` rounds (5 in the published rules), so the table counts the rounds since the
last count and gives each new round that number: the round learns at "no more bets" whether the
shuffler counted its deck, and so whether its own count is due.
"""

from __future__ import annotations

from games.common.machine_parts import COMPLETE
from games.heads_up_holdem import clauses
from games.heads_up_holdem.inputs import Verify
from games.heads_up_holdem.round import Round
from games.heads_up_holdem.rules_config import RuleSet
from vocabulary.rules import RuleViolation


class Table:
    def __init__(self, rules: RuleSet, verify: Verify, name: str = "table") -> None:
        self.rules = rules
        self.name = name
        self._verify = verify
        self.rounds_since_stub_count = 0
        self.rounds = 0

    def new_round(self) -> Round:
        self.rounds += 1
        return Round(
            self.rounds,
            rules=self.rules,
            verify=self._verify,
            rounds_since_stub_count=self.rounds_since_stub_count,
            table=self.name,
        )

    def round_over(self, round_: Round) -> None:
        """Take a completed round's stub count into the table's state."""
        if round_.state != COMPLETE:
            raise RuleViolation(clauses.PROCEDURE_ORDER, f"round {round_.number} is not complete")
        self.rounds_since_stub_count = round_.rounds_since_stub_count_after
