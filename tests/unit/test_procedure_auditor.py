"""The procedure auditor (croupier.audit.procedure) on hand-made trails: each game's round dealt as
its section reads is clean, and each kind of violation is judged with exactly its clause."""

from __future__ import annotations

import pytest

from croupier.audit.procedure import judge
from tests.unit.procedure_trails import (
    Trail,
    blackjack_opening,
    blackjack_round,
    crazy_4_round,
    dealer_card,
    holdem_round,
    over_under_round,
    placed_twice,
    seat_card,
)


def found(records, config=None) -> list[tuple[str, int | None]]:
    return [(v.clause, v.seq) for v in judge(records, config).violations]


@pytest.mark.parametrize(
    "trail",
    [
        blackjack_round(Trail("free-bet-blackjack")),
        over_under_round(Trail("over-under")),
        holdem_round(Trail("heads-up-holdem")),
        crazy_4_round(Trail("crazy-4-poker")),
    ],
    ids=lambda t: t.game,
)
def test_a_round_dealt_as_the_section_reads_is_clean(trail):
    """672a.7, 686a.7, 677a.10, 657a.9: the baseline each violation below changes one record of."""
    verdict = judge(trail.records)
    assert (verdict.checked, verdict.clean, verdict.violations) == (1, 1, [])


@pytest.mark.parametrize(
    ("trail", "earlier", "clause"),
    [
        (blackjack_round(Trail("free-bet-blackjack")), {"blackjack": 3000, "push22": 500}, "672a.7(e)"),
        (over_under_round(Trail("over-under")), {"ante": 3000, "bonus": 500}, "686a.7(e)"),
        (
            holdem_round(Trail("heads-up-holdem")),
            {"ante": 900, "odds": 900, "trips_plus": 100},
            "677a.10(a)(2)",
        ),
        (
            crazy_4_round(Trail("crazy-4-poker")),
            {"ante": 900, "super_bonus": 900, "six_card_bonus": 100},
            "657a.9(a)(3)",
        ),
    ],
    ids=lambda v: v.game if isinstance(v, Trail) else "",
)
def test_a_seat_wagered_twice_before_the_deal_is_settled_by_its_second_wagers(trail, earlier, clause):
    """672a.7(e), 686a.7(e), 677a.10(a)(2), 657a.9(a)(3): seat 1's wagers placed again before the
    deal, its earlier ones each recorded withdrawn: the round is clean, judged by the second wagers
    alone. Judged by both summed, the Blackjack and Over/Under settlements would be wrong and the
    withdrawn Six Card Bonus would call for its card first (Hold 'Em's auditor reads no stake)."""
    twice = placed_twice(trail, earlier, clause)
    assert [r.kind for r in twice.records].count("wager_withdrawn") == len(earlier)
    verdict = judge(twice.records)
    assert (verdict.checked, verdict.clean, [str(v) for v in verdict.violations]) == (1, 1, [])


def test_686a_7_e_a_wager_withdrawn_after_the_first_card():
    """686a.7(e): the wagers, and any taken back, come before the first card."""
    t = over_under_round(Trail("over-under"))
    t.add("wager_withdrawn", seat=2, wager="ante", amount=1000, clause="686a.7(e)")
    assert found(t.records)[0] == ("686a.7(e)", t.seq("wager_withdrawn"))


def test_672a_7_e_a_card_out_of_order_is_the_deal_clause():
    """672a.7(e)(3): the second cards go clockwise; seat 2's before seat 1's is out of order."""
    t = blackjack_opening(Trail("free-bet-blackjack"))
    seat_card(t, 1, "9h")
    seat_card(t, 2, "8s")
    dealer_card(t, "7c")
    seat_card(t, 2, "7d")
    seat_card(t, 1, "Kd")
    dealer_card(t, None, commitment="c0ffee")
    assert found(t.records) == [("672a.7(e)", t.seq("card", card="7d"))]


def test_672a_7_c_a_missing_burn_is_judged_at_the_first_card():
    """672a.7(c): a new dealer burns a card before dealing any card to the players."""
    t = blackjack_round(Trail("free-bet-blackjack"))
    records = t.without([t.seq("burn")])
    assert found(records) == [("672a.7(c)", t.seq("card", card="9h"))]


def test_672a_7_c_a_new_dealer_burns_again_a_returning_one_does_not():
    """672a.7(c): "each new dealer who comes to the table" burns; the same dealer's next round does not."""
    t = blackjack_round(Trail("free-bet-blackjack"))
    blackjack_round(t, 2)
    assert found(t.records) == []
    t.add("dealer_change", dealer="D-2")
    blackjack_round(t, 3)
    first_card = next(r.seq for r in t.records if r.round == 3 and r.kind == "card")
    assert found(t.records) == [("672a.7(c)", first_card)]


