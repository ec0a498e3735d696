"""Crazy 4 Poker settles every wager it offers, each on a known hand: the dealer-report path holds
the settlement for an unreported live hand (657a.1 Hand; decision 0023), and the Five Card
Hand Bonus, Six Card Bonus (657a.9(b)) and Envy Bonus (657a.1) are paid by the configured tables,
with exact amounts and the records an auditor recomputes them from."""

from __future__ import annotations

import pytest

from games.common.config import ConfigError
from games.crazy_4_poker import RuleSet, Table
from games.crazy_4_poker.inputs import (
    DEALER,
    SIX_CARD,
    ChipCount,
    ChooseHand,
    DeckHand,
    Fold,
    NoMoreBets,
    PlaceWagers,
    Play,
    ProgressiveLocked,
    ReportHand,
    Resolution,
    RevealOrder,
    Settle,
    StubToRack,
    SupervisorResolve,
)
from games.crazy_4_poker.machine import HELD, LOCKING, SETTLED, SHOWDOWN, VOIDED
from games.crazy_4_poker.records import RecordKind
from games.crazy_4_poker.stacked import StackedShuffler, stack
from vocabulary.cards import Card
from vocabulary.operators import Operator, Role

SUPERVISOR = Operator("S-1", Role.SUPERVISOR)


def cards(text: str) -> tuple[Card, ...]:
    return tuple(Card.parse(word) for word in text.split())


def dealt_round(
    rules: RuleSet, hands: dict[int, str], dealer: str, wagers: list[PlaceWagers], *, six=None, sealed=True
):
    shuffler = StackedShuffler(stack(hands, dealer, six=six), sealed=sealed)
    table = Table(rules, shuffler.verify)
    table.open()
    round_ = table.new_round()
    for wager in wagers:
        round_.handle(wager)
    round_.handle(shuffler.report())
    round_.handle(ChooseHand(DeckHand.LEFT))
    round_.handle(NoMoreBets())
    if round_.state == LOCKING:  # the system locks the Progressive and Five Card Hand Bonus Wagers
        placed = tuple(wager.seat for wager in wagers if wager.progressive)
        round_.handle(ProgressiveLocked(placed))
        if placed:
            round_.handle(ChipCount(len(placed)))
    shuffler.deal(round_)
    round_.handle(StubToRack())
    return round_, shuffler


def settlements(round_) -> list[dict]:
    return [record.fields for record in round_.log.of(RecordKind.SETTLEMENT)]


def test_657a_1_an_unreported_live_hand_holds_the_round_pair_of_kings() -> None:
    """657a.1 (Hand); decision 0023: on the dealer-report path a live hand the dealer did not
    report is not settled as a loser: a pair of kings played 1x against the dealer's pair of fives
    holds the round, nothing settled; once reported (CONTINUE) it wins Ante and Play, its Super
    Bonus pushing."""
    round_, _ = dealt_round(
        RuleSet.example(), {1: "Kc Kd 9h 6s 2c"}, "5h 5d Jc 8s 3d", [PlaceWagers(1, 1000, 1000)], sealed=False
    )
    round_.handle(Play(1))
    round_.handle(ReportHand(DEALER, cards("5h 5d Jc 8s 3d")))
    round_.handle(Settle())
    assert round_.state == HELD and not round_.log.of(RecordKind.SETTLEMENT)
    held = round_.log.of(RecordKind.IRREGULARITY)[-1].fields
    assert held["code"] == "hand-not-reported" and held["clause"].startswith("657a.1 (Hand)")
    assert held["detail"].startswith("seat 1: not reported")
    round_.handle(SupervisorResolve(SUPERVISOR, Resolution.CONTINUE))
    assert round_.state == SHOWDOWN
    round_.handle(ReportHand(1, cards("Kc Kd 9h 6s 2c")))
    round_.handle(Settle())
    assert round_.state == SETTLED
    moves = {(f["wager"], f["movement"], f["amount"]) for f in settlements(round_)}
    assert moves == {("ante", "pay", 1000), ("play", "pay", 1000), ("super_bonus", "push", 1000)}
    assert round_.net(1) == 2000


