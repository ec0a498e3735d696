"""Many tables through a real MQTT broker to the floor service: throughput, table-to-floor latency,
and nothing lost or counted twice across a restart of the broker mid-run (docs/floor.md,
docs/scale.md).

    python bench/floor.py [--tables N] [--pace X] [--seconds S]

N table publishers (default 200), each at X times a live table's pace (default 1: a round a minute,
so N times a live table's pace in all), publish for S seconds (default 60) through the broker to the
floor service, which counts every message into its store (SQLite, in a scratch directory). Halfway
through, the broker is stopped and started again on the same port.

The publishers are lighter than whole simulated tables, which 200 of would not fit on two cores (each
plays its devices over pseudo-terminals): each is the real floor link (croupier.floor_link:
FloorLink, its spool on disk with every message committed before the table goes on, its MQTT client,
its birth, will and counters) fed the events a table publishes, at the table's pace: each round's end
with one to six seats and their nets, a new trail head at every tenth round (a sealing epoch), a
dealer change now and then. A round makes two to four messages (the round, the counters, the state
and head when they change). The floor is the real floor service (floor.service) and store
(floor.store), with the time each message is counted noted beside it.

The broker is Mosquitto when installed (started here on a free loopback port with persistence, as
the shipped configuration keeps it, so the floor's session and what is queued for it outlive the
restart, and with Nagle's algorithm off, as shipped), else the embedded amqtt broker, which keeps no
session across its restart: what the tables publish after their return and before the floor's is
then lost, and counted as lost.

The tables run in this process (one event loop, their spools on one disk: on a floor each has its
own table PC), the floor service in a process of its own, as on its own server; beside the tables a
probe client times a QoS 1 message to its own subscription through the same broker every 0.2 s: the
broker's round trip, the baseline. The tables are switched on within the first ten seconds (or one
round's interval, when shorter), each at its own moment, once the floor is online (its session is
on the broker, as on a floor whose service has run once). Latency is from the moment the table made
the message (its ``at``, milliseconds) to the moment the floor counted it, left out of it the
messages made before every table had connected (each link's first messages, its spool's first
writes, each committed to disk one after the other in this one process) and those made within a
second of the restart, reported apart with the slowest. At the end each table stops feeding rounds
and waits for its spool to drain before its clean stop.

Prints messages per second, the latency median and p99, the broker's round trip, the floor
process's CPU time per message counted (its capacity, whatever the publishers' process costs this
machine), the messages lost
(made by a table and gone from its spool, never counted by the floor, which is given until
nothing more has come for ten seconds) and duplicated (counted twice: the store counts once by
table, spool and sequence number, so a message delivered twice is counted once and shown apart),
and, last, ``ratio=<latency p99 / broker round trip p99>``. Exit 1 when any was lost or duplicated;
2, with no ratio, when the run was too short to time a message past the start and away from the
restart (``n=0``: run longer, or at a faster pace).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import hashlib
import logging
import multiprocessing
import random
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

import aiomqtt
import structlog
from _common import percentile  # the bench directory is on sys.path when a script in it runs

from croupier.audit.head import Head
from croupier.commands.sim_floor import LIVE_ROUNDS_PER_HOUR
from croupier.config.floor_service import FloorServiceConfig, load_floor_config
from croupier.floor_link import BrokerSettings, FloorLink, Spool, Topics
from croupier.floor_link.publisher import PROTOCOLS, Broker
from croupier.tables.events import RoundEnded
from floor.service import FloorService, embedded_broker, floor_broker, stopped
from floor.store import Counted, Store
from vocabulary.events import Events

GROUP = "bench"
#: Seconds around the restart whose messages are reported apart from the steady latency.
AROUND = 1.0
#: Seconds within which the tables are switched on, each at its own moment.
STAGGER = 10.0
#: Seconds a table at the end of the run gives its spool to drain before it stops.
DRAIN = 30.0
#: Seconds with nothing more counted after which the floor takes what is uncounted as lost.
QUIET = 10.0
#: Seconds between two probes of the broker's round trip.
PROBE_EVERY = 0.2
#: The devices a table reports the links of, all ready.
LINKS = {"card-reader": "ready", "shoe": "ready", "shuffler": "ready"}
#: A seat's net in a round, in cents.
NETS = (-2500, -1000, -500, 0, 500, 1000, 1500)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


# -- the broker ---------------------------------------------------------------------------------
class Mosquitto:
    """A Mosquitto on a free loopback port, its persistence in ``directory``."""

    name, protocol = "Mosquitto", "5"

    def __init__(self, directory: Path) -> None:
        self.port, self.directory = free_port(), directory
        self.conf = directory / "mosquitto.conf"
        self.conf.write_text(
            f"listener {self.port} 127.0.0.1\nallow_anonymous true\npersistence true\n"
            f"persistence_location {directory}/\nautosave_interval 1\nmax_queued_messages 0\n"
            "set_tcp_nodelay true\n"
            f"log_dest file {directory}/mosquitto.log\n"
        )
        self.process: subprocess.Popen[bytes] | None = None

    async def start(self) -> None:
        self.process = subprocess.Popen(["mosquitto", "-c", str(self.conf)], stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 10
        while True:
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", self.port), 0.2):
                return
            assert self.process.poll() is None and time.monotonic() < deadline, "mosquitto did not start"
            await asyncio.sleep(0.05)

    async def stop(self) -> None:
        """A clean stop (SIGTERM), which saves what the broker holds, as a restart of the service does."""
        assert self.process is not None
        self.process.terminate()
        await asyncio.to_thread(self.process.wait, 10)


class Amqtt:
    """The embedded amqtt broker on a free loopback port, in this process."""

    name, protocol = "amqtt (embedded)", "3.1.1"

    def __init__(self, directory: Path) -> None:
        self.port = free_port()
        self._running: contextlib.AbstractAsyncContextManager[None] | None = None

    async def start(self) -> None:
        self._running = embedded_broker("127.0.0.1", self.port)
        await self._running.__aenter__()

    async def stop(self) -> None:
        assert self._running is not None
        await self._running.__aexit__(None, None, None)


def floor_config(directory: Path, broker: Mosquitto | Amqtt) -> Path:
    """The floor service's configuration: the broker as the user ``floor``, the store in ``directory``."""
    path = directory / "floor.toml"
    url = f"mqtt://127.0.0.1:{broker.port}"
    path.write_text(
        f'[floor]\nbroker = "{url}"\ngroup = "{GROUP}"\nusername = "floor"\nprotocol = "{broker.protocol}"\n'
        '[store]\npath = "floor.sqlite3"\n'
    )
    return path


