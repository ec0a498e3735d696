"""677a.10(d) and 657a.9(d), the poker games' stub count: without an automated shuffler that counts
the deck after each shuffle, the dealer counts the stub face down at least once every 5 rounds.

A round was dealt from a counted deck when its records carry the shuffler's count (``count`` of a
``shuffle`` record, or ``shuffler_count``); its stub was counted when the ``stub`` record carries the
count (``counted``, or ``cards`` as Crazy 4 Poker names it).
"""

from __future__ import annotations

from collections.abc import Iterator

from croupier.audit.procedure.engine import Check, Round, Table, Violation

INTERVAL = 5
READING = (
    '"At least once every 5 rounds" is read as: of any 5 rounds in a row dealt without a counting '
    "shuffler, one has its stub counted; a violation is reported at each round that ends 5 in a row "
    "without a count: the fifth, and each after it until the stub is counted. "
    'The count is made "to determine if the correct number of cards are still present in the deck": '
    "the rounds are those dealt from the deck in play, so a new deck placed in the shoe (a "
    "`batch_loaded` record) begins its own count."
)


def checks(clause: str) -> tuple[Check, ...]:
    return (
        Check(
            clause,
            "without a counting shuffler, a `stub` record carrying the count in at least one of any "
            f"{INTERVAL} rounds in a row",
            READING,
        ),
    )


def _is_count(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def new_deck(table: Table) -> None:
    """A deck placed in the shoe between rounds (``batch_loaded``): no round has been dealt from it."""
    table.since_stub_count = 0


def judge(clause: str, round_: Round, table: Table) -> Iterator[Violation]:
    """Judged with the table's running count of rounds since the last count; only rounds that were
    dealt count."""
    if not round_.kind("card"):
        return
    shuffler = any(_is_count(s.get("count")) or _is_count(s.get("shuffler_count")) for s in round_.steps)
    stubs = round_.kind("stub", "stub_removed")
    # The dealer's count: a ``stub`` record's ``counted`` (Hold 'Em) or ``cards`` (Crazy 4 Poker).
    # A ``stub_removed`` record's ``cards`` is what the shoe let out, not a count (677a.10(c)).
    counted = any(_is_count(s.get("counted")) or _is_count(s.get("cards")) for s in round_.kind("stub"))
    if shuffler or counted:
        table.since_stub_count = 0
        return
    table.since_stub_count += 1
    if table.since_stub_count >= INTERVAL:
        at = stubs[-1] if stubs else round_.steps[-1]
        yield Violation(
            round_.number,
            at.seq,
            clause,
            f"the stub counted at least once every {INTERVAL} rounds without a counting shuffler",
            f"{table.since_stub_count} rounds in a row ended with the stub not counted",
        )