def test_657a_1_a_held_unreported_hand_may_be_voided() -> None:
    """657a.1 (Hand): a supervisor may void a round whose hand cannot be reported: every wager returned."""
    round_, _ = dealt_round(
        RuleSet.example(), {1: "Kc Kd 9h 6s 2c"}, "5h 5d Jc 8s 3d", [PlaceWagers(1, 1000, 1000)], sealed=False
    )
    round_.handle(Play(1))
    round_.handle(ReportHand(DEALER, cards("5h 5d Jc 8s 3d")))
    round_.handle(Settle())
    round_.handle(SupervisorResolve(SUPERVISOR, Resolution.VOID))
    assert round_.state == VOIDED and round_.net(1) == 0


def test_657a_1_a_folded_hand_with_queens_up_must_be_reported_too() -> None:
    """657a.1 (Hand): a fold forfeits Ante and Super Bonus only; the Queens Up Wager is settled on the
    hand, so the folded hand is reported before anything is settled."""
    round_, _ = dealt_round(
        RuleSet.example(),
        {1: "Qs Qh 7c 4d 2s"},
        "5h 5d Jc 8s 3d",
        [PlaceWagers(1, 1000, 1000, queens_up=500)],
        sealed=False,
    )
    round_.handle(Fold(1))
    round_.handle(ReportHand(DEALER, cards("5h 5d Jc 8s 3d")))
    round_.handle(Settle())
    assert round_.state == HELD and "seat 1: not reported" in round_.hold.irregularity.detail
    round_.handle(SupervisorResolve(SUPERVISOR, Resolution.CONTINUE))
    round_.handle(ReportHand(1, cards("Qs Qh 7c 4d 2s")))
    round_.handle(Settle())
    assert round_.net(1) == -2000 + 500


def six_card_bonus_settled(hand: str) -> list[dict[str, object]]:
    """The Six Card Bonus settlements of a round where seat 1 holds ``hand``, wagers 500 on the
    Six Card Bonus, plays against a dealer without a pair, and the Six Card Bonus card is the As."""
    round_, shuffler = dealt_round(
        RuleSet.example(six_card_bonus_offered=True),
        {1: hand},
        "2c 5d 8h Jd Kc",
        [PlaceWagers(1, 1000, 1000, six_card_bonus=500)],
        six="As",
    )
    round_.handle(Play(1))
    round_.handle(RevealOrder(shuffler.order))
    round_.handle(Settle())
    return [f for f in settlements(round_) if f["wager"] == "six_card_bonus"]


def test_657a_9_b_six_card_bonus_pays_the_best_five_of_six_by_its_table() -> None:
    """657a.9(b); decision 0023: the Six Card Bonus Wager is paid on the best five-card hand of
    the player's five cards and the Six Card Bonus card: Ah Ad Ac 9d 3s with the As is four of a
    kind, 50 to 1 on the example table: 500 wins 25000."""
    six = six_card_bonus_settled("Ah Ad Ac 9d 3s")
    assert six == [
        dict(
            seat=1,
            wager="six_card_bonus",
            movement="pay",
            amount=25000,
            net=25000,
            clause=six[0]["clause"],
            hand=six[0]["hand"],
            line="four_of_a_kind",
            odds="50 to 1",
        )
    ]
    assert six[0]["clause"].startswith("657a.9(b)") and six[0]["hand"] == "four of a kind"


def test_657a_9_b_six_card_bonus_below_the_table_is_collected() -> None:
    """657a.9(b): a pair among the six cards pays nothing on the example table: the wager is collected."""
    six = six_card_bonus_settled("Ah 2d 9d 3s 7h")
    assert [(f["movement"], f["amount"]) for f in six] == [("collect", 500)]


def test_657a_1_five_card_hand_bonus_pays_the_five_card_hand_by_its_table() -> None:
    """657a.1 (Five Card Hand Bonus Wager): the player's five cards as a poker hand: a full house,
    10 to 1 on the example table: 300 wins 3000."""
    round_, shuffler = dealt_round(
        RuleSet.example(five_card_bonus_offered=True),
        {1: "9h 9d 9c 4s 4d"},
        "2c 5d 8h Jd Kc",
        [PlaceWagers(1, 1000, 1000, five_card_bonus=300)],
    )
    round_.handle(Play(1))
    round_.handle(RevealOrder(shuffler.order))
    round_.handle(Settle())
    five = [f for f in settlements(round_) if f["wager"] == "five_card_bonus"]
    assert [(f["movement"], f["amount"], f["line"], f["odds"]) for f in five] == [
        ("pay", 3000, "full_house", "10 to 1")
    ]


