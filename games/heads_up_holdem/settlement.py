"""Settlement: each wager of a seat collected, paid or pushed, for how much, by which rule.

Amounts are integer cents; ``Action.amount`` is the wager for a collect or a push and the winnings
for a pay (the wager itself stays with the player). The rules are the published Heads Up Hold 'Em's
(not PA text), with the tables from the RuleSet: the Ante pushes when the dealer does not open; Ante
and Play pay 1 to 1; the Odds Wager pays a winning hand by its table (lower hands push) and a losing
hand by the losing-Odds table; Trips Plus and Pocket Bonus pay on the player's own cards, the Pocket
Bonus's top line on the player's pocket aces against the dealer's.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TypeVar

from games.common.config import EVEN_ODDS, Odds
from games.common.movement import Action as SettledWager
from games.common.movement import Movement
from games.common.poker_hands import HandValue, best_five
from games.common.seating import counterclockwise
from games.heads_up_holdem import clauses
from games.heads_up_holdem.pocket import pocket_lines
from games.heads_up_holdem.rules_config import RuleSet
from vocabulary.cards import Card
from vocabulary.rules import Rule


class Wager(enum.StrEnum):
    ANTE = "ante"
    ODDS = "odds"
    PLAY = "play"
    TRIPS_PLUS = "trips_plus"
    POCKET_BONUS = "pocket_bonus"


@dataclass(frozen=True)
class Stakes:
    """A seat's wagers, in cents (``play`` is 0 until the player Plays)."""

    seat: int
    ante: int
    odds: int
    trips_plus: int = 0
    pocket_bonus: int = 0
    play: int = 0

    def placed(self) -> Iterable[tuple[Wager, int]]:
        for wager in Wager:
            amount = getattr(self, wager.value)
            if amount:
                yield wager, amount


@dataclass(frozen=True)
class Action(SettledWager):
    wager: Wager
    movement: Movement


#: Makes one Action for a wager of the seat being settled: (wager, movement, rule[, odds]).
Act = Callable[..., Action]


def void(stakes: Stakes, rule: Rule) -> list[Action]:
    """677a.10(f): all hands void, all wagers returned."""
    return [Action(stakes.seat, wager, Movement.PUSH, amount, rule) for wager, amount in stakes.placed()]


def fold(stakes: Stakes) -> list[Action]:
    """A folded hand's wagers are all collected."""
    return [
        Action(stakes.seat, wager, Movement.COLLECT, amount, clauses.FOLD_FORFEITS)
        for wager, amount in stakes.placed()
    ]


def showdown(
    stakes: Stakes, hole: Sequence[Card], dealer: Sequence[Card], community: Sequence[Card], rules: RuleSet
) -> list[Action]:
    """A live hand against the dealer's, over the five community cards."""
    player, _ = best_five([*hole, *community])
    banker, _ = best_five([*dealer, *community])
    outcome = (player > banker) - (player < banker)
    opens = banker.category >= rules.dealer_opens_with
    seat, rounding = stakes.seat, rules.odd_cent_rounding

    def act(wager: Wager, movement: Movement, rule: Rule, odds: Odds = EVEN_ODDS) -> Action:
        amount = getattr(stakes, wager.value)
        paid = odds.pay(amount, rounding) if movement is Movement.PAY else amount
        return Action(seat, wager, movement, paid, rule)

    actions = []
    if not opens:
        actions.append(act(Wager.ANTE, Movement.PUSH, clauses.DEALER_OPENS))
    else:
        actions.append(act(Wager.ANTE, _even(outcome), clauses.ANTE_AND_PLAY))
    if stakes.play:
        actions.append(act(Wager.PLAY, _even(outcome), clauses.ANTE_AND_PLAY))
    actions.append(_odds(act, outcome, player, rules))
    for wager, table, lines, rule in (
        (Wager.TRIPS_PLUS, rules.trips_plus_pay_table, (player.category,), clauses.TRIPS_PLUS),
        (Wager.POCKET_BONUS, rules.pocket_bonus_pay_table, pocket_lines(hole, dealer), clauses.POCKET_BONUS),
    ):
        if getattr(stakes, wager.value):
            actions.append(_by_table(act, wager, table, lines, rule))
    return actions


def _even(outcome: int) -> Movement:
    return {1: Movement.PAY, 0: Movement.PUSH, -1: Movement.COLLECT}[outcome]


def _odds(act: Act, outcome: int, player: HandValue, rules: RuleSet) -> Action:
    if outcome > 0:
        odds = rules.odds_pay_table.get(player.category)
        if odds:
            return act(Wager.ODDS, Movement.PAY, clauses.ODDS_WIN, odds)
        return act(Wager.ODDS, Movement.PUSH, clauses.ODDS_WIN)
    if outcome == 0:
        return act(Wager.ODDS, Movement.PUSH, clauses.ODDS_WIN)
    odds = rules.losing_odds_pay_table.get(player.category)
    if odds:
        return act(Wager.ODDS, Movement.PAY, clauses.ODDS_LOSE, odds)
    return act(Wager.ODDS, Movement.COLLECT, clauses.ODDS_LOSE)


K = TypeVar("K")  # a pay table's key: a hand category or a pocket class


def _by_table(act: Act, wager: Wager, table: Mapping[K, Odds], lines: Sequence[K], rule: Rule) -> Action:
    """Paid by the first of ``lines`` the table lists; collected when it lists none of them."""
    odds = next((table[line] for line in lines if line in table), None)
    return act(wager, Movement.PAY, rule, odds) if odds else act(wager, Movement.COLLECT, rule)


def in_order(actions: Iterable[Action]) -> list[Action]:
    """From the dealer's right, counterclockwise, each player in turn: collect, then pay (house
    convention; 677a.11 was not found)."""
    by_seat: dict[int, list[Action]] = {}
    for action in actions:
        by_seat.setdefault(action.seat, []).append(action)
    ordered = []
    for seat in counterclockwise(by_seat):
        ordered += sorted(by_seat[seat], key=lambda a: a.movement is Movement.PAY)
    return ordered
