"""A link's limits count as published only once the broker has acknowledged them (decision 0050): the
floor service over a real Mosquitto loses the broker in the middle of the publication that lowers a
level to a table's controller limit, and a hit queued for it meanwhile is paid, after it connects
again, the value the signs last showed, never the lower limit no sign was shown."""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import Callable
from pathlib import Path

import aiomqtt
import pytest

from croupier.config.floor_service import load_floor_config
from floor.link_controller import LinkController
from floor.service import FloorService, floor_broker, stopped
from floor.store import Store
from tests.integration.floor_broker import GROUP, TABLES, UNIT, Mosquitto, birth_body, floor_config

pytestmark = pytest.mark.timeout(60)
#: What the link's publication that lowers level 1 to T2's controller limit says, as the floor
#: sends it (its JSON, as floor.link_controller writes it).
LOWERED = b'"limit_cents": 120000'


class Cut:
    """A TCP proxy from the floor service to the broker standing for the network between them: what
    the floor sends that holds ``pattern`` is dropped and the connection closed both ways (``cut``
    set), so the broker is lost in the middle of that publication, before its PUBACK; and every new
    connection is closed at once until ``mend``."""

    def __init__(self, broker: int, pattern: bytes) -> None:
        self.broker, self.pattern, self.open, self.cut = broker, pattern, True, asyncio.Event()
        self.port = 0

    async def __aenter__(self) -> Cut:
        self._server = await asyncio.start_server(self._connection, "127.0.0.1", 0)
        self.port = self._server.sockets[0].getsockname()[1]
        return self

    async def __aexit__(self, *_: object) -> None:
        self._server.close()

    def mend(self) -> None:
        self.open = True

    async def _connection(self, floor_in: asyncio.StreamReader, floor_out: asyncio.StreamWriter) -> None:
        if not self.open:
            floor_out.close()
            return
        broker_in, broker_out = await asyncio.open_connection("127.0.0.1", self.broker)

        async def pipe(source: asyncio.StreamReader, sink: asyncio.StreamWriter, watched: bool) -> None:
            tail = b""  # the end of what came before: the pattern may straddle two reads
            try:
                while data := await source.read(65536):
                    if watched and not self.cut.is_set() and self.pattern in tail + data:
                        self.open = False
                        self.cut.set()
                        return
                    sink.write(data)
                    await sink.drain()
                    tail = data[-len(self.pattern) :]
            except OSError:
                pass
            finally:
                floor_out.close()
                broker_out.close()

        await asyncio.gather(pipe(floor_in, broker_out, True), pipe(broker_in, floor_out, False))


def _limited(meters_limit: int) -> dict[str, object]:
    """T2's birth, a Crazy 4 Poker table whose progressive controller holds at most ``meters_limit``
    cents on level 1 (its meters, decision 0050)."""
    meters = [{"level": 1, "value_cents": 100_000, "limit_cents": meters_limit, "in_cents": 0, "hits": 0,
               "wins_cents": 0, "frozen": False}]  # fmt: skip
    return {**birth_body(0, spool="b" * 32, table="T2"), "game": "crazy-4-poker", "meters": meters}


def _shown(controller: LinkController) -> object:
    """What level 1's value is told to T1 now."""
    return controller.state_for("c4p", "T1")["levels"][0]["value_cents"]  # type: ignore[index]


def test_a_hit_heard_after_the_broker_was_lost_mid_publication_pays_what_the_signs_showed(tmp_path: Path):
    """Level 1 shows 150,000 at every table (limit 10,000,000). T2's controller turns out to hold at
    most 120,000: the next publication lowers the level to it, and the broker is lost as the floor
    sends it (no PUBACK). T1's player hits meanwhile; the hit waits with the broker for the floor,
    which connects again and hears it before the link publishes again. It is paid 150,000, what T1's
    sign last showed (before, the floor had kept the lower limit as published when it made the
    publication, and paid 120,000)."""
    broker = Mosquitto(tmp_path / "mosquitto")
    linked = {"table": "T1", "at": "2026-12-02T03:00:00.000+00:00", "link": "c4p", "spool": "a" * 32,
              "controller": UNIT}  # fmt: skip
    contribution = {**linked, "seq": 1, "number": 1, "event": "contribution", "round": 1, "count": 1,
                    "wagered_cents": 1_000_000, "levels": [1]}  # fmt: skip  # level 1: +50,000
    hit = {**linked, "seq": 2, "number": 2, "event": "hit", "level": 1, "seat": 2, "round": 1}

    async def table(name: str, *messages: tuple[str, dict[str, object]]) -> None:
        async with aiomqtt.Client("127.0.0.1", broker.port, identifier=name, username=name,
                                  password=TABLES[name]) as client:  # fmt: skip
            for kind, body in messages:  # each acknowledged by the broker, so kept for the floor
                await client.publish(f"croupier/v1/{GROUP}/table/{name}/{kind}", json.dumps(body), qos=1)

    async def until(found: Callable[[], object], what: str) -> None:
        for _ in range(400):
            if found():
                return
            await asyncio.sleep(0.05)
        raise AssertionError(f"not seen within 20 seconds: {what}")

    async def main() -> list[int]:
        async with Cut(broker.port, LOWERED) as cut:
            path = floor_config(tmp_path / "floor", cut.port)
            links = "[links.c4p]\ntables = [\"T1\", \"T2\"]\nheartbeat = 0.3\n[links.c4p.levels.1]\n"
            path.write_text(path.read_text().replace(
                "[store]", links + "rate_bp = 500\nreset_cents = 100000\nlimit_cents = 10000000\n[store]"
            ))  # fmt: skip
            config = load_floor_config(path)
            with contextlib.closing(Store(config.store)) as store:
                controller = LinkController(config.links, store, config.group)
                service = FloorService(config, floor_broker(config), store, controller)
                hearing = asyncio.create_task(service.run())
                try:
                    await asyncio.wait_for(service.connected.wait(), 20)
                    await table("T1", ("birth", birth_body(0, spool="a" * 32)), ("linked", contribution))
                    await until(lambda: _shown(controller) == 150_000, "the contribution applied")
                    published = "SELECT limit_cents FROM link_published WHERE link = 'c4p'"
                    await until(lambda: store.run(published).fetchall() == [(10_000_000,)], "a publication")
                    await table("T2", ("birth", _limited(120_000)))
                    await asyncio.wait_for(cut.cut.wait(), 20)  # the lower limit's publication, cut short
                    await table("T1", ("linked", hit))  # queued for the floor while it is away
                    cut.mend()
                    hits = "SELECT amount_cents FROM link_hits WHERE link = 'c4p' ORDER BY ord"
                    await until(lambda: store.run(hits).fetchall(), "the hit frozen")
                    lowered = lambda: store.run(published).fetchall() == [(120_000,)]  # noqa: E731
                    await until(lowered, "the lower limit published, acknowledged, after the hit")
                    assert not hearing.done(), "the floor service stopped"
                    return [amount for (amount,) in store.run(hits).fetchall()]
                finally:
                    await stopped(hearing)

    try:
        amounts = asyncio.run(main())
    finally:
        broker.close()
    assert amounts == [150_000], "the hit pays what T1's sign last showed, not the limit never shown"
