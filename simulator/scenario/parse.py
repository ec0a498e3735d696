"""A scenario file's text read into a typed Scenario (docs/scenarios.md), without reading a file or
touching a device: every mistake is a ScenarioError naming ``file:line``. The words a game adds
(its decisions, its directives and faults) are its scenario vocabulary
(simulator.games.registry.Vocabulary).
"""

from __future__ import annotations

import dataclasses
import shlex
import tomllib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from games import registry
from games.registry import UnknownGame
from simulator.games.registry import Simulation, simulation, simulations
from vocabulary.cards import Card, CardError

INSURANCE = ("decline", "even_money", "insure")


FAULTS = {
    "jam": "the shoe (or the shuffler's input) jams once N cards are recorded; the floor clears it",
    "miscount": "a card falls to the floor from the stub as it is counted, or at the pickup",
    "foreign-card": "a joker slipped into the shoe as the Nth card dealt (the shoe games: Free Bet "
    "Blackjack, Over/Under, Heads Up Hold 'Em), or a foreign card into the batch the round shuffles "
    "(Crazy 4 Poker)",
    "unreported": "the dealer does not report the hand at a place, once (Crazy 4 Poker whose shuffler "
    "reports no order: rule shuffler_reports_order false)",
}


GLOBAL_DIRECTIVES = ("game", "seats", "seed", "rule")


ROUND_DIRECTIVES = ("round", "dealer", "shoe", "wager", "insurance", "decide", "fault", "expect")


class ScenarioError(Exception):
    """A mistake in a scenario file, or a scenario whose round did not go as it says: the message
    starts with ``file:line``."""


@dataclass(frozen=True)
class Where:
    """A line of a scenario file, so every error can point at it."""

    path: str
    line: int

    def __str__(self) -> str:
        return f"{self.path}:{self.line}"


@dataclass(frozen=True)
class Answer:
    """One scripted answer of a seat: ``word`` (a decision or insurance answer) and its number
    (``play:N``'s multiple, ``insure``'s amount; 0 where none)."""

    word: str
    number: int
    where: Where


@dataclass(frozen=True)
class Expect:
    """One expected event. ``what`` is a record kind (the next such record with these fields, after
    the last one matched), or ``no KIND`` (no such record in the round), ``net`` (a seat's net,
    in cents) or ``state`` (the round's final state)."""

    what: str
    fields: Mapping[str, str]
    where: Where
    negated: bool = False

    def __str__(self) -> str:
        words = ["no"] if self.negated else []
        words += [self.what, *(f"{key}={shlex.quote(value)}" for key, value in self.fields.items())]
        return " ".join(words)


@dataclass(frozen=True)
class Fault:
    """``fault jam DEVICE at card N``: the device's card path jams once N card records are in;
    ``fault miscount stub|pickup`` (``device`` says where the card falls; ``at_card`` 0);
    ``fault foreign-card [at card N]`` (``device`` is "shoe" or "batch"); ``fault unreported
    PLACE`` (``device`` is the layout place whose hand the dealer does not report, once)."""

    kind: str
    device: str
    at_card: int
    where: Where


@dataclass
class RoundScript:
    """What one round of the scenario stacks, bets, answers and expects."""

    where: Where
    dealer: str | None = None  # a new dealer who takes over before the round (its burns first)
    shoe: list[Card] = field(default_factory=list)
    wagers: dict[int, tuple[dict[str, int], Where]] = field(default_factory=dict)
    insurance: dict[int, Answer] = field(default_factory=dict)
    decisions: dict[int, list[Answer]] = field(default_factory=dict)
    faults: list[Fault] = field(default_factory=list)
    expects: list[Expect] = field(default_factory=list)


@dataclass
class Scenario:
    """A parsed scenario file: its title (the header comment), the game and table, its rounds."""

    path: str
    title: str
    game: str
    seats: int | None
    seed: int
    rounds: list[RoundScript]
    rules: dict[str, Any] = field(default_factory=dict)  # Any: TOML values of ``rule KEY VALUE`` lines

    @property
    def needs_stacking(self) -> bool:
        """Whether it stacks cards or injects a fault, which only the simulator can do."""
        return any(r.shoe or r.faults for r in self.rounds)


