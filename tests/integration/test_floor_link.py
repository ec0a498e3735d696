"""Each table on a real MQTT broker, nothing lost when the network is (docs/floor.md; decision
0035): ``croupier run`` as a process, publishing to a real Mosquitto started with the shipped
configuration and access rules, and to the embedded amqtt broker; a test floor subscribed to
every table checks what it is given against the schemas and the sequence numbers."""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import signal
import socket
import sqlite3
import ssl
import time
from collections.abc import AsyncIterator
from datetime import datetime
from pathlib import Path

import aiomqtt
import pytest
import trustme

from croupier.audit.writer import AuditTrail
from croupier.commands.run import table_in_service
from croupier.config import load_table_config
from croupier.floor_link import payloads, publisher, publishing
from croupier.floor_link.publisher import FloorLink, broker_settings
from croupier.floor_link.spool import Spool
from croupier.service.journal import TableJournal
from croupier.service.table_service import TableService
from croupier.state import TableState
from tests.integration.floor_broker import (
    FLOORS,
    GROUP,
    SHIPPED,
    TABLES,
    Floor,
    Mosquitto,
    amqtt_broker,
    check_payloads,
    croupier_run,
    data_in_order,
    floor_running,
    free_port,
    table_config,
    with_password,
)

pytestmark = pytest.mark.timeout(90)


@pytest.fixture
def mosquitto(tmp_path):
    broker = Mosquitto(tmp_path / "mosquitto")
    yield broker
    broker.close()


async def _finished(config: Path, process: asyncio.subprocess.Process, timeout: float = 60) -> None:
    await asyncio.wait_for(process.wait(), timeout)
    assert process.returncode == 0, config.with_suffix(".log").read_text()


def _at(body: dict[str, object]) -> float:
    assert isinstance(body["at"], str)
    return datetime.fromisoformat(body["at"]).timestamp()


@pytest.mark.parametrize("game", [None, "simulated-crazy-4-poker.toml"], ids=["default", "crazy-4-poker"])
def test_a_tables_messages_arrive_in_order_numbered_and_as_their_schemas_say(
    tmp_path, mosquitto, game: str | None
):
    config = table_config(tmp_path, "T1", mosquitto.port, with_password(tmp_path, "T1"), game)

    async def main() -> Floor:
        async with floor_running(Floor(mosquitto.port)) as floor:
            await _finished(config, await croupier_run(config, "--rounds", "4", "--seed", "3"))
            await floor.until(lambda _: floor.of("T1", "death"), 10)
            return floor

    floor = asyncio.run(main())
    assert floor.kinds()[0] == "birth" and floor.kinds()[-1] == "death"
    data = data_in_order(floor.messages, "T1")
    assert [body["round"] for body in floor.of("T1", "round")] == [1, 2, 3, 4]
    assert floor.of("T1", "state")[0]["status"] == "open"
    assert floor.of("T1", "head"), "the trail's head is published"
    meters = floor.of("T1", "meter")  # only at a table with a progressive, and as its meters move
    assert len(meters) > 1 if game is not None else not meters
    birth, death = floor.of("T1", "birth")[0], floor.of("T1", "death")[0]
    assert birth["as_of_seq"] <= len(data) and birth["links"]
    dealer = "D-1" if game is None else None  # a Crazy 4 Poker table does not name its dealer
    assert birth["state"] == {"status": "open", "reason": None, "dealer": dealer}
    assert death == {"table": "T1", "session": birth["session"], "reason": "stopped"}
    counters = floor.of("T1", "counters")  # at the start, as each round ends, as a count moves
    ends = [body["rounds"] for body in counters if body["hands"] != 0]
    assert counters[0]["rounds"] == 0 and sorted(set(ends)) == [1, 2, 3, 4]
    for name in ("rounds", "hands", "progressive_wagers"):
        assert [body[name] for body in counters] == sorted(body[name] for body in counters)
    assert counters[-1]["hands"] >= 4 and counters[-1]["rounds_per_hour"] > 0
    assert (counters[-1]["progressive_wagers"] > 0) == (game is not None)
    check_payloads(floor.messages)


