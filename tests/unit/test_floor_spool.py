"""The floor link's spool (croupier.floor_link.spool; decision 0035): each message numbered in the
table's sequence and on disk before the table goes on, delivered in order, deleted only once
acknowledged, and never numbered again, across restarts; and nothing in it can hold a card."""

from __future__ import annotations

import json
import sqlite3

import pytest

from croupier.audit.record import AuditError
from croupier.floor_link import Spool
from croupier.floor_link.payloads import checked
from croupier.state import StateError
from vocabulary.cards import Card


def body(seq: int) -> dict[str, object]:
    return {"seq": seq, "round": seq * 10}


def test_messages_are_numbered_in_order_and_leave_only_when_acknowledged(tmp_path):
    with_spool = Spool(tmp_path / "spool.sqlite3")
    try:
        assert with_spool.last_seq == 0
        assert [with_spool.append(f"t/{n}", body) for n in range(3)] == [1, 2, 3]
        pending = with_spool.pending(2)
        assert [(m.seq, m.topic) for m in pending] == [(1, "t/0"), (2, "t/1")]
        assert json.loads(pending[1].payload) == {"seq": 2, "round": 20}
        with_spool.acknowledged(2)
        assert [m.seq for m in with_spool.pending(10)] == [3] and len(with_spool) == 1
    finally:
        with_spool.close()


def test_a_restart_resumes_the_spool_and_never_reuses_a_number(tmp_path):
    path = tmp_path / "spool.sqlite3"
    first = Spool(path)
    for _ in range(3):
        first.append("t", body)
    first.acknowledged(3)  # every message delivered: the spool is empty
    assert first.next_session() == 1
    first.close()
    again, afresh = Spool(path), Spool(tmp_path / "new.sqlite3")
    try:
        assert again.append("t", body) == 4, "a number the floor has seen was handed out again"
        assert again.next_session() == 2
        assert again.identity == first.identity != afresh.identity  # a new spool, numbered afresh
        assert afresh.append("t", body) == 1
    finally:
        again.close()
        afresh.close()


def test_another_sqlite_file_is_refused(tmp_path):
    path = tmp_path / "other.sqlite3"
    with sqlite3.connect(path) as db:
        db.execute("CREATE TABLE x (y)")
    db.close()
    with pytest.raises(StateError, match="not a Croupier floor spool"):
        Spool(path)


def test_no_card_reaches_the_floor_face_down_or_up():
    with pytest.raises(AuditError, match="face-down card's face"):
        checked({"round": 1, "detail": {"cards": [Card.parse("As")]}})
    assert checked({"round": 1, "net_by_seat": {"1": -500}}) == {"round": 1, "net_by_seat": {"1": -500}}
