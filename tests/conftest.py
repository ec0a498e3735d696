"""Shared fixtures: every test ends with no stray thread, file descriptor or logging setup of its own."""

from __future__ import annotations

import logging
import os
import threading
import time

import pytest
import structlog


@pytest.fixture(autouse=True)
def no_leaked_threads():
    before = set(threading.enumerate())
    yield
    deadline = time.monotonic() + 2.0
    while True:
        leaked = [
            t
            for t in threading.enumerate()
            if t not in before and t.is_alive() and not t.name.startswith(("asyncio_", "ThreadPoolExecutor"))
        ]
        if not leaked or time.monotonic() > deadline:
            break
        time.sleep(0.02)
    assert not leaked, f"threads leaked by the test: {[t.name for t in leaked]}"


def _open_fds() -> set[str]:
    return {fd for fd in os.listdir("/proc/self/fd") if _target(fd) is not None}


def _target(fd: str) -> str | None:
    try:
        return os.readlink(f"/proc/self/fd/{fd}")
    except OSError:
        return None


@pytest.fixture(autouse=True)
def no_leaked_ports():
    """Every port, pty, socket and pipe a test opens is closed by its end."""
    before = _open_fds()
    yield
    deadline = time.monotonic() + 2.0
    while True:
        leaked = {fd: _target(fd) for fd in _open_fds() - before}
        leaked = {fd: target for fd, target in leaked.items() if target}
        if not leaked or time.monotonic() > deadline:
            break
        time.sleep(0.02)
    assert not leaked, f"file descriptors leaked by the test: {leaked}"


@pytest.fixture(autouse=True)
def logging_restored():
    """A test that runs the command line in-process configures logging for the whole process;
    put it back, so later tests log (and run) as they would alone."""
    root = logging.getLogger()
    handlers, level = root.handlers[:], root.level
    yield
    structlog.reset_defaults()
    root.handlers[:] = handlers
    root.setLevel(level)
