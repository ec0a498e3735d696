"""Whole rounds of Free Bet Blackjack from stacked shoes, one per path through the procedure."""

from __future__ import annotations

import pytest
import structlog

from games.free_bet_blackjack import ConfigError, Round, RuleSet
from games.free_bet_blackjack.inputs import (
    COVER_CARD,
    CardArrives,
    ChangeDealer,
    CloseInsurance,
    ConfirmBurn,
    Decision,
    EvenMoney,
    InputError,
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
    DEALER_BLACKJACK,
    DEALER_TURN,
    HELD,
    INSURANCE,
    PLAYER_TURNS,
    VOIDED,
    definition,
    shared_machine,
)
from games.free_bet_blackjack.records import RecordKind
from tests.games import (
    DEALER,
    SUPERVISOR,
    dealt,
    decide,
    faces,
    finish,
    movements,
    new_round,
    peek,
    reveal,
    stacked,
    started,
)
from vocabulary.rules import RuleViolation

STAND, HIT, DOUBLE, SPLIT = PlayerAction.STAND, PlayerAction.HIT, PlayerAction.DOUBLE_DOWN, PlayerAction.SPLIT
READY = ShoeStatus.ready()


def nets(round_: Round) -> dict[int, int]:
    return {seat: round_.net(seat) for seat in sorted(round_.positions)}


def test_ace_up_dealer_blackjack_with_even_money_blackjack_and_insurance():
    """672a.7(f), (g)(1), (g)(2): even money is paid at once; after the reader's yes no card is dealt;
    a Blackjack pushes, insurance pays 2 to 1, the rest and every Push 22 Wager are collected."""
    hands = ["As Kd", "Ac Qc", "9c 9d", "Tc 6d"]
    round_, shoe = dealt(hands, "Ah Kh", wagers={1: 1000, 2: (1000, 500), 3: 1000, 4: (1000, 200)})
    assert round_.state == INSURANCE
    round_.handle(EvenMoney(1))
    round_.handle(Insure(3, 500))
    round_.handle(CloseInsurance())
    peek(round_, shoe)
    assert round_.state == DEALER_BLACKJACK and round_.expected is None
    reveal(round_, shoe)
    round_.handle(Settle())
    assert movements(round_) == [
        (1, "blackjack", "pay", 1000),  # even money, at once
        (4, "blackjack", "collect", 1000),
        (4, "push22", "collect", 200),
        (3, "blackjack", "collect", 1000),
        (2, "push22", "collect", 500),
        (3, "insurance", "pay", 1000),
        (2, "blackjack", "push", 1000),
    ]
    assert nets(round_) == {1: 1000, 2: -500, 3: 0, 4: -1200}


def test_ace_up_no_dealer_blackjack_insurance_lost_blackjacks_paid():
    """672a.7(f)-(h)(1): the reader says no; Blackjacks are paid 3 to 2 only then, insurance loses."""
    round_, shoe = dealt(["As Kd", "Ac Qc", "9c 9d"], "Ah 6h")
    round_.handle(EvenMoney(1))
    round_.handle(Insure(3, 500))
    round_.handle(CloseInsurance())
    assert [a.seat for a in round_.actions] == [1]  # seat 2 waits for the peek
    peek(round_, shoe)
    assert movements(round_)[1] == (2, "blackjack", "pay", 1500)
    decide(round_, shoe, 3, STAND)
    finish(round_, shoe)
    assert str(round_.dealer_total) == "soft 17"
    assert nets(round_) == {1: 1000, 2: 1500, 3: 1000 - 500}


def test_ten_up_dealer_blackjack_pushes_a_blackjack():
    """672a.7(g)(1): no insurance on a ten; a player Blackjack against the dealer's pushes."""
    round_, shoe = dealt(["As Kd", "9c 8d"], "Kh Ad")
    assert round_.state not in (INSURANCE, PLAYER_TURNS)
    peek(round_, shoe)
    finish(round_, shoe)
    assert nets(round_) == {1: 0, 2: -1000}


