"""One test per clause of 58 Pa. Code § 672a.7, each named after its clause (games.conformance reads
the names and docstrings to list, in docs/conformance.md, the tests that stand for each clause)."""

from __future__ import annotations

from games.free_bet_blackjack import RuleSet, clauses
from games.free_bet_blackjack.inputs import (
    COVER_CARD,
    CardArrives,
    ChangeDealer,
    CloseInsurance,
    ConfirmBurn,
    Decision,
    Discard,
    EvenMoney,
    Insure,
    PeekAnswer,
    PlaceWager,
    PlayerAction,
    Resolution,
    RevealHole,
    Settle,
    ShoeStatus,
    StartDeal,
    SupervisorResolve,
)
from games.free_bet_blackjack.machine import (
    BETTING,
    COMPLETE,
    DEALER_TURN,
    DEALING,
    HELD,
    INSURANCE,
    PEEKING,
    PLAYER_TURNS,
)
from games.free_bet_blackjack.records import RecordKind
from tests.games import (
    SUPERVISOR,
    dealt,
    decide,
    faces,
    finish,
    movements,
    new_round,
    peek,
    refused,
    reveal,
    stacked,
    started,
)
from vocabulary.cards import SealedCard

STAND, HIT, DOUBLE, SPLIT = PlayerAction.STAND, PlayerAction.HIT, PlayerAction.DOUBLE_DOWN, PlayerAction.SPLIT
READY = ShoeStatus.ready()


def irregularities(round_) -> list[tuple[str, str]]:
    return [(r.fields["code"], r.fields["clause"]) for r in round_.log.of(RecordKind.IRREGULARITY)]


def test_672a_7_a_no_deal_from_a_shoe_not_loaded():
    """672a.7(a): cards are dealt only from a dealing shoe holding the shuffled and cut cards."""
    round_, _ = new_round(stacked(["9c 9d"], "7h 8h"))
    refused("672a.7(a)", round_, StartDeal(ShoeStatus(loaded=False, burn_due=False, reshuffle_due=False)))
    assert round_.state == BETTING
    round_.handle(StartDeal(READY))
    assert round_.state == DEALING


def test_672a_7_b_each_card_is_placed_where_the_round_names():
    """672a.7(b): each card is placed on the appropriate area of the layout: the round names it
    before the card comes out, and records the card there."""
    round_, shoe = new_round(stacked(["9c 9d", "4s 5s"], "7h 8h"), wagers={2: 1000, 5: 1000})
    round_.handle(StartDeal(READY))
    announced = []
    while round_.expected is not None:
        slot = round_.expected
        assert "672a.7(b)" in slot.instruction and slot.place in slot.instruction
        announced.append(slot.place)
        shoe.deal(round_)
    placed = [r.fields["place"] for r in round_.log.of(RecordKind.CARD)]
    assert placed == announced == ["seat 2 hand 0", "seat 5 hand 0", "dealer"] * 2


def test_672a_7_a_every_card_record_names_the_shoe_as_its_source():
    """672a.7(a): all cards are dealt from a dealing shoe, and each card's record says so (``source``
    "shoe") beside its place; the hole card's record carries its commitment, never its face."""
    round_, shoe = dealt(["9c 7d"], "9h 8h", "5s")
    decide(round_, shoe, 1, HIT)
    cards = [r.fields for r in round_.log.of(RecordKind.CARD)]
    assert {card["source"] for card in cards} == {"shoe"} and len(cards) == 5
    hole = next(card for card in cards if card["face_up"] is False)
    assert hole["card"] is None and hole["commitment"] and hole["place"] == "dealer"


def test_672a_7_c_no_deal_while_a_batch_burn_is_due():
    """672a.7(c): after a full batch is loaded the first card is burned before any is dealt."""
    round_, _ = new_round(stacked(["9c 9d"], "7h 8h"))
    refused("672a.7(c)", round_, StartDeal(ShoeStatus(loaded=True, burn_due=True, reshuffle_due=False)))
    assert round_.state == BETTING


