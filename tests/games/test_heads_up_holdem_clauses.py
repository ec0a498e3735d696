"""One test per clause of 58 Pa. Code § 677a.10, each named after its clause (games.conformance
reads the names and docstrings to list them in docs/conformance.md), then the betting rules of
the published game (not PA text), bad input and the supervisor's rulings."""

from __future__ import annotations

from dataclasses import fields

import pytest

from games import conformance
from games.heads_up_holdem import CLAUSES, ConfigError, Round, RuleSet, Table
from games.heads_up_holdem.inputs import (
    Choice,
    Collect,
    CommunityDealt,
    DeckReport,
    InputError,
    MisdealFinding,
    NoMoreBets,
    PlaceWager,
    PlayerDecision,
    Resolution,
    RevealCommunity,
    RevealHand,
    Settle,
    StackDelivered,
    StubRemoved,
    StubToRack,
    SupervisorResolve,
    UnseenToRack,
)
from games.heads_up_holdem.irregularities import KINDS
from games.heads_up_holdem.machine import (
    BETTING,
    COMMUNITY,
    COMPLETE,
    DEALING,
    HELD,
    MISDEAL_CHECK,
    PREFLOP,
    STUB,
    STUB_OUT,
    VOIDED,
)
from games.heads_up_holdem.records import RecordKind
from games.heads_up_holdem.stacked import COMMUNITY_FIRST, READY, StackedDeck, arrange, start
from tests.games import refused
from vocabulary.cards import Card
from vocabulary.operators import Operator, Role
from vocabulary.rules import PUBLISHED_RULES, RuleViolation

SUPERVISOR = Operator("S-1", Role.SUPERVISOR)
DEALER = Operator("D-1", Role.DEALER)
DECK = arrange(["Ah Kh", "2c 7d"], "Qs Qd", "Jh Th 9s 3c 4d")


def betting(wagers=(1, 3), rules: RuleSet | None = None, faces=DECK, **kwargs) -> tuple[Round, StackedDeck]:
    shoe = StackedDeck(faces)
    round_ = Round(1, rules=rules or RuleSet.example(), verify=shoe.verify, **kwargs)
    for seat in wagers:
        round_.handle(PlaceWager(seat, 500, 500))
    return round_, shoe


def deliver_stacks(round_: Round, shoe: StackedDeck) -> None:
    while round_.state == DEALING:
        round_.handle(
            StackDelivered(tuple(shoe.shoe.draw(face_up=False) for _ in range(round_.expected.count)))
        )


def deal_community(round_: Round, shoe: StackedDeck) -> None:
    """677a.10(c): the stub out of the shoe, then the five community cards from the hand."""
    round_.handle(shoe.remove_stub())
    while round_.state == COMMUNITY:
        round_.handle(shoe.from_hand())


def irregularities(round_: Round) -> list[tuple[str, str]]:
    return [(r.fields["code"], r.fields["clause"]) for r in round_.log.of(RecordKind.IRREGULARITY)]


def to_preflop_check_all(round_: Round, shoe: StackedDeck) -> None:
    for street in range(3):
        while (seat := round_.to_act) is not None:
            round_.handle(PlayerDecision(seat, Choice.FOLD if street == 2 else Choice.CHECK))
        if street < 2:
            shoe.reveal_community(round_)


def test_677a_10_a_the_cards_are_dealt_from_the_shoe_only_after_its_steps():
    """677a.10(a): dealing from the automated dealing shoe observes (1) and (2): the round takes no
    delivery before "no more bets" and starts no deal from a shoe not loaded."""
    round_, _shoe = betting()
    refused("677a.10(a)(1)", round_, NoMoreBets(DeckReport(in_shoe=False)))
    round_.handle(NoMoreBets(READY))
    assert round_.state == DEALING and round_.expected.place == "seat 1"


def test_677a_10_a_1_no_deal_before_the_shuffled_cards_are_in_the_shoe():
    """677a.10(a)(1): after the shuffle and cut the cards are placed in the shoe; until the shoe
    reports them there, "no more bets" starts no deal."""
    round_, _ = betting()
    refused("677a.10(a)(1)", round_, NoMoreBets(DeckReport(in_shoe=False)))
    assert round_.state == BETTING


