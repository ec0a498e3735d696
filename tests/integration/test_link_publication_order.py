"""The link's publications in one order across the floor services sharing a store (decision 0050):
each made and sent under the link's publication lock (a PostgreSQL advisory lock) and numbered by the
store (``revision``), a table dropping a state older than one it took, and a publication counting
as published only once the broker acknowledged it, refusing none (a real Mosquitto's access rules)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import threading
from pathlib import Path
from typing import cast

import aiomqtt
import pytest

from croupier.commands.floor import floor_running, floor_start
from croupier.config.floor_service import StoreConfig, load_floor_config
from croupier.config.linked import FloorLink, LinkedLevel
from croupier.floor_link.publisher import Broker
from croupier.state.sqlite_file import StateError
from devices.linked import Counts
from floor.link_controller import LinkController
from floor.service import FloorService, Refusals, floor_broker
from floor.store import Store
from tests.integration.floor_broker import TABLES, Mosquitto, floor_config, free_port
from tests.integration.test_floor_store import LINK_TABLES, postgres, postgres_server  # noqa: F401
from tests.links import run
from tests.unit.test_link_controller import LINK as THREE
from tests.unit.test_link_controller import _meters
from tests.unit.test_linked_levels import _restarted

pytestmark = pytest.mark.timeout(60)
LINK = FloorLink("c4p", ("T1", "T2"), {1: LinkedLevel(500, 100_000, 4_000_000)}, 2.0)
UNIT = {"vendor": "Acme", "model": "PC-1", "serial_number": "0001"}


def _topic(table: str) -> str:
    return f"croupier/v1/main/link/c4p/table/{table}"


@contextlib.contextmanager
def _two_services(url: str, tmp_path: Path, link: FloorLink):  # type: ignore[no-untyped-def]
    """Two floor services' link controllers on one PostgreSQL store, each with its own connection."""
    a, b = (Store(StoreConfig(url, tmp_path / "unused")) for _ in range(2))
    try:
        yield tuple(LinkController({"c4p": link}, store, "main") for store in (a, b))
    finally:
        for table_name in LINK_TABLES:
            a.run(f"DROP TABLE IF EXISTS {table_name}")
        a.close()
        b.close()


def test_a_publication_waits_for_the_one_another_floor_service_is_making_and_pays_what_the_sign_took(
    postgres, tmp_path  # noqa: F811
):
    """Decision 0050 (the link's publications in one order): service B's heartbeat is made before
    T2's lower controller limit reaches the store; service A cannot make its publication of the lower
    limit until B's is acknowledged and let go, so B's reaches every table first and A's, later in
    the store's order, is every table's retained state and the limit kept as published. T1's hit
    then pays at least what T1's sign took last. Before, A's publication went out beside B's: T1's
    sign showed B's 150,005 while the store kept A's 120,000, the hit frozen under it."""
    with _two_services(postgres, tmp_path, THREE) as (service_a, service_b):
        body = {"link": "c4p", "spool": "s1", "controller": UNIT}
        service_a.heard("T1", {**body, "number": 1, "event": "contribution", "round": 1,
                               "wagered_cents": 1_000_000, "levels": [1]})  # fmt: skip
        service_a.heard("T2", {**body, "number": 1, "event": "contribution", "round": 1, "wagered_cents": 100,
                               "levels": [1]})  # fmt: skip
        assert service_b.hold("c4p")
        beat_b = service_b.publication("c4p", "floor-2")  # B's heartbeat: 150,005
        _meters(service_a.store, "T2", {1: 120_000})  # T2's meter message: its controller holds 120,000
        assert not service_a.hold("c4p"), "A's publication made while B's is on its way"
        service_b.acknowledged(beat_b)
        service_b.let_go("c4p")
        assert service_a.hold("c4p")
        change_a = service_a.publication("c4p", "floor-1")  # A's: the lower limit, 120,000
        service_a.acknowledged(change_a)
        service_a.let_go("c4p")
        assert change_a.revision > beat_b.revision
        shown = json.loads(dict(change_a.messages)[_topic("T1")])  # T1's retained state, its sign's
        service_a.heard("T1", {**body, "number": 2, "event": "hit", "level": 1, "seat": 2, "round": 1})
        level = next(one for one in service_a.state_for("c4p", "T1")["levels"] if one["level"] == 1)
        assert level["hits"][0]["amount_cents"] >= shown["levels"][0]["value_cents"], (shown, level["hits"])


