"""The table's side of a linked progressive (devices.linked; decision 0039): progressive wagers
refused, naming the link, while the broker is away, the controller unheard or its rates not the
table's, and after a loss until what was sent is applied; a contribution on its way is no
difference; a count that cannot be in transit sent again, then LINK_MISMATCH latched, and a
supervisor's clear taking the difference as it stands. A contribution funds only the table's
linked levels; a voided round (a cut-off one cleared too) withdraws its contribution once; a hit the
link cannot pay is refused at once, or ends its wait with the controller's reason (decision 0044).
The table's [floor.link] read."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import random
import sqlite3
from datetime import UTC, datetime, timedelta
from pathlib import Path

import aiomqtt
import pytest
import structlog

from croupier.config import DEFAULT_TABLE_CONFIG, load_table_config
from croupier.config.linked import read_table_link
from croupier.config.section import Section
from croupier.errors import ConfigError
from croupier.floor_link.linked import SpoolSender
from croupier.floor_link.messages import Schemas
from croupier.floor_link.publisher import _link_heard
from croupier.floor_link.spool import Spool
from croupier.floor_link.topics import Topics
from croupier.service.journal import ROUND_CUT_OFF_CODE
from croupier.service.table_service import supervisor_clear
from devices import progressive as device
from devices.faults import SPOOL_UNWRITTEN_CODE, Fault, FaultLatch
from devices.linked import Counts, HitRefused, LinkedLevels, Unspooled, unit_key
from devices.progressive_rules import LINK_MISMATCH, LOCKOUT_FAILED
from drivers.progressive import MeterSignDriver, ProgressiveDriver
from drivers.protocol.classes.meter_sign import Shown
from drivers.protocol.classes.progressive import LevelInfo, RoundState, SetLockout
from firmware_sim.personality import Personality
from firmware_sim.progressive import ControllerPersonality
from games.common.machine_parts import COMPLETE
from simulator.players import simulated_players, table_options
from simulator.tables import simulated_table
from tests.links import run
from tests.unit.test_progressive_rules import SUPERVISOR, Table
from vocabulary.rules import RuleViolation


class Sender:
    identity = "s1"

    def __init__(self) -> None:
        self.connected = True
        self.sent = Counts()
        self.waiting = 0
        self.resent: list[int] = []
        self.base: int | None = None
        self.taken = Counts()  # the difference a supervisor's clear took, kept (the spool's)
        self.messages: list[tuple[str, dict[str, object]]] = []  # each message sent: its event, its fields
        self.kept: list[dict[str, object]] = []  # each message sent not yet applied, as the spool keeps it
        self.unit: str | None = None  # the controller unit of the round last contributed (the spool's)

    def send(self, event, fields, *, contribution=None, withdrawal=None, hit=None):
        self.messages.append((event, dict(fields)))
        self.kept.append({"event": event, **fields, "number": self.sent.number + 1})
        if contribution is not None:
            self.unit = contribution[0]
            cents = self.sent.wagered_cents + contribution[2]
            self.sent = Counts(self.sent.number + 1, self.sent.contributions + 1, cents)
        elif withdrawal is not None:  # the device base rises by the cents withdrawn, as the spool's does
            cents = self.sent.wagered_cents - withdrawal[2]
            self.sent = Counts(self.sent.number + 1, self.sent.contributions - 1, cents)
            if self.base is not None:
                self.base += withdrawal[2]
        else:
            self.sent = Counts(self.sent.number + 1, self.sent.contributions, self.sent.wagered_cents)
        return self.sent.number

    def counts(self):
        return self.sent

    def undelivered(self):
        return self.waiting

    def unapplied(self):
        return self.kept

    def resend(self, after):
        self.resent.append(after)
        return self.sent.number - after

    def applied(self, through):
        self.kept = [kept for kept in self.kept if int(kept["number"]) > through]

    def linked_unit(self):
        return self.unit

    def device_base(self):
        return self.base

    def take_device_base(self, cents):
        self.base = cents

    def difference(self):
        return self.taken

    def take_difference(self, difference, device_base):
        self.taken = difference
        if device_base is not None:  # the controller started over (its unit of the last round kept)
            self.base = device_base


@dataclasses.dataclass
class Floor:
    """What the spool's sender asks of the floor link: the table's topics and whether the broker is
    connected (here, always: the broker is not what is tested); a message spooled wakes nothing."""

    topics: Topics
    connected: bool = True

    def wake(self) -> None:
        """Nothing to deliver to: the spool itself is what is read."""


#: The controller unit a fake progressive answers with (devices.progressive.Progressive.controller_unit).
UNIT = {"vendor": "Acme", "model": "PC-1", "serial_number": "0001"}


class Progressive:
    """What the link reads of the table's progressive: its latch, its levels and wins, its records,
    the controller unit answering."""

    def __init__(self) -> None:
        self.latch, self.levels, self.records, self.clauses = FaultLatch(), {}, [], {}
        self.wins: dict[int, object] = {}
        self.controller_unit = UNIT

    def notify(self, rule, kind, **fields):
        self.records.append(kind)
        self.clauses[kind] = rule.clause

    def follow_refusal(self):
        """The sensors' lockout (devices.progressive) is not this fake's: see test_sensor_lockout."""


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock(monkeypatch):
    ticking = Clock()
    monkeypatch.setattr("devices.linked.time.monotonic", ticking)
    return ticking


def _linked() -> tuple[LinkedLevels, Sender, Progressive]:
    sender, progressive = Sender(), Progressive()
    link = LinkedLevels("T1", "c4p", {1: 500}, 3.0, sender)
    link.progressive = progressive  # type: ignore[assignment]
    return link, sender, progressive


#: The store and revision of a link state (decision 0050): the same in each, so each is taken.
TOLD = {"store": "5" * 32, "revision": 1}


def _at(ago: float = 0.0) -> str:
    """A state's ``at``, ``ago`` seconds before now, as the controller writes it."""
    return (datetime.now(UTC) - timedelta(seconds=ago)).isoformat(timespec="milliseconds")


def _told(
    link: LinkedLevels, applied: Counts, rate: int = 500, ago: float = 0.0, retained: bool = False
) -> None:
    level = {"level": 1, "rate_bp": rate, "reset_cents": 1000, "value_cents": 1000, "locked": False,
             "hits": []}  # fmt: skip
    body = {"spool": link.sender.identity, "number": applied.number, "contributions": applied.contributions,
            "wagered_cents": applied.wagered_cents}  # fmt: skip
    link.heard({"link": "c4p", "table": "T1", "at": _at(ago), "levels": [level], "applied": body,
                **TOLD, "refused": []}, retained=retained)


