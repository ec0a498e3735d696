"""Random decks, random tables, random decisions: whole rounds of Crazy 4 Poker dealt from the hand.

For every round: the 52 cards are conserved (each hand, the Six Card Bonus card and the stub hold
every card exactly once, as the deal order of 657a.9(b) places them); no face appears in a record
before the hands are made known; and every seat's result equals an independent settlement written
here from the published rule text (not PA text), with its own four-card ranking.
"""

from __future__ import annotations

from collections import Counter
from itertools import combinations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games.crazy_4_poker import RuleSet, Table
from games.crazy_4_poker.inputs import (
    DEALER,
    SIX_CARD,
    ChooseHand,
    DeckHand,
    Discard,
    Fold,
    NoMoreBets,
    PlaceWagers,
    Play,
    ReportHand,
    RevealOrder,
    Settle,
    StubToRack,
)
from games.crazy_4_poker.machine import COMPLETE
from games.crazy_4_poker.stacked import StackedShuffler
from vocabulary.cards import Card, standard_deck

SUPER_BONUS = {"four_aces": (200, 1), 7: (30, 1), 6: (15, 1), 5: (2, 1), 4: (3, 2), 3: (1, 1)}
QUEENS_UP = {7: (50, 1), 6: (40, 1), 5: (8, 1), 4: (4, 1), 3: (3, 1), 2: (2, 1), 1: (1, 1)}
#: The example Six Card Bonus table (example_pay_tables.toml), by five-card category: royal flush 9,
#: straight flush 8, four of a kind 7, full house 6, flush 5, straight 4, three of a kind 3.
SIX_CARD_BONUS = {9: 1000, 8: 200, 7: 50, 6: 25, 5: 20, 4: 10, 3: 5}


def ref_five(five: tuple[Card, ...]) -> int:
    """The category of five cards (0 high card to 9 royal flush), read afresh."""
    values = sorted(14 if c.rank == 1 else c.rank for c in five)
    shape = sorted(Counter(values).values(), reverse=True)
    flush = len({c.suit for c in five}) == 1
    straight = len(set(values)) == 5 and (values[4] - values[0] == 4 or values == [2, 3, 4, 5, 14])
    if straight and flush:
        return 9 if values[0] == 10 else 8
    ranked = {(4, 1): 7, (3, 2): 6, (3, 1, 1): 3, (2, 2, 1): 2, (2, 1, 1, 1): 1}
    if tuple(shape) in ((4, 1), (3, 2)):
        return ranked[tuple(shape)]
    if flush or straight:
        return 5 if flush else 4
    return ranked.get(tuple(shape), 0)


def six_card_net(wager: int, six: tuple[Card, ...]) -> int:
    """The Six Card Bonus on the best five of the player's five cards and the Six Card Bonus card."""
    best = max(ref_five(five) for five in combinations(six, 5))
    return wager * SIX_CARD_BONUS[best] if best in SIX_CARD_BONUS else -wager


def ref_rank(four: tuple[Card, ...]) -> tuple:
    """Four cards as (category 0-7, tie-breaks), read from 657a.6 afresh."""
    values = sorted((14 if c.rank == 1 else c.rank for c in four), reverse=True)
    counts = Counter(values)
    by_count = sorted(values, key=lambda v: (-counts[v], -v))
    suited = len({c.suit for c in four}) == 1
    distinct = sorted(set(values))
    run = None
    if len(distinct) == 4:
        if distinct == [2, 3, 4, 14]:
            run = 4
        elif distinct[3] - distinct[0] == 3:
            run = distinct[3]
    if 4 in counts.values():
        return (7, by_count)
    if run and suited:
        return (6, [run])
    if 3 in counts.values():
        return (5, by_count)
    if suited:
        return (4, values)
    if run:
        return (3, [run])
    pairs = sorted((v for v, n in counts.items() if n == 2), reverse=True)
    if len(pairs) == 2:
        return (2, pairs)
    if pairs:
        return (1, by_count)
    return (0, values)


def ref_best(cards: tuple[Card, ...]) -> tuple:
    return max(ref_rank(four) for four in combinations(cards, 4))


def odds(amount: int, line: tuple[int, int]) -> int:
    return amount * line[0] // line[1]


