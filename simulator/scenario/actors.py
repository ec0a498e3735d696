"""The scenario's actors on the simulated table: the scripted players (each game's subclass answers
its prompts, simulator/games/<game>.py), the cards stacked on top of the shoe or in the shuffler's
order, and the faults the file strikes — the jam as the card records come in, the dealer's slips
before the round.
"""

from __future__ import annotations

import random
from collections import deque
from collections.abc import MutableSequence, Sequence
from typing import Any, cast

from croupier.tables.events import RoundListener
from firmware_sim.world import SHOE, SHUFFLER_INPUT, PhysicalCard, TableWorld
from games import registry
from simulator.dealer import FOREIGN_BACK
from simulator.faults import FOREIGN_FACE, JOKER
from simulator.scenario.parse import Answer, Fault, RoundScript, ScenarioError, Where
from vocabulary.cards import Card


class ScriptedPlayers:
    """The players of one round, answering only from the file: each seat's wager, and its answers
    to the game's prompts in the order the file gives them (each game's subclass, its
    ``Vocabulary.scripted`` in simulator/games/<game>.py, asks ``next_answer`` for them). A prompt
    the file has no answer for raises ScenarioError naming the seat and the prompt, so a scenario
    never plays on a guess."""

    def __init__(
        self,
        game: str,
        script: RoundScript,
        cover: Any = None,  # Any: a progressive's cover
    ) -> None:
        self.game, self.script, self.cover = game, script, cover
        self.pending = {seat: deque(answers) for seat, answers in script.decisions.items()}
        self.insurance_asked: set[int] = set()

    def wagers(self, round_number: int, positions: int) -> list[Any]:  # Any: the game's own wager message
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

    def shuffle(self, x: MutableSequence[object]) -> None:
        super().shuffle(x)
        if not self.stacks or not x or not isinstance(x[0], PhysicalCard):
            return
        cards = cast("MutableSequence[PhysicalCard]", x)  # the world shuffles one place's cards
        if any(card.back == FOREIGN_BACK for card in cards):
            return  # a batch that will fail its count: the stack is for the one shuffled after it
        faces, where = self.stacks.popleft()
        picked = []
        for face in faces:
            index = next((i for i, card in enumerate(cards) if card.face == face), None)
            if index is None:
                raise ScenarioError(f"{where}: {face} twice in one deck: a deck holds one of each card")
            picked.append(cards.pop(index))
        cards[0:0] = picked


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


def strike_dealer_fault(sim: Any, fault: Fault) -> bool:  # Any: a simulated table of any game
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