def heard_open(link: LinkedLevels, rate_bp: int = 500) -> None:
    """The link controller's state for ``link``'s table, heard now: level 1 open at ``rate_bp``,
    nothing applied of the table (nothing sent yet)."""
    level = {"level": 1, "rate_bp": rate_bp, "reset_cents": 1000, "value_cents": 1000, "locked": False,
             "hits": []}  # fmt: skip
    link.heard({"link": link.link, "table": link.table, "at": _at(), "levels": [level], "applied": None,
                **TOLD, "refused": []})  # fmt: skip


def _lock(link: LinkedLevels, round_: int, count: int) -> None:
    link.contribute(RoundState(round=round_, locked=True, levels=1, count=count, wager_cents=100, accepted=0))


def test_the_wagers_are_refused_naming_the_link_until_the_controller_is_heard_and_agrees(clock):
    link, sender, _ = _linked()
    sender.connected = False
    assert link.refusal() == "link c4p: the floor's broker is not reachable"
    sender.connected = True
    assert link.refusal() == "link c4p: the link controller not heard yet"
    _told(link, Counts(), rate=400)
    rates = "the controller applies rates {1: 400}, this table is configured for {1: 500}"
    assert rates in str(link.refusal())
    _told(link, Counts())
    assert link.refusal() is None
    clock.now += 3.5
    link.look()
    assert link.refusal() == "link c4p: the link controller not heard within 3 s"


def test_a_contribution_on_its_way_is_no_difference_but_after_a_loss_all_must_be_applied(clock):
    link, sender, progressive = _linked()
    _told(link, Counts())
    _lock(link, 1, 3)
    link.look()
    assert link.refusal() is None  # on its way while the link is up
    sender.connected = False
    link.look()
    sender.connected = True
    _told(link, Counts())
    assert link.refusal() == "link c4p: contributions not yet reconciled: 1 sent, 0 applied by the controller"
    _told(link, Counts(1, 1, 300))
    assert link.refusal() is None
    assert progressive.records.count("linked_reconciled") == 2
    assert "linked_wagers_locked" in progressive.records and "linked_contribution" in progressive.records


def test_one_round_is_contributed_once(clock):
    link, sender, _ = _linked()
    sender.send = lambda event, fields, **_: 0  # the spool had the round already
    _lock(link, 1, 3)
    assert sender.sent == Counts()


def test_a_count_missing_is_sent_again_then_latches_link_mismatch(clock):
    link, sender, progressive = _linked()
    _told(link, Counts())
    _lock(link, 1, 2)
    _lock(link, 2, 1)
    _told(link, Counts(1, 1, 200))  # the second lost on its way, nothing left in the spool
    clock.now += 3.5
    _told(link, Counts(1, 1, 200))
    assert sender.resent == [1] and not progressive.latch
    _told(link, Counts(1, 1, 200))  # the grace begins again for what was sent again
    clock.now += 3.5
    _told(link, Counts(1, 1, 200))
    assert [fault.code for fault in progressive.latch.faults] == [LINK_MISMATCH]
    assert "contributions do not reconcile" in str(link.refusal())


def test_more_applied_than_sent_latches_at_once_and_a_supervisors_clear_takes_the_difference(clock):
    link, _, progressive = _linked()
    _told(link, Counts())
    _lock(link, 1, 1)
    _told(link, Counts(1, 1, 200))  # forged: 100 cents more than the table accepted
    assert progressive.latch.faults[0].detail == (
        "link c4p: the table sent 1 link messages with 1 contributions of 100 cents; "
        "the controller applied 1 with 1 of 200"
    )
    progressive.latch.release(LINK_MISMATCH)
    link.cleared()
    _lock(link, 2, 1)
    _told(link, Counts(2, 2, 300))
    assert link.refusal() is None and not progressive.latch


def test_a_cleared_difference_stays_taken_after_the_table_restarts(clock, tmp_path):
    """The supervisor's clear takes the difference as it stands, kept in the spool in one transaction
    (with the controller's device base when its meter differed too): the table PC restarted on the
    same spool, with the controller's state unchanged, does not latch the same difference again; a
    new one does. A spool that cannot keep it refuses the clear, the fault staying."""
    progressive = Progressive()

    def started(spool: Spool) -> LinkedLevels:
        sender = SpoolSender(Floor(Topics("casino-1", "T1")), spool, "c4p")  # type: ignore[arg-type]
        link = LinkedLevels("T1", "c4p", {1: 500}, 3.0, sender)
        link.progressive = progressive  # type: ignore[assignment]
        return link

    spool = Spool(tmp_path / "spool.sqlite3")
    try:
        link = started(spool)
        _told(link, Counts())
        _lock(link, 1, 1)
        _told(link, Counts(1, 1, 200))  # the controller applied 100 cents more than the table sent
        assert [fault.code for fault in progressive.latch.faults] == [LINK_MISMATCH]
        spool._db.set_authorizer(_refuse_writes)
        with pytest.raises(Unspooled):
            link.cleared()
        spool._db.set_authorizer(None)
        link.cleared()
        progressive.latch.release(LINK_MISMATCH)
        _told(link, Counts(1, 1, 200))
        assert not progressive.latch.faults
    finally:
        spool.close()
    spool = Spool(tmp_path / "spool.sqlite3")  # the table PC restarted
    try:
        again = started(spool)
        _told(again, Counts(1, 1, 200))
        assert not progressive.latch.faults, "the difference taken latched again after the restart"
        assert again.refusal() is None
        _lock(again, 2, 1)
        _told(again, Counts(2, 2, 400))  # a new difference: 100 cents more again
        assert [fault.code for fault in progressive.latch.faults] == [LINK_MISMATCH]
    finally:
        spool.close()


def _refuse_writes(action: int, *_: object) -> int:
    """SQLite's authorizer refusing every write, as a disk full or read-only refuses a statement."""
    return sqlite3.SQLITE_DENY if action in (sqlite3.SQLITE_INSERT, sqlite3.SQLITE_UPDATE) else 0


