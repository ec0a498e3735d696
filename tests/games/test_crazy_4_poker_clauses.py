"""One test (at least) for each lettered clause and sub-clause of 58 Pa. Code § 657a.9, named after it,
and scenario tests with stacked decks for every path the issue names."""

from __future__ import annotations

import pytest

from games.crazy_4_poker import ConfigError, RuleSet, Shuffler, Table
from games.crazy_4_poker.inputs import (
    DEALER,
    SIX_CARD,
    AwardPaid,
    CardDealt,
    ChipCount,
    ChooseHand,
    DeckHand,
    Discard,
    Fold,
    HandCounts,
    InputError,
    NoMoreBets,
    PlaceWagers,
    Play,
    ProgressiveLocked,
    ReportHand,
    Resolution,
    RevealOrder,
    Settle,
    StubCount,
    StubToRack,
    SupervisorResolve,
)
from games.crazy_4_poker.machine import (
    COMPLETE,
    DEALING,
    DECISIONS,
    HELD,
    MISDEAL_CHECK,
    SHOWDOWN,
    STUB,
    VOIDED,
)
from games.crazy_4_poker.records import RecordKind
from games.crazy_4_poker.stacked import StackedShuffler, stack
from vocabulary.cards import Card
from vocabulary.operators import Operator, Role
from vocabulary.rules import PUBLISHED_RULES, RuleViolation

SUPERVISOR = Operator("S-1", Role.SUPERVISOR)
DEALER_OP = Operator("D-1", Role.DEALER)
HANDS = {1: "As Ad Ac 7h 2d", 2: "Kc Qd 9h 5s 3c"}
DEALER_HAND = "Ks Qh Td 6h 4d"  # king high: qualifies, beats seat 2


def open_table(rules: RuleSet | None = None, order=None, *, sealed: bool = True):
    shuffler = StackedShuffler(order or stack(HANDS, DEALER_HAND), sealed=sealed)
    table = Table(rules or RuleSet.example(), shuffler.verify)
    table.open()
    return table, shuffler


def wagered(table: Table, shuffler: StackedShuffler, wagers: dict[int, PlaceWagers] | None = None):
    round_ = table.new_round()
    for message in (wagers or {seat: PlaceWagers(seat, 1000, 1000) for seat in HANDS}).values():
        round_.handle(message)
    round_.handle(shuffler.report())
    round_.handle(ChooseHand(DeckHand.LEFT))
    return round_


def to_decisions(round_, shuffler) -> None:
    round_.handle(NoMoreBets())
    shuffler.deal(round_)
    round_.handle(StubToRack())


def finish(round_, shuffler, decisions=None) -> None:
    for seat in sorted(round_.positions):
        round_.handle((decisions or {}).get(seat, Play(seat)))
    round_.handle(RevealOrder(shuffler.order))
    round_.handle(Settle())
    round_.handle(Discard(round_.layout_cards))


def test_657a_9_a_round_dealt_from_the_hand_completes() -> None:
    """657a.9(a): a whole round dealt from the hand, shuffler order known, settled and discarded."""
    table, shuffler = open_table()
    round_ = wagered(table, shuffler)
    to_decisions(round_, shuffler)
    finish(round_, shuffler)
    assert round_.state == COMPLETE
    assert round_.net(1) == 1000 + 1000 + 2000  # trips beat king high: Ante, Play 1:1; Super Bonus 2:1
    assert round_.net(2) == -3000  # king high loses Ante, Play and Super Bonus to a qualified dealer
    hand_records = round_.log.of(RecordKind.HAND)
    assert {r.fields["known_by"] for r in hand_records} == {"shuffler order"}


def test_657a_9_a_1_table_refuses_to_open_without_a_shuffler() -> None:
    """657a.9(a)(1): an automated shuffling device shall be used."""
    table = Table(RuleSet.example(shuffler=Shuffler.NONE), lambda *_: True)
    with pytest.raises(RuleViolation, match=r"657a\.9\(a\)\(1\)"):
        table.open()
    with pytest.raises(RuleViolation, match=r"657a\.9\(a\)\(1\)"):
        table.new_round()


