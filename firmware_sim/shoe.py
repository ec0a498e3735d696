"""A simulated automated dealing shoe that recognises cards, over the shared table world.

The shoe owns no cards: it moves them between places of the TableWorld (SHOE to SHOE_TRAY, the cover
card to ASIDE, the discards back into the SHOE when it reshuffles), so a card it deals is the card
the reader later reads, and a card that falls to the floor is missing from the next count. Its
accidents come from the world (a stuck card is a jam, ``drop_next`` a card on the floor) and from
test hooks (``misread_next``, ``open_door``), and each latches the fault a real shoe would.
"""

from __future__ import annotations

import random
import secrets
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from drivers.protocol.classes.shoe import (
    DISPENSED_WRAPS,
    FAULT_OF_OUTCOME,
    MAX_STACK,
    NO_CARD,
    NO_REFERENCE,
    BatchLoaded,
    CoverCardReached,
    DispenseFaceDown,
    DispenseFaceUp,
    DispenseOutcome,
    DispenseStack,
    EndRound,
    FaceDownDispensed,
    FaceUpDispensed,
    GetCounts,
    RevealCard,
    RevealedCard,
    SetMode,
    ShoeCounts,
    StackDispensed,
)
from drivers.protocol.core import DeviceClass, DoorChanged, FaultCode
from drivers.protocol.message import Command, Reply, Status
from firmware_sim.personality import Personality, Refusal
from firmware_sim.world import ASIDE, DISCARD, SHOE, SHOE_TRAY, PhysicalCard, TableWorld
from vocabulary.cards import COMMITMENT_SIZE, Card, commit, new_nonce

if TYPE_CHECKING:
    from firmware_sim.engine import DeviceEngine

DOOR = 1  # the shoe's only door: the loading gate
_NO_COMMITMENT = bytes(COMMITMENT_SIZE)
# What the device says when a failed dispense latches its fault (FAULT_OF_OUTCOME).
_FAULT_DETAIL = {
    DispenseOutcome.MISREAD: "a card left the shoe unread",
    DispenseOutcome.COVER_CARD_MISPLACED: "cover card out of place: at the burn position or inside a stack",
    DispenseOutcome.JAM: "card jammed in the shoe",
    DispenseOutcome.EMPTY: "not enough cards in the shoe",
}


@dataclass
class _Pull:
    """What one dispense did: how it ended, the cards read in order, how many cards left the shoe
    through the mechanism (each counts as dispensed, read or not), and the faces left to deal."""

    outcome: DispenseOutcome
    read: list[Card] = field(default_factory=list)
    moved: int = 0
    remaining: int = 0


