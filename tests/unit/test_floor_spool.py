"""The floor link's spool (croupier.floor_link.spool; decision 0035): each message numbered in the
table's sequence and on disk before the table goes on, delivered in order, deleted only once
confirmed by the floor, and never numbered again, across restarts; and nothing in it can hold a card. A linked
progressive's messages (decision 0039) numbered in their own sequence, counted, and kept until the
link controller applied them."""

from __future__ import annotations

import ast
import json
import sqlite3
from pathlib import Path

import pytest

from croupier.audit.record import AuditError
from croupier.floor_link import Spool
from croupier.floor_link.payloads import WITHHELD, checked
from croupier.state import StateError
from devices.linked import Counts, unit_key
from tests import full_disk
from vocabulary.cards import Card

ROOT = Path(__file__).resolve().parents[2]


def body(seq: int) -> dict[str, object]:
    return {"seq": seq, "round": seq * 10}


def test_messages_are_numbered_in_order_and_leave_only_when_the_floor_confirmed_them(tmp_path):
    with_spool = Spool(tmp_path / "spool.sqlite3")
    try:
        assert (with_spool.last_seq, with_spool.held_from) == (0, 1)
        assert [with_spool.append(f"t/{n}", body) for n in range(3)] == [1, 2, 3]
        assert with_spool.held_from == 1, "a birth says the table sends again from 1"
        pending = with_spool.pending(0, 2)
        assert [(m.seq, m.topic) for m in pending] == [(1, "t/0"), (2, "t/1")]
        assert json.loads(pending[1].payload) == {"seq": 2, "round": 20}
        assert [m.seq for m in with_spool.pending(2, 10)] == [3], "what comes after the last sent"
        assert len(with_spool) == 3, "sent is not confirmed: all stay, to be sent again"
        with_spool.confirmed(2)
        assert [m.seq for m in with_spool.pending(0, 10)] == [3] and len(with_spool) == 1
        assert with_spool.held_from == 3
    finally:
        with_spool.close()


def test_a_restart_resumes_the_spool_and_never_reuses_a_number(tmp_path):
    path = tmp_path / "spool.sqlite3"
    first = Spool(path)
    for _ in range(3):
        first.append("t", body)
    first.confirmed(3)  # every message counted by the floor: the spool is empty
    assert first.held_from == 4, "empty: from the next number"
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


def test_a_write_the_file_refuses_is_a_state_error_and_leaves_the_spool_as_it_was(tmp_path):
    """SQLite refusing a statement inside the transaction (as a full or read-only disk refuses the
    INSERT, not only the commit) is the spool's StateError, which the floor link holds the table on;
    nothing of the message is kept, and the next one takes the next number."""
    spool = Spool(tmp_path / "spool.sqlite3")
    try:
        spool.append("t", body)
        no_insert = sqlite3.SQLITE_INSERT
        spool._db.set_authorizer(lambda action, *_: sqlite3.SQLITE_DENY if action == no_insert else 0)
        with pytest.raises(StateError, match="cannot write the floor spool: not authorized"):
            spool.append("t", body, {"hands": 3})
        spool._db.set_authorizer(None)
        assert (len(spool), spool.last_seq, spool.totals()) == (1, 1, {})
        assert spool.append("t", body) == 2
    finally:
        spool.close()


def test_a_full_disk_is_a_state_error_and_leaves_the_spool_as_it_was(tmp_path):
    """SQLite rolls the transaction back itself on a full disk: the spool's error is still its
    StateError (which holds the table as FLOOR_SPOOL_UNWRITTEN), not a failed ROLLBACK of ours."""
    spool = Spool(tmp_path / "spool.sqlite3")
    try:
        spool.append("t", body)
        full_disk.fill(spool._db)
        with pytest.raises(StateError, match="cannot write the floor spool: database or disk is full"):
            spool.append("t", lambda seq: {"seq": seq, "pad": full_disk.PAGE_AND_MORE}, {"hands": 3})
        full_disk.free(spool._db)
        assert (len(spool), spool.last_seq, spool.totals()) == (1, 1, {})
        assert spool.append("t", body) == 2
    finally:
        spool.close()


