"""``croupier run``: the table service. With no configuration, the default simulated table
(croupier/config/simulated.toml): Free Bet Blackjack with its shoe, shuffler and card reader simulated
over their real transports, played by simulated players. Any of the four games runs from its
configuration (config/tables/); with an API token file the rounds are driven from the dealer's
screen over the local API instead. Every record goes to the table's audit trail as it is made
(docs/audit.md) and to the log, and the table's state survives a kill (docs/recovery.md). On a
terminal a live status of the table is drawn (croupier.commands.terminal); Ctrl-C finishes the round
in play, a second Ctrl-C leaves it at once.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import random
import secrets
import signal
import socket
import ssl
import sys
from collections.abc import AsyncIterator
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

import structlog
from aiohttp import web
from rich.console import Console

from croupier import logs
from croupier.api.access_log import AccessLog
from croupier.api.app import make_app
from croupier.api.auth import Tokens
from croupier.audit.record import AuditError
from croupier.audit.rotation import Rotation
from croupier.audit.sealing import SealingKey
from croupier.audit.writer import AuditTrail
from croupier.commands.terminal import Felt, TableStatus, shown
from croupier.config import DEFAULT_TABLE_CONFIG, TableConfig, load_table_config
from croupier.config.service import server_tls
from croupier.errors import ConfigError, StartupError
from croupier.floor_link import BrokerSettings, broker_settings, open_spool, publishing
from croupier.screen.prompts import Screen
from croupier.service.hardware import hardware_table
from croupier.service.journal import TableJournal
from croupier.service.systemd import notify, watchdog
from croupier.service.table_lock import table_lock
from croupier.service.table_service import TableService
from croupier.state import StateError, TableState
from croupier.tables.events import RoundListener
from croupier.tables.registry import table_kind
from drivers import event_loop
from firmware_sim.world import TableWorld
from simulator.faults import FaultProfile, FaultScript
from simulator.floor import FloorSupervisor, controller_key, on_the_floor, repair_sim
from simulator.players import simulated_players, table_options
from simulator.tables import simulated_table
from vocabulary.events import Events
from vocabulary.operators import Operator, Role

log = structlog.get_logger("croupier.run")

#: Seconds a stop gives the API's requests still in flight before they are cut off: one waiting for
#: a round that will not take its answer (the round was left waiting for a person) must not hold the
#: stop (aiohttp's default is 60, longer than a service manager waits before killing the service).
API_DRAIN = 2.0


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "run",
        help="run the table service (no config: the simulated Free Bet Blackjack table)",
        description="Run the table service. With no --config, the default simulated table: every "
        "device simulated over a real pseudo-terminal or the simulated USB bus.",
    )
    p.add_argument("--config", type=Path, help=f"table configuration (default {DEFAULT_TABLE_CONFIG})")
    p.add_argument("--rounds", type=int, default=0, help="stop after this many rounds (default: run on)")
    p.add_argument("--duration", type=float, default=0.0, help="stop after this many seconds")
    p.add_argument("--seed", type=int, help="seed the simulated players' wagers (a replayable run)")
    p.add_argument("--check", action="store_true", help="validate the configuration and exit")
    p.add_argument(
        "--no-live",
        dest="live",
        action="store_false",
        help="no live status of the table on a terminal (log lines only, as when not on one)",
    )
    p.add_argument(
        "--screens",
        action="store_true",
        help="a simulated table only: serve the dealer's screen and the supervisor's console in the "
        "browser with a dealer's and a supervisor's token made for this run (printed), the rounds "
        "played from the screen",
    )
    p.add_argument(
        "--simulated-devices",
        choices=SIMULATED_DEVICES,
        default="child",
        help="a simulated table only: where its devices run: 'child' (default), a `croupier firmware` "
        "process the table starts and stops, each device behind a pseudo-terminal, as a table PC's "
        "devices are outside the service; 'in-process', on threads of the table's own process, the "
        "USB devices on the simulated USB bus (decision 0048)",
    )
    p.add_argument(
        "--faults",
        type=Path,
        metavar="PROFILE",
        help="a simulated table only: a fault profile (TOML, docs/sim.md) striking its devices and the "
        "dealer's hands, for the floor to rehearse clearing faults and ruling on held rounds",
    )
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Start-up in the order that leaves nothing half-done: everything that can fail without a side
    effect first (the configuration, the token file, the TLS certificate, the sealing key), then
    the table's lock (its lock file only), the API's port and the floor spool (its file made when
    new), and only then the state database, the audit trail and the devices. Any failure is one line
    and exit status 2 (``croupier.errors.StartupError``)."""
    config = load_table_config(args.config or DEFAULT_TABLE_CONFIG)
    check_served(config)
    faults = _fault_profile(config, args.faults)
    if args.log_level is None:  # the table's configuration sets it unless the command line does
        logs.configure(config.service.log_level, json=args.log_json)
    made = _screen_tokens(config) if args.screens else {}
    tokens = Tokens(made) if made else _tokens(config)
    tls = _tls_context(config) if tokens is not None else None
    sealing = _sealing_key(config)
    floor = broker_settings(config)
    if args.check:  # every file the start-up reads has been read, as the user who runs the check
        devices = ", ".join(f"{name} ({device.url.url})" for name, device in config.devices.items())
        print(f"ok: {config.source}: table {config.name}, {config.game}, {config.seats} seats; {devices}")
        print(f"read: {_read_at_startup(tokens, tls, sealing, floor)}")
        return 0
    live = args.live and sys.stdout.isatty()
    how = Run(args.rounds, args.duration, args.seed, live, faults, in_child=args.simulated_devices == "child")
    with table_lock(config.name, config.service.state_db, config.service.audit_dir):
        if tokens is None:
            _check_spool(floor)
            return event_loop.run(_serve(config, how, None, sealing, floor))
        listener = Listener(tls, _bound(config))
        with listener.sock:
            _check_spool(floor)
            if made:  # said once every check has passed (the lock, the port, the spool), as the table starts
                print(f"screens: {config.service.api_url}/ — sign in with", flush=True)
                for token, operator in made.items():
                    print(f"  {operator.role.value} {operator.ident}: {token}", flush=True)
            return event_loop.run(_serve(config, how, Api(tokens, listener), sealing, floor))


