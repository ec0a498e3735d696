"""Free Bet Blackjack in math mode: its Round fed as FreeBetBlackjackTable feeds it, the peek
answered by the stacked shoe's card reader, and two strategies.

``basic`` (the default) is the basic strategy for the rules as configured, worked out here rather
than copied from a chart: for each decision the expected value of every choice the round allows
(``legal_decisions``: stand, hit, a free or paid double, a free or paid split) is computed for an
infinite deck (each rank 1/13, ten-values 4/13) against the dealer's up card, the dealer standing
on all 17s (672a.7(l)) and having no Blackjack (the peek, 672a.7(g), settled that before any
decision), a dealer 22 pushing every hand not bust (672a.7(p)), and the Free Bet lammer paid only
when its hand wins (672a.7(o)); the choice of highest value is taken. A free split is valued as
one hand for the money and one for a lammer, each from the split card, doubling after the split as
the rules allow and not resplitting (a resplit is still taken at the table when offered and best).
It never insures and never takes even money (neither pays without counting cards). Every position
places the same Blackjack Wager and, where the table has the Push 22 pay table, the same Push 22
Wager, so the dealer always draws (672a.7(m)) and both wagers are measured over every round.

``simulated`` is the simulator's players (simulator.games.free_bet_blackjack.BasicStrategyPlayers):
a rough strategy, random stakes, Push 22 on a quarter of the positions.
"""

from __future__ import annotations

import copy
import functools
import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from games.common.seating import clockwise
from games.free_bet_blackjack import Round, RuleSet
from games.free_bet_blackjack.decisions import Stake
from games.free_bet_blackjack.hand import card_value, is_pair, total
from games.free_bet_blackjack.inputs import (
    CloseInsurance,
    Decision,
    EvenMoney,
    Insure,
    PeekAnswer,
    PlaceWager,
    PlayerAction,
    RevealHole,
    Settle,
)
from games.free_bet_blackjack.machine import DEALER_BLACKJACK, DEALER_TURN, INSURANCE, PEEKING, PLAYER_TURNS
from games.free_bet_blackjack.positions import Hand
from games.free_bet_blackjack.stacked import StackedShoe
from simulator.games.free_bet_blackjack import BasicStrategyPlayers
from simulator.math.free_bet_blackjack.direct import DirectRound, DirectTable
from simulator.math.play import MathError, MathGame, ShoeDealing
from vocabulary.cards import Card

#: Each card value's chance from an infinite deck: 1 (ace) to 9 one rank each, 10 four ranks.
CHANCE = {value: (4 if value == 10 else 1) / 13 for value in range(1, 11)}
#: The cents every position stakes on each wager it places.
UNIT = 1000
#: The dealer's final totals that count: 17 to 21, 22 (pushes), and BUST (23 or more).
BUST = 23


@dataclass(frozen=True)
class Value:
    """What a hand played on is worth, per unit of its stake: ``money``, the expected result of the
    money on it; ``lammers``, the expected winnings of the lammers a free double adds; ``win``, the
    chance the hand wins (what a free split's lammer hand is worth)."""

    money: float
    lammers: float
    win: float

    @property
    def total(self) -> float:
        return self.money + self.lammers


def _total(hard: int, ace: bool) -> tuple[int, bool]:
    """The blackjack total (and whether it is soft) of cards summing ``hard`` with aces as 1."""
    if ace and hard + 10 <= 21:
        return hard + 10, True
    return hard, False


@functools.cache
def dealer_finals(up: int) -> dict[int, float]:
    """The chance of each final dealer total (17..22, BUST) given the up card's value, the dealer
    standing on all 17s and, after the peek, holding no Blackjack."""
    finals: dict[int, float] = {}

    def draw(hard: int, ace: bool, chance: float, hole: bool) -> None:
        value, _soft = _total(hard, ace)
        if value >= 17:
            key = min(value, BUST)
            finals[key] = finals.get(key, 0.0) + chance
            return
        excluded = {1: 10, 10: 1}.get(up) if hole else None  # the peek ruled the Blackjack out
        left = 1.0 - (CHANCE[excluded] if excluded else 0.0)
        for card, p in CHANCE.items():
            if card != excluded:
                draw(hard + card, ace or card == 1, chance * p / left, False)

    draw(up, up == 1, 1.0, True)
    return finals


