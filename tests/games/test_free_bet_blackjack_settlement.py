"""Free Bet Blackjack settlement, function by function: every action's wager, movement, amount,
clause and hand, and the position's net, as the record will carry them. The round tests
(test_free_bet_blackjack_clauses.py) show when each function runs; these pin what it returns."""

from __future__ import annotations

from games.common.config import Odds, Rounding
from games.free_bet_blackjack import RuleSet, clauses
from games.free_bet_blackjack.positions import Hand, Position
from games.free_bet_blackjack.rules_config import Push22PayTable
from games.free_bet_blackjack.settlement import (
    Action,
    Movement,
    WagerKind,
    against_dealer_blackjack,
    blackjack_payment,
    even_money_payment,
    push22_odds,
    showdown,
    void,
)
from vocabulary.cards import Card

UP = RuleSet(odd_cent_rounding=Rounding.UP)
BJ, LAMMER, PUSH22, INSURANCE = WagerKind.BLACKJACK, WagerKind.LAMMER, WagerKind.PUSH22, WagerKind.INSURANCE
COLLECT, PAY, PUSH = Movement.COLLECT, Movement.PAY, Movement.PUSH


def cards(text: str) -> tuple[Card, ...]:
    return tuple(Card.parse(card) for card in text.split())


def position(seat: int, wager: int, hands: str, **wagers: int) -> Position:
    """A position whose dealt hand holds ``hands`` (hands separated by ``|``); every further hand
    is a free split's, staked with one lammer."""
    result = Position(seat, wager, **wagers)
    for number, hand in enumerate(hands.split("|")):
        if number == 0:
            result.hands[0].cards = cards(hand)
        else:
            result.hands.append(Hand(seat, number, 0, cards(hand), lammers=[wager], split=True))
    return result


def net(actions: list[Action]) -> int:
    return sum(action.net for action in actions)


def test_672a_7_h_1_blackjack_paid_3_to_2_on_the_dealt_hand_rounded_as_configured():
    """672a.7(h)(1): 3 to 2 on 10.01 is 15.015: 15.02 rounding up, 15.01 rounding down."""
    blackjack = position(3, 1001, "As Kd")
    assert blackjack_payment(blackjack, UP) == Action(3, BJ, PAY, 1502, clauses.BLACKJACK_PAID, 0)
    assert blackjack_payment(blackjack, RuleSet()).amount == 1501


def test_672a_7_f_even_money_paid_1_to_1_on_the_dealt_hand():
    """672a.7(f) (even money): the Blackjack Wager paid 1 to 1 at once, on hand 0."""
    assert even_money_payment(position(2, 1001, "As Kd"), UP) == Action(
        2, BJ, PAY, 1001, clauses.EVEN_MONEY, 0
    )


def test_672a_7_g_1_dealer_and_player_blackjack_push_collect_and_insurance_paid_2_to_1():
    """672a.7(g)(1): the Blackjack Wager returned, the Push 22 Wager collected, insurance paid."""
    actions = against_dealer_blackjack(position(2, 1000, "As Kd", push22=500, insurance=501), UP)
    rule = clauses.DEALER_BLACKJACK_PLAYER_BLACKJACK
    assert actions == [
        Action(2, BJ, PUSH, 1000, rule, 0),
        Action(2, PUSH22, COLLECT, 500, rule),
        Action(2, INSURANCE, PAY, 1002, rule),
    ]
    assert net(actions) == 502


def test_672a_7_g_2_dealer_blackjack_collects_the_wager_and_push_22():
    """672a.7(g)(2): no player Blackjack: the Blackjack and Push 22 Wagers collected."""
    actions = against_dealer_blackjack(position(5, 1000, "Tc 9d", push22=200), UP)
    rule = clauses.DEALER_BLACKJACK_NO_PLAYER_BLACKJACK
    assert actions == [Action(5, BJ, COLLECT, 1000, rule, 0), Action(5, PUSH22, COLLECT, 200, rule)]
    assert net(actions) == -1200


def test_672a_7_g_1_even_money_taken_leaves_only_the_push_22_wager():
    """672a.7(g)(1) after even money (672a.7(f)): the Blackjack Wager was paid and is not settled again."""
    taken = position(1, 1000, "As Kd", push22=300)
    taken.hands[0].paid = True
    assert against_dealer_blackjack(taken, UP) == [
        Action(1, PUSH22, COLLECT, 300, clauses.DEALER_BLACKJACK_PLAYER_BLACKJACK)
    ]


def test_672a_7_n_1_push_22_paid_from_the_pay_table_rounded_as_configured():
    """672a.7(n)(1): a Push 22 Wager of 1.01 at 3 to 2 wins 1.52 rounding up; the hand pushes."""
    rules = RuleSet(odd_cent_rounding=Rounding.UP, push22_pay_table=Push22PayTable.any_22(Odds(3, 2)))
    actions = showdown(position(4, 1000, "Tc 8d", push22=101), cards("Kh 6d 6s"), rules)
    assert actions == [
        Action(4, PUSH22, PAY, 152, clauses.DEALER_22),
        Action(4, BJ, PUSH, 1000, clauses.DEALER_22, 0),
    ]


def test_672a_7_n_2_push_22_collected_and_insurance_lost_at_showdown():
    """672a.7(n)(2): the dealer is not 22: the Push 22 Wager collected; the Insurance Wager lost
    (672a.7(f)) before the hands are settled."""
    actions = showdown(position(4, 1000, "Tc 8d", push22=200, insurance=500), cards("Kh 8h"), UP)
    assert actions == [
        Action(4, PUSH22, COLLECT, 200, clauses.DEALER_NOT_22),
        Action(4, INSURANCE, COLLECT, 500, clauses.INSURANCE_LOSES),
        Action(4, BJ, PUSH, 1000, clauses.TIE, 0),
    ]
    assert net(actions) == -700


