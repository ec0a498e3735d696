"""One worker's rounds: the game's Round fed as the table feeds it, its cards from a seeded shoe.

A shoe game's table loads a shuffled batch, inserts the cover card three quarters in, burns the
first card (672a.7(c), 686a.7(c)), deals rounds until the cover card comes out, finishes that round
and changes the shoe (672a.7(d), 686a.7(d)). ``ShoeDealing`` does the same with a batch shuffled by
a seeded ``random.Random``; a new dealer's burn never comes up (no dealer changes in
math mode). Each game's ``MathGame`` says what its Round waits for when it expects no card (its
table's ``_step_in``, with the players answering at once); everything else is the round machine's
own: a round the rules would hold is a fault of the simulation, raised, never counted.
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
from games.common.messages import CardArrives, Discard, ShoeStatus, StartDeal
from games.common.stacked_shoe import StackedShoe
from vocabulary.cards import standard_deck


class MathError(RuntimeError):
    """A round math mode cannot count: held by the rules, or a wager placed and never settled."""


class NoMathMode(ValueError):
    """The game has no math mode (no simulator/math/<game module>.py)."""


class Dealing(Protocol):
    """One worker's table without devices: its cards, and what its table does at each step of a
    round, the players answering at once. ``decks``: the decks in a batch; ``shoes`` and ``burns``
    count the batches put in play and the cards burned, for the report."""

    decks: int
    shoes: int
    burns: int

    def new_round(self, number: int) -> Any: ...  # Any: the game's Round

    def begin(self, round_: Any) -> None:  # Any: the game's Round
        """Betting closes: the message that starts the deal."""

    def step(self, round_: Any, players: Any) -> None:  # Any: the game's Round and players
        """One step of a round neither held nor complete, as the table takes it."""

    def end(self, round_: Any) -> None:  # Any: the game's Round
        """The round is complete: what the table does before the next (a new batch, a count)."""


@dataclass(frozen=True)
class MathGame:
    """A game's math mode. ``dealing(rules, rng)``: its Dealing, shuffling from ``rng``;
    ``strategies``: name -> players(rng, rules, dealing), the first the default, and
    ``strategy_notes`` what each is, for the report; ``belongs``: a settled wager kind counted with
    another (a Free Bet lammer with the Blackjack Wager it was put beside); ``observed``: per round,
    (figure, value) pairs counted into the report (the dealer's final total, the three-card totals);
    ``staked``: per round, (wager kind, seat, cents) of the wagers a game stakes after betting closes
    without a wager record (Over/Under's Over 23 or Under 18 Wager); ``direct``: the game's round
    played straight through (decision 0052), if it has one."""

    dealing: Callable[[Any, random.Random], Dealing]  # Any: the game's RuleSet
    strategies: Mapping[str, Callable[[random.Random, Any, Any], Any]]  # Any: RuleSet, Dealing, players
    strategy_notes: Mapping[str, str]
    belongs: Mapping[str, str] = field(default_factory=dict)
    observed: Callable[[Any], Iterable[tuple[str, str]]] = lambda round_: ()  # Any: the Round
    staked: Callable[[Any], Iterable[tuple[str, int, int]]] = lambda round_: ()  # Any: the Round
    direct: Callable[[Any], Any] | None = None  # Any: the RuleSet, the DirectTable


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


class ShoeDealing:
    """A shoe game's table (Free Bet Blackjack, Over/Under) without devices: ``decks`` decks shuffled
    by ``rng``, the cover card ``cover_depth`` cards from the top (default: where the table puts it),
    the first card burned; a new batch once the round in which the cover card came out is over.
    Each card the round expects is dealt from the game's stacked shoe (``stacked``), the settled
    round's cards counted into the rack; the game's ``answer`` does what its table's ``_step_in``
    does in the round's other states."""

    #: The game's stacked shoe (games.common.stacked_shoe, or the game's own with a card reader).
    stacked: Callable[[list[Any]], StackedShoe] = StackedShoe  # Any: faces, None the cover card

    def __init__(self, rules: Configurable, rng: random.Random, cover_depth: int | None = None) -> None:
        self.rules, self.rng = rules, rng
        self.decks = int(rules.decks)  # type: ignore[attr-defined]  # a shoe game's RuleSet has decks
        # The batch's cards, made once: a card is immutable, and a new batch every dozen rounds
        # made its 312 again (some 3 % of a round played straight through, decision 0052).
        self._cards = tuple(card for _ in range(self.decks) for card in standard_deck())
        batch = self.decks * CARDS_PER_DECK
        self.cover_depth = default_cover_depth(batch) if cover_depth is None else cover_depth
        self.shoes = 0
        self.burns = 0
        self.shoe = self._load()
        self._dealt_before = 0

    def _load(self) -> StackedShoe:
        faces: list[Any] = list(self._cards)  # Any: None, the cover card, goes in below
        self.rng.shuffle(faces)
        faces.insert(self.cover_depth, None)
        faces.pop(0)  # the burn card, never seen (672a.7(c), 686a.7(c))
        self.shoes += 1
        self.burns += 1
        return self.stacked(faces)

    def new_round(self, number: int) -> Any:  # Any: the game's Round
        raise NotImplementedError

    def begin(self, round_: Any) -> None:  # Any: the game's Round
        self._dealt_before = len(self.shoe.dealt)
        round_.handle(StartDeal(ShoeStatus.ready()))

    def step(self, round_: Any, players: Any) -> None:  # Any: the game's Round and players
        slot = round_.expected
        if slot is not None:  # the card due, as StackedShoe.deal gives it, the slot asked once
            round_.handle(CardArrives(self.shoe.draw(face_up=slot.face_up)))
        elif round_.state in (SETTLED, VOIDED):
            round_.handle(Discard(len(self.shoe.dealt) - self._dealt_before))
        else:
            self.answer(round_, players)

    def answer(self, round_: Any, players: Any) -> None:  # Any: the game's Round and players
        """What the game's table does when the round expects no card (its ``_step_in``)."""
        raise NotImplementedError

    def end(self, round_: Any) -> None:  # Any: the game's Round
        if round_.reshuffle_required:  # the cover card came out (672a.7(d), 686a.7(d))
            self.shoe = self._load()


def play_rounds(
    rules: Configurable,
    players: Any,  # Any: the game's players
    dealing: Dealing,
    rounds: int,
    each: Callable[[Any], None],  # Any: the completed Round
) -> None:
    """Play ``rounds`` rounds as the table would, giving each completed Round to ``each``."""
    for number in range(1, rounds + 1):
        round_ = play_round(rules, players, dealing, number)
        each(round_)
        dealing.end(round_)


def play_round(
    rules: Configurable,
    players: Any,  # Any: the game's players
    dealing: Dealing,
    number: int,
) -> Any:  # Any: the game's Round
    """Round ``number`` played through the game's Round as the table would, to completion."""
    positions = int(rules.positions)  # type: ignore[attr-defined]  # every game's RuleSet has positions
    round_ = dealing.new_round(number)
    for wager in players.wagers(number, positions):
        round_.handle(wager)
    dealing.begin(round_)
    while round_.state != COMPLETE:
        if round_.state == HELD:
            raise MathError(f"round {number} was held: {round_.hold}")
        dealing.step(round_, players)
    return round_