SPLITS = stacked(["8c 8d"], "9h 7h", "8h 8s 8h 2c Kc 3c 9d Td 7c")


def test_splits_and_resplits_to_four_hands_with_a_free_double_after_a_split():
    """Published game rules: free splits of any pair but ten-value cards, resplit to four hands; free doubles
    after free splits. Each split hand is staked with a Free Bet lammer."""
    round_, shoe = started(SPLITS)
    decide(round_, shoe, 1, SPLIT, SPLIT, SPLIT)  # 8c|8d, 8c|8h, 8c|8s: four hands
    with pytest.raises(RuleViolation, match="already plays 4 hands"):
        round_.handle(Decision(1, SPLIT))  # 8c 8h again
    decide(round_, shoe, 1, STAND)  # hand 0: 8c 8h
    assert round_.legal_decisions()[DOUBLE] == "free"  # hand 3: 8s 2c, hard 10 after a split
    decide(round_, shoe, 1, DOUBLE)  # + Kc: 20
    decide(round_, shoe, 1, HIT, STAND)  # hand 2: 8h 3c + 9d: 20
    decide(round_, shoe, 1, STAND)  # hand 1: 8d Td: 18
    finish(round_, shoe)  # dealer 9h 7h + 7c: 23
    hands = round_.positions[1].hands
    assert [h.number for h in hands] == [0, 3, 2, 1]
    assert [(h.wager, h.lammers) for h in hands] == [(1000, []), (0, [1000, 1000]), (0, [1000]), (0, [1000])]
    assert round_.net(1) == 5000
    assert len(round_.pickup) == len(shoe.dealt) == 13


def test_resplitting_aces_follows_the_rule_set():
    """Published game rules: resplits include aces by default; a table may turn that off."""
    stack = stacked(["As Ad"], "9h 7h", "Ac 5c 5d 5h")
    round_, shoe = started(stack)
    decide(round_, shoe, 1, SPLIT, SPLIT)
    assert len(round_.positions[1].hands) == 3

    strict, shoe = started(stack, rules=RuleSet.example(resplit_aces=False))
    decide(strict, shoe, 1, SPLIT)
    with pytest.raises(RuleViolation, match="does not resplit aces"):
        strict.handle(Decision(1, SPLIT))


def test_ten_value_pairs_and_soft_doubles_only_when_paid_ones_are_configured():
    """Published game rules: ten-value pairs never split free and soft totals never double free; a table that
    offers paid splits and doubles stakes them with the player's money."""
    stack = stacked(["Kc Kd", "As 6d"], "9h 7h", "9c 9s 4c Ts")
    round_, _ = dealt(["Kc Kd", "As 6d"], "9h 7h")
    assert SPLIT not in round_.legal_decisions()

    paid_rules = RuleSet.example(paid_splits=True, paid_doubles=True)
    paid, shoe = started(stack, wagers={1: 1000, 2: 1000}, rules=paid_rules)
    decide(paid, shoe, 1, SPLIT, STAND, STAND)  # Kc 9c, Kd 9s
    decide(paid, shoe, 2, DOUBLE)  # soft 17 + 4c
    finish(paid, shoe)  # dealer 16 + Ts: 26
    assert [(h.wager, h.lammers) for h in paid.positions[1].hands] == [(1000, []), (1000, [])]
    assert paid.positions[2].hands[0].wager == 2000
    assert nets(paid) == {1: 2000, 2: 2000}


def test_no_double_after_split_when_the_table_says_so():
    """Published game rules: free doubles after splits are the default; a rule set can refuse them."""
    stack = stacked(["5c 5d"], "9h 7h", "6c")
    round_, shoe = started(stack, rules=RuleSet.example(double_after_split=False))
    decide(round_, shoe, 1, SPLIT)
    with pytest.raises(RuleViolation, match="split hand"):
        round_.handle(Decision(1, DOUBLE))