def test_a_publication_during_which_the_store_reconnected_is_not_acknowledged(postgres, tmp_path):  # noqa: F811
    """Decision 0050 (each publication made, sent and acknowledged under the link's publication lock,
    which the server lets go when the service's connection ends): service A's connection ends while
    its publication is on its way, so B may take the lock and publish beside it; A's store, used
    meanwhile, connects again, and A's acknowledgement on the new connection would take a publication
    sent outside the lock for the tables' state. It is not acknowledged: its limits stay kept as sent,
    and the link's next publication, under the lock again, is the one acknowledged."""
    with _two_services(postgres, tmp_path, LINK) as (service_a, service_b):
        assert service_a.hold("c4p")
        made = service_a.publication("c4p", "floor-1")
        pid = service_a.store.run("SELECT pg_backend_pid()").fetchone()[0]
        # A's connection ends as it sends: waited for (up to 5 s), as the call only signals the backend
        service_b.store.run("SELECT pg_terminate_backend(?, 5000)", (pid,))
        assert service_b.hold("c4p"), "the lock lapsed with A's connection"
        service_b.let_go("c4p")
        with pytest.raises(StateError):
            service_a.store.run("SELECT 1")  # a message A counts meanwhile finds the connection gone
        service_a.store.run("SELECT 1")  # and the next connects again
        service_a.acknowledged(made)
        kept = "SELECT acknowledged, (SELECT count(*) FROM link_sent) FROM link_revisions WHERE link = 'c4p'"
        assert tuple(service_a.store.run(kept).fetchone()) == (0, 1), "acknowledged outside the lock"
        assert service_a.hold("c4p")
        again = service_a.publication("c4p", "floor-1")
        service_a.acknowledged(again)
        service_a.let_go("c4p")
        assert tuple(service_a.store.run(kept).fetchone()) == (again.revision, 0)


def test_the_floor_service_publishes_again_when_the_store_reconnected_as_it_sent(postgres, tmp_path):  # noqa: F811
    """Decision 0050: ``FloorService._publish_link`` publishes the link again, under the lock taken
    again, when its store's connection (and the lock with it) was lost as it sent; the second
    publication is the one acknowledged."""
    with _two_services(postgres, tmp_path, LINK) as (service_a, service_b):
        sent: list[int] = []

        class Told:  # the broker acknowledging every state; A's connection ends as the first is sent
            async def publish(self, topic: str, payload: bytes) -> str | None:
                sent.append(json.loads(payload)["revision"])
                if len(sent) == 1:
                    pid = service_a.store.run("SELECT pg_backend_pid()").fetchone()[0]
                    service_b.store.run("SELECT pg_terminate_backend(?, 5000)", (pid,))  # waited for
                    with contextlib.suppress(StateError):
                        service_a.store.run("SELECT 1")  # a message counted meanwhile finds it gone
                return None

        floor = FloorService(load_floor_config(None), cast(Broker, None), service_a.store, service_a)
        run(floor._publish_link(cast(Refusals, Told()), service_a, "c4p"), 10)
        kept = "SELECT acknowledged FROM link_revisions WHERE link = 'c4p'"
        assert (sent, service_a.store.run(kept).fetchone()[0]) == ([1, 1, 2, 2], 2)


def test_a_stale_state_from_the_other_floor_service_does_not_lift_a_jackpot_lock(
    postgres, tmp_path  # noqa: F811
):
    """Decision 0050 (a table drops a state older than one it took): service B's heartbeat, made
    before service A applied T1's hit, reaches T2 after A's publication of the hit (a broker that
    delivered them out of order). T2 drops it, by its revision in the store's order, and the jackpot
    lock holds; before, T2 took it, the lock lifted and its progressive wagers were taken."""
    with _two_services(postgres, tmp_path, LINK) as (service_a, service_b):
        for service, host in ((service_a, "floor-1"), (service_b, "floor-2")):  # each renames the count
            service.acknowledged(service.publication("c4p", host))  # in its first publication: past
        sent = {"link": "c4p", "spool": "t1" * 16, "controller": UNIT}
        service_a.heard("T1", {**sent, "number": 1, "event": "contribution", "round": 1,
                               "wagered_cents": 10_000, "levels": [1]})  # fmt: skip
        beat_b = dict(service_b.publication("c4p", "floor-2").messages)[_topic("T2")]  # B's heartbeat now ...
        service_a.heard("T1", {**sent, "number": 2, "event": "hit", "level": 1, "seat": 3, "round": 1})
        change_a = dict(service_a.publication("c4p", "floor-1").messages)[_topic("T2")]  # ... A's, the hit
        table, sender, _progressive = _restarted(0, frozen=False)  # T2's side of the link
        table.table, sender.sent = "T2", Counts()  # T2 has sent nothing

        async def heard() -> tuple[str | None, str | None]:
            table.heard(json.loads(change_a))
            locked = table.refusal()
            table.heard(json.loads(beat_b))  # B's reaches T2 after A's
            return locked, table.refusal()

        locked, after = run(heard(), 5)
        assert locked is not None and "jackpot-locked" in locked, locked
        assert after is not None and "jackpot-locked" in after, f"the lock lifted by a stale state: {after!r}"