def test_686a_7_f_a_decision_after_an_additional_card():
    """686a.7(f): every election before any additional card; seat 2 elected after seat 1's cards."""
    t = Trail("over-under").start(1)
    t.add("wager", seat=1, wager="ante", amount=1000)
    t.add("wager", seat=2, wager="ante", amount=1000)
    t.add("deal_started", dealer="D-1", seats="1,2")
    t.add("burn", clause="686a.7(c)", reason="new_dealer", dealer="D-1")
    t.add("card", card="Kh", seat=1, place="seat 1", face_up=True, source="shoe")
    t.add("card", card="2c", seat=2, place="seat 2", face_up=True, source="shoe")
    t.add("decision", seat=1, choice="over_23", amount=1000)
    t.add("card", card="Qs", seat=1, place="seat 1", face_up=True, source="shoe")
    t.add("card", card="5d", seat=1, place="seat 1", face_up=True, source="shoe")
    t.add("settlement", seat=1, wager="ante", movement="pay", amount=1000)
    t.add("settlement", seat=1, wager="over_23", movement="pay", amount=1000)
    t.add("decision", seat=2, choice="under_18", amount=1000)
    t.add("card", card="3d", seat=2, place="seat 2", face_up=True, source="shoe")
    t.add("card", card="4h", seat=2, place="seat 2", face_up=True, source="shoe")
    t.add("settlement", seat=2, wager="ante", movement="pay", amount=1000)
    t.add("settlement", seat=2, wager="under_18", movement="pay", amount=1000)
    verdict = judge(t.records)
    assert [(v.clause, v.seq) for v in verdict.violations] == [("686a.7(f)", t.seq("decision", seat=2))]
    assert str(verdict.violations[0]) == (
        f"round 1 seq {t.seq('decision', seat=2)} 686a.7(f): expected every player's election before any "
        "additional card; seat 2 elected after seat 1's second card"
    )


def test_686a_7_j_the_next_player_is_dealt_only_after_the_last_is_settled():
    """686a.7(j): settle the player's wagers, then move to the next player."""
    t = over_under_round(Trail("over-under"))
    records = [r for r in t.records if not (r.kind == "settlement" and r.fields.get("seat") == 1)]
    assert found(records) == [("686a.7(j)", t.seq("card", card="3d"))]


def test_677a_10_c_a_community_card_from_the_shoe():
    """677a.10(c): the five community cards are dealt from the dealer's hand, not the shoe."""
    t = holdem_round(Trail("heads-up-holdem"), community="shoe")
    assert found(t.records) == [("677a.10(c)", t.seq("card", place="community"))]


def test_677a_10_c_the_stub_removed_before_the_community_cards():
    """677a.10(c): no community card before the stub leaves the automated dealing shoe."""
    t = holdem_round(Trail("heads-up-holdem"))
    assert found(t.without([t.seq("stub_removed")])) == [("677a.10(c)", t.seq("card", place="community"))]


def test_677a_10_d_a_stub_count_skipped():
    """677a.10(d): without a counting shuffler, the stub counted at least once every 5 rounds."""
    t = Trail("heads-up-holdem")
    for number in range(1, 6):
        holdem_round(t, number, counted=None)
    stub_five = [r.seq for r in t.records if r.kind == "stub"][-1]
    assert found(t.records) == [("677a.10(d)", stub_five)]
    counted = Trail("heads-up-holdem")
    for number in range(1, 6):
        holdem_round(counted, number, counted=52 if number == 3 else None)
    assert found(counted.records) == []


def test_677a_10_d_every_round_ending_five_in_a_row_without_a_count_is_a_violation():
    """677a.10(d), "at least once every 5 rounds": read as any 5 rounds in a row, so the sixth and
    seventh rounds without a count are each a violation too (rounds 2-6 and 3-7), and a count ends
    the run. Before, the auditor counted afresh after its report and kept quiet until round 10."""
    t = Trail("heads-up-holdem")
    for number in range(1, 10):
        holdem_round(t, number, counted=52 if number == 8 else None)
    stubs = [r.seq for r in t.records if r.kind == "stub"]
    assert found(t.records) == [("677a.10(d)", stubs[4]), ("677a.10(d)", stubs[5]), ("677a.10(d)", stubs[6])]
    assert judge(t.records).violations[-1].found == "7 rounds in a row ended with the stub not counted"


