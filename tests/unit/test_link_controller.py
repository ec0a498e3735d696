"""The link controller (floor.link_controller; decision 0039): each table's link messages applied
once by table, spool and number, simultaneous hits paid in the order received, each from the value
it froze, and the lock lifted by the keyed reset of every hit on the level; a voided round's
contribution withdrawn and its hits given back (decision 0044), to the ten-thousandth of a cent;
only the levels a table is linked to funded, and a hit on any other refused and told."""

from __future__ import annotations

import contextlib
import json
import sqlite3
import subprocess
import sys
from typing import cast

import pytest
import structlog.testing

from croupier.config.floor_service import StoreConfig, load_floor_config
from croupier.config.linked import BASIS_POINTS, FloorLink, LinkedLevel
from croupier.errors import StartupError
from croupier.floor_link.linked import SpoolSender
from croupier.floor_link.messages import Schemas
from croupier.floor_link.publisher import Broker
from croupier.floor_link.spool import Spool
from croupier.floor_link.topics import Topics, link_state
from devices.linked import Counts, unit_key
from floor.link_controller import LinkController, Unreleased
from floor.service import FloorService, Refusals
from floor.store import FLOOR_FILE, Store
from tests.links import run
from tests.unit.test_linked_levels import TOLD, Floor, _at, _level_told, _restarted

LEVELS = {1: LinkedLevel(500, 100_000, 10_000_000), 2: LinkedLevel(100, 5_000, 1_000_000)}
LINK = FloorLink("c4p", ("T1", "T2", "T3"), LEVELS, 2.0)


@pytest.fixture
def store(tmp_path):
    opened = Store(StoreConfig(None, tmp_path / "floor.sqlite3"))
    yield opened
    opened.close()


#: The table's progressive controller unit, and the one that replaced it (devices.linked.unit_key).
UNIT = {"vendor": "Acme", "model": "PC-1", "serial_number": "0001"}
NEW_UNIT = {**UNIT, "serial_number": "0002"}


def _sent(link, table, number, event, spool="s1", **fields):
    """A table's link message; a contribution funds both levels unless it names its own; a
    contribution, hit or void names the controller unit ``UNIT`` unless it names its own, or none
    (``controller=None``: spooled by a release before the unit was named)."""
    levels = {"levels": [1, 2]} if event == "contribution" else {}
    unit = {"controller": UNIT} if event in ("contribution", "hit", "void") else {}
    body = {"link": "c4p", "spool": spool, "number": number, "event": event, **levels, **unit, **fields}
    return link.heard(table, {key: value for key, value in body.items() if value is not None})


def _level(controller, table, level):
    return next(one for one in controller.state_for("c4p", table)["levels"] if one["level"] == level)


def test_each_contribution_is_applied_once_at_each_levels_rate(store):
    controller = LinkController({"c4p": LINK}, store, "main")
    assert _sent(controller, "T1", 1, "contribution", round=1, wagered_cents=1000) == "c4p"
    assert _sent(controller, "T1", 1, "contribution", round=1, wagered_cents=1000) is None  # again
    assert _sent(controller, "T2", 1, "contribution", round=7, wagered_cents=3000) == "c4p"
    assert _sent(controller, "T1", 2, "contribution", round=2, wagered_cents=1000) == "c4p"
    assert _level(controller, "T1", 1)["value_cents"] == 100_000 + 5000 * 500 // 10_000
    assert _level(controller, "T1", 2)["value_cents"] == 5_000 + 5000 * 100 // 10_000
    told = controller.state_for("c4p", "T1")["applied"]
    assert told == {"spool": "s1", "number": 2, "contributions": 2, "wagered_cents": 2000}


def test_nothing_after_a_gap_is_applied_until_the_missing_message_comes(store):
    controller = LinkController({"c4p": LINK}, store, "main")
    _sent(controller, "T1", 1, "contribution", round=1, wagered_cents=1000)
    assert _sent(controller, "T1", 3, "contribution", round=3, wagered_cents=1000) is None  # 2 lost
    assert controller.state_for("c4p", "T1")["applied"]["number"] == 1
    _sent(controller, "T1", 2, "contribution", round=2, wagered_cents=1000)  # sent again by the table
    _sent(controller, "T1", 3, "contribution", round=3, wagered_cents=1000)
    assert controller.state_for("c4p", "T1")["applied"] == {
        "spool": "s1", "number": 3, "contributions": 3, "wagered_cents": 3000
    }


def test_applied_once_across_a_restart_of_the_floor(tmp_path):
    config = StoreConfig(None, tmp_path / "floor.sqlite3")
    first = Store(config)
    _sent(LinkController({"c4p": LINK}, first, "main"), "T1", 1, "contribution", round=1, wagered_cents=2000)
    first.close()
    again = Store(config)
    try:
        controller = LinkController({"c4p": LINK}, again, "main")
        assert _sent(controller, "T1", 1, "contribution", round=1, wagered_cents=2000) is None
        assert _level(controller, "T2", 1)["value_cents"] == 100_100
        assert _sent(controller, "T1", 1, "contribution", spool="s2", round=1, wagered_cents=2000) == "c4p"
        assert controller.state_for("c4p", "T1")["applied"]["spool"] == "s2"  # a new spool counts afresh
    finally:
        again.close()


def test_simultaneous_hits_are_paid_in_the_order_received_each_from_the_value_it_froze(store):
    controller = LinkController({"c4p": LINK}, store, "main")
    _sent(controller, "T1", 1, "contribution", round=1, wagered_cents=10_000)
    _sent(controller, "T2", 1, "contribution", round=1, wagered_cents=10_000)
    _sent(controller, "T2", 2, "hit", level=1, seat=4, round=1)
    _sent(controller, "T1", 2, "hit", level=1, seat=2, round=1)
    level = _level(controller, "T3", 1)
    assert level["locked"] and level["value_cents"] == 100_000
    assert [(hit["order"], hit["table"], hit["seat"], hit["amount_cents"]) for hit in level["hits"]] == [
        (1, "T2", 4, 101_000),  # received first: the value both tables' wagers made
        (2, "T1", 2, 100_000),  # the level had restarted at its reset value
    ]
    assert not _level(controller, "T3", 2)["locked"]


def test_each_hit_told_names_the_spool_it_came_from(store):
    """A restarted table owes the keyed reset only of its own spool's hits (devices.linked): each
    hit names its spool, its round's contribution's; none for a round that contributed nothing."""
    controller = LinkController({"c4p": LINK}, store, "main")
    _sent(controller, "T1", 1, "contribution", spool="s2", round=4, wagered_cents=100)
    _sent(controller, "T1", 2, "hit", spool="s2", level=1, seat=1, round=4)
    _sent(controller, "T2", 1, "hit", level=1, seat=3, round=9)  # T2 funds nothing: refused
    _sent(controller, "T2", 2, "contribution", round=1, wagered_cents=100)
    _sent(controller, "T2", 3, "hit", level=1, seat=3, round=9)  # round 9 contributed nothing
    told = [(hit["table"], hit["number"], hit["spool"]) for hit in _level(controller, "T3", 1)["hits"]]
    assert told == [("T1", 2, "s2"), ("T2", 3, None)]


def test_the_lock_lifts_once_every_hit_on_the_level_is_reset(store):
    controller = LinkController({"c4p": LINK}, store, "main")
    _sent(controller, "T1", 1, "contribution", round=1, wagered_cents=100)
    _sent(controller, "T2", 1, "contribution", round=1, wagered_cents=100)
    _sent(controller, "T1", 2, "hit", level=1, seat=1, round=1)
    _sent(controller, "T2", 2, "hit", level=1, seat=1, round=1)
    _sent(controller, "T1", 3, "reset", level=1)
    assert _level(controller, "T3", 1)["locked"]  # T2's hit still waits for its key
    _sent(controller, "T2", 3, "reset", level=1)
    _sent(controller, "T2", 3, "reset", level=1)  # delivered twice
    assert not _level(controller, "T3", 1)["locked"]
    assert _sent(controller, "T3", 1, "contribution", round=1, wagered_cents=100) == "c4p"


