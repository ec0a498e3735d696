"""``croupier floor``: run the floor service; ``croupier floor verify-witness``: check a table's
audit trail against the heads the floor witnessed (docs/floor.md; decision 0036); ``croupier floor
release-hit``: a supervisor's release of a linked hit's lock whose table can no longer turn its key
(docs/floor.md; decision 0039)."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import signal
import socket
import ssl
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

import structlog
from aiohttp import web

from croupier.config.floor_service import FloorServiceConfig, load_floor_config
from croupier.config.service import server_tls
from croupier.errors import StartupError
from croupier.floor_link.publisher import Broker
from floor.link_controller import LinkController, Unreleased
from floor.service import FloorService, embedded_broker, floor_broker, stopped
from floor.store import Store
from floor.view import read_token, view_app
from floor.witness import verify_witness

log = structlog.get_logger("croupier.floor")


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "floor",
        help="run the floor service (every table of a property, its witness and its view)",
        description="Hear every table of a property on the MQTT broker, count each message once, keep "
        "the floor's state in SQLite or PostgreSQL, witness each table's trail heads and serve the "
        "floor view. With no broker configured, the embedded broker is started on loopback.",
    )
    p.add_argument("--config", type=Path, metavar="FILE", help="the floor's configuration (docs/floor.md)")
    p.set_defaults(handler=_run)
    actions = p.add_subparsers(dest="floor_command", metavar="ACTION")
    verify = actions.add_parser(
        "verify-witness",
        help="check a table's audit trail against the heads the floor witnessed",
        description="Exit 0 if the trail verifies and holds every head the floor witnessed for the "
        "table at its number with its hash; exit 1 naming the first that is not found.",
    )
    verify.add_argument("table", metavar="TABLE")
    verify.add_argument("trail", nargs="+", type=Path, metavar="TRAIL", help="files in series order")
    verify.add_argument("--config", type=Path, metavar="FILE", help="the floor's configuration")
    verify.set_defaults(handler=_verify_witness)
    release = actions.add_parser(
        "release-hit",
        help="release a linked level locked by a hit whose table PC was replaced before its keyed reset",
        description="Lift the lock of hit ORDER of link LINK (its order on the floor view) at every "
        "table, kept in the floor's store with who released it and why. Refused while the hit's "
        "table still sends from the hit's spool: its keyed reset releases it. The running floor "
        "service tells the tables at its next publication. Exit 0 released, 1 refused.",
    )
    release.add_argument("link", metavar="LINK")
    release.add_argument("order", type=int, metavar="ORDER")
    release.add_argument("--by", required=True, metavar="NAME", help="the supervisor releasing it")
    release.add_argument("--reason", required=True, metavar="TEXT", help="why, for the audit record")
    release.add_argument("--config", type=Path, metavar="FILE", help="the floor's configuration")
    release.set_defaults(handler=_release_hit)


def _verify_witness(args: argparse.Namespace) -> int:
    store = Store(load_floor_config(args.config).store, create=False)
    try:
        report, heads, counted_from = verify_witness(store, args.table, args.trail)
    finally:
        store.close()
    if report.problem is not None:
        print(f"bad: {report.problem}")
    elif not heads:
        print(f"croupier floor: the floor witnessed no head of table {args.table}")
    else:
        print(
            f"ok: {report.records} records, chain intact, "
            f"every one of the {heads} heads the floor witnessed found"
        )
    if counted_from is None:
        print(f"the floor counted no message of table {args.table}: it never heard its birth")
    else:
        print(
            f"counted from seq {counted_from}: the floor counted table {args.table}'s messages from that "
            "number of its spool on; what the table published before, the floor never saw"
        )
    return 0 if report.problem is None and heads else 1


def _release_hit(args: argparse.Namespace) -> int:
    config = load_floor_config(args.config)
    store = Store(config.store, create=False)
    try:
        print(LinkController(config.links, store, config.group).release(
            args.link, args.order, args.by, args.reason
        ))  # fmt: skip
    except Unreleased as exc:
        print(f"refused: {exc}")
        return 1
    finally:
        store.close()
    return 0


def _run(args: argparse.Namespace) -> int:
    """Everything that can fail without a side effect first (the configuration, the view's token and
    TLS certificate, the broker's credential, the view's port), then the store and the embedded
    broker."""
    start = floor_start(load_floor_config(args.config))
    with start.sock:
        return asyncio.run(_serve(start))


@dataclass(frozen=True)
class FloorStart:
    """What the floor service's start-up read and bound before anything is opened: its
    configuration, its broker and login, the view's token (None: the view is open, on loopback),
    its TLS context (None: plain HTTP, on loopback) and the view's listening socket."""

    config: FloorServiceConfig
    broker: Broker
    token: str | None
    tls: ssl.SSLContext | None
    sock: socket.socket