def test_a_read_the_file_refuses_is_a_state_error_as_a_refused_write_is(tmp_path):
    """What catches the spool's StateError (the floor link's watch, the link's look) catches a read
    the file refuses too (its disk failing), and goes on: never SQLite's own error."""
    spool = Spool(tmp_path / "spool.sqlite3")
    try:
        spool.append("t", body)
        no_read = sqlite3.SQLITE_READ
        spool._db.set_authorizer(lambda action, *_: sqlite3.SQLITE_DENY if action == no_read else 0)
        reads = {
            "totals": spool.totals, "pending": lambda: spool.pending(0, 9), "last": lambda: spool.last_seq,
            "held_from": lambda: spool.held_from, "len": lambda: len(spool), "unapplied": spool.unapplied,
            "linked_counts": spool.linked_counts, "linked_unit": spool.linked_unit,
            "device_base": spool.device_base, "linked_difference": spool.linked_difference,
            "waiting": lambda: spool.waiting("t"),
            "next_session": spool.next_session,
        }  # fmt: skip
        for name, read in reads.items():
            with pytest.raises(StateError, match="cannot read the floor spool"):
                read()
                pytest.fail(f"{name} read a spool that refuses reads")
        spool._db.set_authorizer(None)
        assert (len(spool), spool.last_seq) == (1, 1)
    finally:
        spool.close()


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


def test_a_card_written_in_a_faults_text_is_withheld_and_the_fault_still_goes():
    """A device's own words (a fault's detail, a link's reason) may name a card: the text goes to
    the floor without it, every way a card is written; words and numbers that are no card stay."""
    body = {
        "event": "latched", "code": "MISREAD", "clause": "decision 0017",
        "detail": "misread As (expected 10h, then Td,Xr; Q\u2660 seen) at 9c",
        "links": {"shoe": {"last_error": [
            "jam near 7d", "read AS, KH,10S; card:QD; queen of Hearts", "misread AsKdQh, A\u2660K\u2666",
            "Q of hearts, T of Spades, ace of \u2660, \u2660A",
        ]}},
    }  # fmt: skip
    assert checked(body) == {
        "event": "latched", "code": "MISREAD", "clause": "decision 0017",
        "detail": "misread [card] (expected [card], then [card],[card]; [card] seen) at [card]",
        "links": {"shoe": {"last_error": [
            "jam near [card]", "read [card], [card],[card]; card:[card]; [card]", "misread [card], [card]",
            "[card], [card], [card], [card]",
        ]}},
    }  # fmt: skip
    plain = {"detail": "ASCII array of 10 cards, AS400, Ace of 3dB, 10 of 12, T1-000001.jsonl"}
    plain["hash"] = "a3d" * 21
    assert checked(plain) == plain


@pytest.mark.parametrize(
    "text",
    [
        "reader: unexpected QUEEN_OF_HEARTS at slot 3",  # a firmware's enum name
        "reader: read queen-of-hearts",  # words joined by hyphens
        "reader: card HQ not in the sealed order",  # the suit's letter first, then the rank
        "reader: card D10 not in the sealed order",
        "reader: read 10 \u2665",  # rank, a space, the suit's sign
        "reader: read Ace\u2660",  # the rank named, the sign after it
        "reader: read \U0001f0ad",  # U+1F0AD PLAYING CARD QUEEN OF SPADES
        "reader: read 10s of hearts",  # the suit goes with the rank, not left behind
        "reader: read x\u2665y",  # a sign is withheld wherever it stands
    ],
)
def test_a_card_a_firmware_writes_in_any_of_these_ways_is_withheld(text):
    shown = checked({"detail": text})["detail"]
    assert shown.startswith("reader: ") and WITHHELD in shown, shown
    faces = ("heart", "queen", "\u2665", "\u2660", "\U0001f0ad", " hq", "d10")
    assert not any(face in shown.lower() for face in faces), shown


@pytest.mark.parametrize(
    ("text", "masked"),
    [
        ("misreadQ\u2660", "misread[card]"),  # a letter before the rank: not the sign alone
        ("seat 3 read10\u2665", "seat 3 read[card]"),
        ("K\u2666s", "[card]s"),  # a letter after the sign
        ("queen of hearts2", "[card]2"),  # a card in words need not stand apart
        ("misreadqueen of hearts", "misread[card]"),  # nor with a letter before it
        ("read10 of hearts", "read[card]"),
        ("xQ of \u2660", "x[card]"),  # the rank with its sign in words, not the sign alone
    ],
)
def test_a_rank_beside_a_suit_sign_is_withheld_with_it_whatever_touches_them(text, masked):
    """docs/floor.md, "Cards in free text", rules 1 and 2: a suit's sign goes with the rank beside it
    wherever it stands, and a card in words whatever stands before or after it; withholding the sign alone
    would tell the floor the rank of a face-down card."""
    assert checked({"detail": text})["detail"] == masked