def test_657a_9_a_1_no_deal_before_the_shuffler_reports() -> None:
    """657a.9(a)(1): the round deals only a deck the shuffler reported."""
    table, _ = open_table()
    round_ = table.new_round()
    round_.handle(PlaceWagers(1, 500, 500))
    with pytest.raises(RuleViolation, match=r"657a\.9\(a\)\(1\)"):
        round_.handle(NoMoreBets())


def test_657a_9_a_2_the_deck_stays_in_the_chosen_hand() -> None:
    """657a.9(a)(2): the dealer uses the chosen hand all round, and chooses before dealing."""
    table, shuffler = open_table()
    round_ = table.new_round()
    round_.handle(PlaceWagers(1, 500, 500))
    round_.handle(shuffler.report())
    round_.handle(NoMoreBets())
    with pytest.raises(RuleViolation, match=r"657a\.9\(a\)\(2\)"):
        round_.handle(CardDealt(1))
    round_.handle(ChooseHand(DeckHand.RIGHT))
    round_.handle(CardDealt(1))
    with pytest.raises(RuleViolation, match=r"657a\.9\(a\)\(2\)"):
        round_.handle(ChooseHand(DeckHand.LEFT))
    assert round_.dealt == [1]


def progressive_rules() -> RuleSet:
    return RuleSet.example(
        progressive_offered=True, progressive_pay_table={"four_aces": "100%", "three_of_a_kind": 2500}
    )


def test_657a_9_a_3_progressive_lock_and_chip_count_before_any_card() -> None:
    """657a.9(a)(3): no more bets, the system locks, the chips equal the accepted count; then the deal."""
    table, shuffler = open_table(progressive_rules())
    round_ = wagered(
        table, shuffler, {1: PlaceWagers(1, 1000, 1000, progressive=100), 2: PlaceWagers(2, 1000, 1000)}
    )
    round_.handle(NoMoreBets())
    with pytest.raises(RuleViolation, match="not accepted"):
        round_.handle(CardDealt(1))
    with pytest.raises(RuleViolation, match="not accepted"):
        round_.handle(PlaceWagers(2, 1000, 1000, progressive=100))
    round_.handle(ProgressiveLocked((1,)))
    round_.handle(ChipCount(1))
    assert round_.state == DEALING
    shuffler.deal(round_)
    round_.handle(StubToRack())
    finish(round_, shuffler)
    assert round_.awards == [(1, "three_of_a_kind", "2500 cents")]


def test_657a_1_605a_7_a_an_award_is_recorded_with_the_amount_level_and_hit_the_system_paid() -> None:
    """657a.1: the award is recorded once the progressive system has paid it, with the amount, the
    level and the hit number from the controller (605a.7(a)), so the trail matches its hit history;
    an answer for a seat with no award due, or one paid already, is refused."""
    table, shuffler = open_table(progressive_rules())
    round_ = wagered(
        table, shuffler, {1: PlaceWagers(1, 1000, 1000, progressive=100), 2: PlaceWagers(2, 1000, 1000)}
    )
    for message in (NoMoreBets(), ProgressiveLocked((1,)), ChipCount(1)):
        round_.handle(message)
    shuffler.deal(round_)
    round_.handle(StubToRack())
    for message in (Play(1), Play(2), RevealOrder(shuffler.order), Settle()):
        round_.handle(message)
    assert round_.log.of(RecordKind.AWARD) == [], "not paid yet"
    with pytest.raises(RuleViolation, match="seat 2 has no progressive award due") as refused:
        round_.handle(AwardPaid(2, 1, 2500, 7))
    assert refused.value.rule.clause == "657a.1"
    round_.handle(AwardPaid(1, 3, 2500, 7))
    (award,) = round_.log.of(RecordKind.AWARD)
    assert dict(award.fields) == {
        "seat": 1,
        "hand": "three_of_a_kind",
        "award": "2500 cents",
        "level": 3,
        "amount": 2500,
        "hit": 7,
        "clause": "657a.1",
    }
    with pytest.raises(RuleViolation, match="seat 1 has no progressive award due"):
        round_.handle(AwardPaid(1, 3, 2500, 8))
    round_.handle(Discard(round_.layout_cards))
    assert round_.state == COMPLETE


