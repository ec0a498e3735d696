"""Linked progressives (docs/floor.md; decision 0039): two simulated Crazy 4 Poker tables, each
``croupier run`` with its own progressive controller and sign, linked through ``croupier floor``'s
link controller over a real Mosquitto with the shipped access rules and TLS: the contributions sum
at the controller to what the tables accepted, a hit at one table locks the level at the other until
the keyed reset, the broker killed locks the progressive wagers at both tables, which unlock once
it is back and the counts reconcile, and a count forged in the controller's database latches
LINK_MISMATCH at that table. Then two tables run in the test's own process on the same kind of
link, where the test chooses when each hits: simultaneous hits settled in the order received, the
level locked for the progressive wagers only while the other table plays, and a hit while the
broker is down paid once it is back; a level configured above the tables' controller limits stopped
at them (decision 0050); and a controller replaced by a unit whose meter matches, its round of the
old unit's last number applied."""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import re
import signal
import sqlite3
import ssl
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import trustme

from croupier.audit.writer import AuditTrail
from croupier.config import load_table_config
from croupier.floor_link import broker_settings, publishing
from croupier.service.journal import TableJournal
from croupier.service.table_service import TableService
from croupier.state import TableState
from devices.linked import LinkedLevels
from games.common.machine_parts import COMPLETE
from games.crazy_4_poker.inputs import PlaceWagers
from simulator.floor import controller_key
from simulator.players import simulated_players, table_options
from simulator.tables import FLOORPERSON, simulated_table
from tests.integration.floor_broker import (
    GROUP,
    LIMITS,
    RATES,
    RESETS,
    ROOT,
    Floor,
    FloorService,
    Mosquitto,
    check_payloads,
    croupier_run,
    floor_running,
    linked_floor,
    linked_table,
)
from tests.integration.test_device_dropout import latched
from vocabulary.rules import RuleViolation

pytestmark = pytest.mark.timeout(120)


class FloorProcess:
    """``croupier floor`` as a process, stopped and started again at will."""

    def __init__(self, config: Path) -> None:
        self.config: Path = config
        self.process: subprocess.Popen[bytes] | None = None
        self.start()

    def start(self) -> None:
        with self.config.with_suffix(".log").open("ab") as err:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "croupier", "--log-json", "floor", "--config", str(self.config)],
                cwd=ROOT, stdout=subprocess.DEVNULL, stderr=err,
            )  # fmt: skip

    def stop(self) -> None:
        assert self.process is not None
        self.process.send_signal(signal.SIGTERM)
        try:
            self.process.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.communicate()
            raise
        assert self.process.returncode == 0, self.config.with_suffix(".log").read_text()
        self.process = None


def _linked(floor: Floor, table: str) -> dict[int, dict[str, object]]:
    """A table's link messages, each once, by link number."""
    return {body["number"]: body for body in floor.of(table, "linked")}  # type: ignore[misc]


def _hits(floor: Floor, table: str) -> list[dict[str, object]]:
    return [body for body in floor.of(table, "linked") if body["event"] == "hit"]


def _told(floor: Floor, table: str) -> list[dict[str, object]]:
    return [body for topic, body in floor.messages if topic == f"croupier/v1/{GROUP}/link/c4p/table/{table}"]


def _trail(directory: Path, table: str) -> str:
    files = sorted((directory / table / "state" / "audit").glob("*.jsonl"))
    return "".join(path.read_text() for path in files)


def _tls_link(tmp_path: Path) -> tuple[Mosquitto, Path, dict[str, Path]]:
    """A Mosquitto over TLS (its CA beside the tables and the floor) and the configs of T1 and T2 on
    the link ``c4p``, and the floor's directory."""
    ca = trustme.CA()
    broker = Mosquitto(tmp_path / "mosquitto", tls=ca)
    ca.cert_pem.write_to_path(tmp_path / "ca.pem")
    floor_dir = tmp_path / "floor"
    floor_dir.mkdir()
    ca.cert_pem.write_to_path(floor_dir / "ca.pem")
    return broker, floor_dir, {name: linked_table(tmp_path, name, broker.port) for name in ("T1", "T2")}