def test_677a_10_a_2_a_stack_before_no_more_bets_holds_the_round():
    """677a.10(a)(2): no stack is delivered before "no more bets"; one that is holds the round, and
    the supervisor's CONTINUE sets its cards aside and reopens the betting."""
    round_, shoe = betting()
    early = shoe.shoe.draw(face_up=False), shoe.shoe.draw(face_up=False)
    round_.handle(StackDelivered(early))
    assert round_.state == HELD and irregularities(round_) == [("stack-before-no-more-bets", "677a.10(a)(2)")]
    refused("decision 0017", round_, SupervisorResolve(DEALER, Resolution.CONTINUE))
    round_.handle(SupervisorResolve(SUPERVISOR, Resolution.CONTINUE))
    assert round_.state == BETTING and len(round_.set_aside) == 2
    assert round_.log.of(RecordKind.NO_MORE_BETS) == []
    round_.handle(NoMoreBets(READY))
    assert round_.log.of(RecordKind.NO_MORE_BETS)[0].fields["clause"] == "677a.10(a)(2)"


def test_677a_10_b_stacks_of_two_face_down_clockwise_then_the_dealer():
    """677a.10(b): a stack of two face down to each position with Ante and Odds Wagers, from the
    dealer's left clockwise, then to the dealer; a position without them gets none."""
    round_, shoe = betting(wagers=(5, 2))
    round_.handle(NoMoreBets(READY))
    announced = []
    while round_.state == DEALING:
        announced.append((round_.expected.place, round_.expected.count))
        round_.handle(StackDelivered((shoe.shoe.draw(face_up=False), shoe.shoe.draw(face_up=False))))
    assert announced == [("seat 2", 2), ("seat 5", 2), ("dealer", 2)]
    cards = round_.log.of(RecordKind.CARD)
    assert [r.fields["place"] for r in cards] == ["seat 2"] * 2 + ["seat 5"] * 2 + ["dealer"] * 2
    assert all(r.fields["card"] is None and not r.fields["face_up"] for r in cards)
    assert {r.fields["clause"] for r in cards} == {"677a.10(b)"}
    assert {r.fields["source"] for r in cards} == {"shoe"}, "each stack dispensed by the shoe"
    assert round_.state == STUB_OUT


def test_677a_10_b_a_stack_of_the_wrong_size_or_face_up_holds_the_round():
    """677a.10(b): each stack is two cards face down. Three cards, or a card face up, hold the round
    for a supervisor, who may only void it; every wager is returned and no card is lost."""
    round_, shoe = betting()
    round_.handle(NoMoreBets(READY))
    round_.handle(StackDelivered(tuple(shoe.shoe.draw(face_up=False) for _ in range(3))))
    assert round_.state == HELD and irregularities(round_) == [("wrong-stack", "677a.10(b)")]
    refused("677a.10 (silent)", round_, SupervisorResolve(SUPERVISOR, Resolution.CONTINUE))
    round_.handle(SupervisorResolve(SUPERVISOR, Resolution.VOID))
    assert round_.state == VOIDED and all(a.movement.value == "push" for a in round_.actions)
    assert not round_.deck_removed, "a stack dealt wrong says nothing against the deck"
    assert len(round_.pickup_order()) == 3
    round_.handle(Collect(3))
    assert round_.state == COMPLETE

    round_, shoe = betting()
    round_.handle(NoMoreBets(READY))
    round_.handle(StackDelivered((shoe.shoe.draw(face_up=True), shoe.shoe.draw(face_up=False))))
    assert irregularities(round_) == [("card-exposed", "677a.10(b)")]