def test_657a_9_a_3_a_progressive_wager_the_system_refused_is_returned_and_earns_nothing() -> None:
    """657a.9(a)(3); decision 0043: the system accepted only seat 2's Progressive Payout Wager at the
    lock (seat 1's sensor locked out), the dealer returned seat 1's chip: seat 1's wager is recorded
    returned, not collected, and earns neither the award its hand would win nor an Envy Bonus for
    seat 2's four of a kind; seat 2's is collected, paid its award."""
    rules = RuleSet.example(
        progressive_offered=True,
        progressive_pay_table={"three_of_a_kind": 2500, "four_of_a_kind": 5000},
        envy_bonus_pay_table={"four_of_a_kind": 1000},
    )
    table, shuffler = open_table(rules, stack({1: "As Ad Ac 7h 2d", 2: "9s 9d 9c 9h 3c"}, DEALER_HAND))
    round_ = wagered(
        table,
        shuffler,
        {seat: PlaceWagers(seat, 1000, 1000, progressive=100) for seat in (1, 2)},
    )
    for message in (NoMoreBets(), ProgressiveLocked((2,)), ChipCount(1)):
        round_.handle(message)
    (lock,) = round_.log.of(RecordKind.PROGRESSIVE_LOCKED)
    assert lock.fields["accepted"] == 1 and lock.fields["seats"] == "2"
    shuffler.deal(round_)
    round_.handle(StubToRack())
    for message in (Play(1), Play(2), RevealOrder(shuffler.order), Settle()):
        round_.handle(message)
    side = [
        (a.seat, a.wager.value, a.movement.value, a.amount, a.rule.clause)
        for a in round_.actions
        if a.wager.value in ("progressive", "envy_bonus")
    ]
    assert side == [
        (2, "progressive", "collect", 100, "657a.9(a)(3)"),
        (1, "progressive", "push", 100, "657a.9(a)(3); decision 0043"),
    ]
    assert round_.awards == [(2, "four_of_a_kind", "5000 cents")]
    with pytest.raises(RuleViolation, match="seat 1 has no progressive award due"):
        round_.handle(AwardPaid(1, 1, 2500, 1))


def test_657a_9_a_3_chip_count_mismatch_holds_for_a_supervisor() -> None:
    """657a.9(a)(3): chips not equal to the accepted count: held; a dealer cannot resolve it."""
    table, shuffler = open_table(progressive_rules())
    round_ = wagered(table, shuffler, {1: PlaceWagers(1, 1000, 1000, progressive=100)})
    round_.handle(NoMoreBets())
    round_.handle(ProgressiveLocked((1,)))
    round_.handle(ChipCount(2))
    assert round_.state == HELD
    irregularity = round_.log.of(RecordKind.IRREGULARITY)[-1]
    assert irregularity.fields["clause"] == "657a.9(a)(3)"
    with pytest.raises(RuleViolation):
        round_.handle(SupervisorResolve(DEALER_OP, Resolution.CONTINUE))
    round_.handle(SupervisorResolve(SUPERVISOR, Resolution.CONTINUE))
    assert round_.state == DEALING