def test_two_tables_share_one_jackpot_through_the_floors_link_controller(tmp_path):
    broker, floor_dir, configs = _tls_link(tmp_path)
    service = FloorProcess(linked_floor(floor_dir, broker.port))
    watcher_tls = ssl.create_default_context(cafile=tmp_path / "ca.pem")

    async def main() -> Floor:
        async with floor_running(Floor(broker.port, tls=watcher_tls)) as floor:
            tables = {name: await croupier_run(config, "--duration", "90", "--seed", str(seed))
                      for seed, (name, config) in enumerate(configs.items(), 1)}  # fmt: skip
            await floor.until(lambda _: any(_hits(floor, t) for t in configs), 40)
            await floor.until(lambda _: all(len(_linked(floor, t)) >= 3 for t in configs), 30)
            await asyncio.sleep(1.2)  # the floor's session on the broker's disk
            broker.kill()
            await asyncio.sleep(4)  # beyond heard_within: the tables lock their progressive wagers
            restarted = time.time()
            broker.start()
            after = lambda _: all(_after(floor, t, restarted) for t in configs)  # noqa: E731
            await floor.until(after, 30)
            service.stop()  # a count forged in the controller's database while the floor is down
            with contextlib.closing(sqlite3.connect(floor_dir / "floor.sqlite3")) as forged, forged:
                forged.execute("UPDATE link_tables SET wagered_cents = wagered_cents + 100 WHERE name = 'T1'")
            service.start()
            mismatch = lambda _: any(body["code"] == "LINK_MISMATCH" for body in floor.of("T1", "fault"))  # noqa: E731
            await floor.until(mismatch, 20)
            for process in tables.values():
                process.send_signal(signal.SIGTERM)
            for name, process in tables.items():
                await asyncio.wait_for(process.wait(), 30)
                assert process.returncode == 0, configs[name].with_suffix(".log").read_text()
            await asyncio.sleep(1.5)  # the controller's last state after the last contribution
            return floor

    try:
        floor = asyncio.run(main())
        service.stop()
    finally:
        broker.close()
    check_payloads(floor.messages)
    with contextlib.closing(sqlite3.connect(floor_dir / "floor.sqlite3")) as store:
        applied = {name: store.execute(
            "SELECT number, contributions, wagered_cents FROM link_tables WHERE name = ?", (name,)
        ).fetchone() for name in configs}  # fmt: skip
        level_2 = store.execute("SELECT in_cents FROM link_levels WHERE level = 2").fetchone()[0]
    total = 0
    for name in configs:
        sent = _linked(floor, name)
        assert sorted(sent) == list(range(1, len(sent) + 1)), f"{name}: link numbers out of order or missing"
        contributions = [body for body in sent.values() if body["event"] == "contribution"]
        wagered = sum(body["wagered_cents"] for body in contributions)  # type: ignore[misc]
        forged = 100 if name == "T1" else 0
        assert applied[name] == (len(sent), len(contributions), wagered + forged), name
        total += wagered
    assert level_2 == total, "level 2 is never hit: it holds every contribution of both tables"

    trail = {name: _trail(tmp_path, name) for name in configs}
    paid = [name for name, text in trail.items() if '"linked_hit_paid"' in text and '"linked_reset"' in text]
    assert paid, "no hit was paid and reset"
    hit_table = paid[0]
    other = next(name for name in configs if name != hit_table)
    locked = [
        told for told in _told(floor, other)
        if any(hit["table"] == hit_table for hit in told["levels"][0]["hits"])  # type: ignore[index]
    ]  # fmt: skip
    assert locked, f"{other} was never told that {hit_table}'s hit locked the level"
    assert '"linked_lock"' in trail[other] and '"linked_lock_lifted"' in trail[other]
    for name in configs:
        assert '"linked_wagers_locked"' in trail[name], f"{name} did not lock its progressive wagers"
        assert "link c4p: the floor's broker is not reachable" in trail[name]
        told = {body["wagers_locked"] for body in floor.of(name, "meter")}  # the floor view's
        assert "link c4p: the floor's broker is not reachable" in told and None in told, (name, told)
        assert trail[name].count('"linked_reconciled"') >= 2, f"{name} did not reconcile after the outage"
        # the controller's sensors locked out with the wagers, and re-enabled (decision 0043)
        assert '"sensors_locked_out"' in trail[name] and '"sensors_enabled"' in trail[name], name
        assert '"linked_device_base"' in trail[name], f"{name} never read its controller against the link"
    for name in configs:  # each sign showed the link's value, and showed what it was told
        assert '"linked_value_shown"' in trail[name] and "METER_MISMATCH" not in trail[name], name
    latched = [line for line in trail["T1"].splitlines() if "LINK_MISMATCH" in line]
    assert latched, "the count forged at the controller latched LINK_MISMATCH at T1"
    assert "LINK_MISMATCH" not in trail["T2"]


