"""Heads Up Hold 'Em settlement, function by function: every action's wager, movement, amount and
rule, and the seat's net, as the record will carry them, with odd odds and odd cents so that an
amount or a rounding taken from the wrong place shows. The round tests show when each runs."""

from __future__ import annotations

from games.common.config import Odds, Rounding
from games.common.movement import Movement
from games.common.poker_hands import Category
from games.heads_up_holdem import clauses
from games.heads_up_holdem.pocket import Pocket
from games.heads_up_holdem.rules_config import RuleSet
from games.heads_up_holdem.settlement import Action, Stakes, Wager, fold, in_order, showdown, void
from vocabulary.cards import Card

COLLECT, PAY, PUSH = Movement.COLLECT, Movement.PAY, Movement.PUSH
ANTE, ODDS, PLAY, TRIPS, POCKET = Wager.ANTE, Wager.ODDS, Wager.PLAY, Wager.TRIPS_PLUS, Wager.POCKET_BONUS
RULES = RuleSet(
    odds_pay_table={Category.FLUSH: Odds(3, 2), Category.STRAIGHT: Odds(1)},
    losing_odds_pay_table={Category.FLUSH: Odds(5, 2)},
    trips_plus_pay_table={Category.FLUSH: Odds(7, 2)},
    pocket_bonus_pay_table={Pocket.ACE_KING_SUITED: Odds(25, 2)},
    odd_cent_rounding=Rounding.UP,
)
ALL = Stakes(4, ante=1001, odds=1001, trips_plus=501, pocket_bonus=301, play=3003)


def cards(text: str) -> list[Card]:
    return [Card.parse(card) for card in text.split()]


def net(actions: list[Action]) -> int:
    return sum(action.net for action in actions)


def test_677a_10_f_void_returns_every_wager_with_the_rule_given():
    """677a.10(f): all hands void, all wagers returned, each under the rule that voided them."""
    assert void(ALL, clauses.MISDEAL_VOIDS) == [
        Action(4, ANTE, PUSH, 1001, clauses.MISDEAL_VOIDS),
        Action(4, ODDS, PUSH, 1001, clauses.MISDEAL_VOIDS),
        Action(4, PLAY, PUSH, 3003, clauses.MISDEAL_VOIDS),
        Action(4, TRIPS, PUSH, 501, clauses.MISDEAL_VOIDS),
        Action(4, POCKET, PUSH, 301, clauses.MISDEAL_VOIDS),
    ]
    assert void(Stakes(2, 500, 500), clauses.VOID) == [
        Action(2, ANTE, PUSH, 500, clauses.VOID),
        Action(2, ODDS, PUSH, 500, clauses.VOID),
    ]


def test_a_fold_collects_the_ante_odds_and_side_wagers():
    """A fold (the published rules of the game) forfeits the Ante, the Odds and any side wager."""
    folded = Stakes(3, ante=1000, odds=1000, trips_plus=200)
    assert fold(folded) == [
        Action(3, ANTE, COLLECT, 1000, clauses.FOLD_FORFEITS),
        Action(3, ODDS, COLLECT, 1000, clauses.FOLD_FORFEITS),
        Action(3, TRIPS, COLLECT, 200, clauses.FOLD_FORFEITS),
    ]
    assert net(fold(folded)) == -2200


def test_a_winning_flush_pays_every_wager_by_its_table_rounded_up():
    """A suited ace-king making a flush beats the dealer's pair: Ante and Play 1 to 1, Odds 3 to 2,
    Trips Plus 7 to 2, Pocket Bonus 25 to 2, each odd cent rounded up as configured."""
    actions = showdown(ALL, cards("Ah Kh"), cards("2c 2d"), cards("9h 5h 3h Qs 8c"), RULES)
    assert actions == [
        Action(4, ANTE, PAY, 1001, clauses.ANTE_AND_PLAY),
        Action(4, PLAY, PAY, 3003, clauses.ANTE_AND_PLAY),
        Action(4, ODDS, PAY, 1502, clauses.ODDS_WIN),
        Action(4, TRIPS, PAY, 1754, clauses.TRIPS_PLUS),
        Action(4, POCKET, PAY, 3763, clauses.POCKET_BONUS),
    ]
    assert net(actions) == 1001 + 3003 + 1502 + 1754 + 3763


