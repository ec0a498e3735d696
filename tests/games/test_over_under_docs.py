"""Over/Under in docs/conformance.md, the diagram and the guide: every clause covered, every guard
citing its clause, every configuration key and irregularity explained."""

from __future__ import annotations

import inspect
from dataclasses import fields

from games import conformance, diagrams
from games.over_under import CLAUSES, Round, RuleSet
from games.over_under.irregularities import KINDS
from games.over_under.machine import STATES, definition
from tests.games import covered_clauses

GUIDE = conformance.ROOT / "docs" / "games" / "over-under.md"


def test_every_clause_of_686a_7_has_an_enforcing_rule_and_a_test():
    """Each lettered clause of the section, (a) to (o), is cited by a Rule the code uses (or by its
    sub-clauses' rules) and by at least one test."""
    covered_clauses("over-under", CLAUSES)


def test_the_reading_of_686a_7_f_is_beside_the_clause_with_its_words():
    """686a.7(f): the reading the round takes (every decision before any additional card, then
    686a.7(i)-(j) player by player) is shown under the clause's heading, quoting the clause."""
    section = conformance.render_game("over-under").split("### 686a.7(f) ")[1].split("\n### ")[0]
    assert "before any additional card" in section.splitlines()[0]
    reading = next(line for line in section.splitlines() if line.startswith("**Reading.**"))
    assert "prior to any additional cards being dealt the dealer shall start" in reading
    assert '(i) "After a player indicates his decision' in reading and "(j)" in reading


def test_every_guard_of_the_round_machine_carries_a_clause():
    """Every guard carries the clause it enforces, in the code it reaches or, for a
    guard that only chooses a transition, in its docstring (games.conformance reads only the section's
    citations and the other sources' from docstrings, so those are checked here)."""
    table = conformance.render_game("over-under").split("### Guards")[1].split("###")[0]
    rows = {row.split("`")[1]: row for row in table.splitlines() if row.startswith("| `")}
    guards = {
        condition
        for transition in definition()["transitions"]
        for key in ("conditions", "unless")
        for condition in _listed(transition.get(key))
        if isinstance(condition, str)
    }
    assert len(guards) >= 15 and guards <= set(rows), f"guards without a row: {guards - set(rows)}"
    for guard in guards:
        cited = rows[guard].split("|")[2].strip()
        assert cited, guard
        if "**none**" in cited:
            assert "686a.7(" in inspect.getdoc(getattr(Round, guard)), guard


def _listed(value: object) -> list[object]:
    """A transition's conditions as a list: none, one name, or several."""
    if value is None:
        return []
    return list(value) if isinstance(value, (list, tuple)) else [value]


def test_the_diagram_shows_every_state_and_trigger():
    text = diagrams.render("over-under")
    for state in STATES:
        assert f'state "{state}" as {state}' in text
    for transition in definition()["transitions"]:
        assert transition["trigger"] in text


def test_the_user_guide_names_every_configuration_key_and_irregularity():
    guide = GUIDE.read_text()
    missing = [f"`{spec.name}`" for spec in fields(RuleSet) if f"`{spec.name}`" not in guide]
    missing += [f"`{kind.code}`" for kind in KINDS if f"`{kind.code}`" not in guide]
    assert not missing, f"docs/games/over-under.md does not explain {missing}"