def test_677a_10_c_the_stub_out_of_the_shoe_then_five_community_cards_from_the_hand():
    """677a.10(c): after every stack "the dealer shall remove the remaining cards from the automated
    dealing shoe" (a stub_removed record, before any community card) and "deal from his hand the five
    community cards": face down, one at a time, each the top card of the stub in the hand (source
    hand); "After all five community cards have been dealt", the stub goes to the discard rack
    unexposed."""
    round_, shoe = betting()
    round_.handle(NoMoreBets(READY))
    deliver_stacks(round_, shoe)
    assert round_.state == STUB_OUT and round_.expected is None
    refused("677a.10", round_, StubToRack())  # not before the five community cards
    removed = round_.handle(shoe.remove_stub())
    (record,) = [r for r in removed if r.kind is RecordKind.STUB_REMOVED]
    assert record.fields == {"cards": 52 - 6, "clause": "677a.10(c)"}
    for _ in range(5):
        assert round_.state == COMMUNITY and round_.expected.count == 1
        assert round_.expected.source == "hand"
        round_.handle(shoe.from_hand())
    assert round_.state == STUB and len(round_.community) == 5 and len(shoe) == 52 - 6 - 5
    records = round_.handle(StubToRack())
    stub = next(r for r in records if r.kind is RecordKind.STUB)
    assert stub.fields["clause"] == "677a.10(c)" and stub.fields["exposed"] is False
    assert round_.state == PREFLOP
    community = [r for r in round_.log.of(RecordKind.CARD) if r.fields["place"] == "community"]
    assert len(community) == 5 and all(r.fields["card"] is None and r.fields["commitment"] for r in community)
    assert {(r.fields["source"], r.fields["clause"]) for r in community} == {("hand", "677a.10(c)")}
    assert record.seq < community[0].seq, "the stub leaves the shoe before the first community card"


def test_677a_10_c_a_community_card_before_the_stub_is_out_holds_the_round():
    """677a.10(c): the community cards come from the hand once the stub is out of the shoe; a card
    dealt as a community card before that (out of the shoe, as one-card stacks were) is irregular:
    the round is held, citing 677a.10(c)."""
    round_, shoe = betting()
    round_.handle(NoMoreBets(READY))
    deliver_stacks(round_, shoe)
    round_.handle(CommunityDealt(shoe.shoe.draw(face_up=False)))
    assert round_.state == HELD and irregularities(round_) == [("extra-cards", "677a.10(c)")]
    assert round_.log.of(RecordKind.STUB_REMOVED) == []


def test_677a_10_c_no_community_card_leaves_the_shoe():
    """677a.10(c): each community card is the top card of the stub in the dealer's hand; a card
    from anywhere else (one the shoe dispensed, another of the stub) is refused, nothing changed;
    a stub too small to deal five from is refused."""
    round_, shoe = betting()
    round_.handle(NoMoreBets(READY))
    deliver_stacks(round_, shoe)
    refused("677a.10(c)", round_, StubRemoved(tuple(shoe.shoe.draw(face_up=False) for _ in range(4))))
    round_.handle(shoe.remove_stub())
    from_the_shoe = StackedDeck(DECK).shoe.draw(face_up=False)
    refused("677a.10(c)", round_, CommunityDealt(from_the_shoe))
    refused("677a.10(c)", round_, CommunityDealt(shoe.hand[1]))  # the hand deals from its top
    assert round_.community == [] and round_.state == COMMUNITY
    round_.handle(shoe.from_hand())
    assert round_.community == [round_.stub[0]]


def test_677a_10_c_a_community_card_face_up_or_extra_holds_the_round():
    """677a.10(c): community cards are dealt face down; one dealt face up holds the round; a card
    dealt from the hand when none is due is set aside on a supervisor's CONTINUE."""
    round_, shoe = betting()
    round_.handle(NoMoreBets(READY))
    deliver_stacks(round_, shoe)
    round_.handle(shoe.remove_stub())
    round_.handle(CommunityDealt(shoe.shoe.turn_up(shoe.hand.pop(0))))
    assert irregularities(round_) == [("card-exposed", "677a.10(c); 677a.10(g)")]

    round_, shoe = start(DECK, {1: 500})
    round_.handle(shoe.from_hand())
    assert round_.state == HELD and irregularities(round_)[0][0] == "extra-cards"
    round_.handle(SupervisorResolve(SUPERVISOR, Resolution.CONTINUE))
    assert round_.state == PREFLOP and len(round_.set_aside) == 1


def test_677a_10_d_the_stub_is_counted_at_least_every_5_rounds():
    """677a.10(d): without a shuffler that counts the deck, the stub is counted face down at least
    once every 5 rounds: on the fifth round since the last count, an uncounted stub is refused."""
    for since, due in ((0, False), (3, False), (4, True)):
        round_, shoe = betting(rounds_since_stub_count=since)
        round_.handle(NoMoreBets(READY))
        deliver_stacks(round_, shoe)
        deal_community(round_, shoe)
        assert round_.stub_count_due is due
        if due:
            refused("677a.10(d)", round_, StubToRack())
            round_.handle(StubToRack(len(shoe)))
            assert round_.rounds_since_stub_count_after == 0
        else:
            round_.handle(StubToRack())
            assert round_.rounds_since_stub_count_after == since + 1


