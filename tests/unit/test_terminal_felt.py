"""The terminal view's felt (croupier.commands.terminal.Felt) reads each seat's wagers from the round's
records by the trail's rule: a ``wager`` record adds, a ``wager_withdrawn`` one takes the seat's
wager of its name back, and a ``wager`` marked ``stays`` (686a.7(h)) adds nothing."""

from __future__ import annotations

from croupier.commands.terminal import Felt
from games.over_under.inputs import PlaceWager, StartDeal
from tests.games.test_over_under_helpers import OVER, READY, SURRENDER, new_round, play


def felt_of(round_) -> Felt:
    felt = Felt(6)
    felt.round_began(round_)
    for record in round_.records:
        felt.record(record)
    return felt


def test_686a_7_e_a_seat_wagered_twice_shows_only_its_second_wagers():
    round_, shoe = new_round("Kc 9h 5s", {1: (1000, 500)})
    round_.handle(PlaceWager(1, 2000))
    assert felt_of(round_).seats[1].wagers == {"ante": 2000}
    round_.handle(StartDeal(READY))
    shoe.deal_all_due(round_)
    play(round_, shoe, 1, OVER)
    assert felt_of(round_).seats[1].wagers == {"ante": 2000}


def test_686a_7_h_a_surrendered_bonus_is_shown_once():
    round_, shoe = new_round("Kc 9h 5s", {1: (1000, 500)})
    round_.handle(StartDeal(READY))
    shoe.deal_all_due(round_)
    play(round_, shoe, 1, SURRENDER)
    assert felt_of(round_).seats[1].wagers == {"ante": 1000, "bonus": 500}