def _check_spool(floor: BrokerSettings | None) -> None:
    """The floor spool opened and closed, after every check that leaves nothing behind (opening a
    spool makes its file when new) and before the state database, the trail or a device is opened:
    a file there that is not a spool stops start-up, naming it (StartupError)."""
    if floor is not None:
        open_spool(floor).close()


def _read_at_startup(
    tokens: Tokens | None,
    tls: ssl.SSLContext | None,
    sealing: SealingKey | None,
    floor: BrokerSettings | None,
) -> str:
    """What ``--check`` read beside the configuration, for the person checking a table PC."""
    read = [f"the token file ({len(tokens)} operators)" if tokens is not None else "no token file"]
    read.append("the TLS certificate and key" if tls is not None else "no TLS (the API on loopback)")
    read.append(f"the sealing key (epoch {sealing.epoch})" if sealing is not None else "no sealing key")
    if floor is not None:
        read.append("the floor broker's settings")
    return "; ".join(read)


def _fault_profile(config: TableConfig, path: Path | None) -> FaultProfile | None:
    """``--faults``: the profile, read before anything is opened; refused for real equipment, whose
    faults are its own."""
    if path is None:
        return None
    _simulated_only(config, "--faults", "a fault profile strikes only a simulated table")
    return FaultProfile.load(path)


#: Where a simulated table's devices run (``--simulated-devices``): a child process, or this one.
SIMULATED_DEVICES = ("child", "in-process")

#: The operators ``--screens`` makes a token for.
SCREEN_OPERATORS = (Operator("D-1", Role.DEALER), Operator("S-1", Role.SUPERVISOR))