def test_677a_10_d_the_table_carries_the_rounds_since_the_stub_count_to_the_next_round():
    """677a.10(d): the table gives each round the rounds dealt since the stub was last counted, and
    takes a round into them only once it is complete: a round voided before its stub was counted
    is one round more, so the next round's count is due on the fifth."""
    shoe = StackedDeck(DECK)
    table = Table(RuleSet.example(), verify=shoe.verify)
    table.rounds_since_stub_count = 3
    round_ = table.new_round()
    assert (round_.number, round_.rounds_since_stub_count) == (1, 3)
    round_.handle(PlaceWager(1, 500, 500))
    round_.handle(NoMoreBets(READY))
    with pytest.raises(RuleViolation, match=r"677a\.10"):
        table.round_over(round_)
    round_.handle(StackDelivered(tuple(shoe.shoe.draw(face_up=False) for _ in range(3))))
    round_.handle(SupervisorResolve(SUPERVISOR, Resolution.VOID))
    round_.handle(Collect(len(round_.pickup_order())))
    table.round_over(round_)
    following = table.new_round()
    assert table.rounds_since_stub_count == 4 and following.number == 2
    assert following.rounds_since_stub_count == 4 and following.stub_count_due


def test_677a_10_d_a_counting_shuffler_stands_for_the_stub_count():
    """677a.10(d): with a shuffler that counted 52 cards the stub count is not required; a shuffler
    count other than 52 is refused (COMAR 36.05.03.27(C), analog: that deck is removed)."""
    round_, shoe = betting(rounds_since_stub_count=9)
    refused("677a.10(d)", round_, NoMoreBets(DeckReport(in_shoe=True, shuffler_count=51)))
    round_.handle(NoMoreBets(DeckReport(in_shoe=True, shuffler_count=52)))
    deliver_stacks(round_, shoe)
    deal_community(round_, shoe)
    assert not round_.stub_count_due
    round_.handle(StubToRack())
    assert round_.state == PREFLOP and round_.rounds_since_stub_count_after == 0


def test_677a_10_e_a_count_of_52_sends_the_stub_to_the_rack_unexposed():
    """677a.10(e): a stub count that makes 52 cards with the cards dealt: the stub to the rack."""
    round_, shoe = betting()
    round_.handle(NoMoreBets(READY))
    deliver_stacks(round_, shoe)
    deal_community(round_, shoe)
    assert len(shoe) + round_.cards_out == 52
    records = round_.handle(StubToRack(len(shoe)))
    stub = next(r for r in records if r.kind is RecordKind.STUB)
    assert stub.fields == {"counted": 52 - 11, "to_rack": True, "exposed": False, "clause": "677a.10(e)"}
    assert round_.state == PREFLOP


def test_677a_10_e_cards_racked_unseen_count_as_out_of_the_deck():
    """677a.10(e): a stack dispensed while the link was down left the shoe unrecorded and was
    racked unseen (docs/protocol.md §5.6): the count of 52 still holds with those cards out, and
    the trail says so without a face."""
    round_, shoe = betting(rounds_since_stub_count=4)  # the count is due this round
    round_.handle(NoMoreBets(READY))
    shoe.shoe.draw(face_up=False), shoe.shoe.draw(face_up=False)  # out, never seen by the host
    records = round_.handle(UnseenToRack(2))
    (aside,) = [r for r in records if r.kind is RecordKind.SET_ASIDE]
    assert aside.fields == {"cards": 2, "unseen": True, "clause": "677a.10(e); docs/protocol.md §5.6"}
    deliver_stacks(round_, shoe)
    deal_community(round_, shoe)
    assert round_.cards_out == 11 + 2
    round_.handle(StubToRack(len(shoe)))
    assert round_.state == PREFLOP and not irregularities(round_)
    with pytest.raises(ValueError, match=r"UnseenToRack\.cards"):
        UnseenToRack(0)
    refused("677a.10", round_, UnseenToRack(1))  # only while the shoe deals


