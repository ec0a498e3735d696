"""Settlement: which wagers are collected, paid or pushed, for how much, and in what order.

Amounts are integer cents. ``Action.amount`` is the wager for a collect or a push and the winnings
for a pay (the wager itself stays with the player). A Free Bet lammer stands for an amount but is
not money: collecting one costs the player nothing, and a winning hand is paid "an equivalent
amount" for it (672a.7(o)).
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from games.common.config import EVEN_ODDS, Odds
from games.common.movement import Action as SettledWager
from games.common.movement import Movement
from games.common.seating import counterclockwise
from games.free_bet_blackjack import clauses
from games.free_bet_blackjack.hand import Total, total
from games.free_bet_blackjack.positions import Hand, Position
from games.free_bet_blackjack.rules_config import (
    BLACKJACK_ODDS,
    INSURANCE_ODDS,
    Push22PayTable,
    RuleSet,
    SettlementOrder,
)
from vocabulary.cards import Card
from vocabulary.rules import Rule

RED_SUITS = frozenset({1, 2})  # diamonds, hearts


class WagerKind(enum.StrEnum):
    BLACKJACK = "blackjack"  # the Blackjack Wager, or real money a paid double or split added
    LAMMER = "lammer"
    PUSH22 = "push22"
    INSURANCE = "insurance"


@dataclass(frozen=True)
class Action(SettledWager):
    wager: WagerKind
    hand: int | None = None

    @property
    def net(self) -> int:
        """What the player gains (+) or loses (-), in cents: a lammer collected marks a free wager
        lost, which costs the player nothing."""
        if self.wager is WagerKind.LAMMER and self.movement is Movement.COLLECT:
            return 0
        return super().net


#: The Actions made so far, by what they are made of (``_settled``): at most MADE_KEPT, then cleared.
_made: dict[tuple[object, ...], Action] = {}
MADE_KEPT = 4096


def _settled(
    seat: int, wager: WagerKind, movement: Movement, amount: int, rule: Rule, hand: int | None = None
) -> Action:
    """The Action of these values, each made once and then shared: an Action is immutable, a round
    settles a dozen wagers or more, and a frozen dataclass is built field by field (math mode makes
    millions, decision 0052). The rule is keyed by its identity, which its Action in the same entry
    keeps from being reused; kept to MADE_KEPT entries, as a table's stakes are many over a day."""
    key = (seat, wager, movement, amount, id(rule), hand)
    made = _made.get(key)
    if made is None:
        if len(_made) >= MADE_KEPT:
            _made.clear()
        made = _made[key] = Action(seat, wager, movement, amount, rule, hand)
    return made


def blackjack_payment(position: Position, rules: RuleSet) -> Action:
    """672a.7(h)(1): a player Blackjack is paid 3 to 2 when the dealer reaches it, rounded as configured."""
    amount = BLACKJACK_ODDS.pay(position.blackjack, rules.odd_cent_rounding)
    return _settled(position.seat, WagerKind.BLACKJACK, Movement.PAY, amount, clauses.BLACKJACK_PAID, 0)


def even_money_payment(position: Position, rules: RuleSet) -> Action:
    amount = EVEN_ODDS.pay(position.blackjack, rules.odd_cent_rounding)
    return _settled(position.seat, WagerKind.BLACKJACK, Movement.PAY, amount, clauses.EVEN_MONEY, 0)


def against_dealer_blackjack(position: Position, rules: RuleSet) -> list[Action]:
    """672a.7(g)(1)-(2): the dealer has a Blackjack; no card was dealt after the peek."""
    hand = position.dealt_hand
    rule = (
        clauses.DEALER_BLACKJACK_PLAYER_BLACKJACK
        if hand.blackjack
        else clauses.DEALER_BLACKJACK_NO_PLAYER_BLACKJACK
    )
    actions = []
    if not hand.paid:  # a player who took even money has been paid
        movement = Movement.PUSH if hand.blackjack else Movement.COLLECT
        actions.append(_settled(position.seat, WagerKind.BLACKJACK, movement, position.blackjack, rule, 0))
    if position.push22:
        actions.append(_settled(position.seat, WagerKind.PUSH22, Movement.COLLECT, position.push22, rule))
    if position.insurance:
        winnings = INSURANCE_ODDS.pay(position.insurance, rules.odd_cent_rounding)
        actions.append(_settled(position.seat, WagerKind.INSURANCE, Movement.PAY, winnings, rule))
    return actions