@pytest.mark.parametrize(
    ("text", "masked"),
    [
        # a rank after the sign, a seat's or a box's number before it: both go (either may be the rank)
        ("misread at seat 3 \u2660Q", "misread at seat [card]"),
        ("seat 3 \u2660 Q", "seat [card]"),
        ("position 7 \u2663A", "position [card]"),
        ("box 2 \u2665K, box 5 \u2666J", "box [card], box [card]"),
        ("hand 2 \u2665 Q", "hand [card]"),
        # the sign in emoji (U+FE0F) or text (U+FE0E) presentation, the rank before or after it
        ("seat 3 read \u2660\ufe0fQ", "seat 3 read [card]"),
        ("seat 3 read \u2665\ufe0f 10", "seat 3 read [card]"),
        ("read 10\u2665\ufe0f", "read [card]"),
        ("read \u2666\ufe0f 10", "read [card]"),
        ("read 10\u2665\ufe0e, \U0001f0ad\ufe0f", "read [card], [card]"),
        # up to two spaces between the rank and the sign
        ("seat 3 read Q  \u2660", "seat 3 read [card]"),
        ("read A \u2663", "read [card]"),
        ("read \u2663  A", "read [card]"),
        ("read \u2660 queens, \u2665Kings, 10s \u2666", "read [card], [card], [card]"),  # one or many
        # two cards, a space between: each rank with its own sign
        ("read A\u2660 K\u2666", "read [card] [card]"),
        ("read \u2660A \u2666K", "read [card] [card]"),
        # what follows a sign and is no rank stays: a word, a longer number
        ("\u2660 and \u2665 At seat 3", "[card] and [card] At seat 3"),
        ("read \u2660100", "read [card]100"),
        ("12\u2665 read, data \u2665", "12[card] read, data [card]"),
    ],
)
def test_a_suit_signs_rank_is_withheld_with_it_on_either_side(text, masked):
    """docs/floor.md, "Cards in free text", rule 1: a sign goes with the rank written beside it, before
    or after, up to two spaces between, its presentation selector with it. A seat's number before a
    sign-first card (``seat 3 ♠Q``) once took the sign and left the card's own rank (``seat [card]Q``):
    the rank of a face-down card on the floor."""
    assert checked({"detail": text})["detail"] == masked


@pytest.mark.parametrize(
    ("text", "masked"),
    [
        ("read ten of hearts", "read [card]"),
        ("read the 10 of hearts", "read the [card]"),
        ("10 of hearts read", "[card] read"),
        ("A of hearts, a of spades", "[card], [card]"),
        ("read 2-of-clubs", "read [card]"),
        ("read queen of \u2660\ufe0f", "read [card]"),  # the sign's presentation goes with it
        ("MISREADQ OF HEARTS", "MISREAD[card]"),  # a capital, whatever stands before it
        ("misreadqueen of hearts", "misread[card]"),  # a rank named, whatever stands before it
    ],
)
def test_a_card_in_words_is_withheld_wherever_it_stands(text, masked):
    """docs/floor.md, "Cards in free text", rule 2: the neighbours of the counts and words below that
    are cards: a rank standing apart, then ``of`` and a suit."""
    assert checked({"detail": text})["detail"] == masked


@pytest.mark.parametrize(
    "text",
    [
        "deck 2: 12 of hearts read, 13 expected",  # 12 is no rank: "a number 2 to 10"
        "found 13 of spades",
        "found 100 of spades",
        "deck short of spades",  # a word ending in a small t, j, q, k or a: no rank
        "count of hearts 12",
        "out of clubs",
    ],
)
def test_a_count_or_a_word_before_of_and_a_suit_is_no_card(text):
    """docs/floor.md, "Cards in free text", rule 2: a rank is a number 2 to 10 (not the last digit of
    a longer number) or a letter standing apart from the word before it; a deck check counting a suit
    (``12 of hearts``) or a word ending in a rank's letter (``short of spades``) is left whole."""
    assert checked({"detail": text})["detail"] == text


@pytest.mark.parametrize(
    "text",
    [
        "the cover card came out as the burn card or inside a stack",  # devices/shoe.py, a fault's detail
        "progressive: the link went as lock was answered",  # devices/progressive.py
        "the device asks for its mode again",
        "no reply within 5s, then 10s",
        "AC power lost",
        "ACK of a JSON frame over TLS, ASCII, SD card, A/D, 4th try, 8 ms, 3.5V, queen bee, ten of twelve",
    ],
)
def test_an_ordinary_word_is_not_withheld(text):
    """docs/floor.md, "Cards in free text": small letters only, a number of seconds and AC power are
    words; so is anything that does not stand apart as a code."""
    assert checked({"detail": text})["detail"] == text


