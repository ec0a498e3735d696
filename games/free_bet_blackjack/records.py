"""What a Free Bet Blackjack round records (672a.7(s)): the record, its kinds and the log are
games.common.records', re-exported here for the table service and the tests."""

from games.common.records import Record, RecordKind, RoundLog, Value

__all__ = ["Record", "RecordKind", "RoundLog", "Value"]