def _after(floor: Floor, table: str, since: float) -> bool:
    """A contribution from ``table`` made after ``since``."""
    from datetime import datetime

    return any(
        body["event"] == "contribution" and datetime.fromisoformat(str(body["at"])).timestamp() > since
        for body in floor.of(table, "linked")
    )


#: A card of the stub falls as it is next counted (every fifth round where the shuffler does not
#: count the deck, 657a.9(d)): a wrong stub count, rounds 5 and 10 void (657a.9(f)).
VOIDS_ROUNDS = "".join(f'[[script]]\nround = {n}\nfault = "miscount"\nat = "stub"\n' for n in (1, 6))


def test_over_the_embedded_broker_the_contributions_sum_at_the_controller(tmp_path):
    """The same link on the floor's embedded amqtt broker (MQTT 3.1.1), as a developer runs it; the
    rounds voided at T1 (a wrong stub count) withdraw their contributions: the pot holds exactly what
    the rounds that stood contributed, to the ten-thousandth of a cent."""
    floor_dir = tmp_path / "floor"
    floor_dir.mkdir()
    config = linked_floor(floor_dir, None)
    port = int(re.findall(r'bind = "127\.0\.0\.1:(\d+)"', config.read_text())[0])
    # Lines that hardly hit: no lock stops T1's progressive wagers in the rounds it voids.
    login = 'protocol = "3.1.1"'
    configs = {name: linked_table(tmp_path, name, port, login, hits=False) for name in ("T1", "T2")}
    for table in configs.values():
        table.write_text(table.read_text().replace(f'group = "{GROUP}"', 'group = "dev"'))
    (tmp_path / "voids.toml").write_text(VOIDS_ROUNDS)
    t1 = configs["T1"].read_text()  # a shuffler that does not count: the dealer counts the stub
    configs["T1"].write_text(t1.replace('shuffler = "counting"', 'shuffler = "non-counting"'))
    # T1 plays to its tenth round: the fifth's and the tenth's stubs are counted and miscounted, and
    # both rounds voided; T2 plays for a time.
    runs = {"T1": ["--rounds", "10", "--duration", "40", "--faults", str(tmp_path / "voids.toml")],
            "T2": ["--duration", "8"]}  # fmt: skip
    service = FloorProcess(config)

    async def main() -> None:
        # For a time, not a number of rounds: a table whose last hit is not yet reset when it stops
        # leaves the level locked, and the other table then takes no progressive wager, as it must.
        tables = [await croupier_run(table, "--seed", str(seed), *runs[name])
                  for seed, (name, table) in enumerate(configs.items(), 3)]  # fmt: skip
        for table, process in zip(configs.values(), tables, strict=True):
            await asyncio.wait_for(process.wait(), 40)
            assert process.returncode == 0, table.with_suffix(".log").read_text()

    try:
        asyncio.run(main())
        time.sleep(1)  # the controller's last state after the last contribution
    finally:
        service.stop()
    with contextlib.closing(sqlite3.connect(floor_dir / "floor.sqlite3")) as store:
        applied = dict(store.execute("SELECT name, wagered_cents FROM link_tables").fetchall())
        accrued = "SELECT in_cents * rate_bp + carry FROM link_levels WHERE level = 2"  # ten-thousandths
        level_2 = store.execute(accrued).fetchone()[0]
    withdrawn = {}
    for name in configs:
        records = [json.loads(line) for line in _trail(tmp_path, name).splitlines()]
        sent = sum(r["fields"]["wagered_cents"] for r in records if r["kind"] == "linked_contribution")
        withdrawn[name] = sum(r["fields"]["wagered_cents"] for r in records if r["kind"] == "linked_void")
        assert sent and applied[name] == sent - withdrawn[name], name
        assert any(r["kind"] == "linked_value_shown" for r in records), f"{name}'s sign never showed the link"
    assert withdrawn["T1"], "T1's voided rounds withdrew no contribution"
    assert level_2 == sum(applied.values()) * RATES[2], "level 2 holds what the rounds that stood contributed"