def test_a_hit_is_paid_the_amount_the_controller_froze_for_it_and_the_round_says_it_waits(clock):
    """58 Pa. Code § 605a.7(a): a linked hit freezes its level until the keyed reset, as a hit at a
    table alone does, and its records cite that clause, not only the link's decision."""
    link, _, progressive = _linked()
    _told(link, Counts())

    async def hit() -> tuple[str | None, int, str | None]:
        paid = asyncio.create_task(link.hit(1, 4, 9))
        await asyncio.sleep(0)
        waiting = link.awaiting
        hits = [
            {"order": 1, "table": "T2", "number": 7, "seat": 1, "round": 3, "amount_cents": 1500,
             "spool": "s2"},
            {"order": 2, "table": "T1", "number": 1, "seat": 4, "round": 9, "amount_cents": 1000,
             "spool": "s1"},
        ]
        level = {"level": 1, "rate_bp": 500, "reset_cents": 1000, "value_cents": 1000, "locked": True,
                 "hits": hits}  # fmt: skip
        link.heard({"at": _at(), "levels": [level], "applied": None, **TOLD, "refused": []})
        return waiting, await paid, link.awaiting

    waiting, amount, after = asyncio.run(hit())
    assert waiting == "link c4p: the amount of the level 1 hit at seat 4" and after is None
    assert amount == 1000  # its own hit, second in the order: the value the level restarted at
    assert link.locked_levels == [1] and link.value(1) == 1500  # the sign shows the first hit's amount
    assert progressive.records[-3:] == ["linked_lock", "linked_wagers_locked", "linked_hit_paid"]
    link.reset(1)
    for kind in ("linked_hit", "linked_lock", "linked_hit_paid", "linked_reset"):
        assert progressive.clauses[kind] == "605a.7(a)", kind


def test_the_tables_link_is_read_and_refused_naming_the_key(tmp_path):
    def read(data: dict[str, object]):
        return read_table_link(Section(Path("t.toml"), "floor.link", data))

    link = read({"id": "c4p", "levels": {"1": 500, "2": 100}})
    assert link is not None and link.rates == {1: 500, 2: 100} and link.heard_within == 10.0
    assert read({}) is None
    with pytest.raises(ConfigError, match=r"floor\.link\.levels\.0: not a level"):
        read({"id": "c4p", "levels": {"0": 500}})
    with pytest.raises(ConfigError, match=r"floor\.link\.levels: empty"):
        read({"id": "c4p", "levels": {}})
    with pytest.raises(ConfigError, match=r"floor\.link\.id: got 'c/4'"):
        read({"id": "c/4", "levels": {"1": 1}})


def test_a_link_at_a_table_without_a_progressive_is_refused(tmp_path):
    config = tmp_path / "t.toml"
    config.write_text(
        DEFAULT_TABLE_CONFIG.read_text()
        + '\n[floor]\nbroker = "mqtt://127.0.0.1"\ngroup = "g"\n[floor.link]\nid = "c4p"\n'
        + "[floor.link.levels]\n1 = 500\n"
    )
    with pytest.raises(ConfigError, match=r"floor\.link: free-bet-blackjack has no progressive system"):
        load_table_config(config)


def _level_told(value: int, amounts: tuple[int, ...] = ()) -> dict[str, object]:
    hits = [{"order": n, "table": "T2", "number": n, "seat": 1, "round": 1, "amount_cents": amount,
             "spool": "s1"}
            for n, amount in enumerate(amounts, 1)]  # fmt: skip
    return {"level": 1, "rate_bp": 500, "reset_cents": 1000, "limit_cents": 10**9, "value_cents": value,
            "overflow_cents": 0, "locked": bool(hits), "hits": hits}  # fmt: skip


@pytest.mark.parametrize(
    ("told", "why"),
    [
        (_level_told(999), "level 1: a value of 999 cents, below its reset value of 1000"),
        (_level_told(1000, (-5,)), "level 1: a hit of -5 cents, below its reset value of 1000"),
        (
            _level_told(1000, (5_000_001,)),
            "level 1: a hit of 5000001 cents, above the level's limit of 5000000",
        ),
    ],
)
def test_an_amount_the_level_could_not_hold_is_refused_and_the_link_not_heard(clock, told, why):
    link, _, progressive = _linked()
    progressive.levels[1] = LevelInfo(
        level=1, reset_cents=1000, increment_bp=500, reserve_bp=0, limit_cents=5_000_000, value_cents=1000,
        in_cents=0, hits=0, wins_cents=0, overflow_cents=0, reserve_cents=0, frozen=False,
    )  # fmt: skip
    progressive.show_linked = lambda level: asyncio.sleep(0)  # the sign: shown at once

    async def heard() -> None:
        _told(link, Counts())
        assert link.refusal() is None
        with pytest.raises(ValueError, match=why):
            link.heard({"at": _at(), "levels": [told], "applied": None, **TOLD, "refused": []})
        assert link.value(1) == 1000 and link.hits(1) == []  # nothing of it taken
        link.refused(why)
        assert link.refusal() == f"link c4p: the link controller's state refused: {why}"
        assert progressive.records[-1] == "linked_wagers_locked"
        _told(link, Counts())
        assert link.refusal() is None

    asyncio.run(heard())


def _live(state: dict[str, object]) -> aiomqtt.Message:
    """``state`` as the broker delivers one the controller publishes while the table is subscribed."""
    payload = json.dumps(state).encode()
    topic = "croupier/v1/main/link/c4p/table/T1"
    return aiomqtt.Message(topic, payload, qos=1, retain=False, mid=1, properties=None)


def test_a_state_not_what_the_floors_schema_says_is_logged_and_the_link_not_heard(clock):
    """The table reads the link controller's state against the floor's own link-state schema: a
    negative amount (or any other departure) is refused before the table takes anything of it."""
    link, _, progressive = _linked()
    _told(link, Counts())
    state = {"link": "c4p", "table": "T1", "at": _at(),
             "levels": [_level_told(1000, (-5,))], "applied": None, **TOLD, "refused": []}  # fmt: skip
    with structlog.testing.capture_logs() as logged:
        _link_heard(link, _live(state), Schemas())
    assert [entry["event"] for entry in logged] == ["floor link: the link controller's state refused"]
    why = str(link.refusal())
    assert why.startswith("link c4p: the link controller's state refused: levels/0/hits/0/amount_cents: -5")
    assert link.hits(1) == [] and progressive.records[-1] == "linked_wagers_locked"
    state["levels"] = [_level_told(1000)]
    _link_heard(link, _live(state), Schemas())
    assert link.refusal() is None