def test_a_keyed_reset_lifts_only_the_hits_of_its_own_spool(store):
    """A keyed reset lifts the table's hits on its level from its own spool (the PC whose controller
    was frozen for them: devices.linked), and those that kept no spool: the old PC heard again after
    ``release-hit`` let go of its hit, its key turned for that hit, does not lift the new PC's hit on
    the same level, whose key was never turned."""
    controller = LinkController({"c4p": LINK}, store, "main")
    _sent(controller, "T1", 1, "contribution", round=1, wagered_cents=1_000)
    _sent(controller, "T1", 2, "hit", level=1, seat=2, round=1)
    _sent(controller, "T1", 1, "contribution", spool="s2", round=1, wagered_cents=1_000)  # the new PC
    controller.release("c4p", 1, "S. Pit", "PC replaced")
    _sent(controller, "T1", 2, "contribution", spool="s2", round=2, wagered_cents=1_000)
    _sent(controller, "T1", 3, "hit", spool="s2", level=1, seat=1, round=2)  # the new PC's own hit
    _sent(controller, "T1", 4, "hit", spool="s2", level=1, seat=1, round=9)  # round 9: no spool kept
    _sent(controller, "T1", 3, "reset", level=1)  # the old PC back, its key turned for hit 1
    assert [hit["order"] for hit in _level(controller, "T2", 1)["hits"]] == [2], "s1's reset lifted s2's hit"
    _sent(controller, "T1", 5, "reset", spool="s2", level=1)  # the new PC's key
    assert not _level(controller, "T2", 1)["locked"]


def test_a_table_not_on_the_link_changes_nothing(store):
    controller = LinkController({"c4p": LINK}, store, "main")
    assert _sent(controller, "T9", 1, "contribution", round=1, wagered_cents=10_000) is None
    assert _level(controller, "T1", 1)["value_cents"] == 100_000


def test_each_table_is_told_on_its_own_topic(store):
    controller = LinkController({"c4p": LINK}, store, "main")
    published = controller.publication("c4p", "floor-1").messages
    assert [topic for topic, _ in published] == [f"croupier/v1/main/link/c4p/table/{t}" for t in LINK.tables]
    assert all(json.loads(body)["table"] == topic.rsplit("/", 1)[1] for topic, body in published)


def test_a_level_kept_with_another_rate_is_refused(store):
    LinkController({"c4p": LINK}, store, "main")
    changed = FloorLink("c4p", LINK.tables, {1: LinkedLevel(400, 100_000, 10_000_000)}, 2.0)
    with pytest.raises(StartupError, match=r"links\.c4p\.levels\.1: rate_bp 400"):
        LinkController({"c4p": changed}, store, "main")


def test_the_fraction_of_a_cent_left_at_a_hit_goes_to_the_next_cycle(store):
    """100 cycles of a 199-cent contribution at 500 bp, each followed by a hit: 995.0 cents were
    contributed exactly, and 995 are paid above the reset value, none lost at the hits."""
    controller = LinkController({"c4p": LINK}, store, "main")
    for cycle in range(100):
        _sent(controller, "T1", 2 * cycle + 1, "contribution", round=cycle, wagered_cents=199)
        _sent(controller, "T1", 2 * cycle + 2, "hit", level=1, seat=1, round=cycle)
    paid = [hit["amount_cents"] for hit in _level(controller, "T1", 1)["hits"]]
    assert len(paid) == 100
    assert sum(paid) - 100 * 100_000 == 995
    assert _level(controller, "T1", 1)["value_cents"] == 100_000  # nothing left: 5% of 19,900 is whole


def _accrued(controller, level):
    """The level's accrual above its reset value, in ten-thousandths of a cent, from its row."""
    row = controller.store.run(
        "SELECT in_cents * rate_bp + carry FROM link_levels WHERE link = 'c4p' AND level = ?", (level,)
    ).fetchone()
    return int(row[0])


def test_a_voided_rounds_contribution_comes_out_once_to_the_ten_thousandth_of_a_cent(store):
    controller = LinkController({"c4p": LINK}, store, "main")
    _sent(controller, "T1", 1, "contribution", round=1, wagered_cents=199)  # 9.95 cents at level 1
    _sent(controller, "T2", 1, "contribution", round=4, wagered_cents=201)  # 10.05 cents
    assert _level(controller, "T1", 1)["value_cents"] == 100_020
    assert _sent(controller, "T2", 2, "void", round=4, wagered_cents=201) == "c4p"
    assert _sent(controller, "T2", 2, "void", round=4, wagered_cents=201) is None  # delivered twice
    assert _accrued(controller, 1) == 199 * 500 and _accrued(controller, 2) == 199 * 100
    assert _level(controller, "T1", 1)["value_cents"] == 100_009
    assert controller.state_for("c4p", "T2")["applied"] == {
        "spool": "s1", "number": 2, "contributions": 0, "wagered_cents": 0
    }
    _sent(controller, "T2", 3, "void", round=4, wagered_cents=201)  # withdrawn already: not again
    assert _accrued(controller, 1) == 199 * 500
    assert controller.state_for("c4p", "T2")["applied"]["contributions"] == 0  # the table's counts differ
    _sent(controller, "T1", 2, "contribution", round=2, wagered_cents=1)  # the fraction was kept: 10.00
    assert _level(controller, "T1", 1)["value_cents"] == 100_010


def test_a_voided_contribution_a_standing_hit_paid_out_stays_paid(store):
    """The winner was paid from what was in the pot; the next cycle's players do not fund the
    withdrawal, so the level hit since keeps what was wagered since; a level not hit gives it up."""
    controller = LinkController({"c4p": LINK}, store, "main")
    _sent(controller, "T1", 1, "contribution", round=1, wagered_cents=10_000)
    _sent(controller, "T2", 1, "contribution", round=1, wagered_cents=10_000)
    _sent(controller, "T2", 2, "hit", level=1, seat=4, round=1)
    _sent(controller, "T3", 1, "contribution", round=1, wagered_cents=333)  # 16.65 cents after the hit
    _sent(controller, "T1", 2, "void", round=1, wagered_cents=10_000)
    assert [hit["amount_cents"] for hit in _level(controller, "T1", 1)["hits"]] == [101_000]
    assert _accrued(controller, 1) == 333 * 500  # what was wagered since the hit, untouched
    assert _accrued(controller, 2) == (10_000 + 333) * 100  # level 2 not hit: T1's share comes out
    assert _level(controller, "T1", 2)["value_cents"] == 5_000 + 103


def test_a_voided_hit_gives_back_what_it_froze_and_lifts_the_lock_no_other_hit_holds(store):
    """T1's hit froze 100,500 and T2's, received after it, 100,100; T1's round is voided: its hit
    leaves the order (T2's still locks the level), the 500 cents above the reset come back to the
    level, and T1's contribution, back in the pot with them, comes out: the level holds exactly
    what T3 wagered since, as if T1's round had never been."""
    controller = LinkController({"c4p": LINK}, store, "main")
    _sent(controller, "T1", 1, "contribution", round=5, wagered_cents=10_000)
    _sent(controller, "T1", 2, "hit", level=1, seat=2, round=5)
    _sent(controller, "T2", 1, "contribution", round=1, wagered_cents=2_000)
    _sent(controller, "T2", 2, "hit", level=1, seat=6, round=1)
    _sent(controller, "T3", 1, "contribution", round=1, wagered_cents=199)
    _sent(controller, "T1", 3, "void", round=5, wagered_cents=10_000)
    level = _level(controller, "T3", 1)
    assert [(hit["table"], hit["amount_cents"]) for hit in level["hits"]] == [("T2", 100_100)]
    assert level["locked"]
    assert _accrued(controller, 1) == 199 * 500 and level["value_cents"] == 100_009
    assert _accrued(controller, 2) == (2_000 + 199) * 100
    _sent(controller, "T1", 4, "reset", level=1)  # the key turned at T1 after the void: nothing more
    assert _level(controller, "T3", 1)["locked"]
    _sent(controller, "T2", 3, "void", round=1, wagered_cents=2_000)
    level = _level(controller, "T3", 1)
    assert not level["locked"] and level["hits"] == []
    assert _accrued(controller, 1) == 199 * 500  # both hits voided, both contributions out