def _screen_tokens(config: TableConfig) -> dict[str, Operator]:
    """``--screens``: a token for a dealer and a supervisor, new at every run and kept nowhere but
    printed at the start, so a developer signs in without writing a token file. Refused for real
    equipment, whose operators are the casino's token file's."""
    _simulated_only(config, "--screens", "its operators sign in with the tokens of its token file "
                    "([service] api_tokens)")  # fmt: skip
    return {secrets.token_hex(16): operator for operator in SCREEN_OPERATORS}


def _simulated_only(config: TableConfig, option: str, why: str) -> None:
    """A command-line option for a simulated table only, refused naming the first real device."""
    real = [name for name, device in config.devices.items() if device.url.sim_kind is None]
    if real:
        raise ConfigError(f"{option}: {config.source} names real equipment (devices.{real[0]}); {why}")


def _tokens(config: TableConfig) -> Tokens | None:
    """The API's token file, read before anything is opened: a file that cannot be read or parsed
    stops the start-up here."""
    path = config.service.api_tokens
    if path is None:
        return None
    try:
        return Tokens.load(path)
    except (OSError, ValueError) as exc:
        raise StartupError(f"{config.source}: service.api_tokens: {exc}") from None


def _tls_context(config: TableConfig) -> ssl.SSLContext | None:
    """The API's TLS context when the configuration names a certificate and key (required for an
    API bound beyond loopback, croupier.config.service), loaded before anything is opened."""
    cert, key = config.service.api_tls_cert, config.service.api_tls_key
    if cert is None or key is None:
        return None
    return server_tls(cert, key, f"{config.source}: service.api_tls_cert")


def _bound(config: TableConfig) -> socket.socket:
    """The API's listening socket, bound before the state, the trail or a device is touched, so a
    port already taken stops the start-up with nothing opened."""
    host, port = config.service.api_host, config.service.api_port
    try:
        return socket.create_server((host, port))
    except OSError as exc:
        raise StartupError(
            f"{config.source}: service.api_bind: cannot listen on {host}:{port}: {exc}"
        ) from None


@dataclass(frozen=True)
class Run:
    """How long the table runs (``rounds``, ``duration``: 0 for on and on), the simulated players'
    ``seed``, whether its live status is drawn (on a terminal, unless ``--no-live``), the fault
    profile striking a simulated table (``--faults``), and whether a simulated table's devices run in
    a child process (``--simulated-devices``)."""

    rounds: int
    duration: float
    seed: int | None
    live: bool
    faults: FaultProfile | None = None
    in_child: bool = True


@dataclass(frozen=True)
class Listener:
    """Where the API listens: its bound socket, over TLS when ``tls`` is set."""

    tls: ssl.SSLContext | None
    sock: socket.socket


@dataclass(frozen=True)
class Api:
    """The local API's tokens and listener, both checked at start-up."""

    tokens: Tokens
    listener: Listener


def check_served(config: TableConfig) -> None:
    """A table is wholly simulated or wholly real, and real equipment is driven from the dealer's
    screen, so it needs the API's token file."""
    real = sorted(name for name, device in config.devices.items() if device.url.sim_kind is None)
    simulated = sorted(set(config.devices) - set(real))
    if real and simulated:
        raise ConfigError(
            f"{config.source}: devices.{simulated[0]}: sim:// cannot be mixed with real equipment "
            f"(devices.{real[0]} is real): simulate the whole table or none of it"
        )
    if real and config.service.api_tokens is None:
        raise ConfigError(
            f"{config.source}: service.api_tokens: real equipment is played from the dealer's screen; "
            "name the API token file"
        )
    if real and config.audit.sealing_key is None:
        raise ConfigError(
            f"{config.source}: audit.sealing_key: real equipment keeps a sealed audit trail; provision "
            "the table's keys with `croupier audit keys` (docs/install.md) and name the sealing key"
        )


