"""Settlement of one position against the dealer's hand, by the published game rules (not PA text) and
the configured pay tables; and the return of every wager when the round is void (657a.9(f)).

Amounts are integer cents. ``Action.amount`` is the wager for a collect, push or referral, and the
winnings for a pay. A hand the dealer did not report (no shuffler order) needed no payout, so it
is settled as a losing hand; a hand raised above 1x is always known (round.py refuses otherwise).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from devices.rules import Rule
from games.common.config import Odds
from games.common.movement import Action as SettledWager
from games.crazy_4_poker import clauses
from games.crazy_4_poker.evaluator import (
    Category,
    Strength,
    aces_or_better,
    four_aces,
    qualifies,
    queens_or_better,
)
from games.crazy_4_poker.rules_config import FOUR_ACES, QUEENS_UP_PAIR, RuleSet

EVEN = Odds(1)


class Wager(enum.StrEnum):
    ANTE = "ante"
    SUPER_BONUS = "super_bonus"
    PLAY = "play"
    QUEENS_UP = "queens_up"
    PROGRESSIVE = "progressive"
    FIVE_CARD_BONUS = "five_card_bonus"
    SIX_CARD_BONUS = "six_card_bonus"


class Movement(enum.StrEnum):
    COLLECT = "collect"
    PAY = "pay"
    PUSH = "push"  # returned to the player
    REFER = "refer"  # left to its own pay table (clauses.BONUS_BY_SYSTEM)


@dataclass
class Position:
    """A position's wagers in cents; ``play`` is set by the player's decision (0: folded)."""

    seat: int
    ante: int
    super_bonus: int
    queens_up: int = 0
    progressive: int = 0
    five_card_bonus: int = 0
    six_card_bonus: int = 0
    play: int = 0
    decided: bool = False

    @property
    def folded(self) -> bool:
        return self.decided and not self.play

    def wagers(self) -> dict[Wager, int]:
        return {wager: getattr(self, wager.value) for wager in Wager if getattr(self, wager.value)}


@dataclass(frozen=True)
class Action(SettledWager):
    wager: Wager
    movement: Movement


def pay_line(hand: Strength) -> str:
    """The pay-table line a hand falls on: its category, or four aces above four of a kind."""
    return FOUR_ACES if four_aces(hand) else hand.category.name.lower()


def _by_table(seat: int, wager: Wager, amount: int, odds: Odds | None, rule: Rule, rules: RuleSet) -> Action:
    if odds is None:
        return Action(seat, wager, Movement.COLLECT, amount, rule)
    return Action(seat, wager, Movement.PAY, odds.pay(amount, rules.odd_cent_rounding), rule)


def showdown(position: Position, hand: Strength | None, dealer: Strength, rules: RuleSet) -> list[Action]:
    """Every wager of ``position`` settled against ``dealer``; ``hand`` None: not reported, a loser."""
    seat, actions = position.seat, []
    dealer_in = qualifies(dealer)
    if position.folded:
        actions += [
            Action(seat, Wager.ANTE, Movement.COLLECT, position.ante, clauses.FOLD_FORFEITS),
            Action(seat, Wager.SUPER_BONUS, Movement.COLLECT, position.super_bonus, clauses.FOLD_FORFEITS),
        ]
    else:
        beats = -1 if hand is None else (hand > dealer) - (hand < dealer)
        moves = {1: Movement.PAY, 0: Movement.PUSH, -1: Movement.COLLECT}
        ante_move = moves[beats] if dealer_in else Movement.PUSH
        ante_rule = clauses.PLAY_SHOWDOWN if dealer_in else clauses.DEALER_QUALIFIES
        actions.append(Action(seat, Wager.ANTE, ante_move, position.ante, ante_rule))
        actions.append(Action(seat, Wager.PLAY, moves[beats], position.play, clauses.PLAY_SHOWDOWN))
        if hand is not None and hand.category >= Category.STRAIGHT:
            odds = rules.super_bonus_pay_table.get(pay_line(hand))
            actions.append(
                _by_table(seat, Wager.SUPER_BONUS, position.super_bonus, odds, clauses.SUPER_BONUS, rules)
            )
        else:
            move = Movement.COLLECT if dealer_in and beats < 0 else Movement.PUSH
            actions.append(Action(seat, Wager.SUPER_BONUS, move, position.super_bonus, clauses.SUPER_BONUS))
    if position.queens_up:
        odds = None
        if hand is not None and queens_or_better(hand):
            line = QUEENS_UP_PAIR if hand.category == Category.PAIR else pay_line(hand)
            odds = rules.queens_up_pay_table.get(line) or rules.queens_up_pay_table.get(
                hand.category.name.lower()
            )
        actions.append(_by_table(seat, Wager.QUEENS_UP, position.queens_up, odds, clauses.QUEENS_UP, rules))
    actions += _side_wagers(position)
    return [action for action in actions if action.amount or action.movement is Movement.PAY]


def _side_wagers(position: Position) -> list[Action]:
    """The progressive chips went to the inventory at 657a.9(a)(3); the bonus wagers are referred."""
    actions = []
    if position.progressive:
        actions.append(
            Action(
                position.seat,
                Wager.PROGRESSIVE,
                Movement.COLLECT,
                position.progressive,
                clauses.PROGRESSIVE_COUNT,
            )
        )
    for wager in (Wager.FIVE_CARD_BONUS, Wager.SIX_CARD_BONUS):
        if getattr(position, wager.value):
            actions.append(
                Action(
                    position.seat,
                    wager,
                    Movement.REFER,
                    getattr(position, wager.value),
                    clauses.BONUS_BY_SYSTEM,
                )
            )
    return actions


def legal_play(position: Position, hand: Strength | None) -> bool:
    """A Play above 1x the Ante needs a pair of aces or better (published game rules)."""
    return position.play <= position.ante or (hand is not None and aces_or_better(hand))


def void(position: Position, rule: Rule) -> list[Action]:
    """657a.9(f): every wager of the position returned."""
    return [
        Action(position.seat, wager, Movement.PUSH, amount, rule)
        for wager, amount in position.wagers().items()
    ]
