"""The brokers and the floor the floor tests run against: a real Mosquitto started with the
shipped configuration and access rules (config/mosquitto/), the embedded amqtt broker, a test
floor that subscribes to every table and keeps every message it is given, in arrival order, and
the floor service itself (``croupier floor``) as a process."""

from __future__ import annotations

import asyncio
import contextlib
import getpass
import json
import re
import shutil
import signal
import socket
import ssl
import subprocess
import sys
import time
import urllib.request
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import aiomqtt
import trustme
from paho.mqtt.packettypes import PacketTypes
from paho.mqtt.properties import Properties

from croupier.config import DEFAULT_TABLE_CONFIG
from croupier.floor_link.messages import Schemas
from croupier.floor_link.payloads import checked
from firmware_sim.progressive import DEFAULT_LEVELS
from tests import debian

ROOT = Path(__file__).resolve().parents[2]
SHIPPED = ROOT / "config" / "mosquitto"
GROUP = "main"
#: The floor services' passwords, one per floor service (their username is their host name).
FLOORS = {"floor-1": "floor-1-secret", "floor-2": "floor-2-secret"}
#: The tables' passwords, one per table (their username is their name).
TABLES = {"T1": "t1-secret", "T2": "t2-secret"}
#: A table's spool identity, for the messages the tests make up.
SPOOL = "a" * 32
#: The progressive controller unit a table's link message names (its round's: devices.linked.Unit).
UNIT = {"vendor": "Acme", "model": "PC-1", "serial_number": "0001"}
#: What the floor was given: each message's topic and body, in arrival order.
Messages = list[tuple[str, dict[str, object]]]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def need_mosquitto() -> None:
    if shutil.which("mosquitto") is None or shutil.which("mosquitto_passwd") is None:
        debian.missing("mosquitto", "mosquitto is not installed")


#: The shipped configuration's TLS settings, left out for a plain listener.
_TLS = ("cafile", "certfile", "keyfile", "tls_version", "require_certificate", "use_identity_as_username")


class Mosquitto:
    """A Mosquitto on a free loopback port, laid out as Debian's: its mosquitto.conf including
    config/mosquitto/croupier.conf from conf.d, with the paths and the listener moved under
    ``directory``, and the shipped access rules with a block for ``floor-2`` beside the shipped one
    for ``floor-1``, made as the file says a property's second floor service is added."""

    def __init__(
        self, directory: Path, tls: trustme.CA | None = None, client_certificates: bool = False
    ) -> None:
        """``tls``: the listener speaks TLS only, as shipped, with a certificate ``tls`` issued;
        ``client_certificates``: every client logs in with a certificate ``tls`` issued, as its CN
        (the two settings the shipped configuration says to turn on for that)."""
        need_mosquitto()
        self.directory, self.port = directory, free_port()
        directory.mkdir(parents=True, exist_ok=True)
        passwords = directory / "passwd"
        for number, (user, password) in enumerate({**FLOORS, **TABLES}.items()):
            create = ["-c"] if number == 0 else []
            subprocess.run(["mosquitto_passwd", *create, "-b", str(passwords), user, password], check=True)
        moved = {
            "password_file": str(passwords),
            "acl_file": str(_with_second_floor(directory / "croupier.acl")),
            "listener": f"{self.port} 127.0.0.1",
        }
        if tls is not None:
            moved |= {name: str(directory / f"{name}.pem") for name in ("cafile", "certfile", "keyfile")}
            tls.cert_pem.write_to_path(moved["cafile"])
            issued = tls.issue_cert("127.0.0.1")
            issued.cert_chain_pems[0].write_to_path(moved["certfile"])
            issued.private_key_pem.write_to_path(moved["keyfile"])
        included = []
        for line in (SHIPPED / "croupier.conf").read_text().splitlines():
            key = line.split(" ", 1)[0]
            if tls is None and key in _TLS:
                continue
            if client_certificates and key in ("require_certificate", "use_identity_as_username"):
                line = f"{key} true"
            included.append(f"{key} {moved[key]}" if key in moved else line)
        (directory / "conf.d").mkdir(exist_ok=True)
        (directory / "conf.d" / "croupier.conf").write_text("\n".join(included) + "\n")
        self.conf = directory / "mosquitto.conf"
        self.conf.write_text(  # Debian's mosquitto.conf, under ``directory``
            f"user {getpass.getuser()}\n"  # root would drop to the mosquitto user, who cannot read here
            f"persistence true\npersistence_location {directory}/\ninclude_dir {directory}/conf.d\n"
        )
        self.process: subprocess.Popen[bytes] | None = None
        self.start()

    def start(self) -> None:
        with open(self.directory / "mosquitto.log", "ab") as out:
            self.process = subprocess.Popen(["mosquitto", "-c", str(self.conf)], stdout=out, stderr=out)
        deadline = time.monotonic() + 10
        while True:
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", self.port), 0.2):
                return
            assert self.process.poll() is None, (self.directory / "mosquitto.log").read_text()
            assert time.monotonic() < deadline, "mosquitto did not start listening"
            time.sleep(0.02)

    def stop(self) -> None:
        """SIGTERM: the broker saves what it holds to disk and exits, as a clean stop does."""
        assert self.process is not None
        self.process.terminate()
        self.process.wait()
        self.process = None

    def kill(self) -> None:
        """SIGKILL: the broker dies with no chance to tidy up, as in a crash."""
        assert self.process is not None
        self.process.kill()
        self.process.wait()
        self.process = None

    def close(self) -> None:
        if self.process is not None:
            self.kill()