def showdown(position: Position, dealer_cards: Sequence[Card], rules: RuleSet) -> list[Action]:
    """672a.7(n)-(q): the dealer has drawn; settle every wager not settled yet."""
    dealer = total(dealer_cards)
    actions = []
    if position.push22:
        if dealer.value == 22:
            assert rules.push22_pay_table is not None, "a Push 22 Wager is taken only with its pay table"
            odds = push22_odds(dealer_cards, rules.push22_pay_table)
            winnings = odds.pay(position.push22, rules.odd_cent_rounding)
            actions.append(
                _settled(position.seat, WagerKind.PUSH22, Movement.PAY, winnings, clauses.DEALER_22)
            )
        else:
            actions.append(
                _settled(
                    position.seat, WagerKind.PUSH22, Movement.COLLECT, position.push22, clauses.DEALER_NOT_22
                )
            )
    if position.insurance:
        actions.append(
            _settled(
                position.seat,
                WagerKind.INSURANCE,
                Movement.COLLECT,
                position.insurance,
                clauses.INSURANCE_LOSES,
            )
        )
    for hand in position.hands:
        if not hand.paid:
            _hand(hand, dealer, rules, actions)
    return actions


def _hand(hand: Hand, dealer: Total, rules: RuleSet, actions: list[Action]) -> None:
    """The settlement of ``hand``'s money and lammers, added to ``actions``."""
    player = hand.total
    if player.bust:
        movement, rule = Movement.COLLECT, clauses.BUST_LOSES if dealer.bust else clauses.LOSE_BUST
    elif dealer.value == 22:
        movement, rule = Movement.PUSH, clauses.DEALER_22
    elif dealer.bust:
        movement, rule = Movement.PAY, clauses.WIN_DEALER_BUST
    elif player.value > dealer.value:
        movement, rule = Movement.PAY, clauses.WIN_HIGHER
    elif player.value == dealer.value:
        movement, rule = Movement.PUSH, clauses.TIE
    else:
        movement, rule = Movement.COLLECT, clauses.LOSE_LOWER
    if hand.wager:
        amount = (
            EVEN_ODDS.pay(hand.wager, rules.odd_cent_rounding) if movement is Movement.PAY else hand.wager
        )
        actions.append(_settled(hand.seat, WagerKind.BLACKJACK, movement, amount, rule, hand.number))
    for lammer in hand.lammers:
        if movement is Movement.PAY:
            amount = EVEN_ODDS.pay(lammer, rules.odd_cent_rounding)
            actions.append(
                _settled(hand.seat, WagerKind.LAMMER, movement, amount, clauses.LAMMER_PAID, hand.number)
            )
        else:
            actions.append(
                _settled(
                    hand.seat,
                    WagerKind.LAMMER,
                    Movement.COLLECT,
                    lammer,
                    clauses.LAMMER_COLLECTED,
                    hand.number,
                )
            )


def push22_odds(dealer_cards: Sequence[Card], table: Push22PayTable) -> Odds:
    """The line of the Push 22 table the dealer's 22 hits: all one suit, all one colour, or other."""
    if len({card.suit for card in dealer_cards}) == 1:
        return table.suited
    if len({card.suit in RED_SUITS for card in dealer_cards}) == 1:
        return table.same_colour
    return table.other


def void(position: Position) -> list[Action]:
    """A voided round returns every wager not settled yet; lammers go back to the house."""
    actions = []
    for hand in position.hands:
        if hand.paid:
            continue
        if hand.wager:
            actions.append(
                _settled(hand.seat, WagerKind.BLACKJACK, Movement.PUSH, hand.wager, clauses.VOID, hand.number)
            )
        actions.extend(
            _settled(hand.seat, WagerKind.LAMMER, Movement.COLLECT, lammer, clauses.VOID, hand.number)
            for lammer in hand.lammers
        )
    if position.push22:
        actions.append(
            _settled(position.seat, WagerKind.PUSH22, Movement.PUSH, position.push22, clauses.VOID)
        )
    if position.insurance:
        actions.append(
            _settled(position.seat, WagerKind.INSURANCE, Movement.PUSH, position.insurance, clauses.VOID)
        )
    return actions


def in_order(actions: Iterable[Action], order: SettlementOrder) -> list[Action]:
    """672a.7(r): from the player farthest to the dealer's right, counterclockwise; (r)(1) collects
    every losing wager before paying any, (r)(2) collects then pays each player in turn. Pushes go
    with the payments. Within a player, hands keep the order they were played in."""
    by_seat: dict[int, list[Action]] = {}
    for action in actions:
        group = by_seat.get(action.seat)
        if group is None:
            by_seat[action.seat] = [action]
        else:
            group.append(action)
    groups = [by_seat[seat] for seat in counterclockwise(by_seat)]  # one pass, not one per seat
    if order is SettlementOrder.COLLECT_THEN_PAY:
        return [a for group in groups for a in group if a.movement is Movement.COLLECT] + [
            a for group in groups for a in group if a.movement is not Movement.COLLECT
        ]
    return [a for group in groups for a in sorted(group, key=lambda a: a.movement is not Movement.COLLECT)]