def test_657a_9_a_3_a_wager_the_system_accepted_where_none_was_keyed_holds_the_round() -> None:
    """657a.9(a)(3): the dealer verifies "that the number of value chips wagered equals the number
    of Progressive Payout Wagers accepted by the progressive table game system". The system accepted
    seat 1's chip where the dealer keyed no Progressive Payout Wager: the count matches (1 = 1), but
    the chip collected and metered is a wager the round would neither settle nor pay an award on,
    so the round holds before any card, and only a VOID, returning every wager, is offered (before,
    it dealt on and the wager vanished from the round)."""
    table, shuffler = open_table(progressive_rules())
    round_ = wagered(table, shuffler, {1: PlaceWagers(1, 1000, 1000), 2: PlaceWagers(2, 1000, 1000)})
    round_.handle(NoMoreBets())
    round_.handle(ProgressiveLocked((1,)))
    round_.handle(ChipCount(1))
    assert round_.state == HELD and round_.hold.kind.code == "progressive-not-keyed"
    assert "seat(s) 1" in round_.log.of(RecordKind.IRREGULARITY)[-1].fields["detail"]
    with pytest.raises(RuleViolation):
        round_.handle(SupervisorResolve(SUPERVISOR, Resolution.CONTINUE))
    round_.handle(SupervisorResolve(SUPERVISOR, Resolution.VOID))
    assert round_.state == VOIDED and round_.net(1) == round_.net(2) == 0

    miscounted = wagered(table, shuffler, {1: PlaceWagers(1, 1000, 1000), 2: PlaceWagers(2, 1000, 1000)})
    miscounted.handle(NoMoreBets())
    miscounted.handle(ProgressiveLocked((1,)))
    miscounted.handle(ChipCount(0))  # a miscount besides: still the wager not keyed that holds it
    assert miscounted.state == HELD and miscounted.hold.kind.code == "progressive-not-keyed"


def test_657a_9_a_3_mismatch_voided_returns_every_wager() -> None:
    """657a.9(a)(3): a supervisor may void the held round; every wager is returned."""
    table, shuffler = open_table(progressive_rules())
    round_ = wagered(table, shuffler, {1: PlaceWagers(1, 1000, 1000, progressive=100)})
    round_.handle(NoMoreBets())
    round_.handle(ProgressiveLocked((1,)))
    round_.handle(ChipCount(0))
    round_.handle(SupervisorResolve(SUPERVISOR, Resolution.VOID))
    assert round_.state == VOIDED and round_.net(1) == 0
    assert sum(a.amount for a in round_.actions) == 2100
    round_.handle(Discard(0))
    assert round_.state == COMPLETE


def test_657a_9_b_six_card_bonus_card_first_then_clockwise_to_five() -> None:
    """657a.9(b): the Six Card Bonus card first, then one at a time clockwise, dealer last, to five each."""
    rules = RuleSet.example(six_card_bonus_offered=True)
    table, shuffler = open_table(rules, stack(HANDS, DEALER_HAND, six="5d"))
    round_ = wagered(
        table, shuffler, {2: PlaceWagers(2, 500, 500, six_card_bonus=100), 1: PlaceWagers(1, 500, 500)}
    )
    round_.handle(NoMoreBets())
    assert round_.deal[:4] == (SIX_CARD, 1, 2, DEALER)
    assert round_.deal.count(1) == round_.deal.count(DEALER) == 5 and len(round_.deal) == 16
    shuffler.deal(round_)
    assert round_.state == STUB


def test_657a_9_b_a_card_out_of_order_holds_the_round() -> None:
    """657a.9(b): a card to a place not due is held; only VOID is offered."""
    table, shuffler = open_table()
    round_ = wagered(table, shuffler)
    round_.handle(NoMoreBets())
    round_.handle(CardDealt(2))
    assert round_.state == HELD
    assert round_.log.of(RecordKind.IRREGULARITY)[-1].fields["clause"] == "657a.9(b)"
    with pytest.raises(RuleViolation, match="not offered"):
        round_.handle(SupervisorResolve(SUPERVISOR, Resolution.CONTINUE))
    round_.handle(SupervisorResolve(SUPERVISOR, Resolution.VOID))
    round_.handle(Discard(1))
    assert round_.state == COMPLETE and all(a.net == 0 for a in round_.actions)


