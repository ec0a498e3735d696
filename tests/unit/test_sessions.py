"""Browser sessions (croupier.api.sessions): random ids, bound to the operator, expiring after their
lifetime, deleted at sign-out; a dead id refused is remembered, a bounded number of them."""

from __future__ import annotations

from croupier.api.sessions import REFUSED_REMEMBERED, Sessions
from vocabulary.operators import Operator, Role

DEALER = Operator("D-1", Role.DEALER)


def test_a_session_names_its_operator_until_it_expires():
    now = [1000.0]
    sessions = Sessions(lifetime=60, clock=lambda: now[0])
    sid = sessions.open(DEALER)
    assert sessions.operator(sid) == DEALER and sessions.expires_in(sid) == 60
    now[0] += 59.5
    assert sessions.operator(sid) == DEALER
    now[0] += 0.5
    assert sessions.operator(sid) is None, "expired"
    assert sessions.expires_in(sid) == 0


def test_sign_out_deletes_the_session_and_ids_are_not_guessable():
    sessions = Sessions()
    ids = {sessions.open(DEALER) for _ in range(100)}
    assert len(ids) == 100 and all(len(sid) >= 40 for sid in ids)
    sid = ids.pop()
    assert sessions.close(sid) == DEALER
    assert sessions.operator(sid) is None and sessions.close(sid) is None
    assert sessions.operator("made-up") is None


def test_a_dead_session_is_refused_again_only_after_its_first_refusal_and_few_are_kept():
    sessions = Sessions()
    assert not sessions.refused_again("dead") and sessions.refused_again("dead")
    for n in range(REFUSED_REMEMBERED):
        sessions.refused_again(f"other-{n}")
    assert not sessions.refused_again("dead"), "the oldest forgotten: memory stays bounded"


def test_remaining_is_the_time_left_on_the_sessions_clock():
    now = [0.0]
    sessions = Sessions(lifetime=10, clock=lambda: now[0])
    sid = sessions.open(DEALER)
    now[0] = 2.5
    assert sessions.remaining(sid) == 7.5 and sessions.expires_in(sid) == 7
    assert sessions.remaining("made-up") == 0.0
