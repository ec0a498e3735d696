"""The dealing shoe as the conformance suite drives it: a face-up dispense stands for the class's
card-moving command, and a card that left the shoe (to the tray, or dropped on the floor on its way)
is one movement. Also what the shoe's own tests share: the batch's back.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from drivers.driver import Driver
from drivers.protocol.core import DeviceClass, FaultCode
from drivers.shoe import ShoeDriver
from firmware_sim.personality import Personality
from firmware_sim.shoe import ShoePersonality
from firmware_sim.world import FLOOR, SHOE, SHOE_TRAY, TableWorld
from tests.conformance.profile import ConformanceProfile

BACK = "red"


async def eventually(check: Callable[[], bool], timeout: float = 2.0) -> None:
    """Wait until ``check()`` holds: for what the table's event feed applies in its own time."""
    async with asyncio.timeout(timeout):
        while not check():
            await asyncio.sleep(0.005)


def _personality(world: TableWorld) -> ShoePersonality:
    return ShoePersonality(world=world, serial_number="SH-CONF-1")


def _one_deck_in_the_shoe(world: TableWorld) -> None:
    world.add_batch(SHOE, BACK, decks=1)


async def _dispense(driver: Driver) -> object:
    assert isinstance(driver, ShoeDriver)
    return await driver.dispense(face_up=True)


def _cards_out(shoe: Personality, world: TableWorld) -> int:
    return world.count(SHOE_TRAY) + world.count(FLOOR)


PROFILE = ConformanceProfile(
    device_class=DeviceClass.SHOE,
    driver=ShoeDriver,
    personality=_personality,
    prepare_world=_one_deck_in_the_shoe,
    move_one_card=_dispense,
    movements=_cards_out,
    # Raised by the suite directly: a misread has no lasting physical cause, so a clear succeeds.
    fault=FaultCode.MISREAD,
)