def test_657a_9_b_only_positions_with_the_required_wagers_are_dealt() -> None:
    """657a.9(b): required wagers (Ante and equal Super Bonus) for a hand; a refusal names the rule."""
    table, _ = open_table()
    round_ = table.new_round()
    with pytest.raises(RuleViolation, match=r"657a\.9\(b\)"):
        round_.handle(PlaceWagers(1, 500, 400))
    with pytest.raises(InputError, match=r"PlaceWagers\.ante"):
        PlaceWagers(1, -5, 5)
    assert round_.positions == {}


def test_657a_9_c_stub_to_the_discard_rack_after_the_deal() -> None:
    """657a.9(c): after five cards each, the stub goes to the discard rack unexposed."""
    table, shuffler = open_table()
    round_ = wagered(table, shuffler)
    round_.handle(NoMoreBets())
    with pytest.raises(RuleViolation):
        round_.handle(StubToRack())
    shuffler.deal(round_)
    round_.handle(StubToRack())
    assert round_.state == DECISIONS
    stub = round_.log.of(RecordKind.STUB)[-1]
    assert stub.fields["clause"] == "657a.9(c)" and stub.fields["cards"] is None


def non_counting_round(table: Table, shuffler: StackedShuffler):
    round_ = wagered(table, shuffler)
    round_.handle(NoMoreBets())
    shuffler.deal(round_)
    return round_


def test_657a_9_d_stub_counted_at_least_once_every_5_rounds() -> None:
    """657a.9(d): without a counting shuffler, the fifth round without a count must count the stub."""
    table, shuffler = open_table(RuleSet.example(shuffler=Shuffler.NON_COUNTING))
    for _ in range(4):
        round_ = non_counting_round(table, shuffler)
        round_.handle(StubToRack())
        finish(round_, shuffler)
        table.round_over(round_)
    round_ = non_counting_round(table, shuffler)
    with pytest.raises(RuleViolation, match=r"657a\.9\(d\)"):
        round_.handle(StubToRack())
    round_.handle(StubCount(52 - 15))
    finish(round_, shuffler)
    table.round_over(round_)
    assert table.rounds_since_count == 0 and not table.stub_count_due


def test_657a_9_d_a_counting_shuffler_must_show_52() -> None:
    """657a.9(d): a counting shuffler that does not indicate 52 cards: the deck is not dealt."""
    table, shuffler = open_table()
    round_ = table.new_round()
    with pytest.raises(RuleViolation, match=r"657a\.9\(d\)"):
        round_.handle(shuffler.report(count=51))
    assert round_.shuffle is None


def test_657a_9_e_a_count_of_52_sends_the_stub_to_the_rack() -> None:
    """657a.9(e): the count shows 52 cards: the stub goes to the discard rack and play goes on."""
    table, shuffler = open_table(RuleSet.example(shuffler=Shuffler.NON_COUNTING))
    round_ = non_counting_round(table, shuffler)
    round_.handle(StubCount(37))
    assert round_.state == DECISIONS
    assert round_.log.of(RecordKind.STUB)[-1].fields["clause"] == "657a.9(e)"


def wrong_count(counts: dict) -> tuple:
    table, shuffler = open_table(RuleSet.example(shuffler=Shuffler.NON_COUNTING))
    round_ = non_counting_round(table, shuffler)
    round_.handle(StubCount(36))
    assert round_.state == MISDEAL_CHECK
    with pytest.raises(RuleViolation, match=r"657a\.9\(f\)"):
        round_.handle(HandCounts({1: 5}))
    round_.handle(HandCounts(counts))
    return table, round_


def test_657a_9_f_misdeal_with_52_cards_voids_and_returns_wagers() -> None:
    """657a.9(f): misdealt (a hand has 6) but 52 cards present: hands void, wagers returned, deck kept."""
    table, round_ = wrong_count({1: 6, 2: 5, DEALER: 5})
    assert round_.state == VOIDED and not round_.deck_removed
    assert all(a.net == 0 for a in round_.actions) and sum(a.amount for a in round_.actions) == 4000
    round_.handle(Discard(16))
    table.round_over(round_)
    assert table.deck_present


