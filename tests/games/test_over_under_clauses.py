"""One test per clause of 58 Pa. Code § 686a.7, each named after its clause (games.conformance reads
the names and docstrings to list, in docs/conformance.md, the tests that stand for each clause)."""

from __future__ import annotations

from games.free_bet_blackjack.records import RecordKind
from games.over_under.inputs import (
    COVER_CARD,
    CardArrives,
    ChangeDealer,
    Choose,
    ClearHand,
    ConfirmBurn,
    Discard,
    PlaceWager,
    Resolution,
    ShoeStatus,
    StartDeal,
    SupervisorResolve,
)
from games.over_under.machine import BETTING, CLEARING, COMPLETE, DEALING, DECIDING, DRAWING, HELD, SETTLED
from tests.games import SUPERVISOR, faces, refused
from tests.games.test_over_under_helpers import (
    OVER,
    READY,
    SURRENDER,
    UNDER,
    dealt,
    draw,
    elect,
    finish,
    irregularities,
    movements,
    new_round,
    play,
    play_all,
    steps,
)
from vocabulary.cards import SealedCard


def test_686a_7_a_no_deal_from_a_shoe_not_loaded():
    """686a.7(a): cards are dealt only from a dealing shoe holding the shuffled and cut cards."""
    round_, _ = new_round("Kc 9h 5s")
    refused("686a.7(a)", round_, StartDeal(ShoeStatus(loaded=False, burn_due=False, reshuffle_due=False)))
    assert round_.state == BETTING
    round_.handle(StartDeal(READY))
    assert round_.state == DEALING


def test_686a_7_b_each_card_is_placed_where_the_round_names():
    """686a.7(b): the round names the area of the layout before each card comes out, and records the
    card there."""
    round_, shoe = new_round("Kc 2d 9h 5s", wagers={2: 1000, 5: 1000})
    round_.handle(StartDeal(READY))
    announced = []
    while round_.expected is not None:
        slot = round_.expected
        assert "686a.7(b)" in slot.instruction and slot.place in slot.instruction
        announced.append(slot.place)
        shoe.deal(round_)
    elect(round_, {2: OVER, 5: UNDER})
    announced += [round_.expected.place]
    shoe.deal(round_)
    placed = [r.fields["place"] for r in round_.log.of(RecordKind.CARD)]
    assert placed == announced == ["seat 2", "seat 5", "seat 2"]


def test_686a_7_a_every_card_record_names_the_shoe_as_its_source():
    """686a.7(a): all cards are dealt from a dealing shoe, and each card's record says so
    (``source`` "shoe") beside its place."""
    round_, shoe = new_round("Kc 2d 9h 5s", wagers={2: 1000, 5: 1000})
    round_.handle(StartDeal(READY))
    shoe.deal_all_due(round_)
    round_.handle(Choose(2, OVER))
    round_.handle(Choose(5, OVER))  # 686a.7(f): every election before any additional card
    shoe.deal_all_due(round_)
    cards = round_.log.of(RecordKind.CARD)
    assert [(r.fields["source"], r.fields["place"]) for r in cards] == [
        ("shoe", "seat 2"),
        ("shoe", "seat 5"),
        ("shoe", "seat 2"),
        ("shoe", "seat 2"),
    ]


def test_686a_7_c_no_deal_while_a_batch_burn_is_due():
    """686a.7(c): after a full batch is placed in the shoe the first card is burned before any deal."""
    round_, _ = new_round("Kc 9h 5s")
    refused("686a.7(c)", round_, StartDeal(ShoeStatus(loaded=True, burn_due=True, reshuffle_due=False)))
    assert round_.state == BETTING