@dataclass
class ShoePersonality(Personality):
    """A card-recognising dealing shoe. ``rng`` shuffles in auto-reshuffling mode and ``nonces``
    blind the commitments: the operating system's randomness by default; seeded or fixed only in
    tests (the test vectors are replayed with known nonces)."""

    device_class: DeviceClass = DeviceClass.SHOE
    model: str = "SIM-SHOE"
    capabilities: tuple[str, ...] = ("card-recognition", "face-down-commitments", "stacks", "auto-reshuffle")
    world: TableWorld = field(default_factory=TableWorld)
    rng: random.Random = field(default_factory=secrets.SystemRandom, repr=False)
    nonces: Callable[[], bytes] = field(default=new_nonce, repr=False)
    misread_next: int = 0  # test hook: this many next cards leave the shoe unreadable
    # test hook: which card of a dispense the misreads set strike (a stack's later card: the cards
    # before it are read, as docs/protocol.md allows); the first again once they are spent
    misread_card: int = 1
    # The reference the next face-down card is sealed under: 1..65535, then 1 again (docs/protocol.md);
    # a test starts it near the wrap rather than dealing 65,535 cards first.
    next_reference: int = 1
    door_open: bool = False
    dispensed: int = 0  # since the batch was loaded; kept in flash, so a reboot keeps it
    auto_reshuffle: bool = False
    community_first: bool = False
    # Face-down cards of this batch (or round, when reshuffling) by reference: face and nonce.
    _sealed: dict[int, tuple[Card, bytes]] = field(default_factory=dict, init=False, repr=False)

    def handle(self, command: Command, engine: DeviceEngine) -> Reply:
        name = _HANDLERS.get(type(command))
        if name is None:
            return super().handle(command, engine)
        handler: Callable[[Command, DeviceEngine], Reply] = getattr(self, name)
        return handler(command, engine)

    def condition_persists(self, code: FaultCode) -> bool:
        if code is FaultCode.JAM:
            return SHOE in self.world.faults.stuck
        if code is FaultCode.DOOR_OPEN:
            return self.door_open
        if code is FaultCode.EMPTY:
            return self.remaining() == 0
        return False

    # -- test and console hooks (run them under the device lock: ``device.call``) ------------------
    def open_door(self, engine: DeviceEngine) -> None:
        """Someone opened the loading gate: an access record, and a fault until it is closed."""
        if not self.door_open:
            self.door_open = True
            engine.emit(DoorChanged(DOOR, True))
            engine.raise_fault(FaultCode.DOOR_OPEN, f"door {DOOR} open")

    def close_door(self, engine: DeviceEngine) -> None:
        """The gate closed; the DOOR_OPEN fault stays latched until a supervisor clears it."""
        if self.door_open:
            self.door_open = False
            engine.emit(DoorChanged(DOOR, False))

    # -- the books ---------------------------------------------------------------------------------
    def remaining(self) -> int:
        """Cards left to deal: the cover card is not one."""
        return self.world.faces(SHOE)

    def counts(self) -> ShoeCounts:
        return ShoeCounts(self.dispensed, self.remaining(), self.auto_reshuffle, self.community_first)

    # -- commands ----------------------------------------------------------------------------------
    def _face_up(self, command: DispenseFaceUp, engine: DeviceEngine) -> FaceUpDispensed:
        pull = self._pull(1, engine)
        face = pull.read[0].code if pull.read else NO_CARD
        return FaceUpDispensed(int(pull.outcome), self.dispensed, pull.remaining, face)

    def _face_down(self, command: DispenseFaceDown, engine: DeviceEngine) -> FaceDownDispensed:
        pull = self._pull(1, engine)
        reference, commitment = NO_REFERENCE, _NO_COMMITMENT
        if pull.read:
            reference, commitment = self._seal(pull.read[0])
        return FaceDownDispensed(int(pull.outcome), self.dispensed, pull.remaining, reference, commitment)

    def _stack(self, command: DispenseStack, engine: DeviceEngine) -> StackDispensed:
        if not 1 <= command.count <= MAX_STACK:
            raise Refusal(
                Status.BAD_PAYLOAD, f"DispenseStack.count must be 1..{MAX_STACK}, got {command.count}"
            )
        pull = self._pull(command.count, engine)
        sealed = [self._seal(card) for card in pull.read]
        first = sealed[0][0] if sealed else NO_REFERENCE
        return StackDispensed(
            int(pull.outcome), self.dispensed, pull.remaining, first, tuple(c for _, c in sealed)
        )

    def _reveal(self, command: RevealCard, engine: DeviceEngine) -> RevealedCard:
        try:
            face, nonce = self._sealed[command.reference]
        except KeyError:
            raise Refusal(
                Status.REFUSED, f"no face-down card with reference {command.reference} in this batch"
            ) from None
        return RevealedCard(command.reference, face.code, nonce)

    def _batch_loaded(self, command: BatchLoaded, engine: DeviceEngine) -> ShoeCounts:
        self.dispensed = 0
        self._sealed.clear()
        return self.counts()

    def _end_round(self, command: EndRound, engine: DeviceEngine) -> ShoeCounts:
        if not self.auto_reshuffle:
            raise Refusal(Status.REFUSED, "EndRound needs auto-reshuffling mode (SetMode)")
        with self.world.lock:
            self.world.move_all(DISCARD, SHOE)
            self.world.shuffle(SHOE, self.rng)
        self._sealed.clear()  # the round's face-down cards are back in the shoe, shuffled
        return self.counts()

    def _set_mode(self, command: SetMode, engine: DeviceEngine) -> ShoeCounts:
        if command.community_first and not command.auto_reshuffle:
            raise Refusal(Status.REFUSED, "community cards first needs auto-reshuffling mode (677a.10(g))")
        self.auto_reshuffle = command.auto_reshuffle
        self.community_first = command.community_first
        return self.counts()

    def _get_counts(self, command: GetCounts, engine: DeviceEngine) -> ShoeCounts:
        return self.counts()

    # -- the mechanism -----------------------------------------------------------------------------
    def _pull(self, count: int, engine: DeviceEngine) -> _Pull:
        """Dispense up to ``count`` cards (``_dispense``, on the world as one action), then count
        them, spend a pending misread, and report the cover card or latch the fault it came to."""
        misread_at = min(self.misread_card, count) if self.misread_next > 0 else 0
        pull = self.world.atomically(_dispense, count, self.dispensed == 0, misread_at)
        self.dispensed = (self.dispensed + pull.moved) % DISPENSED_WRAPS  # a u16 on the wire: it wraps
        if pull.outcome is DispenseOutcome.MISREAD:
            self.misread_next -= 1
            if not self.misread_next:
                self.misread_card = 1
        if pull.outcome is DispenseOutcome.COVER_CARD:
            engine.emit(CoverCardReached(self.dispensed, pull.remaining))
        if pull.outcome in FAULT_OF_OUTCOME:
            engine.raise_fault(FAULT_OF_OUTCOME[pull.outcome], _FAULT_DETAIL[pull.outcome])
        return pull

    def _seal(self, card: Card) -> tuple[int, bytes]:
        """Keep the face and a fresh nonce under the next reference; return reference and commitment."""
        reference = self.next_reference
        self.next_reference = reference % 0xFFFF + 1
        nonce = self.nonces()
        self._sealed[reference] = (card, nonce)
        return reference, commit(card, nonce)


