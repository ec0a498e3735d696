"""A Free Bet Blackjack table on equipment named by its configuration, as on the felt: the shoe and
the shuffler at serial paths (real pseudo-terminals, opened by pyserial), the card reader behind a
serial device server (a TCP socket URL), each checked against its firmware allow-list (605a.4(c)).
The devices' firmware is simulated; the dealer is a person at the screen, here the simulated
dealer's hands doing each step the screen shows, so the felt and the devices must agree card for
card (``TableWorld.check``). The table opens only when a supervisor opens it with every device
connected; then whole rounds are played through the API."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from aiohttp.test_utils import TestClient, TestServer

from croupier.api.app import make_app
from croupier.api.auth import Tokens
from croupier.audit.writer import AuditTrail
from croupier.config import load_table_config
from croupier.journal import TableJournal
from croupier.run_command import table_in_service
from croupier.screen import TABLE_CLOSED
from croupier.service import DEVICES_READY
from croupier.state import TableState
from devices.faults import SUPERVISOR_CLEARS
from firmware_sim.card_reader import CardReaderPersonality
from firmware_sim.dealer import SimulatedDealer
from firmware_sim.device import SimulatedDevice
from firmware_sim.ports.pty import PtyPort
from firmware_sim.ports.tcp import TcpPort
from firmware_sim.shoe import ShoePersonality
from firmware_sim.shuffler import ShufflerPersonality
from firmware_sim.world import TableWorld
from tests.links import run
from tests.screen import Screen

DEALER = {"Authorization": "Bearer dealer-token-0123456789"}
SUPERVISOR = {"Authorization": "Bearer floor-token-0123456789"}
TOKENS = """[[operators]]
token = "dealer-token-0123456789"
ident = "D-7"
role = "dealer"

[[operators]]
token = "floor-token-0123456789"
ident = "FLOOR-2"
role = "supervisor"
"""


def _config(tmp_path: Path, ports: dict[str, Any]) -> Path:
    devices = "".join(
        f"""
[devices.{name}]
kind = "{name}"
url = "{port.url}"
firmware_allow_list = ["{port.device.engine.personality.firmware_hash.hex()}"]
"""
        for name, port in ports.items()
    )
    (tmp_path / "tokens.toml").write_text(TOKENS)
    path = tmp_path / "table.toml"
    path.write_text(
        f"""[table]
name = "BJ-HW"
game = "free-bet-blackjack"
seats = 3
{devices}
[service]
api_tokens = "{tmp_path / "tokens.toml"}"
audit_dir = "{tmp_path / "audit"}"
state_db = "{tmp_path / "state.db"}"
"""
    )
    return path


@contextlib.asynccontextmanager
async def felt(tmp_path: Path) -> AsyncIterator[tuple[Screen, TableWorld, dict[str, Any]]]:
    """The devices served, the table in service on them, its API, and the dealer's hands."""
    world = TableWorld()
    hands = SimulatedDealer(world)
    hands.unwrap(("red", "blue"), 6)
    ports: dict[str, Any] = {
        "shoe": PtyPort(SimulatedDevice(ShoePersonality(world=world), name="shoe")).start(),
        "shuffler": PtyPort(SimulatedDevice(ShufflerPersonality(world=world), name="shuffler")).start(),
        "card-reader": TcpPort(SimulatedDevice(CardReaderPersonality(world=world), name="reader")).start(),
    }
    try:
        config = load_table_config(_config(tmp_path, ports))
        with (
            AuditTrail(config.service.audit_dir, config.name) as trail,
            TableState(config.service.state_db) as state,
        ):
            journal = TableJournal(trail, state, table=config.name, game=config.game)
            async with table_in_service(config, journal, None) as service:
                service.screen.step_listeners.append(
                    lambda step, arguments: getattr(hands, step)(**arguments)
                )
                stop = asyncio.Event()
                serving = asyncio.create_task(service.serve(stop))
                try:
                    app = make_app(service, Tokens.load(config.service.api_tokens))
                    async with TestClient(TestServer(app)) as client:
                        yield Screen(client, DEALER), world, ports
                finally:
                    stop.set()
                    await asyncio.wait_for(serving, 20)
    finally:
        for port in ports.values():
            port.stop()
    world.check()


def test_a_table_on_configured_equipment_opens_for_a_supervisor_and_plays_rounds(tmp_path: Path) -> None:
    async def scenario() -> None:
        async with felt(tmp_path) as (screen, world, ports):
            state = await screen.state()
            assert state["open"] is False and state["prompt"] is None, "closed until a supervisor opens it"
            status, body = await screen.post("/v1/wagers", {"seat": 1, "blackjack": 500})
            assert status == 409 and body["clause"] == TABLE_CLOSED.clause
            status, body = await screen.post("/v1/table/open")
            assert status == 403 and body["clause"] == SUPERVISOR_CLEARS.clause
            async with asyncio.timeout(10):
                while set((await screen.state())["devices"].values()) != {"ready"}:
                    await asyncio.sleep(0.05)
            ports["card-reader"].unplug()
            async with asyncio.timeout(10):
                while (await screen.state())["devices"]["card-reader"] == "ready":
                    await asyncio.sleep(0.05)
            status, body = await screen.post("/v1/table/open", headers=SUPERVISOR)
            assert status == 409 and body["clause"] == DEVICES_READY.clause and "card-reader" in body["error"]
            ports["card-reader"].replug()
            async with asyncio.timeout(15):
                while (await screen.state())["devices"]["card-reader"] != "ready":
                    await asyncio.sleep(0.05)
            status, body = await screen.post("/v1/table/open", headers=SUPERVISOR)
            assert status == 409 and "LINK_LOST" in body["error"], "the lost link latched until cleared"
            await screen.ok_as(SUPERVISOR, "/v1/faults/LINK_LOST/clear")
            await screen.ok_as(SUPERVISOR, "/v1/table/open")
            numbers = [await screen.play_round("free-bet-blackjack") for _ in range(3)]
            assert numbers == [1, 2, 3]
            world.check()

    run(scenario(), timeout=90)
