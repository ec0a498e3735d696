"""The floor's topics (docs/floor.md; decision 0035): Sparkplug B's shape, JSON payloads.

``croupier/v1/GROUP/table/TABLE/KIND`` for what a table publishes (its birth and death, and the data
kinds in ``DATA``), ``croupier/v1/GROUP/table/TABLE/cmd/rebirth`` for the one request a table reads,
and ``croupier/v1/GROUP/host/HOST/state`` for each floor service's state (Sparkplug's host
application STATE). GROUP is the property; each level is letters, digits, '-' or '_', so no name
can hold a wildcard or a separator (croupier.config.floor, croupier.audit.rotation.check_table).
"""

from __future__ import annotations

from dataclasses import dataclass

NAMESPACE = "croupier/v1"
#: What a table publishes between its birth and its death, each numbered in the table's sequence.
DATA = ("state", "round", "fault", "link", "meter", "counters", "head")
#: Every kind of message a table publishes.
KINDS = ("birth", "death", *DATA)


@dataclass(frozen=True)
class Topics:
    """The topics of table ``table`` in group ``group``."""

    group: str
    table: str

    def of(self, kind: str) -> str:
        """The topic of the table's messages of ``kind`` (one of KINDS)."""
        if kind not in KINDS:
            raise ValueError(f"no floor message kind {kind!r}; the kinds are {', '.join(KINDS)}")
        return f"{NAMESPACE}/{self.group}/table/{self.table}/{kind}"

    @property
    def rebirth(self) -> str:
        """Where the floor asks this table for a new birth certificate."""
        return f"{NAMESPACE}/{self.group}/table/{self.table}/cmd/rebirth"

    @property
    def host_states(self) -> str:
        """Every floor service's state in the group (a filter)."""
        return f"{NAMESPACE}/{self.group}/host/+/state"