def test_686a_7_c_new_dealer_burns_before_dealing():
    """686a.7(c): a new dealer burns one card before dealing any; a card dealt before that burn holds
    the round and CONTINUE sets it aside, the same card still due."""
    round_, shoe = dealt("Kc 7d 9h 5s")
    round_.handle(ChangeDealer("D-2"))
    refused("686a.7(c)", round_, ConfirmBurn(ShoeStatus(loaded=True, burn_due=True, reshuffle_due=False)))
    round_.handle(Choose(1, OVER))
    shoe.deal(round_)  # the 7d, before the burn
    assert round_.state == HELD and irregularities(round_) == [("card-before-burn", "686a.7(c)")]
    round_.handle(ConfirmBurn(READY))
    round_.handle(SupervisorResolve(SUPERVISOR, Resolution.CONTINUE))
    assert round_.state == DRAWING
    shoe.deal_all_due(round_)
    assert [str(c) for c in round_.positions[1].cards] == ["Kc", "9h", "5s"]
    assert [p.card for p in round_.set_aside] == ["7d"]


def test_686a_7_d_cover_card_is_set_aside_and_the_round_completed():
    """686a.7(d): a cover card first out at the start of a round, or during play, is set aside and the
    round is completed as usual."""
    round_, shoe = new_round("COVER Kc 9h COVER 5s")
    round_.handle(StartDeal(READY))
    shoe.deal_all_due(round_)
    play(round_, shoe, 1, OVER)
    finish(round_)
    assert round_.state == COMPLETE and irregularities(round_) == []
    assert len(round_.log.of(RecordKind.COVER_CARD)) == 2 and round_.reshuffle_required
    assert [p.card for p in round_.pickup] == ["Kc", "9h", "5s"]  # the cover card is not in the rack
    assert round_.net(1) == 2000


def test_686a_7_d_1_the_shoe_is_to_be_collected_after_the_cover_card():
    """686a.7(d)(1): after the round with the cover card, the cards left in the shoe are collected:
    the round says so and records the clause."""
    round_, shoe = dealt("Kc COVER 9h 5s")
    round_.handle(Choose(1, UNDER))
    shoe.deal_all_due(round_)
    [cover] = round_.log.of(RecordKind.COVER_CARD)
    assert cover.fields["collect"] == "686a.7(d)(1)" and round_.reshuffle_required


def test_686a_7_d_2_no_deal_until_the_cards_are_reshuffled():
    """686a.7(d)(2): no round is dealt after a cover card until the cards are shuffled again."""
    round_, _ = new_round("Kc 9h 5s")
    refused("686a.7(d)(2)", round_, StartDeal(ShoeStatus(loaded=True, burn_due=False, reshuffle_due=True)))
    assert round_.state == BETTING


def test_686a_7_e_one_card_face_up_to_each_ante_position_clockwise():
    """686a.7(e): after the Ante and Bonus Wagers, one card face up to each Ante position, from the
    player farthest to the dealer's left, clockwise; a position without an Ante receives none."""
    round_, shoe = new_round("2c 3c 4c", wagers={5: 1000, 2: (1000, 100), 3: 500})
    refused("686a.1", round_, PlaceWager(4, 0, 100))  # a Bonus Wager alone is no Ante
    round_.handle(StartDeal(READY))
    assert [round_.expected.seat] == [2]
    shoe.deal_all_due(round_)
    assert round_.state == DECIDING
    assert [
        (r.fields["seat"], r.fields["card"], r.fields["face_up"]) for r in round_.log.of(RecordKind.CARD)
    ] == [
        (2, "2c", True),
        (3, "3c", True),
        (5, "4c", True),
    ]


def test_686a_7_e_no_deal_without_an_ante():
    """686a.7(e): the deal follows the wagers; with no Ante Wager there is no one to deal to."""
    round_, _ = new_round("Kc", wagers={})
    refused("686a.7(e)", round_, StartDeal(READY))


def test_686a_7_f_decisions_after_every_first_card_and_clockwise():
    """686a.7(f): no election before every first card is dealt; then the player farthest to the
    dealer's left decides first, and no additional card comes before every player has decided."""
    round_, shoe = new_round("Kc 2d 9h 5s", wagers={1: 1000, 4: 1000})
    round_.handle(StartDeal(READY))
    shoe.deal(round_)
    refused("686a.7(f)", round_, Choose(1, OVER))
    shoe.deal(round_)
    assert round_.current.seat == 1 and round_.expected is None
    refused("686a.7(f)", round_, Choose(4, UNDER))
    round_.handle(CardArrives(shoe.draw(face_up=True)))  # a card before seat 1 has decided
    assert round_.state == HELD and irregularities(round_) == [("extra-card", "686a.7(f)")]


