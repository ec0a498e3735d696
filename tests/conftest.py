"""Shared fixtures: every test ends with no stray thread, file descriptor or logging setup of its own,
and no event listener failure passed over in silence."""

from __future__ import annotations

import logging
import os
import threading
import time
import traceback

import pytest
import structlog

from drivers import event_loop
from vocabulary import events as events_module


@pytest.fixture(autouse=True, scope="session")
def first_event_loop():
    """uvloop, the table service's loop (decision 0051), opens a pipe with the first loop a process
    makes and keeps it for the process's life: made here, before any test counts its ports."""

    async def nothing() -> None:
        pass

    event_loop.run(nothing())


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


@pytest.fixture(autouse=True)
def no_listener_failed_silently(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch):
    """At a table a listener that raises is logged and skipped (decision 0031), so the table goes on;
    in a test that would hide a failed assertion inside a listener. Any such failure fails the test,
    unless the test is about it (``@pytest.mark.listener_failure_expected``)."""
    if request.node.get_closest_marker("listener_failure_expected"):
        yield
        return
    failures: list[str] = []
    logged = events_module._log

    class Recorded:
        def exception(self, event: str, **fields: object) -> None:
            failures.append(f"{event} {fields}\n{traceback.format_exc()}")
            logged.exception(event, **fields)

    monkeypatch.setattr(events_module, "_log", Recorded())
    yield
    assert not failures, "a listener raised and was skipped:\n" + "\n".join(failures)