def test_the_broker_killed_mid_run_loses_nothing_and_the_table_plays_on(tmp_path, mosquitto):
    config = table_config(tmp_path, "T1", mosquitto.port, with_password(tmp_path, "T1"))

    async def main() -> tuple[Floor, float, float]:
        async with floor_running(Floor(mosquitto.port)) as floor:
            table = await croupier_run(config, "--duration", "60", "--seed", "5")
            await floor.until(lambda _: len(floor.of("T1", "round")) >= 2, 30)
            # the floor's session is on the broker's disk (autosave_interval 1, late under load)
            await asyncio.sleep(2.5)
            down = time.time()
            mosquitto.kill()
            await asyncio.sleep(1.5)
            up = time.time()
            mosquitto.start()
            await floor.until(lambda _: any(_at(body) > up for body in floor.of("T1", "round")), 30)
            table.send_signal(signal.SIGTERM)  # as systemd stops it
            await _finished(config, table)
            await floor.until(lambda _: floor.of("T1", "death"), 15)
            return floor, down, up

    floor, down, up = asyncio.run(main())
    data = data_in_order(floor.messages, "T1")  # none missing, none out of order, a repeat the same
    rounds = [body for body in data if "round" in body]
    assert [body["round"] for body in rounds] == list(range(1, len(rounds) + 1))
    assert any(down < _at(body) < up for body in rounds), "no round was played while the broker was down"
    assert len(floor.of("T1", "birth")) >= 2, "the table was born again on the restarted broker"
    check_payloads(floor.messages)


def test_the_spool_outlives_a_restart_of_the_table_with_no_broker(tmp_path):
    port = free_port()  # nothing listens there yet
    config = table_config(tmp_path, "T1", port, with_password(tmp_path, "T1"))

    async def main() -> Floor:
        await _finished(config, await croupier_run(config, "--rounds", "3", "--seed", "1"))
        broker = Mosquitto(tmp_path / "mosquitto")
        config.write_text(config.read_text().replace(f":{port}", f":{broker.port}"))
        try:
            async with floor_running(Floor(broker.port)) as floor:
                await _finished(config, await croupier_run(config, "--rounds", "5", "--seed", "2"))
                await floor.until(lambda _: floor.of("T1", "death"), 10)
                return floor
        finally:
            broker.close()

    floor = asyncio.run(main())
    data = data_in_order(floor.messages, "T1")
    assert [body["round"] for body in data if "round" in body] == [1, 2, 3, 4, 5]
    spooled_before = next(body for body in data if body.get("round") == 3)
    birth = floor.of("T1", "birth")[0]
    assert birth["as_of_seq"] >= spooled_before["seq"]
    assert birth["held_from"] == 1, "nothing confirmed: the table sends again from its first message"
    spool = Spool(next(tmp_path.glob("**/floor-T1.sqlite3")))
    try:  # the test's floor confirms nothing: delivered and acknowledged, yet every message kept
        assert len(spool) == spool.last_seq == len(data)
    finally:
        spool.close()


def test_a_table_is_born_again_on_request_and_the_broker_says_when_it_went_dark(tmp_path, mosquitto):
    config = table_config(tmp_path, "T1", mosquitto.port, with_password(tmp_path, "T1"))

    async def main() -> Floor:
        async with (
            floor_running(Floor(mosquitto.port)) as floor,
            aiomqtt.Client(
                "127.0.0.1",
                mosquitto.port,
                username="floor-1",
                password=FLOORS["floor-1"],
                identifier="floor-asks",
            ) as asks,
        ):
            table = await croupier_run(config, "--duration", "60")
            await floor.until(lambda _: floor.of("T1", "birth"), 30)
            await asks.publish(f"croupier/v1/{GROUP}/table/T1/cmd/rebirth", b"{}", qos=1)
            await floor.until(lambda _: len(floor.of("T1", "birth")) == 2, 5)
            online = {"online": True, "timestamp": int(time.time() * 1000) + 1}  # a floor service came up
            await asks.publish(
                f"croupier/v1/{GROUP}/host/floor-1/state", json.dumps(online), qos=1, retain=True
            )
            await floor.until(lambda _: len(floor.of("T1", "birth")) == 3, 5)
            table.kill()
            await table.wait()
            await floor.until(lambda _: floor.of("T1", "death"), 5)
            return floor

    floor = asyncio.run(main())
    births, death = floor.of("T1", "birth"), floor.of("T1", "death")[-1]
    assert len({birth["session"] for birth in births}) == 1, "born again on the same connection"
    assert death == {"table": "T1", "session": births[-1]["session"], "reason": "lost"}
    check_payloads(floor.messages)