def test_a_retained_state_older_than_heard_within_is_not_the_controller_heard(clock):
    """A retained state the broker keeps after the floor stopped, delivered on a reconnect, is as
    old as its ``at``: the link is not up on it, and one heard is up only until it is that old."""
    link, _, _ = _linked()
    _told(link, Counts(), ago=60, retained=True)
    assert link.refusal() == "link c4p: the link controller not heard within 3 s"
    _told(link, Counts(), ago=2, retained=True)
    assert link.refusal() is None
    clock.now += 1.5  # 3.5 s after the controller published it
    assert link.refusal() == "link c4p: the link controller not heard within 3 s"


def test_a_live_state_is_heard_now_whatever_the_floors_clock_says(clock):
    """The floor's clock a minute behind the table's: each live state (retain flag 0) is the
    controller heard as it arrives, so the wagers are taken; the link is lost only when none has
    come for ``heard_within`` seconds, by the table's own clock."""
    link, _, _ = _linked()
    _told(link, Counts(), ago=60)
    assert link.refusal() is None
    clock.now += 2.5
    _told(link, Counts(), ago=62.5)
    clock.now += 2.5
    assert link.refusal() is None
    clock.now += 1.0  # 3.5 s since the last live state
    assert link.refusal() == "link c4p: the link controller not heard within 3 s"


def test_a_table_restarted_mid_hit_shows_the_amount_the_link_froze_not_its_own_meters():
    """A linked hit waiting for its keyed reset when the table restarts: its controller's meters
    hold the local amount, the link the one paid; the sign keeps what it shows until the link is
    heard, then shows the link's amount, and the win kept is that one too."""
    table = Table()

    def linked(progressive: device.Progressive) -> LinkedLevels:
        link = LinkedLevels("T1", "c4p", {1: 1000}, 3.0, Sender())
        progressive.attach(link)
        return link

    def state(amount: int | None) -> dict[str, object]:
        hits = [] if amount is None else [
            {"order": 1, "table": "T1", "number": 2, "seat": 3, "round": 1, "amount_cents": amount,
             "spool": "s1"}
        ]  # fmt: skip
        level = {"level": 1, "rate_bp": 1000, "reset_cents": 1_000_000, "value_cents": 1_000_000,
                 "locked": bool(hits), "hits": hits}  # fmt: skip
        return {"at": _at(), "levels": [level], "applied": None, **TOLD, "refused": []}

    async def scenario() -> None:
        link = linked(table.progressive)
        await table.progressive.sync()
        link.heard(state(None))  # the link up: the wagers taken, the sensors not locked out
        progressive = await table.locked_round(3)
        paid = asyncio.create_task(progressive.award(1, 3))
        while link.awaiting is None:  # the hit (link number 2, after the round's contribution) sent
            await asyncio.sleep(0)
        link.heard(state(2_500_000))
        assert (await paid).amount_cents == 2_500_000
        assert table.sign.personality.shown[1] == Shown(1, 2_500_000, True, 3)
        restarted = device.Progressive(ProgressiveDriver(table.controller), MeterSignDriver(table.sign))
        link = linked(restarted)
        await restarted.resume()
        assert restarted.levels[1].frozen and restarted.levels[1].wins_cents != 2_500_000
        assert table.sign.personality.shown[1] == Shown(1, 2_500_000, True, 3)  # the link not heard yet
        link.heard(state(2_500_000))
        await asyncio.sleep(0.01)
        assert table.sign.personality.shown[1] == Shown(1, 2_500_000, True, 3)
        assert restarted.wins[1].amount_cents == 2_500_000

    run(scenario(), 5)


def test_a_contribution_funds_only_the_levels_the_table_is_linked_to():
    link, sender, _ = _linked()
    _lock(link, 1, 2)
    contribution = {"round": 1, "count": 2, "wagered_cents": 200, "levels": [1], "controller": UNIT}
    assert sender.messages == [("contribution", contribution)]


def test_a_voided_round_withdraws_its_contribution_once_and_only_a_round_contributed(tmp_path):
    """At the table: a void names the round and the cents its contribution came to, and takes them off
    what the table says it sent; the spool sends it once, and only for the round last contributed."""
    link, sender, progressive = _linked()
    _lock(link, 4, 3)
    link.void(RoundState(round=4, locked=True, levels=1, count=3, wager_cents=100, accepted=0))
    assert sender.messages[-1] == ("void", {"round": 4, "wagered_cents": 300, "controller": UNIT})
    assert sender.counts() == Counts(2, 0, 0) and progressive.records[-1] == "linked_void"
    link.void(RoundState(round=5, locked=True, levels=1, count=0, wager_cents=100, accepted=0))
    assert len(sender.messages) == 2  # no progressive wager in the round: nothing to withdraw

    spool = Spool(tmp_path / "spool.sqlite3")
    try:
        def message(seq, *, kept):
            return {"seq": seq, **kept}

        def spooled(**counted):
            return spool.append_linked("linked", {"event": "e"}, message, **counted)

        unit = unit_key(UNIT)
        assert spooled(contribution=(unit, 4, 300)) == 1
        spool.take_device_base(1000)
        assert spooled(withdrawal=(unit, 3, 300)) == 0  # not the round last contributed
        assert spooled(withdrawal=(unit, 4, 300)) == 2
        assert spooled(withdrawal=(unit, 4, 300)) == 0  # once
        assert spool.linked_counts() == Counts(2, 0, 0)
        assert spool.device_base() == 1300, "the controller's meter keeps the voided wagers (decision 0043)"
    finally:
        spool.close()


@pytest.mark.parametrize("owed", [False, True], ids=["spooled", "contribution owed"])
def test_a_void_after_a_controller_swap_names_the_unit_of_the_round_it_voids(tmp_path, owed):
    """A controller swapped during a run (DEVICE_SWAPPED) after its round 7 was contributed, and that
    round voided: the void names the unit kept with the round last contributed (the only round the
    spool withdraws), not the unit answering now, so the spool takes it and the link controller
    finds the round's contribution under the unit that numbered it. Also when that contribution is
    still owed (the spool refusing writes at the lock): the void follows it, naming its unit."""
    spool = Spool(tmp_path / "spool.sqlite3")
    try:
        sender = SpoolSender(Floor(Topics("casino-1", "T1")), spool, "c4p")  # type: ignore[arg-type]
        link, _, progressive = _linked()
        link.sender = sender
        if owed:
            spool._db.set_authorizer(_refuse_writes)
        _lock(link, 7, 3)
        progressive.controller_unit = {**UNIT, "serial_number": "0002"}  # the replacement answers now
        link.void(RoundState(round=7, locked=True, levels=1, count=3, wager_cents=100, accepted=0))
        if owed:
            assert link.owed == ["contribution", "void"]
            spool._db.set_authorizer(None)
            assert link.flush()
        assert [(body["event"], body["controller"]) for body in spool.unapplied()] == [
            ("contribution", UNIT), ("void", UNIT)
        ]  # fmt: skip
        assert spool.linked_counts() == Counts(2, 0, 0)
    finally:
        spool.close()