def test_657a_1_envy_bonus_is_paid_for_another_players_four_of_a_kind() -> None:
    """657a.1 (Four-Card Envy Bonus): seat 2's progressive wager is paid the fixed 5000 for seat 1's
    four of a kind; seat 1 gets no Envy Bonus for its own hand."""
    rules = RuleSet.example(progressive_offered=True)
    round_, shuffler = dealt_round(
        rules,
        {1: "7h 7d 7c 7s 2d", 2: "Kc Qd 9h 5s 3c"},
        "2c 5d 8h Jd 4c",
        [PlaceWagers(1, 1000, 1000, progressive=100), PlaceWagers(2, 1000, 1000, progressive=100)],
    )
    round_.handle(Play(1, 3))
    round_.handle(Play(2))
    round_.handle(RevealOrder(shuffler.order))
    round_.handle(Settle())
    envy = [f for f in settlements(round_) if f["wager"] == "envy_bonus"]
    assert [(f["seat"], f["envied_seat"], f["amount"], f["line"]) for f in envy] == [
        (2, 1, 5000, "four_of_a_kind")
    ]


def test_657a_1_a_folded_hand_earns_no_envy_bonus_and_need_not_be_reported() -> None:
    """657a.1 (Four-Card Envy Bonus; decision 0023 reading): a player who folded holds no hand,
    so seat 1's folded four sevens earn seat 2 no Envy Bonus; on the dealer-report path that folded
    hand, with nothing on it, is not asked for."""
    rules = RuleSet.example(progressive_offered=True)
    round_, _ = dealt_round(
        rules,
        {1: "7h 7d 7c 7s 2d", 2: "Kc Qd 9h 5s 3c"},
        "2c 5d 8h Jd 4c",
        [PlaceWagers(1, 1000, 1000), PlaceWagers(2, 1000, 1000, progressive=100)],
        sealed=False,
    )
    round_.handle(Fold(1))
    round_.handle(Play(2))
    assert round_.unreported == [DEALER, 2]
    round_.handle(ReportHand(DEALER, cards("2c 5d 8h Jd 4c")))
    round_.handle(ReportHand(2, cards("Kc Qd 9h 5s 3c")))
    round_.handle(Settle())
    assert round_.state == SETTLED
    assert not [f for f in settlements(round_) if f["wager"] == "envy_bonus"]
    assert round_.net(1) == -2000 and round_.net(2) == 1000 - 100


def test_pay_tables_come_from_configuration_and_an_offered_wager_needs_one() -> None:
    """No pay table is built in: a table offering a wager without its configured table is refused
    before it opens, naming the key."""
    assert RuleSet().super_bonus_pay_table == {}
    with pytest.raises(ConfigError, match="super_bonus_pay_table: required because the table offers"):
        Table(RuleSet(), lambda *_: True).open()
    rules = RuleSet.example(six_card_bonus_offered=True, six_card_bonus_pay_table={})
    with pytest.raises(ConfigError, match=r"six_card_bonus_pay_table: required .* Six Card Bonus Wager"):
        rules.check_pay_tables()


def test_six_card_place_is_reported_as_one_card() -> None:
    """657a.9(b): on the dealer-report path the Six Card Bonus card is reported as one card."""
    round_, _ = dealt_round(
        RuleSet.example(six_card_bonus_offered=True),
        {1: "Ah Ad Ac 9d 3s"},
        "2c 5d 8h Jd Kc",
        [PlaceWagers(1, 1000, 1000, six_card_bonus=500)],
        six="As",
        sealed=False,
    )
    round_.handle(Play(1))
    round_.handle(ReportHand(DEALER, cards("2c 5d 8h Jd Kc")))
    round_.handle(ReportHand(1, cards("Ah Ad Ac 9d 3s")))
    round_.handle(Settle())
    assert "the Six Card Bonus card: not reported" in round_.hold.irregularity.detail
    round_.handle(SupervisorResolve(SUPERVISOR, Resolution.CONTINUE))
    round_.handle(ReportHand(SIX_CARD, cards("As")))
    round_.handle(Settle())
    assert round_.net(1) == 1000 + 1000 + 2000 + 25000  # Ante, Play, Super Bonus (three aces 2:1), Six Card