async def _serve(
    config: TableConfig, run: Run, api: Api | None, sealing: SealingKey | None, floor: BrokerSettings | None
) -> int:
    stop, halt = asyncio.Event(), asyncio.Event()
    console = Console() if run.live else None
    stopping = Stopping(stop, halt, console)
    loop = asyncio.get_running_loop()
    loop.add_signal_handler(signal.SIGINT, stopping.interrupt)
    loop.add_signal_handler(signal.SIGTERM, stop.set)
    if run.duration > 0:
        loop.call_later(run.duration, stop.set)
    try:
        state = TableState(config.service.state_db)
    except StateError as exc:
        raise StartupError(str(exc)) from None
    with state:
        try:
            rotation = Rotation.from_config(config.audit)
            if sealing is None:
                log.warning("audit trail unsealed: no [audit] sealing_key", table=config.name)
            trail = AuditTrail(
                config.service.audit_dir, config.name, rotation=rotation, sealing=sealing, heads=state
            )
        except AuditError as exc:
            raise StartupError(f"{config.service.audit_dir}: {exc}") from None
        with trail:  # closed with its closing record however the service ends
            journal = TableJournal(trail, state, table=config.name, game=config.game)
            journal.service_took_up(config.source)
            async with (
                watchdog(),
                table_in_service(
                    config, journal, run.seed, run.faults, served=api is not None, in_child=run.in_child
                ) as service,
            ):
                table = service.table
                felt = Felt(int(table.rules.positions))
                table.events.subscribe(felt)
                stopping.watch(service, felt)
                async with (
                    _api(config, service, api),
                    _status(config, service, felt, stopping),
                    publishing(floor, service, trail),
                ):
                    log.info("table in service", table=config.name, game=config.game, audit=str(trail.path))
                    status = "open" if service.is_open else "closed until a supervisor opens it"
                    notify(f"READY=1\nSTATUS=table {config.name} {status}")
                    reason = await service.serve(stop, run.rounds, halt)
                    notify("STOPPING=1")
            journal.service_closed(table.rounds, reason)
    log.info("table closed", rounds=table.rounds, reason=reason)
    return 0


class Stopping:
    """What Ctrl-C does: the first (SIGINT) stops the table once the round in play ends, saying
    which round that is; a second leaves that round at once (held as cut off at the next start,
    docs/recovery.md). SIGTERM, as systemd stops the service, is the first only. What is said goes
    above the live status on ``console``, or to stderr without one."""

    def __init__(self, stop: asyncio.Event, halt: asyncio.Event, console: Console | None) -> None:
        self.stop, self.halt, self.console = stop, halt, console
        self.service: TableService | None = None
        self.felt: Felt | None = None
        self.status: TableStatus | None = None

    def watch(self, service: TableService, felt: Felt) -> None:
        self.service, self.felt = service, felt

    def interrupt(self) -> None:
        if self.stop.is_set():
            self.halt.set()
            self._say("stopping now: the round in play is left, held as cut off at the next start")
            return
        self.stop.set()
        self._say(self.finishing())

    def finishing(self) -> str:
        """Which round the stop waits for: the one begun, or the one the table is getting ready for
        (the service counts it in play from then on), or none."""
        service, felt = self.service, self.felt
        if service is None or felt is None or not service.round_in_play:
            return "stopping: no round in play"
        number = felt.playing.number if felt.playing is not None else service.table.rounds + 1
        waiting = service.waiting_for()
        if waiting is not None:
            return f"stopping: round {number} waits ({waiting}); it is held as cut off at the next start"
        return f"finishing round {number} (Ctrl-C again to stop at once)"

    def _say(self, text: str) -> None:
        log.info("stop requested", said=text)
        if self.status is not None:
            self.status.stopping = text
        if self.console is not None:
            self.console.print(text, style="bold magenta")
        else:
            print(f"croupier: {text}", file=sys.stderr, flush=True)


@contextlib.asynccontextmanager
async def _status(
    config: TableConfig, service: TableService, felt: Felt, stopping: Stopping
) -> AsyncIterator[None]:
    """The table's live status on the terminal while the block runs, when there is one to draw on."""
    if stopping.console is None:
        yield
        return
    stopping.status = TableStatus(service, felt, name=config.name)
    async with shown(stopping.status, stopping.console):
        yield


