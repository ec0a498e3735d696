"""One physical table in which cards really move: the shared ground of every simulated device.

Shuffler, shoe, card reader and the simulated dealer do not keep cards of their own; they move
cards between places of this world, so the reader reads the hole card the shoe actually dealt and
a card dropped on the floor is missing from the next count. The number of cards is conserved at
every step: cards enter only through ``add`` (a new batch, a foreign card slipped in) and leave only
through ``remove`` (a deck taken off the table), and ``check`` proves the books balance.
"""

from __future__ import annotations

import random
import threading
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Concatenate, ParamSpec, TypeVar

from vocabulary.cards import Card, CardError, standard_deck

# Places. Index 0 of a place is its top card (the next to come out of a shoe).
SHUFFLER_INPUT = "shuffler-input"
SHUFFLER_OUTPUT = "shuffler-output"  # a shuffled batch waiting for the shoe
SHOE = "shoe"
SHOE_TRAY = "shoe-tray"  # dispensed by the shoe, not yet placed by the dealer
DEALER_HAND = "dealer-hand"  # a deck held by the dealer for dealing from the hand
READER = "card-reader"
DISCARD = "discard-rack"
ASIDE = "aside"  # the cover card set aside (672a.7(d))
FLOOR = "floor"  # dropped
COVER = "cover"  # the back of a cover card


def seat(n: int) -> str:
    return f"seat-{n}"


DEALER = "dealer"
COMMUNITY = "community"


P = ParamSpec("P")
T = TypeVar("T")


class WorldError(RuntimeError):
    """A physical impossibility: taking a card from an empty place, a broken card count."""


@dataclass(frozen=True, slots=True)
class PhysicalCard:
    """A card you could hold: a unique id, a face (None for a cover card) and a back."""

    uid: int
    face: Card | None
    back: str

    @property
    def is_cover(self) -> bool:
        return self.face is None

    def __reduce__(self) -> tuple[object, tuple[int, Card | None, str]]:
        """Pickled by its fields in one tuple, as a card's face is (``Card.__reduce__``): a stack goes
        to and from the devices' child process with every shuffle (decision 0048)."""
        return type(self), (self.uid, self.face, self.back)


@dataclass
class PhysicalFaults:
    """Accidents waiting to happen to the next card that moves."""

    drop_next: int = 0  # the next card taken from the shoe or a hand falls to the floor
    stuck: set[str] = field(default_factory=set)  # places whose next card will not come out


