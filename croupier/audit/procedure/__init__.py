"""The procedure auditor: ``croupier audit procedure FILE...`` judges every round of a trail
against the dealing procedure of its game's section (docs/audit.md, "Judging the procedure").

Independent of the round machines: each section (a module per game, named as the game's package)
describes its order as data and recomputes settlements from the recorded cards and the rules in
force, sharing with the games only the record schema, the card vocabulary, the configuration schema
and the pure hand evaluators.
"""

from __future__ import annotations

import importlib
import importlib.util
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

from croupier.audit.procedure import shoe, stub
from croupier.audit.procedure.engine import Check, Round, Table, Violation
from croupier.audit.procedure.rules import RULES_IN_FORCE, configured
from croupier.audit.procedure.unjudged import NOT_JUDGED
from croupier.audit.record import AuditRecord
from croupier.audit.replay import round_records
from games import registry


def _sections() -> dict[str, ModuleType]:
    """Each game's section, by the game's slug: the module here named as the game's package
    (games.registry.Game.module), where the game has one (decision 0029)."""
    found = {}
    for game in registry.registered():
        name = f"{__name__}.{game.module}"
        if importlib.util.find_spec(name) is not None:
            found[game.slug] = importlib.import_module(name)
    return found


SECTIONS = _sections()

__all__ = ["SECTIONS", "Check", "Verdict", "Violation", "checks_by_clause", "judge"]


@dataclass
class Verdict:
    """The rounds judged, in trail order, and the violations of each."""

    rounds: list[tuple[int, str, list[Violation]]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def checked(self) -> int:
        return len(self.rounds)

    @property
    def clean(self) -> int:
        return sum(1 for _, _, found in self.rounds if not found)

    @property
    def violations(self) -> list[Violation]:
        return [violation for _, _, found in self.rounds for violation in found]

    def as_json(self) -> dict[str, Any]:  # Any: JSON values
        return {
            "rounds_checked": self.checked,
            "clean": self.clean,
            "violations": [v.as_json() for v in self.violations],
            "rounds": [
                {"round": number, "game": game, "violations": [v.as_json() for v in found]}
                for number, game, found in self.rounds
            ],
            "notes": self.notes,
        }


def judge(records: Iterable[AuditRecord], config: Path | None = None) -> Verdict:
    """Every round of ``records`` (a table's series, in order) against its game's section."""
    records = list(records)
    verdict = Verdict()
    table = Table()  # a trail is one table's
    rounds = {id(group[0]): group for group in round_records(records)}
    # A round a restart cut off is named, after its last record, by the service's ``round_cut_off``
    # record (croupier.service.journal): it is judged only on what it did before the cut.
    cut_off = {record.round for record in records if record.kind == "round_cut_off"}
    recorded: dict[str, dict[str, Any]] = {}  # Any: JSON values
    for record in records:
        if record.kind == RULES_IN_FORCE and isinstance(record.fields.get("rules"), dict):
            recorded[str(record.fields.get("game"))] = dict(record.fields["rules"])
        elif record.round is None and record.kind == "burn":
            shoe.burned(record.fields, table)
        elif record.round is None and record.kind == "cover_card":
            shoe.cover_between_rounds(table)
        elif record.round is None and record.kind == "batch_loaded":
            stub.new_deck(table)
        group = rounds.get(id(record))
        if group is None:
            continue
        round_ = Round.of(group, cut_off=group[0].round in cut_off)
        section = SECTIONS.get(round_.game)
        if section is None:
            verdict.notes.append(f"round {round_.number}: game {round_.game!r} has no section to judge it by")
            continue
        if round_.game not in recorded:
            recorded[round_.game] = configured(round_.game, config)
            if config is None:
                verdict.notes.append(
                    f"round {round_.number}: the trail names no rules in force and no --config was given: "
                    "amounts paid by a pay table are not recomputed"
                )
        table.rules = recorded[round_.game]
        verdict.rounds.append((round_.number, round_.game, list(section.judge(round_, table))))
    return verdict


def checks_by_clause() -> dict[str, dict[str, list[Check]]]:
    """Each game's checks by clause, for docs/conformance.md's column "the auditor checks"."""
    table: dict[str, dict[str, list[Check]]] = {}
    for game, section in SECTIONS.items():
        for check in section.CHECKS:
            table.setdefault(game, {}).setdefault(check.clause, []).append(check)
    return table


def unjudged_by_clause() -> dict[str, str]:
    """The clauses the auditor does not judge, each with why (docs/conformance.md shows it)."""
    return dict(NOT_JUDGED)


def lines(verdict: Verdict) -> Iterator[str]:
    """The report for a person: one line a violation, then the summary."""
    for violation in verdict.violations:
        yield str(violation)
    yield from (f"note: {note}" for note in verdict.notes)
    yield f"rounds checked: {verdict.checked}, clean: {verdict.clean}, violations: {len(verdict.violations)}"
