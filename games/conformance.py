"""Generate docs/conformance.md from the code and the tests: ``python -m games.conformance``.

For each game, every clause of its seed section is listed with the Rule objects that cite it, the
functions that use each rule, the machine guards and callbacks that reach those functions (with
their transitions), and the tests that cite the clause in their name (``test_672a_7_e_1_...``) or
docstring (``672a.7(e)(1)``), and what the independent procedure auditor (``croupier audit
procedure``, when installed beside the games) checks of each clause. Nothing is written by hand,
so the page cannot claim what the code does not do; ``--check`` (and
tests/games/test_conformance_doc.py) fails when the committed page is stale. Where a clause allows
two readings, the one the code takes, and why, is written beside the clause in the game's clauses
module (``READINGS``) and shown under the clause's heading.
"""

from __future__ import annotations

import argparse
import ast
import importlib
import re
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

from games import registry
from vocabulary.machines import Spec
from vocabulary.rules import Rule

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "conformance.md"
TESTS = ROOT / "tests" / "games"
COMMON = Path(__file__).resolve().parent / "common"


@dataclass(frozen=True)
class Function:
    """A function, method or module-level table of a game package, as the source shows it."""

    name: str  # module.qualname
    refs: frozenset[str]  # every name and attribute it mentions (its calls, among them)
    rules: frozenset[str]  # the rules it names, as ``clauses.NAME``
    doc: str = ""

    @property
    def short(self) -> str:
        return self.name.rsplit(".", 1)[-1]


class Citations:
    """How a section's clauses are cited: ``672a.7(e)(1)`` in text, ``672a_7_e_1`` in test names."""

    def __init__(self, section: str) -> None:
        self.text = re.compile(re.escape(section) + r"\(([a-z])\)(?:\((\d+)\))?")
        self.name = re.compile(re.escape(section.replace(".", "_")) + r"_([a-z])(?:_(\d+))?(?=_|$)")
        self.section = section

    def _ids(self, found: Iterable[tuple[str, str]]) -> set[str]:
        return {f"{self.section}({letter})" + (f"({number})" if number else "") for letter, number in found}

    def in_text(self, text: str) -> set[str]:
        return self._ids(self.text.findall(text))

    def in_test(self, name: str, doc: str) -> set[str]:
        return self._ids(self.name.findall(name)) | self.in_text(doc)


def functions(package: ModuleType) -> list[Function]:
    """Every function and method of the package's modules and of games/common (whose guards and
    callbacks every game's machine uses), and each module-level assignment (a table of rules is
    used through its name)."""
    found = []
    paths = [*sorted(Path(package.__file__ or "").parent.glob("*.py")), *sorted(COMMON.glob("*.py"))]
    for path in paths:
        module = path.stem if path.parent != COMMON else f"common.{path.stem}"
        tree = ast.parse(path.read_text())
        for node in tree.body:
            if isinstance(node, ast.Assign | ast.AnnAssign):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                for target in targets:
                    if isinstance(target, ast.Name):
                        found.append(Function(f"{module}.{target.id}", *_names(node.value)))
        found += _defs(tree.body, module)
    return found


def _defs(body: list[ast.stmt], prefix: str) -> list[Function]:
    found = []
    for node in body:
        if isinstance(node, ast.ClassDef):
            found += _defs(node.body, f"{prefix}.{node.name}")
            doc = ast.get_docstring(node) or ""
            found += [Function(f"{prefix}.{node.name}", frozenset(), frozenset(), doc)]
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            found.append(Function(f"{prefix}.{node.name}", *_names(node), ast.get_docstring(node) or ""))
    return found