def test_a_void_with_a_hit_reset_already_still_gives_back_the_hit(store):
    controller = LinkController({"c4p": LINK}, store, "main")
    _sent(controller, "T1", 1, "contribution", round=3, wagered_cents=4_000)
    _sent(controller, "T1", 2, "hit", level=2, seat=1, round=3)
    _sent(controller, "T1", 3, "reset", level=2)
    _sent(controller, "T1", 4, "void", round=3, wagered_cents=4_000)
    assert _accrued(controller, 2) == 0 and _accrued(controller, 1) == 0
    assert _level(controller, "T2", 2)["value_cents"] == 5_000


def test_a_table_funds_only_the_levels_it_is_linked_to(store):
    controller = LinkController({"c4p": LINK}, store, "main")
    _sent(controller, "T1", 1, "contribution", round=1, wagered_cents=10_000, levels=[1])
    _sent(controller, "T2", 1, "contribution", round=1, wagered_cents=10_000, levels=[2, 7])  # 7: no such
    assert _level(controller, "T3", 1)["value_cents"] == 100_500
    assert _level(controller, "T3", 2)["value_cents"] == 5_100


def test_a_hit_on_a_level_the_link_lacks_or_the_table_does_not_fund_is_refused_and_told(store):
    controller = LinkController({"c4p": LINK}, store, "main")
    _sent(controller, "T1", 1, "contribution", round=1, wagered_cents=10_000, levels=[1])
    assert _sent(controller, "T1", 2, "hit", level=2, seat=3, round=1) == "c4p"
    assert _sent(controller, "T1", 3, "hit", level=9, seat=3, round=1) == "c4p"
    told = controller.state_for("c4p", "T1")
    assert told["refused"] == [
        {"number": 2, "level": 2, "reason": "link c4p: a hit on level 2 refused: the table does not fund it"},
        {"number": 3, "level": 9, "reason": "link c4p: a hit on level 9 refused: the link has no such level"},
    ]
    assert not any(level["locked"] for level in told["levels"])
    assert controller.state_for("c4p", "T2")["refused"] == []


def test_a_void_withdraws_the_newest_contribution_of_its_round(store):
    """A progressive controller replaced under the same spool numbers its rounds afresh: both rounds
    numbered 1 are applied, and the void of round 1 withdraws the one the table last contributed."""
    controller = LinkController({"c4p": LINK}, store, "main")
    _sent(controller, "T1", 1, "contribution", round=1, wagered_cents=500)
    _sent(controller, "T1", 2, "contribution", round=1, wagered_cents=300)
    _sent(controller, "T1", 3, "void", round=1, wagered_cents=300)
    assert _accrued(controller, 1) == 500 * 500
    assert controller.state_for("c4p", "T1")["applied"]["wagered_cents"] == 500


def test_a_void_of_a_round_number_used_again_never_takes_back_an_old_paid_hit(store):
    """A replaced controller numbers its rounds from 1 again: the void of its round 1 withdraws only
    that round's contribution and takes back only that round's hit, never the old round 1's, paid
    and reset long ago (the same jackpot would be paid twice)."""
    controller = LinkController({"c4p": LINK}, store, "main")
    _sent(controller, "T1", 1, "contribution", round=1, wagered_cents=100_000)  # level 1: +5000
    _sent(controller, "T1", 2, "hit", level=1, seat=3, round=1)  # paid 105,000
    _sent(controller, "T1", 3, "reset", level=1)
    assert _level(controller, "T1", 1)["value_cents"] == 100_000
    _sent(controller, "T1", 4, "contribution", round=1, wagered_cents=1000)  # the new round 1: +50
    _sent(controller, "T1", 5, "void", round=1, wagered_cents=1000)
    assert _level(controller, "T1", 1)["value_cents"] == 100_000  # as if the new round 1 never was
    assert _accrued(controller, 1) == 0
    assert store.run("SELECT count(*) FROM link_hit_voids").fetchone()[0] == 0, "the old hit stands"
    # once more, the new round 1 (its contribution withdrawn) played again as round 1, hit and voided
    _sent(controller, "T1", 6, "contribution", round=1, wagered_cents=2000)  # +100
    _sent(controller, "T2", 1, "contribution", round=9, wagered_cents=20)  # T2's 1 cent
    _sent(controller, "T1", 7, "hit", level=1, seat=5, round=1)  # froze 100,101
    _sent(controller, "T1", 8, "void", round=1, wagered_cents=2000)
    voided = store.run("SELECT ord, restored FROM link_hit_voids").fetchall()
    assert [tuple(row) for row in voided] == [(2, 101 * 10_000)], "only the hit of the round voided"
    level = _level(controller, "T2", 1)
    assert not level["locked"] and level["value_cents"] == 100_001 and _accrued(controller, 1) == 20 * 500


def test_a_replaced_units_round_is_never_taken_for_the_old_units_round_of_the_same_number(store):
    """Decision 0039: a replaced controller numbers its rounds from 1 again, and its meters may match
    the old unit's. Its round 5 hit or voided is never the old unit's round 5: the hit takes back
    nothing of the old round's contribution when voided, which stays in the pot; the new unit's own
    round 5, contributed, is the one a void of it withdraws; a message delivered twice counts once."""
    controller = LinkController({"c4p": LINK}, store, "main")
    _sent(controller, "T1", 1, "contribution", round=5, wagered_cents=1000)  # the old unit's round 5: +50
    _sent(controller, "T2", 1, "contribution", round=1, wagered_cents=100_000)  # level 1: +5000
    _sent(controller, "T1", 2, "hit", level=1, seat=3, round=5, controller=NEW_UNIT)  # froze 105,050
    _sent(controller, "T1", 2, "hit", level=1, seat=3, round=5, controller=NEW_UNIT)  # again: once
    assert [hit["spool"] for hit in _level(controller, "T3", 1)["hits"]] == [None]  # no contribution of it
    _sent(controller, "T1", 3, "void", round=5, wagered_cents=1000, controller=NEW_UNIT)
    assert store.run("SELECT count(*) FROM link_hit_voids").fetchone()[0] == 0, "the hit stands"
    assert controller.state_for("c4p", "T1")["applied"]["contributions"] == 1  # not withdrawn: a mismatch
    withdrawn = store.run("SELECT count(*) FROM link_funded WHERE withdrawn_at IS NOT NULL").fetchone()[0]
    assert withdrawn == 0, "the old unit's round 5 stays in the pot"
    _sent(controller, "T1", 4, "reset", level=1)
    _sent(controller, "T1", 5, "contribution", round=5, wagered_cents=2000, controller=NEW_UNIT)  # +100
    _sent(controller, "T1", 6, "void", round=5, wagered_cents=2000, controller=NEW_UNIT)
    _sent(controller, "T1", 6, "void", round=5, wagered_cents=2000, controller=NEW_UNIT)  # again: once
    assert _level(controller, "T1", 1)["value_cents"] == 100_000 and _accrued(controller, 1) == 0
    applied = controller.state_for("c4p", "T1")["applied"]
    assert (applied["contributions"], applied["wagered_cents"]) == (1, 1000)


