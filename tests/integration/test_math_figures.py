"""Math mode's figures against the game's published and computed figures (docs/math.md), seeded,
with a loose tolerance: a few thousand rounds cannot pin a house edge to a tenth of a percent, but
they catch a wager settled wrongly (an unpaid lammer moves Free Bet's edge by some 4 points, a 22
that does not push by more).

Free Bet Blackjack: published analyses of the game under its usual rules (six decks, free doubles on
hard 9-11, free splits but tens, resplit to four hands, dealer 22 pushes) put the house edge of the
Blackjack Wager with basic strategy at about 1 % when the dealer hits soft 17; this table's dealer
stands on all 17s (672a.7(l)), which lowers it by about 0.2 points. The dealer's 22 is checked
against its chance for an infinite deck, computed independently of the round machine
(simulator.math.free_bet_blackjack.dealer_finals). Over/Under: no published figure covers the
section's totals, so the Ante's result per Ante is checked against the exact expectation of the
best election (simulator.math.over_under.expected_returns), which the machine's settlement must
reproduce.
"""

from __future__ import annotations

from collections import Counter

from games.free_bet_blackjack import RuleSet as FreeBetRules
from games.over_under import RuleSet as OverUnderRules
from games.over_under.points import card_points
from simulator.math.free_bet_blackjack import CHANCE, dealer_finals
from simulator.math.over_under import expected_returns
from simulator.math.run import play_math
from vocabulary.cards import standard_deck

PUBLISHED_FREE_BET_EDGE = 0.008  # about 1 % with the dealer hitting soft 17, less 0.2 for standing
TOLERANCE = 0.03  # three points: the run's interval is about two points wide either side


def test_free_bet_blackjack_basic_strategy_edge_and_the_dealers_22():
    tally = play_math(
        "free-bet-blackjack", FreeBetRules.example(), rounds=3000, seed=42, workers=2, strategy="basic"
    )
    edge, half = tally.wagers["blackjack"].edge()
    assert edge is not None and half is not None
    assert abs(edge - PUBLISHED_FREE_BET_EDGE) < TOLERANCE, (edge, half)
    assert half < TOLERANCE
    no_blackjack = sum(
        chance * (1 - (CHANCE[10] if up == 1 else CHANCE[1] if up == 10 else 0.0)) * dealer_finals(up)[22]
        for up, chance in CHANCE.items()
    )
    dealer = tally.observed["dealer final total"]
    assert abs(dealer["22"] / tally.rounds - no_blackjack) < 0.015, dealer
    push22 = tally.wagers["push22"]
    assert abs(push22.house / push22.wagered - (1 - 12 * no_blackjack)) < 0.2  # pays 11 to 1


def test_over_under_best_election_per_ante_matches_its_expectation():
    rules = OverUnderRules.example()
    tally = play_math("over-under", rules, rounds=2500, seed=42, workers=2, strategy="best")
    first = Counter(card_points(card) for card in standard_deck())
    expected = -sum(n / 52 * max(expected_returns(rules, points).values()) for points, n in first.items())
    antes = tally.wagers["ante"].wagered
    per_ante = tally.total.house / antes
    assert abs(per_ante - expected) < TOLERANCE, (per_ante, expected)