def wrong_count() -> tuple[Round, StackedDeck]:
    round_, shoe = betting(rounds_since_stub_count=4)
    round_.handle(NoMoreBets(READY))
    deliver_stacks(round_, shoe)
    deal_community(round_, shoe)
    round_.handle(StubToRack(len(shoe) - 1))
    return round_, shoe


def test_677a_10_f_misdealt_with_52_cards_voids_and_returns_the_wagers():
    """677a.10(f): a wrong count; the dealer finds the cards misdealt but 52 in the deck: all hands
    void, all wagers returned, the deck stays."""
    round_, _ = wrong_count()
    assert round_.state == MISDEAL_CHECK and irregularities(round_) == [("wrong-count", "677a.10(f)")]
    refused("677a.10", round_, PlayerDecision(1, Choice.CHECK))
    round_.handle(MisdealFinding(misdealt=True, cards_in_deck=52))
    assert round_.state == VOIDED and not round_.deck_removed
    assert [(a.seat, a.wager.value, a.movement.value, a.amount) for a in round_.actions] == [
        (3, "ante", "push", 500),
        (3, "odds", "push", 500),
        (1, "ante", "push", 500),
        (1, "odds", "push", 500),
    ]
    assert {a.rule.clause for a in round_.actions} == {"677a.10(f)"}
    round_.handle(Collect(len(round_.pickup_order())))
    assert round_.state == COMPLETE


def test_677a_10_f_not_misdealt_voids_returns_and_removes_the_deck():
    """677a.10(f): a wrong count that is not a misdeal: all hands void, all wagers returned and the
    entire deck removed from the table."""
    round_, _ = wrong_count()
    records = round_.handle(MisdealFinding(misdealt=False, cards_in_deck=51))
    finding = next(r for r in records if r.kind is RecordKind.MISDEAL)
    assert finding.fields["deck_removed"] is True and round_.deck_removed
    assert round_.state == VOIDED and sum(round_.net(seat) for seat in (1, 3)) == 0


def test_677a_10_g_community_cards_first_from_an_auto_reshuffling_shoe():
    """677a.10(g): a shoe that reshuffles automatically may dispense the five community cards
    before the stacks; they stay face down until revealed; no stub leaves such a shoe. A shoe that
    does not reshuffle may not."""
    round_, _ = betting()
    refused("677a.10(g)", round_, NoMoreBets(DeckReport(in_shoe=True, community_first=True)))
    round_, shoe = betting(faces=arrange(["Ah Kh", "2c 7d"], "Qs Qd", "Jh Th 9s 3c 4d", community_first=True))
    round_.handle(NoMoreBets(COMMUNITY_FIRST))
    assert (round_.expected.place, round_.expected.count) == ("community", 5)
    deliver_stacks(round_, shoe)
    assert round_.state == PREFLOP and len(round_.community) == 5
    assert round_.log.of(RecordKind.STUB) == []
    round_.handle(PlayerDecision(1, Choice.CHECK))
    round_.handle(PlayerDecision(3, Choice.CHECK))
    shoe.reveal_community(round_)
    assert [r.fields["card"] for r in round_.log.of(RecordKind.REVEALED)] == ["Jh", "Th", "9s"]


def test_677a_10_g_needs_the_shoe_to_count_the_deck_it_keeps():
    """677a.10(g), (d): a shoe that keeps its stub must report its count, since no stub is counted."""
    round_, _ = betting()
    report = DeckReport(in_shoe=True, auto_reshuffle=True, community_first=True)
    refused("677a.10(d); 677a.10(g)", round_, NoMoreBets(report))


# -- published game rules (not PA text): the betting rounds -------------------------------------------
def test_play_3x_2x_1x_by_street_and_fold_only_after_the_river():
    """Published game rules: Play 3x before the flop, 2x after it, 1x after the river, or fold then."""
    round_, shoe = start(DECK, {1: 500, 2: 500, 3: 500})
    refused("published game rules", round_, PlayerDecision(1, Choice.PLAY, 2))
    refused("published game rules", round_, PlayerDecision(1, Choice.FOLD))
    refused("deal order", round_, PlayerDecision(2, Choice.CHECK))  # seat 1 first
    round_.handle(PlayerDecision(1, Choice.PLAY, 3))
    round_.handle(PlayerDecision(2, Choice.CHECK))
    round_.handle(PlayerDecision(3, Choice.CHECK))
    refused("published game rules", round_, PlayerDecision(1, Choice.PLAY, 3))  # one Play only
    shoe.reveal_community(round_)
    assert round_.to_act == 2
    refused("published game rules", round_, PlayerDecision(2, Choice.PLAY, 3))
    round_.handle(PlayerDecision(2, Choice.PLAY, 2))
    round_.handle(PlayerDecision(3, Choice.CHECK))
    shoe.reveal_community(round_)
    refused("published game rules", round_, PlayerDecision(3, Choice.CHECK))
    round_.handle(PlayerDecision(3, Choice.FOLD))
    plays = {seat: round_.positions[seat].stakes.play for seat in (1, 2, 3)}
    assert plays == {1: 1500, 2: 1000, 3: 0}