def test_657a_9_f_wrong_count_without_misdeal_removes_the_deck() -> None:
    """657a.9(f): not misdealt: hands void, wagers returned, the deck removed from the table."""
    table, round_ = wrong_count({1: 5, 2: 5, DEALER: 5})
    assert round_.state == VOIDED and round_.deck_removed
    assert round_.log.of(RecordKind.IRREGULARITY)[-1].fields["code"] == "wrong-card-count"
    round_.handle(Discard(15))
    table.round_over(round_)
    with pytest.raises(RuleViolation, match=r"657a\.9\(f\)"):
        table.new_round()
    table.new_deck()
    assert table.new_round().state == "betting"


def test_657a_9_f_a_wrong_six_card_bonus_area_alone_is_not_misdealt_and_the_deck_goes() -> None:
    """657a.9(f): "If the cards were misdealt (a player or the dealer has more or less than 5
    cards), but 52 cards remain in the deck, all hands shall be void ... If the cards were not
    misdealt, ... the entire deck of cards shall be removed from the table." Two cards stuck
    together went to the Six Card Bonus card's area: every player and the dealer hold 5, so the
    cards were not misdealt and the deck is removed, though 52 cards are present (before, the area
    counted as a hand and the deck was kept)."""
    rules = RuleSet.example(shuffler=Shuffler.NON_COUNTING, six_card_bonus_offered=True)
    shuffler = StackedShuffler(stack(HANDS, DEALER_HAND, six="5d"))
    table = Table(rules, shuffler.verify)
    table.open()
    round_ = table.new_round()
    round_.handle(PlaceWagers(1, 1000, 1000))
    round_.handle(PlaceWagers(2, 1000, 1000, six_card_bonus=500))
    round_.handle(shuffler.report())
    round_.handle(ChooseHand(DeckHand.LEFT))
    round_.handle(NoMoreBets())
    shuffler.deal(round_)
    round_.handle(StubCount(35))
    round_.handle(HandCounts({SIX_CARD: 2, 1: 5, 2: 5, DEALER: 5}))
    assert round_.state == VOIDED and round_.deck_removed
    assert round_.log.of(RecordKind.IRREGULARITY)[-1].fields["code"] == "wrong-card-count"


def test_657a_9_f_misdealt_with_a_card_missing_besides_removes_the_deck() -> None:
    """657a.9(f), as docs/conformance.md reads it: the deck is kept only when misdealt "but 52 cards
    remain in the deck"; a hand of 6 with a card gone besides (51 present) removes it."""
    _table, round_ = wrong_count({1: 6, 2: 5, DEALER: 4})
    assert round_.state == VOIDED and round_.deck_removed


def test_dealer_reports_hands_without_a_shuffler_order() -> None:
    """Without the shuffler's order the dealer reports the live hands (a folded hand with no wager on
    it need not be); the record says how each hand was known."""
    table, shuffler = open_table(sealed=False)
    round_ = wagered(table, shuffler)
    to_decisions(round_, shuffler)
    round_.handle(Play(1, 3))
    round_.handle(Fold(2))
    with pytest.raises(RuleViolation, match="not known"):
        round_.handle(Settle())
    with pytest.raises(RuleViolation, match="sealed no order"):
        round_.handle(RevealOrder(shuffler.order))
    round_.handle(ReportHand(DEALER, tuple(c for c in stack({}, DEALER_HAND)[:5])))
    round_.handle(Settle())  # seat 1 raised and is not reported: held, nothing settled (657a.1 Hand)
    assert round_.state == HELD and not round_.actions
    round_.handle(SupervisorResolve(SUPERVISOR, Resolution.CONTINUE))
    round_.handle(ReportHand(1, tuple(Card_ for Card_ in stack({1: HANDS[1]}, "2c 3c 4c 5c 6c")[:10:2])))
    round_.handle(Settle())
    assert round_.known_by == {DEALER: "dealer report", 1: "dealer report"}
    assert round_.net(1) == 1000 + 3000 + 2000 and round_.net(2) == -2000