def _with_second_floor(path: Path) -> Path:
    """The shipped access rules at ``path``, with the shipped floor service's block copied for
    ``floor-2``, its name changed in its first and last lines."""
    shipped = (SHIPPED / "croupier.acl").read_text()
    block = shipped[shipped.index("user floor-1\n") :].splitlines()
    second = [block[0].replace("floor-1", "floor-2"), *block[1:-1], block[-1].replace("floor-1", "floor-2")]
    path.write_text(shipped + "\n" + "\n".join(second) + "\n")
    return path


@contextlib.asynccontextmanager
async def amqtt_broker() -> AsyncIterator[int]:
    """The embedded amqtt broker on a free loopback port, open to anyone (as a developer runs it)."""
    from amqtt.broker import Broker

    port = free_port()
    broker = Broker(
        {
            "listeners": {"default": {"type": "tcp", "bind": f"127.0.0.1:{port}"}},
            "plugins": {"amqtt.plugins.authentication.AnonymousAuthPlugin": {"allow_anonymous": True}},
        }
    )
    await broker.start()
    try:
        yield port
    finally:
        await broker.shutdown()


@dataclass
class Floor:
    """The test's floor: subscribed to every table with a persistent session, so what the tables
    publish while it is away (the broker restarting) is queued for it; reconnects until stopped."""

    port: int
    protocol: aiomqtt.ProtocolVersion = aiomqtt.ProtocolVersion.V5
    username: str | None = "floor-1"
    password: str | None = FLOORS["floor-1"]
    identifier: str = "floor-under-test"
    tls: ssl.SSLContext | None = None
    messages: Messages = field(default_factory=list)
    subscribed: asyncio.Event = field(default_factory=asyncio.Event)

    async def run(self) -> None:
        first = True
        while True:
            v5 = self.protocol is aiomqtt.ProtocolVersion.V5
            props = Properties(PacketTypes.CONNECT) if v5 else None
            if props is not None:
                props.SessionExpiryInterval = 600
            try:
                async with aiomqtt.Client(
                    "127.0.0.1",
                    self.port,
                    identifier=self.identifier,
                    username=self.username,
                    password=self.password,
                    protocol=self.protocol,
                    clean_start=first if v5 else 3,  # 3: paho's "as clean_session says"
                    clean_session=None if v5 else first,
                    properties=props,
                    keepalive=5,
                    tls_context=self.tls,
                ) as client:
                    first = False
                    await client.subscribe("croupier/v1/#", qos=1)
                    self.subscribed.set()
                    async for message in client.messages:
                        assert isinstance(message.payload, bytes)
                        self.messages.append((str(message.topic), json.loads(message.payload)))
            except aiomqtt.MqttError:
                await asyncio.sleep(0.05)

    async def until(self, found: Callable[[Messages], bool], timeout: float) -> None:
        deadline = time.monotonic() + timeout
        while not found(self.messages):
            assert time.monotonic() < deadline, f"the floor was not given what it waited for: {self.kinds()}"
            await asyncio.sleep(0.02)

    def of(self, table: str, kind: str) -> list[dict[str, object]]:
        return [body for topic, body in self.messages if topic == f"croupier/v1/{GROUP}/table/{table}/{kind}"]

    def kinds(self) -> list[str]:
        return [topic.rsplit("/", 1)[1] for topic, _ in self.messages]


