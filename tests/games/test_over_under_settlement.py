"""Over/Under settlement, function by function: every action's wager, movement, amount, clause and
the Hand's total, and the position's net, as the record will carry them. The round tests
(test_over_under_clauses.py) show when each function runs; these pin what it returns."""

from __future__ import annotations

from games.common.config import Odds, Rounding
from games.over_under import clauses
from games.over_under.inputs import Choice
from games.over_under.positions import Position
from games.over_under.rules_config import BONUS_WINNING_TOTALS, RuleSet
from games.over_under.settlement import Action, Movement, WagerKind, settle, surrender, void
from vocabulary.cards import Card

ANTE, OVER, UNDER, BONUS = WagerKind.ANTE, WagerKind.OVER_23, WagerKind.UNDER_18, WagerKind.BONUS
COLLECT, PAY, PUSH = Movement.COLLECT, Movement.PAY, Movement.PUSH
#: Odd odds on every wager, rounding up, so that an amount or a rounding taken from the wrong place shows.
RULES = RuleSet(
    ante_odds=Odds(3, 2),
    over_23_odds=Odds(2),
    under_18_odds=Odds(5, 2),
    bonus_pay_table={points: Odds(points, 2) for points in BONUS_WINNING_TOTALS},
    odd_cent_rounding=Rounding.UP,
)


def position(choice: Choice, hand: str, *, ante: int = 1001, bonus: int = 0) -> Position:
    stake = ante if choice is not Choice.SURRENDER else 0
    cards = [Card.parse(card) for card in hand.split()]
    return Position(2, ante, bonus, choice, stake, cards)


def net(actions: list[Action]) -> int:
    return sum(action.net for action in actions)


def test_686a_7_k_2_under_18_wins_citing_the_under_clause():
    """686a.7(k)(2): Under 18 on a total of 9: the Ante (3 to 2) and the Under 18 Wager (5 to 2)
    paid, citing (k)(2), never the Over clause; odd cents rounded up as configured."""
    actions = settle(position(Choice.UNDER_18, "2c 3d 4h"), RULES)
    assert actions == [
        Action(2, ANTE, PAY, 1502, clauses.WIN_UNDER, 9),
        Action(2, UNDER, PAY, 2503, clauses.WIN_UNDER, 9),
    ]
    assert net(actions) == 4005


def test_686a_7_k_1_over_23_wins_citing_the_over_clause():
    """686a.7(k)(1): Over 23 on a total of 30: the Ante (3 to 2) and the Over 23 Wager (2 to 1)."""
    actions = settle(position(Choice.OVER_23, "Kc Qd Th"), RULES)
    assert actions == [
        Action(2, ANTE, PAY, 1502, clauses.WIN_OVER, 30),
        Action(2, OVER, PAY, 2002, clauses.WIN_OVER, 30),
    ]


def test_686a_7_k_the_other_side_and_the_middle_lose_with_the_total():
    """686a.7(k)(1)-(2), (l): an Under 18 Wager on 30 loses by (k); on 20 both wagers lose by (l)."""
    assert settle(position(Choice.UNDER_18, "Kc Qd Th"), RULES) == [
        Action(2, ANTE, COLLECT, 1001, clauses.OTHER_SIDE_LOSES, 30),
        Action(2, UNDER, COLLECT, 1001, clauses.OTHER_SIDE_LOSES, 30),
    ]
    middle = settle(position(Choice.OVER_23, "Kc 7d 2h"), RULES)
    assert middle == [
        Action(2, ANTE, COLLECT, 1001, clauses.LOSE_MIDDLE, 19),
        Action(2, OVER, COLLECT, 1001, clauses.LOSE_MIDDLE, 19),
    ]
    assert net(middle) == -2002


