"""The tables dealt from a shoe fed by a shuffler (Free Bet Blackjack, Over/Under), simulated: one
way to bring them up, since they share the ShoeTable's devices, dealer and options and differ only
in the table class and the devices a game adds (the card reader)."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Callable, Sequence
from typing import TypeVar

from croupier.simulated.devices import DeviceSpec, SimulatedTable, Table, opened_table, shoe_and_shuffler
from croupier.tables.shoe_table import ShoeRules
from devices.faults import Operator
from devices.shoe import Shoe
from devices.shuffler import Shuffler
from drivers.connection import DeviceConnection, SupervisorSettings
from drivers.shoe import ShoeDriver
from drivers.shuffler import ShufflerDriver
from firmware_sim.dealer import SimulatedDealer
from firmware_sim.world import TableWorld

#: Who opens a simulated table (a shoe table's opening is a supervisor's act).

ShoeTableT = TypeVar("ShoeTableT", bound=Table)


@contextlib.asynccontextmanager
async def simulated_shoe_table(
    make: Callable[..., ShoeTableT],
    *,
    rules: ShoeRules,
    dealer: Callable[[TableWorld], SimulatedDealer],
    settings: SupervisorSettings | None,
    backs: tuple[str, str],
    floorperson: Operator,
    shoe_settings: SupervisorSettings | None = None,
    shuffler_on_usb: bool = False,
    shuffler_seed: int | None = None,
    more_devices: Callable[[TableWorld], Sequence[DeviceSpec]] = lambda world: (),
    **options: object,
) -> AsyncIterator[SimulatedTable[ShoeTableT, SimulatedDealer]]:
    """The dealer's hands unwrap the two batches (``backs``, ``rules.decks`` each), the shoe and
    the shuffler come up with ``more_devices``, and ``make(connections, **table)`` builds the table
    from the ShoeTable keywords (``options`` among them); the ``floorperson`` opens it.
    ``shuffler_seed``: a repeatable shuffle (the simulator's ``--seed``)."""
    world = TableWorld()
    hands = dealer(world)
    hands.unwrap(backs, rules.decks)
    devices, specs = shoe_and_shuffler(
        world, shuffler_on_usb=shuffler_on_usb, shoe_settings=shoe_settings, shuffler_seed=shuffler_seed
    )
    for spec in more_devices(world):
        devices[spec.name] = spec.device
        specs.append(spec)

    def build(connections: dict[str, DeviceConnection]) -> ShoeTableT:
        shoe = Shoe(ShoeDriver(connections["shoe"]))
        # a seeded shuffle reaches the table only in the simulator, which asked for it (--seed)
        shuffler = Shuffler(ShufflerDriver(connections["shuffler"]), allow_seeded=shuffler_seed is not None)
        return make(
            connections,
            shoe=shoe,
            shuffler=shuffler,
            dealer=hands,
            dealer_on_duty="D-1",
            rules=rules,
            backs=backs,
            **options,
        )

    async with opened_table(
        world,
        hands,
        devices,
        specs,
        settings=settings,
        build=build,
        open_table=lambda table: table.open(floorperson),  # type: ignore[attr-defined]
    ) as sim:
        yield sim