@contextlib.asynccontextmanager
async def floor_running(floor: Floor) -> AsyncIterator[Floor]:
    task = asyncio.create_task(floor.run())
    try:
        await asyncio.wait_for(floor.subscribed.wait(), 10)
        yield floor
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task


def data_in_order(messages: Messages, table: str) -> list[dict[str, object]]:
    """The table's numbered messages, each once, after checking what the floor relies on: a message
    given twice is the same message under the same number; counted once, the numbers run 1, 2, 3...
    with none missing and none out of order."""
    first: dict[int, dict[str, object]] = {}
    order: list[int] = []
    for topic, body in messages:
        if f"/table/{table}/" not in topic or "seq" not in body:
            continue
        seq = body["seq"]
        assert isinstance(seq, int)
        if seq in first:
            assert first[seq] == body, f"seq {seq} given twice with different bodies"
            continue
        first[seq] = body
        order.append(seq)
    assert order == list(range(1, len(order) + 1)), f"out of order or missing: {order}"
    return [first[seq] for seq in order]


VALIDATORS = Schemas().validators


def birth_body(
    as_of: int, spool: str = SPOOL, session: int = 1, table: str = "T1", held_from: int | None = None
) -> dict[str, object]:
    """A birth certificate of ``table`` as its schema has it, the table open with dealer D1; its spool
    holds from ``held_from`` (by default nothing: from the next number)."""
    return {
        "table": table, "session": session, "spool": spool, "as_of_seq": as_of,
        "held_from": as_of + 1 if held_from is None else held_from,
        "at": "2026-12-01T23:41:48.220+00:00", "game": "free-bet-blackjack", "rounds": 0,
        "state": {"status": "open", "reason": None, "dealer": "D1"}, "faults": [],
        "links": {"shoe": {"state": "ready", "last_error": None}}, "meters": None, "wagers_locked": None,
        "counters": counters_body(0),
        "head": {"file": f"{table}-000001.jsonl", "record": 3, "hash": "c" * 64, "epoch": None},
    }  # fmt: skip


def counters_body(rounds: int) -> dict[str, int]:
    return {"rounds": rounds, "rounds_per_hour": 60 * rounds, "hands": 2 * rounds, "faults_latched": 0,
            "held_rounds": 0, "voided_rounds": 0, "progressive_wagers": 0, "unspooled": 0}  # fmt: skip


def check_payloads(messages: Messages) -> None:
    """Every message on the floor's topics validates against its kind's schema
    (croupier/floor_link/schemas/), and none holds a card's face."""
    for topic, body in messages:
        levels = topic.split("/")
        kind = {"host": "host-state", "link": "link-state"}.get(levels[3], levels[-1])
        VALIDATORS[kind].validate(body)
        assert checked(body) == body, f"a card's face in {topic}: {body}"  # none withheld: none there


async def croupier_run(config: Path, *args: str) -> asyncio.subprocess.Process:
    """``croupier run`` as a process, its log in a file beside ``config`` (a pipe nobody reads
    until the end would fill and stop the table)."""
    with open(config.with_suffix(".log"), "ab") as log:
        return await asyncio.create_subprocess_exec(
            sys.executable, "-m", "croupier", "--log-json", "run", "--config", str(config), *args,
            cwd=ROOT, stdout=asyncio.subprocess.DEVNULL, stderr=log,
        )  # fmt: skip


