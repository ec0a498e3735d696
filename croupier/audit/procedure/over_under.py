"""58 Pa. Code § 686a.7, Over/Under, as the auditor reads it: the order of a round as data, and each
wager settled again from the recorded cards and the table's odds.

The round: every wager before the deal (e); one card face up to each Ante position, clockwise (e);
every player's election, clockwise, before any additional card (f); then player by player,
clockwise: two cards face up (i), the player's wagers settled (j), the cards to the rack, and only
then the next player (j).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from croupier.audit.procedure import shoe
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
)
from croupier.audit.procedure.hands import faces, over_under_points
from croupier.audit.procedure.pay import owed

SECTION = "686a.7"
ORDINAL = ("first", "second", "third", "fourth", "fifth")
ELECTIONS = {"over_23": "over_23_odds", "under_18": "under_18_odds"}


class _Deal:
    """Which cards of the round are the first cards (e) and which the additional cards (i)."""

    def __init__(self, round_: Round) -> None:
        self.seats = round_.wagered("ante")
        cards = round_.kind("card")
        self.first = cards[: len(self.seats)]
        self.additional = cards[len(self.seats) :]
        self.first_seqs = {card.seq for card in self.first}
        counts: dict[str, int] = {}
        self.ordinal: dict[int, str] = {}
        for card in cards:
            counts[card.place] = counts.get(card.place, 0) + 1
            self.ordinal[card.seq] = ORDINAL[min(counts[card.place], len(ORDINAL)) - 1]

    def is_additional(self, step: Step) -> bool:
        return step.kind == "card" and step.seq not in self.first_seqs

    def named(self, step: Step) -> str:
        return f"{step.place}'s {self.ordinal.get(step.seq, '')} card"


def _order(deal: _Deal) -> tuple[Before, ...]:
    return (
        Before(
            f"{SECTION}(e)",
            "every Ante and Bonus Wager before the first card",
            betting,
            lambda s: s.kind == "card",
            betting_named,
            lambda s: f"{s.place}'s first card",
        ),
        Before(
            f"{SECTION}(f)",
            "every player's election before any additional card",
            lambda s: s.kind == "decision",
            deal.is_additional,
            lambda s: f"{s.place} elected",
            deal.named,
        ),
    )


CHECKS: tuple[Check, ...] = (
    *shoe.checks(SECTION),
    Check(f"{SECTION}(e)", "every wager before the first card"),
    Check(f"{SECTION}(e)", "one card face up to each Ante position, clockwise, before any other card"),
    Check(f"{SECTION}(f)", "every player's election before any additional card"),
    Check(f"{SECTION}(f)", "the elections asked clockwise, one for each Ante position"),
    Check(f"{SECTION}(g)", "each election is Over 23, Under 18 or surrender; a wager equal to the Ante"),
    Check(f"{SECTION}(g)(3)", "a surrendered Ante Wager collected"),
    Check(f"{SECTION}(i)", "two additional cards face up to each player after the elections, surrender too"),
    Check(
        f"{SECTION}(j)", "a player's wagers settled after the player's two cards, before the next player's"
    ),
    Check(
        f"{SECTION}(k)",
        "Ante and Over 23 / Under 18 Wagers paid at the table's odds on the winning totals",
        "A total that (k) does not make a winner and (l) does not name (an Over 23 hand of 6 to 17, "
        "an Under 18 hand of 24 to 33) is read as lost: (k) lists every total on which the wagers win.",
    ),
    Check(f"{SECTION}(l)", "Ante and Over 23 / Under 18 Wagers collected on 18 to 23"),
    Check(f"{SECTION}(m)", "the Bonus Wager paid by the table's pay table on 6-12 and 27-33, else collected"),
)


def judge(round_: Round, table: Table) -> Iterator[Violation]:
    deal = _Deal(round_)
    yield from shoe.judge(SECTION, round_, table)
    for rule in _order(deal):
        yield from rule.judge(round_)
    yield from expect_places(
        round_, deal.first, [f"seat {seat}" for seat in deal.seats], f"{SECTION}(e)", "the first cards"
    )
    for card in deal.first + deal.additional:
        if card.get("face_up") is False:
            clause = f"{SECTION}(e)" if card.seq in deal.first_seqs else f"{SECTION}(i)"
            yield Violation(round_.number, card.seq, clause, "every card face up", "a card face down")
    yield from _elections(round_, deal)
    yield from _player_by_player(round_, deal)
    yield from _settled(round_, table.rules)


def _elections(round_: Round, deal: _Deal) -> Iterator[Violation]:
    decisions = round_.kind("decision")
    asked = [step.seat for step in decisions]
    for step, seat in zip(decisions, deal.seats, strict=False):
        if step.seat != seat:
            yield Violation(
                round_.number,
                step.seq,
                f"{SECTION}(f)",
                f"seat {seat}'s election next, clockwise",
                f"{step.place} elected",
            )
            return
    if round_.ended and len(asked) < len(deal.seats):
        missing = [seat for seat in deal.seats if seat not in asked]
        yield Violation(
            round_.number,
            None,
            f"{SECTION}(f)",
            "an election from every Ante position",
            f"none from seat {missing[0]}",
        )
    for step in decisions:
        choice, stake = step.get("choice"), round_.stake(step.seat or 0, "ante")
        if choice not in (*ELECTIONS, "surrender"):
            yield Violation(
                round_.number, step.seq, f"{SECTION}(g)", "Over 23, Under 18 or surrender", f"{choice!r}"
            )
        elif choice in ELECTIONS and step.get("amount") != stake:
            yield Violation(
                round_.number,
                step.seq,
                f"{SECTION}(g)",
                f"a wager equal to the Ante ({stake})",
                f"{step.get('amount')}",
            )


def _player_by_player(round_: Round, deal: _Deal) -> Iterator[Violation]:
    """After the elections, clockwise: a player's two cards (i), that player's settlement (j), and
    only then the next player's cards."""
    last_decision = max((s.seq for s in round_.kind("decision")), default=0)
    early = {card.seat for card in deal.additional if card.seq < last_decision}  # reported by (f)
    queue = [seat for seat in deal.seats if seat not in early]
    surrendered = {s.seat for s in round_.kind("decision") if s.get("choice") == "surrender"}
    # (g)(3), (h): a surrender's Ante is collected at the election; only its Bonus, if any, is left
    # for (j) to settle. A surrender without a Bonus has nothing to settle after its cards.
    bonus = set(round_.wagered("bonus"))
    nothing_left = surrendered - bonus
    current, cards, settled = None, 0, False
    for step in round_.steps:
        if step.seq <= last_decision or step.seq in deal.first_seqs or step.seat in early:
            continue
        if current is None and step.seat in surrendered and step.get("wager") == "ante":
            continue  # (g)(3): the surrendered Ante is collected at the election
        if step.kind == "card":
            if step.seat == current:
                cards += 1
                if cards > 2:
                    yield _found(
                        round_, step, "(i)", "two additional cards to each player", f"a third to {step.place}"
                    )
                    return
                continue
            if current is not None and (cards < 2 or not (settled or current in nothing_left)):
                expected = f"seat {current}'s " + ("two additional cards" if cards < 2 else "wagers settled")
                yield _found(
                    round_,
                    step,
                    "(j)",
                    expected + " before the next player's cards",
                    f"a card to {step.place}",
                )
                return
            if not queue or step.seat != queue[0]:
                expected = f"seat {queue[0]}'s cards next, clockwise" if queue else "no more cards"
                yield _found(round_, step, "(i)", expected, f"a card to {step.place}")
                return
            current, cards, settled = queue.pop(0), 1, False
        elif step.kind == "settlement":
            if step.seat != current or cards < 2:
                yield _found(
                    round_,
                    step,
                    "(j)",
                    "a player's wagers settled after that player's two additional cards",
                    f"{step.place}'s {step.get('wager')} settled "
                    + (
                        f"while seat {current} was being dealt"
                        if current not in (None, step.seat)
                        else "before them"
                    ),
                )
                return
            settled = True
    owed_cards = ([current] if current is not None and cards < 2 else []) + queue
    if round_.ended and owed_cards:
        yield Violation(
            round_.number,
            None,
            f"{SECTION}(i)",
            f"two additional cards to seat {owed_cards[0]}, even after a surrender",
            "the round ended without them",
        )


