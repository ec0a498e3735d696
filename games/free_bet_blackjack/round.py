"""One round of Free Bet Blackjack (58 Pa. Code § 672a.7), the model of the shared round machine.

The table service makes a ``Round`` per round and feeds it every event of the table, in order,
through ``handle`` (one queue per table; a plain Machine, so no transition is ever cancelled by the
next event). The round says what it expects next (``expected``: which hand, face up or down;
``accepts``: which messages), refuses what the rules forbid with a RuleViolation naming the clause,
and records an irregularity, with its clause, for anything that has physically gone wrong.

The round never learns the hole card's face before 672a.7(k): it holds the shoe's sealed object,
takes the card reader's yes/no, and checks the card turned up against the seal with the ``verify``
callback the caller supplies (the shoe's commitment check).
"""

from __future__ import annotations

from games.free_bet_blackjack.closing import CloseSteps
from games.free_bet_blackjack.dealing import DealSteps
from games.free_bet_blackjack.playing import PlaySteps


class Round(DealSteps, PlaySteps, CloseSteps):
    """A round: wagers, cards, decisions, settlement and the record of all of it. The machine's
    guards and callbacks come from the three step classes, one per part of the procedure."""