def test_a_hit_on_a_level_the_link_lacks_is_refused_at_once_naming_it_and_the_link():
    """The controller told this table its levels: a hit on a linked level it does not have is refused
    before the table's own controller freezes it, never sent to wait for an amount that cannot come.
    (The round's wager was taken while the link had both levels: a link lacking one refuses the
    progressive wagers, its sensors locked out, decision 0043.)"""
    table = Table()

    async def scenario() -> None:
        link = LinkedLevels("T1", "c4p", {1: 1000, 2: 500}, 3.0, Sender())
        table.progressive.attach(link)
        levels = [{"level": level, "rate_bp": rate, "reset_cents": 1_000_000, "value_cents": 1_000_000,
                   "locked": False, "hits": []} for level, rate in ((1, 1000), (2, 500))]  # fmt: skip
        link.heard({"at": _at(), "levels": levels, "applied": None, **TOLD, "refused": []})
        progressive = await table.locked_round(3)
        link.heard({"at": _at(), "levels": levels[:1], "applied": None, **TOLD, "refused": []})
        refused = r"link c4p: a hit on level 2 refused: the link has levels \[1\]"
        with pytest.raises(RuleViolation, match=refused):
            await progressive.award(2, 3)
        assert not progressive.levels[2].frozen and link.awaiting is None

    run(scenario(), 5)


def test_a_hit_the_controller_refuses_ends_the_wait_with_its_reason(clock):
    link, _, progressive = _linked()
    _told(link, Counts())

    async def scenario() -> None:
        hit = asyncio.create_task(link.hit(1, 3, 7))
        while link.awaiting is None:
            await asyncio.sleep(0)
        reason = "link c4p: a hit on level 1 refused: the table does not fund it"
        level = {"level": 1, "rate_bp": 500, "reset_cents": 1000, "value_cents": 1000, "locked": False,
                 "hits": []}  # fmt: skip
        link.heard({"at": _at(), "levels": [level], "applied": None,
                    **TOLD, "refused": [{"number": 1, "level": 1, "reason": reason}]})  # fmt: skip
        with pytest.raises(RuleViolation, match=reason):
            await asyncio.wait_for(hit, 1)
        assert link.awaiting is None and progressive.records[-1] == "linked_hit_refused"

    asyncio.run(scenario())


def test_a_hit_the_controller_refuses_is_an_irregularity_and_its_level_holds_for_the_keyed_reset():
    """The table's controller froze the level at the award, before the link controller refused the
    hit: the table reads the level back, so it holds for the keyed reset as for any frozen level, the
    award recorded as an irregularity citing its rule; after the reset the next round opens."""
    table = Table()

    async def scenario() -> None:
        sender = Sender()
        link = LinkedLevels("T1", "c4p", {1: 1000}, 30.0, sender)
        table.progressive.attach(link)
        level = {"level": 1, "rate_bp": 1000, "reset_cents": 1_000_000, "value_cents": 1_000_000,
                 "locked": False, "hits": []}  # fmt: skip
        link.heard({"at": _at(), "levels": [level], "applied": None, **TOLD, "refused": []})
        progressive = await table.locked_round(3)
        reason = "link c4p: a hit on level 1 refused: the table does not fund it"

        async def refuse_when_sent() -> None:
            while link.awaiting is None:
                await asyncio.sleep(0.01)
            refused = [{"number": sender.sent.number, "level": 1, "reason": reason}]
            link.heard({"at": _at(), "levels": [level], "applied": None, **TOLD, "refused": refused})

        refuser = asyncio.create_task(refuse_when_sent())
        with pytest.raises(HitRefused, match=reason):
            await progressive.award(1, 3)
        await refuser
        assert (await progressive.driver.level(1)).frozen and progressive.frozen_here == [1]
        assert 1 not in progressive.wins
        [irregular] = progressive.irregularities
        assert irregular.rule.clause == "decision 0039"
        assert "seat 3: the level 1 award not paid" in irregular.detail
        with pytest.raises(RuleViolation, match="keyed reset comes first"):
            await progressive.open_round()
        await progressive.reset_level(1, table.controller.personality.reset_key)
        assert not (await progressive.driver.level(1)).frozen
        await progressive.open_round()

    run(scenario(), 10)


def test_clearing_a_cut_off_round_voids_it_on_the_link_once_its_controller_is_read():
    """The supervisor clears ROUND_CUT_OFF, having returned the cut-off round's wagers by hand: the
    round the table's controller locked before the restart, read back from it, is withdrawn from the
    link, as soon as the clear if the controller was read already, else once it is."""
    table = Table()

    class Held:
        def __init__(self, progressive: device.Progressive) -> None:
            self.progressive = progressive

        async def clear(self, code, operator):
            await self.progressive.clear(code, operator)

    async def cut_off(progressive: device.Progressive) -> None:
        progressive.latch.latch(Fault(ROUND_CUT_OFF_CODE, "round 9 cut off", "decision 0012", "host"))
        await supervisor_clear(Held(progressive), None, ROUND_CUT_OFF_CODE, SUPERVISOR)

    async def scenario() -> None:
        before = Sender()
        link = LinkedLevels("T1", "c4p", {1: 1000}, 3.0, before)
        table.progressive.attach(link)
        heard_open(link, rate_bp=1000)  # the wagers taken, the sensors enabled (decision 0043)
        locked = (await table.locked_round(2, 5)).round
        assert locked is not None
        unit = table.progressive.controller_unit  # the simulated controller's
        voided = ("void", {"round": locked.round, "wagered_cents": 2 * locked.wager_cents,
                           "controller": unit})  # fmt: skip
        await cut_off(table.progressive)  # the controller read: at once
        assert before.messages[-1] == voided
        restarted = device.Progressive(ProgressiveDriver(table.controller), MeterSignDriver(table.sign))
        after = Sender()
        restarted.attach(LinkedLevels("T1", "c4p", {1: 1000}, 3.0, after))
        await cut_off(restarted)  # cleared before the restarted table read its controller
        assert after.messages == []
        await restarted.resume()
        assert after.messages == [voided]
        await restarted.sync()
        assert after.messages == [voided]  # once

    run(scenario(), 5)


