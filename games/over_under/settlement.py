"""Settlement of one player's wagers (686a.7(g)(3), (h), (j)-(m)), and of a voided round.

Amounts are integer cents. ``Action.amount`` is the wager for a collect or a push and the winnings
for a pay (the wager itself stays with the player). The payout odds of § 686a.8 come from the rule
set: the Rules Submission's odds, none built in (decision 0023), the Bonus by its posted table.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from games.common.movement import Action as SettledWager
from games.common.movement import Movement
from games.over_under import clauses
from games.over_under.inputs import Choice
from games.over_under.positions import Position
from games.over_under.rules_config import RuleSet

__all__ = ["Action", "Movement", "WagerKind", "settle", "surrender", "void"]

OVER_WINS = range(24, 34)  # 686a.7(k)(1)
UNDER_WINS = range(6, 18)  # 686a.7(k)(2)
MIDDLE = range(18, 24)  # 686a.7(l)


class WagerKind(enum.StrEnum):
    ANTE = "ante"
    OVER_23 = "over_23"
    UNDER_18 = "under_18"
    BONUS = "bonus"


@dataclass(frozen=True)
class Action(SettledWager):
    """One collect, pay or push of one wager, with the rule that decides it and the Hand's total."""

    wager: WagerKind
    total: int | None = None


def surrender(position: Position) -> Action:
    """686a.7(g)(3): the surrendered Ante Wager is collected when the player elects."""
    return Action(
        position.seat, WagerKind.ANTE, Movement.COLLECT, position.ante, clauses.SURRENDER_COLLECTS_ANTE
    )


def settle(position: Position, rules: RuleSet) -> list[Action]:
    """686a.7(j): the player's three cards are out; settle every wager still in play by (k)-(m)."""
    points = position.total
    actions = []
    if position.choice is not Choice.SURRENDER:
        over = position.choice is Choice.OVER_23
        kind = WagerKind.OVER_23 if over else WagerKind.UNDER_18
        odds = rules.over_23_odds if over else rules.under_18_odds
        if points in (OVER_WINS if over else UNDER_WINS):
            rule = clauses.WIN_OVER if over else clauses.WIN_UNDER
            for wager, amount, wager_odds in (
                (WagerKind.ANTE, position.ante, rules.ante_odds),
                (kind, position.stake, odds),
            ):
                assert wager_odds is not None, "a table opens only with its payout odds configured"
                winnings = wager_odds.pay(amount, rules.odd_cent_rounding)
                actions.append(Action(position.seat, wager, Movement.PAY, winnings, rule, points))
        else:
            rule = clauses.LOSE_MIDDLE if points in MIDDLE else clauses.OTHER_SIDE_LOSES
            for wager, amount in ((WagerKind.ANTE, position.ante), (kind, position.stake)):
                actions.append(Action(position.seat, wager, Movement.COLLECT, amount, rule, points))
    if position.bonus:
        actions.append(_bonus(position, rules))
    return actions


def _bonus(position: Position, rules: RuleSet) -> Action:
    """686a.7(m), and (h) after a surrender: by the Hand's total, from the posted table."""
    points = position.total
    assert rules.bonus_pay_table is not None, "a Bonus Wager is taken only with its pay table configured"
    odds = rules.bonus_pay_table.get(points)
    if odds is None:
        return Action(
            position.seat, WagerKind.BONUS, Movement.COLLECT, position.bonus, clauses.BONUS_LOSES, points
        )
    winnings = odds.pay(position.bonus, rules.odd_cent_rounding)
    return Action(position.seat, WagerKind.BONUS, Movement.PAY, winnings, clauses.BONUS_WINS, points)


def void(position: Position) -> list[Action]:
    """A voided round returns every wager of a position not settled yet (a surrendered Ante was
    collected when the player elected, 686a.7(g)(3), and stays collected)."""
    if position.settled:
        return []
    wagers = [(WagerKind.BONUS, position.bonus)]
    if position.choice is not Choice.SURRENDER:
        kind = WagerKind.UNDER_18 if position.choice is Choice.UNDER_18 else WagerKind.OVER_23
        wagers = [(WagerKind.ANTE, position.ante), (kind, position.stake), *wagers]
    return [
        Action(position.seat, kind, Movement.PUSH, amount, clauses.VOID) for kind, amount in wagers if amount
    ]
