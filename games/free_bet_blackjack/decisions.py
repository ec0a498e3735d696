"""Which decisions a hand may take, and whether the house stakes them (free) or the player (paid);
and whether a position may insure or take even money (672a.7(f)).

672a.7(h)(2) lets a player double down (672a.9), split pairs (672a.10), stand or draw, and never
surrender; (j) bounds the draw. 672a.9 and 672a.10 were not found: the free double on a two-card
hard 9, 10 or 11 and the free split of any pair but ten-value cards, resplit to four hands, come
from the published game rules (not PA text) and the rule set; paid doubles and splits are offered
only where configured.
"""

from __future__ import annotations

import enum
from collections.abc import Callable
from dataclasses import dataclass

from games.free_bet_blackjack import clauses
from games.free_bet_blackjack.hand import is_ace, is_pair
from games.free_bet_blackjack.inputs import PlayerAction
from games.free_bet_blackjack.positions import Hand, Position
from games.free_bet_blackjack.rules_config import RuleSet
from vocabulary.rules import Rule, RuleViolation


class Stake(enum.StrEnum):
    """Who puts up the matching stake of a double or a split."""

    FREE = "free"  # the house, with a Free Bet lammer
    PAID = "paid"  # the player, with money


def finished_rule(hand: Hand) -> Rule:
    """Why a finished hand takes no more decisions."""
    if hand.paid:
        return clauses.BLACKJACK_PAID
    if hand.doubled:
        return clauses.ONE_CARD_AFTER_DOUBLE
    if hand.total.value == 21:
        return clauses.NO_DRAW_ON_21
    if hand.total.bust:
        return clauses.DRAW_BELOW_21
    return clauses.PLAY_ORDER


@dataclass(frozen=True)
class Refusal:
    """A decision the rules forbid: the clause, and the refusal's words, written only when a
    refusal is raised (``legal`` asks about every decision on each turn and raises none)."""

    rule: Rule
    detail: Callable[[], str]


def check(action: PlayerAction, hand: Hand, position: Position, rules: RuleSet) -> Stake | None:
    """The stake ``action`` adds to ``hand`` (None for stand and hit); raises RuleViolation with
    the clause when the rules forbid it."""
    found = ruling(action, hand, position, rules)
    if isinstance(found, Refusal):
        raise RuleViolation(found.rule, found.detail())
    return found


def ruling(action: PlayerAction, hand: Hand, position: Position, rules: RuleSet) -> Stake | Refusal | None:
    """The stake ``action`` adds to ``hand`` (None for stand and hit), or the Refusal the rules give."""
    if action is PlayerAction.SURRENDER:
        return Refusal(clauses.NO_SURRENDER, lambda: f"{hand.label} asked to surrender")
    if action is PlayerAction.STAND:
        return None
    if action is PlayerAction.HIT:
        if hand.total.value >= 21:
            return Refusal(finished_rule(hand), lambda: f"{hand.label} has {hand.total}: no more cards")
        return None
    if action is PlayerAction.DOUBLE_DOWN:
        return _double(hand, rules)
    return _split(hand, position, rules)


def _double(hand: Hand, rules: RuleSet) -> Stake | Refusal:
    if len(hand.cards) != 2:
        return Refusal(
            clauses.FREE_DOUBLE, lambda: f"{hand.label} holds {len(hand.cards)} cards: doubles on two"
        )
    if hand.split and not rules.double_after_split:
        return Refusal(clauses.DOUBLE_AFTER_SPLIT, lambda: f"{hand.label} is a split hand: no double here")
    if not hand.total.soft and hand.total.value in rules.free_double_totals:
        return Stake.FREE
    if rules.paid_doubles:
        return Stake.PAID
    return Refusal(
        clauses.FREE_DOUBLE,
        lambda: (
            f"{hand.label} has {hand.total}: free doubles are on hard "
            f"{', '.join(map(str, sorted(rules.free_double_totals)))} and this table offers no paid doubles "
            f"({clauses.PAID_DOUBLE.clause})"
        ),
    )


def _split(hand: Hand, position: Position, rules: RuleSet) -> Stake | Refusal:
    if not is_pair(hand.cards):
        return Refusal(clauses.FREE_SPLIT, lambda: f"{hand.label} holds no pair")
    if len(position.hands) >= rules.max_hands:
        return Refusal(
            clauses.RESPLIT_LIMIT, lambda: f"seat {position.seat} already plays {rules.max_hands} hands"
        )
    if hand.split and is_ace(hand.cards[0]) and not rules.resplit_aces:
        return Refusal(clauses.RESPLIT_LIMIT, lambda: f"{hand.label}: this table does not resplit aces")
    if hand.cards[0].rank in rules.free_split_ranks:
        return Stake.FREE
    if rules.paid_splits:
        return Stake.PAID
    return Refusal(
        clauses.FREE_SPLIT,
        lambda: (
            f"{hand.label}: a pair of {hand.cards[0]} does not split free and this table offers no paid "
            f"splits ({clauses.PAID_SPLIT.clause})"
        ),
    )


def apply(action: PlayerAction, stake: Stake | None, hand: Hand, position: Position) -> Hand | None:
    """A decision ``check`` allowed, taken on the layout with the stake it found: stand, hit (a card
    is then due), double (one card follows) or split; returns the new hand a split made."""
    if action is PlayerAction.STAND:
        hand.stood = True
    elif action is PlayerAction.HIT:
        hand.awaiting = True
    elif action is PlayerAction.DOUBLE_DOWN:
        position.double(hand, paid=stake is Stake.PAID)
    else:
        return position.split(hand, paid=stake is Stake.PAID)
    return None


def check_insurance(position: Position, amount: int) -> None:
    """672a.7(f): insurance once per position, for at most half its Blackjack Wager; raises
    RuleViolation with the clause otherwise."""
    _not_yet_insured(position)
    limit = position.blackjack // 2
    if amount > limit:
        raise RuleViolation(
            clauses.INSURANCE_LIMIT,
            f"seat {position.seat}: {amount} cents is over half the Blackjack Wager ({limit} cents)",
        )


def check_even_money(position: Position) -> None:
    """672a.7(f): even money once per position, and only for a Blackjack."""
    _not_yet_insured(position)
    if not position.dealt_hand.blackjack:
        raise RuleViolation(clauses.EVEN_MONEY, f"seat {position.seat} holds no Blackjack")


def _not_yet_insured(position: Position) -> None:
    if position.insurance or position.even_money:
        raise RuleViolation(
            clauses.INSURANCE_ON_ACE, f"seat {position.seat} has already decided on insurance"
        )


def legal(hand: Hand, position: Position, rules: RuleSet) -> dict[PlayerAction, Stake | None]:
    """Every decision ``hand`` may take now, for the dealer's screen: each asked of the rules, none
    found by catching its refusal (decision 0042)."""
    return {
        action: found
        for action in PlayerAction
        if not isinstance(found := ruling(action, hand, position, rules), Refusal)
    }