def test_672a_7_c_new_dealer_burns_before_dealing():
    """672a.7(c): each new dealer burns a card before dealing any; a card dealt before that burn
    holds the round, and CONTINUE sets that card aside."""
    round_, shoe = dealt(["9c 7d"], "7h 8h", "Kc 2d")
    round_.handle(ChangeDealer("D-2"))
    refused("672a.7(c)", round_, ConfirmBurn(ShoeStatus(loaded=True, burn_due=True, reshuffle_due=False)))
    round_.handle(Decision(1, HIT))
    shoe.deal(round_)  # the Kc, before the burn
    assert round_.state == HELD and irregularities(round_) == [("card-before-burn", "672a.7(c)")]
    round_.handle(ConfirmBurn(READY))
    round_.handle(SupervisorResolve(SUPERVISOR, Resolution.CONTINUE))
    assert round_.state == PLAYER_TURNS and round_.expected.place == "seat 1 hand 0"
    shoe.deal(round_)
    assert [str(c) for c in round_.positions[1].hands[0].cards] == ["9c", "7d", "2d"]
    assert [p.card for p in round_.set_aside] == ["Kc"]


def test_672a_7_d_cover_card_is_set_aside_and_the_round_completed():
    """672a.7(d): a cover card first out of the shoe at the start of a round is placed to the side
    and the round is completed as usual."""
    round_, shoe = started([None, *stacked(["Tc 8d"], "Th 7h")])
    assert round_.state == PEEKING and irregularities(round_) == []
    peek(round_, shoe)
    round_.handle(Decision(1, STAND))
    finish(round_, shoe)
    assert round_.state == COMPLETE and round_.reshuffle_required
    assert [p.card for p in round_.pickup] == ["Tc", "8d", "Th", "7h"]  # the cover card is not in the rack
    assert round_.net(1) == 1000


def test_672a_7_d_1_the_shoe_is_to_be_collected_after_the_cover_card():
    """672a.7(d)(1): after the round with the cover card the cards left in the shoe are collected:
    the round tells the caller so and records it."""
    round_, shoe = dealt(["Tc 8d"], "9h 7h", "COVER 2c")
    decide(round_, shoe, 1, HIT)  # the cover card comes out, then the 2c
    assert round_.reshuffle_required
    [cover] = round_.log.of(RecordKind.COVER_CARD)
    assert cover.fields["collect"] == "672a.7(d)(1)"
    assert [str(c) for c in round_.positions[1].hands[0].cards] == ["Tc", "8d", "2c"]


def test_672a_7_d_2_no_deal_until_the_cards_are_reshuffled():
    """672a.7(d)(2): no round is dealt after a cover card until the cards are shuffled again."""
    round_, _ = new_round(stacked(["Tc 8d"], "9h 7h"), number=2)
    refused("672a.7(d)(2)", round_, StartDeal(ShoeStatus(loaded=True, burn_due=False, reshuffle_due=True)))


def test_672a_7_e_deal_order_clockwise_from_the_dealers_left_after_the_wagers():
    """672a.7(e): after the wagers, cards are dealt from the player farthest to the dealer's left,
    clockwise: seats in ascending order, whatever order the wagers came in."""
    round_, shoe = new_round(stacked(["2c 3c", "4c 5c", "6c 7c"], "8c 9c"), wagers={})
    refused("672a.7(e)", round_, StartDeal(READY))  # no wager yet
    for seat in (5, 2, 4):
        round_.handle(PlaceWager(seat, 1000))
    round_.handle(StartDeal(READY))
    shoe.deal_all_due(round_)
    placed = [r.fields["place"] for r in round_.log.of(RecordKind.CARD)]
    assert placed == ["seat 2 hand 0", "seat 4 hand 0", "seat 5 hand 0", "dealer"] * 2


def test_672a_7_e_1_first_cards_only_to_boxes_with_a_blackjack_wager():
    """672a.7(e)(1): one card face up to each box holding a Blackjack Wager; a Push 22 Wager
    without one is refused."""
    round_, shoe = new_round(stacked(["2c 3c"], "8c 9c"), wagers={3: 1000})
    refused("672a.7(e)(1)", round_, PlaceWager(4, 0, 500))
    round_.handle(StartDeal(READY))
    assert round_.expected.place == "seat 3 hand 0" and round_.expected.face_up
    assert round_.expected.rule.clause == "672a.7(e)(1)"
    shoe.deal(round_)
    assert round_.expected.place == "dealer"


def test_672a_7_e_2_the_dealers_first_card_face_up():
    """672a.7(e)(2): the dealer's first card is dealt face up; a face-down card there holds the round."""
    round_, shoe = new_round(stacked(["2c 3c"], "8c 9c"))
    round_.handle(StartDeal(READY))
    shoe.deal(round_)
    assert round_.expected.rule.clause == "672a.7(e)(2)" and round_.expected.face_up
    round_.handle(CardArrives(shoe.draw(face_up=False)))
    assert round_.state == HELD and irregularities(round_) == [
        ("face-down-card-out-of-place", "672a.7(e)(2)")
    ]