#: The texts Croupier writes that name cards on purpose: how a card is written, and the rule's own word.
NAMING_CARDS = {
    " is not a card (expected e.g. As, Td, 9c, Xr)",  # vocabulary/cards.py
    ": a joker is Xr or Xb",  # vocabulary/cards.py
    " cards such as 'Kc', or be null, got ",  # croupier/screen/bodies.py
    "AC",  # croupier/floor_link/payloads.py: the code that AC power leaves a word
}


def test_every_text_croupier_writes_passes_the_card_mask_whole():
    """Every string the project's own code writes (not its docstrings) that may become a fault's
    detail, a reason or a refusal goes to the floor unmangled: the mask takes no ordinary word of
    Croupier's own (a new text it would mangle fails here), only its own examples of card notation."""
    mangled = set()
    defining = (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)
    for package in ("croupier", "devices", "drivers", "firmware_sim", "floor", "games", "vocabulary"):
        for path in (ROOT / package).rglob("*.py"):
            nodes = list(ast.walk(ast.parse(path.read_text())))
            docstrings = {id(node.body[0].value) for node in nodes
                          if isinstance(node, defining) and ast.get_docstring(node) is not None}  # fmt: skip
            texts = {node.value for node in nodes if isinstance(node, ast.Constant)
                     and isinstance(node.value, str) and id(node) not in docstrings}  # fmt: skip
            mangled |= {text for text in texts if checked({"detail": text})["detail"] != text}
    assert mangled == NAMING_CARDS


@pytest.mark.parametrize("table", ["3C-1", "TH-2", "KS-12", "BJ-AD"])
def test_a_name_that_reads_as_a_card_is_left_whole_only_free_text_is_withheld(table):
    """A table named as casinos name them (Three Card Poker 1) is known to the floor by that name,
    in its birth, death and heads: only free text (a fault's detail, a reason) loses a card."""
    body = {"table": table, "head": {"file": f"{table}-000001.jsonl"}, "links": {table: {"state": "ready"}},
            "faults": [{"device": table, "code": "MISREAD", "detail": "misread Qh"}]}  # fmt: skip
    assert checked(body) == {
        "table": table, "head": {"file": f"{table}-000001.jsonl"}, "links": {table: {"state": "ready"}},
        "faults": [{"device": table, "code": "MISREAD", "detail": "misread [card]"}],
    }  # fmt: skip
    assert checked({"reason": "read TH"}) == {"reason": "read [card]"}


#: Two progressive controller units (devices.linked.unit_key): the one fitted first, its replacement.
OLD = unit_key({"vendor": "Acme", "model": "PC-1", "serial_number": "0001"})
NEW = unit_key({"vendor": "Acme", "model": "PC-1", "serial_number": "0002"})


def _linked(seq: int, *, kept: dict[str, object]) -> dict[str, object]:
    return {"seq": seq, **kept}


def _contribution(spool: Spool, wagers: tuple[str, int, int]) -> int:
    return spool.append_linked("t", {"event": "contribution"}, _linked, contribution=wagers)


def _withdrawal(spool: Spool, wagers: tuple[str, int, int]) -> int:
    return spool.append_linked("t", {"event": "void"}, _linked, withdrawal=wagers)


def test_link_messages_are_numbered_counted_once_per_round_and_kept_until_applied(tmp_path):
    path = tmp_path / "spool.sqlite3"
    first = Spool(path)
    try:
        assert first.append_linked("t/linked", {"event": "contribution"}, _linked, (OLD, 7, 300)) == 1
        assert first.append_linked("t/linked", {"event": "contribution"}, _linked, (OLD, 7, 300)) == 0  # once
        assert first.append("t/state", body) == 2
        assert first.append_linked("t/linked", {"event": "hit"}, _linked) == 2
        assert (first.linked_counts().number, first.linked_counts().wagered_cents) == (2, 300)
        assert first.waiting("t/linked") == 2
        first.confirmed(3)
        assert first.waiting("t/linked") == 0
    finally:
        first.close()
    again = Spool(path)  # the counts and the kept messages outlive a restart
    try:
        assert again.linked_counts().contributions == 1
        assert again.resend("t/linked", 1, _linked) == 1  # the controller applied 1: 2 is sent again
        resent = again.pending(0, 10)
        assert [json.loads(m.payload) for m in resent] == [{"seq": 4, "event": "hit", "number": 2}]
        again.applied(2)
        assert again.resend("t/linked", 2, _linked) == 0
    finally:
        again.close()


