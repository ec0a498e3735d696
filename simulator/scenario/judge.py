"""What a scenario's round did, judged against what its file says: each ``expect`` matched in order
against the table's records before the round (its burns) and the round's own, and the answers and
faults the file gave that the round never asked for. The first mismatch is the failure, with its
``file:line``.
"""

from __future__ import annotations

import shlex
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from croupier.tables.events import RoundListener
from simulator.scenario.actors import ScriptedPlayers
from simulator.scenario.parse import Expect, RoundScript, Scenario


@dataclass(frozen=True)
class BetweenRounds:
    """A record the table made before the round, between rounds (a burn), as ``expect`` matches
    it; numbered ``t1``, ``t2``... apart from the round's own."""

    seq: str
    kind: str
    fields: Mapping[str, Any]  # Any: JSON values


class TableRecords(RoundListener):
    """The table's records made before each round (since the one before it began), for its
    expectations."""

    def __init__(self) -> None:
        self.pending: list[BetweenRounds] = []
        self.before_round: list[BetweenRounds] = []  # those made before the round last begun

    def table_event(self, kind: str, fields: Mapping[str, Any]) -> None:  # Any: JSON values
        self.pending.append(BetweenRounds(f"t{len(self.pending) + 1}", kind, dict(fields)))

    def round_began(self, round_: Any) -> None:  # Any: a round of any game
        self.before_round, self.pending = self.pending, []


@dataclass
class Outcome:
    """What running a scenario found: the first mismatch (None: it played as written) and, per
    round, the number of records and checks passed."""

    scenario: Scenario
    failure: str | None = None
    checked: int = 0
    rounds: list[Any] = field(default_factory=list)  # Any: rounds of any game
    before: list[list[BetweenRounds]] = field(default_factory=list)  # each round's table records

    @property
    def ok(self) -> bool:
        return self.failure is None

    def report(self) -> str:
        """For a person: the scenario, what was checked, and the first mismatch if any."""
        head = f"{self.scenario.path}: {self.scenario.title}"
        if self.ok:
            return f"{head}\n  ok: {len(self.rounds)} round(s), {self.checked} expectation(s) met"
        return f"{head}\n  FAILED: {self.failure}"


def _matches(record: Any, expect: Expect) -> bool:  # Any: a round's or the table's record
    if str(record.kind) != expect.what:
        return False
    return all(
        key in record.fields and str(record.fields[key]) == value for key, value in expect.fields.items()
    )


def check_round(
    round_: Any,  # Any: a round of any game
    script: RoundScript,
    cleared: Mapping[str, int] | None = None,
    before: Sequence[BetweenRounds] = (),
) -> tuple[int, str | None]:
    """Each expectation against the table's records ``before`` the round (its burns), then the
    round's own, in order; the first mismatch, said with its file:line and the records of that kind
    there were. ``cleared``: the latched faults the floor cleared during the round, by code (they
    latch on the equipment, not in the records)."""
    records = [*before, *round_.records]
    position, checked = 0, 0
    for expect in script.expects:
        if expect.what == "cleared":
            code = expect.fields["code"]
            if not (cleared or {}).get(code):
                seen = ", ".join(sorted(cleared or {})) or "none"
                return checked, f"{expect.where}: expected the floor to clear {code}; cleared: {seen}"
        elif expect.what == "net":
            seat = int(expect.fields["seat"])
            actual = round_.net(seat)
            if str(actual) != expect.fields["net"]:
                return (
                    checked,
                    f"{expect.where}: expected seat {seat} net {expect.fields['net']}, got {actual}",
                )
        elif expect.what == "state" and not expect.negated and set(expect.fields) == {"state"}:
            if str(round_.state) != expect.fields["state"]:
                return (
                    checked,
                    f"{expect.where}: expected the round to end {expect.fields['state']}, got {round_.state}",
                )
        elif expect.negated:
            found = next(
                (r for r in records if _matches(r, Expect(expect.what, expect.fields, expect.where))), None
            )
            if found is not None:
                return (
                    checked,
                    f"{expect.where}: expected {expect}, found record #{found.seq}: {_show(found)}",
                )
        else:
            found = next((r for r in records[position:] if _matches(r, expect)), None)
            if found is None:
                return checked, _missing(expect, records, position)
            position = records.index(found) + 1
        checked += 1
    return checked, None


def _show(record: Any) -> str:  # Any: a round's or the table's record
    return f"{record.kind} " + " ".join(f"{k}={shlex.quote(str(v))}" for k, v in record.fields.items())


def _missing(
    expect: Expect,
    records: Sequence[Any],  # Any: a round's or the table's record
    position: int,
) -> str:
    after = f" after record #{records[position - 1].seq}" if position else ""
    same = [r for r in records[position:] if str(r.kind) == expect.what]
    earlier = [r for r in records[:position] if _matches(r, expect)]
    lines = [f"{expect.where}: expected {expect}{after}; no such record"]
    if earlier:
        lines.append(f"    (record #{earlier[0].seq} matches, but comes before the previous expectation)")
    if same:
        lines.append(f"    the round's {expect.what} records from there:")
        lines += [f"      #{r.seq} {_show(r)}" for r in same[:12]]
    else:
        kinds = sorted({str(r.kind) for r in records})
        lines.append(f"    no {expect.what} record from there; the round's record kinds: {', '.join(kinds)}")
    return "\n".join(lines)


def unasked(players: ScriptedPlayers) -> str | None:
    """An answer the round never asked for: a scenario that says more than happened is wrong."""
    if players.unused():
        extra = players.unused()[0]
        return f"{extra.where}: the round never asked for {extra.word!r}: the file says more than happened"
    missed = sorted(set(players.script.insurance) - players.insurance_asked)
    if missed:
        return f"{players.script.insurance[missed[0]].where}: seat {missed[0]} was never offered insurance"
    return None


def report_not_skipped(dealer: Any, script: RoundScript) -> str | None:  # Any: any game's dealer
    """A ``fault unreported`` the round never struck: the dealer was never asked for that hand."""
    for fault in script.faults:
        if fault.kind == "unreported" and fault.device in dealer.skip_report:
            dealer.skip_report.discard(fault.device)
            return (
                f"{fault.where}: the dealer was never asked to report the hand at {fault.device} "
                "(a shuffler that reports its order needs no report: rule shuffler_reports_order false)"
            )
    return None


def records_text(
    rounds: Sequence[Any],  # Any: rounds of any game
    before: Sequence[Sequence[BetweenRounds]] = (),
) -> str:
    """Every record of the rounds played, one a line, as ``expect`` lines would name them, each
    round's table records (``before``, its burns) first: what a scenario author copies from when
    writing the expectations."""
    lines = []
    for number, round_ in enumerate(rounds):
        table = before[number] if number < len(before) else ()
        records = [*table, *round_.records]
        lines += [f"round {round_.number} #{record.seq} {_show(record)}" for record in records]
    return "\n".join(lines)