def _names(node: ast.AST | None) -> tuple[frozenset[str], frozenset[str]]:
    """The names and attributes ``node`` mentions, and the rules among them (``clauses.NAME``)."""
    names, rules = set(), set()
    for sub in ast.walk(node) if node is not None else ():
        if isinstance(sub, ast.Name):
            names.add(sub.id)
        elif isinstance(sub, ast.Attribute):
            names.add(sub.attr)
            if isinstance(sub.value, ast.Name) and sub.value.id == "clauses":
                rules.add(sub.attr)
    return frozenset(names), frozenset(rules)


def callbacks(definition: Spec) -> dict[str, list[str]]:
    """Each guard or callback named in the machine, with the transitions that use it, one line per
    trigger: ``trigger`` (sources → destinations)."""
    moves: dict[str, dict[str, tuple[set[str], set[str]]]] = defaultdict(dict)
    for t in definition["transitions"]:
        for role in ("conditions", "before", "after"):
            names = t.get(role) or []
            for name in [names] if isinstance(names, str) else names:
                if isinstance(name, str):
                    sources, dests = moves[name].setdefault(t["trigger"], (set(), set()))
                    sources.update(t["source"] if isinstance(t["source"], list) else [t["source"]])
                    dests.add(t["dest"] or "stays")
    states = definition["states"]
    described = {}
    for name, by_trigger in moves.items():
        by_move = defaultdict(list)  # triggers that make the same move share a line
        for trigger, (sources, dests) in by_trigger.items():
            by_move[f"{_states(sources, states)} → {_states(dests, [*states, 'stays'])}"].append(
                f"`{trigger}`"
            )
        described[name] = [f"{', '.join(triggers)} ({move})" for move, triggers in by_move.items()]
    return described


def guards(definition: Spec) -> dict[str, str]:
    """Each guard (transition condition) by its name, with the function or class that implements it."""
    found = {}
    for t in definition["transitions"]:
        conditions = t.get("conditions") or []
        for guard in [conditions] if isinstance(conditions, str) else conditions:
            if isinstance(guard, str):
                found[guard] = guard
            else:
                found[f"{type(guard).__name__}(…)"] = type(guard).__name__
    return found


def _states(names: set[str], order: list[str]) -> str:
    missing = [state for state in order if state not in names and state != "stays"]
    if len(names) > 3 and len(missing) <= 3:
        return "any state but " + ", ".join(missing)
    return ", ".join(state for state in order if state in names)


def reaching(target: Function, everything: list[Function], machine: dict[str, list[str]]) -> list[str]:
    """The machine callbacks whose code reaches ``target`` through the package's own calls."""
    found, seen, frontier = [], {target.short}, [target.short]
    if target.short in machine:
        found.append(target.short)
    while frontier:
        name = frontier.pop()
        for caller in everything:
            if name in caller.refs and caller.short not in seen:
                seen.add(caller.short)
                frontier.append(caller.short)
                if caller.short in machine:
                    found.append(caller.short)
    return sorted(found)