def test_a_message_kept_by_a_version_2_spool_is_read_by_the_upgraded_floor(tmp_path):
    """A link message a table spooled before the controller unit was named, unapplied at the upgrade,
    is resent from its kept body without ``controller``: the upgraded floor reads and applies it (not
    malformed for ever: that table's link would stop at the gap, LINK_MISMATCH latch, its progressive
    wagers be refused), and the table's next message, naming its unit, after it."""
    path = tmp_path / "spool.sqlite3"
    old = Spool(path)
    sender = SpoolSender(Floor(Topics("casino-1", "T1")), old, "c4p")  # type: ignore[arg-type]
    sender.send("contribution", {"round": 5, "count": 1, "wagered_cents": 500, "levels": [1]},
                contribution=("ignored", 5, 500))  # the body as the version-2 release made it
    old.close()
    with sqlite3.connect(path) as db:  # as the version-2 release left the file
        db.execute("DROP TABLE linked_unit")
        db.execute("PRAGMA user_version = 2")
    db.close()
    upgraded = Spool(path)
    store = Store(StoreConfig(None, tmp_path / "floor.sqlite3"))
    try:
        again = SpoolSender(Floor(Topics("casino-1", "T1")), upgraded, "c4p")  # type: ignore[arg-type]
        assert again.resend(0) == 1
        again.send("contribution", {"round": 6, "count": 1, "wagered_cents": 500, "levels": [1],
                                    "controller": UNIT}, contribution=(unit_key(UNIT), 6, 500))  # fmt: skip
        link = LinkController({"c4p": LINK}, store, "main")
        schemas = Schemas()
        kept = [message.payload for message in upgraded.pending(0, 100) if message.topic.endswith("/linked")]
        bodies = [schemas.read("linked", payload) for payload in kept]
        assert "controller" not in bodies[-2] and bodies[-1]["controller"] == UNIT
        for body in bodies:  # as floor/service.py hears them
            link.heard("T1", body)
        assert link.state_for("c4p", "T1")["applied"]["number"] == 2  # type: ignore[index]
    finally:
        store.close()
        upgraded.close()


def test_a_hit_or_void_naming_no_unit_takes_the_round_of_any_unit(store):
    """A message from before the unit was named names none: its round is any unit's, as a
    contribution of no unit kept is taken for a round of any unit."""
    controller = LinkController({"c4p": LINK}, store, "main")
    _sent(controller, "T1", 1, "contribution", round=5, wagered_cents=1000, controller=None)  # +50
    assert store.run("SELECT count(*) FROM link_funded_units").fetchone()[0] == 0
    _sent(controller, "T1", 2, "contribution", round=6, wagered_cents=2000, controller=NEW_UNIT)  # +100
    _sent(controller, "T1", 3, "hit", level=1, seat=1, round=6, controller=None)  # froze 100,150
    assert [hit["spool"] for hit in _level(controller, "T1", 1)["hits"]] == ["s1"]
    _sent(controller, "T1", 4, "void", round=6, wagered_cents=2000, controller=None)
    _sent(controller, "T1", 5, "void", round=5, wagered_cents=1000, controller=None)
    level = _level(controller, "T2", 1)
    assert not level["locked"] and level["value_cents"] == 100_000 and _accrued(controller, 1) == 0


def test_a_level_stops_at_its_limit_and_keeps_the_overflow_for_the_next_cycle(store):
    """As a controller's overflow meter (docs/protocol.md §11.4): what accrues above the limit is
    neither shown nor paid, nor lost; after the hit the level restarts at its reset value plus as
    much of the overflow as fits under the limit."""
    capped = FloorLink("c4p", ("T1", "T2", "T3"), {1: LinkedLevel(500, 100_000, 150_000)}, 2.0)
    controller = LinkController({"c4p": capped}, store, "main")
    _sent(controller, "T2", 1, "contribution", round=1, wagered_cents=2_000_000, levels=[1])  # +100,000
    level = _level(controller, "T1", 1)
    assert (level["value_cents"], level["overflow_cents"], level["limit_cents"]) == (150_000, 50_000, 150_000)
    _sent(controller, "T1", 1, "contribution", round=1, wagered_cents=1_000_001, levels=[1])  # +50,000.05
    _sent(controller, "T1", 2, "hit", level=1, seat=2, round=1)
    level = _level(controller, "T3", 1)
    assert [hit["amount_cents"] for hit in level["hits"]] == [150_000]  # the limit, never above
    assert (level["value_cents"], level["overflow_cents"]) == (150_000, 50_000)  # restarted with it
    _sent(controller, "T2", 2, "hit", level=1, seat=1, round=1)
    level = _level(controller, "T3", 1)
    assert [hit["amount_cents"] for hit in level["hits"]] == [150_000, 150_000]
    assert (level["value_cents"], level["overflow_cents"]) == (150_000, 0)
    # 3,000,001 cents at 5%: 150,000.05 cents, 50,000 paid above the reset at each hit, the rest kept
    assert _accrued(controller, 1) == 50_000 * 10_000 + 500


def _meters(store, table, limits):
    """``table``'s birth as the floor's store counts it, its progressive controller's levels with
    ``limits`` (level: limit_cents), as its meter message publishes them (decision 0050)."""
    meters = [
        {"level": level, "value_cents": 1000, "limit_cents": limit, "in_cents": 0, "hits": 0, "wins_cents": 0,
         "frozen": False}
        for level, limit in sorted(limits.items())
    ]  # fmt: skip
    held = store.run("SELECT last_seq FROM floor_tables WHERE name = ?", (table,)).fetchone()
    seq = 1 if held is None else held[0] + 1
    store.birth(table, {
        "table": table, "session": 1, "spool": "f" * 32, "as_of_seq": seq, "held_from": seq + 1,
        "game": "crazy-4-poker", "rounds": 0, "state": {"status": "open", "reason": None, "dealer": None},
        "faults": [], "links": {}, "meters": meters, "wagers_locked": None, "counters": {}, "head": None,
    })  # fmt: skip


def test_a_level_stops_at_the_lowest_limit_its_tables_controllers_hold_and_says_so(store):
    """Decision 0050: T2's controller holds at most 120,000 cents on level 1, below the link's
    limit_cents of 10,000,000; T2 would refuse a state above it and lock its wagers. Once T2's meters
    say so, level 1 stops there at every table, the rest kept as its overflow and paid into the next
    cycle; the view names the link, the level, the table and both limits. A level T2 is not linked
    to, or a limit the link's is within, is no conflict."""
    controller = LinkController({"c4p": LINK}, store, "main")
    _sent(controller, "T1", 1, "contribution", round=1, wagered_cents=1_000_000)  # level 1: +50,000
    _sent(controller, "T2", 1, "contribution", round=1, wagered_cents=100, levels=[1])
    assert _level(controller, "T3", 1)["value_cents"] == 150_005  # nothing heard of T2's limits yet
    _meters(store, "T2", {1: 120_000, 2: 6_000})  # level 2: T2 is not on it
    _meters(store, "T1", {1: 10_000_000, 2: 1_000_000})
    level = _level(controller, "T3", 1)
    assert (level["limit_cents"], level["value_cents"], level["overflow_cents"]) == (120_000, 120_000, 30_005)
    (conflict,) = controller.view()[0]["limits"]
    assert conflict == {
        "level": 1, "table": "T2", "link_limit_cents": 10_000_000, "table_limit_cents": 120_000,
        "stops_at_cents": 120_000,
        "reason": "link c4p: level 1's limit_cents 10000000 is above table T2's progressive controller limit "
                  "of 120000 cents: the level stops at 120000 cents, the rest kept as its overflow",
    }  # fmt: skip
    _sent(controller, "T1", 2, "hit", level=1, seat=2, round=1)
    level = _level(controller, "T3", 1)
    assert [hit["amount_cents"] for hit in level["hits"]] == [120_000]  # what T2's sign can show
    assert (level["value_cents"], level["overflow_cents"]) == (120_000, 10_005)  # restarted with the rest
    _meters(store, "T2", {1: 10_000_000})  # its controller set right
    assert controller.view()[0]["limits"] == []
    assert _level(controller, "T3", 1)["value_cents"] == 130_005