class TableWorld:
    """Places holding ordered stacks of cards; all access under one lock (devices run in threads)."""

    def __init__(self) -> None:
        self.lock = threading.RLock()
        self.places: dict[str, list[PhysicalCard]] = {}
        self.faults = PhysicalFaults()
        self._next_uid = 1
        self.added = 0
        self.removed = 0

    # -- cards entering and leaving the table ----------------------------------------------------
    def add(
        self, place: str, faces: Iterable[Card | None], back: str, *, at: int | None = None
    ) -> list[PhysicalCard]:
        """Bring cards onto the table (a batch unwrapped, a foreign card, a cover card)."""
        with self.lock:
            cards = []
            for face in faces:
                cards.append(PhysicalCard(self._next_uid, face, back))
                self._next_uid += 1
            stack = self.places.setdefault(place, [])
            index = len(stack) if at is None else at
            stack[index:index] = cards
            self.added += len(cards)
            return cards

    def add_batch(self, place: str, back: str, decks: int, *, jokers: int = 0) -> list[PhysicalCard]:
        """``decks`` standard decks with one back colour (a batch, 633a.3(b), analog)."""
        if decks < 1:
            raise WorldError("a batch has at least one deck")
        return self.add(place, standard_deck(jokers) * decks, back)

    def remove(self, place: str) -> list[PhysicalCard]:
        """Take every card in ``place`` off the table (a deck removed after a wrong count)."""
        with self.lock:
            cards = self.places.pop(place, [])
            self.removed += len(cards)
            return cards

    # -- movement -----------------------------------------------------------------------------------
    def take(self, place: str, count: int = 1) -> list[PhysicalCard]:
        """The top ``count`` cards of ``place`` leave it (callers put them somewhere at once)."""
        with self.lock:
            stack = self.places.get(place, [])
            if place in self.faults.stuck:
                raise WorldError(f"the next card in {place} is stuck")
            if len(stack) < count:
                raise WorldError(f"{place} holds {len(stack)} card(s), {count} wanted")
            taken, stack[:count] = stack[:count], []
            return taken

    def put(self, place: str, cards: Sequence[PhysicalCard], *, bottom: bool = False) -> None:
        with self.lock:
            stack = self.places.setdefault(place, [])
            if bottom:
                stack.extend(cards)
            else:
                stack[0:0] = cards

    def move(self, src: str, dst: str, count: int = 1, *, bottom: bool = True) -> list[PhysicalCard]:
        """Move the top ``count`` cards of ``src`` onto ``dst`` (to its bottom by default, as cards
        laid on the felt or dropped in the discard rack stack up in the order they came). A pending
        ``drop_next`` sends the card to the floor instead."""
        with self.lock:
            cards = self.take(src, count)
            if self.faults.drop_next and cards:
                self.faults.drop_next -= 1
                self.put(FLOOR, cards[:1], bottom=True)
                cards = cards[1:]
            self.put(dst, cards, bottom=bottom)
            return cards

    def move_all(self, src: str, dst: str) -> list[PhysicalCard]:
        with self.lock:
            return self.move(src, dst, len(self.places.get(src, []))) if self.places.get(src) else []

    def shuffle(self, place: str, rng: random.Random) -> None:
        with self.lock:
            rng.shuffle(self.places.setdefault(place, []))

    def atomically(
        self, step: Callable[Concatenate[TableWorld, P], T], *args: P.args, **kwargs: P.kwargs
    ) -> T:
        """``step(self, *args, **kwargs)`` under the lock: the looks and moves of one mechanical action
        of a device (a shoe's dispense: a jam, the cards ahead, the cover card, each card moved, the
        faces left) taken together. A world in another process (firmware_sim.remote) runs it there,
        in one round trip rather than one a look; so ``step`` is a module's function, which pickles."""
        with self.lock:
            return step(self, *args, **kwargs)

    # -- looking -----------------------------------------------------------------------------------
    def cards(self, place: str) -> list[PhysicalCard]:
        with self.lock:
            return list(self.places.get(place, []))

    def count(self, place: str) -> int:
        with self.lock:
            return len(self.places.get(place, []))

    def top(self, place: str, count: int) -> list[PhysicalCard]:
        """The top ``count`` cards of ``place`` (fewer if it holds fewer), left where they are: what
        a shoe's reader sees ahead of its mechanism, without the rest of the shoe."""
        with self.lock:
            return self.places.get(place, [])[:count]

    def faces(self, place: str) -> int:
        """How many cards of ``place`` are not cover cards."""
        with self.lock:
            return sum(not card.is_cover for card in self.places.get(place, []))

    def total(self) -> int:
        with self.lock:
            return sum(len(stack) for stack in self.places.values())

    def check(self) -> None:
        """Raise WorldError if a card appeared or vanished other than through add or remove."""
        with self.lock:
            expected = self.added - self.removed
            total = self.total()
            uids = [card.uid for stack in self.places.values() for card in stack]
            if total != expected or len(set(uids)) != len(uids):
                raise WorldError(
                    f"card count broken: {total} on the table, {expected} expected, "
                    f"{len(uids) - len(set(uids))} duplicated"
                )


def read_stack_file(path: Path) -> list[Card | None]:
    """A stacked deck for scenarios: card names separated by spaces or newlines, ``#`` comments,
    ``COVER`` for the cover card. The first card named is the first out of the shoe."""
    faces: list[Card | None] = []
    for number, line in enumerate(path.read_text().splitlines(), start=1):
        for word in line.split("#", 1)[0].split():
            if word.upper() == "COVER":
                faces.append(None)
                continue
            try:
                faces.append(Card.parse(word))
            except CardError as exc:
                raise CardError(f"{path}:{number}: {exc}") from None
    return faces
