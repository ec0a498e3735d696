"""A round's records (games.common.records) into the audit trail, in order, each once.

The round records a face-down card by its commitment and its face only in the record that turns it
up; the adapter marks a card record dealt face down as ``face_down`` so the trail refuses it if it
ever carried a face (croupier.audit.secrecy).
"""

from __future__ import annotations

from collections.abc import Iterable

from croupier.audit.record import AuditError, AuditRecord
from croupier.audit.writer import AuditTrail
from games.common.records import Record, RecordKind


def _is_face_down(record: Record) -> bool:
    return record.kind is RecordKind.CARD and record.fields.get("face_up") is False


def append_record(trail: AuditTrail, game: str, record: Record) -> AuditRecord:
    """One round record: the round's own ``seq`` is kept as ``round_seq``."""
    face_down = _is_face_down(record)
    if face_down and record.fields.get("card") is not None:
        raise AuditError(f"round {record.round} record {record.seq}: a face-down card record carries a face")
    fields = {"game": game, "round_seq": record.seq, **record.fields}
    return trail.append(str(record.kind), record.round, fields, face_down=face_down)


def record_round(trail: AuditTrail, game: str, records: Iterable[Record]) -> list[AuditRecord]:
    """All of a round's records at once (a finished round, or a replay)."""
    return [append_record(trail, game, record) for record in records]
