"""A table's posted limits: the least and the most a player may wager on each kind of wager.

``[limits]`` in the table configuration names, per wager kind of the game (the fields of its
``PlaceWager``: ``blackjack``, ``push22``, ``ante``, ...), ``{min = CENTS, max = CENTS}``. A wager
kind without limits takes any amount the game allows. A wager outside them is refused before it
reaches the table, naming the limit (croupier.screen.players; decision 0022).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from croupier.config.section import Section
from games import registry
from vocabulary.rules import Rule, RuleViolation

TABLE_LIMITS = Rule("decision 0022", "a wager is within the table's posted minimum and maximum for its kind")


@dataclass(frozen=True)
class Limit:
    """The posted minimum and maximum of one wager kind, in cents."""

    minimum: int
    maximum: int


Limits = Mapping[str, Limit]


def wager_kinds(game: str) -> tuple[str, ...]:
    """The kinds of wager a position places at ``game``: its PlaceWager's fields but the seat."""
    fields = dataclasses.fields(registry.game(game).wager)
    return tuple(field.name for field in fields if field.name != "seat")


def read_limits(section: Section, game: str) -> dict[str, Limit]:
    """``[limits]``: each key a wager kind of ``game``, each value ``{min, max}``, 1 <= min <= max."""
    section.only(wager_kinds(game))
    limits = {}
    for kind in section.data:
        posted = section.section(kind, required=True)
        posted.only(("min", "max"))
        minimum, maximum = posted.value("min", int), posted.value("max", int)
        if minimum < 1:
            raise posted.error("min", f"got {minimum}", "a whole number of cents, at least 1")
        if maximum < minimum:
            raise posted.error("max", f"got {maximum}", f"a whole number of cents, at least min ({minimum})")
        limits[kind] = Limit(minimum, maximum)
    return limits


def check_limits(wager: Any, limits: Limits) -> None:  # Any: a wager of any game (its amounts by kind)
    """Refuse a wager of a kind placed (not 0) below its minimum or above its maximum."""
    for kind, limit in limits.items():
        amount = getattr(wager, kind)
        if not amount or limit.minimum <= amount <= limit.maximum:
            continue
        low = amount < limit.minimum
        side, posted = ("minimum", limit.minimum) if low else ("maximum", limit.maximum)
        refused = f"seat {wager.seat}: {kind} {amount} is {'below' if low else 'above'} the table {side}"
        raise RuleViolation(TABLE_LIMITS, f"{refused} {posted} (limits.{kind}.{side[:3]})")