def test_a_table_publishes_only_its_own_topics_and_reads_only_what_is_meant_for_it(mosquitto):
    def topic(table: str, kind: str) -> str:
        return f"croupier/v1/{GROUP}/table/{table}/{kind}"

    def table(name: str) -> aiomqtt.Client:
        v5 = aiomqtt.ProtocolVersion.V5
        return aiomqtt.Client("127.0.0.1", mosquitto.port, username=name, password=TABLES[name], protocol=v5)

    link_for_t1 = f"croupier/v1/{GROUP}/link/c4p/table/T1"

    async def main() -> tuple[Floor, list[str], list[str]]:
        forbidden = [
            topic("T2", "state"),  # another table's topics
            topic("T2", "death"),
            topic("T2", "cmd/rebirth"),  # a request to another table
            topic("T1", "cmd/counted"),  # a confirmation of what the floor counted, even its own
            topic("T2", "cmd/counted"),
            f"croupier/v1/{GROUP}/host/floor-1/state",  # a floor service's own state
            f"croupier/v1/{GROUP}/link/c4p/table/T1",  # a link controller's state, even its own
            f"croupier/v1/{GROUP}/link/c4p/table/T2",
        ]
        eavesdropper = Floor(mosquitto.port, username="T2", password=TABLES["T2"], identifier="T2")
        t1_reads = Floor(mosquitto.port, username="T1", password=TABLES["T1"], identifier="T1-reads")
        async with (
            floor_running(Floor(mosquitto.port)) as floor,
            floor_running(eavesdropper),
            floor_running(t1_reads),
        ):
            for name in forbidden:  # refused: dropped, or the connection closed
                with contextlib.suppress(aiomqtt.MqttError):
                    async with table("T1") as t1:
                        await t1.publish(name, b'{"forged": true}', qos=1)
            async with aiomqtt.Client(
                "127.0.0.1", mosquitto.port, username="floor-1", password=FLOORS["floor-1"]
            ) as controller:  # the link controller tells T1, and T1 only
                await controller.publish(link_for_t1, b'{"link": true}', qos=1)
                await controller.publish(topic("T1", "cmd/counted"), b'{"counted": true}', qos=1)
            async with table("T1") as t1:
                await t1.publish(topic("T1", "state"), b'{"last": true}', qos=1)
            await floor.until(lambda _: floor.of("T1", "state"), 5)
            await asyncio.sleep(0.2)  # anything T2 was (wrongly) given has reached it
            return floor, [topic for topic, _ in eavesdropper.messages], [t for t, _ in t1_reads.messages]

    floor, heard_by_t2, heard_by_t1 = asyncio.run(main())
    assert heard_by_t1 == [link_for_t1, topic("T1", "cmd/counted")], "T1 reads the floor's confirmation alone"
    assert [t for t, _ in floor.messages] == [
        link_for_t1,
        f"croupier/v1/{GROUP}/table/T1/state",
    ]
    assert heard_by_t2 == [], "a table read another table's messages"


