"""A linked progressive's messages on the table's floor link (decision 0039): the table's side of the
link (devices.linked) sends through the spool, numbered, like every other message, and hears the
link controller on the one topic of the link meant for this table."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from croupier.floor_link import payloads
from croupier.floor_link.spool import Spool
from devices.linked import Counts

if TYPE_CHECKING:
    from croupier.floor_link.publisher import FloorLink


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
        self, event: str, fields: Mapping[str, object], *, contribution: tuple[int, int] | None = None
    ) -> int:
        plain = payloads.checked({"event": event, "link": self._link, "spool": self.identity, **fields})
        at, table = payloads.now(), self._floor.topics.table
        number = self._spool.append_linked(
            self._topic,
            lambda seq, number: {"table": table, "seq": seq, "at": at, "number": number, **plain},
            contribution,
        )
        self._floor.wake()
        return number

    def counts(self) -> Counts:
        return self._spool.linked_counts()

    def undelivered(self) -> int:
        return self._spool.waiting(self._topic)
