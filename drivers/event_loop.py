"""The event loop the table service runs on: uvloop's (decision 0051).

Every device link of a table is served on one asyncio loop, and each command's round trip wakes it
twice (the reply read, the waiting task resumed); uvloop does that loop's work in compiled code, which
cut the table's CPU for a round trip by about a quarter against the standard library's loop.
``croupier run`` runs on it, and so do ``bench/link_rtt.py``, ``bench/card_latency.py`` and the
drivers' tests (tests/links.py), so that what is measured and tested is what runs at the table.
"""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from typing import TypeVar

import uvloop

T = TypeVar("T")


def run(main: Coroutine[object, object, T]) -> T:
    """Run ``main`` to its end on a new uvloop loop, as ``asyncio.run`` does on the standard one
    (Ctrl-C cancels it; the loop's other tasks and async generators are finished before it closes)."""
    with asyncio.Runner(loop_factory=uvloop.new_event_loop) as runner:
        return runner.run(main)
