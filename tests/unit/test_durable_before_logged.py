"""Every record is durable before anything logs or reports it: the round's own log line and the
API's event stream come after the journal has written the record to the audit trail."""

from __future__ import annotations

import pytest
from structlog.testing import capture_logs

from croupier.audit import AuditError
from croupier.tables.watchers import RoundWatchers
from games.common.records import RecordKind, RoundLog


def test_a_round_record_is_durable_before_it_is_logged() -> None:
    """RoundLog.add: the journal's sink writes the record before the game logs it, and a sink that
    cannot write leaves the record unlogged."""
    log = RoundLog(1, "T1", "free-bet-blackjack")
    seen: list[int] = []

    def journal(record: object) -> None:
        seen.append(len(captured))
        raise AuditError("disk full")

    log.attach(journal)
    with capture_logs() as captured, pytest.raises(AuditError):
        log.add(RecordKind.WAGER, seat=1, amount=1000)
    assert seen == [0] and captured == []


def test_the_journal_hears_each_record_before_any_other_watcher() -> None:
    """The API's event stream watches the table too; added first, it still hears a record only after
    the journal (a durable watcher) wrote it."""
    heard: list[str] = []

    class Stream:
        def round_began(self, round_: object) -> None: ...

        def record(self, record: object) -> None:
            heard.append("stream")

    class Journal(Stream):
        durable = True

        def record(self, record: object) -> None:
            heard.append("journal")

    class Round:
        number = 1
        log = RoundLog(1, "T1", "free-bet-blackjack")

    watchers = RoundWatchers()
    watchers.add(Stream())
    watchers.add(Journal())
    watchers.began(Round())
    Round.log.add(RecordKind.WAGER, seat=1, amount=1000)
    assert heard == ["journal", "stream"]