def table_config(directory: Path, table: str, port: int, floor: str, config: str | None = None) -> Path:
    """The simulated table of config/tables/``config`` (the default one without) named ``table``, its
    state under ``directory``, publishing to the broker on ``port`` with the ``[floor]`` lines
    ``floor`` adds."""
    text = (DEFAULT_TABLE_CONFIG if config is None else ROOT / "config" / "tables" / config).read_text()
    text = re.sub(r"~/\.local/state/croupier/sim[\w-]*", str(directory / "state"), text)
    text = re.sub(r'^name = "[^"]*"', f'name = "{table}"', text, count=1, flags=re.MULTILINE)
    scheme = "mqtts" if "tls_ca" in floor else "mqtt"
    text += f'\n[floor]\nbroker = "{scheme}://127.0.0.1:{port}"\ngroup = "{GROUP}"\nkeepalive = 2\n{floor}\n'
    path = directory / f"{table}.toml"
    directory.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def with_password(directory: Path, table: str) -> str:
    """The ``[floor]`` line naming a file with ``table``'s password."""
    path = directory / f"{table}.password"
    path.write_text(TABLES[table] + "\n")
    return f'password_file = "{path}"'


@dataclass
class FloorService:
    """``croupier floor`` as a process: its configuration file and its view's address."""

    config: Path
    view: str

    token: str | None = None
    trust: ssl.SSLContext | None = None  # over HTTPS: the authority the view's certificate is from

    def tables(self) -> dict[str, dict[str, object]]:
        """Every table the floor view's data shows, by name."""
        return {table["table"]: table for table in self._read("tables")}

    def links(self) -> list[dict[str, Any]]:  # Any: the link's JSON fields
        """Every linked progressive the floor view's data shows."""
        return self._read("links")

    def _read(self, what: str) -> list[dict[str, Any]]:  # Any: the view's JSON fields
        headers = {} if self.token is None else {"Authorization": f"Bearer {self.token}"}
        request = urllib.request.Request(f"{self.view}/floor/v1/{what}", headers=headers)
        with urllib.request.urlopen(request, timeout=5, context=self.trust) as reply:
            return json.load(reply)[what]  # type: ignore[no-any-return]

    def until(self, found: Callable[[dict[str, dict[str, object]]], bool], timeout: float) -> None:
        deadline = time.monotonic() + timeout
        while not found(self.tables()):
            assert time.monotonic() < deadline, f"the floor did not show what was waited for: {self.tables()}"
            time.sleep(0.1)


def floor_config(
    directory: Path,
    broker: int | None,
    token: str | None = None,
    host: str = "floor-1",
    view_tls: trustme.CA | None = None,
) -> Path:
    """A floor service's configuration: the broker on port ``broker`` as the user ``host`` (a floor
    service's host name), or the embedded broker on a free port (``None``); its store and its view
    under ``directory``, the view asking for ``token`` when given, and served over HTTPS with a
    certificate from ``view_tls`` when given (its authority in ``view-ca.pem`` beside)."""
    directory.mkdir(parents=True, exist_ok=True)
    if broker is None:
        text = f'[embedded]\nbind = "127.0.0.1:{free_port()}"\n'
    else:
        (directory / "floor.password").write_text(FLOORS[host] + "\n")
        text = (
            f'[floor]\nbroker = "mqtt://127.0.0.1:{broker}"\ngroup = "{GROUP}"\nusername = "{host}"\n'
            f'password_file = "floor.password"\nkeepalive = 2\n'
        )
    text += '[store]\npath = "floor.sqlite3"\n[view]\n'
    if token is not None:
        (directory / "view-token").write_text(token + "\n")
        (directory / "view-token").chmod(0o600)
        text += 'token_file = "view-token"\n'
    if view_tls is not None:
        view_tls.cert_pem.write_to_path(directory / "view-ca.pem")
        issued = view_tls.issue_cert("127.0.0.1")
        issued.cert_chain_pems[0].write_to_path(directory / "view.pem")
        issued.private_key_pem.write_to_path(directory / "view.key")
        text += 'tls_cert = "view.pem"\ntls_key = "view.key"\n'
    text += f'bind = "127.0.0.1:{free_port()}"\n'
    path = directory / "floor.toml"
    path.write_text(text)
    return path