def test_the_dealer_not_opening_pushes_the_ante_and_a_lower_winning_hand_pushes_the_odds():
    """The dealer without a pair does not open: the Ante pushes while the Play is paid; a winning
    pair is below the Odds table, so the Odds push; side wagers not on their tables are collected."""
    actions = showdown(ALL, cards("Ac Kd"), cards("2c 7d"), cards("As 9h 5s Qc 8d"), RULES)
    assert actions == [
        Action(4, ANTE, PUSH, 1001, clauses.DEALER_OPENS),
        Action(4, PLAY, PAY, 3003, clauses.ANTE_AND_PLAY),
        Action(4, ODDS, PUSH, 1001, clauses.ODDS_WIN),
        Action(4, TRIPS, COLLECT, 501, clauses.TRIPS_PLUS),
        Action(4, POCKET, COLLECT, 301, clauses.POCKET_BONUS),
    ]
    assert net(actions) == 3003 - 501 - 301


def test_a_tie_pushes_ante_play_and_odds():
    """Equal hands: the Ante, Play and Odds push; the dealer's pair opened."""
    stakes = Stakes(1, ante=1000, odds=1000, play=3000)
    actions = showdown(stakes, cards("2c 3d"), cards("2d 3c"), cards("Ks Kh 9s 8h 7d"), RULES)
    assert actions == [
        Action(1, ANTE, PUSH, 1000, clauses.ANTE_AND_PLAY),
        Action(1, PLAY, PUSH, 3000, clauses.ANTE_AND_PLAY),
        Action(1, ODDS, PUSH, 1000, clauses.ODDS_WIN),
    ]


def test_a_losing_hand_loses_ante_and_play_and_its_odds_unless_the_losing_odds_table_pays():
    """A flush losing to a full house: Ante and Play collected, the Odds paid 5 to 2 by the
    losing-Odds table; a losing pair's Odds collected."""
    stakes = Stakes(5, ante=1001, odds=1001, play=1001)
    board = cards("9h 9s 3h Qs 8h")
    flush = showdown(stakes, cards("Ah Kh"), cards("9c 8d"), board, RULES)
    assert flush == [
        Action(5, ANTE, COLLECT, 1001, clauses.ANTE_AND_PLAY),
        Action(5, PLAY, COLLECT, 1001, clauses.ANTE_AND_PLAY),
        Action(5, ODDS, PAY, 2503, clauses.ODDS_LOSE),
    ]
    assert net(flush) == 2503 - 2002
    pair = showdown(stakes, cards("2c 4d"), cards("Qc Qd"), board, RULES)
    assert pair[-1] == Action(5, ODDS, COLLECT, 1001, clauses.ODDS_LOSE)
    assert net(pair) == -3003


def test_settlement_order_from_the_dealers_right_each_seat_collected_then_paid():
    """House convention (677a.11 not found): seats from the dealer's right, counterclockwise; each
    seat's payments after its collections and pushes, otherwise in the order given."""
    actions = [
        Action(1, ANTE, PAY, 10, clauses.ANTE_AND_PLAY),
        Action(1, ODDS, COLLECT, 10, clauses.ODDS_LOSE),
        Action(3, ANTE, PUSH, 10, clauses.DEALER_OPENS),
        Action(3, TRIPS, COLLECT, 10, clauses.TRIPS_PLUS),
        Action(3, ODDS, PAY, 10, clauses.ODDS_WIN),
        Action(2, ANTE, COLLECT, 10, clauses.ANTE_AND_PLAY),
    ]
    assert [(a.seat, a.wager) for a in in_order(actions)] == [
        (3, ANTE),
        (3, TRIPS),
        (3, ODDS),
        (2, ANTE),
        (1, ODDS),
        (1, ANTE),
    ]