def reference(ante: int, queens: int, multiple: int, hand, dealer) -> int:
    """The player's net from the published rules: Ante and Super Bonus equal; Play 1x-3x or fold."""
    net = 0
    if queens:
        if hand is not None and (hand[0] >= 2 or (hand[0] == 1 and hand[1][0] >= 12)):
            net += odds(queens, QUEENS_UP[hand[0]])
        else:
            net -= queens
    if multiple == 0:
        return net - 2 * ante
    play = ante * multiple
    dealer_in = dealer[0] > 0 or dealer[1][0] >= 13
    outcome = -1 if hand is None else (hand > dealer) - (hand < dealer)
    if dealer_in:
        net += outcome * ante
    net += outcome * play
    if hand is not None and hand[0] >= 3:
        key = "four_aces" if hand == (7, [14, 14, 14, 14]) else hand[0]
        net += odds(ante, SUPER_BONUS[key])
    elif dealer_in and outcome < 0:
        net -= ante
    return net


seat_plan = st.tuples(
    st.integers(1, 200).map(lambda x: x * 5), st.sampled_from([0, 0, 500]), st.integers(0, 3)
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    deck=st.permutations(standard_deck()),
    seats=st.dictionaries(st.integers(1, 6), seat_plan, min_size=1, max_size=6),
    sealed=st.booleans(),
    six=st.booleans(),
)
def test_rounds_conserve_cards_keep_secrets_and_settle_by_the_rules(deck, seats, sealed, six) -> None:
    shuffler = StackedShuffler(deck, sealed=sealed)
    table = Table(RuleSet.example(six_card_bonus_offered=True), shuffler.verify)
    table.open()
    round_ = table.new_round()
    for seat, (ante, queens, _) in seats.items():
        round_.handle(
            PlaceWagers(seat, ante, ante, queens, six_card_bonus=100 if six and seat == min(seats) else 0)
        )
    round_.handle(shuffler.report())
    round_.handle(ChooseHand(DeckHand.RIGHT))
    round_.handle(NoMoreBets())
    shuffler.deal(round_)
    round_.handle(StubToRack())

    # Cards conserved: the deal order places each card of the deck once.
    hands: dict = {}
    for card, place in zip(deck, round_.deal, strict=False):
        hands.setdefault(place, []).append(card)
    stub = deck[len(round_.deal) :]
    assert Counter([card for cards in hands.values() for card in cards] + stub) == Counter(standard_deck())
    assert all(len(cards) == 5 for place, cards in hands.items() if place != SIX_CARD)
    assert len(hands.get(SIX_CARD, [])) == (1 if six else 0)

    for seat in sorted(seats):
        multiple = seats[seat][2]
        if multiple > 1 and ref_best(tuple(hands[seat])) < (1, [14, 14]):
            multiple = 1  # without aces or better a player plays 1x (the held raise is a clause test)
        seats[seat] = (*seats[seat][:2], multiple)
        round_.handle(Play(seat, multiple) if multiple else Fold(seat))
    before_known = [r.as_dict() for r in round_.records]
    if sealed:
        round_.handle(RevealOrder(tuple(deck)))
    else:
        round_.handle(ReportHand(DEALER, tuple(hands[DEALER])))
        for seat in seats:  # the dealer reports every hand; a hand not reported is tested elsewhere
            round_.handle(ReportHand(seat, tuple(hands[seat])))
        if six:
            round_.handle(ReportHand(SIX_CARD, tuple(hands[SIX_CARD])))
    round_.handle(Settle())
    round_.handle(Discard(round_.layout_cards))
    assert round_.state == COMPLETE
    assert all(round_.hands[place] == tuple(hands[place]) for place in round_.hands)
    assert set(round_.hands) == set(hands)

    faces = {str(card) for card in deck}
    for record in before_known:
        for key, value in record.items():
            assert "commitment" in key or str(value) not in faces, (key, value)

    dealer = ref_best(tuple(hands[DEALER]))
    for seat, (ante, queens, multiple) in seats.items():
        expected = reference(ante, queens, multiple, ref_best(tuple(hands[seat])), dealer)
        if six and seat == min(seats):
            expected += six_card_net(100, (*hands[seat], *hands[SIX_CARD]))
        assert round_.net(seat) == expected, (seat, hands[seat], hands[DEALER], multiple)
    assert {round_.known_by[place] for place in round_.known_by} == {
        "shuffler order" if sealed else "dealer report"
    }