def test_the_tables_and_the_floor_send_each_packet_at_once(tmp_path):
    """Both ends of the floor's MQTT connections turn Nagle's algorithm off: the clients (the
    table's link and the floor service share ``Broker.client``) over plain TCP and over TLS, and
    the shipped broker configuration. With it on, a packet written while the one before was not yet
    acknowledged waited for the other end's delayed acknowledgement (some 40 ms), and a floor that
    acknowledges a birth and then publishes its confirmation heard a few dozen births a second when
    every table came back after a broker restart (docs/scale.md)."""
    shipped = (SHIPPED / "croupier.conf").read_text()
    assert "set_tcp_nodelay true" in shipped.splitlines(), "the shipped broker lets Nagle hold its packets"
    ca = trustme.CA()
    plain, secure = Mosquitto(tmp_path / "plain"), Mosquitto(tmp_path / "tls", tls=ca)
    context = ssl.create_default_context()
    ca.configure_trust(context)

    async def nodelay(broker: Mosquitto, tls: ssl.SSLContext | None) -> int:
        login = publisher.Broker(
            "127.0.0.1", broker.port, tls, "T1", TABLES["T1"], aiomqtt.ProtocolVersion.V5, 10
        )
        will = aiomqtt.Will(f"croupier/v1/{GROUP}/table/T1/death", b"")
        async with login.client("T1-nodelay", will) as client:
            sock = client._client.socket()
            assert sock is not None
            return sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY)

    try:
        assert asyncio.run(nodelay(plain, None)), "over plain TCP"
        assert asyncio.run(nodelay(secure, context)), "over TLS"
    finally:
        plain.close()
        secure.close()


def test_over_tls_a_table_checks_the_brokers_certificate(tmp_path):
    ca, stranger = trustme.CA(), trustme.CA()
    broker = Mosquitto(tmp_path / "mosquitto", tls=ca)
    ca.cert_pem.write_to_path(tmp_path / "ca.pem")
    (tmp_path / "T2").mkdir()  # a table of its own, its state apart
    stranger.cert_pem.write_to_path(tmp_path / "T2" / "stranger.pem")
    trusting = table_config(
        tmp_path, "T1", broker.port, f'{with_password(tmp_path, "T1")}\ntls_ca = "ca.pem"'
    )
    fooled = table_config(
        tmp_path / "T2", "T2", broker.port, f'{with_password(tmp_path, "T2")}\ntls_ca = "stranger.pem"'
    )
    floor_tls = ssl.create_default_context(cafile=tmp_path / "ca.pem")

    async def main() -> Floor:
        async with floor_running(Floor(broker.port, tls=floor_tls)) as floor:
            t1, t2 = (
                await croupier_run(trusting, "--rounds", "2"),
                await croupier_run(fooled, "--rounds", "1"),
            )
            await asyncio.gather(_finished(trusting, t1), _finished(fooled, t2))
            await floor.until(lambda _: floor.of("T1", "death"), 10)
            return floor

    try:
        floor = asyncio.run(main())
    finally:
        broker.close()
    assert [body["round"] for body in floor.of("T1", "round")] == [1, 2]
    assert not [topic for topic, _ in floor.messages if "/T2/" in topic], "T2 trusted a broker it should not"
    assert "CERTIFICATE_VERIFY_FAILED" in fooled.with_suffix(".log").read_text()


def test_a_table_may_log_in_with_its_certificate_instead_of_a_password(tmp_path):
    ca = trustme.CA()
    broker = Mosquitto(tmp_path / "mosquitto", tls=ca, client_certificates=True)
    ca.cert_pem.write_to_path(tmp_path / "ca.pem")
    for name in ("T1", "floor-1"):
        issued = ca.issue_cert(f"{name}.tables.invalid", common_name=name)
        issued.cert_chain_pems[0].write_to_path(tmp_path / f"{name}.pem")
        issued.private_key_pem.write_to_path(tmp_path / f"{name}.key")
    config = table_config(
        tmp_path, "T1", broker.port, 'tls_ca = "ca.pem"\ntls_cert = "T1.pem"\ntls_key = "T1.key"'
    )
    floor_tls = ssl.create_default_context(cafile=tmp_path / "ca.pem")
    floor_tls.load_cert_chain(tmp_path / "floor-1.pem", tmp_path / "floor-1.key")

    async def main() -> Floor:
        async with floor_running(Floor(broker.port, tls=floor_tls, password=None)) as floor:
            await _finished(config, await croupier_run(config, "--rounds", "2"))
            await floor.until(lambda _: floor.of("T1", "death"), 10)
            return floor

    try:
        floor = asyncio.run(main())
    finally:
        broker.close()
    assert [body["round"] for body in floor.of("T1", "round")] == [1, 2]
    check_payloads(floor.messages)