def _told(controller, table, level, acknowledged=True):
    """The value of ``level`` in what a publication of the link now tells ``table`` (what its sign
    shows), the publication acknowledged by the broker unless ``acknowledged`` is false (the broker
    lost before its PUBACK)."""
    publication = controller.publication("c4p", "floor-1")
    if acknowledged:
        controller.acknowledged(publication)
    told = json.loads(dict(publication.messages)[f"croupier/v1/main/link/c4p/table/{table}"])
    return next(one for one in told["levels"] if one["level"] == level)["value_cents"]


def test_a_hit_pays_what_its_tables_sign_was_last_told_a_lower_limit_applies_from_the_next_publication(store):
    """Decision 0050: T2's lower controller limit reaches the floor's store (its meter message) while
    every sign shows 150,005; T1's player hits before the link publishes again. The hit is paid
    what T1's sign showed, never less (the lower limit is every table's from the next publication);
    the next hit, after that publication, is paid the level stopped at T2's limit."""
    controller = LinkController({"c4p": LINK}, store, "main")
    _sent(controller, "T1", 1, "contribution", round=1, wagered_cents=1_000_000)  # level 1: +50,000
    _sent(controller, "T2", 1, "contribution", round=1, wagered_cents=100, levels=[1])
    assert _told(controller, "T1", 1) == 150_005
    _meters(store, "T2", {1: 120_000})
    _sent(controller, "T1", 2, "hit", level=1, seat=2, round=1)
    assert [hit["amount_cents"] for hit in _level(controller, "T1", 1)["hits"]] == [150_005]
    _sent(controller, "T1", 3, "reset", level=1)
    _sent(controller, "T1", 4, "contribution", round=2, wagered_cents=1_000_000)  # +50,000
    assert _told(controller, "T1", 1) == 120_000  # published: the lower limit now every table's
    _sent(controller, "T1", 5, "hit", level=1, seat=1, round=2)
    assert [hit["amount_cents"] for hit in _level(controller, "T1", 1)["hits"]] == [120_000]
    level = _level(controller, "T1", 1)
    assert (level["value_cents"], level["overflow_cents"]) == (120_000, 10_000)  # 20,000 of 30,000 paid in


def test_a_lower_limit_sent_but_never_acknowledged_does_not_lower_a_hit(store):
    """Decision 0050: the broker lost in the middle of the publication that lowers level 1 to T2's
    limit (no PUBACK came): T1's sign still shows 150,005, and T1's hit, heard after the floor
    connects again and before the link publishes again, is paid that, never the lower limit its
    sign was never shown. The lower limit is every table's from the next acknowledged publication."""
    controller = LinkController({"c4p": LINK}, store, "main")
    _sent(controller, "T1", 1, "contribution", round=1, wagered_cents=1_000_000)  # level 1: +50,000
    _sent(controller, "T2", 1, "contribution", round=1, wagered_cents=100, levels=[1])
    assert _told(controller, "T1", 1) == 150_005
    _meters(store, "T2", {1: 120_000})
    assert _told(controller, "T1", 1, acknowledged=False) == 120_000  # sent; the broker lost before its ack
    _sent(controller, "T1", 2, "hit", level=1, seat=2, round=1)
    assert [hit["amount_cents"] for hit in _level(controller, "T1", 1)["hits"]] == [150_005]
    _sent(controller, "T1", 3, "reset", level=1)
    _sent(controller, "T1", 4, "contribution", round=2, wagered_cents=1_000_000)  # +50,000
    assert _told(controller, "T1", 1) == 120_000  # acknowledged: the lower limit every table's now
    _sent(controller, "T1", 5, "hit", level=1, seat=1, round=2)
    assert [hit["amount_cents"] for hit in _level(controller, "T1", 1)["hits"]] == [120_000]


def test_a_limit_sent_before_a_restart_and_never_acknowledged_still_counts_after_it(tmp_path):
    """The floor stopped between sending a publication and the broker's acknowledgement: what was
    sent is kept in the store before it is sent, so after the restart a hit is still frozen under
    the higher of it and the limit last acknowledged (here the raised one a sign may show); once a
    later publication of the same floor service is acknowledged, what was sent before it is past."""
    config = StoreConfig(None, tmp_path / "floor.sqlite3")
    with contextlib.closing(Store(config)) as store:
        controller = LinkController({"c4p": LINK}, store, "main")
        _sent(controller, "T1", 1, "contribution", round=1, wagered_cents=1_000_000)  # level 1: +50,000
        _sent(controller, "T2", 1, "contribution", round=1, wagered_cents=100, levels=[1])
        _meters(store, "T2", {1: 120_000})
        assert _told(controller, "T1", 1) == 120_000  # acknowledged
        _meters(store, "T2", {1: 10_000_000})  # its controller set right
        assert _told(controller, "T1", 1, acknowledged=False) == 150_005  # the floor stops before the ack
    with contextlib.closing(Store(config)) as store:
        controller = LinkController({"c4p": LINK}, store, "main")
        _sent(controller, "T1", 2, "hit", level=1, seat=2, round=1)
        assert [hit["amount_cents"] for hit in _level(controller, "T1", 1)["hits"]] == [150_005]
        _sent(controller, "T1", 3, "reset", level=1)
        _sent(controller, "T1", 4, "contribution", round=2, wagered_cents=1_000_000)  # +50,000
        _meters(store, "T2", {1: 120_000})
        assert _told(controller, "T1", 1) == 120_000  # acknowledged: the raised limit sent is past
        _sent(controller, "T1", 5, "hit", level=1, seat=1, round=2)
        assert [hit["amount_cents"] for hit in _level(controller, "T1", 1)["hits"]] == [120_000]


def test_a_hit_is_never_frozen_above_what_the_hitting_tables_own_controller_holds(store):
    """T1's own controller limit lowered (its meter message heard) after its sign was told 150,005,
    and T1 hits before the next publication: the hit is frozen at T1's own limit, what its
    controller can show and pay (a hit above it the table refuses, and would pay nothing), the rest
    kept in the pot."""
    controller = LinkController({"c4p": LINK}, store, "main")
    _sent(controller, "T1", 1, "contribution", round=1, wagered_cents=1_000_000, levels=[1])
    _sent(controller, "T2", 1, "contribution", round=1, wagered_cents=100, levels=[1])
    assert _told(controller, "T1", 1) == 150_005
    _meters(store, "T1", {1: 120_000})
    _sent(controller, "T1", 2, "hit", level=1, seat=2, round=1)
    level = _level(controller, "T2", 1)
    assert [hit["amount_cents"] for hit in level["hits"]] == [120_000]
    assert (level["value_cents"], level["overflow_cents"]) == (120_000, 10_005)


def test_a_table_whose_limit_is_below_the_reset_value_does_not_lower_the_level(store):
    """A controller that cannot hold even the level's reset value can never show it: it does not
    drag the level down for every other table; it is shown, saying why its wagers stay refused."""
    controller = LinkController({"c4p": LINK}, store, "main")
    _meters(store, "T3", {1: 50_000, 2: 1_000_000})
    assert _level(controller, "T1", 1)["limit_cents"] == 10_000_000
    (conflict,) = controller.view()[0]["limits"]
    assert (conflict["table"], conflict["level"], conflict["stops_at_cents"]) == ("T3", 1, 10_000_000)
    assert "below the level's reset value of 100000: the table cannot show the level" in conflict["reason"]


