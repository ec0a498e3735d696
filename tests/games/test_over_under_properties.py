"""Random shoes, random seats and wagers, random elections: whole rounds of Over/Under.

For every round: every election comes before any additional card (686a.7(f)); each card out of the
shoe reaches the discard rack once, Hand by Hand (686a.7(j), (n)); and every seat's result equals an
independent settlement written here from the clause text, (g)(3), (h), (k)-(m), with its own card
counting (an ace 11, J, Q and K 10).
"""

from __future__ import annotations

from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st

from games.free_bet_blackjack.records import RecordKind
from games.free_bet_blackjack.stacked import StackedShoe
from games.over_under import Round, RuleSet
from games.over_under.inputs import Choice, Choose, ClearHand, Discard, PlaceWager, StartDeal
from games.over_under.machine import CLEARING, COMPLETE, DECIDING, SETTLED
from tests.games.test_over_under_helpers import BONUS_TABLE, READY
from vocabulary.cards import Card


@st.composite
def shoes(draw: st.DrawFn) -> list[Card | None]:
    """Enough cards for seven Hands, maybe a cover card among them."""
    cards: list[Card | None] = draw(
        st.lists(st.builds(Card, st.integers(1, 13), st.integers(0, 3)), min_size=21, max_size=21)
    )
    cover = draw(st.none() | st.integers(0, 21))
    if cover is not None:
        cards.insert(cover, None)
    return cards


def points(cards: list[Card]) -> int:
    """The seed's totals run 6 to 33: an ace 11, J, Q, K 10, the rest their face."""
    return sum(11 if card.rank == 1 else min(card.rank, 10) for card in cards)


def paid(amount: int, odds: str, rounding: str) -> int:
    win, stake = map(int, odds.split(":"))
    whole, part = divmod(amount * win, stake)
    return whole + (1 if part and rounding == "up" else 0)


def expected_net(ante: int, bonus: int, choice: Choice, hand: list[Card], odds: dict[str, str]) -> int:
    total = points(hand)
    net = 0
    if choice is Choice.SURRENDER:
        net -= ante  # (g)(3)
    else:
        wins = 24 <= total <= 33 if choice is Choice.OVER_23 else 6 <= total <= 17  # (k)(1), (k)(2)
        side = odds["over"] if choice is Choice.OVER_23 else odds["under"]
        if wins:
            net += paid(ante, odds["ante"], odds["rounding"]) + paid(ante, side, odds["rounding"])
        else:
            net -= 2 * ante  # (l), and the other side's totals
    if bonus:  # (h): kept after a surrender; (m): 6-12 and 27-33 win
        if total <= 12 or total >= 27:
            net += paid(bonus, BONUS_TABLE[total], odds["rounding"])
        else:
            net -= bonus
    return net


@settings(max_examples=200, deadline=None)
@given(
    data=st.data(),
    cards=shoes(),
    odds=st.fixed_dictionaries(
        {
            "ante": st.sampled_from(["1:1", "2:1"]),
            "over": st.sampled_from(["1:1", "3:2"]),
            "under": st.sampled_from(["1:1", "6:5"]),
            "rounding": st.sampled_from(["down", "up"]),
        }
    ),
)
def test_686a_7_random_rounds_conserve_cards_and_settle_by_the_clauses(data, cards, odds):
    """Random rounds: 686a.7(f) every election before any additional card; 686a.7(j), 686a.7(n)
    every card reaches the rack once, each Hand's cards together; 686a.7(k), 686a.7(l), 686a.7(m),
    686a.7(g)(3), 686a.7(h) every seat is settled as an independent reading of the clauses settles
    it."""
    rules = RuleSet(
        ante_odds=odds["ante"],
        over_23_odds=odds["over"],
        under_18_odds=odds["under"],
        odd_cent_rounding=odds["rounding"],
        bonus_pay_table=BONUS_TABLE,
    )
    seats = sorted(data.draw(st.sets(st.integers(1, 6), min_size=1)))
    wagers = {
        seat: (data.draw(st.integers(1, 5000)), data.draw(st.sampled_from([0, 0, 1, 333]))) for seat in seats
    }
    shoe = StackedShoe(cards)
    round_ = Round(3, rules=rules, dealer="D-1")
    for seat, (ante, bonus) in wagers.items():
        round_.handle(PlaceWager(seat, ante, bonus))
    round_.handle(StartDeal(READY))
    choices: dict[int, Choice] = {}
    while round_.state != COMPLETE:
        if round_.expected is not None:
            shoe.deal(round_)
        elif round_.state == DECIDING:
            seat = round_.current.seat
            choices[seat] = data.draw(st.sampled_from(list(Choice)))
            round_.handle(Choose(seat, choices[seat]))
        elif round_.state == CLEARING:
            round_.handle(ClearHand(round_.current.seat))
        else:
            assert round_.state == SETTLED
            round_.handle(Discard(len(round_.pickup_order())))

    decided = [r.seq for r in round_.log.of(RecordKind.DECISION)]
    additional = [r.seq for r in round_.log.of(RecordKind.CARD) if r.fields["clause"] == "686a.7(i)"]
    assert len(decided) == len(seats) and max(decided) < min(additional)
    assert Counter(shoe.dealt) == Counter(Card.parse(p.card) for p in round_.pickup)
    for seat in seats:
        hand = [Card.parse(p.card) for p in round_.pickup if p.place == f"seat {seat}"]
        assert len(hand) == 3 and hand == round_.positions[seat].cards
        ante, bonus = wagers[seat]
        assert round_.net(seat) == expected_net(ante, bonus, choices[seat], hand, odds), (seat, hand)
    assert [p.place for p in round_.pickup] == [f"seat {seat}" for seat in seats for _ in range(3)]
