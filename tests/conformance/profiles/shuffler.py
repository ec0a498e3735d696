"""The automated card shuffler as the conformance suite drives it: a Shuffle stands for the class's
card-moving command, and a batch shuffled into the output tray is one movement.

The simulated shuffler comes configured for the one-deck batch prepared in its input tray (a
configuration survives a power cycle on the device), so the card-moving command is the only
command ``move_one_card`` sends: a lost response then hits the Shuffle itself. A second Shuffle of
the same batch is impossible (the input is empty and the output full), which is why one batch is
enough for every check of the suite: each lets at most one Shuffle through.
"""

from __future__ import annotations

from drivers.driver import Driver
from drivers.protocol.classes.shuffler import CARDS_PER_DECK, ConfigureBatch
from drivers.protocol.core import DeviceClass, FaultCode
from drivers.shuffler import ShufflerDriver
from firmware_sim.personality import Personality
from firmware_sim.shuffler import ShufflerPersonality
from firmware_sim.world import SHUFFLER_INPUT, SHUFFLER_OUTPUT, TableWorld
from tests.conformance.profile import ConformanceProfile

BACK = "red"


def _personality(world: TableWorld) -> ShufflerPersonality:
    return ShufflerPersonality(world=world, serial_number="SH-CONF-1", config=ConfigureBatch(1, 0, BACK))


def _batch_in_input(world: TableWorld) -> None:
    world.add_batch(SHUFFLER_INPUT, BACK, 1)


async def _shuffle(driver: Driver) -> object:
    assert isinstance(driver, ShufflerDriver)
    return await driver.shuffle()


def _batches_shuffled(shuffler: Personality, world: TableWorld) -> int:
    return world.count(SHUFFLER_OUTPUT) // CARDS_PER_DECK


PROFILE = ConformanceProfile(
    device_class=DeviceClass.SHUFFLER,
    driver=ShufflerDriver,
    personality=_personality,
    prepare_world=_batch_in_input,
    move_one_card=_shuffle,
    movements=_batches_shuffled,
    fault=FaultCode.JAM,
)
