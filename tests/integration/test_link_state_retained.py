"""The link controller's state as a table receives it from a real broker (decision 0039): the
broker's retained copy, handed over as the table subscribes, is judged by the ``at`` the floor's
clock wrote (it may be kept from a floor long stopped); a state published while the table is
subscribed arrives with the retain flag clear and is the controller heard now, whatever that clock
says. Here the floor's clock is a minute behind the table's: the retained state does not make the
link heard, the next live one does. On Mosquitto (the shipped access rules, each client with its
own login) and on the embedded amqtt broker."""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator
from pathlib import Path

import aiomqtt
import pytest

from croupier.floor_link.messages import Schemas
from croupier.floor_link.publisher import _link_heard
from croupier.floor_link.topics import link_state
from tests.integration.floor_broker import FLOORS, GROUP, TABLES, Mosquitto, amqtt_broker
from tests.unit.test_linked_levels import TOLD, _at, _level_told, _linked

TOPIC = link_state(GROUP, "c4p", "T1")


@contextlib.asynccontextmanager
async def _broker(kind: str, directory: Path) -> AsyncIterator[tuple[int, bool]]:
    """The broker's port, and whether each client logs in (Mosquitto's shipped access rules)."""
    if kind == "amqtt":
        async with amqtt_broker() as port:
            yield port, False
        return
    mosquitto = Mosquitto(directory)
    try:
        yield mosquitto.port, True
    finally:
        mosquitto.close()


def _client(port: int, user: str, passwords: dict[str, str] | None) -> aiomqtt.Client:
    login = {} if passwords is None else {"username": user, "password": passwords[user]}
    return aiomqtt.Client("127.0.0.1", port, identifier=f"test-{user}", **login)


@pytest.mark.parametrize("kind", ["mosquitto", "amqtt"])
def test_a_retained_state_is_judged_by_its_age_and_a_live_one_is_heard_now(kind, tmp_path):
    link, _, _ = _linked()  # heard within 3 s
    behind = {"link": "c4p", "table": "T1", "at": _at(60), "levels": [_level_told(1000)], "applied": None,
              **TOLD, "refused": []}  # fmt: skip

    async def scenario() -> list[bool]:
        flags = []
        async with _broker(kind, tmp_path) as (port, logins):
            floors, tables = (FLOORS, TABLES) if logins else (None, None)
            async with _client(port, "floor-1", floors) as floor:
                # as the link controller publishes each table's state: retained, at least once
                await floor.publish(TOPIC, json.dumps(behind).encode(), qos=1, retain=True)
                async with _client(port, "T1", tables) as table:
                    await table.subscribe(TOPIC, qos=1)  # as the table's floor link subscribes
                    messages = table.messages
                    async with asyncio.timeout(10):
                        retained = await anext(messages)
                        flags.append(bool(retained.retain))
                        _link_heard(link, retained, Schemas())
                        assert link.refusal() == "link c4p: the link controller not heard within 3 s"
                        await floor.publish(TOPIC, json.dumps({**behind, "at": _at(60)}).encode(), qos=1,
                                            retain=True)  # fmt: skip
                        live = await anext(messages)
                        flags.append(bool(live.retain))
                        _link_heard(link, live, Schemas())
                        assert link.refusal() is None
        return flags

    assert asyncio.run(scenario()) == [True, False]
