"""Scenario files: one tricky case of a game, written down so a table-games engineer can read it, the
simulator can play it (``croupier sim --scenario FILE``) and the tests can check it
(tests/integration/test_scenarios.py runs every file in tests/scenarios/). docs/scenarios.md.

A scenario is plain text, one directive a line, ``#`` comments::

    game free-bet-blackjack
    seats 2
    shoe As Kd 9h Ah 7c Tc        # the cards from the top of the shoe, in dealing order, after the burn
    wager 1 blackjack=1000 push22=500
    insurance 1 even_money
    decide 2 stand
    expect peek dealer_blackjack=True
    expect net 1 1000

The cards are stacked on the simulated devices (the shoe's top after the round's burn at the shoe
games; the shuffler's order for a deck dealt from the hand), the players are scripted (an answer the
file lacks stops the run naming the seat and the prompt, rather than guessing), and each ``expect``
is matched in order against the records the table made before the round (its burns) and then the
round's own (games/common/records.py and each game's own kinds), so the file says what the trail
must hold, not how the code gets there. ``dealer NAME`` has a new dealer take over before the
round. Every mistake in a file is a ScenarioError naming ``file:line``.
"""

from __future__ import annotations

import asyncio
import dataclasses
import random
import shlex
import tomllib
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

from croupier.tables.events import RoundListener
from firmware_sim.dealer import FOREIGN_BACK
from firmware_sim.world import SHOE, SHUFFLER_INPUT, PhysicalCard, TableWorld
from games import registry
from games.registry import UnknownGame
from simulator.faults import FOREIGN_FACE, JOKER
from simulator.floor import FloorSupervisor, controller_key, on_the_floor, repair_sim
from simulator.games.registry import Simulation, simulation, simulations
from simulator.players import table_options
from simulator.summary import Tally
from simulator.tables import simulated_table
from vocabulary.cards import Card, CardError
from vocabulary.rules import RuleViolation

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
    rules: dict[str, Any] = field(default_factory=dict)  # ``rule KEY VALUE`` lines: the table's rules

    @property
    def needs_stacking(self) -> bool:
        """Whether it stacks cards or injects a fault, which only the simulator can do."""
        return any(r.shoe or r.faults for r in self.rounds)


# -- parsing ---------------------------------------------------------------------------------------
def load(path: Path | str) -> Scenario:
    """Read and parse a scenario file; a file that cannot be read is a ScenarioError too."""
    try:
        text = Path(path).read_text()
    except OSError as exc:
        raise ScenarioError(f"{path}: cannot read the scenario: {exc.strerror or exc}") from None
    return parse(text, str(path))


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


# -- the scripted players --------------------------------------------------------------------------
class ScriptedPlayers:
    """The players of one round, answering only from the file: each seat's wager, and its answers
    to the game's prompts in the order the file gives them (each game's subclass, its
    ``Vocabulary.scripted`` in simulator/games/<game>.py, asks ``next_answer`` for them). A prompt
    the file has no answer for raises ScenarioError naming the seat and the prompt, so a scenario
    never plays on a guess."""

    def __init__(
        self, game: str, script: RoundScript, cover: Any = None  # Any: a progressive's cover
    ) -> None:
        self.game, self.script, self.cover = game, script, cover
        self.pending = {seat: deque(answers) for seat, answers in script.decisions.items()}
        self.insurance_asked: set[int] = set()

    def wagers(self, round_number: int, positions: int) -> list[Any]:
        message = registry.game(self.game).wager
        placed = []
        for seat, (amounts, where) in sorted(self.script.wagers.items()):
            if seat > positions:
                raise ScenarioError(f"{where}: seat {seat}: the table has {positions} positions")
            if amounts.get("progressive") and self.cover is not None:
                self.cover(seat)  # the value chip on the seat's sensor (657a.9(a)(3))
            try:
                placed.append(message(seat=seat, **amounts))
            except (TypeError, ValueError) as exc:
                raise ScenarioError(f"{where}: seat {seat}'s wager refused: {exc}") from None
        return placed

    def next_answer(self, seat: int, prompt: str) -> Answer:
        """The seat's next answer in the file, for ``prompt`` (said in the error if there is none)."""
        queue = self.pending.get(seat)
        if not queue:
            given = len(self.script.decisions.get(seat, []))
            raise ScenarioError(
                f"{self.script.where}: seat {seat} was asked for {prompt} and the file gives no answer "
                f"(it gives {given} decision(s) for seat {seat}): add a 'decide {seat} ...' line"
            )
        return queue.popleft()

    def unused(self) -> list[Answer]:
        """Answers the round never asked for: a scenario that says more than happened is wrong."""
        return [answer for queue in self.pending.values() for answer in queue]


