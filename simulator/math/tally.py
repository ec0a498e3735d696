"""The sums math mode keeps per wager type, and the report made from them (docs/math.md).

Every sum is a whole number of cents or a count, so the workers' tallies add exactly and the report
of a seed and a worker count is the same, byte for byte, on every run. The round is the sampling
unit: a round's hands share the dealer's cards (at blackjack every hand meets the same dealer
total), so they are not independent draws, and the house edge's confidence interval is computed
from each round's house result and amount wagered (a ratio estimator, below), not from hands.

House edge of a wager type = the house's result on it / the amount wagered on it, both summed over
every round; with X_r the house's result and Y_r the amount wagered in round r, R = ΣX/ΣY and, by
the delta method, Var(R) ≈ n/(n-1) · Σ(X_r - R·Y_r)² / (ΣY)², n the rounds in which the wager was
placed; the 95 % interval is R ± 1.96·√Var(R). Rounds dealt from one shoe share its cards too; the
interval takes them as independent, which the shoe's few dozen rounds make a close approximation.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from games.common.movement import Movement
from games.common.records import RecordKind, standing_wagers
from simulator.math.play import MathError

#: The normal quantile of a two-sided 95 % interval.
Z95 = 1.959963984540054
#: The row of every wager type together.
ALL_WAGERS = "all wagers"


@dataclass
class WagerSums:
    """One wager type's exact sums over the rounds played."""

    rounds: int = 0  # rounds in which it was placed
    wagers: int = 0  # wagers placed (one per position and round)
    wagered: int = 0  # cents
    house: int = 0  # cents the house won (+) or lost (-)
    house_sq: int = 0  # Σ X_r²
    cross: int = 0  # Σ X_r·Y_r
    wagered_sq: int = 0  # Σ Y_r²
    outcomes: Counter[str] = field(default_factory=Counter)

    def add_round(self, wagers: int, wagered: int, house: int) -> None:
        self.rounds += 1
        self.wagers += wagers
        self.wagered += wagered
        self.house += house
        self.house_sq += house * house
        self.cross += house * wagered
        self.wagered_sq += wagered * wagered

    def merge(self, other: WagerSums) -> None:
        for name in ("rounds", "wagers", "wagered", "house", "house_sq", "cross", "wagered_sq"):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        self.outcomes.update(other.outcomes)

    def edge(self) -> tuple[float | None, float | None]:
        """The house edge and the half-width of its 95 % interval (None without a wager or with a
        single round)."""
        if not self.wagered:
            return None, None
        ratio = self.house / self.wagered
        if self.rounds < 2:
            return ratio, None
        spread = self.house_sq - 2 * ratio * self.cross + ratio * ratio * self.wagered_sq
        variance = max(spread, 0.0) / (self.wagered * self.wagered) * self.rounds / (self.rounds - 1)
        return ratio, Z95 * math.sqrt(variance)

    def report(self, *, outcomes: bool = True) -> dict[str, Any]:  # Any: JSON values
        edge, half = self.edge()
        shown: dict[str, Any] = {  # Any: JSON values
            "rounds": self.rounds,
            "wagers": self.wagers,
            "wagered": self.wagered,
            "house": self.house,
            "house_edge": edge,
            "ci95": None if edge is None or half is None else [edge - half, edge + half],
        }
        if outcomes:
            shown["outcomes"] = {
                label: {"count": count, "per_wager": count / self.wagers if self.wagers else None}
                for label, count in sorted(self.outcomes.items())
            }
        return shown


#: The settlements a tally keeps what it counted of (MathTally._seen).
SEEN_KEPT = 4096


@dataclass(slots=True)
class _Seen:
    """What one settlement counts towards: its wager type and seat (``at``), the player's net, its
    type's hit frequencies and its line there by stake; ``action`` keeps the Action, and so its id."""

    action: Any  # Any: a game's settlement Action
    at: tuple[str, int]
    net: int
    outcomes: Counter[str]
    lines: dict[int, str] = field(default_factory=dict)