def test_a_void_of_a_round_number_voided_before_under_a_replaced_controller_is_sent(tmp_path):
    """Decision 0044: a replaced controller numbers its rounds from 1 again; the void of its round
    37 is spooled though the old controller's round 37 was voided long before, and only once."""
    spool = Spool(tmp_path / "spool.sqlite3")
    try:
        assert _contribution(spool, (OLD, 37, 100))
        assert _withdrawal(spool, (OLD, 37, 100))
        assert _contribution(spool, (OLD, 38, 100))
        for round_ in range(1, 38):  # the new controller's rounds
            assert _contribution(spool, (NEW, round_, 100))
        assert _withdrawal(spool, (OLD, 37, 100)) == 0  # not its
        assert _withdrawal(spool, (NEW, 37, 100)) == 41
        assert _withdrawal(spool, (NEW, 37, 100)) == 0  # once
        assert (spool.linked_counts().contributions, spool.linked_counts().wagered_cents) == (37, 3700)
    finally:
        spool.close()


def test_a_replaced_controllers_round_numbered_as_the_old_ones_last_is_counted_and_each_once(tmp_path):
    """Decision 0039: a replaced controller whose meters match the old one's is no difference to the
    table, and its first round may bear the number of the old unit's last: its contribution is
    another round's, counted (before, it was taken for the old round and dropped); either unit's
    round spooled again is still counted once."""
    spool = Spool(tmp_path / "spool.sqlite3")
    try:
        assert _contribution(spool, (OLD, 1, 100)) == 1
        assert _contribution(spool, (OLD, 1, 100)) == 0
        assert _contribution(spool, (NEW, 1, 100)) == 2
        assert _contribution(spool, (NEW, 1, 100)) == 0
        assert (spool.linked_counts().contributions, spool.linked_counts().wagered_cents) == (2, 200)
    finally:
        spool.close()


def test_a_spool_of_version_2_takes_its_last_round_for_any_units_until_a_contribution_names_one(tmp_path):
    """A spool from before the controller's unit was kept: its round last contributed has no unit, so
    the same number of any unit is taken for it (as that release did); the next contribution keeps its
    unit, and from then a round is its unit's."""
    path = tmp_path / "spool.sqlite3"
    old = Spool(path)
    assert _contribution(old, (OLD, 5, 100)) == 1
    old.close()
    with sqlite3.connect(path) as db:
        db.execute("DROP TABLE linked_unit")
        db.execute("PRAGMA user_version = 2")
    db.close()
    upgraded = Spool(path)
    try:
        assert _contribution(upgraded, (NEW, 5, 100)) == 0
        assert _contribution(upgraded, (NEW, 6, 100)) == 2
        assert _contribution(upgraded, (OLD, 6, 100)) == 3
    finally:
        upgraded.close()


def test_a_controller_taken_afresh_has_its_round_of_the_last_contributed_number_counted(tmp_path):
    """A supervisor's clear of LINK_MISMATCH that takes the controller's base afresh (it was
    replaced: decision 0044) forgets the round last contributed: the new controller's round of the
    same number is counted; a clear that takes only the link's difference does not."""
    spool = Spool(tmp_path / "spool.sqlite3")
    try:
        assert _contribution(spool, (OLD, 1, 100)) == 1
        spool.take_difference(Counts(), None)
        assert _contribution(spool, (OLD, 1, 100)) == 0
        spool.take_difference(Counts(), 500)
        assert _contribution(spool, (OLD, 1, 100)) == 2
        assert spool.linked_counts().contributions == 2
    finally:
        spool.close()


def test_a_spool_of_version_1_gains_the_kept_link_messages(tmp_path):
    """A table PC's spool from before linked progressives: what it holds goes on as it was (its
    message waiting, its numbers, its session, its counters' totals) and it can keep link messages."""
    path = tmp_path / "spool.sqlite3"
    old = Spool(path)
    old.append("t/counters", lambda seq: {"seq": seq}, {"hands": 7})
    old.next_session()
    identity = old.identity
    old.close()
    with sqlite3.connect(path) as db:
        db.execute("DROP TABLE linked")
        db.execute("DROP TABLE linked_unit")
        db.execute("PRAGMA user_version = 1")
    db.close()
    upgraded = Spool(path)
    try:
        assert (upgraded.identity, upgraded.last_seq, upgraded.totals()) == (identity, 1, {"hands": 7})
        assert [json.loads(m.payload) for m in upgraded.pending(0, 10)] == [{"seq": 1}]
        assert upgraded.next_session() == 2
        assert upgraded.append_linked("t/linked", {"event": "reset"}, _linked) == 1
    finally:
        upgraded.close()
    with sqlite3.connect(path) as db:
        assert db.execute("PRAGMA user_version").fetchone()[0] == 3
    db.close()
