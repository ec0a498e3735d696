"""Random shoes, random rule sets, random legal decisions: whole rounds of Free Bet Blackjack.

For every round: each card out of the shoe reaches the discard rack once (672a.7(s)); the hole
card's face is in no record or log line before it is turned up (672a.7(g), (k)); and every seat's
result equals an independent settlement written here from the clause text, (f)-(q), with its own
card counting and its own reading of the free double and free split rules.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

import structlog
from hypothesis import HealthCheck, assume, event, given, settings
from hypothesis import strategies as st

from games.free_bet_blackjack import Round, RuleSet
from games.free_bet_blackjack.inputs import (
    CloseInsurance,
    Decision,
    Discard,
    EvenMoney,
    Insure,
    PlaceWager,
    PlayerAction,
    Settle,
    ShoeStatus,
    StartDeal,
)
from games.free_bet_blackjack.machine import (
    COMPLETE,
    DEALER_BLACKJACK,
    DEALER_TURN,
    INSURANCE,
    PEEKING,
    PLAYER_TURNS,
    SETTLED,
)
from games.free_bet_blackjack.records import RecordKind
from games.free_bet_blackjack.stacked import StackedShoe
from tests.games import peek, reveal
from vocabulary.cards import Card

RULE_SETS = st.builds(
    RuleSet,
    settlement_order=st.sampled_from(["collect-then-pay", "player-by-player"]),
    odd_cent_rounding=st.sampled_from(["down", "up"]),
    paid_doubles=st.booleans(),
    paid_splits=st.booleans(),
    resplit_aces=st.booleans(),
    double_after_split=st.booleans(),
    push22_pay_table=st.sampled_from(
        [{"any": "11:1"}, {"suited": "50:1", "same_colour": "20:1", "other": "8:1"}]
    ),
)


@st.composite
def shoes(draw: st.DrawFn) -> list[Card | None]:
    """Cards of a few ranks (so that pairs, aces, tens and 22s come often), maybe a cover card."""
    ranks = sorted(draw(st.sets(st.integers(1, 13), min_size=2, max_size=5)))
    cards: list[Card | None] = draw(
        st.lists(st.builds(Card, st.sampled_from(ranks), st.integers(0, 3)), min_size=200, max_size=200)
    )
    cover = draw(st.none() | st.integers(0, 30))
    if cover is not None:
        cards.insert(cover, None)
    return cards


# -- the independent settlement, from the text of 672a.7 ------------------------------------------------
def points(cards: list[Card]) -> int:
    """J, Q, K count 10; an ace 11 unless that takes the total over 21."""
    hard = sum(min(card.rank, 10) for card in cards)
    return hard + 10 if any(card.rank == 1 for card in cards) and hard + 10 <= 21 else hard


def natural(cards: list[Card]) -> bool:
    return len(cards) == 2 and points(cards) == 21


@dataclass
class Stake:
    real: int
    lammers: list[int] = field(default_factory=list)
    cards: list[Card] = field(default_factory=list)
    split: bool = False


@dataclass
class Seat:
    blackjack: int
    push22: int
    hands: dict[int, Stake]
    insurance: int = 0
    even_money: bool = False


def push22_multiple(rules: RuleSet, dealer: list[Card]) -> int:
    table = rules.push22_pay_table
    if len({card.suit for card in dealer}) == 1:
        return table.suited.win
    if len({card.suit in (1, 2) for card in dealer}) == 1:
        return table.same_colour.win
    return table.other.win


def three_to_two(amount: int, rules: RuleSet) -> int:
    return (3 * amount) // 2 if rules.odd_cent_rounding == "down" else -((-3 * amount) // 2)


def expected_net(seat: Seat, dealer: list[Card], rules: RuleSet) -> int:
    dealt_hand = seat.hands[0]
    player_blackjack = len(seat.hands) == 1 and natural(dealt_hand.cards) and not dealt_hand.split
    net = seat.blackjack if seat.even_money else 0  # (f): even money, 1 to 1
    if natural(dealer[:2]):  # (g): the peek found it; no other card was dealt
        net += 2 * seat.insurance  # insurance pays 2 to 1
        if not seat.even_money and not player_blackjack:
            net -= seat.blackjack  # (g)(2); (g)(1) returns a Blackjack's wager
        return net - seat.push22  # (g)(1), (g)(2): Push 22 collected
    net -= seat.insurance
    dealer_points = points(dealer)
    if seat.push22:  # (n)(1) pays, (n)(2) collects
        net += seat.push22 * push22_multiple(rules, dealer) if dealer_points == 22 else -seat.push22
    if player_blackjack:
        return net if seat.even_money else net + three_to_two(seat.blackjack, rules)  # (h)(1)
    for hand in seat.hands.values():
        player = points(hand.cards)
        if player > 21:
            net -= hand.real  # (q)(1); a bust is no remaining wager under (n)(1)
        elif dealer_points == 22 or player == dealer_points:
            continue  # (n)(1), (p): the wager returned, lammers collected
        elif dealer_points > 21 or player > dealer_points:
            net += hand.real + sum(hand.lammers)  # (o)
        else:
            net -= hand.real  # (q)(2)
    return net


def dealer_stands(dealer: list[Card], seats: dict[int, Seat]) -> bool:
    """(l): the dealer stands on 17 or more; (m): and draws nothing when no outcome can change,
    unless Push 22 Wagers are on the table."""
    if points(dealer) >= 17:
        return True
    live = [
        hand
        for seat in seats.values()
        if not seat.even_money and not (len(seat.hands) == 1 and natural(seat.hands[0].cards))
        for hand in seat.hands.values()
        if points(hand.cards) <= 21
    ]
    return not live and not any(seat.push22 for seat in seats.values())


# -- driving a round ------------------------------------------------------------------------------------
class Player:
    """Keeps its own account of the cards and stakes of the round it drives."""

    def __init__(self, round_: Round, shoe: StackedShoe, rules: RuleSet, seats: dict[int, Seat]) -> None:
        self.round, self.shoe, self.rules, self.seats = round_, shoe, rules, seats
        self.dealer: list[Card] = []

    def deal(self) -> None:
        slot = self.round.expected
        assume(len(self.shoe) > 0)
        before = len(self.shoe.dealt)
        self.shoe.deal(self.round)
        if len(self.shoe.dealt) == before:
            return  # the cover card: set aside, the same card still due
        card = self.shoe.dealt[-1]
        if slot.seat is None:
            self.dealer.append(card)
        else:
            self.seats[slot.seat].hands[slot.hand].cards.append(card)

    def insurance(self, data: st.DataObject) -> None:
        for number, seat in self.seats.items():
            choices = (
                ["none"]
                + (["insure"] if seat.blackjack >= 2 else [])
                + (["even"] if natural(seat.hands[0].cards) else [])
            )
            choice = data.draw(st.sampled_from(choices))
            if choice == "insure":
                seat.insurance = data.draw(st.integers(1, seat.blackjack // 2))
                self.round.handle(Insure(number, seat.insurance))
            elif choice == "even":
                seat.even_money = True
                self.round.handle(EvenMoney(number))
        self.round.handle(CloseInsurance())

    def decide(self, data: st.DataObject) -> None:
        hand = self.round.current_hand
        action = data.draw(st.sampled_from(sorted(self.round.legal_decisions())))
        seat = self.seats[hand.seat]
        stake = seat.hands[hand.number]
        if action is PlayerAction.DOUBLE_DOWN:
            hard = points(stake.cards) == sum(min(c.rank, 10) for c in stake.cards)
            if hard and points(stake.cards) in self.rules.free_double_totals:
                stake.lammers.append(seat.blackjack)
            else:
                stake.real += seat.blackjack
        elif action is PlayerAction.SPLIT:
            moved = stake.cards.pop()
            free = moved.rank in self.rules.free_split_ranks
            stake.split = True
            seat.hands[len(seat.hands)] = Stake(
                0 if free else seat.blackjack, [seat.blackjack] if free else [], [moved], split=True
            )
        self.round.handle(Decision(hand.seat, action))


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), rules=RULE_SETS, cards=shoes())
def test_672a_7_random_rounds_conserve_cards_keep_the_hole_secret_and_settle_by_the_clauses(
    data, rules, cards
):
    """Random legal rounds: 672a.7(s) no card is lost; 672a.7(k) the hole card's face is in no
    record or log line before it is turned up; 672a.7(l), 672a.7(m) the dealer draws as the clauses
    say; 672a.7(n), 672a.7(o), 672a.7(p), 672a.7(q) every seat is settled as an independent reading
    of the clauses settles it."""
    numbers = data.draw(st.sets(st.integers(1, 6), min_size=1))
    seats = {
        n: Seat(data.draw(st.integers(1, 5000)), data.draw(st.sampled_from([0, 0, 100, 555])), {})
        for n in sorted(numbers)
    }
    for seat in seats.values():
        seat.hands[0] = Stake(seat.blackjack)
    shoe = StackedShoe(cards)
    round_ = Round(7, rules=rules, verify=shoe.verify, dealer="D-1")
    player = Player(round_, shoe, rules, seats)
    with structlog.testing.capture_logs() as logs:
        for number, seat in seats.items():
            round_.handle(PlaceWager(number, seat.blackjack, seat.push22))
        round_.handle(StartDeal(ShoeStatus.ready()))
        while round_.state != COMPLETE:
            if round_.expected is not None:
                player.deal()
            elif round_.state == INSURANCE:
                player.insurance(data)
            elif round_.state == PEEKING:
                peek(round_, shoe)
            elif round_.state == PLAYER_TURNS and round_.current_hand is not None:
                player.decide(data)
            elif round_.state in (PLAYER_TURNS, DEALER_BLACKJACK):
                hole = str(shoe.turn_up(round_.hole))
                secret_until = len(round_.records), len(logs)
                reveal(round_, shoe)
            elif round_.state == DEALER_TURN:
                round_.handle(Settle())
            else:
                assert round_.state == SETTLED
                round_.handle(Discard(len(round_.pickup_order())))

    assert Counter(shoe.dealt) == Counter(Card.parse(p.card) for p in round_.pickup)
    before_k = [r.fields for r in round_.records[: secret_until[0]]] + logs[: secret_until[1]]
    leaks = [
        (key, value)
        for fields in before_k
        for key, value in fields.items()
        if isinstance(value, str)
        and hole in value
        and key not in ("card", "moved", "commitment")  # a hash in hex may spell 9d
    ]
    assert not leaks
    assert all(r.fields["card"] is None for r in round_.log.of(RecordKind.CARD) if not r.fields["face_up"])
    dealer = player.dealer  # the up card, the hole card, then the draws
    assert dealer == round_.dealer_cards
    if natural(dealer[:2]):
        assert len(dealer) == 2  # (g): no card after a dealer Blackjack
    else:
        assert dealer_stands(dealer, seats)
        assert not any(dealer_stands(dealer[:drawn], seats) for drawn in range(2, len(dealer)))
    event(f"dealer {'blackjack' if natural(dealer[:2]) else points(dealer)}")
    event(f"{max(len(seat.hands) for seat in seats.values())} hand(s) at a seat")
    for name, happened in (
        ("insurance", any(seat.insurance for seat in seats.values())),
        ("even money", any(seat.even_money for seat in seats.values())),
        ("free lammer", any(hand.lammers for seat in seats.values() for hand in seat.hands.values())),
        ("cover card", round_.reshuffle_required),
    ):
        if happened:
            event(name)
    for number, seat in seats.items():
        assert round_.net(number) == expected_net(seat, dealer, rules), (number, seat, dealer)
