"""The table's link to the casino floor: what it publishes, spooled, then delivered (decision 0035).

``FloorLink`` is a listener of the table's events hub and of its devices' fault latches (decision
0031), as the API's event stream is; it is not a durable listener: the table plays on whatever
becomes of the floor. Every message it makes (a state change, a round's summary, a fault latched or
released, a device link's change, the progressive's meters, the audit trail's head at each sealing
epoch) goes first to the spool on the table PC (croupier.floor_link.spool), numbered in the table's
sequence, and the table goes on; one the spool's disk refuses latches SPOOL_UNWRITTEN, which holds
the table until a supervisor clears it, and is counted for the floor (``_unspooled``). A sender task
delivers the spool in sequence order with QoS 1 when the broker is there, the broker's
acknowledgement (PUBACK) pacing a window of WINDOW messages, and waits for it, retrying, when it is
not: the table never waits on the broker. A message leaves the spool only once a floor service
confirmed it counted it (``cmd/counted``): the broker acknowledges before the message is on its
disk, and one that crashes loses what it acknowledged last (decision 0035). So on each connection,
on each request for a new birth, and when the confirmations lag CONFIRM_WAIT seconds (doubling, up
to CONFIRM_WAIT_MOST, while nothing is confirmed), the table sends again from the first message
unconfirmed; the floor counts a message delivered twice once.

Each connection begins with the table's birth certificate (its whole state as of a sequence number,
so a floor that missed messages can rebuild it) and sets the table's death certificate as its MQTT
will, which the broker sends when the table goes dark; a clean stop sends it itself. The floor asks
for a new birth on the table's ``cmd/rebirth`` topic, or by announcing itself online on its host
state topic, as Sparkplug B's host applications do, and hears on ``cmd/counted`` what the floor
counted. Nothing else from the floor is read.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import socket
import ssl
import time
from collections.abc import AsyncIterator, Iterator, Mapping
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

import aiomqtt
import structlog
from paho.mqtt.packettypes import PacketTypes
from paho.mqtt.properties import Properties

from croupier.audit.writer import AuditTrail
from croupier.config import FloorConfig, TableConfig
from croupier.config.linked import TableLink
from croupier.errors import StartupError
from croupier.floor_link import payloads
from croupier.floor_link.counters import Counters
from croupier.floor_link.linked import SpoolSender, void_unsent
from croupier.floor_link.messages import Schemas
from croupier.floor_link.spool import Spool, encode
from croupier.floor_link.topics import Topics
from croupier.service.table_service import TableService
from croupier.state import StateError
from croupier.tables.events import RoundEnded
from croupier.tables.feeding import DeviceEventApplied
from devices.faults import SPOOL_UNWRITTEN, SPOOL_UNWRITTEN_CODE, Fault, FaultLatched, FaultReleased
from devices.linked import LinkedLevels, Unspooled
from drivers.connection import StateChanged
from vocabulary.events import Event, Events, Listener

log = structlog.get_logger("croupier.floor")

#: Seconds before the first reconnection, and the most between two.
RETRY_FIRST, RETRY_MOST = 0.2, 5.0  # the floor service reconnects alike (floor.service)
#: Messages in flight at once, awaiting their PUBACK.
WINDOW = 64
#: Seconds a message waits for its PUBACK before the connection is taken for lost.
PUBACK_WAIT = 10.0
#: Seconds without a confirmation of what was sent before it is sent again, and the most that
#: doubles to while no floor service confirms anything (none running: the spool grows, warned of).
CONFIRM_WAIT, CONFIRM_WAIT_MOST = 30.0, 900.0
#: Seconds between two looks at what no event announces (a supervisor opening or closing the
#: table, the trail's sealing epoch moving on while the table is idle).
WATCH = 1.0
#: Seconds a clean stop gives the spool to be sent and confirmed before the death certificate is sent.
FLUSH = 2.0
#: Seconds between two counters messages when no count changed: the pace (rounds per hour) moves on.
COUNTERS_EVERY = 60.0

PROTOCOLS = {"5": aiomqtt.ProtocolVersion.V5, "3.1.1": aiomqtt.ProtocolVersion.V311}


@dataclass(frozen=True)
class Broker:
    """Where a broker is and how one client logs in to it, read and checked at start-up: the table's
    link and the floor service connect alike."""

    host: str
    port: int
    tls: ssl.SSLContext | None
    username: str | None
    password: str | None
    protocol: aiomqtt.ProtocolVersion
    keepalive: int

    @property
    def v5(self) -> bool:
        return self.protocol is aiomqtt.ProtocolVersion.V5

    def client(
        self, identifier: str, will: aiomqtt.Will, **session: Any  # Any: aiomqtt.Client's own options
    ) -> aiomqtt.Client:
        """A client of this broker under ``identifier``, with ``will``; ``session``: the client's
        own session and timing options. Its socket sends each packet at once (``TCP_NODELAY``):
        with Nagle's algorithm a packet written while the one before it was not yet acknowledged
        waited for the broker's delayed acknowledgement, some 40 ms, so the floor service, which
        acknowledges a birth and then publishes its confirmation, heard a few dozen births a second
        when every table came back after a broker restart, and what they sent next waited behind
        them (docs/scale.md)."""
        return aiomqtt.Client(
            self.host,
            self.port,
            identifier=identifier,
            username=self.username,
            password=self.password,
            protocol=self.protocol,
            will=will,
            keepalive=self.keepalive,
            tls_context=self.tls,
            socket_options=((socket.IPPROTO_TCP, socket.TCP_NODELAY, 1),),
            **session,
        )


@dataclass(frozen=True)
class BrokerSettings:
    """The table's broker, its topics and its spool."""

    broker: Broker
    topics: Topics
    spool: Path
    link: TableLink | None  # the linked progressive the table's levels are on (decision 0039)


