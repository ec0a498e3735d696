"""One round of Crazy 4 Poker dealt from the hand (58 Pa. Code § 657a.9), the model of the shared
round machine.

As Free Bet Blackjack's round: the table service makes a ``Round`` and feeds it every event of the
table in order through ``handle``; ``expected`` is the place the next card goes; ``accepts`` the
messages taken now; a refusal is a RuleViolation naming its clause, and nothing changes. Rounds
are made by ``Table.new_round`` (table_state.py), which knows whether the stub count is due (657a.9(d)).

The round never sees a face while the cards are face down: the deal records places only; faces
arrive with the shuffler's revealed order (checked with ``verify_order``, the shuffler's check of
its seal) or the dealer's report, and each hand's record says which.
"""

from __future__ import annotations

from games.crazy_4_poker.closing import CloseSteps
from games.crazy_4_poker.dealing import DealSteps
from games.crazy_4_poker.playing import PlaySteps


class Round(DealSteps, PlaySteps, CloseSteps):
    """A round: the state of round_state.py with the callbacks of the deal, the play and the end."""