def test_a_link_state_the_broker_refuses_is_not_taken_for_acknowledged(tmp_path: Path):
    """Decision 0050 (a publication counts once the broker acknowledged it): a PUBACK with a reason
    code of 0x80 or more is a refusal, not an acknowledgement. Over MQTT 5 to a real Mosquitto with
    the shipped access rules, T1's login may read its link state, never write it: Mosquitto answers
    0x87 Not authorized (and, 2.0.11, closes the connection after it), which the floor's publish
    (``Refusals``) returns as the reason, so the publication is not kept as published
    (floor.service). Before, aiomqtt ended the publish at the PUBACK whatever it said, and a refused
    state counted as published."""
    broker = Mosquitto(tmp_path / "mosquitto")

    async def main() -> str | None:
        async with aiomqtt.Client("127.0.0.1", broker.port, identifier="T1", username="T1",
                                  password=TABLES["T1"], protocol=aiomqtt.ProtocolVersion.V5,
                                  timeout=5) as client:  # fmt: skip
            return await Refusals(client).publish(_topic("T1"), b"{}")

    try:
        denied = asyncio.run(main())
    finally:
        broker.close()
    assert denied is not None and "0x87" in denied, denied


def test_a_floor_service_publishes_a_link_only_once_the_other_has_let_it_go(postgres, tmp_path):  # noqa: F811
    """Decision 0050: the floor service's publication of a link (``_publish_link``) waits while
    another floor service sharing the store holds the link's publication lock, making nothing, and
    publishes, acknowledged, once it is let go."""
    config = load_floor_config(floor_config(tmp_path / "floor", None))
    sent: list[str] = []

    class Broker:
        """The broker's side of ``Refusals``: every state acknowledged."""

        async def publish(self, topic: str, payload: bytes) -> None:
            sent.append(topic)

    with _two_services(postgres, tmp_path, LINK) as (service_a, service_b):
        service = FloorService(config, floor_broker(config), service_a.store, service_a)
        made = "SELECT revision FROM link_revisions WHERE link = 'c4p'"

        async def main() -> tuple[list[str], int, int]:
            assert service_b.hold("c4p")
            publishing = asyncio.create_task(service._publish_link(Broker(), service_a, "c4p"))  # type: ignore[arg-type]
            await asyncio.sleep(0.2)
            waiting = (list(sent), service_a.store.run(made).fetchone()[0])
            service_b.let_go("c4p")
            await asyncio.wait_for(publishing, 5)
            assert waiting == ([], 0), waiting
            published = service_a.store.run("SELECT count(*) FROM link_published WHERE link = 'c4p'")
            return sent, service_a.store.run(made).fetchone()[0], published.fetchone()[0]

        topics, revision, published = asyncio.run(main())
        assert (sorted(topics), revision, published) == ([_topic("T1"), _topic("T2")], 1, 1)


def test_a_floor_start_does_not_wait_for_a_lock_a_dead_service_holds(postgres, tmp_path):  # noqa: F811
    """Decision 0050 (``store`` names the count; review 16f): a floor service that died mid-publication
    on a host that lost power keeps its session, and the link's publication lock, on the server until
    TCP keepalive notices (two hours by Linux's default). ``croupier floor`` starting meanwhile
    (``floor_running``) comes up all the same, its view answering: it names the count afresh in its
    first publication, under the lock that publication waits for, not before anything starts (before,
    its start waited in ``time.sleep`` for the lock, without a word in the log)."""
    (tmp_path / "floor.toml").write_text(
        f'[embedded]\nbind = "127.0.0.1:{free_port()}"\n[store]\nurl = "{postgres}"\n'
        f'[view]\nbind = "127.0.0.1:{free_port()}"\n[links.c4p]\ntables = ["T1", "T2"]\n'
        "[links.c4p.levels.1]\nrate_bp = 500\nreset_cents = 100000\nlimit_cents = 4000000\n"
    )
    config = load_floor_config(tmp_path / "floor.toml")
    up: list[str] = []

    async def start() -> None:
        async with floor_running(floor_start(config)) as floor:
            up.append(floor.view)

    with _two_services(postgres, tmp_path, LINK) as (_, dead):
        assert dead.hold("c4p")  # died mid-publication; the server has not noticed yet
        started = threading.Thread(target=asyncio.run, args=(start(),), daemon=True)
        started.start()
        started.join(15)
        waiting = started.is_alive()
        dead.let_go("c4p")  # the server notices at last
        started.join(10)
    assert not waiting and up, "the floor service's start still waits on the other's lock after 15 s"