def broker_settings(config: TableConfig) -> BrokerSettings | None:
    """The floor link's settings, or None when the configuration names no broker. Read before
    anything is opened: a password file or TLS file that cannot be read stops the start-up here."""
    floor = config.floor
    if floor is None:
        return None
    password, tls = credential(config.source, floor)
    broker = Broker(
        host=floor.host,
        port=floor.port,
        tls=tls,
        username=floor.username or config.name,
        password=password,
        protocol=PROTOCOLS[floor.protocol],
        keepalive=floor.keepalive,
    )
    return BrokerSettings(
        broker=broker,
        topics=Topics(floor.group, config.name),
        spool=floor.spool or config.service.state_db.parent / f"floor-{config.name}.sqlite3",
        link=floor.link,
    )


def credential(source: Path, floor: FloorConfig) -> tuple[str | None, ssl.SSLContext | None]:
    """The password in ``floor.password_file`` and the TLS context ``floor`` asks for (each None
    without), read from the files now: one that cannot be read is a StartupError naming the key
    in ``source``. A table's link and the floor service read theirs alike."""
    password = None
    if floor.password_file is not None:
        try:
            password = floor.password_file.read_text(encoding="utf-8").strip()
        except (OSError, UnicodeDecodeError) as exc:
            raise StartupError(f"{source}: floor.password_file: {floor.password_file}: {exc}") from None
    tls = None
    if floor.tls:
        try:
            tls = ssl.create_default_context(cafile=floor.tls_ca)
        except (OSError, ssl.SSLError) as exc:
            raise StartupError(f"{source}: floor.tls_ca: {floor.tls_ca}: {exc}") from None
        tls.minimum_version = ssl.TLSVersion.TLSv1_2
        if floor.tls_cert is not None and floor.tls_key is not None:
            try:
                tls.load_cert_chain(floor.tls_cert, floor.tls_key)
            except (OSError, ssl.SSLError) as exc:
                where = f"{floor.tls_cert} (key {floor.tls_key})"
                raise StartupError(f"{source}: floor.tls_cert: {where}: {exc}") from None
    return password, tls


def open_spool(settings: BrokerSettings) -> Spool:
    """The table's floor spool, opened (made on first use); one that cannot be opened (not a spool,
    a newer schema, a disk that refuses it) is a StartupError naming the file. ``croupier run`` opens
    it once before the state database and the trail, among the start-up checks (docs/install.md), and
    closes it again: the table must not play rounds it cannot owe the floor."""
    with _spool_refused():
        return Spool(settings.spool)


@contextlib.contextmanager
def _spool_refused() -> Iterator[None]:
    """A spool that cannot be opened or read stops the start-up: its StateError as a StartupError."""
    try:
        yield
    except StateError as exc:
        raise StartupError(f"the floor spool: {exc}") from None


