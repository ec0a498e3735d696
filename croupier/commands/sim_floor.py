"""``croupier sim --floor --tables N``: a simulated casino floor in one process, for a developer to
watch the floor view fill, and to see what the floor does with many tables at once (docs/sim.md
"A simulated floor").

N simulated tables, each the table ``croupier run`` plays with no hardware (every device simulated
over real pseudo-terminals, simulated players and floor supervisor), each with its own state
database, audit trail and floor link (its spool, its session, its will) publishing to one broker;
and the floor service (``croupier floor``) hearing them and serving the floor view. With no
``--floor-config`` the floor is a developer's: the embedded broker on its default loopback port and
the store in the run's temporary directory, which goes with it; with one, its broker, store and view.

Each table plays at ``--pace`` times a live table's pace (LIVE_ROUNDS_PER_HOUR): a round begins every
3600 / (LIVE_ROUNDS_PER_HOUR * pace) seconds, or as soon as the last one ends when it took longer.
Ctrl-C stops as ``croupier run`` does, every table at once: each finishes its round in play and
sends its death; the floor counts them, then stops. A second Ctrl-C leaves the rounds in play.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import dataclasses
import secrets
import signal
import sys
import tempfile
from collections.abc import Collection
from datetime import UTC, datetime
from pathlib import Path

import structlog

from croupier.audit.writer import AuditTrail
from croupier.commands.floor import FloorStart, RunningFloor, floor_running, floor_start
from croupier.commands.run import table_in_service
from croupier.config import DEFAULT_TABLE_CONFIG, TableConfig, load_table_config
from croupier.config.floor_service import FloorServiceConfig, StoreConfig, load_floor_config
from croupier.config.service import url_of
from croupier.errors import ConfigError
from croupier.floor_link import BrokerSettings, Topics, publishing
from croupier.floor_link.publisher import Broker, credential
from croupier.service.journal import TableJournal
from croupier.service.table_service import STOPPED
from croupier.state import TableState

log = structlog.get_logger("croupier.sim")

#: A live table's pace: about a round a minute, as a full table of these games deals.
LIVE_ROUNDS_PER_HOUR = 60
#: ``--pace`` with ``--floor`` when none is given: a round every two seconds at each table.
DEFAULT_PACE = 30.0
#: Seconds the floor is given, once the tables stopped, to count their deaths.
LAST_WORDS = 5.0


def run_floor(args: argparse.Namespace) -> int:
    """Everything that can fail without a side effect first (both configurations, the view's token,
    the broker's credentials, the view's port); then the tables and the floor."""
    if args.tables < 1:
        raise ConfigError(f"--tables must be at least 1, got {args.tables}")
    pace = DEFAULT_PACE if args.pace is None else args.pace
    if pace <= 0:
        raise ConfigError(f"--pace with --floor: a multiple of a live table's pace, more than 0; got {pace}")
    config = load_floor_config(args.floor_config)
    table = load_table_config(args.table_config or DEFAULT_TABLE_CONFIG, floor_login(config))
    if any(device.url.sim_kind is None for device in table.devices.values()):
        raise ConfigError(f"--table-config {table.source}: not a simulated table (every device sim://)")
    with tempfile.TemporaryDirectory(prefix="croupier-floor-sim-") as kept:
        directory = Path(kept)
        if args.floor_config is None:  # a developer's floor: its store goes with the run
            config = dataclasses.replace(config, store=StoreConfig(None, directory / "floor.sqlite3"))
        start = floor_start(config, made_token=secrets.token_hex(16))
        with start.sock:
            tables = Tables(table, _table_broker(start), config.group, directory, pace, args.seed)
            return asyncio.run(_simulate(start, tables, args.tables))


def floor_login(config: FloorServiceConfig) -> dict[str, str]:
    """The floor's broker, group and protocol, standing in for those of the table's ``[floor]``: every
    table of the run logs in to the floor's broker (``_table_broker``), so a ``--table-config`` needs
    name only its ``[floor.link]``, and what else its ``[floor]`` names is not used."""
    floor = config.broker
    if floor is None:
        host, port = config.embedded
        return {"broker": url_of("mqtt", host, port), "group": config.group, "protocol": "3.1.1"}
    broker = url_of("mqtts" if floor.tls else "mqtt", floor.host, floor.port)
    return {"broker": broker, "group": config.group, "protocol": floor.protocol}


def _table_broker(start: FloorStart) -> Broker:
    """How each table reaches the floor's broker: the embedded one as the floor does; a configured
    one at its address with its TLS authorities, each table logging in under its own name with no
    password (a development broker's way: one that asks each table's password refuses them)."""
    floor = start.config.broker
    if floor is None:
        return start.broker
    anonymous = dataclasses.replace(floor, password_file=None, tls_cert=None, tls_key=None)
    return dataclasses.replace(start.broker, tls=credential(start.config.source, anonymous)[1], password=None)


@dataclasses.dataclass(frozen=True)
class Tables:
    """The tables: the one each plays, their broker and group, where they keep their files, their
    pace (a multiple of LIVE_ROUNDS_PER_HOUR) and their seed (None: each draws its own)."""

    table: TableConfig
    broker: Broker
    group: str
    directory: Path
    pace: float
    seed: int | None

    def of(self, number: int) -> tuple[TableConfig, BrokerSettings]:
        """Table ``number``'s configuration and floor link: its name, files and login its own."""
        name = f"sim-{number}"
        files = self.directory / name
        service = dataclasses.replace(
            self.table.service, state_db=files / "state.sqlite3", audit_dir=files / "audit"
        )
        config = dataclasses.replace(self.table, name=name, service=service)
        broker = dataclasses.replace(self.broker, username=name)
        link = None if self.table.floor is None else self.table.floor.link  # [floor.link]: each on the link
        return config, BrokerSettings(broker, Topics(self.group, name), files / "floor-spool.sqlite3", link)


