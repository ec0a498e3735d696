"""docs/conformance.md is generated from the code and the tests, and every clause is covered."""

from __future__ import annotations

from dataclasses import fields

from games import conformance
from games.free_bet_blackjack import CLAUSES, RuleSet
from games.free_bet_blackjack.irregularities import KINDS
from tests.games import covered_clauses

GUIDE = conformance.ROOT / "docs" / "games" / "free-bet-blackjack.md"


def test_committed_conformance_page_is_what_the_generator_writes():
    assert conformance.DOC.read_text() == conformance.render(), "stale: run python -m games.conformance"


def test_every_clause_of_672a_7_has_an_enforcing_rule_and_a_test():
    """Each lettered clause of the section, (a) to (t), is cited by a Rule the code uses (or by its
    sub-clauses' rules) and by at least one test."""
    by_clause = covered_clauses("free-bet-blackjack", CLAUSES)
    for clause, section in by_clause.items():
        if "enforced through its sub-clauses" in section:
            assert any(other.startswith(clause + "(") and "- `" in text for other, text in by_clause.items())


def test_every_guard_of_the_round_machine_carries_a_clause():
    """Every guard carries the clause or source it enforces, so the page can list it."""
    page = conformance.render_game("free-bet-blackjack")
    table = page.split("### Guards")[1].split("###")[0]
    rows = [line for line in table.splitlines() if line.startswith("| `")]
    assert len(rows) > 15 and not [row for row in rows if "**none**" in row]


def test_citations_are_read_from_test_names_and_docstrings():
    citations = conformance.Citations("672a.7")
    assert citations.in_test("test_672a_7_e_1_first_cards", "") == {"672a.7(e)(1)"}
    assert citations.in_test("test_672a_7_random_rounds", "see 672a.7(k) and 672a.7(q)(2)") == {
        "672a.7(k)",
        "672a.7(q)(2)",
    }
    assert citations.in_text("672a.2") == set()


def test_check_mode_fails_on_a_stale_page(tmp_path, monkeypatch):
    monkeypatch.setattr(conformance, "DOC", tmp_path / "conformance.md")
    assert conformance.main(["--check"]) == 1
    assert conformance.main([]) == 0
    assert conformance.main(["--check"]) == 0


def test_the_user_guide_names_every_configuration_key_and_irregularity():
    guide = GUIDE.read_text()
    missing = [f"`{spec.name}`" for spec in fields(RuleSet) if f"`{spec.name}`" not in guide]
    missing += [f"`{kind.code}`" for kind in KINDS if f"`{kind.code}`" not in guide]
    assert not missing, f"docs/games/free-bet-blackjack.md does not explain {missing}"