def tests_citing(citations: Citations) -> dict[str, list[str]]:
    cited = defaultdict(list)
    for path in sorted(TESTS.glob("test_*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.FunctionDef) and node.name.startswith("test_"):
                for clause in citations.in_test(node.name, ast.get_docstring(node) or ""):
                    cited[clause].append(f"{path.relative_to(ROOT)}::{node.name}")
    return cited


#: The procedure auditor's checks of each clause (Any: croupier.audit.procedure's own check objects;
#: the games never import it).
Checks = dict[str, list[Any]]  # Any: the auditor's own check objects


def _unjudged(clause: str, checks: Checks, unjudged: dict[str, str]) -> str:
    """Why the auditor shows no check of ``clause``: judged with the clause it belongs to, or the
    auditor's own reason for leaving it."""
    parent = clause
    while parent.count("(") > 1:
        parent = parent[: parent.rindex("(")]
        if checks.get(parent):
            return f"judged with {parent} (above)"
    if any(other.startswith(clause + "(") for other, found in checks.items() if found):
        return "judged through its sub-clauses (below)"
    return f"does not judge it: {unjudged.get(clause, 'not judged yet')}"


def auditor() -> ModuleType | None:
    """The procedure auditor (``croupier.audit.procedure``) when it is installed beside the games,
    else None: the games never depend on it, so it is imported here only when the page is made,
    and the page goes without its checks where it is absent. Its ``checks_by_clause`` gives each
    clause's checks (``says``, and the ``reading`` taken); ``unjudged_by_clause`` why it leaves a
    clause."""
    try:
        return importlib.import_module("croupier.audit.procedure")
    except ImportError:
        return None


def render_game(game_id: str, checks: Checks | None = None, unjudged: dict[str, str] | None = None) -> str:
    """The game's part of the page; ``checks`` are the procedure auditor's for its clauses and
    ``unjudged`` why it judges the others not (absent: the auditor is not installed)."""
    package = registry.game(game_id).package
    game = importlib.import_module(package)
    clauses = importlib.import_module(f"{package}.clauses")
    irregularities = importlib.import_module(f"{package}.irregularities")
    citations = Citations(clauses.SECTION)
    rules = {name: rule for name, rule in vars(clauses).items() if isinstance(rule, Rule)}
    everything = functions(game)
    machine = callbacks(game.machine_definition())
    tests = tests_citing(citations)

    def uses(name: str) -> list[str]:
        lines = []
        for function in everything:
            if name in function.rules:
                via = reaching(function, everything, machine)
                lines.append(
                    f"  - in `{function.name}`" + (f"; reached by {_via(via, machine)}" if via else "")
                )
        return lines

    out = [f"## {game.TITLE}", ""]
    readings = getattr(clauses, "READINGS", {})  # a clause read one way of two, and why
    for clause, gist in game.CLAUSES.items():
        out += [f"### {clause} — {gist}", ""]
        if clause in readings:
            out += [f"**Reading.** {readings[clause]}", ""]
        cited = [(name, rule) for name, rule in rules.items() if clause in citations.in_text(rule.clause)]
        for name, rule in cited:
            out.append(f"- `{name}` ({rule.clause}): {rule.summary}")
            out += uses(name) or ["  - used by no code"]
        if not cited:
            out.append("- enforced through its sub-clauses")
        out.append("- tests: " + (", ".join(f"`{t}`" for t in tests.get(clause, [])) or "**none**"))
        for check in (checks or {}).get(clause, []):
            out.append(f"- the procedure auditor checks: {check.says}")
            if check.reading:
                out.append(f"  - reading: {check.reading}")
        if checks is not None and not checks.get(clause):
            out.append(f"- the procedure auditor: {_unjudged(clause, checks, unjudged or {})}")
        out.append("")
    out += ["### Rules from outside the seed section", ""]
    out += [_OUTSIDE, ""]
    for name, rule in rules.items():
        if not citations.in_text(rule.clause) and rule.clause != clauses.SECTION:
            out.append(f"- `{name}` ({rule.clause}): {rule.summary}")
            out += uses(name) or ["  - used by no code"]
    out += ["", "### Guards", "", _GUARDS, "", "| guard | clauses and sources | used on |", "|---|---|---|"]
    # guard or callback -> the clauses its code reaches
    enforced: defaultdict[str, set[str]] = defaultdict(set)
    for rule_name, rule in rules.items():
        for function in everything:
            if rule_name in function.rules:
                for callback in reaching(function, everything, machine):
                    enforced[callback].update(part.strip() for part in rule.clause.split(";"))
    for guard, implementation in guards(game.machine_definition()).items():
        doc = next(f.doc for f in everything if f.short == implementation)
        in_doc = [source[0].lower() + source[1:] for source in _sources(clauses.SECTION).findall(doc)]
        sources = sorted(enforced[guard]) or in_doc or ["**none**"]
        used_on = ", ".join(machine.get(guard, [])) or "a supervisor's ruling, one per state"
        out.append(f"| `{guard}` | {'; '.join(sources)} | {used_on} |")
    out += [
        "",
        "### Configuration (not from the seed text)",
        "",
        "| key | default | source |",
        "|---|---|---|",
    ]
    for key, (default, source) in game.RuleSet.sources().items():
        out.append(f"| `{key}` | {default} | {source} |")
    out += [
        "",
        "### Irregularities",
        "",
        irregularities.SECTION_SAYS + " " + _IRREGULARITIES,
        "",
        "| kind | cites | the round | CONTINUE | VOID |",
    ]
    out.append("|---|---|---|---|---|")
    for kind in irregularities.KINDS:
        continues = kind.on_continue or "not offered"
        held = kind.voidable and kind.outcome is irregularities.Outcome.HELD
        void = "offered until the round is settled" if held else "not offered"
        if held and kind.on_void:
            void += f"; {kind.on_void}"
        out.append(f"| `{kind.code}` | {kind.cites} | {kind.outcome.value} | {continues} | {void} |")
    return "\n".join(out) + "\n"


def _sources(section: str) -> re.Pattern[str]:
    """A citation in a docstring: of the game's own section (``686a.7(f)``), of a decision record
    (``decision 0008``), of published game rules or of a house convention."""
    others = r"decision \d{4}|published game rules(?: \(not PA text\))?|house convention"
    return re.compile(re.escape(section) + r"(?:\([a-z]\)(?:\(\d+\))?)?|" + others, re.IGNORECASE)


#: What the rules cited from outside the seed section are, so a reader knows none of them is seed text.
_OUTSIDE = (
    "None of these is from the text of the section. Each cites its source: another section of the "
    "same chapter; a sister chapter's clause, marked (analog), a configurable default; "
    "another state's rule, marked (analog); published game rules (not PA text); a house convention; "
    "configuration where no text was found; or a decision record in docs/decisions/."
)


_GUARDS = (
    "Every condition of the round machine, with the clauses its code enforces (the rules it raises "
    "or cites, directly or through the functions it calls) or, for a guard that only chooses between "
    "transitions, the clause its docstring cites."
)
#: What every game does where its section is silent; each game's ``SECTION_SAYS`` (its irregularities
#: module) comes first and says what the section itself resolves.
_IRREGULARITIES = (
    "Where the section is silent, the round is held: no card is taken into play and no wager settled "
    "until a supervisor rules. CONTINUE does what the table says; VOID returns every wager not yet "
    "settled and sends the cards to the discard rack."
)


def _via(names: list[str], machine: dict[str, list[str]]) -> str:
    return "; ".join(f"`{name}` on {', '.join(machine[name])}" for name in names)


def render(checks: dict[str, Checks] | None = None) -> str:
    """The page; ``checks`` default to the procedure auditor's (``auditor``)."""
    unjudged: dict[str, str] = {}
    if checks is None:
        procedure = auditor()
        checks = {} if procedure is None else procedure.checks_by_clause()
        unjudged = {} if procedure is None else procedure.unjudged_by_clause()
    head = (
        "# Conformance: the clauses and the code that enforces them\n\n"
        "Generated by `python -m games.conformance` from the Rule objects of each game, the code that "
        "uses them, the round machine and the tests, and the independent procedure auditor's checks "
        "(`croupier audit procedure`, docs/audit.md) with the reading each takes where a clause allows "
        "two; do not edit by hand.\n"
    )
    games = registry.slugs()
    return head + "".join("\n" + render_game(game_id, checks.get(game_id), unjudged) for game_id in games)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m games.conformance", description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="fail if docs/conformance.md is stale")
    args = parser.parse_args(argv)
    text = render()
    if args.check:
        fresh = DOC.exists() and DOC.read_text() == text
        print(f"{DOC} is {'up to date' if fresh else 'stale (run python -m games.conformance)'}")
        return 0 if fresh else 1
    DOC.write_text(text)
    print(f"wrote {DOC}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