def parse(text: str, path: str = "<scenario>") -> Scenario:
    """The Scenario a file's text describes; the first mistake is a ScenarioError naming file:line."""
    title_lines: list[str] = []
    game: str | None = None
    seats: int | None = None
    seed = 1
    rules: dict[str, Any] = {}  # Any: configured values
    rounds: list[RoundScript] = []
    header = True
    for number, raw in enumerate(text.splitlines(), start=1):
        where = Where(path, number)
        stripped = raw.strip()
        if header and stripped.startswith("#"):
            title_lines.append(stripped.lstrip("#").strip())
            continue
        try:
            words = shlex.split(raw, comments=True)
        except ValueError as exc:
            raise ScenarioError(f"{where}: {exc}") from None
        if not words:
            continue
        header = False
        directive, args = words[0].lower(), words[1:]
        if directive == "rule":
            if rounds or game is None:
                raise ScenarioError(
                    f"{where}: 'rule' comes after 'game' and before the first round's directives"
                )
            key, value = _rule(raw, where)
            rules[key] = value
            continue
        if directive in GLOBAL_DIRECTIVES:
            if rounds:
                raise ScenarioError(f"{where}: {directive!r} must come before the first round's directives")
            if directive == "game":
                game = _one(where, directive, args)
                try:
                    registry.game(game)
                except UnknownGame as unknown:
                    raise ScenarioError(f"{where}: {unknown}") from None
            elif directive == "seats":
                seats = _int(where, "seats", _one(where, directive, args), minimum=1)
            else:
                seed = _int(where, "seed", _one(where, directive, args), minimum=0)
            continue
        if directive not in ROUND_DIRECTIVES:
            known = ", ".join(GLOBAL_DIRECTIVES + ROUND_DIRECTIVES)
            raise ScenarioError(f"{where}: unknown directive {directive!r}; known: {known}")
        if game is None:
            raise ScenarioError(f"{where}: {directive!r} before the 'game' line: say which game first")
        if directive == "round":
            if args:
                raise ScenarioError(f"{where}: 'round' takes nothing (it starts the next round)")
            rounds.append(RoundScript(where))
            continue
        if not rounds:
            rounds.append(RoundScript(where))
        _round_directive(rounds[-1], game, directive, args, where)
        if directive == "fault":
            _fault_fits(rounds[-1].faults[-1], game)
    if game is None:
        raise ScenarioError(f"{path}: no 'game' line; known games: {', '.join(registry.slugs())}")
    if not rounds:
        raise ScenarioError(f"{path}: no round: a scenario places at least one wager")
    for script in rounds:
        if not script.wagers:
            raise ScenarioError(f"{script.where}: this round places no wager")
    title = " ".join(line for line in title_lines if line) or Path(path).stem
    return Scenario(path, title, game, seats, seed, rounds, rules)


def _games(said: Callable[[Simulation], bool]) -> str:
    """The slugs of the games of which ``said`` holds, for a message naming where a line works."""
    return ", ".join(each.game.slug for each in simulations() if said(each))


