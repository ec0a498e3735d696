"""Helpers for the game tests: shoes stacked in deal order, the dealer's steps of a round, a
refusal checked, and a game's clauses checked in docs/conformance.md."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import pytest

from games import conformance
from games.free_bet_blackjack import Round, RuleSet
from games.free_bet_blackjack.inputs import (
    Decision,
    Discard,
    PeekAnswer,
    PlaceWager,
    PlayerAction,
    RevealHole,
    Settle,
    ShoeStatus,
    StartDeal,
)
from games.free_bet_blackjack.machine import DEALER_BLACKJACK, DEALER_TURN, PEEKING, PLAYER_TURNS
from games.free_bet_blackjack.stacked import StackedShoe
from vocabulary.cards import Card
from vocabulary.operators import Operator, Role
from vocabulary.rules import RuleViolation

SUPERVISOR = Operator("S-1", Role.SUPERVISOR)
DEALER = Operator("D-1", Role.DEALER)


def faces(text: str) -> list[Card | None]:
    """``"As Kd COVER"``: cards by their short names, ``COVER`` for the cover card."""
    return [None if word.upper() == "COVER" else Card.parse(word) for word in text.split()]


def stacked(hands: Sequence[str], dealer: str, rest: str = "") -> list[Card | None]:
    """A shoe for two cards to each of ``hands`` (clockwise) and ``dealer`` (up card, hole card),
    dealt in the order of 672a.7(e), then the cards of ``rest``."""
    pairs = [faces(hand) for hand in hands]
    up, hole = faces(dealer)
    return [pair[0] for pair in pairs] + [up] + [pair[1] for pair in pairs] + [hole] + faces(rest)


def new_round(
    shoe_faces: Sequence[Card | None],
    *,
    wagers: Mapping[int, int | tuple[int, int]] | None = None,
    rules: RuleSet | None = None,
    number: int = 1,
) -> tuple[Round, StackedShoe]:
    """A round with its wagers placed (1000 cents at seats 1.. by default), not yet dealt."""
    shoe = StackedShoe(shoe_faces)
    round_ = Round(number, rules=rules or RuleSet.example(), verify=shoe.verify, dealer="D-1")
    for seat, amounts in ({1: 1000} if wagers is None else wagers).items():
        blackjack, push22 = amounts if isinstance(amounts, tuple) else (amounts, 0)
        round_.handle(PlaceWager(seat, blackjack, push22))
    return round_, shoe


def dealt(
    hands: Sequence[str],
    dealer: str,
    rest: str = "",
    *,
    wagers: Mapping[int, int | tuple[int, int]] | None = None,
    rules: RuleSet | None = None,
) -> tuple[Round, StackedShoe]:
    """A round dealt to ``hands`` at seats 1.. (or the seats of ``wagers``, in order)."""
    wagers = wagers or {seat: 1000 for seat in range(1, len(hands) + 1)}
    return started(stacked(hands, dealer, rest), wagers=wagers, rules=rules)


def started(
    shoe_faces: Sequence[Card | None],
    *,
    wagers: Mapping[int, int | tuple[int, int]] | None = None,
    rules: RuleSet | None = None,
    number: int = 1,
) -> tuple[Round, StackedShoe]:
    """A round from ``shoe_faces`` (see new_round), started from a ready shoe and dealt."""
    round_, shoe = new_round(shoe_faces, wagers=wagers, rules=rules, number=number)
    round_.handle(StartDeal(ShoeStatus.ready()))
    shoe.deal_all_due(round_)
    return round_, shoe


def peek(round_: Round, shoe: StackedShoe) -> None:
    round_.handle(PeekAnswer(shoe.reader_answer(round_.dealer_up, round_.hole)))


def decide(round_: Round, shoe: StackedShoe, seat: int, *actions: PlayerAction) -> None:
    """``seat``'s decisions, each followed by the cards it needs."""
    for action in actions:
        round_.handle(Decision(seat, action))
        shoe.deal_all_due(round_)


def reveal(round_: Round, shoe: StackedShoe) -> None:
    round_.handle(RevealHole(shoe.turn_up(round_.hole)))


def finish(round_: Round, shoe: StackedShoe) -> None:
    """From the last decision on: the peek if still due, the hole card turned up, the dealer's
    draw, settlement and the discard rack."""
    if round_.state == PEEKING:
        peek(round_, shoe)
    if round_.state in (PLAYER_TURNS, DEALER_BLACKJACK):
        reveal(round_, shoe)
    if round_.state == DEALER_TURN:
        shoe.deal_all_due(round_)
        round_.handle(Settle())
    round_.handle(Discard(len(round_.pickup_order())))


def movements(round_: Round) -> list[tuple[int, str, str, int]]:
    """The settlement as (seat, wager, movement, amount), in the order made."""
    return [(a.seat, a.wager.value, a.movement.value, a.amount) for a in round_.actions]


def refused(clause: str, round_: Any, message: object) -> RuleViolation:
    """``message`` is refused citing ``clause``, and nothing is recorded."""
    before = len(round_.records)
    with pytest.raises(RuleViolation) as caught:
        round_.handle(message)
    assert clause in caught.value.rule.clause, caught.value
    assert len(round_.records) == before
    return caught.value


def covered_clauses(game: str, clauses: Iterable[str]) -> dict[str, str]:
    """``game``'s page of docs/conformance.md has a section for each of ``clauses``, each cited by a
    test and by no rule that no code uses; its sections by clause."""
    page = conformance.render_game(game)
    sections = page.split("\n### ")[1:]
    by_clause = {section.split(" — ")[0]: section for section in sections if " — " in section}
    assert set(by_clause) == set(clauses)
    for clause, section in by_clause.items():
        assert "tests: **none**" not in section, f"{clause} has no test"
        assert "used by no code" not in section, f"{clause} has a rule no code uses"
    assert "used by no code" not in page
    return by_clause