@dataclass
class TablePC:
    """A table's PC run in the test's process, as ``croupier run`` runs it (its state, trail, table
    and floor link), so that the test says when a round locks and when a hit is paid."""

    sim: Any  # Any: the simulated Crazy 4 Poker table
    service: TableService
    link: LinkedLevels

    @property
    def progressive(self) -> Any:  # Any: the table's devices.progressive.Progressive
        return self.sim.table.progressive

    async def locked_round(self, seat: int) -> None:
        """A progressive round with one wager, at ``seat``, taken by the controller, locked, counted
        and dealing: its contribution on its way to the link."""
        await _until(lambda: self.progressive.wagers_refused() is None, 10, "progressive wagers refused")
        controller = self.sim.devices["progressive"]
        await self.progressive.open_round()
        controller.call(lambda engine: engine.personality.cover(engine, seat))
        await self.sim.table.feeds.settled()
        assert (await self.progressive.lock()).count == 1
        controller.call(lambda engine: engine.personality.uncover(engine, seat))  # the chip collected
        self.progressive.chip_count(1)
        self.progressive.begin_dealing()

    async def reset(self, level: int) -> None:
        await self.sim.table.reset_level(level, controller_key(self.sim)(), FLOORPERSON)

    def applied(self) -> bool:
        """Whether the controller told this table it applied all it sent."""
        return self.link.applied == self.link.sender.counts() and self.link.refusal() is None

    def wagered(self) -> int:
        """The cents of progressive wagers the controller took in this table's last round."""
        return int(self.progressive.round.count * self.progressive.round.wager_cents)


def _level_1(*wagered: int) -> int:
    """What level 1 holds once ``wagered`` cents were wagered since it last restarted (none of them
    leaves a fraction of a cent)."""
    return RESETS[1] + sum(wagered) * RATES[1] // 10_000


@contextlib.asynccontextmanager
async def _table_pc(config: Path) -> AsyncIterator[TablePC]:
    table = load_table_config(config)
    table.service.state_db.parent.mkdir(parents=True, exist_ok=True)
    with TableState(table.service.state_db) as state, AuditTrail(
        table.service.audit_dir, table.name, heads=state
    ) as trail:  # fmt: skip
        journal = TableJournal(trail, state, table=table.name, game=table.game)
        async with simulated_table(table.game, rules=table.rules, name=table.name, shuffler_seed=3) as sim:
            journal.keep(sim.table)
            players = simulated_players(table.game, random.Random(5), **table_options(table.game, sim))
            service = TableService(sim.table, journal, game=table.game, players=players)
            async with publishing(broker_settings(table), service, trail) as floor_link:
                assert floor_link is not None and floor_link.linked is not None
                yield TablePC(sim, service, floor_link.linked)