@dataclass
class MathTally:
    """What one worker (or all of them, merged) counted: rounds, shoes, per-wager sums and the
    game's observed figures."""

    belongs: Mapping[str, str] = field(default_factory=dict)
    rounds: int = 0
    decks: int = 0
    shoes: int = 0
    burns: int = 0
    checked: int = 0  # rounds played straight through and found alike through the table's Round
    wagers: dict[str, WagerSums] = field(default_factory=dict)
    total: WagerSums = field(default_factory=WagerSums)
    observed: dict[str, Counter[str]] = field(default_factory=dict)
    # Each settlement's hit-frequency line by what it is made from (_outcome): a round settles a
    # dozen wagers or more, and the few hundred distinct lines were built again, fractions and all,
    # for each (decision 0042).
    _lines: dict[tuple[object, ...], str] = field(default_factory=dict, repr=False, compare=False)
    # What each settlement counts towards, by the Action object's id (the entry holds the Action, so
    # no other object has that id while it is kept): the Action, its wager type and seat, its net,
    # its type's hit frequencies, and its line by stake. Free Bet Blackjack's settlements are made
    # once and shared (decision 0052), so a round's are found here without reading them again; an
    # Action's hash and equality, and its net, are Python code. At most SEEN_KEPT are kept, as other
    # games make their settlements anew each round.
    _seen: dict[int, _Seen] = field(default_factory=dict, repr=False, compare=False)

    def __getstate__(self) -> dict[str, Any]:  # Any: the fields' values
        """The tally as it is pickled (a worker's, sent to be merged): without ``_seen``, whose ids
        name objects of this process only; in another, one could be another object's."""
        return {**self.__dict__, "_seen": {}}

    def add(
        self,
        round_: Any,  # Any: a game's Round
        observed: Iterable[tuple[str, str]] = (),
        staked: Iterable[tuple[str, int, int]] = (),
    ) -> None:
        """Count one completed Round: its wager records (less those withdrawn; a record of a wager
        that ``stays`` repeats one placed) and ``staked``, the wagers the game stakes without one."""
        self.count(round_.number, [*placed_wagers(round_), *staked], round_.actions, observed)

    def count(
        self,
        number: int,
        stood: Iterable[tuple[str, int, int]],
        actions: Iterable[Any],  # Any: a game's settlement Action
        observed: Iterable[tuple[str, str]] = (),
    ) -> None:
        """Count round ``number``: the wagers that stood when betting closed (wager kind, seat,
        cents), its settlements and its observed figures. Raises MathError if a wager placed was
        never settled, or a settlement names a wager nobody placed: no wager is dropped from the sums."""
        belongs, seen = self.belongs, self._seen
        placed: dict[tuple[str, int], int] = {}  # cents by wager type and seat
        for wager, seat, amount in stood:
            at = (belongs.get(wager, wager), seat)
            placed[at] = placed.get(at, 0) + amount
        settled: dict[tuple[str, int], int] = {}  # the player's net by wager type and seat
        for action in actions:
            found = seen.get(id(action)) or self._first_seen(action)
            at, net, outcomes, lines = found.at, found.net, found.outcomes, found.lines
            stake = placed.get(at)
            if not stake:
                raise MathError(
                    f"round {number}: {action.wager} settled at seat {action.seat}, where no {at[0]} "
                    "wager was placed"
                )
            line = lines.get(stake)
            if line is None:
                line = lines[stake] = self._line(action, stake)
            outcomes[line] += 1
            settled[at] = settled.get(at, 0) + net
        stakes: dict[str, list[int]] = {}  # wagers, cents and the house's result by wager type
        dropped: list[tuple[str, int]] = []
        for at, amount in placed.items():
            if not amount:
                continue
            won = settled.get(at)
            if won is None:
                dropped.append(at)
            elif at[0] in stakes:
                sums = stakes[at[0]]
                sums[0] += 1
                sums[1] += amount
                sums[2] -= won
            else:
                stakes[at[0]] = [1, amount, -won]
        if dropped:  # named for the first wager type placed that has one
            unsettled = {kind for kind, _seat in dropped}
            kind = next(kind for kind, _seat in placed if kind in unsettled)
            seats = sorted(seat for other, seat in dropped if other == kind)
            raise MathError(f"round {number}: {kind} wager at seat(s) {seats} never settled")
        round_wagers = round_wagered = round_house = 0
        for kind, (wagers, wagered, house) in stakes.items():
            self._sums(kind).add_round(wagers, wagered, house)
            round_wagers += wagers
            round_wagered += wagered
            round_house += house
        self.total.add_round(round_wagers, round_wagered, round_house)
        self.rounds += 1
        for figure, value in observed:
            self.observed.setdefault(figure, Counter())[value] += 1

    def merge(self, other: MathTally) -> None:
        self.rounds += other.rounds
        self.decks = max(self.decks, other.decks)
        self.shoes += other.shoes
        self.burns += other.burns
        self.checked += other.checked
        for kind, sums in other.wagers.items():
            self.wagers.setdefault(kind, WagerSums()).merge(sums)
        self.total.merge(other.total)
        for figure, counts in other.observed.items():
            self.observed.setdefault(figure, Counter()).update(counts)

    def report(self) -> dict[str, Any]:  # Any: JSON values
        """The per-wager report and the observed figures, each value with its count and share."""
        return {
            "wagers": {kind: sums.report() for kind, sums in sorted(self.wagers.items())},
            ALL_WAGERS: self.total.report(outcomes=False),
            "observed": {
                figure: {
                    value: {"count": count, "share": count / sum(counts.values())}
                    for value, count in sorted(counts.items(), key=lambda item: _order(item[0]))
                }
                for figure, counts in sorted(self.observed.items())
            },
        }

    def _first_seen(self, action: Any) -> _Seen:  # Any: a game's settlement Action
        """What ``action`` counts towards (``_seen``), worked out on its first settlement."""
        wager = str(action.wager)
        kind = self.belongs.get(wager, wager)
        if len(self._seen) >= SEEN_KEPT:
            self._seen.clear()
        found = self._seen[id(action)] = _Seen(
            action, (kind, action.seat), action.net, self._sums(kind).outcomes
        )
        return found

    def _line(self, action: Any, stake: int) -> str:  # Any: a game's settlement Action
        """``action``'s hit-frequency line on ``stake``, made once for the values it is made from."""
        rule, details = action.rule, action.details()
        read: tuple[object, ...] = (
            str(action.movement),
            action.amount,
            stake,
            rule.clause,
            rule.summary,
            str(action.wager),
        )
        if details:
            read += tuple(details.items())
        line = self._lines.get(read)
        if line is None:
            line = self._lines[read] = _outcome(action, stake)
        return line

    def _sums(self, kind: str) -> WagerSums:
        """The wager type's sums, made on its first wager (not built on every call to be dropped)."""
        sums = self.wagers.get(kind)
        if sums is None:
            sums = self.wagers[kind] = WagerSums()
        return sums


def placed_wagers(round_: Any) -> list[tuple[str, int, int]]:  # Any: a game's Round
    """The wagers that stood on a Round when betting closed, (wager kind, seat, cents), read from its
    wager records less those withdrawn: the one rule for what was wagered (a wager placed again as
    nothing is none)."""
    standing = standing_wagers(round_.records, RecordKind.WAGER, RecordKind.WAGER_WITHDRAWN)
    return [(wager, seat, amount) for (seat, wager), amount in standing.items() if amount]


def _outcome(action: Any, stake: int) -> str:  # Any: a game's settlement Action
    """One line of the hit frequencies: the movement and, for a payment, the odds it paid on the
    stake (a pay-table line), then the rule that decided it."""
    movement = str(action.movement)
    if action.movement == Movement.PAY:
        odds = Fraction(action.amount, stake)
        movement += f" {odds.numerator} to {odds.denominator}"
    details = "".join(f", {key} {value}" for key, value in action.details().items())
    return f"{movement}{details}: {action.rule.summary} ({action.rule.clause}) [{action.wager}]"


def _order(value: str) -> tuple[int, float, str]:
    """Numbers in numeric order, then words."""
    try:
        return (0, float(value), "")
    except ValueError:
        return (1, 0.0, value)
