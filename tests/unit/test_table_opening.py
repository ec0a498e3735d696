"""The day's opening as the table service runs it (croupier.service.table_service.TableService.open,
decision 0037): the open answered at once with the opening as it stands, which runs on, each step
kept; an open asked again meanwhile joining it; a refusal known before it starts raised at once;
one met on the way ending it, told with its reason. The table is a stand-in whose opening waits on
a gate the test opens, so that "meanwhile" is certain; the journal is the real one."""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest

from croupier.audit.writer import AuditTrail
from croupier.service.journal import TableJournal
from croupier.service.table_service import DEVICES_READY, STOPPED, DayOpening, TableService
from croupier.state import TableState
from croupier.tables.events import Opening, Publishing
from croupier.tables.holding import HOLD_FOR_SUPERVISOR
from devices.faults import Fault, FaultLatch
from tests.links import run
from vocabulary.events import Event, Events
from vocabulary.operators import Operator, Role
from vocabulary.rules import Rule, RuleViolation

FLOOR = Operator("S-1", Role.SUPERVISOR)
OTHER = Operator("S-2", Role.SUPERVISOR)


class Links:
    def __init__(self) -> None:
        self.state = {"shoe": "ready", "shuffler": "ready"}

    def links(self) -> dict[str, str]:
        return self.state


class Latched:
    """A device's latch, all the service listens to of a device."""

    def __init__(self) -> None:
        self.latch = FaultLatch()


class GatedTable(Publishing):
    """A table whose opening reads the shoe, then waits for ``gate`` before it shuffles."""

    name = "T1"
    held_round = None
    progressive = None  # as at every table without a progressive system

    def __init__(self) -> None:
        self.events = Events()
        self.feeds = Links()
        self.gate = asyncio.Event()
        self.opened_by: list[str] = []
        self.fails: RuleViolation | None = None
        self.shuffler = Latched()
        self.equipment = (self.shuffler,)

    @property
    def faults(self) -> tuple[Fault, ...]:
        return self.shuffler.latch.faults

    @property
    def holding(self) -> tuple[Fault, ...]:
        return self.shuffler.latch.holding

    async def open(
        self, floorperson: Operator, position: Mapping[str, Any] | None = None  # Any: JSON values
    ) -> bool:
        self.opened_by.append(floorperson.ident)
        self._opening("reading the shoe")
        await self.gate.wait()
        if self.fails is not None:
            raise self.fails
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


async def _ended(service: TableService) -> None:
    async with asyncio.timeout(5):
        while service.opening is not None and service.opening.state in ("opening", "held"):
            await asyncio.sleep(0.01)


def test_the_open_answers_at_once_the_opening_runs_on_and_an_open_asked_meanwhile_joins_it(
    tmp_path: Path,
) -> None:
    table = GatedTable()

    async def scenario() -> None:
        with in_service(tmp_path, table) as (service, told):
            started = service.open(FLOOR)
            assert started == DayOpening("S-1"), "answered before the opening's first step"
            while service.opening != DayOpening("S-1", ["reading the shoe"]):
                await asyncio.sleep(0)
            joined = service.open(OTHER)
            assert joined == DayOpening("S-1", ["reading the shoe"]), "the same opening, as it stands"
            table.shuffler.latch.latch(Fault("JAM", "card jam", "decision 0017", "device"))
            held = service.opening
            assert held is not None and held.state == "held" and held.clause == HOLD_FOR_SUPERVISOR.clause
            assert held.reason == "held until a supervisor clears JAM (decision 0017)"
            assert service.open(OTHER) == held, "joined, not refused for the fault holding it"
            table.shuffler.latch.release("JAM")
            assert not service.is_open
            table.gate.set()
            await _ended(service)
            assert service.is_open
            assert service.opening == DayOpening(
                "S-1", ["reading the shoe", "shuffling the first batch"], "open"
            ), "its end kept for the screens that ask"
            assert [(e.step, e.state) for e in told if isinstance(e, Opening)] == [
                ("reading the shoe", "under way"),
                (held.reason, "held"),
                ("shuffling the first batch", "under way"),
                ("the table is open", "open"),
            ]
            assert service.open(OTHER) is None, "the day open: opened at once"

    run(scenario())
    assert table.opened_by == ["S-1"], "one opening"
    assert actions(tmp_path) == ["table_open", "table_open"]


def test_an_open_refused_before_anything_starts_is_refused_at_once_and_the_next_starts_afresh(
    tmp_path: Path,
) -> None:
    table = GatedTable()

    async def scenario() -> None:
        with in_service(tmp_path, table) as (service, told):
            table.feeds.state["shuffler"] = "backoff"
            with pytest.raises(RuleViolation) as refused:
                service.open(FLOOR)
            assert refused.value.rule is DEVICES_READY
            reason = f"the table cannot open: not connected: shuffler ({DEVICES_READY.clause})"
            assert [(e.step, e.state) for e in told if isinstance(e, Opening)] == [(reason, "refused")]
            assert service.opening is None and not service.is_open
            table.feeds.state["shuffler"] = "ready"
            table.gate.set()
            assert service.open(FLOOR) == DayOpening("S-1")
            await _ended(service)
            assert service.is_open

    run(scenario())
    assert table.opened_by == ["S-1"]


def test_an_opening_stopped_on_the_way_ends_refused_with_its_reason_and_the_next_starts_afresh(
    tmp_path: Path,
) -> None:
    table = GatedTable()
    left = RuleViolation(Rule("decision 0017", "a held batch goes back into play as left"), "not as left")

    async def scenario() -> None:
        with in_service(tmp_path, table) as (service, told):
            table.fails = left
            service.open(FLOOR)
            table.gate.set()
            await _ended(service)
            reason = "not as left (decision 0017)"
            assert service.opening == DayOpening(
                "S-1", ["reading the shoe"], "refused", reason, "decision 0017"
            )
            assert (told[-1].step, told[-1].state) == (reason, "refused")  # type: ignore[attr-defined]
            assert not service.is_open
            table.fails = None
            service.open(OTHER)
            await _ended(service)
            assert service.is_open and service.opening is not None and service.opening.by == "S-2"

    run(scenario())
    assert table.opened_by == ["S-1", "S-2"]
    assert actions(tmp_path) == ["table_open"], "the stopped opening is no operator action"


def test_a_stop_finishes_the_opening_running_and_leaves_one_held_for_a_supervisor(tmp_path: Path) -> None:
    """As a round in play is finished and one waiting for a person left (``serve``)."""
    table = GatedTable()

    async def scenario() -> None:
        with in_service(tmp_path, table) as (service, _told):
            stop = asyncio.Event()
            service.open(FLOOR)
            stop.set()
            serving = asyncio.create_task(service.serve(stop))
            await asyncio.sleep(0.05)
            assert not serving.done(), "the opening under way is finished first"
            table.gate.set()
            assert await serving == STOPPED and service.is_open

    run(scenario())
    other = GatedTable()

    async def held() -> None:
        with in_service(tmp_path / "held", other) as (service, _told):
            service.open(FLOOR)
            while other.opened_by != ["S-1"]:
                await asyncio.sleep(0)
            other.shuffler.latch.latch(Fault("JAM", "card jam", "decision 0017", "device"))
            stop = asyncio.Event()
            stop.set()
            async with asyncio.timeout(5):
                await service.serve(stop)
            left = service.opening
            assert left is not None and left.state == "refused" and "service stopped" in str(left.reason)
            assert not service.is_open and other.opened_by == ["S-1"]

    run(held())