def test_686a_7_f_every_player_elects_clockwise_before_any_additional_card():
    """686a.7(f): "prior to any additional cards being dealt" every player decides, clockwise from the
    player farthest to the dealer's left: seat 2 elects before seat 1's additional cards, an election
    out of that order is refused, and no card is due until the last player has elected."""
    round_, _ = dealt("Kc 2d 5h", wagers={1: 1000, 2: 1000, 3: 1000})
    refused("686a.7(f)", round_, Choose(2, UNDER))  # seat 1 first
    round_.handle(Choose(1, OVER))
    assert round_.state == DECIDING and round_.expected is None and round_.current.seat == 2
    refused("686a.7(f)", round_, Choose(3, UNDER))  # seat 2 before seat 3
    refused("686a.7(g)", round_, Choose(1, UNDER))  # seat 1 has elected
    round_.handle(Choose(2, SURRENDER))
    assert round_.expected is None and len(round_.log.of(RecordKind.CARD)) == 3
    round_.handle(Choose(3, UNDER))
    assert round_.state == DRAWING and round_.expected.seat == 1
    assert [(r.fields["seat"], r.fields["choice"]) for r in round_.log.of(RecordKind.DECISION)] == [
        (1, "over_23"),
        (2, "surrender"),
        (3, "under_18"),
    ]


def test_686a_7_f_an_additional_card_before_the_last_election_holds_the_round():
    """686a.7(f): no additional card before every player has decided: one dealt after seat 1's
    election, before seat 2's, is irregular; CONTINUE sets it aside, seat 2 elects, and the
    additional cards then start with seat 1."""
    round_, shoe = dealt("Kc 2d 7s 9h 5s", wagers={1: 1000, 2: 1000})
    round_.handle(Choose(1, OVER))
    refused("686a.7(f)", round_, ClearHand(1))
    round_.handle(CardArrives(shoe.draw(face_up=True)))  # the 7s, for seat 1, too early
    assert round_.state == HELD and irregularities(round_) == [("extra-card", "686a.7(f)")]
    round_.handle(SupervisorResolve(SUPERVISOR, Resolution.CONTINUE))
    assert round_.state == DECIDING and round_.current.seat == 2
    round_.handle(Choose(2, UNDER))
    shoe.deal_all_due(round_)
    assert [str(c) for c in round_.positions[1].cards] == ["Kc", "9h", "5s"]
    assert [p.card for p in round_.set_aside] == ["7s"] and round_.state == CLEARING


def test_686a_7_g_one_election_per_player():
    """686a.7(g): each player elects one of Over 23, Under 18 or Surrender, once."""
    round_, _ = dealt("Kc")
    round_.handle(Choose(1, OVER))
    refused("686a.7(g)", round_, Choose(1, UNDER))


def test_686a_7_g_no_election_once_every_player_is_settled():
    """686a.7(g): once every player has elected and been settled, a further election is refused
    as a second election, saying so."""
    round_, shoe = dealt("Kc Qd Th")
    play(round_, shoe, 1, OVER)
    assert round_.state == SETTLED
    violation = refused("686a.7(g)", round_, Choose(1, UNDER))
    assert "every player has elected and been settled" in str(violation)


def test_686a_7_f_a_seat_without_an_ante_may_not_elect_or_be_cleared():
    """686a.7(f): decisions are asked of the players with an Ante Wager; a seat without one is
    refused for that reason, not as out of turn, and so is clearing its Hand (686a.7(j))."""
    round_, shoe = dealt("Kc 9d 2h 3s", wagers={1: 1000, 2: 1000})
    violation = refused("686a.7(f)", round_, Choose(4, OVER))
    assert "seat 4 has no Ante Wager in this round" in str(violation)
    round_.handle(Choose(1, OVER))
    round_.handle(Choose(2, OVER))  # every election before any additional card (f)
    shoe.deal_all_due(round_)
    assert round_.state == CLEARING
    violation = refused("686a.7(j)", round_, ClearHand(4))
    assert "seat 4 has no Ante Wager" in str(violation)


