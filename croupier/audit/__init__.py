"""The audit trail: the table's legal record, append-only, hash-chained and fsync'd (docs/audit.md).

Kept apart from the wire trace (decision 0018, "two logs, never mixed").
"""

from croupier.audit.adapter import record_round
from croupier.audit.record import AuditError, AuditRecord
from croupier.audit.rotation import Retention, Rotation
from croupier.audit.verify import Problem, Report, verify_series
from croupier.audit.writer import AuditTrail

__all__ = [
    "AuditError",
    "AuditRecord",
    "AuditTrail",
    "Problem",
    "Report",
    "Retention",
    "Rotation",
    "record_round",
    "verify_series",
]