# -- stacking and faults ---------------------------------------------------------------------------
def stack_top(world: TableWorld, cards: Sequence[Card], where: Where) -> None:
    """Bring these faces (one physical card each) to the top of the shoe, in order."""
    with world.lock:
        shoe = world.places.get(SHOE, [])
        picked = []
        for face in cards:
            index = next((i for i, card in enumerate(shoe) if card.face == face), None)
            if index is None:
                raise ScenarioError(f"{where}: no {face} left in the shoe to stack")
            picked.append(shoe.pop(index))
        shoe[0:0] = picked


class StackingRandom(random.Random):
    """The shuffler's random source with a stacked order: after an ordinary seeded shuffle, the
    faces of the next stack move to the top, in order, so the deck the dealer takes in hand deals
    them first (the sealed order the shuffler reports is this order, as on a real machine)."""

    def __init__(self, seed: int) -> None:
        super().__init__(seed)
        self.stacks: deque[tuple[list[Card], Where]] = deque()

    def shuffle(self, x: list[Any]) -> None:  # type: ignore[override]
        super().shuffle(x)
        if not self.stacks or not x or not isinstance(x[0], PhysicalCard):
            return
        if any(card.back == FOREIGN_BACK for card in x):
            return  # a batch that will fail its count: the stack is for the one shuffled after it
        faces, where = self.stacks.popleft()
        picked = []
        for face in faces:
            index = next((i for i, card in enumerate(x) if card.face == face), None)
            if index is None:
                raise ScenarioError(f"{where}: {face} twice in one deck: a deck holds one of each card")
            picked.append(x.pop(index))
        x[0:0] = picked


class FaultWatcher(RoundListener):
    """A table listener that strikes the round's faults as the card records come in."""

    def __init__(self, world: TableWorld, faults: Sequence[Fault]) -> None:
        self.world, self.faults, self.cards = world, list(faults), 0
        self.struck: list[Fault] = []

    def round_began(self, round_: Any) -> None:  # Any: a round of any game
        self.cards = 0

    def record(self, record: Any) -> None:  # Any: a record of any game
        if str(record.kind) != "card":
            return
        self.cards += 1
        for fault in self.faults:
            if fault.kind == "jam" and fault.at_card == self.cards:
                self.struck.append(fault)
                with self.world.lock:
                    self.world.faults.stuck.add(SHOE if fault.device == "shoe" else SHUFFLER_INPUT)


@dataclass(frozen=True)
class TableRecord:
    """A record the table made before the round, between rounds (a burn), as ``expect`` matches
    it; numbered ``t1``, ``t2``... apart from the round's own."""

    seq: str
    kind: str
    fields: Mapping[str, Any]  # Any: JSON values


class TableRecords(RoundListener):
    """The table's records made before each round (since the one before it began), for its
    expectations."""

    def __init__(self) -> None:
        self.pending: list[TableRecord] = []
        self.before_round: list[TableRecord] = []  # those made before the round last begun

    def table_event(self, kind: str, fields: Mapping[str, Any]) -> None:  # Any: JSON values
        self.pending.append(TableRecord(f"t{len(self.pending) + 1}", kind, dict(fields)))

    def round_began(self, round_: Any) -> None:  # Any: a round of any game
        self.before_round, self.pending = self.pending, []


# -- checking --------------------------------------------------------------------------------------
@dataclass
class Outcome:
    """What running a scenario found: the first mismatch (None: it played as written) and, per
    round, the number of records and checks passed."""

    scenario: Scenario
    failure: str | None = None
    checked: int = 0
    rounds: list[Any] = field(default_factory=list)  # Any: rounds of any game
    before: list[list[TableRecord]] = field(default_factory=list)  # each round's table records

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
    before: Sequence[TableRecord] = (),
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
    expect: Expect, records: Sequence[Any], position: int  # Any: a round's or the table's record
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


