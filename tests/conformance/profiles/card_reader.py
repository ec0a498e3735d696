"""The card reader as the conformance suite drives it: a peek stands for the class's command.

A peek moves no card (the dealer moves the hole card), so the suite's "movements" are the peeks the
reader has answered: the count that must rise by exactly one when a Peek's response is lost and
the command is retransmitted.
"""

from __future__ import annotations

from drivers.card_reader import CardReaderDriver
from drivers.driver import Driver
from drivers.protocol.classes.card_reader import UpCard
from drivers.protocol.core import DeviceClass, FaultCode
from firmware_sim.card_reader import CardReaderPersonality
from firmware_sim.personality import Personality
from firmware_sim.world import DEALER, READER, TableWorld
from tests.conformance.profile import ConformanceProfile
from vocabulary.cards import Card


def _personality(world: TableWorld) -> CardReaderPersonality:
    return CardReaderPersonality(world=world, serial_number="CR-CONF-1")


def _hole_card_in_reader(world: TableWorld) -> None:
    """The dealer slides a hole card, face down, into the reader (672a.7(g))."""
    world.add(DEALER, [Card.parse("Kd")], "red")
    world.move(DEALER, READER)


async def _peek(driver: Driver) -> object:
    assert isinstance(driver, CardReaderDriver)
    return await driver.peek(UpCard.ACE)


def _peeks_answered(reader: Personality, world: TableWorld) -> int:
    assert isinstance(reader, CardReaderPersonality)
    return reader.peeks_since_power_on


PROFILE = ConformanceProfile(
    device_class=DeviceClass.CARD_READER,
    driver=CardReaderDriver,
    personality=_personality,
    prepare_world=_hole_card_in_reader,
    move_one_card=_peek,
    movements=_peeks_answered,
    fault=FaultCode.TAMPER,
)
