"""The table's persisted state: what a restart needs to come back to the same table (docs/state.md).

Kept apart from the audit trail: the trail is the legal record of what happened, this is the
working state the service resumes from (latched faults, the table's counters, a round cut off).
"""

from croupier.state.sqlite_file import StateError
from croupier.state.store import (
    IDEMPOTENCY_KEPT,
    SCHEMA_VERSION,
    KeptResponse,
    RoundInProgress,
    TableState,
)

__all__ = [
    "IDEMPOTENCY_KEPT",
    "SCHEMA_VERSION",
    "KeptResponse",
    "RoundInProgress",
    "StateError",
    "TableState",
]
