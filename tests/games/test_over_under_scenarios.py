"""Whole rounds of Over/Under from stacked shoes, one per path the procedure can take."""

from __future__ import annotations

import pytest

from games.free_bet_blackjack.records import RecordKind
from games.over_under import ConfigError, RuleSet
from games.over_under.inputs import (
    COVER_CARD,
    CardArrives,
    ChangeDealer,
    Choice,
    Choose,
    ClearHand,
    ConfirmBurn,
    InputError,
    PlaceWager,
    Resolution,
    StartDeal,
    SupervisorResolve,
)
from games.over_under.machine import COMPLETE, DECIDING, DRAWING, HELD, VOIDED, definition, shared_machine
from tests.games import DEALER, SUPERVISOR, refused
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
    play_all,
)
from vocabulary.cards import Card
from vocabulary.rules import RuleViolation


def test_a_full_table_over_under_and_surrender_with_bonuses():
    """686a.7(e)-(n): three players elect, then each is dealt and settled in turn; the record and the
    money add up."""
    shoe = "Kc 2d 5h  9h 5s  3c 4c  Kd Qd"
    round_, stacked = dealt(shoe, wagers={1: (1000, 100), 2: 500, 6: (2000, 50)})
    assert round_.accepts == ("card_arrives", "change_dealer", "choose", "confirm_burn")
    play_all(round_, stacked, {1: OVER, 2: UNDER, 6: SURRENDER})  # K 9 5 = 24, 2 3 4 = 9, 5 K Q = 25
    finish(round_)
    assert movements(round_) == [
        (6, "ante", "collect", 2000),  # (g)(3): at the election, before any additional card
        (1, "ante", "pay", 1000),
        (1, "over_23", "pay", 1000),
        (1, "bonus", "collect", 100),
        (2, "ante", "pay", 500),
        (2, "under_18", "pay", 500),
        (6, "bonus", "collect", 50),
    ]
    assert {seat: round_.net(seat) for seat in (1, 2, 6)} == {1: 1900, 2: 1000, 6: -2050}
    assert round_.state == COMPLETE and round_ not in shared_machine().models


def test_wagers_replaced_before_the_deal_and_refused_after():
    """686a.7(e): wagers are placed before the deal; placing again replaces them."""
    round_, _ = new_round("Kc", wagers={1: 1000})
    round_.handle(PlaceWager(1, 2000, 100))
    assert (round_.positions[1].ante, round_.positions[1].bonus) == (2000, 100)
    round_.handle(StartDeal(READY))
    refused("686a.7", round_, PlaceWager(2, 1000))


def test_bonus_refused_without_a_posted_table_and_seats_outside_the_layout():
    """686a.1: a Bonus Wager needs a posted table; positions come from the layout."""
    round_, _ = new_round("Kc", wagers={}, rules=RuleSet.example())
    refused("686a.1", round_, PlaceWager(1, 1000, 100))
    refused("house layout", round_, PlaceWager(7, 1000))
    round_.handle(PlaceWager(1, 1000))


def test_a_new_dealer_between_rounds_burns_before_the_deal():
    """686a.7(c): a new dealer before the deal burns a card first; the shoe's word clears it."""
    round_, _ = new_round("Kc")
    round_.handle(ChangeDealer("D-2"))
    refused("686a.7(c)", round_, StartDeal(READY))
    round_.handle(ConfirmBurn(READY))
    round_.handle(StartDeal(READY))
    assert round_.log.of(RecordKind.DEAL_STARTED)[0].fields["dealer"] == "D-2"


def test_an_extra_card_after_settlement_is_set_aside_on_continue():
    """686a.7(j): a card dealt while the settled player's cards wait for the rack holds the round;
    CONTINUE sets it aside and it reaches the rack last."""
    round_, shoe = dealt("Kc 9h 5s 7d")
    round_.handle(Choose(1, OVER))
    shoe.deal_all_due(round_)
    round_.handle(CardArrives(shoe.draw(face_up=True)))
    assert round_.state == HELD and irregularities(round_) == [("extra-card", "686a.7(j)")]
    refused("decision 0017", round_, SupervisorResolve(DEALER, Resolution.CONTINUE))
    round_.handle(SupervisorResolve(SUPERVISOR, Resolution.CONTINUE))
    round_.handle(ClearHand(1))
    finish(round_)
    assert [p.card for p in round_.pickup] == ["Kc", "9h", "5s", "7d"] and round_.net(1) == 2000


def test_a_joker_and_a_misplaced_cover_card_hold_the_round():
    """603a.15: no jokers; 686a.7(d): the cover card only comes out when a card is due."""
    round_, _ = dealt("Kc")
    round_.handle(CardArrives(COVER_CARD))
    assert irregularities(round_) == [("cover-card-out-of-place", "686a.7(d)")]
    round_.handle(SupervisorResolve(SUPERVISOR, Resolution.CONTINUE))
    assert round_.state == DECIDING and round_.reshuffle_required
    round_.handle(Choose(1, UNDER))
    round_.handle(CardArrives(Card.parse("Xr")))
    assert irregularities(round_)[-1] == ("joker", "603a.15")