# -- the floor, timed -----------------------------------------------------------------------------
class TimedStore(Store):
    """The floor's store, noting when each numbered message was counted and how long after the table
    made it, and each table and number counted."""

    def __init__(self, config: FloorServiceConfig) -> None:
        super().__init__(config.store)
        self.counted: Counter[tuple[str, int]] = Counter()
        self.timed: list[tuple[float, float]] = []  # (made, counted) in seconds since the epoch
        self.repeats = 0

    def numbered(self, table: str, kind: str, body: Mapping[str, Any]) -> Counted:  # Any: JSON fields
        counted = super().numbered(table, kind, body)
        now = time.time()
        if counted.counted:
            self.counted[table, body["seq"]] += 1
            self.timed.append((datetime.fromisoformat(body["at"]).timestamp(), now))
        else:
            self.repeats += 1
        return counted


# -- the tables ---------------------------------------------------------------------------------
@dataclass(frozen=True)
class Played:
    """A round as a table's listeners hear it at its end."""

    number: int
    nets: Mapping[int, int]
    state: str = "complete"

    @property
    def positions(self) -> Mapping[int, int]:
        return self.nets

    def net(self, seat: int) -> int:
        return self.nets[seat]


@dataclass
class BenchTable:
    """What the floor link reads of a table and its service: the events hub, the round count, the
    dealer, the devices' links, no devices latching faults, no progressive; open, waiting for nobody."""

    events: Events = field(default_factory=Events)
    rounds: int = 0
    dealer_on_duty: str = "D-1"
    equipment: tuple[()] = ()
    progressive: None = None
    game: str = "free-bet-blackjack"
    is_open: bool = True

    @property
    def table(self) -> BenchTable:  # the service's table is itself
        return self

    @property
    def feeds(self) -> BenchTable:
        return self

    def links(self) -> dict[str, str]:
        return dict(LINKS)

    def waiting_for(self) -> None:
        return None