def test_672a_7_e_3_second_cards_face_up_to_each_box():
    """672a.7(e)(3): a second card face up to each box with a wager."""
    round_, shoe = new_round(stacked(["2c 3c"], "8c 9c"))
    round_.handle(StartDeal(READY))
    shoe.deal(round_)
    shoe.deal(round_)
    assert round_.expected.rule.clause == "672a.7(e)(3)" and round_.expected.place == "seat 1 hand 0"
    round_.handle(CardArrives(shoe.draw(face_up=False)))
    assert irregularities(round_) == [("face-down-card-out-of-place", "672a.7(e)(3)")]


def test_672a_7_e_4_the_hole_card_face_down():
    """672a.7(e)(4): the dealer's second card face down; one dealt face up exposes the hole card and
    holds the round; CONTINUE sets it aside and the hole card is still due face down."""
    round_, shoe = new_round(stacked(["2c 3c"], "8c 9c", "Kd"))
    round_.handle(StartDeal(READY))
    for _ in range(3):
        shoe.deal(round_)
    assert not round_.expected.face_up and round_.expected.rule.clause == "672a.7(e)(4)"
    round_.handle(CardArrives(shoe.draw(face_up=True)))  # the 9c, face up
    assert round_.state == HELD and irregularities(round_) == [("hole-card-exposed", "672a.7(e)(4)")]
    round_.handle(SupervisorResolve(SUPERVISOR, Resolution.CONTINUE))
    assert round_.state == DEALING and not round_.expected.face_up
    shoe.deal(round_)
    assert round_.state == PLAYER_TURNS and round_.hole is not None and round_.hole_face is None


def test_672a_7_f_insurance_and_even_money_only_on_an_ace():
    """672a.7(f): insurance or even money is offered when the dealer's first card is an ace, after
    the second cards; an Insurance Wager is at most half the Blackjack Wager."""
    round_, _ = dealt(["9c 9d", "As Kd"], "Ah 7h", wagers={1: 1001, 2: 1000})
    assert round_.state == INSURANCE
    refused("672a.8", round_, Insure(1, 501))
    round_.handle(Insure(1, 500))
    refused("672a.7(f)", round_, Insure(1, 100))  # once per position
    refused("672a.7(f)", round_, EvenMoney(1))  # no Blackjack there
    round_.handle(EvenMoney(2))
    assert movements(round_) == [(2, "blackjack", "pay", 1000)]

    ten_up, _ = dealt(["9c 9d"], "Kh 7h")
    assert ten_up.state == PEEKING
    refused("672a.7(f)", ten_up, Insure(1, 100))


def test_672a_7_g_the_reader_answers_only_blackjack_or_not():
    """672a.7(g): on an ace or ten-value up card the round asks the reader for a yes or no; it never
    holds the hole card's face; other up cards are not peeked."""
    round_, shoe = dealt(["9c 9d"], "Kh 7h")
    assert round_.state == PEEKING and "peek_answer" in round_.accepts and "insure" not in round_.accepts
    assert round_.hole_face is None and isinstance(round_.hole, SealedCard)
    peek(round_, shoe)
    assert round_.state == PLAYER_TURNS
    assert [r.fields["dealer_blackjack"] for r in round_.log.of(RecordKind.PEEK)] == [False]

    no_peek, _ = dealt(["9c 9d"], "9h 7h")
    assert no_peek.state == PLAYER_TURNS
    refused("672a.7", no_peek, PeekAnswer(False))


def test_672a_7_g_1_dealer_and_player_blackjack():
    """672a.7(g)(1): dealer Blackjack, player Blackjack: the Blackjack Wager is returned, the Push 22
    Wager collected and the Insurance Wager paid; no further card is dealt."""
    round_, shoe = dealt(["As Kd"], "Ah Kh", wagers={1: (1000, 500)})
    round_.handle(Insure(1, 500))
    round_.handle(CloseInsurance())
    round_.handle(PeekAnswer(True))
    reveal(round_, shoe)
    assert round_.expected is None
    round_.handle(Settle())
    assert movements(round_) == [
        (1, "push22", "collect", 500),
        (1, "blackjack", "push", 1000),
        (1, "insurance", "pay", 1000),
    ]
    assert {a.rule.clause for a in round_.actions} == {"672a.7(g)(1)"}


