"""One round of the 677a Hold 'Em game (58 Pa. Code § 677a.10), the model of the shared machine.

The table service makes a ``Round`` per round and feeds it every event of the table, in order,
through ``handle``. The round says what it expects next (``expected``: the delivery due;
``to_act``: the seat whose decision is awaited; ``accepts``: which messages), refuses what the rules
forbid with a RuleViolation naming the clause (nothing changed), and records an irregularity, with
its clause, for anything that has physically gone wrong.

Cards dealt face down stay sealed: the round holds the shoe's sealed objects and learns a face only
when the card is turned up, checked against its commitment by the ``verify`` callback (the shoe's
check, devices/shoe.py). A folded hand is never turned up.
"""

from __future__ import annotations

from games.heads_up_holdem.closing import CloseSteps
from games.heads_up_holdem.dealing import DealSteps
from games.heads_up_holdem.playing import PlaySteps


class Round(DealSteps, PlaySteps, CloseSteps):
    """A round: wagers, stacks, community cards, stub, decisions, showdown, settlement, record."""