def test_672a_7_q_1_a_bust_hand_loses_even_when_the_dealer_busts():
    """672a.7(q)(1) with (o)(1): a hand over 21 loses whatever the dealer's total; against a dealer
    who also exceeds 21 (not 22) the clause cited is the double bust's."""
    bust = position(1, 1000, "Tc 6d 9s")
    assert showdown(bust, cards("Kh 6c 8d"), UP) == [Action(1, BJ, COLLECT, 1000, clauses.BUST_LOSES, 0)]
    assert showdown(bust, cards("Kh Qc"), UP) == [Action(1, BJ, COLLECT, 1000, clauses.LOSE_BUST, 0)]


def test_672a_7_o_several_hands_each_with_its_number_lammers_paid_or_collected():
    """672a.7(o), (o)(2), (q)(2): a position split twice; each hand settled by its own total, in
    play order, every action naming its hand; a winning hand's lammer paid an equivalent amount,
    a losing hand's collected at no cost to the player."""
    split = position(6, 1000, "8c Tc|8d Kd|8h 9s")
    split.hands[0].lammers.append(1000)  # a free double
    actions = showdown(split, cards("Th 7h"), UP)  # 17: 18 wins, 18 wins, 17 ties
    assert actions == [
        Action(6, BJ, PAY, 1000, clauses.WIN_HIGHER, 0),
        Action(6, LAMMER, PAY, 1000, clauses.LAMMER_PAID, 0),
        Action(6, LAMMER, PAY, 1000, clauses.LAMMER_PAID, 1),
        Action(6, LAMMER, COLLECT, 1000, clauses.LAMMER_COLLECTED, 2),
    ]
    assert net(actions) == 3000
    lost = showdown(split, cards("Th 9h"), UP)  # 19 beats them all
    assert [(a.wager, a.movement, a.rule, a.hand) for a in lost] == [
        (BJ, COLLECT, clauses.LOSE_LOWER, 0),
        (LAMMER, COLLECT, clauses.LAMMER_COLLECTED, 0),
        (LAMMER, COLLECT, clauses.LAMMER_COLLECTED, 1),
        (LAMMER, COLLECT, clauses.LAMMER_COLLECTED, 2),
    ]
    assert net(lost) == -1000


def test_void_returns_every_wager_and_collects_the_lammers_of_several_hands():
    """A voided round (672a.7 is silent; the supervisor's ruling): each hand's Blackjack Wager
    returned and its Free Bet lammers collected, hand by hand, then the Push 22 and Insurance
    Wagers returned; the player neither gains nor loses."""
    split = position(2, 1000, "8c Tc|8d Kd", push22=200, insurance=500)
    split.hands[0].lammers.append(1000)
    assert void(split) == [
        Action(2, BJ, PUSH, 1000, clauses.VOID, 0),
        Action(2, LAMMER, COLLECT, 1000, clauses.VOID, 0),
        Action(2, LAMMER, COLLECT, 1000, clauses.VOID, 1),
        Action(2, PUSH22, PUSH, 200, clauses.VOID),
        Action(2, INSURANCE, PUSH, 500, clauses.VOID),
    ]
    assert net(void(split)) == 0


def test_void_after_a_blackjack_paid_at_once_returns_only_the_push_22_wager():
    """A voided round after 672a.7(h)(1): the Blackjack paid at once stays paid."""
    paid = position(3, 1000, "As Kd", push22=200)
    paid.hands[0].paid = True
    assert void(paid) == [Action(3, PUSH22, PUSH, 200, clauses.VOID)]


def test_672a_7_n_1_the_push_22_line_the_dealers_22_hits():
    """672a.7(n)(1): the dealer's 22 in one suit, in one colour (diamonds and hearts are red, clubs
    and spades black), or mixed, each paid by its own line of the posted table."""
    table = Push22PayTable(suited=Odds(50), same_colour=Odds(20), other=Odds(8))
    assert push22_odds(cards("Kh 6h 6h"), table) == Odds(50)
    assert push22_odds(cards("Kh 6d 6h"), table) == Odds(20)
    assert push22_odds(cards("Kc 6s 6c"), table) == Odds(20)
    assert push22_odds(cards("Kh 6d 6s"), table) == Odds(8)
    assert push22_odds(cards("Kc 6h 6s"), table) == Odds(8)


def test_a_settlement_is_made_once_and_shared_and_the_kept_ones_stay_bounded(monkeypatch):
    """An Action is immutable, so the one made for the same seat, wager, movement, amount, rule and
    hand is handed out again (math mode settles millions); a rule equal in value but another object
    gets its own, and what is kept is cleared at MADE_KEPT, as a table's stakes over a day are many."""
    from games.free_bet_blackjack import settlement
    from vocabulary.rules import Rule

    first, again = (blackjack_payment(Position(2, 1000), UP) for _ in range(2))
    assert first is again and first == Action(2, BJ, PAY, 1500, clauses.BLACKJACK_PAID, 0)
    twin = Rule(clauses.BLACKJACK_PAID.clause, clauses.BLACKJACK_PAID.summary)
    other = settlement._settled(2, BJ, PAY, 1500, twin, 0)
    assert other == first and other is not first and other.rule is twin
    monkeypatch.setattr(settlement, "MADE_KEPT", 3)
    settlement._made.clear()
    made = [blackjack_payment(Position(seat, 1000), UP) for seat in (1, 2, 3, 4)]
    assert len(settlement._made) == 1 and made[3] is blackjack_payment(Position(4, 1000), UP)
    again = blackjack_payment(Position(1, 1000), UP)
    assert again == made[0] and again is not made[0], "made again once the kept ones were cleared"