def test_672a_7_g_2_dealer_blackjack_collects_the_others():
    """672a.7(g)(2): dealer Blackjack, no player Blackjack: Blackjack and Push 22 Wagers collected,
    Insurance Wagers paid."""
    round_, shoe = dealt(["9c 9d"], "Th Ah", wagers={1: (1000, 500)})
    peek(round_, shoe)
    reveal(round_, shoe)
    round_.handle(Settle())
    assert sorted(movements(round_)) == [(1, "blackjack", "collect", 1000), (1, "push22", "collect", 500)]
    assert {a.rule.clause for a in round_.actions} == {"672a.7(g)(2)"}
    assert round_.net(1) == -1500


def test_672a_7_h_players_act_clockwise_from_the_dealers_left():
    """672a.7(h): without a dealer Blackjack, players act from the dealer's left, clockwise."""
    round_, shoe = dealt(["9c 7d", "Tc 6d"], "9h 8h", wagers={2: 1000, 4: 1000})
    refused("672a.7(h)", round_, Decision(4, STAND))
    assert round_.current_hand.seat == 2
    decide(round_, shoe, 2, STAND)
    assert round_.current_hand.seat == 4


def test_672a_7_h_1_seat_1_decides_before_seat_2s_blackjack_is_paid():
    """672a.7(h)(1): the dealer starts with the player farthest to the dealer's left and goes on in
    turn: seat 1 hits and stands before seat 2's Blackjack is announced and paid, and seat 3 is
    asked only after it; the settlement records come in that order."""
    round_, shoe = dealt(["9c 4d", "As Kd", "Tc 7d"], "9h 8h", "2s")
    assert movements(round_) == [] and round_.current_hand.seat == 1
    decide(round_, shoe, 1, HIT)
    assert movements(round_) == [], "not paid while seat 1 is still deciding"
    decide(round_, shoe, 1, STAND)
    assert movements(round_) == [(2, "blackjack", "pay", 1500)]
    assert round_.current_hand.seat == 3
    steps = [
        (r.kind.value, r.fields["seat"], r.fields.get("action") or r.fields.get("clause"))
        for r in round_.records
        if r.kind in (RecordKind.DECISION, RecordKind.SETTLEMENT)
    ]
    assert steps == [("decision", 1, "hit"), ("decision", 1, "stand"), ("settlement", 2, "672a.7(h)(1)")]


def test_672a_7_h_1_seat_1s_blackjack_is_paid_before_seat_2_is_asked():
    """672a.7(h)(1): a Blackjack at the first seat is announced and paid when the dealer reaches it,
    before the next seat is asked for a decision; its cards leave the layout then."""
    round_, shoe = dealt(["As Kd", "9c 4d"], "9h 8h", "5s")
    assert movements(round_) == [(1, "blackjack", "pay", 1500)]
    assert round_.current_hand.seat == 2 and round_.log.of(RecordKind.DECISION) == []
    decide(round_, shoe, 2, HIT, STAND)
    assert movements(round_) == [(1, "blackjack", "pay", 1500)], "paid once"


def test_672a_7_h_1_blackjack_paid_in_turn_cards_tucked_under_push_22():
    """672a.7(h)(1): a player Blackjack is paid 3 to 2 when the dealer reaches it and its cards
    removed; with a Push 22 Wager the cards stay under it until (n) settles it."""
    round_, shoe = dealt(["As Kd", "Ac Qc"], "9h 8h", wagers={1: 1001, 2: (1000, 500)})
    assert movements(round_) == [(1, "blackjack", "pay", 1501), (2, "blackjack", "pay", 1500)]
    assert round_.current_hand is None  # nothing left to decide
    finish(round_, shoe)
    assert [p.card for p in round_.pickup][:2] == ["As", "Kd"]  # removed when paid
    assert [p.place for p in round_.pickup][2:4] == ["seat 2 hand 0"] * 2  # tucked until (n)
    assert movements(round_)[-1] == (2, "push22", "collect", 500)


def test_672a_7_h_1_a_hand_removed_when_paid_is_recorded_picked_up_as_it_goes():
    """672a.7(h)(1), (s): the removed Blackjack's cards are recorded going to the rack when they
    go, first in the pick-up order, so the trail never shows them on the layout after; the final
    pick-up numbers on after them."""
    round_, shoe = dealt(["As Kd", "9c 4d"], "9h 8h", "5s", wagers={1: 1000, 2: 1000})
    early = [r.fields for r in round_.records if r.kind is RecordKind.PICKUP]
    assert [(p["order"], p["place"], p["card"]) for p in early] == [
        (1, "seat 1 hand 0", "As"),
        (2, "seat 1 hand 0", "Kd"),
    ]
    round_.handle(Decision(2, STAND))
    finish(round_, shoe)
    pickups = [r.fields for r in round_.records if r.kind is RecordKind.PICKUP]
    assert [p["order"] for p in pickups] == list(range(1, len(round_.pickup) + 1))
    assert [p["card"] for p in pickups] == [p.card for p in round_.pickup], "once each, in the order"


