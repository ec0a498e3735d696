"""What the conformance suite needs to know of a device class to test any driver of it.

Each device class provides one ``ConformanceProfile`` (tests/conformance/profiles/). The suite runs
the same checks over every profile and every transport: against simulated firmware in CI, against
real devices on a rig by configuration alone (a profile's simulator hooks are then skipped).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from drivers.connection import DeviceConnection
from drivers.driver import Driver
from drivers.protocol.core import DeviceClass, FaultCode
from firmware_sim.personality import Personality
from firmware_sim.world import TableWorld


@dataclass(frozen=True)
class ConformanceProfile:
    """One device class, as the conformance suite drives it."""

    device_class: DeviceClass
    #: Build the driver over a connected link.
    driver: Callable[[DeviceConnection], Driver]
    #: The simulated device's personality, over a world prepared by ``prepare_world``.
    personality: Callable[[TableWorld], Personality]
    #: Put cards where ``move_one_card`` needs them (a loaded shoe, a card in the reader...).
    prepare_world: Callable[[TableWorld], None]
    #: Perform one card-moving command through the driver (a dispense, a shuffle...).
    move_one_card: Callable[[Driver], Awaitable[object]]
    #: How many card movements (or, for a class that moves none, executions of its command) the
    #: simulated device and its world show so far: proves a command executed exactly once.
    movements: Callable[[Personality, TableWorld], int]
    #: A fault the simulated device can latch and that a supervisor can then clear.
    fault: FaultCode