def test_without_a_password_a_table_is_refused(mosquitto):
    async def main() -> None:
        with pytest.raises(aiomqtt.MqttError):
            async with aiomqtt.Client("127.0.0.1", mosquitto.port, username="T1", password=FLOORS["floor-1"]):
                pass

    asyncio.run(main())


def test_the_embedded_broker_carries_a_tables_messages_in_order(tmp_path):
    async def main() -> Floor:
        async with amqtt_broker() as port:
            config = table_config(tmp_path, "T1", port, 'protocol = "3.1.1"')
            floor = Floor(port, aiomqtt.ProtocolVersion.V311, username=None, password=None)
            async with floor_running(floor):
                await _finished(config, await croupier_run(config, "--rounds", "3", "--seed", "9"))
                await floor.until(lambda _: floor.of("T1", "death"), 10)
                return floor

    floor = asyncio.run(main())
    data = data_in_order(floor.messages, "T1")
    assert [body["round"] for body in data if "round" in body] == [1, 2, 3]
    assert json.dumps(floor.of("T1", "death")[0]) == '{"reason": "stopped", "session": 1, "table": "T1"}'
    check_payloads(floor.messages)


def _spooled(spool: Spool, kind: str) -> list[dict[str, object]]:
    """The ``kind`` messages waiting in ``spool``, in order."""
    return [json.loads(m.payload) for m in spool.pending(0, 10_000) if m.topic.endswith(f"/{kind}")]


@contextlib.asynccontextmanager
async def _table_here(path: Path) -> AsyncIterator[tuple[TableService, FloorLink]]:
    """The simulated table of the configuration at ``path`` served in this process as ``croupier
    run`` serves it (its simulated floor supervisor clearing what latches), with its floor link."""
    config = load_table_config(path)
    settings = broker_settings(config)
    assert settings is not None
    config.service.audit_dir.mkdir(parents=True, exist_ok=True)
    with (
        TableState(config.service.state_db) as state,
        AuditTrail(config.service.audit_dir, config.name, heads=state) as trail,
    ):
        journal = TableJournal(trail, state, table=config.name, game=config.game)
        async with (
            table_in_service(config, journal, 4, served=False) as service,
            publishing(settings, service, trail) as link,
        ):
            assert link is not None
            yield service, link