def test_672a_7_h_2_decisions_but_no_surrender():
    """672a.7(h)(2): a player doubles, splits, stands or draws; surrender is not available."""
    round_, _ = dealt(["8c 8d"], "9h 7h")
    assert set(round_.legal_decisions()) == {STAND, HIT, SPLIT}
    refused("672a.7(h)(2)", round_, Decision(1, PlayerAction.SURRENDER))


def test_672a_7_i_cards_dealt_face_up_as_decisions_need():
    """672a.7(i): the dealer deals face up the cards a decision needs and no other."""
    round_, shoe = dealt(["9c 4d"], "9h 7h", "2s 5c")
    round_.handle(Decision(1, HIT))
    assert round_.expected.rule.clause == "672a.7(i)" and round_.expected.face_up
    shoe.deal(round_)
    assert round_.expected is None
    round_.handle(CardArrives(shoe.draw(face_up=True)))
    assert round_.state == HELD and irregularities(round_) == [("extra-card", "672a.7(i)")]


def test_672a_7_j_draw_only_below_21():
    """672a.7(j): a player may draw while the total is less than 21; a bust ends the hand."""
    round_, shoe = dealt(["Tc 6d", "9c 9d"], "9h 7h", "Ks")
    decide(round_, shoe, 1, HIT)
    assert round_.positions[1].hands[0].total.bust and round_.current_hand.seat == 2
    refused("672a.7(j)", round_, Decision(1, HIT))


def test_672a_7_j_1_no_card_on_a_hard_or_soft_21():
    """672a.7(j)(1): a hand of 21, hard or soft, draws no more cards."""
    round_, shoe = dealt(["As 5d", "9c 9d"], "9h 7h", "5s")
    decide(round_, shoe, 1, HIT)
    assert str(round_.positions[1].hands[0].total) == "soft 21"
    refused("672a.7(j)(1)", round_, Decision(1, HIT))
    assert round_.current_hand.seat == 2


def test_672a_7_j_2_one_card_after_a_double():
    """672a.7(j)(2): a doubled hand receives one card only."""
    round_, shoe = dealt(["5c 5d", "9c 9d"], "9h 7h", "2s")
    decide(round_, shoe, 1, DOUBLE)
    hand = round_.positions[1].hands[0]
    assert len(hand.cards) == 3 and hand.done
    refused("672a.7(j)(2)", round_, Decision(1, HIT))


def test_672a_7_k_hole_card_turned_up_after_every_decision():
    """672a.7(k): the hole card is turned up after the decisions are implemented, checked against
    the card dealt face down; a card that is not that card holds the round."""
    round_, shoe = dealt(["9c 7d"], "9h 7h", "Kd")
    refused("672a.7(k)", round_, RevealHole(shoe.turn_up(round_.hole)))
    decide(round_, shoe, 1, STAND)
    reveal(round_, shoe)
    assert round_.state == DEALER_TURN and str(round_.hole_face) == "7h"
    [revealed] = round_.log.of(RecordKind.HOLE_REVEALED)
    assert revealed.fields["card"] == "7h" and revealed.fields["commitment"] == round_.hole.commitment.hex()

    forged, forged_shoe = dealt(["9c 7d"], "9h 7h")
    decide(forged, forged_shoe, 1, STAND)
    forged.handle(RevealHole(faces("7s")[0]))
    assert forged.state == HELD and irregularities(forged) == [("hole-card-mismatch", "672a.7(k); 672a.7(t)")]


def test_672a_7_k_t_a_card_not_the_one_dealt_is_caught_even_after_a_wrong_peek():
    """672a.7(k), (t): the card turned up is checked against the card dealt face down before it is
    weighed against the reader's answer. The reader (wrongly) said Blackjack over a Kh; the dealer
    turns up a 5d that is not the 7s dealt: the round holds on the card altered, not on the reader
    (before, the reader's fault was found first and the altered card never recorded)."""
    round_, _shoe = dealt(["Tc 9d"], "Kh 7s", wagers={1: (1000, 300)})
    round_.handle(PeekAnswer(True))  # a faulty reader: Kh 7s is no Blackjack
    round_.handle(RevealHole(faces("5d")[0]))
    assert round_.state == HELD and irregularities(round_) == [("hole-card-mismatch", "672a.7(k); 672a.7(t)")]


