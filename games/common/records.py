"""What a round records, and how: every card, wager, decision, settlement and irregularity, in order.

The record is the evidence in a dispute: each entry carries the round number and a sequence number,
and holds only plain values (text, whole numbers, booleans) so the audit trail can write it as a
JSON line. A card dealt face down is recorded by its commitment until it is turned up; the face
appears in the entry that turns it up, never before. A round's records leave it only as its
``handle``'s return value (decision 0031): the table writes them to the audit trail, publishes them
and then logs each through structlog, bound to the round (``RoundLog.log_line``). ``Record`` and
``RoundLog`` serve all four games; ``RecordKind`` holds the kinds of the two shoe games (Free Bet
Blackjack, Over/Under); the poker games define their own kinds.
"""

from __future__ import annotations

import enum
import logging
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from types import MappingProxyType

import structlog

from vocabulary.events import Event

Value = str | int | bool | None


class RecordKind(enum.StrEnum):
    STATE = "state"  # the round moved from one state to another
    WAGER = "wager"  # Blackjack, Push 22 or Insurance Wager accepted
    WAGER_WITHDRAWN = "wager_withdrawn"  # a wager taken back: the position's wagers were placed again
    DEAL_STARTED = "deal_started"
    CARD = "card"  # a card placed: face (or commitment), where, which clause
    COVER_CARD = "cover_card"  # 672a.7(d): set aside; the shoe is to be collected and reshuffled
    DECISION = "decision"  # a player's decision, with the stake it added
    PEEK = "peek"  # the reader's yes/no answer
    HOLE_REVEALED = "hole_revealed"  # 672a.7(k): the face of the card dealt face down
    DEALER_TOTAL = "dealer_total"  # 672a.7(l): announced after each dealer card
    SETTLEMENT = "settlement"  # one collect, pay or push of one wager
    IRREGULARITY = "irregularity"
    SET_ASIDE = "set_aside"  # a card taken out of play by a supervisor's ruling
    RESOLUTION = "resolution"  # a supervisor's ruling
    DEALER_CHANGE = "dealer_change"
    BURN_CONFIRMED = "burn_confirmed"
    PICKUP = "pickup"  # 672a.7(s): one card into the discard rack, in order



def wagers_replaced_reading(betting_ends: str) -> str:
    """The reading every game's section takes of a position wagered again before betting ends: the
    clause quoted in ``betting_ends`` says when betting ends, not whether a wager keyed before then
    may be changed (docs/conformance.md, beside that clause)."""
    return (
        f"{betting_ends}: the clause says when betting ends, not whether a wager placed before then may "
        "be changed. Read as: until then a position's wagers are the player's to change, so the dealer "
        "keying a position again replaces its wagers, and the round records each earlier wager as "
        "withdrawn (`wager_withdrawn`) before the new ones, so that what stood at each position when "
        "betting ended is read from the trail by one rule. Why: no clause of the section forbids a "
        "player taking chips back before then, and every clause after it deals, decides and settles on "
        "the wagers that stood; once betting has ended, no wager is placed or withdrawn."
    )


def standing_wagers(
    records: Iterable[Record], placed: enum.StrEnum, withdrawn: enum.StrEnum
) -> dict[tuple[int, str], int]:
    """The wagers standing in ``records``, by seat and wager, in the order first placed: each
    ``placed`` record less its ``withdrawn`` ones, the one rule for what stood when betting closed
    (``RoundLog.place_wagers``). A record of a wager that ``stays`` repeats one placed and is not
    counted again. The kinds compare by value, so any game's kinds of those names are read alike."""
    standing: dict[tuple[int, str], int] = {}
    for record in records:
        if record.kind in (placed, withdrawn) and not record.fields.get("stays"):
            key = (int(record.fields["seat"] or 0), str(record.fields["wager"]))
            amount = int(record.fields["amount"] or 0)
            standing[key] = standing.get(key, 0) + (amount if record.kind == placed else -amount)
    return standing


@dataclass(frozen=True)
class Record(Event):
    """One entry of a round's record; an event too, published by the table once it is durable."""

    round: int
    seq: int
    kind: enum.StrEnum  # the game's RecordKind
    fields: Mapping[str, Value]

    def as_dict(self) -> dict[str, Value]:
        return {"round": self.round, "seq": self.seq, "kind": self.kind.value, **self.fields}


class RoundLog:
    """The ordered records of one round."""

    def __init__(self, round_number: int, table: str, game: str) -> None:
        self.round = round_number
        self._entries: list[Record] = []
        self._keyed: set[int] = set()  # the seats whose wagers place_wagers recorded
        self._log = structlog.get_logger("croupier.games").bind(game=game, table=table, round=round_number)
        # A filtering bound logger says whether it logs at info; any other logger is always called.
        enabled = getattr(self._log, "is_enabled_for", None)
        self._logs_info = True if enabled is None else bool(enabled(logging.INFO))

    def add(self, kind: enum.StrEnum, **fields: Value) -> Record:
        # ``fields`` is this call's own dict: nothing else holds it, so the record can wrap it as is.
        record = Record(self.round, len(self._entries) + 1, kind, MappingProxyType(fields))
        self._entries.append(record)
        return record

    def place_wagers(
        self,
        seat: int,
        wagers: Iterable[tuple[str, int]],
        kinds: tuple[enum.StrEnum, enum.StrEnum],
        clause: str,
    ) -> None:
        """Record a position's wagers (``kinds``: the game's wager and wager-withdrawn kinds). Placed
        again before the deal, they replace the position's earlier ones whole, as the table does: each
        earlier wager still standing is first recorded withdrawn, citing ``clause``, so the trail says
        what was taken back and a reader has one rule for the wagers in play when betting closed: a
        seat's ``wager`` records less its ``wager_withdrawn`` ones."""
        placed, withdrawn = kinds
        # Only a seat keyed here before can have wagers standing: wagers are recorded by other steps
        # only once betting has ended (an insurance wager), when none is keyed again. Reading the
        # whole trail for each seat's first wagers was some 2 % of a math round (decision 0042).
        if seat in self._keyed:
            for (at, name), amount in standing_wagers(self._entries, placed, withdrawn).items():
                if at == seat and amount:
                    self.add(withdrawn, seat=seat, wager=name, amount=amount, clause=clause)
        self._keyed.add(seat)
        for name, amount in wagers:
            self.add(placed, seat=seat, wager=name, amount=amount)

    def log_line(self, record: Record) -> None:
        """Log ``record``'s line, bound to the round: the table does once the record is in the audit
        trail (decision 0031), so nothing logs a record that is not yet durable."""
        if self._logs_info:
            self._log.info(record.kind.value, seq=record.seq, **record.fields)

    def since(self, start: int) -> tuple[Record, ...]:
        return tuple(self._entries[start:])

    def of(self, kind: enum.StrEnum) -> list[Record]:
        return [record for record in self._entries if record.kind is kind]

    def __iter__(self) -> Iterator[Record]:
        return iter(self._entries)

    def __len__(self) -> int:
        return len(self._entries)
