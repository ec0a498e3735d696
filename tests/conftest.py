"""Shared fixtures. Every test ends with no stray thread: a leaked reader or device thread fails it."""

from __future__ import annotations

import threading
import time

import pytest


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