def test_void_returns_every_unsettled_wager_and_keeps_settled_ones():
    """686a.7 (silent), decision 0008: VOID returns the wagers not settled; a settled player and a
    surrendered Ante stay as they were; every card on the layout goes to the rack."""
    round_, shoe = dealt("Kc 2d 5h 9h 5s", wagers={1: 1000, 2: (500, 100), 3: 700})
    elect(round_, {1: OVER, 2: SURRENDER, 3: UNDER})
    draw(round_, shoe, 1)
    round_.handle(CardArrives(Card.parse("Xb")))
    round_.handle(SupervisorResolve(SUPERVISOR, Resolution.VOID))
    assert round_.state == VOIDED
    assert movements(round_)[3:] == [
        (2, "bonus", "push", 100),
        (3, "ante", "push", 700),
        (3, "under_18", "push", 700),
    ]
    assert {seat: round_.net(seat) for seat in (1, 2, 3)} == {1: 2000, 2: -500, 3: 0}
    finish(round_)
    assert [p.place for p in round_.pickup] == ["seat 1"] * 3 + ["seat 2", "seat 3", "set aside"]


def test_void_while_the_players_elect_returns_every_wager_but_a_surrendered_ante():
    """686a.7(f): a card dealt before every player has elected holds the round; a supervisor's VOID
    (the section is silent) returns the Ante and Over 23 Wagers of those who elected and the Ante of
    those who had not; a surrendered Ante was collected at the election (686a.7(g)(3)) and stays
    collected."""
    round_, _ = dealt("Kc 2d 5h", wagers={1: 1000, 2: (500, 100), 3: 700})
    elect(round_, {1: OVER, 2: SURRENDER})
    round_.handle(CardArrives(Card.parse("9h")))  # while seat 3 has yet to elect
    assert irregularities(round_) == [("extra-card", "686a.7(f)")]
    round_.handle(SupervisorResolve(SUPERVISOR, Resolution.VOID))
    assert movements(round_) == [
        (2, "ante", "collect", 500),
        (1, "ante", "push", 1000),
        (1, "over_23", "push", 1000),
        (2, "bonus", "push", 100),
        (3, "ante", "push", 700),
    ]
    finish(round_)
    assert round_.state == COMPLETE and [p.place for p in round_.pickup] == [
        "seat 1",
        "seat 2",
        "seat 3",
        "set aside",
    ]


def test_a_held_round_takes_no_election_and_refuses_void_once_settled():
    """Decision 0008: nothing moves while held; ClearHand and Choose are refused with the procedure."""
    round_, shoe = dealt("Kc 9h 5s")
    round_.handle(Choose(1, OVER))
    round_.handle(CardArrives(shoe.draw(face_up=False)))
    assert round_.state == HELD
    refused("686a.7", round_, ClearHand(1))
    round_.handle(CardArrives(shoe.draw(face_up=True)))  # another card while held: set aside too
    round_.handle(SupervisorResolve(SUPERVISOR, Resolution.CONTINUE))
    assert round_.state == DRAWING and len(round_.set_aside) == 2


@pytest.mark.parametrize(
    ("mapping", "key"),
    [
        ({"decks": 5}, "decks"),
        ({"positions": 0}, "positions"),
        ({"ante_odds": "even"}, "ante_odds"),
        ({"bonus_pay_table": {"13": "2:1"}}, "bonus_pay_table"),
        ({"bonus_pay_table": {"6": "lots"}}, "bonus_pay_table.6"),
        ({"odd_cent_rounding": "sideways"}, "odd_cent_rounding"),
        ({"surrender": True}, "surrender"),
    ],
)
def test_bad_configuration_names_the_key(mapping, key):
    with pytest.raises(ConfigError) as caught:
        RuleSet.from_mapping(mapping)
    assert caught.value.key == key


def test_a_bonus_table_must_pay_exactly_the_winning_totals():
    """686a.7(m): the posted table is keyed by the totals (m) names as winning."""
    with pytest.raises(ConfigError, match=r"\[6\] have no odds"):
        RuleSet(bonus_pay_table={t: "1:1" for t in [*range(7, 13), *range(27, 34)]})
    rules = RuleSet.from_mapping(
        {"bonus_pay_table": {str(t): "5:1" for t in [*range(6, 13), *range(27, 34)]}}
    )
    assert rules.bonus_pay_table[6].win == 5


@pytest.mark.parametrize(
    "make",
    [
        lambda: PlaceWager(1, -5),
        lambda: PlaceWager(True, 100),
        lambda: Choose(1, "over"),
        lambda: Choose(1, Choice.SURRENDER, amount=100),
        lambda: ClearHand(0),
        lambda: CardArrives("Kc"),
    ],
)
def test_malformed_messages_fail_naming_the_field(make):
    with pytest.raises(InputError):
        make()


def test_refusals_change_nothing_and_every_trigger_is_in_the_definition():
    round_, _ = dealt("Kc")
    with pytest.raises(RuleViolation):
        round_.handle(ClearHand(1))
    assert round_.state == DECIDING
    triggers = {t["trigger"] for t in definition()["transitions"]}
    assert not triggers & set(dir(type(round_))), "a model method named like a trigger silently wins"
