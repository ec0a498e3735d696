"""A linked progressive's messages on the table's floor link (decision 0039): the table's side of the
link (devices.linked) sends through the spool, numbered, like every other message, and hears the
link controller on the one topic of the link meant for this table."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from croupier.audit.record import read_records
from croupier.floor_link import payloads
from croupier.floor_link.spool import MakeLinked, Spool
from croupier.state import StateError
from devices.linked import Counts, RoundWagers, Unspooled

if TYPE_CHECKING:
    from croupier.floor_link.publisher import FloorLink


@contextmanager
def _unspooled() -> Iterator[None]:
    """The spool's disk refusing a write or a read (full, read-only, failing) as the link's Unspooled:
    the table's side of the link (devices.linked) cannot know the spool's StateError, keeps what it
    could not write for later, and looks again at what it could not read."""
    try:
        yield
    except StateError as exc:
        raise Unspooled(str(exc)) from exc


def void_unsent(trail: Sequence[Path]) -> bool:
    """Whether the table's audit trail (its files, oldest first) ends with a round voided, in play
    (its state record to ``voided``) or cut off and cleared by a supervisor (``round_voided``), with
    no ``linked_void`` recorded after it, nor a contribution or a round begun: the void a stop may
    have lost, owed in memory when the spool refused it, or waiting for the controller's read
    (decision 0049). Read from the newest file back, to the newest that says either way. Sending it
    again is safe: the spool sends a void once, and only for the round last contributed
    (``Spool.append_linked``); one voided with no progressive wager has nothing to send."""
    for path in reversed(trail):
        said: bool | None = None
        for record in read_records([path]):
            fields = record.fields
            if record.kind == "round_voided" or (record.kind == "state" and fields.get("dest") == "voided"):
                said = True
            elif record.kind in ("linked_void", "linked_contribution") or fields.get("round_seq") == 1:
                said = False
        if said is not None:
            return said
    return False


class SpoolSender:
    """``devices.linked.LinkSender`` over the floor link's spool: each message on the table's
    ``linked`` topic, with the link's id, the spool's identity and the message's link number."""

    def __init__(self, link: FloorLink, spool: Spool, link_id: str) -> None:
        self._floor, self._spool, self._link = link, spool, link_id
        self.identity = spool.identity
        self._topic = link.topics.of("linked")

    @property
    def connected(self) -> bool:
        return self._floor.connected

    def send(
        self,
        event: str,
        fields: Mapping[str, object],
        *,
        contribution: RoundWagers | None = None,
        withdrawal: RoundWagers | None = None,
        hit: tuple[int, int, int] | None = None,
    ) -> int:
        plain = payloads.checked({"event": event, "link": self._link, "spool": self.identity, **fields})
        with _unspooled():  # the link keeps the message owed (devices.linked)
            number = self._spool.append_linked(
                self._topic, plain, self._message(), contribution, withdrawal, hit
            )
        self._floor.wake()
        return number

    def resend(self, after: int) -> int:
        with _unspooled():
            resent = self._spool.resend(self._topic, after, self._message())
        self._floor.wake()
        return resent

    def applied(self, through: int) -> None:
        with _unspooled():
            self._spool.applied(through)

    def _message(self) -> MakeLinked:
        at, table = payloads.now(), self._floor.topics.table

        def message(seq: int, *, kept: Mapping[str, object]) -> Mapping[str, object]:
            return {"table": table, "seq": seq, "at": at, **kept}

        return message

    def counts(self) -> Counts:
        with _unspooled():
            return self._spool.linked_counts()

    def linked_unit(self) -> str | None:
        with _unspooled():
            return self._spool.linked_unit()

    def device_base(self) -> int | None:
        with _unspooled():
            return self._spool.device_base()

    def take_device_base(self, cents: int) -> None:
        with _unspooled():
            self._spool.take_device_base(cents)

    def difference(self) -> Counts:
        with _unspooled():
            return self._spool.linked_difference()

    def take_difference(self, difference: Counts, device_base: int | None) -> None:
        with _unspooled():
            self._spool.take_difference(difference, device_base)

    def undelivered(self) -> int:
        with _unspooled():
            return self._spool.waiting(self._topic)

    def unapplied(self) -> list[Mapping[str, object]]:
        with _unspooled():
            return self._spool.unapplied()