def test_dealer_22_pushes_everything_but_a_blackjack_and_pays_push_22():
    """672a.7(n)(1), (h)(1): dealer 22 returns the Blackjack Wagers, collects the lammers, pays every
    Push 22 Wager; a player Blackjack was paid 3 to 2 and its Push 22 Wager waits under its cards."""
    wagers = {1: (1000, 500), 2: (1000, 500), 3: 1000}
    round_, shoe = dealt(["Tc 7d", "As Kd", "5c 5d"], "2c Th", "9s Kh", wagers=wagers)
    decide(round_, shoe, 1, STAND)
    decide(round_, shoe, 3, DOUBLE)
    finish(round_, shoe)
    assert round_.dealer_total.value == 22
    assert nets(round_) == {1: 5500, 2: 1500 + 5500, 3: 0}
    assert (3, "lammer", "collect", 1000) in movements(round_)


def test_cover_card_during_the_dealers_draw_then_reshuffle():
    """672a.7(d): the cover card out in the middle of the dealer's draw is set aside, the round is
    completed, and the next round is not dealt until the shoe is collected and reshuffled."""
    round_, shoe = dealt(["Tc 8d"], "6h Tc", "COVER 5c")
    decide(round_, shoe, 1, STAND)
    finish(round_, shoe)
    assert round_.state == COMPLETE and round_.reshuffle_required
    assert str(round_.dealer_total) == "21" and round_.net(1) == -1000
    assert "COVER" not in str([p.card for p in round_.pickup])

    following, _ = new_round(stacked(["9c 9d"], "7h 8h"), number=2)
    with pytest.raises(RuleViolation, match=r"672a\.7\(d\)\(2\)"):
        following.handle(StartDeal(ShoeStatus(loaded=True, burn_due=False, reshuffle_due=True)))
    following.handle(StartDeal(READY))
    assert following.state != BETTING


def test_dealer_change_before_and_during_a_round():
    """672a.7(c): a dealer who comes to the table burns a card before dealing any; the round records
    who dealt."""
    round_, shoe = new_round(stacked(["Tc 7d"], "9h 8h", "4s"))
    round_.handle(ChangeDealer("D-2"))
    with pytest.raises(RuleViolation, match="burn"):
        round_.handle(StartDeal(READY))
    round_.handle(ConfirmBurn(READY))
    round_.handle(StartDeal(READY))
    shoe.deal_all_due(round_)
    round_.handle(ChangeDealer("D-3"))
    round_.handle(Decision(1, HIT))
    assert round_.expected is not None
    round_.handle(ConfirmBurn(READY))
    shoe.deal_all_due(round_)  # 4s: 21, the hand is finished
    finish(round_, shoe)
    assert round_.state == COMPLETE and round_.net(1) == 1000
    changes = [r.fields["dealer"] for r in round_.records if r.kind is RecordKind.DEALER_CHANGE]
    assert changes == ["D-2", "D-3"]


def rebuild(records) -> tuple[dict[tuple[int, int], list[str]], list[str]]:
    """Each hand and the dealer's cards, from the records alone."""
    hands: dict[tuple[int, int], list[str]] = {}
    dealer: list[str] = []
    for record in records:
        f = record.fields
        if record.kind is RecordKind.CARD and f["seat"] is None:
            dealer.append(f["card"] or f["commitment"])
        elif record.kind is RecordKind.CARD:
            hands.setdefault((f["seat"], f["hand"]), []).append(f["card"])
        elif record.kind is RecordKind.DECISION and f["action"] == "split":
            assert hands[(f["seat"], f["hand"])].pop() == f["moved"]
            hands[(f["seat"], f["new_hand"])] = [f["moved"]]
        elif record.kind is RecordKind.HOLE_REVEALED:
            dealer[dealer.index(f["commitment"])] = f["card"]
    return hands, dealer