def test_community_cards_turn_up_only_after_the_decisions_and_must_match():
    """Published game rules: the flop is turned up after every pre-flop decision; a card shown that does not
    open its commitment holds the round."""
    round_, _shoe = start(DECK, {1: 500})
    refused("published game rules", round_, RevealCommunity(tuple(Card.parse(w) for w in ["Jh", "Th", "9s"])))
    round_.handle(PlayerDecision(1, Choice.CHECK))
    refused("published game rules", round_, RevealCommunity((Card.parse("Jh"),)))
    round_.handle(RevealCommunity(tuple(Card.parse(w) for w in ["Jh", "Th", "2s"])))
    assert round_.state == HELD and irregularities(round_) == [("reveal-mismatch", PUBLISHED_RULES)]


def test_a_card_turned_up_twice_from_the_one_deck_holds_the_round_rather_than_settling_it():
    """Published game rules: a round is dealt from one 52-card deck. A face turned up that the round has
    already turned up holds it (duplicate-card), VOID only, even when the shoe proves it: a shoe's
    host once kept a face past its reference's wrap and proved the dealer's 2h beside the flop's
    2h, and settling ranked a hand of seven cards with one twice (a ValueError from the evaluator,
    the round lost). A card twice within one reveal holds it too. The VOID removes the deck from
    the table (677a.10(f), as docs/conformance.md reads it)."""
    shoe = StackedDeck(DECK)
    round_ = Round(1, rules=RuleSet.example(), verify=lambda sealed, card: True)  # proves anything
    round_.handle(PlaceWager(1, 500, 500))
    round_.handle(NoMoreBets(READY))
    shoe.deliver(round_)
    round_.handle(StubToRack(None))
    round_.handle(PlayerDecision(1, Choice.CHECK))
    shoe.reveal_community(round_)  # the flop: Jh Th 9s
    round_.handle(PlayerDecision(1, Choice.CHECK))
    shoe.reveal_community(round_)  # the turn and river: 3c 4d
    round_.handle(PlayerDecision(1, Choice.PLAY, 1))
    round_.handle(RevealHand(None, (Card.parse("Qs"), Card.parse("Jh"))))
    assert round_.state == HELD and irregularities(round_) == [("duplicate-card", PUBLISHED_RULES)]
    assert round_.hold is not None and "Jh turned up twice in the round" in round_.hold.irregularity.detail
    assert not round_.dealer_faces
    refused("677a.10 (silent)", round_, SupervisorResolve(SUPERVISOR, Resolution.CONTINUE))
    round_.handle(SupervisorResolve(SUPERVISOR, Resolution.VOID))
    assert round_.state == VOIDED and round_.net(1) == 0
    assert round_.deck_removed, "677a.10(f): a deck that turns a card up twice leaves the table"

    within, _ = start(arrange(["Ah Kh"], "Qs Qd", "Jh Th 9s 3c 4d"), {1: 500})
    within.handle(PlayerDecision(1, Choice.CHECK))
    within.handle(RevealCommunity((Card.parse("Jh"), Card.parse("Jh"), Card.parse("9s"))))
    assert within.state == HELD and irregularities(within) == [("duplicate-card", PUBLISHED_RULES)]