def test_672a_7_l_dealer_draws_to_17_and_stands_on_all_17s():
    """672a.7(l): the dealer draws face up to 17, stands on soft 17, announces each total; a card
    after the dealer stands holds the round."""
    round_, shoe = dealt(["Tc 8d"], "2h 4s", "As 3c")
    decide(round_, shoe, 1, STAND)
    reveal(round_, shoe)
    assert round_.expected.rule.clause == "672a.7(l)"
    shoe.deal(round_)
    assert str(round_.dealer_total) == "soft 17" and round_.expected is None
    assert [r.fields["total"] for r in round_.log.of(RecordKind.DEALER_TOTAL)] == [6, 17]
    round_.handle(CardArrives(shoe.draw(face_up=True)))
    assert irregularities(round_) == [("extra-card", "672a.7(l)")]


def test_672a_7_m_no_draw_that_cannot_change_an_outcome():
    """672a.7(m): without Push 22 Wagers the dealer draws nothing once every hand is bust."""
    round_, shoe = dealt(["Tc 6d"], "6h Tc", "Ks 5c")
    decide(round_, shoe, 1, HIT)
    reveal(round_, shoe)
    assert round_.dealer_total.value == 16 and round_.expected is None
    round_.handle(CardArrives(shoe.draw(face_up=True)))
    assert irregularities(round_) == [("extra-card", "672a.7(m)")]


def test_672a_7_m_draw_for_push_22_wagers():
    """672a.7(m): with Push 22 Wagers on the table the dealer draws even when every hand is bust or
    a Blackjack."""
    round_, shoe = dealt(["Tc 6d", "As Kc"], "6h Tc", "Ks 6c", wagers={1: 1000, 2: (1000, 500)})
    decide(round_, shoe, 1, HIT)
    reveal(round_, shoe)
    assert round_.expected.rule.summary.startswith("with Push 22 Wagers")
    shoe.deal(round_)
    round_.handle(Settle())
    assert round_.dealer_total.value == 22
    assert movements(round_)[-1] == (2, "push22", "pay", 5500)


def test_672a_7_n_settlement_after_the_dealers_last_card():
    """672a.7(n): settlement follows the dealer's draw; asking for it while a card is due records a
    missing card and settles nothing."""
    round_, shoe = dealt(["Tc 8d"], "6h Tc", "Ks")
    decide(round_, shoe, 1, STAND)
    reveal(round_, shoe)
    round_.handle(Settle())
    assert round_.state == DEALER_TURN and round_.actions == []
    assert irregularities(round_) == [("missing-card", "672a.7(l)")]
    shoe.deal(round_)
    round_.handle(Settle())
    assert movements(round_) == [(1, "blackjack", "pay", 1000)]


def test_672a_7_n_1_dealer_22_pushes_collects_lammers_pays_push_22():
    """672a.7(n)(1): dealer 22: remaining Blackjack Wagers returned, Free Bet lammers collected,
    Push 22 Wagers paid by the table (suited, same colour, other)."""
    rules = RuleSet.example(push22_pay_table={"suited": "50:1", "same_colour": "20:1", "other": "8:1"})
    for dealer, odds in (("2h Th", 50), ("2d Th", 20), ("2s Th", 8)):
        round_, shoe = dealt(["5c 5d"], dealer, "9c Kh", wagers={1: (1000, 100)}, rules=rules)
        decide(round_, shoe, 1, DOUBLE)
        finish(round_, shoe)
        assert round_.dealer_total.value == 22
        assert sorted(movements(round_)) == [
            (1, "blackjack", "push", 1000),
            (1, "lammer", "collect", 1000),
            (1, "push22", "pay", 100 * odds),
        ]


def test_672a_7_n_2_not_22_collects_push_22():
    """672a.7(n)(2): a dealer total other than 22 collects the Push 22 Wagers."""
    round_, shoe = dealt(["Tc 9d"], "Th 7h", wagers={1: (1000, 500)})
    peek(round_, shoe)
    decide(round_, shoe, 1, STAND)
    finish(round_, shoe)
    assert (1, "push22", "collect", 500) in movements(round_)
    assert round_.net(1) == 1000 - 500


def test_672a_7_o_free_bet_lammers_paid_an_equivalent_amount():
    """672a.7(o): a winning hand is paid for its wager and an equivalent amount per lammer."""
    round_, shoe = dealt(["6c 5d"], "9h 7h", "Ts 9c")
    decide(round_, shoe, 1, DOUBLE)
    finish(round_, shoe)
    assert movements(round_) == [(1, "blackjack", "pay", 1000), (1, "lammer", "pay", 1000)]
    assert round_.net(1) == 2000