def _stand(total: int, up: int) -> Value:
    if total > 21:
        return Value(-1.0, 0.0, 0.0)
    win = lose = 0.0
    for final, p in dealer_finals(up).items():
        if final == BUST or (final < total and final != 22):
            win += p
        elif final > total and final != 22:
            lose += p
    return Value(win - lose, 0.0, win)


@functools.cache
def _played(hard: int, ace: bool, up: int) -> Value:
    """A hand past its first decision: the better of standing and hitting."""
    total, _soft = _total(hard, ace)
    stand = _stand(total, up)
    if total >= 21:
        return stand
    hit = _hit(hard, ace, up)
    return hit if hit.total > stand.total else stand


def _hit(hard: int, ace: bool, up: int) -> Value:
    return _mix(
        (p, _played(hard + card, ace or card == 1, up) if hard + card <= 21 else Value(-1.0, 0.0, 0.0))
        for card, p in CHANCE.items()
    )


def _double(hard: int, ace: bool, up: int, stake: Stake) -> Value:
    """One card, then stand: the lammer (free) or the money (paid) matches the stake."""
    after = _mix((p, _stand(_total(hard + card, ace or card == 1)[0], up)) for card, p in CHANCE.items())
    if stake is Stake.FREE:
        return Value(after.money, after.win, after.win)
    return Value(2 * after.money, 0.0, after.win)


def _mix(weighted: Iterable[tuple[float, Value]]) -> Value:
    money = lammers = win = 0.0
    for p, value in weighted:
        money, lammers, win = money + p * value.money, lammers + p * value.lammers, win + p * value.win
    return Value(money, lammers, win)


class FreeBetBasicStrategy:
    """Basic strategy for the table's rules (module docstring): flat wagers on every position, the
    choice of highest expected value among those the round offers, no insurance."""

    def __init__(self, rng: random.Random, rules: RuleSet, dealing: object = None) -> None:
        self.rules = rules
        self.push22 = UNIT if rules.push22_pay_table is not None else 0
        self._chosen: dict[tuple[object, ...], PlayerAction] = {}
        self._placed: dict[int, list[PlaceWager]] = {}

    def __deepcopy__(self, memo: dict[int, object]) -> FreeBetBasicStrategy:
        """A copy that plays alike (simulator.math.direct plays a round twice, once with a copy):
        everything copied but the choices and wagers worked out, which are a function of their keys
        and the rules and are shared, rather than some hundreds copied for each round checked."""
        twin = copy.copy(self)
        for name, value in vars(self).items():
            if name not in ("_chosen", "_placed"):
                setattr(twin, name, copy.deepcopy(value, memo))
        return twin

    def wagers(self, round_number: int, positions: int) -> Sequence[PlaceWager]:
        placed = self._placed.get(positions)
        if placed is None:  # the same every round: made once, not checked again each round
            placed = self._placed[positions] = [
                PlaceWager(seat, UNIT, self.push22) for seat in range(1, positions + 1)
            ]
        return placed

    def insurance(self, hand: Hand, dealer_up: Card) -> Insure | EvenMoney | None:
        return None

    def decide(self, hand: Hand, dealer_up: Card, legal: dict[PlayerAction, Stake | None]) -> PlayerAction:
        """The choice of highest value, worked out once for each hand that plays alike: its total (a
        soft total is its hard count with an ace, a hard one values alike with an ace or without,
        however many cards make it), its pair, whether it was split, the choices offered and the
        dealer's up card. The pair and the up card are keyed by rank, which gives the value without
        a call (a ten, jack, queen and king are worked out alike, once each)."""
        cards, counted = hand.cards, hand.total
        key = (
            counted.value,
            counted.soft,
            cards[0].rank if is_pair(cards) else 0,
            hand.split,
            tuple(legal.items()),  # legal lists the choices in PlayerAction's order
            dealer_up.rank,
        )
        chosen = self._chosen.get(key)
        if chosen is None:
            values = self.values(hand.cards, card_value(dealer_up), legal)
            chosen = max(values, key=lambda action: values[action].total)
            self._chosen[key] = chosen
        return chosen

    def values(
        self, cards: Sequence[Card], up: int, legal: dict[PlayerAction, Stake | None]
    ) -> dict[PlayerAction, Value]:
        """The value of each choice ``legal`` offers for a hand of ``cards`` against ``up``."""
        hard = sum(card_value(card) for card in cards)
        ace = any(card.rank == 1 for card in cards)
        values = {PlayerAction.STAND: _stand(_total(hard, ace)[0], up)}
        if PlayerAction.HIT in legal:
            values[PlayerAction.HIT] = _hit(hard, ace, up)
        stake = legal.get(PlayerAction.DOUBLE_DOWN)
        if stake is not None:
            values[PlayerAction.DOUBLE_DOWN] = _double(hard, ace, up, stake)
        stake = legal.get(PlayerAction.SPLIT)
        if stake is not None:
            values[PlayerAction.SPLIT] = self._split(card_value(cards[0]), up, stake)
        return values

    def _split(self, card: int, up: int, stake: Stake) -> Value:
        """Two hands from ``card``: the money's, and the lammer's (free) or more money (paid)."""
        one = _mix((p, self._split_hand(card, drawn, up)) for drawn, p in CHANCE.items())
        if stake is Stake.FREE:
            return Value(one.money, 2 * one.lammers + one.win, one.win)
        return Value(2 * one.money, 2 * one.lammers, one.win)

    def _split_hand(self, card: int, drawn: int, up: int) -> Value:
        hard, ace = card + drawn, card == 1 or drawn == 1
        total, soft = _total(hard, ace)
        best = _played(hard, ace, up)
        if self.rules.double_after_split:
            if not soft and total in self.rules.free_double_totals:
                best = max(best, _double(hard, ace, up, Stake.FREE), key=lambda value: value.total)
            elif self.rules.paid_doubles:
                best = max(best, _double(hard, ace, up, Stake.PAID), key=lambda value: value.total)
        return best