def test_686a_7_g_1_over_23_wager_equals_the_ante():
    """686a.7(g)(1): the Over 23 Wager equals the Ante Wager; another amount is refused."""
    round_, _ = dealt("Kc", wagers={1: 2500})
    refused("686a.7(g)(1)", round_, Choose(1, OVER, amount=2000))
    round_.handle(Choose(1, OVER, amount=2500))
    assert round_.positions[1].stake == 2500 and round_.state == DRAWING


def test_686a_7_g_2_under_18_wager_equals_the_ante():
    """686a.7(g)(2): the Under 18 Wager equals the Ante Wager; another amount is refused."""
    round_, _ = dealt("2c", wagers={1: 700})
    refused("686a.7(g)(2)", round_, Choose(1, UNDER, amount=1400))
    round_.handle(Choose(1, UNDER))
    [decision] = round_.log.of(RecordKind.DECISION)
    assert decision.fields["amount"] == 700 and decision.fields["clause"] == "686a.7(g)(2)"


def test_686a_7_g_3_surrender_collects_the_ante_at_once():
    """686a.7(g)(3): a surrendered Ante Wager is collected by the dealer when the player elects."""
    round_, _ = dealt("2c", wagers={1: 700})
    round_.handle(Choose(1, SURRENDER))
    assert movements(round_) == [(1, "ante", "collect", 700)] and round_.expected is not None


def test_686a_7_h_surrender_keeps_the_bonus_wager():
    """686a.7(h): a surrender does not forfeit the Bonus Wager: it is settled by the Hand's total."""
    round_, shoe = dealt("2c 2d 3h", wagers={1: (1000, 100)})
    play(round_, shoe, 1, SURRENDER)
    assert movements(round_) == [(1, "ante", "collect", 1000), (1, "bonus", "pay", 5000)]  # 7 pays 50:1
    stays = [r for r in round_.log.of(RecordKind.WAGER) if r.fields.get("stays")]
    assert stays[0].fields["clause"] == "686a.7(h)"


def test_686a_7_i_two_more_cards_even_after_a_surrender_without_bonus():
    """686a.7(i): after the decision, two more cards face up to that player, even when the player
    surrendered and placed no Bonus Wager."""
    round_, shoe = dealt("2c 9h 9d")
    round_.handle(Choose(1, SURRENDER))
    assert round_.expected.seat == 1 and round_.expected.rule.clause == "686a.7(i)"
    shoe.deal(round_)
    refused("686a.7(i)", round_, ClearHand(1))
    shoe.deal(round_)
    assert round_.state == CLEARING and len(round_.positions[1].cards) == 3
    assert round_.net(1) == -1000


def test_686a_7_i_h_a_surrender_gets_its_two_cards_in_turn_after_every_election_and_keeps_its_bonus():
    """686a.7(i): a player who surrendered is still dealt two more cards, in turn, once every player
    has elected (686a.7(f)); 686a.7(h): the Bonus Wager stays and is settled on the Hand's total (j)."""
    round_, shoe = dealt("2c Kd 2d 3h 9c 5d", wagers={1: (1000, 100), 2: 1000})
    elect(round_, {1: SURRENDER, 2: OVER})
    assert movements(round_) == [(1, "ante", "collect", 1000)] and round_.expected.seat == 1
    [stays] = [r for r in round_.log.of(RecordKind.WAGER) if r.fields.get("stays")]
    assert (stays.fields["wager"], stays.fields["clause"]) == ("bonus", "686a.7(h)")
    draw(round_, shoe, 1)
    assert [str(c) for c in round_.positions[1].cards] == ["2c", "2d", "3h"]
    assert movements(round_)[1:] == [(1, "bonus", "pay", 5000)]  # 7 pays 50:1
    draw(round_, shoe, 2)
    assert round_.net(1) == 4000 and round_.net(2) == 2000  # K 9 5 = 24