def test_672a_7_o_1_dealer_over_21_loses_but_22_pushes():
    """672a.7(o)(1): a hand of 21 or less wins when the dealer exceeds 21, except 22, which pushes."""
    over, shoe = dealt(["Tc 4d"], "9h 5h", "Ks")
    decide(over, shoe, 1, STAND)
    finish(over, shoe)
    assert over.dealer_total.value == 24 and movements(over) == [(1, "blackjack", "pay", 1000)]

    at_22, shoe = dealt(["Tc 4d"], "9h 3h", "Ks")
    decide(at_22, shoe, 1, STAND)
    finish(at_22, shoe)
    assert movements(at_22) == [(1, "blackjack", "push", 1000)]


def test_672a_7_o_2_higher_total_wins():
    """672a.7(o)(2): a hand beating the dealer's total without exceeding 21 wins."""
    round_, shoe = dealt(["Tc 9d"], "9h 8h")
    decide(round_, shoe, 1, STAND)
    finish(round_, shoe)
    assert movements(round_) == [(1, "blackjack", "pay", 1000)]
    assert round_.actions[0].rule.clause == "672a.7(o)(2)"


def test_672a_7_p_a_tie_returns_the_wager_and_collects_lammers():
    """672a.7(p): equal totals: the Blackjack Wager is returned and the lammers collected."""
    round_, shoe = dealt(["5c 4d"], "9h 9s", "9s")
    decide(round_, shoe, 1, DOUBLE)
    finish(round_, shoe)
    assert movements(round_) == [(1, "lammer", "collect", 1000), (1, "blackjack", "push", 1000)]
    assert round_.net(1) == 0


def test_672a_7_p_equal_totals_over_21_are_no_tie_the_hand_over_21_loses():
    """672a.7(p), as docs/conformance.md reads it: (p) compares hands of 21 or less; a hand over 21
    loses whatever the dealer's total, the same total over 21 included (seat 1 busts with 24; seat 2
    stands, so the dealer draws, 672a.7(l), to 24)."""
    round_, shoe = dealt(["Tc 4d", "Th 8d"], "4h Ks", "Kc Kd")
    decide(round_, shoe, 1, HIT)
    decide(round_, shoe, 2, STAND)
    finish(round_, shoe)
    assert round_.positions[1].hands[0].total.value == round_.dealer_total.value == 24
    [seat_1] = [a for a in round_.actions if a.seat == 1]
    assert (seat_1.movement.value, seat_1.rule.clause) == ("collect", clauses.BUST_LOSES.clause)


def test_672a_7_q_a_loss_collects_the_wager_and_the_lammers():
    """672a.7(q): a losing hand's Blackjack Wager and Free Bet lammers are collected; a lammer costs
    the player nothing."""
    round_, shoe = dealt(["5c 4d"], "9h 9s", "2s")
    decide(round_, shoe, 1, DOUBLE)
    finish(round_, shoe)
    assert movements(round_) == [(1, "blackjack", "collect", 1000), (1, "lammer", "collect", 1000)]
    assert round_.net(1) == -1000


def test_672a_7_q_1_a_bust_hand_loses():
    """672a.7(q)(1): a hand over 21 loses to a dealer of 21 or less (and, as (o)(1) pays only
    hands of 21 or less, to any dealer total)."""
    round_, shoe = dealt(["Tc 6d", "Tc 5d"], "9h 8h", "Ks Kd")
    decide(round_, shoe, 1, HIT)
    decide(round_, shoe, 2, HIT)
    finish(round_, shoe)
    assert movements(round_) == [(2, "blackjack", "collect", 1000), (1, "blackjack", "collect", 1000)]
    assert {a.rule.clause for a in round_.actions} == {"672a.7(q)(1)"}


def test_672a_7_q_2_a_lower_total_loses():
    """672a.7(q)(2): the dealer's total beating the hand without exceeding 21 wins."""
    round_, shoe = dealt(["Tc 7d"], "9h 9s")
    decide(round_, shoe, 1, STAND)
    finish(round_, shoe)
    assert movements(round_) == [(1, "blackjack", "collect", 1000)]
    assert round_.actions[0].rule.clause == "672a.7(q)(2)"


WINNERS_AND_LOSERS = (["Tc 9d", "Tc 7d", "Tc 6d"], "9h 9s")  # seat 1 wins, seats 2 and 3 lose