def test_677a_10_d_a_new_deck_in_the_shoe_begins_its_own_count():
    """677a.10(d): the stub is counted "to determine if the correct number of cards are still present
    in the deck": the rounds are those dealt from the deck in play. A new deck placed in the shoe
    between rounds (a ``batch_loaded`` record, as after a restart found the shoe empty) begins its
    own count, so three rounds of the old deck and two of the new are no violation; five of the new
    are (found by bench/reliability.py: the auditor counted across the new deck)."""
    t = Trail("heads-up-holdem")
    for number in range(1, 4):
        holdem_round(t, number, counted=None)
    t.table("batch_loaded", device="shoe", batch="deck 1", counted=52, expected=52, result="passed")
    for number in range(4, 6):
        holdem_round(t, number, counted=None)
    assert found(t.records) == []
    for number in range(6, 9):
        holdem_round(t, number, counted=None)
    stub_eight = [r.seq for r in t.records if r.kind == "stub"][-1]
    assert found(t.records) == [("677a.10(d)", stub_eight)]


def test_657a_9_d_a_counting_shuffler_needs_no_stub_count():
    """657a.9(d): the stub count is due only where no shuffler counts the deck after each shuffle."""
    t = Trail("crazy-4-poker")
    for number in range(1, 7):
        crazy_4_round(t, number)
    assert found(t.records) == []


def test_657a_11_a_settlement_of_an_unknown_hand():
    """A wager is settled on the hands compared (657a.11); seat 2's hand was never reported."""
    t = crazy_4_round(Trail("crazy-4-poker"), report=(1,))
    assert found(t.records) == [("657a.11", t.seq("settlement", seat=2))]


def test_672a_7_h_1_a_blackjack_paid_at_the_wrong_odds():
    """672a.7(h)(1) with 672a.11(a): a Blackjack pays 3 to 2, not even money."""
    t = blackjack_round(Trail("free-bet-blackjack"), natural_pays=1000)
    assert found(t.records) == [("672a.7(h)(1)", t.seq("settlement", seat=2))]


def test_686a_7_k_a_wager_paid_at_other_odds_than_the_trail_records():
    """686a.7(k): the Over 23 Wager paid by the odds in force, read from the trail's rules record."""
    t = Trail("over-under")
    t.table("rules_in_force", game="over-under", rules={"ante_odds": "1:1", "over_23_odds": "2:1"})
    over_under_round(t, over_pays=1000)
    assert found(t.records) == [("686a.7(k)", t.seq("settlement", wager="over_23"))]
    paid_right = Trail("over-under")
    paid_right.table("rules_in_force", game="over-under", rules={"ante_odds": "1:1", "over_23_odds": "2:1"})
    over_under_round(paid_right, over_pays=2000)
    assert found(paid_right.records) == []


def test_672a_7_h_1_a_blackjack_paid_before_the_dealer_reaches_the_seat():
    """672a.7(h)(1): seat 2's Blackjack is paid when the dealer reaches seat 2, after seat 1 played."""
    t = blackjack_opening(Trail("free-bet-blackjack"))
    seat_card(t, 1, "9h")
    seat_card(t, 2, "As")
    dealer_card(t, "7c")
    seat_card(t, 1, "7d")
    seat_card(t, 2, "Kd")
    dealer_card(t, None, commitment="c0ffee")
    t.add("settlement", seat=2, hand=0, wager="blackjack", movement="pay", amount=1500)
    t.add("decision", seat=1, hand=0, action="stand")
    t.add("hole_revealed", card="Qs", commitment="c0ffee")
    t.add("settlement", seat=1, hand=0, wager="blackjack", movement="collect", amount=1000)
    assert found(t.records) == [("672a.7(h)(1)", t.seq("decision", seat=1))]


def test_672a_7_c_a_burn_recorded_between_rounds_counts():
    """672a.7(c): the burn may be recorded outside any round, before the first card is dealt."""
    t = Trail("free-bet-blackjack")
    t.table("burn", clause="672a.7(c)", reason="batch", dealer="D-1")
    blackjack_round(t)
    records = t.without([r.seq for r in t.records if r.kind == "burn" and r.round is not None])
    assert found(records) == []


def test_672a_7_d_after_a_cover_card_the_next_batch_is_burned():
    """672a.7(c), (d): the round with the cover card is completed; the next, from a new batch, burns."""
    t = blackjack_round(Trail("free-bet-blackjack"))
    t.add("cover_card", clause="672a.7(d)")
    blackjack_round(t, 2)
    first_card = next(r.seq for r in t.records if r.round == 2 and r.kind == "card")
    assert found(t.records) == [("672a.7(c)", first_card)]
    burned = blackjack_round(Trail("free-bet-blackjack"))
    burned.add("cover_card", clause="672a.7(d)")
    burned.add("burn", clause="672a.7(c)", reason="batch", dealer="D-1")
    blackjack_round(burned, 2)
    assert found(burned.records) == []


