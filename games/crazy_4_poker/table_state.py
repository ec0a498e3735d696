"""A Crazy 4 Poker table dealt from the hand: what lasts from round to round.

657a.9(a)(1): the table opens only with an automated shuffler. 657a.9(d): without a counting
shuffler, the stub is counted at least once every 5 rounds, so the table counts the rounds since
the last count and tells each new round whether its count is due. 657a.9(f): a deck removed from
the table must be replaced before the next round.
"""

from __future__ import annotations

from games.common import stub_count
from games.common.machine_parts import COMPLETE
from games.crazy_4_poker import clauses
from games.crazy_4_poker.round import Round
from games.crazy_4_poker.round_state import VerifyOrder
from games.crazy_4_poker.rules_config import RuleSet, Shuffler
from vocabulary.rules import RuleViolation

ROUNDS_PER_COUNT = 5


class Table:
    def __init__(self, rules: RuleSet, verify_order: VerifyOrder, name: str = "table") -> None:
        self.rules = rules
        self.name = name
        self._verify_order = verify_order
        self.is_open = False
        self.deck_present = True
        self.rounds_since_count = 0
        self.rounds = 0

    def open(self) -> None:
        """657a.9(a)(1): only with an automated shuffler; and only with a pay table configured for
        every wager the table offers (a ConfigError names the key)."""
        self.rules.check_pay_tables()
        if self.rules.shuffler is Shuffler.NONE:
            raise RuleViolation(
                clauses.SHUFFLER_REQUIRED, "no automated shuffler is configured for this table"
            )
        self.is_open = True

    @property
    def stub_count_due(self) -> bool:
        counting = self.rules.shuffler is Shuffler.COUNTING
        return not counting and stub_count.due(self.rounds_since_count, ROUNDS_PER_COUNT)

    def new_round(self) -> Round:
        if not self.is_open:
            raise RuleViolation(clauses.SHUFFLER_REQUIRED, "the table is not open")
        if not self.deck_present:
            raise RuleViolation(clauses.DECK_REMOVED, "the deck was removed from the table: bring a new deck")
        self.rounds += 1
        return Round(
            self.rounds,
            rules=self.rules,
            verify_order=self._verify_order,
            stub_count_due=self.stub_count_due,
            table=self.name,
        )

    def round_over(self, round_: Round) -> None:
        """Take a completed round's stub count and deck removal into the table's state."""
        if round_.state != COMPLETE:
            raise RuleViolation(clauses.PROCEDURE_ORDER, f"round {round_.number} is not complete")
        self.rounds_since_count = stub_count.after(self.rounds_since_count, counted=round_.stub_counted)
        if round_.deck_removed:
            self.deck_present = False

    def new_deck(self) -> None:
        """A new deck replaces one removed under 657a.9(f)."""
        self.deck_present = True