def test_a_limit_conflict_is_logged_once_as_found_and_once_as_put_right(store):
    controller = LinkController({"c4p": LINK}, store, "main")
    with structlog.testing.capture_logs() as logs:
        controller.publication("c4p", "floor-1")
        _meters(store, "T2", {1: 120_000, 2: 1_000_000})
        controller.publication("c4p", "floor-1")
        controller.publication("c4p", "floor-1")
        _meters(store, "T2", {1: 10_000_000, 2: 1_000_000})
        controller.publication("c4p", "floor-1")
    said = [(entry["log_level"], entry.get("table"), entry.get("level")) for entry in logs
            if "controller limit" in entry["event"]]  # fmt: skip
    assert said == [("warning", "T2", 1), ("info", "T2", 1)]
    warned = next(entry for entry in logs if entry["log_level"] == "warning")
    assert "level 1's limit_cents 10000000 is above table T2's progressive controller limit of 120000" in (
        warned["reason"]
    )


def test_a_linked_table_takes_the_state_of_a_link_configured_above_its_controllers_limit(tmp_path):
    """The table's side (devices.linked): a link whose growth passes a table's controller limit, which
    refuses a state above its own (and would lock its progressive wagers for good), configured with a
    limit_cents above the table's, was refused whole by the table; with the table's limits in its
    meters (croupier.floor_link.payloads.meters), the floor stops the level at the table's limit,
    keeps the cent above as its overflow, and the table takes the state."""
    from types import SimpleNamespace

    from croupier.floor_link.payloads import meters
    from devices.linked import LinkedLevels
    from tests.links import run
    from tests.unit.test_linked_levels import Sender
    from tests.unit.test_progressive_rules import Table

    table = Table()
    store = Store(StoreConfig(None, tmp_path / "floor.sqlite3"))

    async def scenario() -> None:
        link = LinkedLevels("T1", "c4p", {1: 1000}, 30.0, Sender())
        table.progressive.attach(link)
        await table.progressive.sync()
        limit = table.progressive.levels[1].limit_cents
        level = LinkedLevel(1000, 1_000_000, limit * 10)  # configured above the table's controller
        controller = LinkController({"c4p": FloorLink("c4p", ("T1", "T2"), {1: level}, 2.0)}, store, "main")
        wagered = (limit - 1_000_000 + 1) * 10  # at 10%: a cent past T1's controller's limit
        _sent(controller, "T2", 1, "contribution", round=1, wagered_cents=wagered, levels=[1])
        with pytest.raises(ValueError, match="above the level's limit"):  # before its meters were heard
            link.heard(controller.state_for("c4p", "T1") | TOLD)
        published = meters(SimpleNamespace(progressive=table.progressive))
        assert published is not None and published[0]["limit_cents"] == limit
        store.birth("T1", {"spool": "f" * 32, "session": 1, "as_of_seq": 1, "held_from": 2, "game": "c4p",
                           "rounds": 0, "state": {}, "faults": [], "links": {}, "meters": published,
                           "wagers_locked": None, "counters": {}, "head": None})  # fmt: skip
        state = controller.state_for("c4p", "T1")
        assert state["levels"][0]["value_cents"] == limit and state["levels"][0]["overflow_cents"] == 1
        link.heard(state | TOLD)  # taken: nothing refused
        assert link.refusal() is None

    try:
        run(scenario(), 10)
    finally:
        store.close()


@pytest.mark.parametrize("old", [UNIT, NEW_UNIT], ids=["meters cleared", "unit replaced"])
def test_a_second_void_of_one_round_under_a_new_number_takes_nothing_back(store, old):
    """A void names a round; the round it voids is the one its table last contributed (decision
    0044), withdrawn once. The same void again under a new number (sent twice by a table) finds that
    round withdrawn and takes nothing back, not even an older round of the same number and cents (the
    same unit's before its meters were cleared, or a replaced unit's), whose hit, paid and reset long
    ago, stands: the same jackpot is never paid twice, and the table's counts, taking it off twice,
    no longer reconcile (LINK_MISMATCH)."""
    controller = LinkController({"c4p": LINK}, store, "main")
    _sent(controller, "T1", 1, "contribution", round=1, wagered_cents=1000, controller=old)  # the old round 1
    _sent(controller, "T1", 2, "hit", level=1, seat=3, round=1, controller=old)  # froze 100,050
    _sent(controller, "T1", 3, "reset", level=1)
    _sent(controller, "T1", 4, "contribution", round=1, wagered_cents=1000)  # the controller's round 1 now
    assert _sent(controller, "T1", 5, "void", round=1, wagered_cents=1000) == "c4p"
    assert _accrued(controller, 1) == 0 and _level(controller, "T2", 1)["value_cents"] == 100_000
    assert _sent(controller, "T1", 6, "void", round=1, wagered_cents=1000) == "c4p"  # counted, not applied
    assert store.run("SELECT count(*) FROM link_hit_voids").fetchone()[0] == 0, "the old hit stands"
    assert _accrued(controller, 1) == 0 and _accrued(controller, 2) == 1000 * 100  # the old round 1's
    assert store.run("SELECT count(*) FROM link_funded WHERE withdrawn_at IS NOT NULL").fetchone()[0] == 2
    assert controller.state_for("c4p", "T1")["applied"] == {
        "spool": "s1", "number": 6, "contributions": 1, "wagered_cents": 1000
    }


def test_a_hit_sent_before_a_voids_publication_is_paid_what_its_sign_showed_the_house_bearing_it(store):
    """Decisions 0044 and 0050: a void at T2 lowers the pot just before T1's hit, T1 not having
    heard the next publication: its sign showed 110,000, and a player paid less than the sign showed
    is a dispute on the floor. A level's value never goes below what was published in its cycle
    (since its last hit): the hit is paid 110,000, the 5,000 the void took out borne by the house and
    kept beside the hit, so the level's accounting balances to the ten-thousandth of a cent: the
    next cycle starts from what the pot held, owing nothing. A void of the hit itself gives back to
    the level only what the pot paid of it."""
    controller = LinkController({"c4p": LINK}, store, "main")
    _sent(controller, "T1", 1, "contribution", round=1, wagered_cents=100_003)  # level 1: +5,000.15
    _sent(controller, "T2", 1, "contribution", round=7, wagered_cents=100_000)  # +5,000
    shown = _told(controller, "T1", 1)
    assert shown == 110_000
    _sent(controller, "T2", 2, "void", round=7, wagered_cents=100_000)  # a misdeal at T2, applied ...
    assert _level(controller, "T3", 1)["value_cents"] == shown, "no sign goes down within the cycle"
    _sent(controller, "T1", 2, "hit", level=1, seat=2, round=1)  # ... as T1's hit, sent before it heard
    (hit,) = _level(controller, "T1", 1)["hits"]
    assert hit["amount_cents"] == shown
    assert store.run("SELECT ord, cents FROM link_house").fetchall() == [(1, 5_000)]
    assert _accrued(controller, 1) == 1_500, "the fraction of a cent kept, nothing owed to the house"
    assert _level(controller, "T3", 1)["value_cents"] == 100_000, "a new cycle: from the reset value"
    _sent(controller, "T1", 3, "void", round=1, wagered_cents=100_003)
    assert not _level(controller, "T3", 1)["locked"]
    assert _accrued(controller, 1) == 0, "the pot's 5,000.15 back and T1's own wager out: as if never"
    assert _level(controller, "T3", 1)["value_cents"] == 100_000


