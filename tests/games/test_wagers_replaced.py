"""A position's wagers placed again before the deal replace its earlier ones, at each of the four
games, and the round's records say so: each earlier wager is recorded withdrawn (citing the clause
that has the wagers placed before the deal), then the new ones, so a reader of the trail finds the
seat's wagers in play when betting closed by one rule: its ``wager`` records less its
``wager_withdrawn`` ones (docs/audit.md §4)."""

from __future__ import annotations

from collections.abc import Iterable

from games.common.records import Record
from games.crazy_4_poker.inputs import PlaceWagers
from games.free_bet_blackjack.inputs import PlaceWager as BlackjackWager
from games.free_bet_blackjack.inputs import PlayerAction, ShoeStatus, StartDeal
from games.heads_up_holdem import RuleSet
from games.heads_up_holdem.inputs import PlaceWager as HoldemWager
from games.over_under.inputs import PlaceWager as OverUnderWager
from tests.games import decide, finish, movements, stacked
from tests.games import new_round as blackjack_round
from tests.games.test_crazy_4_poker_clauses import open_table
from tests.games.test_heads_up_holdem_clauses import betting
from tests.games.test_heads_up_holdem_properties import SIDE_RULES
from tests.games.test_over_under_helpers import OVER, READY, play
from tests.games.test_over_under_helpers import new_round as over_under_round


def in_play(records: Iterable[Record]) -> dict[int, dict[str, int]]:
    """Each seat's wagers in play by the trail's rule: a ``wager`` record adds, a ``wager_withdrawn``
    record takes back the seat's wager of its name."""
    seats: dict[int, dict[str, int]] = {}
    for record in records:
        f = record.fields
        if record.kind.value == "wager" and not f.get("stays"):
            seats.setdefault(int(f["seat"]), {})[str(f["wager"])] = int(f["amount"])
        elif record.kind.value == "wager_withdrawn":
            seats[int(f["seat"])].pop(str(f["wager"]))
    return {seat: wagers for seat, wagers in seats.items() if wagers}


def betting_records(records: Iterable[Record], seat: int) -> list[tuple[str, str, int, str | None]]:
    return [
        (r.kind.value, str(r.fields["wager"]), int(r.fields["amount"]), r.fields.get("clause"))
        for r in records
        if r.kind.value in ("wager", "wager_withdrawn") and r.fields.get("seat") == seat
    ]


def test_672a_7_e_a_box_wagered_again_before_the_deal_plays_and_records_the_second_wagers():
    """672a.7(e): the wagers come before the deal, so until then a box's wagers may be placed
    again; the Push 22 Wager of the first is recorded withdrawn and only the second is settled."""
    round_, shoe = blackjack_round(stacked(["Tc 9c"], "8c 9d"), wagers={1: (1000, 500)})
    round_.handle(BlackjackWager(1, 2000))
    assert betting_records(round_.records, 1) == [
        ("wager", "blackjack", 1000, None),
        ("wager", "push22", 500, None),
        ("wager_withdrawn", "blackjack", 1000, "672a.7(e)"),
        ("wager_withdrawn", "push22", 500, "672a.7(e)"),
        ("wager", "blackjack", 2000, None),
    ]
    assert in_play(round_.records) == {1: {"blackjack": 2000}}
    round_.handle(StartDeal(ShoeStatus.ready()))
    shoe.deal_all_due(round_)
    decide(round_, shoe, 1, PlayerAction.STAND)
    finish(round_, shoe)
    assert movements(round_) == [(1, "blackjack", "pay", 2000)]


def test_686a_7_e_a_position_wagered_again_before_the_deal_plays_and_records_the_second_wagers():
    """686a.7(e): after the Ante and Bonus Wagers the first cards are dealt; a position wagered
    again before then keeps only its second wagers, its Bonus recorded withdrawn."""
    round_, shoe = over_under_round("Kc 9h 5s", {1: (1000, 500)})
    round_.handle(OverUnderWager(1, 2000))
    assert betting_records(round_.records, 1) == [
        ("wager", "ante", 1000, None),
        ("wager", "bonus", 500, None),
        ("wager_withdrawn", "ante", 1000, "686a.7(e)"),
        ("wager_withdrawn", "bonus", 500, "686a.7(e)"),
        ("wager", "ante", 2000, None),
    ]
    assert in_play(round_.records) == {1: {"ante": 2000}}
    round_.handle(StartDeal(READY))
    shoe.deal_all_due(round_)
    play(round_, shoe, 1, OVER)
    settled = [
        (r.fields["wager"], r.fields["amount"]) for r in round_.records if r.kind.value == "settlement"
    ]
    assert settled == [("ante", 2000), ("over_23", 2000)]


def test_657a_9_a_3_a_position_wagered_again_before_no_more_bets_records_the_second_wagers():
    """657a.9(a)(3): no wager is taken after "no more bets"; before it a position's wagers placed
    again replace its earlier ones, each recorded withdrawn."""
    table, _ = open_table()
    round_ = table.new_round()
    round_.handle(PlaceWagers(1, 500, 500, queens_up=200))
    round_.handle(PlaceWagers(2, 500, 500))
    round_.handle(PlaceWagers(1, 700, 700))
    assert betting_records(round_.records, 1)[3:] == [
        ("wager_withdrawn", "ante", 500, "657a.9(a)(3)"),
        ("wager_withdrawn", "super_bonus", 500, "657a.9(a)(3)"),
        ("wager_withdrawn", "queens_up", 200, "657a.9(a)(3)"),
        ("wager", "ante", 700, None),
        ("wager", "super_bonus", 700, None),
    ]
    assert in_play(round_.records) == {
        1: {"ante": 700, "super_bonus": 700},
        2: {"ante": 500, "super_bonus": 500},
    }


def test_677a_10_a_2_a_position_wagered_again_before_no_more_bets_records_the_second_wagers():
    """677a.10(a)(2): the wagers close with "no more bets"; before it a position's wagers placed
    again replace its earlier ones, the Trips Plus Wager recorded withdrawn."""
    round_, _ = betting(wagers=(), rules=RuleSet.example(**SIDE_RULES))
    round_.handle(HoldemWager(1, 500, 500, trips_plus=100))
    round_.handle(HoldemWager(1, 800, 800))
    assert betting_records(round_.records, 1) == [
        ("wager", "ante", 500, None),
        ("wager", "odds", 500, None),
        ("wager", "trips_plus", 100, None),
        ("wager_withdrawn", "ante", 500, "677a.10(a)(2)"),
        ("wager_withdrawn", "odds", 500, "677a.10(a)(2)"),
        ("wager_withdrawn", "trips_plus", 100, "677a.10(a)(2)"),
        ("wager", "ante", 800, None),
        ("wager", "odds", 800, None),
    ]
    assert in_play(round_.records) == {1: {"ante": 800, "odds": 800}}