async def _until(found: Callable[[], bool], timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not found():
        assert time.monotonic() < deadline, what
        await asyncio.sleep(0.05)


def test_hits_in_the_order_received_a_level_locked_for_wagers_only_and_a_hit_while_the_link_is_down(
    tmp_path,
):
    """Decision 0039 end to end, on Mosquitto with TLS and the floor's link controller:

    - two tables hit level 1 together: the controller settles them in the order it received them,
      each table is paid what the controller froze for its hit (the first the level's value, the
      second the value it restarted at) and the two add up to what the link held;
    - while a hit at T1 waits for its keyed reset, T1 holds (605a.7(a)) and T2 plays base-game rounds
      with its progressive wagers refused, naming the link, the level and T1's hit; T1's keyed reset
      lifts the lock and T2's progressive wagers are taken again;
    - a hit paid while the broker is down waits, the table saying so, and is paid once it is back."""
    broker, floor_dir, configs = _tls_link(tmp_path)
    for config in configs.values():  # a table on a loaded machine is not taken for one unheard
        config.write_text(config.read_text().replace("heard_within = 3", "heard_within = 15"))
    service = FloorProcess(linked_floor(floor_dir, broker.port))

    async def main() -> None:
        async with _table_pc(configs["T1"]) as t1, _table_pc(configs["T2"]) as t2:
            await _until(lambda: t1.applied() and t2.applied(), 30, "the link did not come up")
            # -- two hits together, settled in the order received --------------------------------
            await asyncio.gather(t1.locked_round(3), t2.locked_round(5))
            pot = _level_1(t1.wagered(), t2.wagered())
            await _until(lambda: t1.link.value(1) == t2.link.value(1) == pot, 10, "not both applied")
            paid = await asyncio.wait_for(
                asyncio.gather(t1.progressive.award(1, 3), t2.progressive.award(1, 5)), 20
            )
            amounts = {"T1": paid[0].amount_cents, "T2": paid[1].amount_cents}
            await _until(lambda: len(t1.link.hits(1)) == 2, 10, "T1 not told both hits")
            first, second = sorted(t1.link.hits(1), key=lambda hit: hit["order"])
            assert first["amount_cents"] == pot and second["amount_cents"] == RESETS[1]
            assert amounts[first["table"]] == pot and amounts[second["table"]] == RESETS[1]
            assert sum(amounts.values()) == pot + RESETS[1], "the link paid what it held, once"
            # -- the lock is the level's: T2 plays on, its progressive wagers refused ------------
            await t2.reset(1)
            await _until(lambda: [hit["table"] for hit in t2.link.hits(1)] == ["T1"], 10, "T2's reset")
            (t1_hit,) = t2.link.hits(1)
            await _until(lambda: t2.link.refusal() is not None, 10, "T2's wagers taken")
            assert t2.progressive.wagers_refused() == (
                "link c4p: level 1 jackpot-locked by the hit at T1 seat 3 "
                f"(the link's hit {t1_hit['order']}) until the keyed reset"
            )
            held = asyncio.create_task(t1.sim.table.prepare_round())  # T1 holds until its keyed reset
            for _ in range(2):
                round_ = await asyncio.wait_for(t2.sim.table.play_round(t2.service.players), 20)
                assert round_.state == COMPLETE and t2.progressive.round.count == 0
            assert not held.done()
            locked = "progressive wager refused: link c4p: level 1 jackpot-locked"
            with pytest.raises(RuleViolation, match=locked):
                t2.sim.table._wager(round_, PlaceWagers(seat=1, ante=500, super_bonus=500, progressive=100))
            await t1.reset(1)
            await asyncio.wait_for(held, 5)
            await t2.locked_round(2)  # the lock lifted: a progressive wager taken again
            # -- a hit while the broker is down waits, says so, and is paid once it is back -------
            await t1.locked_round(4)
            value = _level_1(t1.wagered(), t2.wagered())
            await _until(lambda: t1.link.value(1) == t2.link.value(1) == value, 10, "not both applied")
            broker.stop()
            await _until(lambda: not t1.link.sender.connected, 10, "T1 did not lose the broker")
            hit = asyncio.create_task(t1.progressive.award(1, 4))
            await _until(lambda: t1.service.waiting_for() is not None, 5, "the round did not wait")
            assert t1.service.waiting_for() == "held: link c4p: the amount of the level 1 hit at seat 4"
            await asyncio.sleep(1)
            assert not hit.done()
            broker.start()
            assert (await asyncio.wait_for(hit, 30)).amount_cents == value
            assert t1.service.waiting_for() is None

    try:
        asyncio.run(main())
    finally:
        service.stop()
        broker.close()
    trail = _trail(tmp_path, "T2")
    assert '"linked_wagers_locked"' in trail and "jackpot-locked by the hit at T1 seat 3" in trail


def test_a_link_limit_above_the_tables_controller_limits_stops_the_level_there_and_is_shown(tmp_path):
    """Decision 0050 end to end, on Mosquitto with TLS: the floor configures level 1 with a
    limit_cents twice what the tables' controllers hold, and a reset value 5 cents below their limit.
    The tables publish their controllers' limits in their birth and meter messages; the floor stops
    the level at them: the value grown past them (a round at each table, 5 cents each) is told at
    their limit, the 5 cents above kept as the overflow, and both tables take the state and their
    progressive wagers (a table refused a state above its own controller's limit and locked its
    wagers for good). The floor view and the floor's log name the link, the level, each table and
    both limits."""
    broker, floor_dir, configs = _tls_link(tmp_path)
    for config in configs.values():  # a table on a loaded machine is not taken for one unheard
        config.write_text(config.read_text().replace("heard_within = 3", "heard_within = 15"))
    config = linked_floor(floor_dir, broker.port)
    configured = f"reset_cents = {RESETS[1]}\nlimit_cents = {LIMITS[1]}\n"
    assert configured in config.read_text()
    reset = LIMITS[1] - 5
    config.write_text(config.read_text().replace(
        configured, f"reset_cents = {reset}\nlimit_cents = {2 * LIMITS[1]}\n"
    ))  # fmt: skip
    view = re.findall(r'bind = "(127\.0\.0\.1:\d+)"', config.read_text())[-1]
    service = FloorProcess(config)

    async def main() -> None:
        async with _table_pc(configs["T1"]) as t1, _table_pc(configs["T2"]) as t2:
            await _until(lambda: t1.applied() and t2.applied(), 30, "the link did not come up")
            await asyncio.gather(t1.locked_round(3), t2.locked_round(5))  # 5 cents each at 5 %
            assert reset + (t1.wagered() + t2.wagered()) * RATES[1] // 10_000 == LIMITS[1] + 5
            await _until(lambda: t1.applied() and t2.applied(), 10, "the contributions not applied")
            for table in (t1, t2):
                told = table.link.levels[1]
                assert (told["value_cents"], told["overflow_cents"]) == (LIMITS[1], 5), "the 5 cents kept"
                assert table.link.value(1) == LIMITS[1] and table.link.refusal() is None

    try:
        asyncio.run(main())
        (link,) = FloorService(config, f"http://{view}").links()
    finally:
        service.stop()
        broker.close()
    said = (
        f"link c4p: level 1's limit_cents {2 * LIMITS[1]} is above table {{}}'s progressive controller "
        f"limit of {LIMITS[1]} cents: the level stops at {LIMITS[1]} cents, the rest kept as its overflow"
    )
    assert [(shown["table"], shown["reason"]) for shown in link["limits"]] == [
        (name, said.format(name)) for name in ("T1", "T2")
    ]
    assert said.format("T1") in config.with_suffix(".log").read_text()


def test_a_controller_replaced_by_one_whose_meter_matches_has_its_round_of_the_same_number_applied(
    tmp_path,
):
    """Decision 0039 end to end, on Mosquitto with TLS: T1's progressive controller is replaced under
    the running table by another unit (another serial number) whose wagers-in meter reads what the
    old one's did and whose round bears the number of the old unit's last; DEVICE_SWAPPED latches
    and a floorperson accepts the new unit. The meters agree, so nothing but the unit tells the two
    rounds apart: the new unit's round is contributed and applied at the floor once, its wagers in
    the pot (before, the table took it for the old unit's round and never sent it)."""
    broker, floor_dir, configs = _tls_link(tmp_path)
    configs["T1"].write_text(configs["T1"].read_text().replace("heard_within = 3", "heard_within = 15"))
    service = FloorProcess(linked_floor(floor_dir, broker.port, ("T1",)))

    async def main() -> None:
        async with _table_pc(configs["T1"]) as t1:
            await _until(t1.applied, 30, "the link did not come up")
            await t1.locked_round(3)
            last, first = t1.progressive.round.round, t1.wagered()
            await _until(lambda: t1.applied() and t1.link.value(1) == _level_1(first), 10, "not applied")

            def replaced(engine: Any) -> None:  # the same meters, its round numbered as the old one's last
                engine.personality.serial_number = "SIM-0002"
                engine.personality.locked, engine.personality.accepted = False, frozenset()

            controller = t1.sim.devices["progressive"]
            controller.call(replaced)
            controller.reboot()
            await latched(t1.sim.table, "DEVICE_SWAPPED", "LINK_LOST")
            await t1.sim.connections["progressive"].wait_ready(10)
            for code in ("DEVICE_SWAPPED", "LINK_LOST"):
                await t1.sim.table.clear(code, FLOORPERSON)
            await t1.locked_round(5)
            assert t1.progressive.round.round == last
            assert t1.progressive.controller_unit["serial_number"] == "SIM-0002"
            both = _level_1(first, t1.wagered())
            await _until(lambda: t1.applied() and t1.link.value(1) == both, 10, "its round not applied")
            assert t1.link.sender.counts().contributions == 2 and not t1.progressive.latch.faults

    try:
        asyncio.run(main())
    finally:
        service.stop()
        broker.close()