def _balance(store):
    """Per level, in ten-thousandths of a cent: what went into the pot (standing contributions, and
    withdrawn ones a standing hit took) less what the pot paid out (each standing hit above its reset
    value, less what the house bore of it) less what the level holds now: 0 when nothing is lost."""
    out = {}
    for level, rate, reset, in_cents, carry in store.run(
        "SELECT level, rate_bp, reset_cents, in_cents, carry FROM link_levels WHERE link = 'c4p'"
    ).fetchall():
        paid_in = store.run(
            "SELECT coalesce(sum(cents), 0) FROM link_funded WHERE link = 'c4p' AND level = ? AND "
            "(withdrawn_at IS NULL OR taken_by IS NOT NULL)", (level,)).fetchone()[0] * rate
        paid_out = store.run(
            "SELECT coalesce(sum(h.amount_cents - coalesce(x.cents, 0) - ?), 0) FROM link_hits h LEFT JOIN "
            "link_house x ON x.link = h.link AND x.ord = h.ord WHERE h.link = 'c4p' AND h.level = ? AND "
            "h.ord NOT IN (SELECT ord FROM link_hit_voids)", (reset, level)).fetchone()[0] * BASIS_POINTS
        out[level] = paid_in - paid_out - (in_cents * rate + carry)
    return out


def test_the_link_balances_and_link_house_keeps_only_what_a_standing_hit_was_paid(store):
    """Decision 0044: through a void, a hit the house tops up, that hit's own round voided and a
    second hit, the pot balances to the ten-thousandth of a cent, and ``link_house`` keeps only what
    the house paid to a hit that stands: a hit voided with its round was never paid."""
    controller = LinkController({"c4p": LINK}, store, "main")
    _sent(controller, "T1", 1, "contribution", round=1, wagered_cents=100_003)
    _sent(controller, "T2", 1, "contribution", round=7, wagered_cents=100_001)
    _told(controller, "T1", 1)
    _sent(controller, "T2", 2, "void", round=7, wagered_cents=100_001)
    assert _balance(store) == {1: 0, 2: 0}
    _sent(controller, "T1", 2, "hit", level=1, seat=2, round=1)  # paid what the sign showed; house tops up
    assert store.run("SELECT count(*) FROM link_house").fetchone()[0] == 1
    assert _balance(store) == {1: 0, 2: 0}
    _told(controller, "T1", 1)
    _sent(controller, "T1", 3, "void", round=1, wagered_cents=100_003)  # the hit's round voided in turn
    assert _balance(store) == {1: 0, 2: 0}
    _sent(controller, "T3", 1, "contribution", round=1, wagered_cents=77_777)
    _told(controller, "T3", 1)
    _sent(controller, "T3", 2, "hit", level=1, seat=1, round=1)
    assert _balance(store) == {1: 0, 2: 0}
    standing = store.run(
        "SELECT x.ord, x.cents FROM link_house x WHERE x.ord NOT IN (SELECT ord FROM link_hit_voids)"
    ).fetchall()
    assert store.run("SELECT ord, cents FROM link_house").fetchall() == standing


def test_a_hit_whose_table_pc_was_replaced_before_its_keyed_reset_is_released_at_the_floor(store):
    """Decision 0039: a hit's lock lifts with the keyed reset at its table. T1's PC is replaced after
    its hit and before the reset reached the link: the new PC sends from a new spool and never owes
    the old spool's reset (devices.linked), and its controller is no longer frozen, so no key can
    be turned: the level would stay locked at every table. A supervisor releases it at the floor,
    the release kept with who and why (the old PC sending after the hit and before the new one is
    no bar); refused while the table still sends from the hit's spool (its key releases it), for a
    hit no longer locking, and without a name and a reason."""
    controller = LinkController({"c4p": LINK}, store, "main")
    _sent(controller, "T1", 1, "contribution", round=1, wagered_cents=1_000)
    _sent(controller, "T1", 2, "hit", level=1, seat=2, round=1)
    with pytest.raises(Unreleased, match=r"hit 1 \(level 1, table T1\) is table T1's to release"):
        controller.release("c4p", 1, "S. Pit", "the table PC was replaced")
    _sent(controller, "T1", 3, "contribution", round=2, wagered_cents=1_000)  # the old PC, after the hit
    _sent(controller, "T1", 1, "contribution", spool="s2", round=1, wagered_cents=1_000)  # the new PC
    with pytest.raises(Unreleased, match="who releases the lock and why"):
        controller.release("c4p", 1, "S. Pit", " ")
    assert _level(controller, "T2", 1)["locked"]
    with structlog.testing.capture_logs() as logged:
        said = controller.release("c4p", 1, "S. Pit", "T1's PC replaced after the hit, key not turned")
    assert said == ("link c4p: hit 1 (level 1, table T1, 100050 cents) released at the floor by S. Pit: "
                    "T1's PC replaced after the hit, key not turned")  # fmt: skip
    assert not _level(controller, "T2", 1)["locked"]
    assert [(e["released_by"], e["order"]) for e in logged if e.get("released_by")] == [("S. Pit", 1)]
    record = store.run("SELECT link, ord, released_by, reason FROM link_released").fetchall()
    assert record == [("c4p", 1, "S. Pit", "T1's PC replaced after the hit, key not turned")]
    with pytest.raises(Unreleased, match="no hit 1 locks a level"):
        controller.release("c4p", 1, "S. Pit", "again")


def test_a_hit_whose_own_spool_is_heard_after_the_new_spools_last_message_is_not_released(store):
    """Decision 0039 (its amendment): the old PC back at the table after the new one last sent (the
    new one failed, or both on the network during a swap) still owes the hit's keyed reset and can
    turn its key, so the floor refuses to release it, though a new spool was heard since the hit."""
    controller = LinkController({"c4p": LINK}, store, "main")
    _sent(controller, "T1", 1, "contribution", round=1, wagered_cents=1_000)
    _sent(controller, "T1", 2, "hit", level=1, seat=2, round=1)
    _sent(controller, "T1", 1, "contribution", spool="s2", round=1, wagered_cents=1_000)  # the new PC
    _sent(controller, "T1", 3, "contribution", round=2, wagered_cents=1_000)  # the old PC back: s1 again
    with pytest.raises(Unreleased, match="sent from the hit's spool since the new spool's last message"):
        controller.release("c4p", 1, "S. Pit", "PC replaced")
    assert _level(controller, "T2", 1)["locked"]


def test_a_hit_whose_old_pc_was_heard_during_a_swap_is_released_once_a_new_spool_is_heard_after_it(store):
    """Decision 0039 (its amendment): the old PC heard once after the new one's first message (both
    on the network during a swap), then unplugged, bars the release only while its spool is the
    table's last heard: once a new spool is heard after it the new PC plays on, owing no key for the
    hit (devices.linked), and the release is no longer refused, or the level would stay locked at
    every table for good with only the unplugged PC's key to lift it."""
    controller = LinkController({"c4p": LINK}, store, "main")
    _sent(controller, "T1", 1, "contribution", round=1, wagered_cents=1_000)
    _sent(controller, "T1", 2, "hit", level=1, seat=2, round=1)
    _sent(controller, "T1", 1, "contribution", spool="s2", round=1, wagered_cents=1_000)  # the new PC up
    _sent(controller, "T1", 3, "contribution", levels=[2], round=2, wagered_cents=1_000)  # the old PC, once
    with pytest.raises(Unreleased, match="sent from the hit's spool since the new spool's last message"):
        controller.release("c4p", 1, "S. Pit", "old PC unplugged after the swap")
    _sent(controller, "T1", 2, "contribution", spool="s2", levels=[2], round=2, wagered_cents=1_000)
    controller.release("c4p", 1, "S. Pit", "old PC unplugged after the swap; award paid by hand")
    assert not _level(controller, "T2", 1)["locked"]


