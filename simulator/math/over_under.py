"""Over/Under in math mode: its Round fed as OverUnderTable feeds it, and two strategies.

``best`` (the default) elects, on the first card (all a player sees before electing, 686a.7(f)),
whichever of Over 23, Under 18 and Surrender has the highest expected return: the chance that the
two cards still to come take the Hand's total into 24-33 (Over wins, 686a.7(k)(1)) or 6-17 (Under
wins, (k)(2)) is counted exactly, drawing the two cards without replacement from a full shoe of the
configured decks less the first card, and a win pays the Ante and the Over 23 or Under 18 Wager at
the table's configured odds (686a.8); Surrender loses the Ante alone ((g)(3)). Every position
places the same Ante and, where the table posts a Bonus pay table, the same Bonus Wager.

``simulated`` is the simulator's players (simulator.games.over_under.FirstCardPlayers): Over on 9
or more, Under on 5 or less, Surrender between, random stakes.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterable, Sequence

from games.over_under import Round, RuleSet
from games.over_under.inputs import Choice, Choose, ClearHand, PlaceWager
from games.over_under.machine import CLEARING, DECIDING
from games.over_under.points import card_points
from games.over_under.positions import Position
from games.over_under.settlement import OVER_WINS, UNDER_WINS
from simulator.games.over_under import FirstCardPlayers
from simulator.math.play import MathError, MathGame, ShoeDealing
from vocabulary.cards import standard_deck

#: The cents every position stakes on each wager it places.
UNIT = 1000


def expected_returns(rules: RuleSet, first: int) -> dict[Choice, float]:
    """Each election's expected result per unit of Ante, the first card counting ``first`` points
    (the Over 23 or Under 18 Wager equals the Ante, 686a.7(g)(1)-(2))."""
    shoe = Counter(card_points(card) for _ in range(rules.decks) for card in standard_deck())
    shoe[first] -= 1
    cards = sum(shoe.values())
    over = under = 0.0
    for second, n2 in shoe.items():
        for third, n3 in shoe.items():
            ways = n2 * (n3 - (1 if third == second else 0))
            chance = ways / (cards * (cards - 1))
            points = first + second + third
            over += chance if points in OVER_WINS else 0.0
            under += chance if points in UNDER_WINS else 0.0
    assert rules.ante_odds and rules.over_23_odds and rules.under_18_odds, "a table opens with its odds"
    ante = rules.ante_odds.win / rules.ante_odds.stake
    return {
        Choice.OVER_23: over * (ante + rules.over_23_odds.win / rules.over_23_odds.stake) - (1 - over) * 2,
        Choice.UNDER_18: under * (ante + rules.under_18_odds.win / rules.under_18_odds.stake)
        - (1 - under) * 2,
        Choice.SURRENDER: -1.0,
    }


class BestElection:
    """The election of highest expected return for each first card (module docstring), flat wagers."""

    def __init__(self, rng: random.Random, rules: RuleSet, dealing: object = None) -> None:
        self.bonus = UNIT if rules.bonus_pay_table is not None else 0
        self.choices: dict[int, Choice] = {}
        for first in range(2, 12):
            returns = expected_returns(rules, first)
            self.choices[first] = max(returns, key=lambda choice: returns[choice])

    def wagers(self, round_number: int, positions: int) -> Sequence[PlaceWager]:
        return [PlaceWager(seat, UNIT, self.bonus) for seat in range(1, positions + 1)]

    def choose(self, position: Position) -> Choice:
        return self.choices[card_points(position.cards[0])]


class OverUnderDealing(ShoeDealing):
    """The table's shoe, and what OverUnderTable._step_in does when the round expects no card: the
    elections in turn, each settled player's cards cleared to the rack."""

    def new_round(self, number: int) -> Round:
        return Round(number, rules=self.rules, dealer="math")  # type: ignore[arg-type]  # the game's RuleSet

    def answer(self, round_: Round, players: BestElection) -> None:
        position = round_.current
        if position is None or round_.state not in (DECIDING, CLEARING):
            raise MathError(f"round {round_.number} waits in {round_.state}, which math mode does not step")
        if round_.state == DECIDING:
            round_.handle(Choose(position.seat, players.choose(position)))
        else:
            round_.handle(ClearHand(position.seat))


def observed(round_: Round) -> Iterable[tuple[str, str]]:
    """Each position's three-card total (686a.7(k)-(m))."""
    return [("three-card total", str(position.total)) for position in round_.positions.values()]


def staked(round_: Round) -> Iterable[tuple[str, int, int]]:
    """The Over 23 or Under 18 Wager each player staked on electing (686a.7(g)(1)-(2))."""
    return [
        (str(position.choice), seat, position.stake)
        for seat, position in round_.positions.items()
        if position.choice is not None and position.choice is not Choice.SURRENDER
    ]


def simulated(rng: random.Random, rules: RuleSet, dealing: OverUnderDealing) -> FirstCardPlayers:
    return FirstCardPlayers(rng)


MATH = MathGame(
    dealing=OverUnderDealing,
    strategies={"best": BestElection, "simulated": simulated},
    strategy_notes={
        "best": "the election of highest expected return on the first card, counted exactly from the "
        "configured decks: the game-math figure",
        "simulated": "the simulator's players: Over on 9 or more, Under on 5 or less, random stakes",
    },
    observed=observed,
    staked=staked,
)
