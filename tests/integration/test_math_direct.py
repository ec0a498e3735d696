"""Math mode's direct engine (decision 0052): Free Bet Blackjack's round played straight through
comes out as the table's Round comes out from the same cards and players: the same cards taken, the
same wagers staked, every settlement alike and in the same order, for the same clause, the dealer
left the same cards. Played here with every round checked, over rule sets that change what a hand
may do and how it is settled, and both strategies; and a run's report is the same from either
engine. The check itself is shown to stop a run at a difference."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from games.common.config import Rounding
from games.common.movement import Movement
from games.free_bet_blackjack import RuleSet
from games.free_bet_blackjack.hand import card_value
from games.free_bet_blackjack.inputs import EvenMoney, Insure, PlaceWager, PlayerAction
from games.free_bet_blackjack.positions import Hand
from games.free_bet_blackjack.rules_config import SettlementOrder
from games.free_bet_blackjack.settlement import WagerKind
from games.free_bet_blackjack.stacked import StackedShoe
from simulator.games.registry import example_rules
from simulator.math import free_bet_blackjack as free_bet_math
from simulator.math.direct import RoundsDiffer, play_direct
from simulator.math.free_bet_blackjack import UNIT, FreeBetBasicStrategy, FreeBetDealing
from simulator.math.free_bet_blackjack import direct as free_bet_blackjack_direct
from simulator.math.free_bet_blackjack.direct import DirectTable
from simulator.math.play import play_round
from simulator.math.run import DIRECT, MACHINE, Engine, play_math, play_share, report
from vocabulary.cards import Card
from vocabulary.rules import RuleViolation

FBB = "free-bet-blackjack"
EXAMPLE: RuleSet = example_rules(FBB)  # type: ignore[assignment]  # Free Bet Blackjack's RuleSet
#: Rule sets that change the decisions a hand may take and how it is settled.
RULES = {
    "example": EXAMPLE,
    "paid doubles and splits, free on 10, 11, aces and 8s, player by player, odd cents up": replace(
        EXAMPLE,
        paid_doubles=True,
        paid_splits=True,
        free_double_totals=frozenset({10, 11}),
        free_split_ranks=frozenset({1, 8}),
        settlement_order=SettlementOrder.PLAYER_BY_PLAYER,
        odd_cent_rounding=Rounding.UP,
    ),
    "no double after a split, aces not resplit, two hands, no free 4s or 5s": replace(
        EXAMPLE,
        double_after_split=False,
        resplit_aces=False,
        max_hands=2,
        free_split_ranks=frozenset({1, 2, 3, 6, 7, 8, 9}),
    ),
    "three seats, eight decks, free doubles on 10 and 11 only": replace(
        EXAMPLE, positions=3, decks=8, free_double_totals=frozenset({10, 11})
    ),
}


@pytest.mark.parametrize("strategy", ["basic", "simulated"])
@pytest.mark.parametrize("rules", RULES.values(), ids=list(RULES))
def test_every_round_played_straight_through_settles_as_the_tables_round(strategy, rules):
    """672a.7(e)-(r): every round checked (check every 1): a difference would stop the share."""
    tally = play_share(FBB, rules, strategy, 5, 0, 300, engine=Engine(DIRECT, 1))
    assert tally.checked == tally.rounds == 300
    assert tally.shoes > 10  # rounds across shoe changes: the cover card came out (672a.7(d))


def test_without_push_22_wagers_the_dealer_stops_as_the_tables_round_does():
    """672a.7(m): with no Push 22 Wager on the table (a table without its pay table takes none), the
    dealer draws only while some hand's outcome can change; checked every round."""
    rules = replace(EXAMPLE, push22_pay_table=None, positions=1)
    tally = play_share(FBB, rules, "basic", 9, 0, 400, engine=Engine(DIRECT, 1))
    assert tally.checked == 400 and "push22" not in tally.wagers
    finals = tally.observed["dealer final total"]
    assert any(final.isdigit() and int(final) < 17 for final in finals)  # stopped short: the hand bust