def test_croupier_floor_release_hit_releases_with_who_and_why_or_says_why_not(tmp_path):
    """``croupier floor release-hit`` (docs/floor.md): the supervisor's release from the command
    line, on the floor's own store: exit 1 naming why it is refused, exit 0 saying what it released."""
    config = tmp_path / "floor.toml"
    config.write_text(
        f'[store]\npath = "{tmp_path / "floor.sqlite3"}"\n[links.c4p]\ntables = ["T1", "T2", "T3"]\n'
        "[links.c4p.levels.1]\nrate_bp = 500\nreset_cents = 100000\nlimit_cents = 10000000\n"
        "[links.c4p.levels.2]\nrate_bp = 100\nreset_cents = 5000\nlimit_cents = 1000000\n"
    )
    opened = Store(StoreConfig(None, tmp_path / "floor.sqlite3"))
    controller = LinkController({"c4p": LINK}, opened, "main")
    _sent(controller, "T1", 1, "contribution", round=1, wagered_cents=1_000)
    _sent(controller, "T1", 2, "hit", level=1, seat=2, round=1)
    opened.close()

    def release() -> subprocess.CompletedProcess[str]:
        command = [sys.executable, "-m", "croupier", "floor", "release-hit", "c4p", "1", "--by", "S. Pit",
                   "--reason", "PC replaced", "--config", str(config)]  # fmt: skip
        return subprocess.run(command, capture_output=True, text=True, check=False)

    refused = release()
    assert (refused.returncode, refused.stdout) == (1, "refused: link c4p: hit 1 (level 1, table T1) is "
                                                       "table T1's to release with its keyed reset (nothing "
                                                       "from a new spool since)\n")  # fmt: skip
    opened = Store(StoreConfig(None, tmp_path / "floor.sqlite3"))
    _sent(LinkController({"c4p": LINK}, opened, "main"), "T1", 1, "contribution", spool="s2", round=1,
          wagered_cents=1_000)  # fmt: skip
    opened.close()
    released = release()
    assert (released.returncode, released.stdout) == (0, "link c4p: hit 1 (level 1, table T1, 100050 cents) "
                                                         "released at the floor by S. Pit: PC replaced\n")


def test_a_publication_a_floor_service_gone_never_had_acknowledged_is_retired_by_a_later_one(store):
    """Decision 0050: a limit sent and never acknowledged counts for hits only until a later
    publication of the link, by any floor service, is acknowledged (the link's publications reach the
    broker in the store's order). A floor service stopped before its PUBACK, for good (its host
    renamed), sent 150,005; every sign has shown 120,000 since, acknowledged: T1's hit is frozen at
    120,000, not above what every sign showed (before, the gone service's row counted for every hit,
    and T2's controller, holding 120,000, refused each state naming such a hit)."""
    controller = LinkController({"c4p": LINK}, store, "main")
    _sent(controller, "T1", 1, "contribution", round=1, wagered_cents=1_000_000)  # level 1: 150,005
    _sent(controller, "T2", 1, "contribution", round=1, wagered_cents=100, levels=[1])
    controller.publication("c4p", "old-floor")  # its PUBACK never came, nor any publication of it since
    _meters(store, "T2", {1: 120_000})
    for _ in range(2):  # the other floor service's heartbeats, acknowledged: every sign shows 120,000
        assert _told(controller, "T1", 1) == 120_000
    _sent(controller, "T1", 2, "hit", level=1, seat=2, round=1)
    (hit,) = _level(controller, "T1", 1)["hits"]
    assert hit["amount_cents"] == 120_000, f"frozen above what every sign showed: {hit['amount_cents']}"


def test_a_schema_3_store_counts_the_links_publications_past_what_each_sender_numbered(tmp_path):
    """Decision 0050 (schema version 4): a store of schema 3 numbered each floor service's
    publications from 1 in ``link_sent``; opened by this release, it is marked 4 and the link's count
    starts past the highest kept, so the next acknowledged publication, by any service, retires them."""
    path = tmp_path / "floor.sqlite3"
    with contextlib.closing(Store(StoreConfig(None, path))) as old:
        LinkController({"c4p": LINK}, old, "main")
        old.run("DROP TABLE link_revisions")
        old.run("INSERT INTO link_sent VALUES ('c4p', 'floor-9', 3, 1, 9000000)")
        old.run("PRAGMA user_version = 3")
    with contextlib.closing(Store(StoreConfig(None, path))) as store:
        assert store.run("PRAGMA user_version").fetchone()[0] == FLOOR_FILE.schema_version == 4
        controller = LinkController({"c4p": LINK}, store, "main")
        publication = controller.publication("c4p", "floor-1")
        assert publication.revision == 4
        controller.acknowledged(publication)
        assert store.run("SELECT sender, sent FROM link_sent").fetchall() == []


def test_a_store_restored_from_a_backup_is_heard_by_a_table_that_took_later_revisions(tmp_path):
    """Decision 0050 (``store`` names the count): each floor service names the store's count afresh in
    its first publication of the link since it started, so a store restored from last night's backup, which
    counts on from the backup's revision, is another store to a table that took a later revision
    since, and its state is taken: the table never ignores the floor for good (before, it dropped
    every state until the count passed the one it took, its link lost, its progressive wagers
    refused)."""
    path, backup = tmp_path / "floor.sqlite3", tmp_path / "backup.sqlite3"
    store = Store(StoreConfig(None, path))
    controller = LinkController({"c4p": LINK}, store, "main")
    _sent(controller, "T1", 1, "contribution", round=1, wagered_cents=1000)
    controller.acknowledged(controller.publication("c4p", "floor-1"))
    with contextlib.closing(sqlite3.connect(backup)) as copy:  # the nightly backup, revision 1 made
        store._db.backup(copy)
    for _ in range(5):  # the day goes on: revisions 2 to 6, the last taken by T1
        last = controller.publication("c4p", "floor-1")
        controller.acknowledged(last)
    store.close()
    backup.replace(path)  # the disk lost: the store restored from last night's backup
    with contextlib.closing(Store(StoreConfig(None, path))) as store:
        restarted = LinkController({"c4p": LINK}, store, "main")  # the floor service started again on it
        restored = restarted.publication("c4p", "floor-1")
    table, sender, _progressive = _restarted(0, frozen=False)
    sender.sent = Counts()

    def state(publication) -> dict[str, object]:  # type: ignore[no-untyped-def]
        told = json.loads(publication.messages[0][1])
        return {"at": _at(), "levels": [_level_told(2000)], "applied": None, "store": told["store"],
                "revision": told["revision"], "refused": []}  # fmt: skip

    async def heard() -> tuple[float | None, float | None]:
        table.heard(state(last))
        before = table.heard_at
        table.heard(state(restored))
        return before, table.heard_at

    assert restored.revision < last.revision
    before, after = run(heard(), 5)
    assert after != before, f"the restored store's state {state(restored)} dropped after {state(last)}"


@pytest.mark.parametrize(
    "refusal", [None, "Not authorized (reason code 0x87)"], ids=["acknowledged", "refused"]
)
def test_a_publication_a_puback_refused_for_one_table_is_not_acknowledged(tmp_path, refusal):
    """Decision 0050 (a PUBACK refusing it, reason code 0x80 or more, is no acknowledgement): the
    floor service (``FloorService._publish_link``) keeps a publication's limits as published only
    when the broker acknowledged every table's state; one refused for T2 leaves them kept as sent,
    so a hit is frozen under the higher of them and the limits published before."""

    class Told:  # the broker's answer to each table's state, as ``Refusals.publish`` gives it
        async def publish(self, topic: str, payload: bytes) -> str | None:
            return refusal if topic == link_state("main", "c4p", "T2") else None

    with contextlib.closing(Store(StoreConfig(None, tmp_path / "floor.sqlite3"))) as store:
        controller = LinkController({"c4p": LINK}, store, "main")
        service = FloorService(load_floor_config(None), cast(Broker, None), store, controller)
        run(service._publish_link(cast(Refusals, Told()), controller, "c4p"), 5)
        published = store.run("SELECT level FROM link_published WHERE link = 'c4p'").fetchall()
        sent = store.run("SELECT DISTINCT sent FROM link_sent WHERE link = 'c4p'").fetchall()
    assert (bool(published), sent) == ((True, []) if refusal is None else (False, [(1,)]))
