"""A device that drops out mid-round (it stops answering, as when its cable is pulled): the link
supervisor notices, LINK_LOST latches (ARCHITECTURE.md "faults latch") and the round holds where
it is; a supervisor's clear is refused until the device is back; once it is back and cleared, the
round goes on to its end with every card accounted for."""

from __future__ import annotations

import asyncio
import random
from typing import Any

import pytest
from structlog.testing import capture_logs

from croupier.players.free_bet_blackjack import BasicStrategyPlayers
from croupier.simulated import FLOORPERSON, simulated_table
from devices.equipment import LINK_LOST
from devices.rules import RuleViolation
from drivers.connection import ConnectionState
from games.common.machine_parts import COMPLETE
from games.free_bet_blackjack.inputs import PlayerAction
from tests.links import FAST, run


class DroppingPlayers(BasicStrategyPlayers):
    """Basic strategy, but the shoe goes silent while the first player thinks; they stand once the
    table has noticed (the link supervisor's heartbeat failed)."""

    def __init__(self, shoe: Any, connection: Any) -> None:
        super().__init__(random.Random(3))
        self.shoe, self.connection, self.dropped = shoe, connection, False

    def decide(self, hand: Any, dealer_up: Any, legal: Any) -> Any:
        if self.dropped:
            return super().decide(hand, dealer_up, legal)
        self.dropped = True
        return self._drop_then_stand()

    async def _drop_then_stand(self) -> Any:
        self.shoe.set_silent(True)
        async with asyncio.timeout(10):
            while self.connection.state is ConnectionState.READY:
                await asyncio.sleep(0.01)
        return PlayerAction.STAND


def test_a_shoe_dropping_out_mid_round_holds_it_until_back_and_cleared_by_a_supervisor() -> None:
    async def scenario() -> None:
        async with simulated_table("free-bet-blackjack", name="DROP", settings=FAST) as sim:
            table, shoe = sim.table, sim.devices["shoe"]
            players = DroppingPlayers(shoe, sim.connections["shoe"])
            async def until_dropped() -> Any:
                """Rounds until one asks a player to decide (a dealer Blackjack asks nobody)."""
                while True:
                    round_ = await table.play_round(players)
                    if players.dropped:
                        return round_

            with capture_logs() as logs:
                playing = asyncio.create_task(until_dropped())
                await _held_then_cleared(sim, table, shoe, playing)
            held = [entry for entry in logs if entry["event"] == "table held"]
            assert held and held[0]["faults"] == ["LINK_LOST"], "the round held on the lost link"

    run(scenario(), timeout=60)


async def _held_then_cleared(sim: Any, table: Any, shoe: Any, playing: asyncio.Task[Any]) -> None:
    """Held while the shoe is silent; the clear refused until it is back; then the round ends."""
    async with asyncio.timeout(10):
        while "LINK_LOST" not in {fault.code for fault in table.faults}:
            await asyncio.sleep(0.01)
    await asyncio.sleep(0.3)
    assert not playing.done(), "the round holds where it is"
    with pytest.raises(RuleViolation) as refused:
        await table.clear("LINK_LOST", FLOORPERSON)
    assert refused.value.rule is LINK_LOST and "once the device is back" in refused.value.detail
    shoe.set_silent(False)
    await sim.connections["shoe"].wait_ready(10)
    await table.clear("LINK_LOST", FLOORPERSON)
    round_ = await asyncio.wait_for(playing, 15)
    assert round_.state == COMPLETE and table.faults == ()
    sim.world.check()