def _found(round_: Round, step: Step, clause: str, expected: str, found: str) -> Violation:
    return Violation(round_.number, step.seq, SECTION + clause, expected, found)


def _settled(round_: Round, rules: Rules) -> Iterator[Violation]:
    """Each settlement as the cards and the odds make it (k)-(m), (g)(3)."""
    elections = {s.seat: s for s in round_.kind("decision")}
    for step in round_.kind("settlement"):
        seat, wager = step.seat, str(step.get("wager"))
        if seat is None:
            continue
        hand = [c.get("card") for c in round_.kind("card") if c.seat == seat]
        choice = elections[seat].get("choice") if seat in elections else None
        expected = _expected(round_, seat, wager, choice, hand, rules)
        if expected is None:
            continue
        clause, movement, amount = expected
        if amount is None:  # the odds are not known (no rules in force): the movement alone is judged
            amount = step.get("amount")
        if (step.get("movement"), step.get("amount")) != (movement, amount):
            yield Violation(
                round_.number,
                step.seq,
                f"{SECTION}{clause}",
                f"{step.place}'s {wager} {movement} {amount}",
                f"recorded {step.get('movement')} {step.get('amount')}",
            )


def _expected(
    round_: Round, seat: int, wager: str, choice: Any, hand: list[Any], rules: Rules  # Any: JSON fields
) -> tuple[str, str, int | None] | None:
    """(clause, movement, amount) a settlement must be (the amount None where the odds are not
    known), or None where the trail cannot say."""
    if wager == "ante" and choice == "surrender":
        return "(g)(3)", "collect", round_.stake(seat, "ante")
    if len(hand) != 3 or None in hand:
        return None
    total = over_under_points(faces(hand))
    if wager == "bonus":
        stake = round_.stake(seat, "bonus")
        table = rules.get("bonus_pay_table") or {}
        if 6 <= total <= 12 or 27 <= total <= 33:
            at = table.get(str(total))
            return ("(m)", "pay", owed(stake, at, rules)) if at else None
        return "(m)", "collect", stake
    if wager in ("ante", *ELECTIONS) and choice in ELECTIONS:
        stake = round_.stake(seat, "ante")
        wins = range(24, 34) if choice == "over_23" else range(6, 18)
        if total in wins:
            key = "ante_odds" if wager == "ante" else ELECTIONS[choice]
            return "(k)", "pay", owed(stake, rules.get(key, "1:1"), rules)
        return "(l)", "collect", stake
    return None