def test_a_message_the_spool_cannot_take_holds_the_table_and_the_floor_is_told_how_many(tmp_path):
    """The table (in this process, its devices simulated, its floor supervisor too) starts with a
    round the last run left in play: ROUND_CUT_OFF latches before the link hears the latches, and the
    first counters message counts it. Then the spool's file refuses every write (SQLite's own refusal,
    as a disk full or read-only refuses a statement): the round message lost latches
    FLOOR_SPOOL_UNWRITTEN, which holds the table until the supervisor clears it, in the trail; once the
    spool takes writes again, the counters message says how many messages never reached it."""
    path = table_config(tmp_path, "T1", free_port(), "")  # no broker there: the spool keeps everything
    service = load_table_config(path).service
    service.state_db.parent.mkdir(parents=True)
    with TableState(service.state_db) as state:
        state.begin_round("T1", 1, {})  # the last run was killed in round 1

    def refuse(action: int, *_: object) -> int:
        return sqlite3.SQLITE_DENY if action in (sqlite3.SQLITE_INSERT, sqlite3.SQLITE_UPDATE) else 0

    async def main() -> tuple[list[dict[str, object]], list[dict[str, object]], list[dict[str, object]]]:
        async with _table_here(path) as (service, link):
            first = _spooled(link.spool, "counters")[0]
            stop = asyncio.Event()
            playing = asyncio.create_task(service.serve(stop))
            async with asyncio.timeout(30):
                while service.table.rounds < 3:
                    await asyncio.sleep(0.01)
                link.spool._db.set_authorizer(refuse)  # the spool's disk refuses from here
                while "FLOOR_SPOOL_UNWRITTEN" not in {fault.code for fault in service.table.faults}:
                    await asyncio.sleep(0.01)
                held = payloads.table_state(service)
                link.spool._db.set_authorizer(None)
                while not any(body["event"] == "released" for body in _spooled(link.spool, "fault")):
                    await asyncio.sleep(0.05)
                rounds = service.table.rounds
                while service.table.rounds < rounds + 2:  # it plays on once cleared
                    await asyncio.sleep(0.05)
            stop.set()
            await playing
            await asyncio.sleep(1.2)  # the counters' next look
            assert held["status"] == "held" and "FLOOR_SPOOL_UNWRITTEN" in str(held["reason"])
            return [first], _spooled(link.spool, "counters"), _spooled(link.spool, "round")

    (first,), counters, rounds = asyncio.run(main())
    assert first["faults_latched"] == 1, "the fault latched as the table started is not counted"
    assert counters[-1]["unspooled"] >= 1 and counters[-1]["faults_latched"] == 2
    numbers = [body["round"] for body in rounds]
    assert numbers != list(range(numbers[0], numbers[-1] + 1)), "no round message was lost"
    trail = "".join(p.read_text() for p in sorted(service.audit_dir.glob("T1-*.jsonl")))
    assert trail.count('"FLOOR_SPOOL_UNWRITTEN"') >= 2, "latched and cleared, in the trail"


def test_what_no_floor_confirms_is_sent_again_ever_later_until_one_does(tmp_path, monkeypatch):
    """Nothing confirmed for CONFIRM_WAIT seconds (30; half a second here, the table in this
    process): the table sends again from its first message unconfirmed, on the same connection (no
    new birth), the wait doubling while nothing is confirmed; a confirmation deletes what it names,
    and nothing is sent again after."""
    monkeypatch.setattr(publisher, "CONFIRM_WAIT", 0.5)

    async def main() -> tuple[list[tuple[float, dict[str, object]]], int, int]:
        arrivals: list[tuple[float, dict[str, object]]] = []  # each message the floor is given, when
        async with amqtt_broker() as port:
            path = table_config(tmp_path, "T1", port, 'protocol = "3.1.1"')
            floor = Floor(port, aiomqtt.ProtocolVersion.V311, username=None, password=None)
            async with floor_running(floor), _table_here(path) as (_, link):
                async with asyncio.timeout(20):
                    while sum(body.get("seq") == 1 for _, body in floor.messages) < 3:
                        await asyncio.sleep(0.01)
                        new = floor.messages[len(arrivals) :]
                        arrivals.extend((time.monotonic(), body) for _, body in new)
                through = link.spool.last_seq
                counted = json.dumps({"spool": link.spool.identity, "seq": through})
                async with aiomqtt.Client("127.0.0.1", port, protocol=aiomqtt.ProtocolVersion.V311) as told:
                    await told.publish(f"croupier/v1/{GROUP}/table/T1/cmd/counted", counted, qos=1)
                async with asyncio.timeout(5):
                    while link.spool.held_from <= through:
                        await asyncio.sleep(0.01)
                heard = len(floor.messages)
                await asyncio.sleep(2.5)  # more than the wait had doubled to: nothing is sent again
                return arrivals, len(floor.messages) - heard, len(floor.of("T1", "birth"))

    arrivals, after, births = asyncio.run(main())
    firsts = [at for at, body in arrivals if body.get("seq") == 1]
    waits = [later - earlier for earlier, later in itertools.pairwise(firsts)]
    assert births == 1, "sent again on the same connection"
    assert 0.4 < waits[0] < 0.9 and 0.9 < waits[1] < 1.6, f"not 0.5 s then 1 s: {waits}"
    assert after == 0, "sent again after the floor confirmed it"