# -- running ---------------------------------------------------------------------------------------
async def run_scenario(
    scenario: Scenario, options: Mapping[str, Any] | None = None  # Any: TOML values
) -> Outcome:
    """Play the scenario's rounds on the game's simulated table, stacked and scripted as the file
    says, with the simulated floor supervisor clearing any fault; check each round as it ends.
    ``options`` are the table builder's (the rules for ``seats``); a file error raises, a round
    that did not go as written is the Outcome's failure."""
    game = scenario.game
    words = simulation(game).scenario
    outcome = Outcome(scenario)
    stacking = StackingRandom(scenario.seed)
    async with simulated_table(
        game, name="scenario", shuffler_seed=scenario.seed, **dict(options or {})
    ) as sim:
        table = sim.table
        if words.stacked == "shuffler":
            shuffler = sim.devices["shuffler"]
            shuffler.call(lambda engine: setattr(engine.personality, "_rng", stacking))
        faults = FaultWatcher(sim.world, [])
        table.events.subscribe(faults)
        table_records = TableRecords()
        table.events.subscribe(table_records)
        cover = table_options(game, sim).get("cover")
        tally = Tally()
        repair = partial(repair_sim, sim)
        floor = FloorSupervisor(table, tally, None, repair=repair, reset_key=controller_key(sim))
        async with on_the_floor(floor):
            for script in scenario.rounds:
                faults.faults, faults.struck = list(script.faults), []
                before = dict(tally.faults)
                if script.dealer is not None:
                    table.dealer_change(script.dealer)
                if words.stacked == "shoe":
                    await table.prepare_round()  # the burn (and a new deck) before the stack
                    if script.shoe:
                        stack_top(sim.world, script.shoe, script.where)
                elif script.shoe:
                    stacking.stacks.append((list(script.shoe), script.where))
                for fault in script.faults:
                    if _strike_dealer_fault(sim, fault):
                        faults.struck.append(fault)
                players = words.scripted(game, script, cover)
                try:
                    round_ = await asyncio.wait_for(table.play_round(players), timeout=30)
                except RuleViolation as refused:
                    outcome.failure = f"{script.where}: the round refused the scripted play: {refused}"
                    return outcome
                except TimeoutError:
                    outcome.failure = (
                        f"{script.where}: the round did not finish within 30 s (held, or waiting)"
                    )
                    return outcome
                outcome.rounds.append(round_)
                outcome.before.append(table_records.before_round)
                cleared = {
                    code: n - before.get(code, 0)
                    for code, n in tally.faults.items()
                    if n > before.get(code, 0)
                }
                checked, failure = check_round(round_, script, cleared, table_records.before_round)
                outcome.checked += checked
                unstruck = [fault for fault in script.faults if fault not in faults.struck]
                if failure is None and unstruck:
                    failure = (
                        f"{unstruck[0].where}: the round dealt fewer than {unstruck[0].at_card} cards: no jam"
                    )
                failure = failure or _unasked(players) or _report_not_skipped(sim.dealer, script)
                if failure is not None:
                    outcome.failure = failure
                    return outcome
    return outcome


def _strike_dealer_fault(sim: Any, fault: Fault) -> bool:  # Any: a simulated table of any game
    """Arm or strike a dealer's fault before the round (the simulated dealer's slips, as
    ``croupier sim --faults`` strikes them); False for a jam, which FaultWatcher strikes mid-round."""
    dealer, world = sim.dealer, sim.world
    if fault.kind == "unreported":
        dealer.skip_report.add(fault.device)
        return True
    if fault.kind == "miscount":
        if fault.device == "stub":
            dealer.drop_from_stub = True
        else:
            dealer.drop_next_pickup = True
        return True
    if fault.kind == "foreign-card":
        if fault.device == "shoe":
            if world.count(SHOE) < fault.at_card:
                raise ScenarioError(f"{fault.where}: the shoe holds fewer than {fault.at_card} cards")
            back = world.cards(SHOE)[0].back
            dealer.slip_foreign_card(JOKER, SHOE, back=back, at=fault.at_card - 1)
        else:
            dealer.slip_foreign_card(FOREIGN_FACE)
        return True
    return False


def _report_not_skipped(dealer: Any, script: RoundScript) -> str | None:  # Any: any game's dealer
    """A ``fault unreported`` the round never struck: the dealer was never asked for that hand."""
    for fault in script.faults:
        if fault.kind == "unreported" and fault.device in dealer.skip_report:
            dealer.skip_report.discard(fault.device)
            return (
                f"{fault.where}: the dealer was never asked to report the hand at {fault.device} "
                "(a shuffler that reports its order needs no report: rule shuffler_reports_order false)"
            )
    return None


def _unasked(players: ScriptedPlayers) -> str | None:
    """An answer the round never asked for: a scenario that says more than happened is wrong."""
    if players.unused():
        extra = players.unused()[0]
        return f"{extra.where}: the round never asked for {extra.word!r}: the file says more than happened"
    missed = sorted(set(players.script.insurance) - players.insurance_asked)
    if missed:
        return f"{players.script.insurance[missed[0]].where}: seat {missed[0]} was never offered insurance"
    return None


def records_text(
    rounds: Sequence[Any], before: Sequence[Sequence[TableRecord]] = ()  # Any: rounds of any game
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


__all__ = [
    "Expect",
    "Fault",
    "Outcome",
    "RoundScript",
    "Scenario",
    "ScenarioError",
    "ScriptedPlayers",
    "check_round",
    "load",
    "parse",
    "records_text",
    "run_scenario",
]
