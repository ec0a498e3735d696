"""What a winning wager is owed at the odds a trail records (``"3:2"``), read by the games'
configuration schema (``games.common.config.Odds``: configuration, shared, not round code).

The rules in force come from the trail's ``rules_in_force`` record (written at table open) or,
for a trail that has none, from ``--config``: the same plain values either way.
"""

from __future__ import annotations

from croupier.audit.procedure.engine import Rules
from games.common.config import Odds, Rounding


def owed(stake: int, at: object, rules: Rules) -> int | None:
    """``stake`` paid at odds ``at``; a fraction of a cent goes as the table's rounding says. None
    (the amount not judged) when the odds are not known: no pay table is built in, so a trail
    without its ``rules_in_force`` judged without ``--config`` has none."""
    if at is None:
        return None
    return Odds.parse(str(at)).pay(stake, Rounding(rules.get("odd_cent_rounding", Rounding.DOWN)))
