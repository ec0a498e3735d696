"""58 Pa. Code § 677a.10, Heads Up Hold 'Em from an automated dealing shoe, as the auditor reads it.

The round: "no more bets" before any stack (a)(2); a stack of two cards face down to each player
with Ante and Odds Wagers, clockwise, then to the dealer (b); the stub out of the shoe (a
``stub_removed`` record) and only then the five community cards, dealt from the dealer's hand (c);
the stub to the rack after the fifth (c); the stub counted at least every 5 rounds without a counting
shuffler (d). A shoe that reshuffles automatically may dispense the community cards first (g).
"""

from __future__ import annotations

from collections.abc import Iterator

from croupier.audit.procedure import stub
from croupier.audit.procedure.engine import (
    Before,
    Check,
    Round,
    Step,
    Table,
    Violation,
    expect_places,
    no_more_bets_first,
)

SECTION = "677a.10"
COMMUNITY = "community"

CHECKS: tuple[Check, ...] = (
    Check(f"{SECTION}(a)(2)", '"no more bets" recorded before the first card'),
    Check(
        f"{SECTION}(b)",
        "two cards face down to each position with Ante and Odds Wagers, clockwise, then two to the dealer",
    ),
    Check(
        f"{SECTION}(c)",
        "a `stub_removed` record after the last stack and before the first community card; five community "
        "cards, each recorded `source` `hand`",
        '"the dealer shall remove the remaining cards from the automated dealing shoe and, following the '
        "procedures in § 677a.9(a)(2) (relating to procedure for dealing the cards from the hand), deal "
        'from his hand the five community cards": a community card recorded from the shoe (or with no '
        "source) is not dealt from the hand, unless (g) applies (community cards dispensed first by a "
        "reshuffling shoe).",
    ),
    *stub.checks(f"{SECTION}(d)"),
)


def _order() -> tuple[Before, ...]:
    return (
        no_more_bets_first(f"{SECTION}(a)(2)"),
        Before(
            f"{SECTION}(c)",
            "the stub removed from the shoe before any community card",
            lambda s: s.kind == "stub_removed",
            lambda s: s.kind == "card" and s.place == COMMUNITY,
            "the stub removed",
            "a community card",
        ),
        Before(
            f"{SECTION}(c)",
            "every stack delivered before the stub is removed",
            lambda s: s.kind == "card" and s.place != COMMUNITY,
            lambda s: s.kind == "stub_removed",
            lambda s: f"a card to {s.place}",
            "the stub removed",
        ),
    )


def judge(round_: Round, table: Table) -> Iterator[Violation]:
    for rule in _order():
        yield from rule.judge(round_)
    community_first = any(s.get("community_first") is True for s in round_.kind("no_more_bets"))
    cards = round_.kind("card")
    seats = sorted(set(round_.wagered("ante")) & set(round_.wagered("odds")))
    stacks = [f"seat {seat}" for seat in seats for _ in range(2)] + ["dealer", "dealer"]
    dealt = [c for c in cards if c.place != COMMUNITY]
    yield from expect_places(round_, dealt, stacks, f"{SECTION}(b)", "the stacks")
    for card in dealt[: len(stacks)]:
        if card.get("face_up") is not False:
            yield Violation(
                round_.number, card.seq, f"{SECTION}(b)", "stacks face down", f"{card.place} face up"
            )
            break
    if not community_first:
        yield from _community(round_, [c for c in cards if c.place == COMMUNITY])
    yield from stub.judge(f"{SECTION}(d)", round_, table)


def _community(round_: Round, community: list[Step]) -> Iterator[Violation]:
    if round_.kind("card") and not round_.kind("stub_removed") and round_.ended:
        yield Violation(
            round_.number,
            community[0].seq if community else None,
            f"{SECTION}(c)",
            "the stub removed from the shoe (a `stub_removed` record) before the community cards",
            "no stub removal recorded",
        )
    for card in community:
        if card.get("source") != "hand":
            yield Violation(
                round_.number,
                card.seq,
                f"{SECTION}(c)",
                "the community cards dealt from the dealer's hand",
                f"a community card from {card.get('source') or 'an unrecorded source'}",
            )
            break
    if round_.ended and len(community) != 5:
        yield Violation(
            round_.number, None, f"{SECTION}(c)", "five community cards", f"{len(community)} dealt"
        )
