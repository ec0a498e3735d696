"""The progressive controller as the conformance suite drives it: an Award stands for the class's
card-moving command (it moves money), and a hit on any level is one movement.

The simulated controller powers up in a locked round with a wager accepted on every seat (its round
survives a power cycle, as a real controller's does), so ``move_one_card`` sends nothing but the
Award: a lost response then hits the Award itself. Each Award of a round must name a (level, seat)
not yet paid, so each driver walks through the pairs in turn: enough for every check of the suite.
"""

from __future__ import annotations

import itertools
import weakref
from collections.abc import Iterator

from drivers.driver import Driver
from drivers.progressive import ProgressiveDriver
from drivers.protocol.core import DeviceClass, FaultCode
from firmware_sim.personality import Personality
from firmware_sim.progressive import ControllerPersonality
from firmware_sim.world import TableWorld
from tests.conformance.profile import ConformanceProfile

SEATS = 7
LEVELS = 2

_pairs: weakref.WeakKeyDictionary[Driver, Iterator[tuple[int, int]]] = weakref.WeakKeyDictionary()


def _personality(world: TableWorld) -> ControllerPersonality:
    controller = ControllerPersonality(
        serial_number="PROG-CONF-1", seats=SEATS, covered=set(range(1, SEATS + 1))
    )
    controller.start_game()
    return controller


def _no_cards(world: TableWorld) -> None:
    """A progressive system moves money, not cards: nothing to put on the table."""


async def _award(driver: Driver) -> object:
    assert isinstance(driver, ProgressiveDriver)
    pairs = _pairs.setdefault(driver, itertools.product(range(1, LEVELS + 1), range(1, SEATS + 1)))
    level, seat = next(pairs)
    return await driver.award(level, seat)


def _hits(controller: Personality, world: TableWorld) -> int:
    """The world holds cards, not money: a movement here is a hit paid by the controller."""
    assert isinstance(controller, ControllerPersonality)
    return sum(level.hits for level in controller.levels)


PROFILE = ConformanceProfile(
    device_class=DeviceClass.PROGRESSIVE_CONTROLLER,
    driver=ProgressiveDriver,
    personality=_personality,
    prepare_world=_no_cards,
    move_one_card=_award,
    movements=_hits,
    fault=FaultCode.SENSOR,
)
