"""One round of Over/Under (58 Pa. Code § 686a.7), the model of the shared round machine.

The table service makes a ``Round`` per round and feeds it every event of the table, in order,
through ``handle`` (one queue per table; a plain Machine, so no transition is ever cancelled by the
next event). The round says what it expects next (``expected``: which seat's card; ``current``: whose
election or clearing is awaited; ``accepts``: which messages), refuses what the rules forbid with a
RuleViolation naming the clause, and records an irregularity, with its clause, for anything that
has physically gone wrong.
"""

from __future__ import annotations

from games.over_under.closing import CloseSteps
from games.over_under.dealing import DealSteps
from games.over_under.playing import PlaySteps


class Round(DealSteps, PlaySteps, CloseSteps):
    """A round: wagers, cards, elections, settlement and the record of all of it. The machine's
    guards and callbacks come from the three step classes, one per part of the procedure."""