def test_a_round_is_reconstructed_from_its_records_alone():
    """672a.7(s): every card, split and the hole card's reveal is in the record, with the round number."""
    round_, shoe = started(SPLITS, number=41)
    decide(round_, shoe, 1, SPLIT, SPLIT, SPLIT, STAND, DOUBLE, HIT, STAND, STAND)
    finish(round_, shoe)
    records = round_.records
    assert {r.round for r in records} == {41}
    hands, dealer = rebuild(records)
    assert hands == {(1, h.number): [str(c) for c in h.cards] for h in round_.positions[1].hands}
    assert dealer == [str(c) for c in round_.dealer_cards] == ["9h", "7h", "7c"]
    pickups = [(r.fields["place"], r.fields["card"]) for r in records if r.kind is RecordKind.PICKUP]
    assert pickups == [(p.place, p.card) for p in round_.pickup]


def test_the_hole_card_stays_secret_until_it_is_turned_up():
    """672a.7(g), (k): before the hole card is turned up its face is in no record, log line,
    refusal or repr; the record holds its commitment."""
    with structlog.testing.capture_logs() as logs:
        round_, shoe = dealt(["9c 7d", "Tc 6s"], "Kh Qd", "5s")
        texts = [repr(round_), repr(round_.hole), repr(CardArrives(round_.hole))]
        peek(round_, shoe)
        for refusal in (Decision(2, STAND), RevealHole(faces("2c")[0]), Insure(1, 100)):
            with pytest.raises(RuleViolation) as caught:
                round_.handle(refusal)
            texts.append(str(caught.value))
        decide(round_, shoe, 1, HIT)
        decide(round_, shoe, 2, STAND)
        texts += [repr(round_), repr(vars(round_))]
        before_k = [str(r.as_dict()) for r in round_.records] + [str(line) for line in logs]
    assert round_.hole_face is None and round_.hole.commitment.hex() in " ".join(before_k)
    assert not [text for text in texts + before_k if "Qd" in text]
    reveal(round_, shoe)
    assert round_.log.of(RecordKind.HOLE_REVEALED)[0].fields["card"] == "Qd"


def test_reader_missed_a_blackjack_held_then_settled_by_n_to_q():
    """672a.7(g): the reader said no Blackjack but the hole card gives one: the round is held; on
    CONTINUE the players have acted, so the hands settle against the dealer's 21."""
    round_, shoe = dealt(["Tc 9d", "Tc Ad"], "Kh As")
    round_.handle(PeekAnswer(False))  # a faulty reader
    decide(round_, shoe, 1, STAND)
    reveal(round_, shoe)
    assert round_.state == HELD and round_.hold.kind.code == "peek-missed-blackjack"
    with pytest.raises(RuleViolation, match="may not resolve"):
        round_.handle(SupervisorResolve(DEALER, Resolution.CONTINUE))
    round_.handle(SupervisorResolve(SUPERVISOR, Resolution.CONTINUE))
    assert round_.state == DEALER_TURN and round_.expected is None
    round_.handle(Settle())
    assert nets(round_) == {1: -1000, 2: 1500}


def test_reader_said_blackjack_wrongly_only_void_resolves():
    """672a.7(g): the reader said Blackjack but the hole card does not give one: the players never
    acted, so only VOID is offered, and it returns the wagers."""
    round_, shoe = dealt(["Tc 9d"], "Kh 7s", wagers={1: (1000, 300)})
    round_.handle(PeekAnswer(True))
    reveal(round_, shoe)
    assert round_.hold.resolutions == {Resolution.VOID}
    with pytest.raises(RuleViolation, match="not offered"):
        round_.handle(SupervisorResolve(SUPERVISOR, Resolution.CONTINUE))
    round_.handle(SupervisorResolve(SUPERVISOR, Resolution.VOID))
    assert round_.state == VOIDED and nets(round_) == {1: 0}
    finish(round_, shoe)
    assert [p.card for p in round_.pickup] == ["Tc", "9d", "Kh", "7s"]