@dataclass
class BenchTrail:
    head: Head | None = None


@dataclass
class Run:
    stop: asyncio.Event = field(default_factory=asyncio.Event)
    links: list[FloorLink] = field(default_factory=list)
    made: dict[str, int] = field(default_factory=dict)  # each table's last sequence number
    left: dict[str, int] = field(default_factory=dict)  # what each table's spool still held at its stop


async def table(name: str, settings: BrokerSettings, interval: float, run: Run, seed: int) -> None:
    """One table's floor link, started within STAGGER seconds (tables are not all switched on in the
    same second) and fed a round every ``interval`` seconds (give or take a fifth) until the run
    stops; then, once its spool is empty (DRAIN seconds at most), it dies as at a clean stop."""
    rng = random.Random(seed)
    await asyncio.sleep(rng.uniform(0, min(interval, STAGGER)))
    played, trail, spool = BenchTable(), BenchTrail(), Spool(settings.spool)
    try:
        link = FloorLink(settings, played, trail, spool)  # type: ignore[arg-type]  # what it reads of both
        async with link.running():
            run.links.append(link)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(run.stop.wait(), rng.uniform(0, interval))  # the rounds staggered
            while not run.stop.is_set():
                played.rounds += 1
                if played.rounds % 10 == 0:  # a new sealing epoch: a new head
                    digest = hashlib.sha256(f"{name}/{played.rounds}".encode()).hexdigest()
                    trail.head = Head(f"{name}-000001.jsonl", 40 * played.rounds, digest, played.rounds // 10)
                if rng.random() < 0.05:
                    played.dealer_on_duty = f"D-{rng.randint(1, 9)}"
                seats = rng.randint(1, 6)
                nets = {seat: rng.choice(NETS) for seat in range(1, seats + 1)}
                played.events.publish(RoundEnded(Played(played.rounds, nets)))
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(run.stop.wait(), interval * rng.uniform(0.8, 1.2))
            drained = time.monotonic() + DRAIN
            while len(spool) and time.monotonic() < drained:
                await asyncio.sleep(0.05)
        run.made[name], run.left[name] = spool.last_seq, len(spool)
    finally:
        spool.close()


async def probe(broker: Broker, stop: asyncio.Event, samples: list[tuple[float, float]]) -> None:
    """The broker's round trip: a QoS 1 message to this client's own subscription, every PROBE_EVERY
    seconds; each sample (when, seconds). Connects again while the broker restarts."""
    topic = f"bench/probe/{free_port()}"
    while not stop.is_set():
        try:
            async with aiomqtt.Client(broker.host, broker.port, protocol=broker.protocol) as client:
                await client.subscribe(topic, qos=1)
                messages = aiomqtt_messages(client)
                while not stop.is_set():
                    started = time.perf_counter()
                    await client.publish(topic, b"x", qos=1)
                    await asyncio.wait_for(anext(messages), 5)
                    samples.append((time.time(), time.perf_counter() - started))
                    await asyncio.sleep(PROBE_EVERY)
        except (aiomqtt.MqttError, TimeoutError):
            await asyncio.sleep(0.2)


async def aiomqtt_messages(client: aiomqtt.Client) -> AsyncIterator[aiomqtt.Message]:
    async for message in client.messages:
        yield message


# -- the floor's process -------------------------------------------------------------------------
@dataclass(frozen=True)
class Counts:
    """What the floor counted: each table and number (how many times), each message's times (made,
    counted) and the repeats dropped."""

    counted: Counter[tuple[str, int]]
    timed: list[tuple[float, float]]
    repeats: int
    cpu: float  # seconds of CPU the floor's process used once online


def floor_process(path: Path, pipe: Connection) -> None:
    """The floor service in a process of its own, as on its own server: says ``online`` once it is,
    and, given what each table made and still spooled, counts until all of it is counted or nothing
    more came for QUIET seconds, then sends its Counts."""
    quiet()
    asyncio.run(_floor(path, pipe))


async def _floor(path: Path, pipe: Connection) -> None:
    config = load_floor_config(path)
    store = TimedStore(config)
    try:
        floor = FloorService(config, floor_broker(config), store)
        hearing = asyncio.create_task(floor.run())
        await floor.connected.wait()
        pipe.send("online")
        cpu = time.process_time()  # from here: what hearing and counting cost, not starting up
        made: dict[str, tuple[int, int]] = await asyncio.to_thread(pipe.recv)
        heard, since = -1, time.monotonic()
        while uncounted(made, store.counted) and time.monotonic() - since < QUIET:
            if len(store.timed) != heard:
                heard, since = len(store.timed), time.monotonic()
            await asyncio.sleep(0.1)
        await stopped(hearing)
        pipe.send(Counts(store.counted, store.timed, store.repeats, time.process_time() - cpu))
    finally:
        store.close()


def uncounted(made: Mapping[str, tuple[int, int]], counted: Counter[tuple[str, int]]) -> int:
    """The messages the tables made (their last number, and how many they still spooled at their
    stop: the newest, which a spool keeps in number order and a table's next start delivers) that
    the floor has not counted."""
    return sum(
        counted[name, seq] == 0 for name, (last, left) in made.items() for seq in range(1, last - left + 1)
    )


# -- the run ------------------------------------------------------------------------------------
async def measure(tables: int, pace: float, seconds: float, directory: Path) -> int:
    broker = Mosquitto(directory) if shutil.which("mosquitto") else Amqtt(directory)
    path = floor_config(directory, broker)
    ours, theirs = multiprocessing.get_context("spawn").Pipe()
    floor = multiprocessing.get_context("spawn").Process(target=floor_process, args=(path, theirs))
    floor.start()
    await broker.start()
    run, rtt = Run(), []
    interval = 3600 / (LIVE_ROUNDS_PER_HOUR * pace)
    to_floor = floor_broker(load_floor_config(path))
    protocol = PROTOCOLS[broker.protocol]
    tasks = []
    try:
        probing = asyncio.create_task(probe(to_floor, run.stop, rtt))
        # The floor's session is on the broker before any table publishes, as on a floor whose
        # service has run once: what a table publishes while the floor is away is queued for it.
        assert await asyncio.to_thread(ours.recv) == "online"
        for number in range(1, tables + 1):
            name = f"B{number:04d}"
            login = Broker("127.0.0.1", broker.port, None, name, None, protocol, 10)
            spool = directory / "spools" / f"{name}.sqlite3"
            settings = BrokerSettings(login, Topics(GROUP, name), spool, None)  # no linked progressive
            tasks.append(asyncio.create_task(table(name, settings, interval, run, number)))
        started = time.time()
        while sum(link.connected for link in run.links) < tables:
            await asyncio.sleep(0.05)
        warm = time.time()  # every table connected, its first messages spooled
        await asyncio.sleep(max(0.0, started + seconds / 2 - time.time()))
        down = time.time()
        await broker.stop()
        await asyncio.sleep(1.0)
        await broker.start()
        up = time.time()
        while sum(link.connected for link in run.links) < tables:  # every table back
            await asyncio.sleep(0.05)
        back = time.time()
        await asyncio.sleep(max(0.0, started + seconds - time.time()))
        run.stop.set()
        await asyncio.gather(*tasks)
        ended = time.time()
        ours.send({name: (last, run.left[name]) for name, last in run.made.items()})
        counts: Counts = await asyncio.to_thread(ours.recv)
        probing.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await probing
    finally:
        run.stop.set()
        floor.join(10)
        if floor.exitcode is None:
            floor.kill()
        with contextlib.suppress(Exception):
            await broker.stop()

    made = sum(run.made.values())
    lost = uncounted({name: (last, run.left[name]) for name, last in run.made.items()}, counts.counted)
    duplicated = sum(count - 1 for count in counts.counted.values() if count > 1)
    window = (down - AROUND, back + AROUND)
    steady = [heard - at for at, heard in counts.timed if at >= warm and not window[0] <= at <= window[1]]
    around = [heard - at for at, heard in counts.timed if window[0] <= at <= window[1]]
    baseline = [seconds_ for when, seconds_ in rtt if when >= warm and not window[0] <= when <= window[1]]
    print(f"start: every table connected in {warm - started:.1f} s")
    print(
        f"broker: {broker.name} on 127.0.0.1:{broker.port}, stopped at {down - started:.1f} s, started again "
        f"{up - down:.1f} s later, every table back {back - up:.1f} s after that"
    )
    print(
        f"tables: {tables} floor links fed table events, each at {pace:g}x a live table's pace "
        f"({LIVE_ROUNDS_PER_HOUR} rounds an hour): {tables * pace:g}x in all"
    )
    print(f"messages: {made} made in {ended - started:.1f} s: {made / (ended - started):.1f} per second")
    print(f"table->floor latency: {timed(steady, 1)}   (n={len(steady)}, past the start and the restart)")
    print(f"broker round trip (QoS 1 to its own subscription): {timed(baseline, 2)}   (n={len(baseline)})")
    per_cpu = f"{len(counts.timed) / counts.cpu:.0f} a CPU-second" if counts.cpu else "no CPU time"
    print(f"floor: {len(counts.timed)} messages counted with {counts.cpu:.1f} s of CPU: {per_cpu}")
    if around:
        slowest = f"the slowest counted {max(around):.1f} s after it was made"
        print(f"around the restart: {len(around)} messages, {slowest}")
    left = sum(run.left.values())
    if left:
        print(f"still spooled at the stop, for the tables' next start: {left}")
    print(f"lost={lost} duplicated={duplicated} (delivered again and counted once: {counts.repeats})")
    if lost or duplicated:
        return 1
    if not steady or not baseline:
        print(
            "no ratio: no message made past the start and away from the restart, or no probe of the broker "
            f"there, in a run of {seconds:g} s (its tables switched on within the first "
            f"{min(interval, STAGGER):g} s); run longer (--seconds) or at a faster pace (--pace)",
            file=sys.stderr,
        )
        return 2
    print(f"ratio={percentile(steady, 0.99) / percentile(baseline, 0.99):.2f}")
    return 0


def timed(seconds: list[float], decimals: int) -> str:
    """The median and p99 of ``seconds`` in milliseconds, or that none were timed: a run too short
    for any message past the start and away from the restart has nothing to give one of."""
    if not seconds:
        return "none timed"
    middle, slow = statistics.median(seconds) * 1e3, percentile(seconds, 0.99) * 1e3
    return f"median {middle:.{decimals}f} ms   p99 {slow:.{decimals}f} ms"


def quiet() -> None:
    """Errors only: the clients' own notes of the broker going away are what the bench does."""
    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(logging.ERROR))
    for noisy in ("amqtt", "mqtt", "asyncio"):
        logging.getLogger(noisy).setLevel(logging.CRITICAL)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=200, help="table publishers (default 200)")
    parser.add_argument("--pace", type=float, default=1.0, help="each table's pace, times a live table's")
    parser.add_argument("--seconds", type=float, default=60.0, help="how long the tables publish")
    args = parser.parse_args()
    quiet()
    with tempfile.TemporaryDirectory(prefix="croupier-bench-floor-") as directory:
        return asyncio.run(measure(args.tables, args.pace, args.seconds, Path(directory)))


if __name__ == "__main__":
    raise SystemExit(main())