def test_686a_7_k_l_the_edges_of_each_range_and_the_clause_each_cites():
    """686a.7(k)(1): Over 23 wins on 24 to 33; (k)(2): Under 18 on 6 to 17; (l): 18 to 23 loses
    both; a total on the other side loses by (k)."""
    edges = {
        (Choice.OVER_23, "Kc Qd 4h"): (PAY, clauses.WIN_OVER, 24),
        (Choice.OVER_23, "Kc Qd 3h"): (COLLECT, clauses.LOSE_MIDDLE, 23),
        (Choice.OVER_23, "Kc 6d 2h"): (COLLECT, clauses.LOSE_MIDDLE, 18),
        (Choice.OVER_23, "Kc 5d 2h"): (COLLECT, clauses.OTHER_SIDE_LOSES, 17),
        (Choice.UNDER_18, "2c 2d 2h"): (PAY, clauses.WIN_UNDER, 6),
        (Choice.UNDER_18, "Kc 5d 2h"): (PAY, clauses.WIN_UNDER, 17),
        (Choice.UNDER_18, "Kc 6d 2h"): (COLLECT, clauses.LOSE_MIDDLE, 18),
        (Choice.UNDER_18, "Kc Qd 3h"): (COLLECT, clauses.LOSE_MIDDLE, 23),
        (Choice.UNDER_18, "Kc Qd 4h"): (COLLECT, clauses.OTHER_SIDE_LOSES, 24),
    }
    for (choice, hand), expected in edges.items():
        actions = settle(position(choice, hand), RULES)
        assert {(a.movement, a.rule, a.total) for a in actions} == {expected}, (choice, hand)


def test_686a_7_m_bonus_paid_by_the_table_or_collected_with_the_total():
    """686a.7(m): the Bonus Wager paid by the posted odds of its total (33 pays 33 to 2 here) or
    collected on a total of 13 to 26, each with the Hand's total."""
    aces = settle(position(Choice.OVER_23, "Ac Ad Ah", bonus=101), RULES)
    assert aces[-1] == Action(2, BONUS, PAY, 1667, clauses.BONUS_WINS, 33)
    assert net(aces) == 1502 + 2002 + 1667
    middle = settle(position(Choice.OVER_23, "Kc Qd 2h", bonus=101), RULES)
    assert middle[-1] == Action(2, BONUS, COLLECT, 101, clauses.BONUS_LOSES, 22)
    assert net(middle) == -1001 - 1001 - 101


def test_686a_7_h_a_surrendered_hand_settles_only_its_bonus():
    """686a.7(g)(3), (h): the surrendered Ante was collected at the election; at (j) only the
    Bonus Wager is settled, and it wins or loses on the Hand's total as (m) says of every Bonus
    Wager (docs/conformance.md gives the reading of (h)'s "in accordance with subsection (k)")."""
    surrendered = position(Choice.SURRENDER, "2c 2d 2h", bonus=100)
    assert surrender(surrendered) == Action(2, ANTE, COLLECT, 1001, clauses.SURRENDER_COLLECTS_ANTE)
    assert settle(surrendered, RULES) == [Action(2, BONUS, PAY, 300, clauses.BONUS_WINS, 6)]
    lost = position(Choice.SURRENDER, "7c 7d 2h", bonus=100)
    assert settle(lost, RULES) == [Action(2, BONUS, COLLECT, 100, clauses.BONUS_LOSES, 16)]


def test_void_returns_the_ante_the_under_18_and_the_bonus_wagers():
    """A voided round (686a.7 is silent; the supervisor's ruling): every wager still on the layout
    returned, each under its own kind; the player neither gains nor loses."""
    actions = void(position(Choice.UNDER_18, "2c 3d", bonus=100))
    assert actions == [
        Action(2, ANTE, PUSH, 1001, clauses.VOID),
        Action(2, UNDER, PUSH, 1001, clauses.VOID),
        Action(2, BONUS, PUSH, 100, clauses.VOID),
    ]
    assert net(actions) == 0
    assert [a.wager for a in void(position(Choice.OVER_23, "2c"))] == [ANTE, OVER]


def test_void_after_a_surrender_returns_only_the_bonus_wager():
    """A voided round after 686a.7(g)(3): the surrendered Ante stays collected; the Bonus returns."""
    assert void(position(Choice.SURRENDER, "2c", bonus=100)) == [Action(2, BONUS, PUSH, 100, clauses.VOID)]
    assert void(position(Choice.SURRENDER, "2c")) == []


def test_void_before_the_election_returns_the_ante_and_bonus_and_nothing_once_settled():
    """A voided round before 686a.7(g): the Ante and Bonus returned; a position settled by (j)
    keeps its settlement."""
    undecided = Position(3, 500, 100)
    assert void(undecided) == [
        Action(3, ANTE, PUSH, 500, clauses.VOID),
        Action(3, BONUS, PUSH, 100, clauses.VOID),
    ]
    settled = position(Choice.OVER_23, "Kc Qd Th", bonus=100)
    settled.settled = True
    assert void(settled) == []
