"""Every record is durable before anything logs or reports it: the round's own log line and the
API's event stream come after the journal has written the record to the audit trail (decision 0031:
the table publishes what ``handle`` returned, durable listeners first)."""

from __future__ import annotations

import pytest
from structlog.testing import capture_logs

from croupier.audit import AuditError
from croupier.tables.events import Publishing
from games.common.records import Record, RecordKind, RoundLog
from vocabulary.events import Event, Events


class Round:
    """A round whose one message makes one wager record."""

    number = 1

    def __init__(self) -> None:
        self.log = RoundLog(1, "T1", "free-bet-blackjack")
        self.records: tuple[Record, ...] = ()

    def handle(self, message: object) -> tuple[Record, ...]:
        return (self.log.add(RecordKind.WAGER, seat=1, amount=1000),)


class Table(Publishing):
    def __init__(self) -> None:
        self.events = Events()


def test_a_round_record_is_durable_before_it_is_logged() -> None:
    """The journal writes the record before the table logs it, and a journal that cannot write
    leaves the record unlogged (and stops the table there)."""
    table, round_ = Table(), Round()
    seen: list[int] = []

    def journal(event: Event) -> None:
        seen.append(len(captured))
        raise AuditError("disk full")

    table.events.subscribe(journal, durable=True)
    with capture_logs() as captured, pytest.raises(AuditError):
        table._give(round_, object())
    assert seen == [0] and captured == []


def test_the_journal_hears_each_record_before_any_other_listener() -> None:
    """The API's event stream listens to the table too; subscribed first, it still hears a record
    only after the journal (a durable listener) wrote it."""
    heard: list[str] = []
    table = Table()
    table.events.subscribe(lambda event: heard.append("stream"))
    table.events.subscribe(lambda event: heard.append("journal"), durable=True)
    table._give(Round(), object())
    assert heard == ["journal", "stream"]