@contextlib.asynccontextmanager
async def publishing(
    settings: BrokerSettings | None, service: TableService, trail: AuditTrail
) -> AsyncIterator[FloorLink | None]:
    """Publish the table to the floor while the block runs, when ``settings`` name a broker; on the
    way out the spool is given FLUSH seconds to drain and the death certificate is sent. A spool
    that cannot be opened or read (not a spool, a newer schema, a disk that refuses it) stops the
    start-up with a StartupError naming the file: the table must not play rounds it cannot owe."""
    if settings is None:
        yield None
        return
    spool = open_spool(settings)
    try:
        with _spool_refused():
            link = FloorLink(settings, service, trail, spool)
        async with link.running():
            yield link
    finally:
        spool.close()


class FloorLink:
    """One table's messages to the floor: heard, spooled, delivered."""

    def __init__(
        self, settings: BrokerSettings, service: TableService, trail: AuditTrail, spool: Spool
    ) -> None:
        self.settings, self.service, self.trail, self.spool = settings, service, trail, spool
        self.table: Any = service.table  # Any: a table of any game
        self.topics = settings.topics
        self.connected = False
        self._wake = asyncio.Event()  # something to send: a message spooled, a rebirth, the stop
        self._rebirth = asyncio.Event()
        self._stopping = asyncio.Event()
        self._dead = asyncio.Event()  # the death certificate was sent at a clean stop
        self._born_at = 0.0  # when the last birth was sent, in seconds since the epoch
        self._sent = 0  # the last number sent on this connection and acknowledged by the broker
        self._confirmed_at = time.monotonic()  # when the floor last confirmed more, or this connection began
        self._confirm_wait = CONFIRM_WAIT
        self._last: dict[str, object] = {}  # the state, meters and head last spooled
        self._last_error: dict[str, str | None] = {}  # each device's last link error heard
        self._latches: list[tuple[Events, Listener]] = []  # each latch's hub and the listener on it
        self.counters = Counters(spool.totals(), time.monotonic())
        self.linked: LinkedLevels | None = None
        link = settings.link
        if link is not None:  # a table with a progressive (croupier.config.table)
            sender = SpoolSender(self, spool, link.id)
            self.linked = LinkedLevels(self.topics.table, link.id, link.rates, link.heard_within, sender)
            self.table.progressive.attach(self.linked)
            if void_unsent(trail.files()):  # a void a stop lost: sent once the controller is read
                self.table.progressive.voided()

    # -- what the table does ------------------------------------------------------------------
    def __call__(self, event: Event, /) -> None:
        """One event of the table's hub: a round ended, a device's link changed; every one counted."""
        self.counters.heard(event, time.monotonic())
        match event:
            case RoundEnded(round=round_):
                self._spool("round", payloads.round_summary(round_))
            case DeviceEventApplied(device=device, event=StateChanged(state=state, reason=reason)):
                if reason:
                    self._last_error[device] = reason
                self._spool("link", {"device": device, "state": state.value, "reason": reason or None})
        self.look()

    def _latch_heard(self, device: str, event: Event) -> None:
        match event:
            case FaultLatched(fault=latched):
                self.counters.latched(device, latched.code)
                self._spool("fault", payloads.fault("latched", device, latched))
            case FaultReleased(fault=released):
                self.counters.released(device, released.code)
                self._spool("fault", payloads.fault("released", device, released))
        self.look()

    def look(self) -> None:
        """Spool the table's state, its meters, its counters and its trail's head where they changed
        since last spooled: the counters at each round's end (not as a round begins and the table's
        round number moves on) and every COUNTERS_EVERY seconds, the head once per sealing epoch (and
        per file of an unsealed trail)."""
        self._changed("state", payloads.table_state(self.service))
        now = time.monotonic()
        counters = self.counters.body(self.table.rounds, now)
        key = (self.counters.moved(), int((now - self.counters.started) // COUNTERS_EVERY))
        self._changed("counters", counters, key=key, totals=self.counters.kept())
        meters = payloads.meters(self.table)
        if meters is not None:
            self._changed("meter", {"levels": meters, "wagers_locked": self._wagers_locked()})
        head = payloads.head(self.trail.head)
        if head is not None:
            self._changed("head", head, key=(head["file"], head["epoch"]))

    def _changed(
        self,
        kind: str,
        body: Mapping[str, object],
        key: object = None,
        totals: Mapping[str, int] | None = None,
    ) -> None:
        seen = body if key is None else key
        if self._last.get(kind) != seen and self._spool(kind, body, totals, again=True):
            self._last[kind] = seen

    def wake(self) -> None:
        """Something was spooled: the sender delivers it."""
        self._wake.set()

    def _spool(
        self,
        kind: str,
        body: Mapping[str, object],
        totals: Mapping[str, int] | None = None,
        *,
        again: bool = False,
    ) -> bool:
        """Spool one message; whether it is on disk. One the spool cannot take is not lost quietly
        (``_unspooled``); ``again``: the next look spools it, as it then is (the state, the meters,
        the counters, the head), so it is not counted as lost."""
        plain = payloads.checked(body)
        at = payloads.now()
        try:
            self.spool.append(
                self.topics.of(kind),
                lambda seq: {"table": self.topics.table, "seq": seq, "at": at, **plain},
                totals,
            )
        except StateError as exc:
            self._unspooled(kind, str(exc), again)
            return False
        self._wake.set()
        return True

    def _unspooled(self, kind: str, reason: str, again: bool) -> None:
        """The spool's disk refused a message (full, read-only, failing). The table does not play on
        unseen: SPOOL_UNWRITTEN latches on its first device, holding the table (and its round in
        play) until a supervisor clears it, as a fault the trail records; a message nothing will
        send again counts in ``unspooled``, which the next counters message spooled tells the
        floor, so the floor sees the gap (decision 0035)."""
        log.error("floor link: a message for the floor could not be spooled", kind=kind, reason=reason)
        if not again:
            self.counters.unspooled()
        detail = f"a {kind} message for the floor could not be spooled: {reason}"
        unwritten = Fault(SPOOL_UNWRITTEN_CODE, detail, SPOOL_UNWRITTEN.clause, "host")
        self.table.equipment[0].latch.latch(unwritten)

    # -- the birth and death certificates -----------------------------------------------------
    def birth(self, session: int) -> payloads.Body:
        """The table's whole state as of the last message spooled (``as_of_seq``): a floor that
        rebuilds from it takes the spooled messages numbered up to there as history. ``held_from``,
        the first number the spool still holds, tells the floor where the messages it is sent again
        begin: a floor that counted less than the number below it counts the rest as a gap."""
        links = self.table.feeds.links()
        return payloads.checked(
            {
                "table": self.topics.table,
                "session": session,
                "spool": self.spool.identity,
                "as_of_seq": self.spool.last_seq,
                "held_from": self.spool.held_from,
                "at": payloads.now(),
                "game": self.service.game,
                "rounds": self.table.rounds,
                "state": payloads.table_state(self.service),
                "faults": payloads.faults(self.table),
                "links": {
                    name: {"state": state, "last_error": self._last_error.get(name)}
                    for name, state in sorted(links.items())
                },
                "meters": payloads.meters(self.table),
                "wagers_locked": self._wagers_locked(),
                "counters": self.counters.body(self.table.rounds, time.monotonic()),
                "head": payloads.head(self.trail.head),
            }
        )

    def _wagers_locked(self) -> str | None:
        """Why the table refuses its progressive wagers now, for the floor view: a linked
        progressive's link lost or not reconciled, or a hit locking a linked level (decision 0039);
        None while they are taken."""
        return None if self.linked is None else self.linked.refusal()

    def death(self, session: int, reason: str) -> bytes:
        """The death certificate of connection ``session``: ``lost`` as the will the broker sends,
        ``stopped`` when the table stops cleanly."""
        return encode(payloads.checked({"table": self.topics.table, "session": session, "reason": reason}))

    # -- delivery -----------------------------------------------------------------------------
    @contextlib.asynccontextmanager
    async def running(self) -> AsyncIterator[None]:
        """Hear the table and deliver while the block runs; then drain, die cleanly, stop."""
        self.table.events.subscribe(self)
        for machine in self.table.equipment:
            heard: Listener = partial(self._latch_heard, machine.name)
            machine.latch.events.subscribe(heard)
            self._latches.append((machine.latch.events, heard))
        self.counters.found((m.name, f.code) for m in self.table.equipment for f in m.latch.faults)
        self.look()
        tasks = [
            asyncio.create_task(self._deliver(), name="floor-deliver"),
            asyncio.create_task(self._watch(), name="floor-watch"),
        ]
        try:
            yield
        finally:
            self.table.events.unsubscribe(self)
            for hub, listener in self._latches:
                hub.unsubscribe(listener)
            self._stopping.set()
            self._wake.set()
            # Connected, the spool gets FLUSH seconds to drain and the death its PUBACK; connecting
            # (a short run), FLUSH seconds in all; the broker away, the stop waits no longer.
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._dead.wait(), FLUSH + (PUBACK_WAIT if self.connected else 0))
            for task in tasks:
                task.cancel()
            for task in tasks:
                with contextlib.suppress(asyncio.CancelledError):
                    await task

    async def _watch(self) -> None:
        while True:
            await asyncio.sleep(WATCH)
            try:
                self.look()
                if self.linked is not None:
                    self.linked.look()
            except (StateError, Unspooled):  # as a listener's failure (vocabulary.events): logged, on
                log.exception("floor link: the spool could not be written or read")

    async def _deliver(self) -> None:
        """Connect, deliver, and connect again whenever the broker goes, for as long as the table runs."""
        delay, down_since = RETRY_FIRST, time.monotonic()
        while True:
            try:
                session = self.spool.next_session()
                async with self._client(session) as client:
                    self.connected, delay = True, RETRY_FIRST
                    log.info(
                        "floor link up",
                        broker=f"{self.settings.broker.host}:{self.settings.broker.port}",
                        session=session,
                        spooled=len(self.spool),
                        down=round(time.monotonic() - down_since, 1),
                    )
                    async with asyncio.TaskGroup() as tasks:
                        tasks.create_task(self._hear(client))
                        tasks.create_task(self._send(client, session))
            except* (aiomqtt.MqttError, OSError) as lost:
                if self.connected:
                    down_since = time.monotonic()
                    log.warning(
                        "floor link down: spooling", reason=str(lost.exceptions[0]), spooled=len(self.spool)
                    )
                elif delay == RETRY_FIRST:
                    log.warning("floor broker unreachable: spooling", reason=str(lost.exceptions[0]))
            except* (StateError, Unspooled) as unusable:  # the spool's disk: tried again, the table goes on
                log.error("floor link: the spool cannot be used", reason=str(unusable.exceptions[0]))
            except* Exception:  # as any listener's failure (vocabulary.events): its own, the table goes on
                log.exception("floor link failed: trying again")
            self.connected = False
            await asyncio.sleep(delay)
            delay = min(delay * 2, RETRY_MOST)

    def _client(self, session: int) -> aiomqtt.Client:
        broker = self.settings.broker
        props = json_props(broker.v5, PacketTypes.WILLMESSAGE)
        will = aiomqtt.Will(self.topics.of("death"), self.death(session, "lost"), qos=1, properties=props)
        clean = None if broker.v5 else True
        return broker.client(f"croupier-{self.topics.table}", will, clean_session=clean, timeout=PUBACK_WAIT)

    async def _send(self, client: aiomqtt.Client, session: int) -> None:
        """The birth, then the spool in sequence order from its first message unconfirmed, each
        batch's acknowledged prefix taken as sent; at a clean stop, once everything is sent and
        confirmed or FLUSH has passed, the death (what is unconfirmed stays in the spool for the next
        run)."""
        props = json_props(self.settings.broker.v5, PacketTypes.PUBLISH)
        self._sent, self._confirmed_at = 0, time.monotonic()  # from the first message unconfirmed
        await self._born(client, session, props)
        flush_until: float | None = None
        while True:
            self._wake.clear()
            if self._rebirth.is_set():  # the floor missed something: the birth, and all unconfirmed
                self._rebirth.clear()
                self._sent = 0
                await self._born(client, session, props)
            self._resend_if_unconfirmed()
            batch = self.spool.pending(self._sent, WINDOW)
            wait = self._confirm_wait
            if self._stopping.is_set():
                flush_until = flush_until or time.monotonic() + FLUSH
                wait = flush_until - time.monotonic()
                if (not batch and not self._outstanding()) or wait < 0:
                    await client.publish(
                        self.topics.of("death"), self.death(session, "stopped"), 1, properties=props
                    )
                    self._dead.set()
                    return
            if not batch:
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self._wake.wait(), wait)
                continue
            if not self._outstanding():  # the wait for a confirmation starts with this batch
                self._confirmed_at = time.monotonic()
            sent = await asyncio.gather(
                *(client.publish(m.topic, m.payload, 1, properties=props) for m in batch),
                return_exceptions=True,
            )
            acknowledged = next((i for i, result in enumerate(sent) if result is not None), len(batch))
            if acknowledged:
                self._sent = batch[acknowledged - 1].seq
            if acknowledged < len(batch):
                failed = sent[acknowledged]
                raise failed if isinstance(failed, BaseException) else aiomqtt.MqttError(str(failed))

    def _resend_if_unconfirmed(self) -> None:
        """What was sent but not confirmed for ``_confirm_wait`` seconds is sent again: the broker
        may have lost it, or no floor service was there to count it."""
        if not self._outstanding() or time.monotonic() - self._confirmed_at < self._confirm_wait:
            return
        log.warning(
            "floor link: no floor service confirmed what was sent: sending it again",
            unconfirmed=len(self.spool),
            waited=round(time.monotonic() - self._confirmed_at),
        )
        self._sent, self._confirmed_at = 0, time.monotonic()
        self._confirm_wait = min(self._confirm_wait * 2, CONFIRM_WAIT_MOST)

    def _outstanding(self) -> bool:
        """Whether a message sent on this connection still waits for its confirmation."""
        first = self.spool.pending(0, 1)
        return bool(first) and first[0].seq <= self._sent

    def _counted(self, payload: object) -> None:
        """A floor service's confirmation: every message of this spool up to ``seq`` is counted and
        leaves the spool; one for another spool (this table's before its spool was replaced) or one
        that cannot be read is skipped."""
        try:
            body = json.loads(payload if isinstance(payload, bytes | str) else b"")
            spool, through = body["spool"], body["seq"]
        except (ValueError, KeyError, TypeError) as exc:
            log.error("floor link: a confirmation that cannot be read", reason=repr(exc))
            return
        if spool != self.spool.identity or not isinstance(through, int):
            return
        before = len(self.spool)
        self.spool.confirmed(through)
        if len(self.spool) < before:
            self._confirmed_at, self._confirm_wait = time.monotonic(), CONFIRM_WAIT
            self._wake.set()  # a clean stop waits for this

    async def _born(self, client: aiomqtt.Client, session: int, props: Properties | None) -> None:
        self._born_at = time.time()
        await client.publish(self.topics.of("birth"), encode(self.birth(session)), 1, properties=props)

    async def _hear(self, client: aiomqtt.Client) -> None:
        """The floor's requests for a new birth: on ``cmd/rebirth``, or a floor service announcing
        itself online after this table's last birth."""
        await client.subscribe(self.topics.rebirth, qos=1)
        await client.subscribe(self.topics.counted, qos=1)
        await client.subscribe(self.topics.host_states, qos=1)
        linked = self.linked
        link_topic = None if linked is None else self.topics.link_state(linked.link)
        schemas = Schemas() if linked is not None else None
        if link_topic is not None:
            await client.subscribe(link_topic, qos=1)
        async for message in client.messages:
            if (
                linked is not None
                and schemas is not None
                and link_topic is not None
                and message.topic.matches(link_topic)
            ):
                _link_heard(linked, message, schemas)
                continue
            if message.topic.matches(self.topics.counted):
                self._counted(message.payload)
                continue
            if message.topic.matches(self.topics.host_states) and not _came_online_after(
                message.payload, self._born_at
            ):
                continue
            self._rebirth.set()
            self._wake.set()