def _locked_by(*hits: tuple[str, int], applied: int = 0) -> dict[str, object]:
    """A state in which each of ``hits`` (a table and a seat) locks level 1, in that order, and
    ``applied`` link messages of this table were applied."""
    told = [{"order": order, "table": table, "number": order, "seat": seat, "round": 1, "amount_cents": 1500,
             "spool": "s1"}
            for order, (table, seat) in enumerate(hits, 1)]  # fmt: skip
    level = {"level": 1, "rate_bp": 500, "reset_cents": 1000, "value_cents": 1000, "locked": bool(told),
             "hits": told}  # fmt: skip
    body = {"spool": "s1", "number": applied, "contributions": 0, "wagered_cents": 0}
    return {"at": _at(), "levels": [level], "applied": body, **TOLD, "refused": []}


def test_a_level_a_hit_locks_refuses_the_progressive_wagers_naming_the_link_the_level_and_the_hit(clock):
    """Decision 0039: the jackpot lock is the level's. While a hit at any table of the link locks a
    level this table funds, its progressive wagers are refused with the reason, and taken again
    once the keyed reset at the table of the hit lifts it; each lock and unlock is recorded."""
    link, _, progressive = _linked()
    _told(link, Counts())
    assert link.refusal() is None
    link.heard(_locked_by(("T2", 4), ("T3", 1)))
    why = (
        "link c4p: level 1 jackpot-locked by the hit at T2 seat 4 (the link's hit 1), "
        "the hit at T3 seat 1 (the link's hit 2) until the keyed reset"
    )
    assert link.refusal() == why
    assert progressive.records[-2:] == ["linked_lock", "linked_wagers_locked"]
    link.heard(_locked_by(("T3", 1)))  # T2's keyed reset applied: T3's hit still locks the level
    assert "by the hit at T3 seat 1 (the link's hit 1) until" in str(link.refusal())
    link.heard(_locked_by())
    assert link.refusal() is None
    assert progressive.records[-2:] == ["linked_lock_lifted", "linked_wagers_unlocked"]


def test_a_forged_link_state_cannot_hold_the_base_game():
    """What the floor tells a table can refuse its progressive wagers and pay a hit the table
    reported, nothing more (decision 0039): a state that locks the level by a hit at another table
    and one made up at this table, and says more was applied than the table sent, latches
    LINK_MISMATCH and refuses the progressive wagers, and the base game plays round after round.
    Only a hit this table's own controller froze holds it (605a.7(a))."""

    async def scenario() -> None:
        async with simulated_table("crazy-4-poker", name="T1", shuffler_seed=3) as sim:
            table = sim.table
            link = LinkedLevels("T1", "c4p", {1: 500}, 60.0, Sender())
            table.progressive.attach(link)
            options = table_options("crazy-4-poker", sim)
            players = simulated_players("crazy-4-poker", random.Random(5), **options)
            link.heard(_locked_by(("T2", 4), ("T1", 2), applied=7))
            assert [fault.code for fault in table.faults] == [LINK_MISMATCH] and table.holding == ()
            assert "LINK_MISMATCH latched" in str(table.progressive.wagers_refused())
            for _ in range(2):
                round_ = await asyncio.wait_for(table.play_round(players), 10)
                assert round_.state == COMPLETE
                assert table.progressive.round.count == 0, "no progressive wager taken"
            assert table.progressive.frozen_levels == [1] and table.progressive.frozen_here == []

    run(scenario(), 30)


def test_a_hit_the_controller_refuses_ends_no_round_and_holds_the_table_for_the_keyed_reset():
    """The round loop: a level 1 hit (three of a kind) the link controller refuses is recorded as an
    irregularity, the round plays to its end (play_round does not raise), and the table holds for
    the keyed reset of the level its own controller froze (decision 0044)."""

    async def controller(link: LinkedLevels, sender: Sender) -> None:
        """The link controller: it applies every message and refuses every hit, each 10 ms."""
        while True:
            sent_so_far = enumerate(sender.messages, 1)
            hits = [(number, fields) for number, (event, fields) in sent_so_far if event == "hit"]
            refused = [{"number": number, "level": fields["level"], "reason": "link c4p: refused here"}
                       for number, fields in hits]  # fmt: skip
            sent = sender.sent
            applied = {"spool": "s1", "number": sent.number, "contributions": sent.contributions,
                       "wagered_cents": sent.wagered_cents}  # fmt: skip
            link.heard({"at": _at(), "levels": [_level_told(1000)], "applied": applied, **TOLD,
                        "refused": refused})  # fmt: skip
            await asyncio.sleep(0.01)

    async def scenario() -> None:
        every_line_level_1 = {"three_of_a_kind": 1, "two_pairs": 1, "straight": 1}
        options = {"shuffler_seed": 3, "award_levels": every_line_level_1}
        async with simulated_table("crazy-4-poker", name="T1", **options) as sim:
            table = sim.table
            sender = Sender()
            link = LinkedLevels("T1", "c4p", {1: 500}, 60.0, sender)
            table.progressive.attach(link)
            told = asyncio.create_task(controller(link, sender))
            playing = table_options("crazy-4-poker", sim)
            players = simulated_players("crazy-4-poker", random.Random(5), **playing)
            try:
                while not table.progressive.irregularities:
                    round_ = await asyncio.wait_for(table.play_round(players), 10)
                    assert round_.state == COMPLETE
            finally:
                told.cancel()
            [irregular] = table.progressive.irregularities
            assert "the level 1 award not paid: link c4p: refused here" in irregular.detail
            assert table.progressive.frozen_here == [1] and [e for e, _ in sender.messages].count("hit") == 1

    run(scenario(), 60)


@dataclasses.dataclass
class _BeforeLockout(ControllerPersonality):
    """A controller whose firmware predates SetLockout: it answers UNKNOWN_COMMAND."""

    def handle(self, command, engine):
        if isinstance(command, SetLockout):
            return Personality.handle(self, command, engine)
        return super().handle(command, engine)