@contextlib.contextmanager
def floor_service(config: Path) -> Iterator[FloorService]:
    """``croupier floor --config config`` until its view answers; stopped with SIGTERM at the end,
    which must exit 0."""
    bind = re.search(r'bind = "(127\.0\.0\.1:\d+)"\n\Z', config.read_text())
    assert bind is not None
    token, ca = config.parent / "view-token", config.parent / "view-ca.pem"
    trust = ssl.create_default_context(cafile=ca) if ca.exists() else None
    service = FloorService(
        config,
        f"{'http' if trust is None else 'https'}://{bind[1]}",
        token.read_text().strip() if token.exists() else None,
        trust,
    )
    log = config.with_suffix(".log")
    with log.open("ab") as err:
        process = subprocess.Popen(
            [sys.executable, "-m", "croupier", "--log-json", "floor", "--config", str(config)],
            cwd=ROOT, stdout=subprocess.DEVNULL, stderr=err,
        )  # fmt: skip
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                service.tables()
                break
            except OSError:
                assert process.poll() is None, log.read_text()
                assert time.monotonic() < deadline, "the floor service did not come up"
                time.sleep(0.1)
        yield service
    finally:
        process.send_signal(signal.SIGTERM)
        process.communicate(timeout=30)
    assert process.returncode == 0, log.read_text()


RATES = {1: 500, 2: 100}  # basis points of each progressive wager
RESETS = {1: 100_000, 2: 5_000}
#: The link's limits: the simulated controller's own, the most a floor's limit may be (docs/floor.md).
LIMITS = {number: level.limit_cents for number, level in enumerate(DEFAULT_LEVELS, 1)}
#: Lines that hit often, so a short run sees hits; every line pays level 1, so level 2 only grows.
PAY_TABLE = '[rules.progressive_pay_table]\nthree_of_a_kind = "100%"\ntwo_pairs = "100%"\n'


def linked_table(directory: Path, name: str, port: int, login: str | None = None, hits: bool = True) -> Path:
    """Simulated Crazy 4 Poker table ``name`` on the link ``c4p`` at RATES, its pay table hitting
    often (``hits``; else the shipped one's, which hardly do), logging in with ``login`` (by default
    its password and the broker's CA)."""
    link = "\n".join(f"{level} = {rate}" for level, rate in RATES.items())
    if login is None:
        login = f'{with_password(directory, name)}\ntls_ca = "{directory / "ca.pem"}"'
    floor = f'{login}\n[floor.link]\nid = "c4p"\nheard_within = 3\n[floor.link.levels]\n{link}\n'
    config = table_config(directory / name, name, port, floor, "simulated-crazy-4-poker.toml")
    pay_table = r"\[rules\.progressive_pay_table\]\n(?:[^\[\n].*\n|\n)*"
    if hits:
        config.write_text(re.sub(pay_table, PAY_TABLE + "\n", config.read_text()))
    return config


def linked_floor(directory: Path, port: int | None, tables: tuple[str, ...] = ("T1", "T2")) -> Path:
    """The floor with the link ``c4p`` of ``tables``: on the Mosquitto on ``port`` over TLS, or its
    embedded broker on a free port."""
    levels = "".join(
        f"[links.c4p.levels.{level}]\nrate_bp = {rate}\nreset_cents = {RESETS[level]}\n"
        f"limit_cents = {LIMITS[level]}\n"
        for level, rate in RATES.items()
    )
    if port is None:
        broker = f'[embedded]\nbind = "127.0.0.1:{free_port()}"\n'
    else:
        (directory / "floor.password").write_text(FLOORS["floor-1"] + "\n")
        broker = (
            f'[floor]\nbroker = "mqtts://127.0.0.1:{port}"\ngroup = "{GROUP}"\nusername = "floor-1"\n'
            f'password_file = "floor.password"\ntls_ca = "ca.pem"\nkeepalive = 2\n'
        )
    config = directory / "floor.toml"
    config.write_text(
        f'{broker}[store]\npath = "floor.sqlite3"\n[view]\nbind = "127.0.0.1:{free_port()}"\n'
        f"[links.c4p]\ntables = {json.dumps(list(tables))}\nheartbeat = 0.5\n{levels}"
    )
    return config