def floor_start(config: FloorServiceConfig, made_token: str | None = None) -> FloorStart:
    """The view's token (from ``view.token_file``, else ``made_token``) and TLS certificate, the
    broker's credential and the view's port, in that order: a file that cannot be read or a port
    taken stops the start-up here, before the store or a broker is opened."""
    token = read_token(config.view.token_file) if config.view.token_file is not None else made_token
    view = config.view
    tls = (
        None
        if view.tls_cert is None or view.tls_key is None
        else server_tls(view.tls_cert, view.tls_key, f"{config.source}: view.tls_cert")
    )
    broker = floor_broker(config)
    try:
        sock = socket.create_server((config.view.host, config.view.port))
    except OSError as exc:
        where = f"{config.view.host}:{config.view.port}"
        raise StartupError(f"view.bind: cannot listen on {where}: {exc}") from None
    return FloorStart(config, broker, token, tls, sock)


async def _serve(start: FloorStart) -> int:
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(signum, stop.set)
    async with floor_running(start) as floor:
        stopping = asyncio.create_task(stop.wait(), name="floor-stop")
        try:
            await asyncio.wait((floor.hearing, stopping), return_when=asyncio.FIRST_COMPLETED)
        finally:
            await _cancelled(stopping)
        if floor.hearing.done():  # the store failed: the floor stops rather than hear and count nothing
            floor.hearing.result()
    return 0


@dataclass(frozen=True)
class RunningFloor:
    """The floor service while it runs: its store, its hearing (done only when it failed) and the
    floor view's address."""

    store: Store
    hearing: asyncio.Task[None]
    view: str


@contextlib.asynccontextmanager
async def floor_running(start: FloorStart) -> AsyncIterator[RunningFloor]:
    """The floor service while the block runs (``croupier floor``, and ``croupier sim --floor``
    beside its tables): the store, the embedded broker when none is configured, the view on its
    socket (needing the token, when there is one) and the service hearing the broker. The link
    controller is made before the embedded broker listens: it refuses a link whose stored rates
    were changed, and no table should have connected to a floor that then does not start."""
    config = start.config
    store = Store(config.store)
    try:
        links = LinkController(config.links, store, config.group) if config.links else None
        async with contextlib.AsyncExitStack() as stack:
            if config.broker is None:
                await stack.enter_async_context(embedded_broker(*config.embedded))
            runner = web.AppRunner(view_app(store, start.token, links=links), access_log=None)
            await runner.setup()
            stack.push_async_callback(runner.cleanup)
            await web.SockSite(runner, start.sock, ssl_context=start.tls).start()
            log.info("floor view", url=config.view.url)
            service = FloorService(config, start.broker, store, links)
            hearing = asyncio.create_task(service.run(), name="floor-hear")
            stack.push_async_callback(stopped, hearing)
            yield RunningFloor(store, hearing, config.view.url)
    finally:
        store.close()


async def _cancelled(task: asyncio.Task[object]) -> None:
    task.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await task