def test_a_controller_that_cannot_lock_its_sensors_out_latches_lockout_failed_and_locks_nothing():
    """The link lost, the table refuses progressive wagers: a controller that cannot be told to lock
    its sensors out latches LOCKOUT_FAILED (decision 0043), which holds the table: no lock, where a
    chip on a sensor would be accepted; a supervisor's clear tells it again, and it latches again."""
    table = Table(controller=_BeforeLockout())
    sender = Sender()
    sender.connected = False
    table.progressive.attach(LinkedLevels("T1", "c4p", {1: 1000}, 3.0, sender))

    async def scenario() -> None:
        await table.progressive.sync()
        (fault,) = table.progressive.latch.faults
        assert fault.code == LOCKOUT_FAILED and fault.clause == "decision 0043"
        assert fault.detail.startswith("the wager sensors could not be locked out: ")
        table.cover(2)
        with pytest.raises(RuleViolation, match="LOCKOUT_FAILED"):
            await table.progressive.lock()
        assert not table.controller.personality.locked and sender.sent == Counts()
        await table.progressive.clear(LOCKOUT_FAILED, SUPERVISOR)
        assert [fault.code for fault in table.progressive.latch.faults] == [LOCKOUT_FAILED]

    run(scenario(), 5)


def test_a_controller_without_a_lockout_at_a_table_that_takes_every_wager_is_not_held():
    """Re-enabling the sensors of a controller whose firmware has no lockout (UNKNOWN_COMMAND) asks
    for nothing it does not do already: a table alone goes on; only locking out would fail."""
    table = Table(controller=_BeforeLockout())

    async def scenario() -> None:
        await table.progressive.sync()
        assert not table.progressive.latch.faults and table.progressive.sensors_locked_out is False

    run(scenario(), 5)


def test_a_level_another_tables_hit_locks_locks_the_sensors_out_until_its_keyed_reset_lifts_it():
    """Decisions 0039 and 0043 together: the level's lock refuses this table's progressive wagers,
    so its controller's sensors are locked out, a chip on one accepted at no lock and nothing held
    (the base game plays on); the lock lifted, the sensors are re-enabled."""
    table = Table()
    link = LinkedLevels("T1", "c4p", {1: 500}, 3.0, Sender())
    table.progressive.attach(link)

    async def told(locked_out: bool) -> None:
        async with asyncio.timeout(5):
            while table.progressive.sensors_locked_out is not locked_out:
                await asyncio.sleep(0.01)
        assert table.controller.personality.locked_out is locked_out, "the controller itself told"

    async def scenario() -> None:
        await table.progressive.sync()
        link.heard(_locked_by())
        await told(False)
        link.heard(_locked_by(("T2", 4)))
        await told(True)
        table.cover(3)
        assert (await table.progressive.lock()).count == 0, "no wager accepted while the level is locked"
        assert table.progressive.latch.holding == ()
        link.heard(_locked_by())
        await told(False)

    run(scenario(), 5)


def _restarted(sent: int, *, frozen: bool) -> tuple[LinkedLevels, Sender, Progressive]:
    """A table started again on a spool that sent ``sent`` link messages before, its controller's
    level 1 read frozen or not (its keyed reset turned)."""
    sender, progressive = Sender(), Progressive()
    sender.sent = Counts(sent, 1, 100)
    link = LinkedLevels("T1", "c4p", {1: 500}, 3.0, sender)
    link.progressive = progressive  # type: ignore[assignment]
    progressive.levels[1] = LevelInfo(
        level=1, reset_cents=1000, increment_bp=500, reserve_bp=0, limit_cents=5_000_000, value_cents=1000,
        in_cents=100, hits=1, wins_cents=1500, overflow_cents=0, reserve_cents=0, frozen=frozen,
    )  # fmt: skip
    progressive.show_linked = lambda level: asyncio.sleep(0)  # the sign: shown at once
    return link, sender, progressive


def _holding(*hits: tuple[int, str], applied: int) -> dict[str, object]:
    """A state in which each of ``hits`` (its link number at T1 and its spool) locks level 1."""
    told = [{"order": order, "table": "T1", "number": number, "seat": 3, "round": 1, "amount_cents": 1500,
             "spool": spool} for order, (number, spool) in enumerate(hits, 1)]  # fmt: skip
    level = {"level": 1, "rate_bp": 500, "reset_cents": 1000, "value_cents": 1000, "locked": bool(told),
             "hits": told}  # fmt: skip
    body = {"spool": "s1", "number": applied, "contributions": 1, "wagered_cents": 100}
    return {"at": _at(), "levels": [level], "applied": body, **TOLD, "refused": []}


@pytest.mark.parametrize(
    ("frozen", "hits", "why"),
    [
        (True, [(2, "s1")], "the controller frozen: its key not turned"),
        (True, [(2, "s1"), (4, "s1")], "frozen for a newer hit: its reset lifts both"),
        (False, [(2, "s1"), (4, "s1")], "a hit of this start held: a reset now would lift it"),
        (False, [(2, "s0")], "another spool's hit: not this table PC's to vouch for"),
    ],
)
def test_no_keyed_reset_is_owed_while_the_controller_or_a_newer_hit_holds_the_level(frozen, hits, why):
    """A restarted table sends the keyed reset of a hit it sent before the start only when its
    controller says the key was turned (605a.7(a)): not while the level is frozen, for that hit or
    a newer one, nor over a hit of this start, nor for a hit another spool sent."""
    link, sender, progressive = _restarted(3, frozen=frozen)

    async def heard() -> None:
        link.heard(_holding(*hits, applied=max(number for number, _ in hits)))
        link.look()

    run(heard(), 5)
    assert sender.messages == [] and "linked_reset_owed" not in progressive.records, why


