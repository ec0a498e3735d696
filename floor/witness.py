"""The outside witness: a table's audit trail checked against the heads the floor saw.

A table sends its trail's head (its newest record's file, number and hash) at every sealing epoch
and every birth (docs/floor.md), and the floor keeps each one (floor.store). A trail
later produced from the table PC must hold every one of them, at its number, in its file, with its
hash, besides verifying on its own (croupier.audit.verify): a trail rewritten after a head was
witnessed holds another record there; one cut back, or with its older files dropped, does not reach
it. The table PC alone cannot make either pass, because the heads are not on it.
"""

from __future__ import annotations

from pathlib import Path

from croupier.audit.verify import Report, verify_series
from floor.store import Store


def verify_witness(store: Store, table: str, trail: list[Path]) -> tuple[Report, int, int | None]:
    """``trail`` (in series order) verified against every head ``store`` witnessed for ``table``;
    with the number of heads it was checked against and the message number the floor counted the
    table from (None: no birth heard), so the report says since when the floor has seen the table."""
    heads = store.heads(table)
    return verify_series(trail, witnessed=heads), len(heads), store.counted_from(table)
