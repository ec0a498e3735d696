"""One structlog setup for the whole process: readable on a terminal, JSON lines otherwise.

stdlib logging (pyserial, pyusb, asyncio, aiohttp) goes through the same processors, so a table PC's
journal holds one format. Each JSON line names its logger (``"logger": "croupier.link"``) and its
level, and carries a traceback as structured data (the exception's type, value and frames) that a
log shipper can index, rather than as text. Run by systemd, each line starts with its syslog
priority (``<4>`` for a warning): journald takes it as the entry's priority (``journalctl -p
warning``) and strips it, so the message the journal keeps is the JSON alone.
"""

from __future__ import annotations

import contextlib
import io
import logging
import os
import sys
from collections.abc import Callable, Iterator
from typing import TextIO

import structlog

#: The syslog priority of each stdlib level (sd-daemon(3)); journald files each line under it.
PRIORITIES = {
    logging.CRITICAL: 2,
    logging.ERROR: 3,
    logging.WARNING: 4,
    logging.INFO: 6,
    logging.DEBUG: 7,
}


def priority(levelno: int) -> int:
    """The syslog priority of a stdlib level (a level between two takes the lower one's)."""
    return next((PRIORITIES[level] for level in sorted(PRIORITIES, reverse=True) if levelno >= level), 7)


def to_journal(stream: TextIO) -> bool:
    """Whether ``stream`` is connected to journald: systemd names the stream it connected in
    ``JOURNAL_STREAM`` as ``DEVICE:INODE`` (systemd.exec(5))."""
    named = os.environ.get("JOURNAL_STREAM")
    try:
        status = os.fstat(stream.fileno())
    except (OSError, ValueError):  # no file descriptor (a test's StringIO), or closed
        return False
    return named == f"{status.st_dev}:{status.st_ino}"


class JournalFormatter(structlog.stdlib.ProcessorFormatter):
    """Each line prefixed with its syslog priority (``<3>``), which journald reads as the entry's."""

    def format(self, record: logging.LogRecord) -> str:
        return f"<{priority(record.levelno)}>{super().format(record)}"


def configure(level: str = "info", *, json: bool | None = None) -> None:
    """Configure structlog and stdlib logging; ``json`` defaults to "stderr is not a terminal"."""
    if json is None:
        json = not sys.stderr.isatty()
    shared: list[structlog.typing.Processor] = [
        structlog.contextvars.merge_contextvars,
        structlog.stdlib.add_logger_name,
        structlog.processors.add_log_level,
        structlog.processors.TimeStamper(fmt="iso", utc=True),
    ]
    # A traceback's frames without their local variables: those may hold tokens and keys.
    tracebacks = structlog.processors.ExceptionRenderer(
        structlog.tracebacks.ExceptionDictTransformer(show_locals=False)
    )
    rendering: list[structlog.typing.Processor] = (
        [tracebacks, structlog.processors.JSONRenderer()]
        if json
        else [structlog.dev.ConsoleRenderer(colors=sys.stderr.isatty())]
    )
    structlog.configure(
        processors=[*shared, structlog.stdlib.ProcessorFormatter.wrap_for_formatter],
        logger_factory=structlog.stdlib.LoggerFactory(),
        wrapper_class=structlog.make_filtering_bound_logger(logging.getLevelName(level.upper())),
        cache_logger_on_first_use=False,
    )
    formatter = JournalFormatter if to_journal(sys.stderr) else structlog.stdlib.ProcessorFormatter
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(
        formatter(
            processors=[structlog.stdlib.ProcessorFormatter.remove_processors_meta, *rendering],
            foreign_pre_chain=shared,
        )
    )
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level.upper())
    # transitions narrates every callback at INFO; the rounds record their own state changes, so
    # only its warnings (a refused trigger, a failed condition) belong in a table's journal.
    logging.getLogger("transitions").setLevel(max(logging.WARNING, root.level))


class _Lines(io.TextIOBase):
    """A text stream handing each whole line written to it to ``write``, without its newline."""

    def __init__(self, write: Callable[[str], None]) -> None:
        self._write, self._pending = write, ""

    def write(self, text: str) -> int:
        *lines, self._pending = (self._pending + text).split("\n")
        for line in lines:
            self._write(line)
        return len(text)


@contextlib.contextmanager
def written_by(write: Callable[[str], None]) -> Iterator[None]:
    """While the block runs, each log line bound for a terminal goes to ``write`` instead: a live view
    holds that terminal (croupier.commands.terminal) and prints the line above itself, where a line
    written straight to the terminal would tear it. Lines bound for a file, a pipe or journald are
    left as they are."""
    handlers = [
        handler
        for handler in logging.getLogger().handlers
        if isinstance(handler, logging.StreamHandler) and _is_terminal(handler.stream)
    ]
    streams = [handler.setStream(_Lines(write)) for handler in handlers]
    try:
        yield
    finally:
        for handler, stream in zip(handlers, streams, strict=True):
            handler.setStream(stream)


def _is_terminal(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except ValueError:  # closed
        return False