def test_void_after_a_blackjack_was_paid_returns_only_what_is_unsettled():
    """A voided round returns every wager not settled yet; a Blackjack paid at (h)(1) stays paid."""
    round_, shoe = dealt(["As Kd", "9c 5d"], "9h 7h", "Kc")
    round_.handle(Decision(2, HIT))
    round_.handle(CardArrives(shoe.draw(face_up=False)))  # the hit's card dealt face down
    assert round_.state == HELD
    round_.handle(SupervisorResolve(SUPERVISOR, Resolution.VOID))
    assert nets(round_) == {1: 1500, 2: 0}
    assert round_.set_aside[0].commitment is not None and round_.set_aside[0].card is None


def test_a_card_after_settlement_is_set_aside_and_cannot_undo_the_settlement():
    """672a.7(s): a card dealt once the wagers are settled holds the round; VOID would return wagers
    already settled, so only CONTINUE is offered, and the card goes to the rack with the others."""
    round_, shoe = dealt(["Tc 9d"], "9h 8h", "4c")
    decide(round_, shoe, 1, STAND)
    reveal(round_, shoe)
    round_.handle(Settle())
    round_.handle(CardArrives(shoe.draw(face_up=True)))
    assert round_.state == HELD and round_.hold.resolutions == {Resolution.CONTINUE}
    round_.handle(SupervisorResolve(SUPERVISOR, Resolution.CONTINUE))
    finish(round_, shoe)
    assert round_.state == COMPLETE and nets(round_) == {1: 1000}
    assert [(p.place, p.card) for p in round_.pickup][-1] == ("set aside", "4c")


def test_odd_cents_round_as_configured():
    """House convention: 3 to 2 on an odd number of cents pays the half cent down, or up if set."""
    for rounding, paid in (("down", 1501), ("up", 1502)):
        rules = RuleSet.example(odd_cent_rounding=rounding)
        round_, _ = dealt(["As Kd"], "9h 7h", wagers={1: 1001}, rules=rules)
        assert round_.net(1) == paid


def test_bad_input_names_what_was_wrong_and_changes_nothing():
    """Bad messages fail with the field they got wrong; refused ones name their clause; a rule set
    names the key it refuses."""
    with pytest.raises(InputError, match=r"PlaceWager\.blackjack"):
        PlaceWager(1, 10.5)
    with pytest.raises(InputError, match=r"CardArrives\.item"):
        CardArrives("As")
    round_, _ = new_round(stacked(["9c 9d"], "7h 8h"))
    with pytest.raises(RuleViolation, match="seat 7 is not a betting position"):
        round_.handle(PlaceWager(7, 1000))
    with pytest.raises(RuleViolation, match="hit is not accepted while round 1 is betting"):
        round_.handle(Decision(1, HIT))
    assert round_.state == BETTING and len(round_.records) == 1
    with pytest.raises(ConfigError, match="decks") as caught:
        RuleSet.from_mapping({"decks": 7})
    assert caught.value.key == "decks"
    with pytest.raises(ConfigError, match=r"push22_pay_table\.other"):
        RuleSet.from_mapping({"push22_pay_table": {"suited": "50:1", "same_colour": "20:1", "other": "8"}})


def test_rounds_share_one_machine_without_joining_it():
    """Decisions 0008 and 0019: one machine per rule set, no model method named like a trigger;
    decision 0042: a round fires the machine's events without joining it, so the machine holds no
    round, in play or complete, and two rounds in play keep their own states."""
    first, first_shoe = dealt(["Tc 9d"], "9h 8h")
    second, _ = dealt(["Tc 9d"], "9h 8h")
    decide(first, first_shoe, 1, STAND)
    assert (first.state, second.state) == (PLAYER_TURNS, PLAYER_TURNS)
    assert first.current_hand is None and second.current_hand is not None
    finish(first, first_shoe)
    assert first.state == COMPLETE and second.state == PLAYER_TURNS
    assert shared_machine().models == []
    triggers = {t["trigger"] for t in definition()["transitions"]}
    assert not triggers & set(vars(Round))
    with pytest.raises(RuleViolation, match="nothing more"):
        first.handle(CardArrives(COVER_CARD))
