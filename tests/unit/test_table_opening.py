"""The day's opening as the table service runs it (croupier.service.table_service.TableService.open):
each step kept while it runs, an open asked again meanwhile joining it, a request that goes away
not stopping it, and a refusal told with its reason. The table is a stand-in whose opening waits on
a gate the test opens, so that "meanwhile" is certain; the journal is the real one."""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from croupier.audit.writer import AuditTrail
from croupier.service.journal import TableJournal
from croupier.service.table_service import DEVICES_READY, TableService
from croupier.state import TableState
from croupier.tables.events import Opening, Publishing
from tests.links import run
from vocabulary.events import Event, Events
from vocabulary.operators import Operator, Role
from vocabulary.rules import RuleViolation

FLOOR = Operator("S-1", Role.SUPERVISOR)
OTHER = Operator("S-2", Role.SUPERVISOR)


class Links:
    def __init__(self) -> None:
        self.state = {"shoe": "ready", "shuffler": "ready"}

    def links(self) -> dict[str, str]:
        return self.state


class GatedTable(Publishing):
    """A table whose opening reads the shoe, then waits for ``gate`` before it shuffles."""

    name = "T1"
    faults = ()

    def __init__(self) -> None:
        self.events = Events()
        self.feeds = Links()
        self.gate = asyncio.Event()
        self.opened_by: list[str] = []

    async def open(
        self, floorperson: Operator, position: Mapping[str, Any] | None = None  # Any: JSON values
    ) -> bool:
        self.opened_by.append(floorperson.ident)
        self._opening("reading the shoe")
        await self.gate.wait()
        self._opening("shuffling the first batch")
        return False

    def position(self) -> dict[str, Any]:  # Any: JSON values
        return {}


@contextlib.contextmanager
def in_service(tmp_path: Path, table: GatedTable) -> Iterator[tuple[TableService, list[Event]]]:
    """The table in service, closed until a supervisor opens it, and every event it told."""
    with AuditTrail(tmp_path / "audit", "T1") as trail, TableState(tmp_path / "state.db") as state:
        journal = TableJournal(trail, state, table="T1", game="free-bet-blackjack")
        journal.kept = table
        told: list[Event] = []
        table.events.subscribe(told.append)
        yield TableService(table, journal, game="free-bet-blackjack", players=object(), opened=False), told


def actions(tmp_path: Path) -> list[str]:
    files = sorted((tmp_path / "audit").glob("*.jsonl"))
    lines = [line for path in files for line in path.read_text().splitlines()]
    return [r["fields"]["action"] for r in map(json.loads, lines) if r["kind"] == "operator_action"]


def test_an_open_asked_again_while_the_opening_runs_joins_it(tmp_path: Path) -> None:
    table = GatedTable()

    async def scenario() -> None:
        with in_service(tmp_path, table) as (service, told):
            first = asyncio.create_task(service.open(FLOOR))
            while service.opening != ["reading the shoe"]:
                await asyncio.sleep(0)
            again = asyncio.create_task(service.open(OTHER))
            await asyncio.sleep(0.05)
            assert not first.done() and not again.done() and not service.is_open
            assert service.opening == ["reading the shoe"], "the steps so far"
            table.gate.set()
            await asyncio.gather(first, again)
            assert service.is_open and service.opening is None
            assert [(e.step, e.state) for e in told if isinstance(e, Opening)] == [
                ("reading the shoe", "under way"),
                ("shuffling the first batch", "under way"),
                ("the table is open", "open"),
            ]

    run(scenario())
    assert table.opened_by == ["S-1"], "one opening"
    assert actions(tmp_path) == ["table_open"]


def test_a_request_that_goes_away_does_not_stop_the_opening(tmp_path: Path) -> None:
    table = GatedTable()

    async def scenario() -> None:
        with in_service(tmp_path, table) as (service, _told):
            asked = asyncio.create_task(service.open(FLOOR))
            while not service.opening:
                await asyncio.sleep(0)
            asked.cancel()  # the page was closed
            await asyncio.sleep(0.01)
            table.gate.set()
            while service.opening is not None:
                await asyncio.sleep(0.01)
            assert service.is_open, "opened all the same, betting open"

    run(scenario())
    assert actions(tmp_path) == ["table_open"]


def test_an_opening_refused_is_told_with_its_reason_and_the_next_open_starts_afresh(tmp_path: Path) -> None:
    table = GatedTable()

    async def scenario() -> None:
        with in_service(tmp_path, table) as (service, told):
            table.feeds.state["shuffler"] = "backoff"
            try:
                await service.open(FLOOR)
            except RuleViolation as refused:
                assert refused.rule is DEVICES_READY
            else:
                raise AssertionError("opened with the shuffler away")
            reason = f"the table cannot open: not connected: shuffler ({DEVICES_READY.clause})"
            assert [(e.step, e.state) for e in told if isinstance(e, Opening)] == [(reason, "refused")]
            assert service.opening is None and not service.is_open
            table.feeds.state["shuffler"] = "ready"
            table.gate.set()
            await service.open(FLOOR)
            assert service.is_open

    run(scenario())
    assert table.opened_by == ["S-1"]