def test_raise_without_aces_is_held_and_reduced_on_continue() -> None:
    """Published game rules (not PA text): a 3x Play needs aces or better; CONTINUE reduces it to 1x
    and returns the excess."""
    table, shuffler = open_table()
    round_ = wagered(table, shuffler)
    to_decisions(round_, shuffler)
    round_.handle(Play(1))
    round_.handle(Play(2, 3))
    round_.handle(RevealOrder(shuffler.order))
    round_.handle(Settle())
    assert round_.state == HELD
    round_.handle(SupervisorResolve(SUPERVISOR, Resolution.CONTINUE))
    assert round_.state == SHOWDOWN and round_.positions[2].play == 1000
    round_.handle(Settle())
    assert round_.net(2) == -3000  # Ante, Play (1x) and Super Bonus lost to the dealer's king high


def test_config_errors_name_the_key() -> None:
    with pytest.raises(ConfigError, match=r"super_bonus_pay_table\.flush"):
        RuleSet.from_mapping({"super_bonus_pay_table": {"flush": "three to two"}})
    with pytest.raises(ConfigError, match="shuffler"):
        RuleSet.from_mapping({"shuffler": "manual"})
    with pytest.raises(ConfigError, match="progressive_pay_table: required because the table offers"):
        RuleSet.example(progressive_offered=True, progressive_pay_table={}).check_pay_tables()


def test_657a_9_f_an_order_holding_a_card_twice_holds_the_round_and_its_void_removes_the_deck() -> None:
    """Published game rules: a round is dealt from one 52-card deck; 657a.9(f), as
    docs/conformance.md reads it: a deck shown wrong, not misdealt, is removed from the table. A deck
    of 52 cards holding one twice passes every count, and the shuffler sealed the order it read, so
    the order opens its seal: the round holds (duplicate-card) with no hand known, naming the places
    in the order and never the face (the stub is never turned up); only a VOID is offered, which
    returns every wager and removes the deck, and the table deals no round until a new deck. Before,
    the order was refused as malformed input and the table's round ended with an error, its wagers
    neither settled nor returned."""
    order = stack(HANDS, DEALER_HAND)
    twin = order.index(Card.parse("Kc"))  # seat 2's first card...
    order[twin] = Card.parse("As")  # ...is seat 1's first, again
    table, shuffler = open_table(order=order)
    round_ = wagered(table, shuffler)
    to_decisions(round_, shuffler)
    for seat in sorted(round_.positions):
        round_.handle(Play(seat))
    round_.handle(RevealOrder(shuffler.order))
    assert round_.state == HELD and round_.hold is not None
    hold = round_.hold
    assert (hold.kind.code, hold.irregularity.rule.clause) == ("duplicate-card", PUBLISHED_RULES)
    detail = hold.irregularity.detail
    first = order.index(Card.parse("As"))
    assert f"places {first + 1} and {twin + 1} of 52" in detail and "As" not in detail, detail
    assert not round_.hands, "no hand is known from an order that is not one deck"
    with pytest.raises(RuleViolation):
        round_.handle(SupervisorResolve(SUPERVISOR, Resolution.CONTINUE))
    round_.handle(SupervisorResolve(SUPERVISOR, Resolution.VOID))
    assert round_.state == VOIDED and round_.deck_removed
    assert all(round_.net(seat) == 0 for seat in round_.positions), "every wager returned"
    round_.handle(Discard(round_.layout_cards))
    table.round_over(round_)
    with pytest.raises(RuleViolation, match=r"657a\.9\(f\)"):
        table.new_round()
    table.new_deck()
    assert table.new_round().number == 2