async def _simulate(start: FloorStart, tables: Tables, count: int) -> int:
    stop, halt = asyncio.Event(), asyncio.Event()

    def interrupt() -> None:
        said = "stopping now: the rounds in play are left" if stop.is_set() else (
            "stopping: each table finishes its round in play (Ctrl-C again to stop at once)"
        )
        (halt if stop.is_set() else stop).set()
        print(f"croupier: {said}", file=sys.stderr, flush=True)

    loop = asyncio.get_running_loop()
    loop.add_signal_handler(signal.SIGINT, interrupt)
    loop.add_signal_handler(signal.SIGTERM, stop.set)
    began = datetime.now(UTC)
    async with floor_running(start) as floor:
        _say_where(start, floor, tables, count)
        plays = [
            asyncio.create_task(_table(tables, n, stop, halt), name=f"sim-{n}") for n in range(1, count + 1)
        ]

        def ended(task: asyncio.Future[int | None]) -> None:
            if task.cancelled() or task.exception() is not None:  # a table or the floor failed
                stop.set()  # the others stop as at Ctrl-C, and the failure is raised below

        for task in (*plays, floor.hearing):
            task.add_done_callback(ended)
        results = await asyncio.gather(*plays, return_exceptions=True)
        await _deaths_counted(floor, {tables.of(n)[0].name for n in range(1, count + 1)}, began)
        if floor.hearing.done():
            floor.hearing.result()
    for result in results:
        if isinstance(result, BaseException):
            raise result
    print("; ".join(f"sim-{n}: {rounds} rounds" for n, rounds in enumerate(results, 1)), flush=True)
    return 0


def _say_where(start: FloorStart, floor: RunningFloor, tables: Tables, count: int) -> None:
    config, broker = start.config, start.broker
    token = start.token if config.view.token_file is None else f"the one in {config.view.token_file}"
    kind = "embedded" if config.broker is None else "configured"
    print(f"floor view: {floor.view} (read-only token: {token})", flush=True)
    print(
        f"broker: {kind} at {broker.host}:{broker.port}, group {config.group}; tables sim-1 to "
        f"sim-{count} ({tables.table.game}) at {tables.pace:g}x a live table's pace; Ctrl-C stops",
        flush=True,
    )


async def _table(tables: Tables, number: int, stop: asyncio.Event, halt: asyncio.Event) -> int:
    """One simulated table as ``croupier run`` serves it, a round at a time at its pace; its rounds."""
    config, settings = tables.of(number)
    config.service.audit_dir.mkdir(parents=True)
    seed = None if tables.seed is None else tables.seed + number
    interval = 3600 / (LIVE_ROUNDS_PER_HOUR * tables.pace)
    loop = asyncio.get_running_loop()
    with (
        TableState(config.service.state_db) as state,
        AuditTrail(config.service.audit_dir, config.name, heads=state) as trail,
    ):
        journal = TableJournal(trail, state, table=config.name, game=config.game)
        journal.service_took_up(config.source)
        async with (  # its devices in this process, as `croupier sim` runs them (decision 0048)
            table_in_service(config, journal, seed, served=False, in_child=False) as service,
            publishing(settings, service, trail),
        ):
            reason = STOPPED
            while not stop.is_set():
                began = loop.time()
                reason = await service.serve(stop, service.table.rounds + 1, halt)
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(stop.wait(), max(0.0, began + interval - loop.time()))
            rounds = int(service.table.rounds)
            reason = STOPPED if reason == f"{rounds} rounds played" else reason
        journal.service_closed(rounds, reason)
    return rounds


async def _deaths_counted(floor: RunningFloor, ours: Collection[str], since: datetime) -> None:
    """Give the floor up to LAST_WORDS seconds to count the death of each of ``ours``, the tables of
    this run, heard ``since`` it began: a configured store also holds the floor's other tables, and
    ours as earlier runs left them, dark, which tell nothing of this run's."""
    deadline = asyncio.get_running_loop().time() + LAST_WORDS

    def dead() -> set[str]:
        return {
            table["table"]
            for table in floor.store.tables()
            if table["dark"] is not None and datetime.fromisoformat(table["dark"]["at"]) >= since
        }

    while not set(ours) <= dead():
        if asyncio.get_running_loop().time() > deadline:
            unheard = sorted(set(ours) - dead())
            log.warning("the floor stops before it heard every table's death", unheard=unheard)
            return
        await asyncio.sleep(0.1)
