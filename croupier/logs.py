"""One structlog setup for the whole process: readable on a terminal, JSON lines otherwise.

stdlib logging (pyserial, pyusb, asyncio) goes through the same processors, so a table PC's journal
holds one format.
"""

from __future__ import annotations

import logging
import sys

import structlog


def configure(level: str = "info", *, json: bool | None = None) -> None:
    """Configure structlog and stdlib logging; ``json`` defaults to "stderr is not a terminal"."""
    if json is None:
        json = not sys.stderr.isatty()
    shared: list = [
        structlog.contextvars.merge_contextvars,
        structlog.processors.add_log_level,
        structlog.processors.TimeStamper(fmt="iso", utc=True),
    ]
    renderer = (
        structlog.processors.JSONRenderer()
        if json
        else structlog.dev.ConsoleRenderer(colors=sys.stderr.isatty())
    )
    structlog.configure(
        processors=[*shared, structlog.stdlib.ProcessorFormatter.wrap_for_formatter],
        logger_factory=structlog.stdlib.LoggerFactory(),
        wrapper_class=structlog.make_filtering_bound_logger(logging.getLevelName(level.upper())),
        cache_logger_on_first_use=False,
    )
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(
        structlog.stdlib.ProcessorFormatter(
            processors=[structlog.stdlib.ProcessorFormatter.remove_processors_meta, renderer],
            foreign_pre_chain=shared,
        )
    )
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level.upper())
    # transitions narrates every callback at INFO; the rounds record their own state changes, so
    # only its warnings (a refused trigger, a failed condition) belong in a table's journal.
    logging.getLogger("transitions").setLevel(max(logging.WARNING, root.level))
