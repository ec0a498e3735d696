"""Crazy 4 Poker settlement, function by function: every action's wager, movement, amount and rule,
and the position's net, as the record will carry them. Only the Ante, Play, Super Bonus and Queens Up
settlement and the void are pinned here; the side wagers settled by their own tables have theirs."""

from __future__ import annotations

from games.common.config import Rounding
from games.common.movement import Movement
from games.crazy_4_poker import clauses
from games.crazy_4_poker.evaluator import Strength, strength
from games.crazy_4_poker.rules_config import RuleSet
from games.crazy_4_poker.settlement import Action, Position, Wager, showdown, void
from vocabulary.cards import Card

ANTE, PLAY, SUPER, QUEENS = Wager.ANTE, Wager.PLAY, Wager.SUPER_BONUS, Wager.QUEENS_UP
COLLECT, PAY, PUSH = Movement.COLLECT, Movement.PAY, Movement.PUSH
UP = RuleSet.example(odd_cent_rounding=Rounding.UP)


def hand(text: str) -> Strength:
    return strength([Card.parse(card) for card in text.split()])


def net(actions: list[Action]) -> int:
    return sum(action.net for action in actions)


def position(play: int, *, queens_up: int = 0, decided: bool = True) -> Position:
    return Position(6, ante=1001, super_bonus=1001, queens_up=queens_up, play=play, decided=decided)


DEALER_PAIR = hand("8c 8d 3h 5s 2c")  # qualifies


def test_a_fold_forfeits_ante_and_super_bonus_but_queens_up_is_still_paid():
    """The published rules: a fold loses the Ante and Super Bonus; Queens Up stands on the hand."""
    actions = showdown(position(0, queens_up=301), hand("Qc Qd 4h 7s 9c"), DEALER_PAIR, UP)
    assert actions == [
        Action(6, ANTE, COLLECT, 1001, clauses.FOLD_FORFEITS),
        Action(6, SUPER, COLLECT, 1001, clauses.FOLD_FORFEITS),
        Action(6, QUEENS, PAY, 301, clauses.QUEENS_UP, line="pair_of_queens", odds="1 to 1"),
    ]
    assert net(actions) == -1001 - 1001 + 301


def test_a_winning_flush_pays_ante_play_super_bonus_and_queens_up_by_their_tables():
    """Ante and Play 1 to 1 beating a qualifying dealer; the Super Bonus 3 to 2 on a flush (odd cent
    rounded up as configured), Queens Up 4 to 1."""
    actions = showdown(position(2002, queens_up=301), hand("2h 6h 9h Kh 3c"), DEALER_PAIR, UP)
    assert actions == [
        Action(6, ANTE, PAY, 1001, clauses.PLAY_SHOWDOWN),
        Action(6, PLAY, PAY, 2002, clauses.PLAY_SHOWDOWN),
        Action(6, SUPER, PAY, 1502, clauses.SUPER_BONUS, line="flush", odds="3 to 2"),
        Action(6, QUEENS, PAY, 1204, clauses.QUEENS_UP, line="flush", odds="4 to 1"),
    ]
    assert showdown(position(2002), hand("2h 6h 9h Kh 3c"), DEALER_PAIR, RuleSet.example())[2].amount == 1501


def test_four_aces_pay_their_own_super_bonus_line_and_queens_up_four_of_a_kind():
    """Four aces: the Super Bonus's four-aces line (200 to 1), above four of a kind; Queens Up has no
    such line and pays four of a kind (50 to 1)."""
    actions = showdown(position(1001, queens_up=100), hand("Ac Ad Ah As 2c"), DEALER_PAIR, UP)
    assert actions[2:] == [
        Action(6, SUPER, PAY, 200200, clauses.SUPER_BONUS, line="four_aces", odds="200 to 1"),
        Action(6, QUEENS, PAY, 5000, clauses.QUEENS_UP, line="four_of_a_kind", odds="50 to 1"),
    ]


def test_a_dealer_who_does_not_qualify_pushes_the_ante_and_the_super_bonus_below_a_straight():
    """The dealer below king high does not qualify: the Ante pushes, the Play is settled on the
    hands, and a Super Bonus below a straight is returned."""
    actions = showdown(position(1001), hand("Ac Ad 4h 7s 9c"), hand("Qc 9d 7h 4c 2s"), UP)
    assert actions == [
        Action(6, ANTE, PUSH, 1001, clauses.DEALER_QUALIFIES),
        Action(6, PLAY, PAY, 1001, clauses.PLAY_SHOWDOWN),
        Action(6, SUPER, PUSH, 1001, clauses.SUPER_BONUS),
    ]


def test_a_losing_hand_loses_ante_play_super_bonus_and_queens_up():
    """Beaten by a qualifying dealer: Ante, Play and a Super Bonus below a straight collected, and a
    Queens Up below its lowest line. (A hand never reported is not settled at all: the round holds,
    decision 0023, tests/games/test_crazy_4_poker_settlement.py.)"""
    kings = hand("Kc Kd 3h 5s 2c")
    lost = showdown(position(1001, queens_up=100), hand("Jc Jd 4h 7s 9c"), kings, UP)
    assert lost == [
        Action(6, ANTE, COLLECT, 1001, clauses.PLAY_SHOWDOWN),
        Action(6, PLAY, COLLECT, 1001, clauses.PLAY_SHOWDOWN),
        Action(6, SUPER, COLLECT, 1001, clauses.SUPER_BONUS),
        Action(6, QUEENS, COLLECT, 100, clauses.QUEENS_UP),
    ]
    assert net(lost) == -3103


def test_a_tie_pushes_ante_and_play():
    """Equal hands against a qualifying dealer: the Ante, the Play and a Super Bonus below a straight
    are returned (the Super Bonus loses only to a qualifying dealer who beats the hand)."""
    actions = showdown(position(1001), hand("8h 8s 3c 5d 2h"), DEALER_PAIR, UP)
    assert actions == [
        Action(6, ANTE, PUSH, 1001, clauses.PLAY_SHOWDOWN),
        Action(6, PLAY, PUSH, 1001, clauses.PLAY_SHOWDOWN),
        Action(6, SUPER, PUSH, 1001, clauses.SUPER_BONUS),
    ]


def test_657a_9_f_void_returns_every_wager_placed_with_the_rule_given():
    """657a.9(f): hands void, every wager placed returned under the rule that voided them."""
    placed = Position(2, ante=500, super_bonus=500, queens_up=100, progressive=100, play=1000)
    assert void(placed, clauses.MISDEAL_VOID) == [
        Action(2, ANTE, PUSH, 500, clauses.MISDEAL_VOID),
        Action(2, SUPER, PUSH, 500, clauses.MISDEAL_VOID),
        Action(2, PLAY, PUSH, 1000, clauses.MISDEAL_VOID),
        Action(2, QUEENS, PUSH, 100, clauses.MISDEAL_VOID),
        Action(2, Wager.PROGRESSIVE, PUSH, 100, clauses.MISDEAL_VOID),
    ]