def test_a_keyed_reset_owed_waits_for_one_on_its_way_and_for_device_swapped_and_is_sent_once():
    """A reset of the level on its way (spooled, not yet applied) is the one owed: none is added.
    While DEVICE_SWAPPED holds, the unit answering says nothing of the key of the one that froze the
    level; once a supervisor accepts it, the reset is sent, once: the link applies each by its
    number, and a second would lift a later hit."""
    link, sender, _ = _restarted(3, frozen=False)
    sender.kept = [{"event": "reset", "level": 1, "number": 3}]  # sent before the stop, not yet applied
    swapped, sent, progressive = _restarted(3, frozen=False)
    progressive.latch.latch(Fault("DEVICE_SWAPPED", "controller swapped", "605a.4(c)", "host"))

    async def heard() -> None:
        link.heard(_holding((2, "s1"), applied=2))
        link.heard(_holding(applied=3))  # that reset applied: nothing held, nothing owed
        assert sender.messages == [] and sender.kept == []
        swapped.heard(_holding((2, "s1"), applied=3))
        assert sent.messages == []
        progressive.latch.release("DEVICE_SWAPPED")  # a supervisor accepted the unit
        swapped.look()
        assert sent.messages == [("reset", {"level": 1})]
        assert progressive.clauses["linked_reset_owed"] == "605a.7(a)"
        for _ in range(3):  # heard again before the link applied it
            swapped.heard(_holding((2, "s1"), applied=3))
        assert sent.messages == [("reset", {"level": 1})]

    run(heard(), 5)


def test_a_controller_swapped_after_a_hit_of_this_run_sends_its_keyed_reset_once_accepted():
    """58 Pa. Code § 605a.7(a): the lock lifts on every table. A controller replaced after a hit in the
    same run (no restart), the new unit never frozen: once a supervisor accepts it (DEVICE_SWAPPED
    cleared), the hit of this run is the old unit's, and its reset is sent, once."""
    link, sender, progressive = _restarted(3, frozen=False)  # the new unit: not frozen
    progressive.latch.latch(Fault("DEVICE_SWAPPED", "controller swapped", "605a.4(c)", "host"))

    sender.sent = Counts(4, 1, 100)  # the hit, number 4, sent in this run

    async def heard() -> None:
        link.heard(_holding((4, "s1"), applied=4))  # held at the link
        assert ("reset", {"level": 1}) not in sender.messages, "nothing while the swap is latched"
        progressive.latch.release("DEVICE_SWAPPED")  # a supervisor accepted the unit
        for _ in range(3):
            link.look()
        assert sender.messages.count(("reset", {"level": 1})) == 1

    run(heard(), 5)


def test_a_spool_unreadable_when_a_reset_may_be_owed_leaves_the_look_going_on():
    """The owed-reset check reads the spool's messages not yet applied; a spool that cannot be read
    then (its disk failing) puts it off to the next look, and the look goes on: the link's refusal
    and reconciliation are still kept up to date."""
    link, sender, _ = _restarted(3, frozen=False)

    def unreadable() -> list[object]:
        raise Unspooled("the spool cannot be read: disk I/O error")

    sender.unapplied = unreadable  # type: ignore[method-assign]

    async def heard() -> None:
        link.heard(_holding((2, "s1"), applied=3))
        assert ("reset", {"level": 1}) not in sender.messages
        assert link.refusal() is not None and "jackpot-locked" in str(link.refusal())

    run(heard(), 5)


def test_a_device_base_the_spool_cannot_keep_latches_floor_spool_unwritten_and_is_taken_again():
    """The controller's base (decision 0043) is the link's to keep: a spool that refuses it holds the
    table with FLOOR_SPOOL_UNWRITTEN rather than failing the controller's read, and the base is
    taken at the next read once the spool takes it."""
    link, sender, progressive = _linked()
    refused = [True]

    def take(cents: int) -> None:
        if refused[0]:
            raise Unspooled("database or disk is full")
        sender.base = cents

    sender.take_device_base = take  # type: ignore[method-assign]
    controller = RoundState(round=3, locked=False, levels=1, count=0, wager_cents=100, accepted=0)
    link.check_device(controller, 700)
    (fault,) = progressive.latch.faults
    assert fault.code == SPOOL_UNWRITTEN_CODE and "database or disk is full" in fault.detail
    assert sender.base is None
    refused[0] = False
    link.check_device(controller, 700)
    assert sender.base == 700


def test_a_state_older_than_the_one_taken_is_dropped_but_not_after_a_start_or_from_another_store():
    """Decision 0050 (a table drops a state older than one it took): the first state after the table
    starts is taken whatever its revision; one below the last taken of the same store is dropped
    (the level stays locked); one from another store (a floor store replaced, its count from 1 again)
    is taken, so the table never ignores the floor for good."""
    table, sender, _progressive = _restarted(0, frozen=False)
    sender.sent, old, new = Counts(), "a" * 32, "b" * 32  # this table has sent nothing

    def state(store: str, revision: int, *amounts: int) -> dict[str, object]:
        return {"at": _at(), "levels": [_level_told(2000, amounts)], "applied": None, "store": store,
                "revision": revision, "refused": []}  # fmt: skip

    async def heard() -> list[bool]:
        locked = []
        for told in (state(old, 7, 1500), state(old, 6), state(old, 8, 1500), state(new, 1)):
            table.heard(told)
            locked.append("jackpot-locked" in str(table.refusal()))
        return locked

    assert run(heard(), 5) == [True, True, True, False]
    restarted, sender, _progressive = _restarted(0, frozen=False)
    sender.sent = Counts()

    async def started() -> bool:
        restarted.heard(state(old, 6))
        return restarted.refusal() is None

    assert run(started(), 5), "the first state after a start not taken"


def test_a_state_from_a_floor_of_the_release_before_is_taken_unordered(clock):
    """Decision 0050 (a table drops a state older than one it took) and docs/floor.md's upgrade
    order: a floor service of the release before tells no ``store`` nor ``revision``; a table of
    this release takes its states (checked against the floor's schema) unordered, as that release's
    tables did, rather than lock its progressive wagers until the floor is upgraded too, and orders
    again from the first state that names them."""
    link, _, _ = _linked()
    _told(link, Counts())
    old = {"link": "c4p", "table": "T1", "at": _at(), "levels": [_level_told(1000, (1200,))],
           "applied": None, "refused": []}  # fmt: skip
    _link_heard(link, _live(old), Schemas())
    assert link.refusal() is not None and "jackpot-locked" in str(link.refusal())
    _link_heard(link, _live(old | {"levels": [_level_told(1000)]}), Schemas())
    assert link.refusal() is None, "a state with no revision not taken after one with none"
    _link_heard(link, _live(old | TOLD | {"revision": 5, "levels": [_level_told(1000)]}), Schemas())
    _link_heard(link, _live(old | TOLD | {"revision": 4}), Schemas())
    assert link.refusal() is None, "an older revision of the same store taken after the floor upgraded"
