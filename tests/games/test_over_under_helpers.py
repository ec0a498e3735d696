"""Helpers shared by the Over/Under tests (this module holds no tests: the game's test files are all
named test_over_under_*.py): a posted Bonus table, stacked shoes and the dealer's steps of a round."""

from __future__ import annotations

from collections.abc import Mapping

from games.free_bet_blackjack.records import RecordKind
from games.free_bet_blackjack.stacked import StackedShoe
from games.over_under import Round, RuleSet
from games.over_under.inputs import Choice, Choose, ClearHand, Discard, PlaceWager, ShoeStatus, StartDeal
from tests.games import faces

#: A posted Bonus table, distinct odds per total so a wrong line shows (not a PA table: none was found).
BONUS_TABLE = {6: "100:1", 7: "50:1", 8: "30:1", 9: "20:1", 10: "10:1", 11: "5:1", 12: "2:1"} | {
    27: "3:1",
    28: "4:1",
    29: "8:1",
    30: "15:1",
    31: "25:1",
    32: "40:1",
    33: "200:1",
}
RULES = RuleSet.example(bonus_pay_table=BONUS_TABLE)
READY = ShoeStatus.ready()
OVER, UNDER, SURRENDER = Choice.OVER_23, Choice.UNDER_18, Choice.SURRENDER


def new_round(
    shoe: str, wagers: Mapping[int, int | tuple[int, int]] | None = None, rules: RuleSet = RULES
) -> tuple[Round, StackedShoe]:
    """A round with its wagers placed (1000 cents of Ante at seat 1 by default), not yet dealt;
    ``shoe`` lists the cards in the order they leave the shoe (``COVER`` for the cover card)."""
    stacked = StackedShoe(faces(shoe))
    round_ = Round(1, rules=rules, dealer="D-1")
    for seat, amounts in ({1: 1000} if wagers is None else wagers).items():
        ante, bonus = amounts if isinstance(amounts, tuple) else (amounts, 0)
        round_.handle(PlaceWager(seat, ante, bonus))
    return round_, stacked


def dealt(
    shoe: str, wagers: Mapping[int, int | tuple[int, int]] | None = None, rules: RuleSet = RULES
) -> tuple[Round, StackedShoe]:
    """A round whose first cards are dealt (686a.7(e)): waiting for the first election."""
    round_, stacked = new_round(shoe, wagers, rules)
    round_.handle(StartDeal(READY))
    stacked.deal_all_due(round_)
    return round_, stacked


def elect(round_: Round, choices: Mapping[int, Choice]) -> None:
    """Every player's election, in the order given (clockwise for a legal round), before any
    additional card (686a.7(f))."""
    for seat, choice in choices.items():
        round_.handle(Choose(seat, choice))


def draw(round_: Round, shoe: StackedShoe, seat: int) -> None:
    """``seat``, whose turn it is, receives its two cards, is settled, and its cards go to the rack
    (686a.7(i)-(j))."""
    shoe.deal_all_due(round_)
    round_.handle(ClearHand(seat))


def play(round_: Round, shoe: StackedShoe, seat: int, choice: Choice) -> None:
    """A round's only player elects, receives its two cards, is settled, and its cards go to the
    rack."""
    round_.handle(Choose(seat, choice))
    draw(round_, shoe, seat)


def play_all(round_: Round, shoe: StackedShoe, choices: Mapping[int, Choice]) -> None:
    """Every player elects, clockwise, before any additional card (686a.7(f)); then each in turn
    receives two cards, is settled and racked (686a.7(i)-(j))."""
    elect(round_, choices)
    for seat in choices:
        draw(round_, shoe, seat)


def finish(round_: Round) -> None:
    round_.handle(Discard(len(round_.pickup_order())))


def movements(round_: Round) -> list[tuple[int, str, str, int]]:
    """The settlement as (seat, wager, movement, amount), in the order made."""
    return [(a.seat, a.wager.value, a.movement.value, a.amount) for a in round_.actions]


#: The steps of a round's record, by kind: a card, an election, a settlement, a card into the rack.
STEP = {RecordKind.CARD: "C", RecordKind.DECISION: "D", RecordKind.SETTLEMENT: "S", RecordKind.PICKUP: "P"}


def steps(round_: Round) -> str:
    """The round's record as steps, each with its seat: ``C1 C2 D1 D2 C1 C1 S1 S1 P1 P1 P1 ...``
    (a card set aside by a ruling is ``Pset aside``)."""
    return " ".join(
        f"{STEP[r.kind]}{r.fields.get('seat') or str(r.fields['place']).removeprefix('seat ')}"
        for r in round_.records
        if r.kind in STEP
    )


def irregularities(round_: Round) -> list[tuple[str, str]]:
    return [(r.fields["code"], r.fields["clause"]) for r in round_.log.of(RecordKind.IRREGULARITY)]