def _dispense(world: TableWorld, count: int, first: bool, misread_at: int) -> _Pull:
    """The mechanism's one action on the world (``_through``), with the faces it left to deal."""
    pull = _through(world, count, first, misread_at)
    pull.remaining = world.faces(SHOE)
    return pull


def _through(world: TableWorld, count: int, first: bool, misread_at: int) -> _Pull:
    """Up to ``count`` cards from SHOE to SHOE_TRAY, read as they pass (the ``misread_at``-th unread,
    1 the first, and nothing after it; 0: none), a lone cover card set aside. A cover card inside a stack,
    or as the ``first`` card after a batch was loaded (the burn card), is out of place and nothing
    moves."""
    if SHOE in world.faults.stuck:
        return _Pull(DispenseOutcome.JAM)
    ahead = world.top(SHOE, count)
    covers = [i for i, card in enumerate(ahead) if card.is_cover]
    if covers and (count > 1 or first):
        if count == 1:
            world.move(SHOE, ASIDE)  # out of the mechanism, so the shoe can go on
        return _Pull(DispenseOutcome.COVER_CARD_MISPLACED)
    if covers:
        world.move(SHOE, ASIDE)
        return _Pull(DispenseOutcome.COVER_CARD)
    if len(ahead) < count:
        return _Pull(DispenseOutcome.EMPTY)
    pull = _Pull(DispenseOutcome.CARD)
    for card in ahead:
        world.move(SHOE, SHOE_TRAY)  # a pending drop_next sends it to the floor instead
        pull.moved += 1
        if pull.moved == misread_at:
            pull.outcome = DispenseOutcome.MISREAD
            break
        pull.read.append(_face(card))
    return pull


def _face(card: PhysicalCard) -> Card:
    assert card.face is not None  # cover cards never reach the reader
    return card.face


_HANDLERS: dict[type[Command], str] = {
    DispenseFaceUp: "_face_up",
    DispenseFaceDown: "_face_down",
    DispenseStack: "_stack",
    RevealCard: "_reveal",
    BatchLoaded: "_batch_loaded",
    EndRound: "_end_round",
    SetMode: "_set_mode",
    GetCounts: "_get_counts",
}
