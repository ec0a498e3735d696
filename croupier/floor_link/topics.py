"""The floor's topics (docs/floor.md; decision 0035): Sparkplug B's shape, JSON payloads.

``croupier/v1/GROUP/table/TABLE/KIND`` for what a table publishes (its birth and death, and the data
kinds in ``DATA``), ``croupier/v1/GROUP/table/TABLE/cmd/rebirth`` for the one request a table reads,
``croupier/v1/GROUP/table/TABLE/cmd/counted`` for what the floor confirms it counted,
``croupier/v1/GROUP/host/HOST/state`` for each floor service's state (Sparkplug's host
application STATE), and ``croupier/v1/GROUP/link/LINK/table/TABLE`` for what the link controller
tells a table of the linked progressive it is on (decision 0039).
GROUP is the property; each level is letters, digits, '-' or '_', so no name
can hold a wildcard or a separator (croupier.config.floor, croupier.audit.rotation.check_table).
"""

from __future__ import annotations

from dataclasses import dataclass

NAMESPACE = "croupier/v1"
#: What a table publishes between its birth and its death, each numbered in the table's sequence.
DATA = ("state", "round", "fault", "link", "meter", "counters", "head", "linked")
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

    def link_state(self, link: str) -> str:
        """Where the controller of ``link`` tells this table of it."""
        return link_state(self.group, link, self.table)

    @property
    def rebirth(self) -> str:
        """Where the floor asks this table for a new birth certificate."""
        return f"{NAMESPACE}/{self.group}/table/{self.table}/cmd/rebirth"

    @property
    def counted(self) -> str:
        """Where the floor tells this table what it counted, which the table may delete."""
        return f"{NAMESPACE}/{self.group}/table/{self.table}/cmd/counted"

    @property
    def host_states(self) -> str:
        """Every floor service's state in the group (a filter)."""
        return f"{NAMESPACE}/{self.group}/host/+/state"


def link_state(group: str, link: str, table: str) -> str:
    """The one topic of ``link`` that ``table`` reads: the controller's state as that table is told."""
    return f"{NAMESPACE}/{group}/link/{link}/table/{table}"