def _sealing_key(config: TableConfig) -> SealingKey | None:
    """The table's sealing key, read before anything is opened; a simulated table may run without
    one, its trail unsealed (each file's header says so, and ``_serve`` logs a warning)."""
    if config.audit.sealing_key is None:
        return None
    try:
        return SealingKey.read(config.audit.sealing_key)
    except AuditError as exc:
        raise StartupError(f"{config.source}: audit.sealing_key: {exc}") from None


@contextlib.asynccontextmanager
async def table_in_service(
    config: TableConfig,
    journal: TableJournal,
    seed: int | None,
    faults: FaultProfile | None = None,
    *,
    served: bool,
    in_child: bool = True,
) -> AsyncIterator[TableService]:
    """The configured table with its journal: simulated (opened now; played by simulated players,
    or from the screen when the API is ``served``; ``faults`` striking it as their profile
    says; its devices in a child process when ``in_child``), or on real equipment (opened by a
    supervisor from the screen, dealt by the human dealer it prompts)."""
    if all(device.url.sim_kind is not None for device in config.devices.values()):
        table = simulated_table(config.game, rules=config.rules, name=config.name, in_child=in_child)
        async with table as sim:
            journal.keep(sim.table)
            watch_rounds(sim.table.events, config.name, sim.world)
            if faults is not None:
                faults.check(sim.devices)
                sim.table.events.subscribe(FaultScript(faults, sim, config.game), durable=True)
            options = table_options(config.game, sim)
            if not served:  # simulated players and floor supervisor
                players = simulated_players(config.game, random.Random(seed), **options)
                repair, key = partial(repair_sim, sim), controller_key(sim)  # a strike put right first
                floor = FloorSupervisor(sim.table, None, journal, repair=repair, reset_key=key)
                async with on_the_floor(floor):
                    yield TableService(sim.table, journal, game=config.game, players=players)
            else:  # the dealer's screen plays them through the API
                cover = options.get("cover")
                yield TableService(sim.table, journal, game=config.game, cover=cover, limits=config.limits)
        return
    screen = Screen()
    dues = {name: journal.state.check_due(name) for name in config.devices}  # no restart defers one
    async with hardware_table(config, table_kind(config.game).dealer(screen), dues) as table:
        journal.keep(table)
        watch_rounds(table.events, config.name)
        yield TableService(
            table, journal, game=config.game, opened=False, screen=screen, limits=config.limits
        )


def watch_rounds(events: Events, table: str, world: TableWorld | None = None) -> None:
    """Log each round and show it to systemd; at a simulated table (``world``) prove its card count
    after each round, as a durable listener: a count that does not add up stops the table, as a
    failed write does, rather than being logged and played past."""
    events.subscribe(RoundSummary(table, world), durable=world is not None)


class RoundSummary(RoundListener):
    """One log line per completed round, and the status that systemd shows (``systemctl
    status``); at a simulated table the world's card count is proven after each round."""

    def __init__(self, table: str, world: TableWorld | None = None) -> None:
        self.table, self.world = table, world

    def round_ended(self, round_: Any) -> None:  # Any: a round of any game
        if self.world is not None:
            self.world.check()
        notify(f"STATUS=table {self.table}: {round_.number} rounds played")
        log.info(
            "round complete",
            round=round_.number,
            net_by_seat={seat: round_.net(seat) for seat in sorted(round_.positions)},
        )


@contextlib.asynccontextmanager
async def _api(config: TableConfig, service: TableService, api: Api | None) -> AsyncIterator[None]:
    """Serve the local API on its socket, bound at start-up, while the block runs, when the
    configuration names a token file."""
    if api is None:
        yield
        return
    runner = web.AppRunner(
        make_app(service, api.tokens), shutdown_timeout=API_DRAIN, access_log_class=AccessLog
    )
    await runner.setup()
    try:
        await web.SockSite(runner, api.listener.sock, ssl_context=api.listener.tls).start()
        scheme = "https" if api.listener.tls is not None else "http"
        log.info("api listening", host=config.service.api_host, port=config.service.api_port, scheme=scheme)
        yield
    finally:
        await runner.cleanup()