@pytest.mark.parametrize("at", ["burn", "restart"])
def test_672a_7_d_after_a_cover_card_between_rounds_the_next_batch_is_burned(at):
    """672a.7(c), (d): a cover card recorded outside any round (at a new dealer's burn, or told to
    the service at a restart) ends the batch as a round's does: the next round, from a new batch,
    burns first (before, such a record was passed over and a missing burn went unreported)."""
    t = blackjack_round(Trail("free-bet-blackjack"))
    t.table("cover_card", clause="672a.7(d)", at=at, batch="red")
    t.table("burn", clause="672a.7(c)", reason="batch", dealer="D-1")
    blackjack_round(t, 2)
    assert found(t.records) == []
    burn = next(r.seq for r in t.records if r.round is None and r.kind == "burn")
    first_card = next(r.seq for r in t.records if r.round == 2 and r.kind == "card")
    assert found(t.without([burn])) == [("672a.7(c)", first_card)]


def test_672a_7_f_insurance_and_even_money_come_before_the_players_turns():
    """672a.7(f): under the dealer's ace, insurance is wagered and even money paid before the peek,
    not in the players' clockwise turns (h); even money pays 1 to 1."""
    t = blackjack_opening(Trail("free-bet-blackjack"))
    seat_card(t, 1, "9h")
    seat_card(t, 2, "As")
    dealer_card(t, "Ac")
    seat_card(t, 1, "7d")
    seat_card(t, 2, "Kd")
    dealer_card(t, None, commitment="c0ffee")
    t.add("wager", seat=1, wager="insurance", amount=500)
    t.add("settlement", seat=2, hand=0, wager="blackjack", movement="pay", amount=1000)
    t.add("peek", dealer_blackjack=False)
    t.add("decision", seat=1, hand=0, action="stand")
    t.add("hole_revealed", card="2s", commitment="c0ffee")
    t.add("card", card="4s", seat=None, hand=None, place="dealer", face_up=True, source="shoe")
    t.add("settlement", seat=1, hand=0, wager="blackjack", movement="collect", amount=1000)
    assert found(t.records) == []


def test_686a_7_i_a_surrendered_hand_is_still_dealt_its_two_cards():
    """686a.7(i): the two additional cards are dealt "even if the player decides to surrender"."""
    t = Trail("over-under").start(1)
    t.add("wager", seat=1, wager="ante", amount=1000)
    t.add("deal_started", dealer="D-1", seats="1")
    t.add("burn", clause="686a.7(c)", reason="new_dealer", dealer="D-1")
    t.add("card", card="Kh", seat=1, place="seat 1", face_up=True, source="shoe")
    t.add("decision", seat=1, choice="surrender")
    t.add("settlement", seat=1, wager="ante", movement="collect", amount=1000)
    assert found(t.records) == [("686a.7(i)", None)]
    t.add("card", card="Qs", seat=1, place="seat 1", face_up=True, source="shoe")
    t.add("card", card="5d", seat=1, place="seat 1", face_up=True, source="shoe")
    assert found(t.records) == []


def test_686a_7_i_a_round_a_restart_cut_off_is_judged_only_on_what_it_did():
    """686a.7(i): a round that ended without a player's two additional cards breaks (i) — unless a
    restart cut it off (the service's ``round_cut_off`` record names it, and a supervisor voids
    it): then it is judged only on what it did before the cut."""
    t = over_under_round(Trail("over-under"))
    seat_2 = [r.seq for r in t.records if r.fields.get("seat") == 2 and r.kind in ("card", "settlement")]
    t.records = t.without(seat_2[1:])  # cut before seat 2's two additional cards
    assert found(t.records) == [("686a.7(i)", None)]
    t.service("round_cut_off", 1, clause="decision 0012", wagers=[], cards_total=3)
    assert found(t.records) == []


def test_657a_9_f_a_void_returns_every_wager_without_a_hand_being_known():
    """657a.9(f): a wrong stub count voids every hand and returns every wager; the returns are no
    settlement on a hand (657a.11), so no hand need be reported — but a wager paid in a voided
    round still is one."""
    t = crazy_4_round(Trail("crazy-4-poker"), report=())
    t.records = [r for r in t.records if r.kind != "settlement"]
    for seat in (1, 2):
        t.add("settlement", seat=seat, wager="ante", movement="push", amount=500, clause="657a.9(f)")
    t.add("state", source="misdeal_check", dest="voided", trigger="hand_counts")
    assert found(t.records) == []
    paid = t.add("settlement", seat=1, wager="super_bonus", movement="pay", amount=500)
    assert found(t.records) == [("657a.11", paid.seq)]


def test_672a_7_a_every_card_from_the_dealing_shoe():
    """672a.7(a): all cards are dealt from a dealing shoe; a card recorded from elsewhere breaks it."""
    t = blackjack_round(Trail("free-bet-blackjack"))
    first = t.records[[r.kind for r in t.records].index("card")]
    t.records[t.records.index(first)] = type(first).seal(
        first.seq, first.at, "card", first.round, {**first.fields, "source": "hand"}, first.prev
    )
    assert ("672a.7(a)", first.seq) in found(t.records)
