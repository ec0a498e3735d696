"""A linked progressive as both ends name it (docs/floor.md, "Linked progressives"; decision 0039).

At the table, ``[floor.link]``: the link's ``id``, the levels of the table's progressive that are
linked with the contribution rate of each (``levels``: level = basis points of each progressive
wager), and ``heard_within``, the seconds without the link controller's state after which the
table takes the link for lost and locks its progressive wagers. At the floor, ``[links.ID]``: the
``tables`` on the link, each level's rate, reset (seed) value and limit (the most it shows and
pays, at most every linked table's controller limit, which refuses a value above its own), and
``heartbeat``, how often the
controller publishes each level's value even when nothing changed. The table checks that the rates
the controller publishes are its own, so a link configured differently at either end is refused
rather than paid from."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from croupier.config.section import LEVEL, Section

#: A contribution rate's unit: hundredths of a percent of each progressive wager.
BASIS_POINTS = 10_000


@dataclass(frozen=True)
class TableLink:
    """``[floor.link]``: the link a table's progressive levels are on."""

    id: str
    rates: Mapping[int, int]  # level -> basis points of each progressive wager
    heard_within: float  # seconds


@dataclass(frozen=True)
class LinkedLevel:
    rate_bp: int
    reset_cents: int  # the level's value at the start and after each hit
    limit_cents: int  # the most the level shows and pays; what accrues above it waits in the overflow


@dataclass(frozen=True)
class FloorLink:
    """``[links.ID]``: one link the floor's controller runs."""

    id: str
    tables: tuple[str, ...]
    levels: Mapping[int, LinkedLevel]
    heartbeat: float  # seconds between two publications of an unchanged state


def read_table_link(section: Section) -> TableLink | None:
    """``[floor.link]``, or None when the table's progressive is on no link."""
    if not section.data:
        return None
    section.only(("id", "levels", "heard_within"))
    levels = section.section("levels", required=True)
    rates = {_level(levels, name): _rate(levels, name, levels.value(name, int)) for name in levels.data}
    if not rates:
        raise section.error("levels", "empty", "at least one level = its rate in basis points")
    return TableLink(_id(section), rates, section.number("heard_within", float, 10.0, 0.0, 3600))


def read_floor_links(section: Section) -> dict[str, FloorLink]:
    """``[links]``: every link the floor's controller runs, by id (none: no link controller)."""
    links = {}
    for name in section.data:
        one = section.section(name, required=True)
        one.only(("tables", "levels", "heartbeat"))
        if not LEVEL.match(name):
            raise section.error(name, "not a link id", "letters, digits, '-' or '_' (it is a topic level)")
        tables = one.strings("tables")
        for index, table in enumerate(tables):
            if not LEVEL.match(table):
                raise one.error(f"tables[{index}]", f"got {table!r}", "a table's name")
        if len(set(tables)) != len(tables) or not tables:
            raise one.error("tables", f"got {tables!r}", "the link's tables, each once")
        levels = one.section("levels", required=True)
        read = {}
        for level_name in levels.data:
            level = levels.section(level_name, required=True)
            level.only(("rate_bp", "reset_cents", "limit_cents"))
            number = _level(levels, level_name)
            reset, limit = _cents(level, "reset_cents"), _cents(level, "limit_cents")
            if limit < reset:
                raise level.error("limit_cents", f"got {limit!r}", f"at least reset_cents ({reset})")
            read[number] = LinkedLevel(_rate(level, "rate_bp", level.value("rate_bp", int)), reset, limit)
        if not read:
            raise one.error("levels", "empty", "at least one level: rate_bp, reset_cents, limit_cents")
        links[name] = FloorLink(name, tuple(tables), read, one.number("heartbeat", float, 2.0, 0.0, 600))
    return links


def _id(section: Section) -> str:
    link = section.value("id", str, expected="the link's id: letters, digits, '-' or '_'")
    if not LEVEL.match(link):
        raise section.error("id", f"got {link!r}", "letters, digits, '-' or '_' (it is a topic level)")
    return link


def _level(section: Section, name: str) -> int:
    if not name.isdigit() or not 1 <= int(name) <= 255:
        raise section.error(name, "not a level", "a progressive level's number, 1 to 255")
    return int(name)


def _cents(section: Section, name: str) -> int:
    cents = int(section.value(name, int, expected="whole cents, 0 or more"))
    if cents < 0:
        raise section.error(name, f"got {cents!r}", "whole cents, 0 or more")
    return cents


def _rate(section: Section, name: str, rate: int) -> int:
    if not 0 < rate <= BASIS_POINTS:
        raise section.error(name, f"got {rate!r}", f"basis points of each wager, 1 to {BASIS_POINTS}")
    return rate