class FreeBetDealing(ShoeDealing):
    """The table's shoe and card reader (games.free_bet_blackjack.stacked), and what
    FreeBetBlackjackTable._step_in does when the round expects no card, the players answering at once."""

    stacked = StackedShoe

    def new_round(self, number: int) -> Round:
        return Round(number, rules=self.rules, verify=self.shoe.verify, dealer="math")  # type: ignore[arg-type]  # the game's RuleSet

    def answer(self, round_: Round, players: FreeBetBasicStrategy) -> None:
        state, up, shoe = round_.state, round_.dealer_up, self.shoe
        if state == INSURANCE:
            assert up is not None
            for seat in clockwise(round_.positions):
                answer = players.insurance(round_.positions[seat].dealt_hand, up)
                if answer is not None:
                    round_.handle(answer)
            round_.handle(CloseInsurance())
        elif state == PEEKING:
            assert up is not None and round_.hole is not None and isinstance(shoe, StackedShoe)
            round_.handle(PeekAnswer(shoe.reader_answer(up, round_.hole)))
        elif state == PLAYER_TURNS and round_.current_hand is not None:
            hand = round_.current_hand
            assert up is not None
            round_.handle(Decision(hand.seat, players.decide(hand, up, round_.legal_decisions())))
        elif state in (PLAYER_TURNS, DEALER_BLACKJACK):
            assert round_.hole is not None
            round_.handle(RevealHole(shoe.turn_up(round_.hole)))
        elif state == DEALER_TURN:
            round_.handle(Settle())
        else:
            raise MathError(f"round {round_.number} waits in {state}, which math mode does not step")


def observed(round_: Round | DirectRound) -> Iterable[tuple[str, str]]:
    """The dealer's final total (``blackjack`` for a Blackjack the peek found)."""
    final = "blackjack" if round_.dealer_has_blackjack else str(total(round_.dealer_cards).value)
    return [("dealer final total", final)]


def simulated(rng: random.Random, rules: RuleSet, dealing: FreeBetDealing) -> BasicStrategyPlayers:
    return BasicStrategyPlayers(rng)


MATH = MathGame(
    dealing=FreeBetDealing,
    strategies={"basic": FreeBetBasicStrategy, "simulated": simulated},
    strategy_notes={
        "basic": "basic strategy for the rules as configured, computed for an infinite deck (the "
        "choice of highest expected value), flat wagers, never insured: the game-math figure",
        "simulated": "the simulator's players: rough strategy, random stakes, Push 22 on some positions",
    },
    belongs={"lammer": "blackjack"},
    observed=observed,
    direct=DirectTable,
)