def _round_directive(script: RoundScript, game: str, directive: str, args: list[str], where: Where) -> None:
    words = simulation(game).scenario
    if directive == "dealer":
        if not words.dealer_change:
            games = _games(lambda each: each.scenario.dealer_change)
            raise ScenarioError(f"{where}: 'dealer' changes the dealer at a game with a burn card: {games}")
        script.dealer = _one(where, directive, args)
    elif directive == "shoe":
        if not args:
            raise ScenarioError(f"{where}: 'shoe' names at least one card, e.g. 'shoe As Kd'")
        for word in args:
            try:
                script.shoe.append(Card.parse(word))
            except CardError as exc:
                raise ScenarioError(f"{where}: {word!r} is not a card: {exc}") from None
    elif directive == "wager":
        seat = _seat(where, directive, args)
        if seat in script.wagers:
            raise ScenarioError(
                f"{where}: seat {seat} already wagered this round (line {script.wagers[seat][1].line})"
            )
        amounts = {}
        for pair in args[1:]:
            key, value = _pair(where, pair)
            amounts[key] = _int(where, f"wager {key}", value, minimum=0)
        if not amounts:
            raise ScenarioError(f"{where}: 'wager {seat}' names no wager, e.g. {_wager_example(game)}")
        _check_wager_keys(game, amounts, where)
        script.wagers[seat] = (amounts, where)
    elif directive == "insurance":
        if not words.insurance:
            names = " or ".join(each.game.name for each in simulations() if each.scenario.insurance)
            raise ScenarioError(f"{where}: 'insurance' is a {names} directive, not {game}'s")
        seat = _seat(where, directive, args)
        rest = args[1:]
        if not rest or rest[0] not in INSURANCE or len(rest) != (2 if rest[0] == "insure" else 1):
            raise ScenarioError(
                f"{where}: 'insurance {seat}' takes decline, even_money or 'insure CENTS'; "
                f"got {' '.join(rest)!r}"
            )
        amount = _int(where, "insure", rest[1], minimum=1) if rest[0] == "insure" else 0
        script.insurance[seat] = Answer(rest[0], amount, where)
    elif directive == "decide":
        seat = _seat(where, directive, args)
        if len(args) < 2:
            raise ScenarioError(
                f"{where}: 'decide {seat}' names no decision; {game}: {', '.join(words.decisions)}"
            )
        script.decisions.setdefault(seat, []).extend(_decision(game, word, where) for word in args[1:])
    elif directive == "fault":
        script.faults.append(_fault(args, where))
    else:
        script.expects.append(_expect(args, where))


def _decision(game: str, word: str, where: Where) -> Answer:
    allowed = simulation(game).scenario.decisions
    if "play:N" in allowed and word.startswith("play:"):
        return Answer("play", _int(where, "play multiple", word.partition(":")[2], minimum=1), where)
    if word not in allowed or word == "play:N":
        raise ScenarioError(f"{where}: {word!r} is no {game} decision; one of: {', '.join(allowed)}")
    return Answer(word, 0, where)


def _rule(raw: str, where: Where) -> tuple[str, Any]:  # Any: a configured value
    """``rule KEY VALUE``: VALUE is a TOML value (``"3:1"``, ``6``, ``{ 6 = "100:1", ... }``), as
    the key is written in a table's configuration file; the game's RuleSet checks it when the table
    is built, and a refusal names this line."""
    rest = raw.strip()[len("rule") :].strip()
    key, _, value = rest.partition(" ")
    value = value.strip().removeprefix("=").strip()
    if not key or not value:
        raise ScenarioError(f"{where}: a rule reads 'rule KEY VALUE', e.g. 'rule ante_odds \"1:1\"'")
    try:
        return key, tomllib.loads(f"value = {value}")["value"]
    except tomllib.TOMLDecodeError as exc:
        raise ScenarioError(f"{where}: rule {key}: {value!r} is not a TOML value: {exc}") from None


def _fault(args: list[str], where: Where) -> Fault:
    if args[:1] == ["miscount"]:
        if len(args) != 2 or args[1] not in ("stub", "pickup"):
            raise ScenarioError(f"{where}: a miscount reads 'fault miscount stub' or 'fault miscount pickup'")
        return Fault("miscount", args[1], 0, where)
    if args[:1] == ["unreported"]:
        place = " ".join(args[1:])
        if not (place == "six-card" or (args[1:2] == ["seat"] and len(args) == 3 and args[2].isdigit())):
            raise ScenarioError(f"{where}: an unreported hand reads 'fault unreported seat N' (or six-card)")
        return Fault("unreported", place, 0, where)
    if args[:1] == ["foreign-card"]:
        if len(args) == 1:
            return Fault("foreign-card", "batch", 0, where)
        if len(args) != 4 or args[1:3] != ["at", "card"]:
            raise ScenarioError(f"{where}: a foreign card reads 'fault foreign-card [at card N]'")
        return Fault("foreign-card", "shoe", _int(where, "card", args[3], minimum=1), where)
    usage = "'fault jam shoe at card N' (or 'fault jam shuffler at card N')"
    if len(args) != 5 or args[0] not in FAULTS or args[2:4] != ["at", "card"]:
        raise ScenarioError(f"{where}: a fault reads {usage}; got {' '.join(args)!r}")
    if args[1] not in ("shoe", "shuffler"):
        raise ScenarioError(f"{where}: can jam the shoe or the shuffler, not {args[1]!r}")
    return Fault(args[0], args[1], _int(where, "card", args[4], minimum=1), where)


