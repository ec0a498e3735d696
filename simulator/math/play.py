"""One worker's rounds: the game's Round fed as the table feeds it, its cards from a seeded shoe.

A shoe game's table loads a shuffled batch, inserts the cover card three quarters in, burns the
first card (672a.7(c), 686a.7(c)), deals rounds until the cover card comes out, finishes that round
and changes the shoe (672a.7(d), 686a.7(d)). ``SeededShoe`` does the same with a batch shuffled by
``random.Random``; a new dealer's burn never comes up (no dealer changes in math mode). Each game's
``MathGame`` says what its Round waits for when it expects no card (its table's ``_step_in``, with
the players answering at once); everything else is the round machine's own: a round the rules
would hold is a fault of the simulation, raised, never counted.
"""

from __future__ import annotations

import importlib
import random
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from croupier.tables.shoe_table import default_cover_depth
from drivers.protocol.classes.shuffler import CARDS_PER_DECK
from games import registry
from games.common.config import Configurable
from games.common.machine_parts import COMPLETE, HELD, SETTLED, VOIDED
from games.common.messages import CardArrives, Discard, Message, ShoeStatus, StartDeal
from games.common.stacked_shoe import StackedShoe
from vocabulary.cards import standard_deck


class MathError(RuntimeError):
    """A round math mode cannot count: held by the rules, or a wager placed and never settled."""


class NoMathMode(ValueError):
    """The game has no math mode (no simulator/math/<game module>.py)."""


class MathRound(Protocol):
    """What math mode reads of any game's Round (games.common.round_base.RoundBase)."""

    state: str
    number: int
    actions: list[Any]  # Any: the game's settlement Actions (games.common.movement.Action)
    reshuffle_required: bool

    @property
    def expected(self) -> Any: ...  # Any: the game's Slot

    @property
    def records(self) -> tuple[Any, ...]: ...  # Any: games.common.records.Record

    def handle(self, message: Message) -> tuple[Any, ...]: ...  # Any: the records it produced


#: What a game's math mode does when its Round expects no card: one step, the players answering.
Step = Callable[[Any, StackedShoe, Any], None]  # Any: the game's Round and its players


@dataclass(frozen=True)
class MathGame:
    """A game's math mode. ``new_round(number, rules, shoe)``: a Round of the game; ``step``: what
    its table's ``_step_in`` does in the Round's state, the players answering at once (a Discard is
    given by the loop); ``stacked``: the shoe the game is dealt from (games.common.stacked_shoe
    or the game's own, with the card reader); ``strategies``: name -> players(rng, rules), the
    first the default; ``belongs``: a settled wager kind counted with another (a Free Bet lammer
    with the Blackjack Wager it was put beside); ``observed``: per round, (figure, value) pairs
    counted into the report (the dealer's final total, the three-card totals); ``staked``: per
    round, (wager kind, seat, cents) of the wagers a game stakes after betting closes without a
    wager record (Over/Under's Over 23 or Under 18 Wager); ``strategy_notes``: what each strategy
    is, for the report."""

    new_round: Callable[[int, Any, StackedShoe], Any]  # Any: the game's RuleSet and Round
    step: Step
    strategies: Mapping[str, Callable[[random.Random, Any], Any]]  # Any: the RuleSet; the players
    strategy_notes: Mapping[str, str]
    stacked: Callable[[list[Any]], StackedShoe] = StackedShoe  # Any: faces, None the cover card
    belongs: Mapping[str, str] = field(default_factory=dict)
    observed: Callable[[Any], Iterable[tuple[str, str]]] = lambda round_: ()  # Any: the Round
    staked: Callable[[Any], Iterable[tuple[str, int, int]]] = lambda round_: ()  # Any: the Round


def math_game(slug: str) -> MathGame:
    """The math mode of the game ``slug``; UnknownGame for no such game, NoMathMode for a game
    without one."""
    game = registry.game(slug)
    try:
        module = importlib.import_module(f"{__package__}.{game.module}")
    except ModuleNotFoundError as missing:
        if missing.name != f"{__package__}.{game.module}":
            raise
        raise NoMathMode(f"{slug} has no math mode; games with one: {', '.join(math_slugs())}") from None
    declared = module.MATH
    if not isinstance(declared, MathGame):
        raise TypeError(f"simulator.math.{game.module}.MATH is not {slug}'s MathGame")
    return declared


def math_slugs() -> list[str]:
    """The games that have a math mode, in the registry's order."""
    found = []
    for slug in registry.slugs():
        try:
            importlib.import_module(f"{__package__}.{registry.game(slug).module}")
        except ModuleNotFoundError:
            continue
        found.append(slug)
    return found


class SeededShoe:
    """The table's shoe, shuffled by ``rng``: ``decks`` decks, the cover card ``cover_depth`` cards
    from the top (default: where the table puts it), the first card burned; a new batch once the
    cover card has come out. ``shoes`` and ``burns`` count them for the report."""

    def __init__(
        self,
        rng: random.Random,
        decks: int,
        stacked: Callable[[list[Any]], StackedShoe],  # Any: faces, None the cover card
        cover_depth: int | None = None,
    ) -> None:
        self.rng, self.decks, self.stacked = rng, decks, stacked
        self.cover_depth = default_cover_depth(decks * CARDS_PER_DECK) if cover_depth is None else cover_depth
        self.shoes = 0
        self.burns = 0
        self.shoe = self._load()

    def _load(self) -> StackedShoe:
        faces: list[Any] = [
            card for _ in range(self.decks) for card in standard_deck()
        ]  # Any: None is the cover
        self.rng.shuffle(faces)
        faces.insert(self.cover_depth, None)
        faces.pop(0)  # the burn card, never seen (672a.7(c), 686a.7(c))
        self.shoes += 1
        self.burns += 1
        return self.stacked(faces)

    def change(self) -> None:
        """The cover card came out and its round is over: the next batch into the shoe."""
        self.shoe = self._load()


def play_rounds(
    math: MathGame,
    rules: Configurable,
    players: Any,  # Any: the game's players
    shoe: SeededShoe,
    rounds: int,
    each: Callable[[Any], None],  # Any: the completed Round
) -> None:
    """Play ``rounds`` rounds as the table would, giving each completed Round to ``each``."""
    positions = int(rules.positions)  # type: ignore[attr-defined]  # every game's RuleSet has positions
    for number in range(1, rounds + 1):
        stacked = shoe.shoe
        dealt_before = len(stacked.dealt)
        round_ = math.new_round(number, rules, stacked)
        for wager in players.wagers(number, positions):
            round_.handle(wager)
        round_.handle(StartDeal(ShoeStatus.ready()))
        while round_.state != COMPLETE:
            if round_.state == HELD:
                raise MathError(f"round {number} was held: {round_.hold}")
            slot = round_.expected
            if slot is not None:  # the card due, as StackedShoe.deal gives it, the slot asked once
                round_.handle(CardArrives(stacked.draw(face_up=slot.face_up)))
            elif round_.state in (SETTLED, VOIDED):
                round_.handle(Discard(len(stacked.dealt) - dealt_before))
            else:
                math.step(round_, stacked, players)
        each(round_)
        if round_.reshuffle_required:
            shoe.change()
