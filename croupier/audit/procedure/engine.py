"""The procedure auditor's engine: a round's records as steps, the section's order as data, and the
violations found, each naming the round, the record's ``seq`` and the clause.

A section (one module per game) describes its procedure as data: ``Before`` rules (every record of
one sort comes before any of another: "all elections before any additional card"), ``Check`` entries
naming what each clause requires, and a few functions for what order rules cannot say (a deal order,
a settlement recomputed from the cards). Nothing here imports a game's round, machine or settlement
code: two implementations that agree are the evidence, one that checks itself is not.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from croupier.audit.record import AuditRecord, Fields

#: The rules in force, as the trail's ``rules`` records or the configuration give them.
Rules = Mapping[str, Any]  # Any: configured values (TOML or JSON)


@dataclass(frozen=True)
class Check:
    """What the auditor checks for one clause, as docs/conformance.md shows it. ``reading`` is the
    reading taken where the clause allows two, and why."""

    clause: str
    says: str
    reading: str = ""


@dataclass(frozen=True)
class Violation:
    round: int | None
    seq: int | None  # the audit record's seq
    clause: str
    expected: str
    found: str

    def __str__(self) -> str:
        where = "" if self.round is None else f"round {self.round} "
        at = "" if self.seq is None else f"seq {self.seq} "  # none: a record missing at the round's end
        return f"{where}{at}{self.clause}: expected {self.expected}; {self.found}"

    def as_json(self) -> dict[str, Any]:  # Any: a record's JSON fields
        return {
            "round": self.round,
            "seq": self.seq,
            "clause": self.clause,
            "expected": self.expected,
            "found": self.found,
        }


@dataclass(frozen=True)
class Step:
    """One record of a round: its audit ``seq``, its kind and its fields."""

    seq: int
    kind: str
    fields: Fields

    def get(self, name: str, default: Any = None) -> Any:  # Any: a record's JSON fields
        return self.fields.get(name, default)

    @property
    def seat(self) -> int | None:
        """The seat a record is about: its ``seat`` field, or a place named ``seat N`` (or, as Crazy
        4 Poker records it, the seat's number alone)."""
        seat = self.fields.get("seat")
        if isinstance(seat, int) and not isinstance(seat, bool):
            return seat
        place = self.fields.get("place")
        if isinstance(place, int) and not isinstance(place, bool):
            return place
        if isinstance(place, str) and place.startswith("seat "):
            number = place.split()[1]
            return int(number) if number.isdigit() else None
        return None

    @property
    def place(self) -> str:
        """``dealer``, ``community``, ``seat 3``...: the seat's place whatever its hand."""
        seat = self.seat
        return f"seat {seat}" if seat is not None else str(self.fields.get("place"))


@dataclass
class Round:
    """The records of one round, in trail order."""

    number: int
    game: str
    steps: list[Step]
    cut_off: bool = False  # a restart cut it off: the trail names it in a ``round_cut_off`` record

    @classmethod
    def of(cls, records: Sequence[AuditRecord], cut_off: bool = False) -> Round:
        first = records[0]
        steps = [Step(r.seq, r.kind, r.fields) for r in records]
        return cls(first.round or 0, str(first.fields.get("game")), steps, cut_off)

    def kind(self, *kinds: str) -> list[Step]:
        return [step for step in self.steps if step.kind in kinds]

    @property
    def placed(self) -> list[Step]:
        """The wagers placed and not taken back: a ``wager_withdrawn`` record takes back the seat's
        wager of its name recorded before it (a position's wagers placed again before the deal
        replace its earlier ones), so these are the wagers in play when betting closed. A ``wager``
        record marked ``stays`` notes a wager kept in play, as 686a.7(h) keeps the Bonus Wager of a
        surrender, and places nothing."""
        placed: list[Step] = []
        for step in self.kind("wager", "wager_withdrawn"):
            if step.kind == "wager_withdrawn":
                placed = [s for s in placed if (s.seat, s.get("wager")) != (step.seat, step.get("wager"))]
            elif not step.get("stays"):
                placed.append(step)
        return placed

    def wagered(self, *wagers: str) -> list[int]:
        """The seats holding any of ``wagers``, clockwise (ascending: seat 1 is the player farthest to
        the dealer's left)."""
        return sorted({s.seat for s in self.placed if s.get("wager") in wagers and s.seat is not None})

    def stake(self, seat: int, wager: str) -> int:
        return sum(int(s.get("amount", 0)) for s in self.placed if s.seat == seat and s.get("wager") == wager)

    @property
    def ended(self) -> bool:
        """Whether the round ran its course to settlement: a round voided, found misdealt or ruled
        on by a supervisor (its procedure interrupted) or cut off part-way is judged only on what
        it did, not on what it did not reach."""
        interrupted = any(s.kind in ("misdeal", "resolution", "round_voided") for s in self.steps)
        return bool(self.kind("settlement")) and not (interrupted or self.voided or self.cut_off)

    @property
    def voided(self) -> bool:
        """The round went to its voided state: every wager returned (657a.9(f), 677a.10(f), a ruling)."""
        return any(s.kind == "state" and s.get("dest") == "voided" for s in self.steps)


Pred = Callable[[Step], bool]
#: How a report names a record: a fixed text, or one made from the record ("seat 2's first card").
Name = str | Callable[[Step], str]


@dataclass(frozen=True)
class Before:
    """Every ``first`` record of a round comes before any ``then`` record (``clause``'s order).
    ``expected`` says it for the report; the violation names the record found out of order."""

    clause: str
    expected: str
    first: Pred
    then: Pred
    first_name: Name
    then_name: Name

    def judge(self, round_: Round) -> Iterator[Violation]:
        seen: Step | None = None
        for step in round_.steps:
            if seen is None and self.then(step):
                seen = step
            elif seen is not None and self.first(step):
                yield Violation(
                    round_.number,
                    step.seq,
                    self.clause,
                    self.expected,
                    f"{_named(self.first_name, step)} after {_named(self.then_name, seen)}",
                )
                return


def betting(step: Step) -> bool:
    """A wager placed or taken back (not one marked ``stays``): both belong before the deal."""
    return step.kind in ("wager", "wager_withdrawn") and not step.get("stays")


def betting_named(step: Step) -> str:
    done = "withdrawn" if step.kind == "wager_withdrawn" else "wagered"
    return f"{step.place}'s {step.get('wager')} {done}"


def _named(name: Name, step: Step) -> str:
    return name if isinstance(name, str) else name(step)


@dataclass
class Table:
    """What the auditor carries from round to round of one table: the rules in force (from the
    trail's ``rules`` records or ``--config``), the dealer at the table and the burns due, the rounds
    since the stub was last counted."""

    rules: dict[str, Any] = field(default_factory=dict)  # Any: configured values (TOML or JSON)
    dealer: str | None = None
    burns_due: dict[str, int | None] = field(default_factory=dict)  # reason -> seq that made it due
    started: bool = False  # the trail's first round has been judged
    opening_burned: bool = False  # a burn came before the trail's first round was dealt
    since_stub_count: int = 0


def no_more_bets_first(clause: str) -> Before:
    """ "No more bets" announced before any card is dealt: 677a.10(a)(2) and 657a.9(a)(3) say it
    alike, each for its own section."""
    return Before(
        clause,
        '"no more bets" before the first card',
        lambda s: s.kind == "no_more_bets",
        lambda s: s.kind == "card",
        '"no more bets"',
        lambda s: f"the card to {s.place}",
    )


def expect_places(
    round_: Round, cards: Sequence[Step], expected: Sequence[str], clause: str, what: str
) -> Iterator[Violation]:
    """The cards dealt in ``expected`` order of places; the first out of place is the violation."""
    for index, place in enumerate(expected):
        if index >= len(cards):
            if round_.ended:
                yield Violation(round_.number, None, clause, f"{what}: a card to {place}", "none was dealt")
            return
        if cards[index].place != place:
            yield Violation(
                round_.number,
                cards[index].seq,
                clause,
                f"{what}: card {index + 1} to {place}",
                f"it went to {cards[index].place}",
            )
            return