def _link_heard(linked: LinkedLevels, message: aiomqtt.Message, schemas: Schemas) -> None:
    """The link controller's state for this table, checked against the floor's own schema
    (link-state) and its amounts against the levels (LinkedLevels.heard); one refused is logged and
    the link is not heard (the progressive wagers lock) until a state is taken. Its MQTT retain flag
    is set only on the broker's copy handed over at subscribe (the table subscribes without
    retain-as-published): that one is judged by its age, a live one is heard now. A spool that cannot
    be read puts off the look the state starts (the watch looks every second), rather than ending
    the broker connection over the table's own disk."""
    try:
        linked.heard(schemas.read("link-state", message.payload), retained=bool(message.retain))
    except ValueError as exc:  # Malformed, or an amount its level could not hold
        log.error("floor link: the link controller's state refused", reason=str(exc))
        linked.refused(str(exc))
    except Unspooled as exc:  # the state is taken; its look waits for the watch's next, a second on
        log.error("floor link: the spool cannot be read: the link's look put off", reason=str(exc))


def _came_online_after(payload: object, born_at: float) -> bool:
    """A host state (``{"online": true, "timestamp": MILLISECONDS}``) newer than the last birth."""
    try:
        state = json.loads(payload if isinstance(payload, bytes | str) else b"")
    except ValueError:
        return False
    if not isinstance(state, dict) or state.get("online") is not True:
        return False
    stamp = state.get("timestamp")
    return isinstance(stamp, int | float) and stamp / 1000 > born_at


def json_props(v5: bool, packet: int) -> Properties | None:
    """MQTT 5 names each payload's content type; MQTT 3.1.1 has no properties."""
    if not v5:
        return None
    props = Properties(packet)
    props.ContentType = "application/json"
    return props