def test_672a_7_r_settlement_from_the_dealers_right_counterclockwise():
    """672a.7(r): settlement begins with the player farthest to the dealer's right."""
    round_, shoe = dealt(*WINNERS_AND_LOSERS)
    for seat in (1, 2, 3):
        decide(round_, shoe, seat, STAND)
    finish(round_, shoe)
    assert movements(round_)[0][0] == 3


def test_672a_7_r_1_collect_every_loss_then_pay():
    """672a.7(r)(1): all losing wagers collected counterclockwise, then the winning ones paid."""
    round_, shoe = dealt(*WINNERS_AND_LOSERS, rules=RuleSet.example(settlement_order="collect-then-pay"))
    for seat in (1, 2, 3):
        decide(round_, shoe, seat, STAND)
    finish(round_, shoe)
    assert [(seat, movement) for seat, _, movement, _ in movements(round_)] == [
        (3, "collect"),
        (2, "collect"),
        (1, "pay"),
    ]


def test_672a_7_r_2_each_player_collected_then_paid_in_turn():
    """672a.7(r)(2): each player's losing wagers collected and winning wagers paid, player by player."""
    rules = RuleSet.example(settlement_order="player-by-player")
    round_, shoe = dealt(["Tc 9d", "Tc 8d"], "9h 9s", wagers={1: 1000, 2: (1000, 500)}, rules=rules)
    for seat in (1, 2):
        decide(round_, shoe, seat, STAND)
    finish(round_, shoe)
    assert movements(round_) == [
        (2, "push22", "collect", 500),
        (2, "blackjack", "push", 1000),
        (1, "blackjack", "pay", 1000),
    ]
    assert {r.fields["order"] for r in round_.log.of(RecordKind.SETTLEMENT)} == {"672a.7(r)(2)"}


def test_672a_7_s_discard_order_reconstructs_each_hand():
    """672a.7(s): the cards go to the discard rack in an order that rebuilds each hand; a rack count
    that differs from the cards dealt holds the round."""
    round_, shoe = dealt(["8c 8d", "Tc 7d"], "9h 8h", "3s Ks")
    decide(round_, shoe, 1, SPLIT, STAND, STAND)
    decide(round_, shoe, 2, STAND)
    reveal(round_, shoe)
    round_.handle(Settle())
    round_.handle(Discard(7))
    assert round_.state == HELD and irregularities(round_) == [("discard-count", "672a.7(s); 672a.7(t)")]
    refused("672a.7", round_, SupervisorResolve(SUPERVISOR, Resolution.VOID))
    round_.handle(SupervisorResolve(SUPERVISOR, Resolution.CONTINUE))
    assert round_.state == COMPLETE
    assert [(p.place, p.card) for p in round_.pickup] == [
        ("seat 2 hand 0", "Tc"),
        ("seat 2 hand 0", "7d"),
        ("seat 1 hand 0", "8c"),
        ("seat 1 hand 0", "3s"),
        ("seat 1 hand 1", "8d"),
        ("seat 1 hand 1", "Ks"),
        ("dealer", "9h"),
        ("dealer", "8h"),
    ]


def test_672a_7_t_the_cards_may_not_be_removed_or_altered():
    """672a.7(t): a hole card that is not the card dealt face down (altered or switched) holds the
    round; a supervisor may accept it or void the round, which returns the wagers."""
    round_, shoe = dealt(["Tc 7d"], "9h 8h", wagers={1: (1000, 200)})
    decide(round_, shoe, 1, STAND)
    round_.handle(RevealHole(faces("8d")[0]))
    assert round_.state == HELD and round_.hold.kind.code == "hole-card-mismatch"
    round_.handle(SupervisorResolve(SUPERVISOR, Resolution.VOID))
    assert sorted(movements(round_)) == [(1, "blackjack", "push", 1000), (1, "push22", "push", 200)]
    round_.handle(Discard(4))
    assert round_.state == COMPLETE and round_.pickup[-1].card == "8d"


def test_cover_card_where_no_card_is_due_holds_the_round():
    """672a.7(d): a cover card comes out of the shoe only while a card is due."""
    round_, _ = dealt(["Tc 7d"], "9h 8h")
    round_.handle(CardArrives(COVER_CARD))
    assert round_.state == HELD and irregularities(round_) == [("cover-card-out-of-place", "672a.7(d)")]
    round_.handle(SupervisorResolve(SUPERVISOR, Resolution.CONTINUE))
    assert round_.state == PLAYER_TURNS and round_.reshuffle_required