class Insuring(FreeBetBasicStrategy):
    """Basic strategy that insures every hand for half its wager and takes even money with a Blackjack."""

    def insurance(self, hand: Hand, dealer_up: Card) -> Insure | EvenMoney | None:
        return EvenMoney(hand.seat) if hand.blackjack else Insure(hand.seat, UNIT // 2)


def test_insurance_and_even_money_settle_as_the_tables_round():
    """672a.7(f), (g)(2), (h)(1): insurance and even money on every ace, each round checked."""
    dealing = FreeBetDealing(EXAMPLE, random.Random(3))
    players = Insuring(random.Random(3), EXAMPLE)
    settled: list[tuple[str, str]] = []

    def each(round_: free_bet_blackjack_direct.DirectRound) -> None:
        settled.extend((action.wager, action.movement) for action in round_.actions)

    checked = play_direct(EXAMPLE, players, dealing, DirectTable(EXAMPLE), 600, each, 1)
    assert checked == 600
    insurance_paid, even_money = (WagerKind.INSURANCE, Movement.PAY), (WagerKind.BLACKJACK, Movement.PAY)
    assert insurance_paid in settled and (WagerKind.INSURANCE, Movement.COLLECT) in settled
    assert settled.count(even_money) > settled.count(insurance_paid)


@pytest.mark.parametrize("strategy", ["basic", "simulated"])
def test_a_runs_report_is_the_same_from_either_engine(strategy):
    """The figures a review quotes do not depend on the engine: the report of a seed and a worker
    count is the same, but for the engine it names."""
    reports = {}
    for engine in (Engine(MACHINE), Engine(DIRECT)):
        tally = play_math(FBB, EXAMPLE, rounds=1200, seed=21, workers=2, strategy=strategy, engine=engine)
        reports[engine.name] = report(
            FBB, EXAMPLE, tally, seed=21, workers=2, strategy=strategy, engine=engine
        )
    direct, machine = reports[DIRECT], reports[MACHINE]
    assert direct.pop("engine") == {"name": DIRECT, "check_every": 200, "checked_rounds": 8}
    assert machine.pop("engine") == {"name": MACHINE}
    assert direct == machine


def test_checking_a_round_changes_nothing_the_run_goes_on_with():
    """The check plays a copy of the shoe and of the players: checking every round or none gives the
    same tally (the simulated players draw their stakes from a generator)."""
    every = play_share(FBB, EXAMPLE, "simulated", 4, 0, 200, engine=Engine(DIRECT, 1))
    never = play_share(FBB, EXAMPLE, "simulated", 4, 0, 200, engine=Engine(DIRECT, 1000))
    assert (every.checked, never.checked) == (200, 1)  # the first round is always checked
    assert every.report() == never.report()


def test_a_round_settled_otherwise_stops_the_run(monkeypatch):
    """A direct round that dropped a settlement is found at the next round checked, by number."""
    play = DirectTable.play

    def dropping(self, number, shoe, players):
        round_ = play(self, number, shoe, players)
        if number == 6:
            round_.actions.pop()
        return round_

    monkeypatch.setattr(DirectTable, "play", dropping)
    play_share(FBB, EXAMPLE, "basic", 4, 0, 5, engine=Engine(DIRECT, 3))  # round 6 is not reached
    with pytest.raises(RoundsDiffer, match=r"round 6: played straight through, settled \["):
        play_share(FBB, EXAMPLE, "basic", 4, 0, 12, engine=Engine(DIRECT, 3))


def test_a_round_that_takes_another_card_stops_the_run(monkeypatch):
    play = DirectTable.play

    def one_more(self, number, shoe, players):
        round_ = play(self, number, shoe, players)
        shoe.take()
        return round_

    monkeypatch.setattr(DirectTable, "play", one_more)
    with pytest.raises(RoundsDiffer, match=r"round 1: played straight through, took \+1 cards more"):
        play_share(FBB, EXAMPLE, "basic", 4, 0, 3, engine=Engine(DIRECT, 1))


class Surrendering(FreeBetBasicStrategy):
    def decide(self, hand, dealer_up, legal):
        return PlayerAction.SURRENDER


class OverInsuring(FreeBetBasicStrategy):
    def insurance(self, hand, dealer_up):
        return Insure(hand.seat, UNIT)


def test_a_decision_the_rules_refuse_is_refused_with_its_clause():
    """672a.7(h)(2): no surrender, refused as the table's Round refuses it; 672a.7(f): insurance
    over half the wager stops the run, naming the clause."""
    table = DirectTable(EXAMPLE)
    dealing = FreeBetDealing(EXAMPLE, random.Random(1))
    with pytest.raises(RuleViolation, match=r"672a\.7\(h\)\(2\)"):
        for number in range(1, 20):
            dealing.end(table.play(number, dealing.shoe, Surrendering(random.Random(1), EXAMPLE)))
    with pytest.raises(RuleViolation, match=r"over half the Blackjack Wager"):
        for number in range(1, 200):  # until the dealer shows an ace
            dealing.end(table.play(number, dealing.shoe, OverInsuring(random.Random(1), EXAMPLE)))


# What an independent review of the direct round found: players the table's Round takes, that the
# direct round or its check took otherwise. Each test failed before its fix.


class Replacing(FreeBetBasicStrategy):
    """Places a Push 22 Wager, then places the position again without one (672a.7(e)(1))."""

    def wagers(self, number, positions):
        return [PlaceWager(1, UNIT, 500), PlaceWager(1, UNIT, 0)]


class Counting(FreeBetBasicStrategy):
    """Reads the cards dealt from the shoe it is given and stands on 12-16 when many were low."""

    def __init__(self, rng, rules, dealing=None):
        super().__init__(rng, rules, dealing)
        self.dealing = dealing

    def decide(self, hand, up, legal):
        count = sum((card_value(card) <= 6 and card.rank != 1) - (card_value(card) >= 10 or card.rank == 1)
                    for card in self.dealing.shoe.dealt)  # fmt: skip
        if count > 2 and 12 <= hand.total.value <= 16 and PlayerAction.HIT in legal:
            return PlayerAction.STAND
        return super().decide(hand, up, legal)


class Alternating(FreeBetBasicStrategy):
    """Keeps state of its own: hits and stands on hard 16 in turn."""

    def __init__(self, rng, rules, dealing=None):
        super().__init__(rng, rules, dealing)
        self.sixteens = {"seen": 0}

    def decide(self, hand, up, legal):
        if hand.total.value == 16 and not hand.total.soft and PlayerAction.HIT in legal:
            self.sixteens["seen"] += 1
            return PlayerAction.HIT if self.sixteens["seen"] % 2 else PlayerAction.STAND
        return super().decide(hand, up, legal)


class Editing(FreeBetBasicStrategy):
    """Crosses out of the decisions it is offered one it does not want."""

    def decide(self, hand, up, legal):
        choice = super().decide(hand, up, dict(legal))
        legal.pop(PlayerAction.DOUBLE_DOWN, None)
        return choice


class InsuringTheNext(FreeBetBasicStrategy):
    """Asked at seat 1, insures seat 2's hand."""

    def insurance(self, hand, up):
        return Insure(2, UNIT // 2) if hand.seat == 1 else None


@pytest.mark.parametrize("players", [Replacing, Editing, InsuringTheNext])
def test_players_the_tables_round_takes_are_played_alike(players):
    dealing = FreeBetDealing(EXAMPLE, random.Random(2))
    assert play_direct(EXAMPLE, players(random.Random(2), EXAMPLE), dealing, DirectTable(EXAMPLE), 300,
                       lambda round_: None, 1) == 300  # fmt: skip


@pytest.mark.parametrize("players", [Counting, Alternating])
def test_players_who_read_the_shoe_or_keep_state_get_one_report_however_checked(monkeypatch, players):
    """The check plays a copy of the players that reads a copy of the shoe: checking every round,
    none, or playing through the round machine gives one report."""
    monkeypatch.setitem(free_bet_math.MATH.strategies, "reviewed", players)
    every = play_share(FBB, EXAMPLE, "reviewed", 5, 0, 300, engine=Engine(DIRECT, 1))
    never = play_share(FBB, EXAMPLE, "reviewed", 5, 0, 300, engine=Engine(DIRECT, 1000))
    machine = play_share(FBB, EXAMPLE, "reviewed", 5, 0, 300, engine=Engine(MACHINE))
    assert every.checked == 300
    assert every.report() == never.report() == machine.report()


class SittingOut(FreeBetBasicStrategy):
    def wagers(self, number, positions):
        return []


class OffTheLayout(FreeBetBasicStrategy):
    def wagers(self, number, positions):
        return [PlaceWager(positions + 1, UNIT, 0)]


@pytest.mark.parametrize(("players", "clause"), [(SittingOut, "672a.7(e)"), (OffTheLayout, "672a.2")])
def test_a_round_the_tables_round_refuses_is_refused_unchecked(players, clause):
    """No wager placed, or a seat off the layout: refused with the clause, as the table's Round
    refuses it, on a round the check does not reach."""
    with pytest.raises(RuleViolation) as refused:
        play_round(EXAMPLE, players(random.Random(3), EXAMPLE), FreeBetDealing(EXAMPLE, random.Random(3)), 1)
    with pytest.raises(RuleViolation) as direct:
        play_direct(EXAMPLE, players(random.Random(3), EXAMPLE), FreeBetDealing(EXAMPLE, random.Random(3)),
                    DirectTable(EXAMPLE), 3, lambda round_: None, 1000)  # fmt: skip
    assert direct.value.rule == refused.value.rule and refused.value.rule.clause.startswith(clause)


def test_the_check_compares_the_dealers_blackjack(monkeypatch):
    """A direct round wrong only in the dealer's Blackjack (what the report's dealer final total
    reads) is found: seat 1 holds A K and takes even money, the dealer shows A over a K."""
    play = free_bet_blackjack_direct.play_round

    def forgetting(*args):
        round_ = play(*args)
        round_.dealer_has_blackjack = False
        return round_

    class EvenMoneyAtOneSeat(FreeBetBasicStrategy):
        def wagers(self, number, positions):
            return [PlaceWager(1, UNIT, 0)]

        def insurance(self, hand, up):
            return EvenMoney(hand.seat)

    monkeypatch.setattr(free_bet_blackjack_direct, "play_round", forgetting)
    dealing = FreeBetDealing(EXAMPLE, random.Random(1))
    ace, king = Card.parse("As"), Card.parse("Kh")
    dealing.shoe = StackedShoe([ace, ace, king, king])  # the round takes these four
    with pytest.raises(RoundsDiffer, match="round 1: played straight through, dealer Blackjack False"):
        play_direct(EXAMPLE, EvenMoneyAtOneSeat(random.Random(1), EXAMPLE), dealing, DirectTable(EXAMPLE), 1,
                    lambda round_: None, 1)  # fmt: skip
