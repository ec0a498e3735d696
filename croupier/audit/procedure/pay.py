"""Payout odds as a trail records them (``"3:2"``), and what a winning wager is owed at those odds.

The rules in force come from the trail's ``rules_in_force`` record (written at table open) or,
for a trail that has none, from ``--config``: the same plain values either way.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

_ODDS = re.compile(r"^\s*(\d+)\s*(?::|to)\s*(\d+)\s*$")


def odds(text: Any) -> tuple[int, int]:
    match = _ODDS.match(str(text))
    if match is None:
        raise ValueError(f"{text!r} is not odds")
    return int(match[1]), int(match[2])


def owed(stake: int, at: Any, rules: Mapping[str, Any]) -> int | None:
    """``stake`` paid at odds ``at``; a fraction of a cent goes as the table's rounding says. None
    (the amount not judged) when the odds are not known: no pay table is built in, so a trail
    without its ``rules_in_force`` judged without ``--config`` has none."""
    if at is None:
        return None
    win, per = odds(at)
    whole, part = divmod(stake * win, per)
    return whole + (1 if part and rules.get("odd_cent_rounding") == "up" else 0)
