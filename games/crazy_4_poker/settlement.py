"""Settlement of one position against the dealer's hand, by the published rules and the configured
pay tables; and the return of every wager when the round is void (657a.9(f)).

Amounts are integer cents. ``Action.amount`` is the wager for a collect or push, and the winnings
for a pay. Every wager is settled on a known hand: the round refuses to settle while a hand a wager
depends on is unknown (``hands_needed``; clauses.LIVE_HAND_KNOWN). A bonus or Envy Bonus action
carries what an auditor needs to recompute it from the recorded cards: the hand, the pay-table line
and its odds (or fixed sum), and for an Envy Bonus the envied seat.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from games.common.config import Odds
from games.common.movement import Action as SettledWager
from games.common.movement import Movement
from games.common.poker_hands import best_five
from games.common.records import Value
from games.crazy_4_poker import clauses
from games.crazy_4_poker.evaluator import (
    Category,
    Strength,
    aces_or_better,
    four_aces,
    qualifies,
    queens_or_better,
)
from games.crazy_4_poker.inputs import DEALER, SIX_CARD, Place
from games.crazy_4_poker.rules_config import FOUR_ACES, QUEENS_UP_PAIR, RuleSet
from vocabulary.cards import Card
from vocabulary.rules import Rule


class Wager(enum.StrEnum):
    ANTE = "ante"
    SUPER_BONUS = "super_bonus"
    PLAY = "play"
    QUEENS_UP = "queens_up"
    PROGRESSIVE = "progressive"
    FIVE_CARD_BONUS = "five_card_bonus"
    SIX_CARD_BONUS = "six_card_bonus"
    ENVY_BONUS = "envy_bonus"  # paid on a Progressive Payout Wager for another player's hand (657a.1)


#: The wagers settled on the position's own hand whatever the Play decision (the fold forfeits only
#: the Ante and Super Bonus): their hand must be known even when the player folded.
HAND_WAGERS = ("queens_up", "progressive", "five_card_bonus", "six_card_bonus")


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
        """The wagers placed, in cents (an Envy Bonus is paid on the progressive wager, no wager of
        its own)."""
        return {wager: getattr(self, wager.value, 0) for wager in Wager if getattr(self, wager.value, 0)}


@dataclass(frozen=True)
class Action(SettledWager):
    """A settled wager; a wager paid by a table also names the hand, its line and the odds (or the
    fixed sum), and an Envy Bonus the seat whose hand it was paid for."""

    wager: Wager
    movement: Movement
    hand: str = ""
    line: str = ""
    odds: str = ""
    envied_seat: int = 0

    def details(self) -> dict[str, Value]:
        shown: dict[str, Value] = dict(
            hand=self.hand, line=self.line, odds=self.odds, envied_seat=self.envied_seat
        )
        return {name: value for name, value in shown.items() if value}


def hands_needed(positions: Mapping[int, Position]) -> list[Place]:
    """The hands a settlement needs known (657a.1 Hand; decision 0023): the dealer's; each live
    (not folded) hand, which also decides the Envy Bonuses owed to the others; each folded hand with
    a wager settled on it whatever the decision; and the Six Card Bonus card when that wager is
    placed."""
    seats: list[Place] = [
        seat
        for seat, p in sorted(positions.items())
        if not p.folded or any(getattr(p, name) for name in HAND_WAGERS)
    ]
    six = [SIX_CARD] if any(p.six_card_bonus for p in positions.values()) else []
    return [DEALER, *seats, *six]


def pay_line(hand: Strength) -> str:
    """The pay-table line a hand falls on: its category, or four aces above four of a kind."""
    return FOUR_ACES if four_aces(hand) else hand.category.name.lower()


def _by_table(
    seat: int,
    wager: Wager,
    amount: int,
    line: str,
    table: Mapping[str, Odds],
    rule: Rule,
    rules: RuleSet,
    hand: str = "",
) -> Action:
    """``wager`` paid at its table's ``line``; a line the table does not pay: collected. ``hand``:
    the hand named on the record, where the line alone does not say it."""
    odds = table.get(line)
    if odds is None:
        return Action(seat, wager, Movement.COLLECT, amount, rule, hand=hand)
    won = odds.pay(amount, rules.odd_cent_rounding)
    return Action(seat, wager, Movement.PAY, won, rule, hand=hand, line=line, odds=str(odds))


def _queens_up_line(hand: Strength, rules: RuleSet) -> str:
    """Queens Up's line: a pair of queens or aces on its lowest line, four aces on four of a kind
    unless the table pays four aces apart; below a pair of queens no line."""
    if not queens_or_better(hand):
        return ""
    if hand.category == Category.PAIR:
        return QUEENS_UP_PAIR
    line = pay_line(hand)
    return line if line in rules.queens_up_pay_table else hand.category.name.lower()


def showdown(position: Position, hand: Strength | None, dealer: Strength, rules: RuleSet) -> list[Action]:
    """The Ante, Play, Super Bonus and Queens Up of ``position`` settled against ``dealer``; ``hand``
    is None only for a folded hand with no wager on it (``hands_needed``)."""
    seat, actions = position.seat, []
    dealer_in = qualifies(dealer)
    if position.folded:
        actions += [
            Action(seat, Wager.ANTE, Movement.COLLECT, position.ante, clauses.FOLD_FORFEITS),
            Action(seat, Wager.SUPER_BONUS, Movement.COLLECT, position.super_bonus, clauses.FOLD_FORFEITS),
        ]
    else:
        if hand is None:
            raise ValueError(f"seat {seat} is live and its hand is not known ({clauses.LIVE_HAND_KNOWN})")
        beats = (hand > dealer) - (hand < dealer)
        moves = {1: Movement.PAY, 0: Movement.PUSH, -1: Movement.COLLECT}
        ante_move = moves[beats] if dealer_in else Movement.PUSH
        ante_rule = clauses.PLAY_SHOWDOWN if dealer_in else clauses.DEALER_QUALIFIES
        actions.append(Action(seat, Wager.ANTE, ante_move, position.ante, ante_rule))
        actions.append(Action(seat, Wager.PLAY, moves[beats], position.play, clauses.PLAY_SHOWDOWN))
        if hand.category >= Category.STRAIGHT:
            table, line = rules.super_bonus_pay_table, pay_line(hand)
            actions.append(
                _by_table(
                    seat, Wager.SUPER_BONUS, position.super_bonus, line, table, clauses.SUPER_BONUS, rules
                )
            )
        else:
            move = Movement.COLLECT if dealer_in and beats < 0 else Movement.PUSH
            actions.append(Action(seat, Wager.SUPER_BONUS, move, position.super_bonus, clauses.SUPER_BONUS))
    if position.queens_up:
        if hand is None:
            raise ValueError(f"seat {seat} has a Queens Up Wager and its hand is not known")
        table, line = rules.queens_up_pay_table, _queens_up_line(hand, rules)
        actions.append(
            _by_table(seat, Wager.QUEENS_UP, position.queens_up, line, table, clauses.QUEENS_UP, rules)
        )
    return [action for action in actions if action.amount or action.movement is Movement.PAY]


def progressive(position: Position, accepted: bool) -> list[Action]:
    """A Progressive Payout Wager the system ``accepted`` at the lock went to the inventory at
    657a.9(a)(3): it is collected, its award paid by the progressive system (the round's AWARD
    records). One the system refused (its sensors locked out, or the seat's sensor failed: decision
    0043) was never in action: the dealer returned its chip, and it is recorded returned."""
    if not position.progressive:
        return []
    move, rule = (Movement.COLLECT, clauses.PROGRESSIVE_COUNT)
    if not accepted:
        move, rule = Movement.PUSH, clauses.PROGRESSIVE_REFUSED
    return [Action(position.seat, Wager.PROGRESSIVE, move, position.progressive, rule)]


def _by_five_card_table(
    position: Position,
    wager: Wager,
    cards: Sequence[Card],
    table: Mapping[str, Odds],
    rule: Rule,
    rules: RuleSet,
) -> Action:
    """A wager paid by a five-card table on the best five of ``cards``; no line: collected."""
    value = best_five(cards)[0]  # its category names the line; the cards are in the HAND records
    amount = getattr(position, wager.value)
    return _by_table(position.seat, wager, amount, value.category.key, table, rule, rules, hand=str(value))


def bonuses(
    position: Position, cards: Sequence[Card] | None, six_card: Card | None, rules: RuleSet
) -> list[Action]:
    """The Five Card Hand Bonus Wager on the player's five cards as a five-card poker hand, and the
    Six Card Bonus Wager on the best five of the player's five cards and the Six Card Bonus card
    (decision 0023), each by its configured table."""
    actions = []
    if position.five_card_bonus:
        assert cards is not None, "hands_needed makes the round wait for this hand"
        actions.append(
            _by_five_card_table(
                position,
                Wager.FIVE_CARD_BONUS,
                cards,
                rules.five_card_bonus_pay_table,
                clauses.FIVE_CARD_BONUS,
                rules,
            )
        )
    if position.six_card_bonus:
        assert cards is not None and six_card is not None, "hands_needed makes the round wait for these"
        actions.append(
            _by_five_card_table(
                position,
                Wager.SIX_CARD_BONUS,
                (*cards, six_card),
                rules.six_card_bonus_pay_table,
                clauses.SIX_CARD_BONUS,
                rules,
            )
        )
    return actions


def envy(position: Position, accepted: bool, players: Mapping[int, Strength], rules: RuleSet) -> list[Action]:
    """657a.1 Four-Card Envy Bonus: a Progressive Payout Wager is paid the configured fixed sum for
    each OTHER player holding a qualifying hand (never for the player's own hand or the dealer's).
    ``players``: the hands held at the showdown (a player who folded holds none: decision 0023). A
    wager the system did not accept at the lock is not in action and earns none (657a.9(a)(3))."""
    if not position.progressive or not accepted:
        return []
    actions = []
    for seat, hand in sorted(players.items()):
        line = pay_line(hand)
        amount = rules.envy_bonus_pay_table.get(line)
        if seat != position.seat and amount is not None:
            actions.append(
                Action(
                    position.seat,
                    Wager.ENVY_BONUS,
                    Movement.PAY,
                    amount,
                    clauses.ENVY_BONUS,
                    hand=hand.category.label,
                    line=line,
                    odds="fixed sum",
                    envied_seat=seat,
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