def test_686a_7_j_each_player_settled_and_cleared_before_the_next():
    """686a.7(j): once the two cards are dealt the player's wagers are settled and the cards go to
    the rack; only then does the dealer move to the next player."""
    round_, shoe = dealt("Kc 2d 9h 5s 3c 4c", wagers={1: 1000, 2: 1000})
    elect(round_, {1: OVER, 2: UNDER})
    shoe.deal_all_due(round_)
    assert round_.state == CLEARING and [a.seat for a in round_.actions] == [1, 1]
    assert round_.expected is None and len(round_.positions[2].cards) == 1
    refused("686a.7(j)", round_, ClearHand(2))
    round_.handle(ClearHand(1))
    assert [p.place for p in round_.pickup] == ["seat 1"] * 3 and round_.current.seat == 2
    draw(round_, shoe, 2)
    assert round_.state == SETTLED and round_.net(2) == 2000  # 2 + 3 + 4 = 9: Ante and Under 18 paid


def test_686a_7_j_each_settlement_comes_after_that_players_two_cards_and_before_the_next_players():
    """686a.7(j): the record shows, player by player clockwise, the two additional cards, the
    settlement, the cards into the rack; every election comes before all of it (686a.7(f))."""
    round_, shoe = dealt("Kc 2d 5h 9h 5s 3c 4c Kd Qd", wagers={1: 1000, 2: (500, 100), 3: 700})
    play_all(round_, shoe, {1: OVER, 2: UNDER, 3: SURRENDER})
    assert steps(round_) == (
        "C1 C2 C3 D1 D2 D3 S3"  # first cards (e); elections (f), seat 3's surrendered Ante collected (g)(3)
        " C1 C1 S1 S1 P1 P1 P1"
        " C2 C2 S2 S2 S2 P2 P2 P2"
        " C3 C3 P3 P3 P3"
    )


def test_686a_7_k_winners_are_paid_by_the_configured_odds():
    """686a.7(k): a winning player is paid by § 686a.8, not found: the configured odds."""
    from games.over_under import RuleSet

    rules = RuleSet.example(ante_odds="1:1", over_23_odds="3:2")
    round_, shoe = dealt("Kc 9h 5s", wagers={1: 1001}, rules=rules)
    play(round_, shoe, 1, OVER)
    assert movements(round_) == [(1, "ante", "pay", 1001), (1, "over_23", "pay", 1501)]


def test_686a_7_k_1_over_23_wins_on_24_to_33():
    """686a.7(k)(1): Ante and Over 23 Wagers win on 24 to 33 (three aces make 33)."""
    for shoe, total in (("Kc 9h 5s", 24), ("Ac Ad Ah", 33)):
        round_, stacked = dealt(shoe)
        play(round_, stacked, 1, OVER)
        assert [(a.movement.value, a.total, a.rule.clause) for a in round_.actions] == [
            ("pay", total, "686a.7(k)(1)")
        ] * 2


def test_686a_7_k_2_under_18_wins_on_6_to_17():
    """686a.7(k)(2): Ante and Under 18 Wagers win on 6 to 17; an ace counts 11, not 1."""
    for shoe, total in (("2c 2d 2h", 6), ("Tc 5d 2h", 17)):
        round_, stacked = dealt(shoe)
        play(round_, stacked, 1, UNDER)
        assert [(a.movement.value, a.total) for a in round_.actions] == [("pay", total)] * 2
    round_, stacked = dealt("Ac 2d 3h")  # 16 with the ace at 11
    play(round_, stacked, 1, UNDER)
    assert round_.net(1) == 2000
    round_, stacked = dealt("Ac 5d 2h")  # 18, not 8
    play(round_, stacked, 1, UNDER)
    assert round_.net(1) == -2000


def test_686a_7_k_1_an_over_wager_on_an_under_total_loses():
    """686a.7(k)(1), 686a.7(k)(2): each wager is paid only on its own totals; the other side's total
    loses the Ante with it."""
    round_, shoe = dealt("2c 3d 4h")
    play(round_, shoe, 1, OVER)
    assert [(a.movement.value, a.rule.clause) for a in round_.actions] == [
        ("collect", "686a.7(k)(1); 686a.7(k)(2)")
    ] * 2


