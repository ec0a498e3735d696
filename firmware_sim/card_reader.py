"""A simulated hole-card reader: reads the card the dealer slid into the world's READER place.

The reader owns no card. The simulated dealer (a test, or ``croupier sim``) moves the hole card
from the dealer's place into READER and back with ``TableWorld.move``; a Peek reads whatever is in
the slot at that moment. Like the approved devices of 603a.15(c), which read a marking printed on
the faces of aces and 10-value cards, the reader tells only "marked as the card that completes a
Blackjack" from "not": its answers, refusals and fault texts never name a rank or a face.

Faults a test can cause, as on the felt: an empty slot (NO_CARD), a cover card, two cards or an
unreadable card in the slot (MISREAD; ``misread_next`` for a smudged marking), the case opened
(``tamper``: TAMPER, which persists until ``restore_seal``), failed optics or slot sensor (SENSOR,
found by the self-test).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from drivers.protocol.classes.card_reader import (
    Peek,
    PeekAnswer,
    SelfTest,
    SelfTestCode,
    SelfTestReport,
    completes_blackjack,
)
from drivers.protocol.core import DeviceClass, FaultCode
from drivers.protocol.fields import PayloadError
from drivers.protocol.message import Command, Reply, Status
from firmware_sim.personality import Personality, Refusal
from firmware_sim.world import READER, TableWorld
from vocabulary.cards import Card

if TYPE_CHECKING:
    from firmware_sim.engine import DeviceEngine

# One text per fault, whatever the card: a detail that varied with the card would leak it.
NO_CARD_DETAIL = "no card in the reader"
MISREAD_DETAIL = "the card in the reader could not be read"
TAMPER_DETAIL = "reader case opened: tamper switch tripped"
SENSOR_DETAIL = "reader sensor failed its self-test"


@dataclass(kw_only=True)
class CardReaderPersonality(Personality):
    """The reader's firmware over ``world``. Physical state (seal, sensors) survives a reboot; the
    peek counter counts since power-on."""

    world: TableWorld
    device_class: DeviceClass = DeviceClass.CARD_READER
    model: str = "SIM-PEEK"
    capabilities: tuple[str, ...] = ("peek", "self-test")
    seal_intact: bool = True
    optics_ok: bool = True
    slot_sensor_ok: bool = True
    misread_next: int = 0  # the next reads that fail, as with a smudged marking
    peeks_since_power_on: int = 0

    def handle(self, command: Command, engine: DeviceEngine) -> Reply:
        if isinstance(command, Peek):
            return self._peek(command, engine)
        if isinstance(command, SelfTest):
            return self._self_test(engine)
        return super().handle(command, engine)

    def condition_persists(self, code: FaultCode) -> bool:
        if code is FaultCode.TAMPER:
            return not self.seal_intact
        if code is FaultCode.SENSOR:
            return not (self.optics_ok and self.slot_sensor_ok)
        return False

    def on_reboot(self) -> None:
        self.peeks_since_power_on = 0

    # -- physical events, for tests and the simulator console -------------------------------------
    def tamper(self, engine: DeviceEngine) -> None:
        """The case is opened: the tamper switch trips and stays tripped until resealed."""
        self.seal_intact = False
        engine.raise_fault(FaultCode.TAMPER, TAMPER_DETAIL)

    def restore_seal(self) -> None:
        """A technician closes and reseals the case; the latched TAMPER may now be cleared."""
        self.seal_intact = True

    # -- commands ------------------------------------------------------------------------------
    def _peek(self, command: Peek, engine: DeviceEngine) -> PeekAnswer:
        try:
            up_card = command.checked_up_card()
        except PayloadError as exc:
            raise Refusal(Status.BAD_PAYLOAD, str(exc)) from None
        if engine.latched:
            # Peek moves no card, so the engine lets it through; a reader with a latched fault
            # cannot be trusted to read, so it refuses as a card-moving command would be refused.
            names = ", ".join(code.name for code in engine.latched)
            raise Refusal(Status.FAULT_LATCHED, f"latched fault(s) {names}: clear before peeking")
        hole = self._read_slot(engine)
        self.peeks_since_power_on += 1
        return PeekAnswer(completes_blackjack(up_card, hole))

    def _read_slot(self, engine: DeviceEngine) -> Card:
        """The face of the one card in the slot, or a latched fault and a refusal."""
        cards = self.world.cards(READER)
        if not cards:
            engine.raise_fault(FaultCode.NO_CARD, NO_CARD_DETAIL)
            raise Refusal(Status.REFUSED, f"{NO_CARD_DETAIL}: NO_CARD latched")
        smudged = self.misread_next > 0
        if smudged:
            self.misread_next -= 1
        face = cards[0].face
        if len(cards) > 1 or face is None or smudged:  # two cards overlap; a cover card has no face
            engine.raise_fault(FaultCode.MISREAD, MISREAD_DETAIL)
            raise Refusal(Status.REFUSED, f"{MISREAD_DETAIL}: MISREAD latched")
        return face

    def _self_test(self, engine: DeviceEngine) -> SelfTestReport:
        slot_empty = not self.world.cards(READER)
        checks = (
            (self.seal_intact, SelfTestCode.TAMPER),
            (self.optics_ok, SelfTestCode.OPTICS),
            (self.slot_sensor_ok, SelfTestCode.SLOT_SENSOR),
            (slot_empty, SelfTestCode.SLOT_OCCUPIED),
        )
        code = next((failed for ok, failed in checks if not ok), SelfTestCode.OK)
        if code is SelfTestCode.TAMPER:
            engine.raise_fault(FaultCode.TAMPER, TAMPER_DETAIL)
        elif code in (SelfTestCode.OPTICS, SelfTestCode.SLOT_SENSOR):
            engine.raise_fault(FaultCode.SENSOR, SENSOR_DETAIL)
        return SelfTestReport(
            passed=code is SelfTestCode.OK,
            code=code,
            seal_intact=self.seal_intact,
            optics_ok=self.optics_ok,
            slot_sensor_ok=self.slot_sensor_ok,
            slot_empty=slot_empty,
            peeks_since_power_on=self.peeks_since_power_on,
        )
