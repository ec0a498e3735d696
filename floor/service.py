"""The floor service: every table of a property, heard through the broker and counted once.

It subscribes to ``croupier/v1/GROUP/table/+/+`` (each table's birth, death and numbered messages;
docs/floor.md) with a session the broker keeps while it is away, so what the tables publish in the
meantime is queued for it. It publishes its host state, retained: online at each connection, with the
time, which every table answers with a new birth; offline as its MQTT will, which the broker sends
when the floor goes dark. Each message goes to the store (floor.store), which counts it once, and a
linked progressive's message then to the link controller (floor.link_controller), which applies it
once; it is acknowledged to the broker only once both have committed it: a store or controller that
fails (locked, read-only, gone) leaves the message with the broker, the floor drops the connection
and connects again, and the broker delivers the message again, with everything after it, from the
session it kept (decision 0036). A message that cannot be read (not JSON, not what its kind's schema
says, a value the database cannot take), or that fails to count in any other way but the store's
own, is logged with its table and why, counted as malformed for the view, and acknowledged: sent
again it would be no better, and held it would stop every table's messages behind it. A value the
link controller works out from a well-formed message that the store cannot keep is refused for
that table alone (floor.link_controller): a hit is told refused, a contribution or a void leaves
that table's counts short (LINK_MISMATCH there). A message
past the next number the store expects of a table (an earlier one not come yet), or one from a
table the floor has no birth of, asks that table for a new birth on its ``cmd/rebirth`` topic, at
most once a second per table (``REBIRTH_EVERY``): the table answers with its birth and sends again
from its first message unconfirmed, and a second request before those come would only send them
once more. Once acknowledged, what was counted is confirmed to the table on its ``cmd/counted``
topic (``Confirmations``), and only then does the table delete it from its spool (decision 0035).
A birth request and a confirmation and nothing else go from the floor to a table (the floor
observes), but for the link controller's state of each linked progressive, which a linked table
reads for its jackpot alone (decision 0039).

With no broker configured it starts the embedded amqtt broker on loopback first (decision 0036),
so a developer needs nothing else.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import time
from collections.abc import AsyncIterator, Callable, Collection
from typing import Any, TypeVar

import aiomqtt
import structlog
from paho.mqtt import client as mqtt
from paho.mqtt.packettypes import PacketTypes
from paho.mqtt.properties import Properties

from croupier.config.floor_service import FloorServiceConfig
from croupier.errors import StartupError
from croupier.floor_link.messages import Malformed, Schemas
from croupier.floor_link.publisher import PROTOCOLS, RETRY_FIRST, RETRY_MOST, Broker, credential, json_props
from croupier.floor_link.spool import encode
from croupier.floor_link.topics import DATA, NAMESPACE, Topics
from croupier.state.sqlite_file import StateError
from floor.link_controller import LinkController
from floor.store import Counted, Store, Unfit

log = structlog.get_logger("croupier.floor")
#: Seconds between two tries for a link's publication lock another floor service holds (a
#: publication takes milliseconds on a live broker).
HOLD_AGAIN = 0.01
_T = TypeVar("_T")

#: Seconds the broker keeps the floor's session (and what is queued for it) while the floor is away.
SESSION_EXPIRY = 3600
#: The confirmations of what was counted (``cmd/counted``) go out at least this often, in seconds,
#: and at once when this many messages were counted since the last ones went (and on each birth).
CONFIRM_EVERY, CONFIRM_MOST = 0.25, 256
#: Seconds between two requests for a new birth from one table, however many messages wait.
REBIRTH_EVERY = 1.0
#: Seconds a stop waits for the service (or a connection's tasks) to end before asking it again
#: (``_cancelled``): more than the two seconds its host state offline may take.
STOP_AGAIN = 3.0


def floor_broker(config: FloorServiceConfig) -> Broker:
    """The floor's broker and its login, its password and TLS files read now: one that cannot be read
    stops the start-up before the store or a broker is opened. With no broker configured, the
    embedded one on loopback (decision 0036), without a credential."""
    floor = config.broker
    if floor is None:
        host, port = config.embedded
        return Broker(host, port, None, None, None, PROTOCOLS["3.1.1"], 10)
    password, tls = credential(config.source, floor)
    protocol, user = PROTOCOLS[floor.protocol], config.host
    return Broker(floor.host, floor.port, tls, user, password, protocol, floor.keepalive)


class FloorService:
    """One floor service: its broker connection and the store it counts into."""

    def __init__(
        self, config: FloorServiceConfig, broker: Broker, store: Store, links: LinkController | None = None
    ) -> None:
        self.config, self.broker, self.store, self.links = config, broker, store, links
        self.group = config.group
        self.connected = asyncio.Event()
        self.state_topic = f"{NAMESPACE}/{self.group}/host/{config.host}/state"
        self.schemas = Schemas()
        #: one link publication at a time: each acknowledged before the next is sent (``_publish_link``)
        self._publishing = asyncio.Lock()

    async def run(self) -> None:
        """Connect, hear, and connect again whenever the broker goes or the store fails, until
        cancelled."""
        delay = RETRY_FIRST
        while True:
            try:
                async with self._client() as client:
                    delay = RETRY_FIRST
                    try:
                        await self._hear(client)
                    except asyncio.CancelledError:
                        await self._offline(client)
                        raise
            except aiomqtt.MqttError as lost:
                log.warning("floor broker lost: connecting again", reason=str(lost))
            except StateError as failed:
                log.error(
                    "floor store failed: connecting again; a message not counted stays with the broker, "
                    "to be delivered again",
                    reason=str(failed),
                )
            self.connected.clear()
            await asyncio.sleep(delay)
            delay = min(delay * 2, RETRY_MOST)

    async def _offline(self, client: aiomqtt.Client) -> None:
        """At a clean stop, the host state offline, retained, before the connection closes: the
        broker discards the will at a normal disconnect, so without it the tables would go on
        reading the floor online (Sparkplug's host application does the same). A broker that does
        not take it within two seconds is not waited for: the stop goes on."""
        props = json_props(self.broker.v5, PacketTypes.PUBLISH)
        offline = _host_state(online=False)
        with contextlib.suppress(aiomqtt.MqttError, TimeoutError):
            await asyncio.wait_for(
                client.publish(self.state_topic, offline, qos=1, retain=True, properties=props), 2
            )
        log.info("floor offline", group=self.group)

    def _client(self) -> aiomqtt.Client:
        v5 = self.broker.v5
        will = aiomqtt.Will(self.state_topic, _host_state(online=False), qos=1, retain=True,
                            properties=json_props(v5, PacketTypes.WILLMESSAGE))  # fmt: skip
        connect = Properties(PacketTypes.CONNECT) if v5 else None
        if connect is not None:
            connect.SessionExpiryInterval = SESSION_EXPIRY
        client = self.broker.client(
            f"croupier-floor-{self.group}-{self.config.host}",
            will,
            clean_start=False if v5 else 3,  # 3: paho's "as clean_session says"
            clean_session=None if v5 else False,
            properties=connect,
        )
        _paho(client).manual_ack_set(True)  # before connecting: no message is acknowledged unasked
        return client

    async def _hear(self, client: aiomqtt.Client) -> None:
        """Hear the tables until the connection ends, beside the link's heartbeat and the
        confirmations: whichever of them fails first (the broker lost, the store failing) ends the
        connection and the others with its error, which ``run`` logs before connecting again, so
        none of them stops alone while the service looks alive."""
        props = json_props(self.broker.v5, PacketTypes.PUBLISH)
        await client.subscribe(f"{NAMESPACE}/{self.group}/table/+/+", qos=1)
        await client.publish(self.state_topic, _host_state(online=True), qos=1, retain=True, properties=props)
        where = f"{self.broker.host}:{self.broker.port}"
        log.info("floor online", broker=where, group=self.group, store=self.store.where)
        self.connected.set()
        confirm, states = Confirmations(client, self.group), Refusals(client)
        tasks = [
            asyncio.create_task(self._messages(client, confirm, states)),
            asyncio.create_task(confirm.every(CONFIRM_EVERY)),
        ]
        if self.links is not None:
            tasks.append(asyncio.create_task(self._heartbeat(states, self.links)))
        try:
            done, _ = await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
            for task in done:
                task.result()  # its error ends the connection; none ends without one
        finally:  # each asked again until it ends: one left beating would hold the reconnection
            await _cancelled(tasks)
            await asyncio.gather(*tasks, return_exceptions=True)

    async def _messages(self, client: aiomqtt.Client, confirm: Confirmations, states: Refusals) -> None:
        """Each message counted, acknowledged, confirmed to its table, and the link it changed
        published; a table asked for a new birth where the store says so."""
        links = self.links
        asked: dict[str, float] = {}  # when each table was last asked for a new birth (monotonic)
        async for message in client.messages:
            table, kind = str(message.topic).split("/")[-2:]
            # A StateError from the store or the controller: never acknowledged, so delivered again.
            counted, changed = self._heard(table, kind, message.payload)
            rebirth = counted is not None and counted.rebirth
            if rebirth and table in asked and time.monotonic() - asked[table] < REBIRTH_EVERY:
                rebirth = False  # asked already within the second: the table is answering
            _paho(client).ack(message.mid, message.qos)
            if counted is not None:
                await confirm.counted(table, counted, at_once=kind == "birth")
            if rebirth:
                asked[table] = time.monotonic()
                log.info("floor: asking for a new birth", table=table)
                await client.publish(Topics(self.group, table).rebirth, b"{}", qos=1)
            if links is not None and changed is not None:
                await self._publish_link(states, links, changed)
        raise aiomqtt.MqttError("the broker ended the message stream")

    async def _heartbeat(self, states: Refusals, links: LinkController) -> None:
        """Each link's state every ``heartbeat`` seconds, changed or not: a table that stops hearing
        it takes the link for lost (decision 0039). The store failing to read it (a StateError) or
        the broker lost ends the connection (``_hear``), so the service connects again and the
        heartbeat starts afresh, rather than stopping while the service hears on."""
        due = dict.fromkeys(links.links, 0.0)
        while True:
            now = time.monotonic()
            for link_id, at in due.items():
                if now >= at:
                    await self._publish_link(states, links, link_id)
                    due[link_id] = now + links.links[link_id].heartbeat
            await asyncio.sleep(max(0.05, min(due.values()) - time.monotonic()))

    async def _publish_link(self, states: Refusals, links: LinkController, link_id: str) -> None:
        """The link's state to each of its tables, retained, at QoS 1, and its limits kept as
        published once the broker has acknowledged every table's, refusing none (decision 0050): a
        publication cut short (the broker lost, the floor stopped) or refused (a PUBACK reason code
        of 0x80 or more: ``Refusals``) leaves them kept as sent, so a hit is frozen under the higher
        of those and the limits published before. One at a time across every floor service sharing
        the store (the link's publication lock, ``LinkController.hold``, waited for here, and within
        this service the heartbeat's and a message's never interleaved): each table's retained state
        is the newest, and what was sent before an acknowledged publication is behind it at the
        broker. One during which the store connected again (the lock lapsed with the old connection:
        ``LinkController.acknowledged``) is published again under the lock taken again."""
        async with self._publishing:
            done = False
            while not done:  # again when the store's connection, and the lock with it, was lost
                while not links.hold(link_id):  # another floor service is publishing the link
                    await asyncio.sleep(HOLD_AGAIN)
                try:
                    publication = links.publication(link_id, self.config.host)
                    refused = [await states.publish(*message) for message in publication.messages]
                    done = any(refused) or links.acknowledged(publication)
                    if any(refused):
                        log.error("floor: the broker refused the link's state", link=link_id,
                                  reason=next(why for why in refused if why))  # fmt: skip
                finally:
                    links.let_go(link_id)

    def _heard(self, table: str, kind: str, payload: object) -> tuple[Counted | None, str | None]:
        """One message read, counted, and a linked progressive's applied by the link controller:
        what counting it did (None for a death or a malformed message), and the link it changed, if
        any."""
        body = self._guarded(table, kind, lambda: self.schemas.read(kind, payload))
        if body is None:
            return None, None
        counted = self._guarded(table, kind, lambda: self._count(table, kind, body))
        links = self.links
        if counted is None or kind != "linked" or links is None:
            return counted, None
        return counted, self._guarded(table, kind, lambda: links.heard(table, body))

    def _guarded(self, table: str, kind: str, step: Callable[[], _T]) -> _T | None:
        """``step`` of hearing one message, or None when the message is malformed: it could not be
        read (Malformed), holds a value the store cannot take (Unfit), or failed in a way nobody
        foresaw, which is logged with its traceback and taken as malformed too, so that one message
        never stops the floor. Logged with the table and why, and counted for the view; only the
        store failing (StateError, from the step or from counting the malformed one) propagates."""
        try:
            return step()
        except StateError:
            raise
        except (Malformed, Unfit) as exc:
            log.error("floor: a message that cannot be read", table=table, kind=kind, reason=str(exc))
        except Exception as exc:  # anything else: this message is given up on, the floor goes on
            log.exception("floor: a message that failed to count, taken as malformed",
                          table=table, kind=kind, reason=repr(exc))  # fmt: skip
        self.store.malformed(table)
        return None

    def _count(self, table: str, kind: str, body: dict[str, Any]) -> Counted | None:  # Any: JSON fields
        """Count one message, checked against its schema: what it did (whether the table should be
        asked for a new birth, what to confirm to it), None for a death. A store that fails raises
        its StateError."""
        if kind == "birth":
            return self.store.birth(table, body)
        if kind == "death":
            if self.store.death(table, body):
                log.warning("table dark", table=table, reason=body["reason"])
        elif kind in DATA:
            return self.store.numbered(table, kind, body)
        return None


class Confirmations:
    """What the floor tells each table it has counted, on the table's ``cmd/counted`` topic (decision
    0035): ``{"spool", "seq"}``, every message of that spool up to ``seq`` counted in the store, which
    the table may now delete from its spool. Told only once the store committed the count and the
    message was acknowledged to the broker; batched, at most every CONFIRM_EVERY seconds or
    CONFIRM_MOST messages, and at once on a birth, so a table that reconnects learns at once what it
    need not send again. Each is the store's whole count, not a difference: one lost changes nothing
    the next does not tell."""

    def __init__(self, client: aiomqtt.Client, group: str) -> None:
        self._client, self._group = client, group
        self._due: dict[str, tuple[str, int]] = {}  # each table's spool and count not yet told
        self._since = 0  # messages counted since the confirmations last went

    async def counted(self, table: str, counted: Counted, *, at_once: bool) -> None:
        if counted.spool is not None:
            self._due[table] = (counted.spool, counted.through)
        self._since += 1
        if at_once or self._since >= CONFIRM_MOST:
            await self.tell()

    async def every(self, seconds: float) -> None:
        while True:
            await asyncio.sleep(seconds)
            await self.tell()

    async def tell(self) -> None:
        due, self._due, self._since = self._due, {}, 0
        for table, (spool, through) in due.items():
            topic = Topics(self._group, table).counted
            await self._client.publish(topic, encode({"spool": spool, "seq": through}), qos=1)


async def stopped(hearing: asyncio.Task[None]) -> None:
    """``hearing`` (a task running ``FloorService.run``) cancelled (``_cancelled``) and awaited. The
    interval leaves the first cancellation time to publish the host state offline (``_offline``)."""
    await _cancelled([hearing])
    with contextlib.suppress(asyncio.CancelledError):
        await hearing


async def _cancelled(tasks: Collection[asyncio.Task[None]]) -> None:
    """Each of ``tasks`` cancelled, and asked again every ``STOP_AGAIN`` seconds until it ends:
    Python 3.11's ``asyncio.wait_for``, which aiomqtt awaits each acknowledgement with, drops a
    cancellation that comes as the acknowledgement does, and the task would run on: the service
    hearing on, its stop waiting for ever; or, when one connection ends (``_hear``), the link's
    heartbeat beating on while the service waits for it, never connecting again, so a message the
    store failed twice in a row would never be delivered again."""
    while running := [task for task in tasks if not task.done()]:
        for task in running:
            task.cancel()
        await asyncio.wait(running, timeout=STOP_AGAIN)


#: The message ids of the publishes being watched for a refusal (``Refusals``), in the task that
#: publishes them: each task its own, so no other task's publish is taken for one of them.
_WATCHED: contextvars.ContextVar[set[int] | None] = contextvars.ContextVar("watched", default=None)


class Refusals:
    """The PUBACK reason code of each link state a connection publishes (``publish``). aiomqtt 2 ends
    a publish at its PUBACK whatever its reason code, so a refusal (MQTT 5 reason code 0x80 or more:
    0x87 Not authorized where the access rules deny the topic, 0x97 Quota exceeded) would pass for an
    acknowledgement (decision 0050); hooks on the paho client under it tell them apart: its
    ``publish`` notes the id of a publish being watched (``_WATCHED``), and its ``on_publish`` keeps
    the reason of a watched one's refusal before aiomqtt's own ends the publish."""

    def __init__(self, client: aiomqtt.Client) -> None:
        self._client = client
        self._watched: set[int] = set()
        self._refusals: dict[int, str] = {}
        paho = _paho(client)
        on_publish = paho.on_publish
        assert on_publish is not None, "aiomqtt sets it as it makes its client"
        self._paho_publish, self._paho_on_publish = paho.publish, on_publish
        paho.publish, paho.on_publish = self._published, self._acknowledged  # type: ignore[method-assign]

    async def publish(self, topic: str, payload: bytes) -> str | None:
        """``payload`` published retained at QoS 1 on ``topic``: the broker's reason for refusing it,
        or None once it acknowledged it."""
        mids: set[int] = set()
        token = _WATCHED.set(mids)
        try:
            await self._client.publish(topic, payload, qos=1, retain=True)
        finally:
            _WATCHED.reset(token)
            self._watched -= mids
        return next((self._refusals.pop(mid) for mid in mids if mid in self._refusals), None)

    def _published(self, *args: Any, **kwargs: Any) -> mqtt.MQTTMessageInfo:  # Any: paho's arguments
        info = self._paho_publish(*args, **kwargs)
        mids = _WATCHED.get()
        if mids is not None:
            mids.add(info.mid)
            self._watched.add(info.mid)
        return info

    def _acknowledged(self, *args: Any) -> None:  # Any: paho's on_publish (client, userdata, mid, ...)
        _client, _userdata, mid, reason_code, _properties = args
        if mid in self._watched and reason_code.is_failure:
            self._refusals[mid] = f"{reason_code} (reason code {reason_code.value:#04x})"
        self._paho_on_publish(*args)


def _paho(client: aiomqtt.Client) -> mqtt.Client:
    """The paho-mqtt client under ``client``, for its manual acknowledgement (``manual_ack_set``,
    ``ack``), which aiomqtt 2 does not expose: aiomqtt acknowledges a QoS 1 message as it queues it,
    before the floor has counted it, so a store failing then would lose it (decision 0036)."""
    return client._client


def _host_state(*, online: bool) -> bytes:
    return encode({"online": online, "timestamp": int(time.time() * 1000)})


@contextlib.asynccontextmanager
async def embedded_broker(host: str, port: int) -> AsyncIterator[None]:
    """The embedded amqtt broker on loopback, open to anyone there (decision 0036)."""
    try:
        from amqtt.broker import Broker
    except ImportError:
        raise StartupError("no broker configured ([floor] broker), and the embedded one needs amqtt: "
                           "pip install 'croupier[floor]'") from None  # fmt: skip
    broker = Broker(
        {
            "listeners": {"default": {"type": "tcp", "bind": f"{host}:{port}"}},
            "plugins": {"amqtt.plugins.authentication.AnonymousAuthPlugin": {"allow_anonymous": True}},
        }
    )
    try:
        await broker.start()
    except Exception as exc:  # amqtt's own error for a port taken or refused
        raise StartupError(
            f"embedded.bind: the embedded broker cannot listen on {host}:{port}: {exc}"
        ) from None
    log.info("embedded broker listening", address=f"{host}:{port}")
    try:
        yield
    finally:
        await broker.shutdown()
