"""58 Pa. Code § 657a.9, Crazy 4 Poker dealt from the hand, as the auditor reads it, and the
settlement that needs each hand known.

The round: every wager before "no more bets" and no card before it (a)(3); a Six Card Bonus card
first when that wager was placed, then one card at a time, clockwise, to each player with the
required wagers and to the dealer, until each has five (b); the stub to the rack after the deal
(c); the stub counted at least every 5 rounds without a counting shuffler (d). A wager is settled
only on a hand that is known (§ 657a.11 compares the hands); Queens Up is paid by the table's pay
table on the player's best four cards.
"""

from __future__ import annotations

from collections.abc import Iterator

from croupier.audit.procedure import stub
from croupier.audit.procedure.engine import (
    Before,
    Check,
    Round,
    Rules,
    Step,
    Table,
    Violation,
    betting,
    betting_named,
    expect_places,
    no_more_bets_first,
)
from croupier.audit.procedure.hands import faces
from croupier.audit.procedure.pay import owed
from games.crazy_4_poker.evaluator import Category, best_four, four_aces, queens_or_better

SECTION = "657a.9"
SETTLED_ON_HANDS = "657a.11"
SIX_CARD = ("six card bonus", "six-card")
HAND_SIZE = 5
#: Wagers a folded player loses without the hand being shown, and the progressive, collected at the
#: lock (657a.9(a)(3)): neither needs a hand known.
WITHOUT_A_HAND = ("progressive",)
FOLD_LOSES = ("ante", "super_bonus", "play")
MOVEMENTS = ("collect", "pay", "push")

CHECKS: tuple[Check, ...] = (
    Check(f"{SECTION}(a)(3)", 'every wager before "no more bets", and "no more bets" before the first card'),
    Check(
        f"{SECTION}(b)",
        "a Six Card Bonus card first when that wager was placed, then one card at a time clockwise to "
        "each position with the required wagers and to the dealer, until each has five",
    ),
    Check(f"{SECTION}(c)", "the stub to the discard rack after the last card dealt; no card after it"),
    *stub.checks(f"{SECTION}(d)"),
)
#: Checks of clauses outside the seed section (listed for docs/audit.md, not docs/conformance.md).
SETTLEMENT_CHECKS: tuple[Check, ...] = (
    Check(
        SETTLED_ON_HANDS,
        "no wager settled (paid, returned or collected) on a hand not reported, but a folded player's "
        "Ante, Super Bonus and Play and the progressive collected at the lock",
    ),
    Check(SETTLED_ON_HANDS, "every wager settled: collected, paid or returned, none left referred"),
    Check(SETTLED_ON_HANDS, "Queens Up paid by the table's pay table on the player's best four cards"),
)


def _order() -> tuple[Before, ...]:
    return (
        Before(
            f"{SECTION}(a)(3)",
            'every wager before "no more bets"',
            betting,
            lambda s: s.kind == "no_more_bets",
            betting_named,
            '"no more bets"',
        ),
        no_more_bets_first(f"{SECTION}(a)(3)"),
        Before(
            f"{SECTION}(c)",
            "the stub to the rack after the last card dealt",
            lambda s: s.kind == "card",
            lambda s: s.kind == "stub" and s.get("to") != "dealer's hand",
            lambda s: f"a card to {s.place}",
            "the stub to the rack",
        ),
    )


def judge(round_: Round, table: Table) -> Iterator[Violation]:
    for rule in _order():
        yield from rule.judge(round_)
    cards = round_.kind("card")
    seats = sorted(set(round_.wagered("ante")) & set(round_.wagered("super_bonus")))
    circle = [f"seat {seat}" for seat in seats] + ["dealer"]
    expected = circle * HAND_SIZE
    if round_.wagered("six_card_bonus"):
        six = next((c.place for c in cards[:1] if c.place in SIX_CARD), SIX_CARD[0])
        expected = [six, *expected]
    yield from expect_places(round_, cards, expected, f"{SECTION}(b)", "the deal")
    yield from stub.judge(f"{SECTION}(d)", round_, table)
    yield from _settled(round_, table.rules)


def _hands(round_: Round) -> dict[str, list[str]]:
    """Each place's faces, from the ``hand`` record that made them known."""
    known = {}
    for step in round_.kind("hand"):
        cards = step.get("cards")
        if isinstance(cards, str) and cards.strip():
            known[step.place] = cards.split()
    return known


def _settled(round_: Round, rules: Rules) -> Iterator[Violation]:
    hands = _hands(round_)
    folded = {s.seat for s in round_.kind("decision") if s.get("decision") == "fold"}
    # 657a.9(f): a void returns every wager whatever the hands; a return is no settlement on a hand.
    for step in round_.kind("settlement"):
        if round_.voided and step.get("movement") == "push":
            continue
        wager = step.get("wager")
        if step.get("movement") not in MOVEMENTS:
            yield Violation(
                round_.number,
                step.seq,
                SETTLED_ON_HANDS,
                f"{step.place}'s {wager} collected, paid or returned",
                f"{step.get('movement')} {step.get('amount')}",
            )
            continue
        if step.seat is None or wager in WITHOUT_A_HAND or (step.seat in folded and wager in FOLD_LOSES):
            continue
        hand = hands.get(step.place)
        if hand is None or len(hand) != HAND_SIZE:
            yield Violation(
                round_.number,
                step.seq,
                SETTLED_ON_HANDS,
                f"{step.place}'s {wager} settled on a known hand",
                f"{step.get('movement')} {step.get('amount')} with {step.place}'s hand never reported",
            )
        elif wager == "queens_up":
            yield from _queens_up(round_, step, hand, rules)


def _queens_up(round_: Round, step: Step, hand: list[str], rules: Rules) -> Iterator[Violation]:
    strength = best_four(faces(hand))[0]
    stake = round_.stake(step.seat or 0, "queens_up")
    table = rules.get("queens_up_pay_table") or {}
    if not table:  # no rules in force: the amount is not judged (the report's note says so)
        return
    at = None
    if queens_or_better(strength):
        line = "four_aces" if four_aces(strength) else strength.category.name.lower()
        if strength.category == Category.PAIR:
            line = "pair_of_queens"
        at = table.get(line) or table.get(strength.category.name.lower())
    movement, amount = ("pay", owed(stake, at, rules)) if at else ("collect", stake)
    if (step.get("movement"), step.get("amount")) != (movement, amount):
        yield Violation(
            round_.number,
            step.seq,
            SETTLED_ON_HANDS,
            f"{step.place}'s queens_up {movement} {amount}",
            f"recorded {step.get('movement')} {step.get('amount')}",
        )