def _fault_fits(fault: Fault, game: str) -> None:
    """A dealer's fault only where the game has the step it strikes."""
    here = simulation(game)
    if fault.kind == "unreported" and not here.scenario.reports_hands:
        reporting = _games(lambda each: each.scenario.reports_hands)
        raise ScenarioError(f"{fault.where}: at {game} the dealer reports no hand: {reporting}")
    if fault.kind == "miscount" and fault.device == "stub" and not here.counts_stub:
        raise ScenarioError(
            f"{fault.where}: {game} counts no stub; 'fault miscount pickup' drops a card there"
        )
    if fault.kind == "foreign-card":
        in_shoe = _games(lambda each: each.scenario.stacked == "shoe")
        if fault.device == "shoe" and here.scenario.stacked != "shoe":
            raise ScenarioError(f"{fault.where}: 'at card N' slips a joker into a shoe: {in_shoe}")
        if fault.device == "batch" and here.scenario.stacked != "shuffler":
            in_batch = _games(lambda each: each.scenario.stacked == "shuffler")
            raise ScenarioError(
                f"{fault.where}: at {game} a round shuffles no batch; 'fault foreign-card at card N' puts "
                f"a joker in the shoe ({in_shoe}), a bare one reaches the batch at {in_batch}"
            )


def _expect(args: list[str], where: Where) -> Expect:
    if not args:
        raise ScenarioError(
            f"{where}: 'expect' names a record kind, 'no KIND', 'net SEAT CENTS' or 'state STATE'"
        )
    negated = args[0] == "no"
    if negated:
        args = args[1:]
        if not args:
            raise ScenarioError(f"{where}: 'expect no' names the record kind that must not appear")
    what, rest = args[0], args[1:]
    if what == "net" and not negated:
        if len(rest) != 2:
            raise ScenarioError(f"{where}: 'expect net' reads 'expect net SEAT CENTS'")
        seat = _int(where, "seat", rest[0], minimum=1)
        return Expect("net", {"seat": str(seat), "net": str(_int(where, "net", rest[1]))}, where)
    if what == "cleared" and not negated:
        if len(rest) != 1:
            raise ScenarioError(f"{where}: 'expect cleared' reads 'expect cleared FAULT_CODE', e.g. JAM")
        return Expect("cleared", {"code": rest[0]}, where)
    if what == "state" and not negated and len(rest) == 1 and "=" not in rest[0]:
        return Expect("state", {"state": rest[0]}, where)
    return Expect(what, dict(_pair(where, pair) for pair in rest), where, negated)


def _one(where: Where, directive: str, args: list[str]) -> str:
    if len(args) != 1:
        raise ScenarioError(f"{where}: {directive!r} takes one value, got {len(args)}")
    return args[0]


def _int(where: Where, what: str, text: str, *, minimum: int | None = None) -> int:
    try:
        value = int(text)
    except ValueError:
        raise ScenarioError(f"{where}: {what}: {text!r} is not a whole number") from None
    if minimum is not None and value < minimum:
        raise ScenarioError(f"{where}: {what}: {value} is below {minimum}")
    return value


def _seat(where: Where, directive: str, args: list[str]) -> int:
    if not args:
        raise ScenarioError(f"{where}: {directive!r} names a seat first")
    return _int(where, f"{directive} seat", args[0], minimum=1)


def _pair(where: Where, text: str) -> tuple[str, str]:
    key, equals, value = text.partition("=")
    if not equals or not key:
        raise ScenarioError(f"{where}: {text!r} should read key=value")
    return key, value


def _wager_keys(game: str) -> list[str]:
    return [f.name for f in dataclasses.fields(registry.game(game).wager) if f.name != "seat"]


def _wager_example(game: str) -> str:
    return " ".join(f"{key}=1000" for key in _wager_keys(game)[:2])


def _check_wager_keys(game: str, amounts: Mapping[str, int], where: Where) -> None:
    unknown = sorted(set(amounts) - set(_wager_keys(game)))
    if unknown:
        raise ScenarioError(
            f"{where}: {game} has no wager {', '.join(unknown)}; its wagers: {', '.join(_wager_keys(game))}"
        )