def test_a_folded_hand_is_never_turned_up_and_its_face_is_never_recorded():
    """House convention; decision 0018: a folded hand is collected face down, listed by its
    commitments only."""
    round_, shoe = start(DECK, {1: 500, 2: 500})
    to_preflop_check_all(round_, shoe)  # both fold at the river
    refused("house convention", round_, RevealHand(1, (Card.parse("Ah"), Card.parse("Kh"))))
    round_.handle(Settle())  # nothing is left to turn up
    round_.handle(Collect(11))
    values = [str(v) for record in round_.records for v in record.fields.values()]
    assert not {"Ah", "Kh", "2c", "7d", "Qs", "Qd"} & set(values)
    assert [p.commitment is not None for p in round_.pickup[:4]] == [True] * 4
    assert round_.net(1) == round_.net(2) == -1000


def test_wagers_are_checked_when_placed():
    """Published game rules: the Ante and Odds Wagers are equal; side wagers need a configured pay table;
    a seat must be one of the table's positions."""
    round_, _ = betting(wagers=())
    refused("published game rules (not PA text)", round_, PlaceWager(1, 500, 400))
    refused("configuration (no pay table found)", round_, PlaceWager(1, 500, 500, trips_plus=100))
    refused("house convention", round_, PlaceWager(7, 500, 500))
    refused("677a.10(b)", round_, NoMoreBets(READY))  # no position holds wagers yet


def test_bad_messages_name_the_field_and_change_nothing():
    with pytest.raises(InputError, match=r"PlaceWager.ante"):
        PlaceWager(1, -5, 5)
    with pytest.raises(InputError, match=r"StackDelivered.cards"):
        StackDelivered(("As", "Kd"))
    with pytest.raises(InputError, match=r"PlayerDecision.multiple"):
        PlayerDecision(1, Choice.CHECK, 2)
    with pytest.raises(InputError, match=r"RevealHand.cards"):
        RevealHand(None, (Card.parse("As"),))
    with pytest.raises(InputError, match=r"DeckReport.in_shoe"):
        DeckReport(in_shoe="yes")


def test_configuration_errors_name_the_key():
    with pytest.raises(ConfigError, match=r"^odds_pay_table.flush:"):
        RuleSet.from_mapping({"odds_pay_table": {"flush": "three to two"}})
    with pytest.raises(ConfigError, match=r"^stub_count_interval:"):
        RuleSet.from_mapping({"stub_count_interval": 6})
    with pytest.raises(ConfigError, match=r"^losing_odds_pay_table:"):
        RuleSet.from_mapping({"losing_odds_pay_table": {"pair": "1:1"}})
    with pytest.raises(ConfigError, match=r"^colour:"):
        RuleSet.from_mapping({"colour": "red"})
    rules = RuleSet.from_mapping({"pocket_bonus_pay_table": {"aces": "30:1"}, "preflop_multiples": [3, 4]})
    assert rules.preflop_multiples == (3, 4)


def test_collect_count_wrong_holds_until_a_supervisor_acknowledges():
    """House convention: every card of the round reaches the discard rack; a short count holds the round."""
    round_, shoe = start(DECK, {1: 500})
    to_preflop_check_all(round_, shoe)
    round_.handle(Settle())
    round_.handle(Collect(10))
    assert round_.state == HELD and irregularities(round_) == [("collect-count", "house convention")]
    refused("677a.10 (silent)", round_, SupervisorResolve(SUPERVISOR, Resolution.VOID))
    round_.handle(SupervisorResolve(SUPERVISOR, Resolution.CONTINUE))
    assert round_.state == COMPLETE and len(round_.pickup) == 2 + 2 + 5


def test_every_clause_of_677a_10_has_enforcing_code_and_a_test_and_the_guide_is_complete():
    """Each lettered clause of 677a.10, (a) to (g), is cited by a Rule the code uses (or through its
    sub-clauses) and by a test; the user guide names every configuration key and irregularity."""
    page = conformance.render_game("heads-up-holdem")
    sections = {s.split(" — ")[0]: s for s in page.split("\n### ")[1:] if " — " in s.split("\n")[0]}
    assert set(sections) == set(CLAUSES)
    assert "used by no code" not in page
    assert not [clause for clause, text in sections.items() if "tests: **none**" in text]
    guide = (conformance.ROOT / "docs" / "games" / "heads-up-holdem.md").read_text()
    missing = [f"`{spec.name}`" for spec in fields(RuleSet) if f"`{spec.name}`" not in guide]
    missing += [f"`{kind.code}`" for kind in KINDS if f"`{kind.code}`" not in guide]
    assert not missing