def test_686a_7_l_18_to_23_loses_both_wagers():
    """686a.7(l): on 18 to 23 the Ante and the Over 23 or Under 18 Wager lose."""
    for choice, shoe in ((OVER, "Kc 9h 4s"), (UNDER, "Kc Qh 3s"), (OVER, "Ac Td 2h")):
        round_, stacked = dealt(shoe, wagers={1: 800})
        play(round_, stacked, 1, choice)
        assert [(a.movement.value, a.amount, a.rule.clause) for a in round_.actions] == [
            ("collect", 800, "686a.7(l)")
        ] * 2


def test_686a_7_m_bonus_wins_on_the_low_and_high_totals_by_the_posted_table():
    """686a.7(m): the Bonus Wager wins on 6-12 and 27-33, paid from the posted table, and loses on 13-26."""
    for shoe, movement, amount in (
        ("2c 2d 2h", "pay", 10000),  # 6: 100 to 1
        ("4c 4d 4h", "pay", 200),  # 12: 2 to 1
        ("4c 4d 5h", "collect", 100),  # 13
        ("Kc Qd 6h", "collect", 100),  # 26
        ("Kc Qd 7h", "pay", 300),  # 27: 3 to 1
        ("Ac Ad Ah", "pay", 20000),  # 33: 200 to 1
    ):
        round_, stacked = dealt(shoe, wagers={1: (1000, 100)})
        play(round_, stacked, 1, UNDER)
        [bonus] = [a for a in round_.actions if a.wager.value == "bonus"]
        assert (bonus.movement.value, bonus.amount, bonus.rule.clause) == (movement, amount, "686a.7(m)"), (
            shoe
        )


def test_686a_7_n_the_rack_reconstructs_each_hand():
    """686a.7(n): after every player is settled the remaining cards go to the rack, and the record
    lists each Hand's cards together, player by player in the order dealt, so any Hand can be rebuilt."""
    round_, shoe = dealt("Kc 2d 9h 5s 3c 4c", wagers={1: 1000, 3: 1000})
    play_all(round_, shoe, {1: OVER, 3: UNDER})
    finish(round_)
    rack = [
        (r.fields["order"], r.fields["place"], r.fields["card"]) for r in round_.log.of(RecordKind.PICKUP)
    ]
    assert rack == [
        (1, "seat 1", "Kc"),
        (2, "seat 1", "9h"),
        (3, "seat 1", "5s"),
        (4, "seat 3", "2d"),
        (5, "seat 3", "3c"),
        (6, "seat 3", "4c"),
    ]
    assert round_.state == COMPLETE


def test_686a_7_o_a_card_missing_from_the_rack_holds_the_round():
    """686a.7(o): no one may remove a card: a rack count short of the cards dealt holds the round for
    a supervisor, who can acknowledge it but not void a settled round."""
    round_, shoe = dealt("Kc 9h 5s")
    play(round_, shoe, 1, OVER)
    round_.handle(Discard(2))
    assert round_.state == HELD and irregularities(round_) == [("discard-count", "686a.7(n); 686a.7(o)")]
    refused("686a.7 (silent)", round_, SupervisorResolve(SUPERVISOR, Resolution.VOID))
    round_.handle(SupervisorResolve(SUPERVISOR, Resolution.CONTINUE))
    assert round_.state == COMPLETE and round_.net(1) == 2000


def test_686a_7_e_a_face_down_card_is_irregular_and_stays_secret():
    """686a.7(e), 686a.7(i): every card is dealt face up; a card the shoe dealt face down holds the
    round and is recorded by its commitment only, its face in no record."""
    round_, shoe = new_round("Kc 9h 5s")
    round_.handle(StartDeal(READY))
    sealed = shoe.draw(face_up=False)  # the shoe's SealedCard for the Kc
    assert isinstance(sealed, SealedCard)
    round_.handle(CardArrives(sealed))
    assert round_.state == HELD and irregularities(round_) == [("face-down-card", "686a.7(e)")]
    round_.handle(SupervisorResolve(SUPERVISOR, Resolution.CONTINUE))
    assert round_.expected.seat == 1 and round_.set_aside[0].card is None
    assert not [r for r in round_.records for v in r.fields.values() if isinstance(v, str) and "Kc" in v]
    round_.handle(CardArrives(COVER_CARD))
    assert round_.reshuffle_required and round_.state == DEALING
    assert faces("Kc")[0] not in round_.positions[1].cards
