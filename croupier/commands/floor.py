"""``croupier floor``: run the floor service; ``croupier floor verify-witness``: check a table's
audit trail against the heads the floor witnessed (docs/floor.md; decision 0036)."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import signal
import socket
from pathlib import Path

import structlog
from aiohttp import web

from croupier.config.floor_service import FloorServiceConfig, load_floor_config
from croupier.errors import StartupError
from croupier.floor_link.publisher import Broker
from floor.link_controller import LinkController
from floor.service import FloorService, embedded_broker, floor_broker
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


def _verify_witness(args: argparse.Namespace) -> int:
    store = Store(load_floor_config(args.config).store, create=False)
    try:
        report, heads = verify_witness(store, args.table, args.trail)
    finally:
        store.close()
    if report.problem is not None:
        print(f"bad: {report.problem}")
        return 1
    if not heads:
        print(f"croupier floor: the floor witnessed no head of table {args.table}")
        return 1
    print(
        f"ok: {report.records} records, chain intact, "
        f"every one of the {heads} heads the floor witnessed found"
    )
    return 0


def _run(args: argparse.Namespace) -> int:
    """Everything that can fail without a side effect first (the configuration, the view's token,
    the broker's credential, the view's port), then the store and the embedded broker."""
    config = load_floor_config(args.config)
    token = read_token(config.view.token_file) if config.view.token_file is not None else None
    broker = floor_broker(config)
    try:
        sock = socket.create_server((config.view.host, config.view.port))
    except OSError as exc:
        where = f"{config.view.host}:{config.view.port}"
        raise StartupError(f"view.bind: cannot listen on {where}: {exc}") from None
    with sock:
        return asyncio.run(_serve(config, broker, token, sock))


async def _serve(config: FloorServiceConfig, broker: Broker, token: str | None, sock: socket.socket) -> int:
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(signum, stop.set)
    store = Store(config.store)
    try:
        async with contextlib.AsyncExitStack() as stack:
            if config.broker is None:
                await stack.enter_async_context(embedded_broker(*config.embedded))
            runner = web.AppRunner(view_app(store, token), access_log=None)
            await runner.setup()
            stack.push_async_callback(runner.cleanup)
            await web.SockSite(runner, sock).start()
            log.info("floor view", url=f"http://{config.view.host}:{config.view.port}/")
            links = LinkController(config.links, store, config.group) if config.links else None
            service = FloorService(config, broker, store, links)
            hearing = asyncio.create_task(service.run(), name="floor-hear")
            stack.push_async_callback(_cancelled, hearing)
            stopping = asyncio.create_task(stop.wait(), name="floor-stop")
            stack.push_async_callback(_cancelled, stopping)
            await asyncio.wait((hearing, stopping), return_when=asyncio.FIRST_COMPLETED)
            if hearing.done():  # the store failed: the floor stops rather than hear and count nothing
                hearing.result()
    finally:
        store.close()
    return 0


async def _cancelled(task: asyncio.Task[object]) -> None:
    task.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await task
