"""What a table tells the floor, as the JSON bodies docs/floor.md gives a schema for
(croupier/floor_link/schemas/).

Read from the table in service: its state (open, closed, held and why), its latched faults, its
devices' links, its progressive meters, its audit trail's head. None of these holds a card: a round
is summarised by its number, its outcome and each seat's net once it has ended, and ``checked``
refuses any card anywhere in a body, so no face-down value can reach the floor (decision 0018). Text
is another way in: a fault's detail or a link's reason is a device's own words, which a firmware may
write a card into ("misread As"); ``checked`` withholds every card face written in text, so the fault
still reaches the floor, without the card (decision 0035).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

from croupier.audit.head import Head
from croupier.audit.secrecy import Plain, secret_free
from croupier.service.table_service import TableService
from croupier.tables.events import HeardRound
from devices.faults import Fault

Body = dict[str, Plain]

#: A card's face written in text, standing apart from the letters and digits around it, in either
#: case (a firmware writes ``AS`` or ``qd`` as readily as Croupier writes ``As``: vocabulary.cards):
#: a rank (``10`` for a ten) and a suit's letter or sign, the sign first or last, or a cover card
#: (``Xr``), alone or run together with others (``AsKd``, ``A♠K♦``: withheld as one); or in words,
#: the rank named or written ("queen of hearts", "Q of hearts", "ace of ♠").
_RANK = r"(?:10|[2-9tjqka])"
_SIGN = r"[\u2660-\u2667]"
_FACE = rf"(?:{_RANK}[cdhs]|{_RANK}{_SIGN}|{_SIGN}{_RANK}|x[rb])"
_NAME = r"(?:ace|king|queen|jack|ten|nine|eight|seven|six|five|four|three|two)s?"
_WORDS = rf"(?:{_NAME}|{_RANK})\s+of\s+(?:spades|hearts|diamonds|clubs|{_SIGN})"
CARD_TEXT = re.compile(rf"(?<![0-9a-z])(?:{_FACE}+|{_WORDS})(?![0-9a-z])", re.IGNORECASE)
#: What stands in text for a card face withheld.
WITHHELD = "[card]"


def checked(body: Mapping[str, object]) -> Body:
    """``body`` as plain JSON values, every card face written in its text withheld (``WITHHELD``);
    an AuditError if it holds a card at all (any card is treated as face-down: the floor is told no
    card) or anything JSON cannot carry exactly. A word that reads as a card (``As`` opening a
    sentence) is withheld too: text loses a word rather than the floor learning a card."""
    return {key: _withheld(value) for key, value in secret_free(body, face_down=True).items()}


def _withheld(value: Plain) -> Plain:
    if isinstance(value, str):
        return CARD_TEXT.sub(WITHHELD, value)
    if isinstance(value, list):
        return [_withheld(item) for item in value]
    if isinstance(value, dict):
        return {key: _withheld(item) for key, item in value.items()}
    return value


def table_state(service: TableService) -> Body:
    """``open``, ``closed`` or ``held``, and why: a held table names what it waits for (the latched
    faults, a round held for a ruling); a closed one, that a supervisor closed it or has not yet
    opened it. With it the dealer on duty, so the floor sees a dealer change as a new state."""
    dealer = service.table.dealer_on_duty
    waiting = service.waiting_for()
    if waiting is not None and waiting.startswith("held: "):
        return {"status": "held", "reason": waiting.removeprefix("held: "), "dealer": dealer}
    if not service.is_open:
        return {"status": "closed", "reason": "closed by a supervisor or not yet opened", "dealer": dealer}
    return {"status": "open", "reason": None, "dealer": dealer}


def round_summary(round_: HeardRound) -> Body:
    """A round once it has ended (every card turned up): its number, its outcome, each seat's net."""
    return {
        "round": round_.number,
        "outcome": round_.state,
        "net_by_seat": {str(seat): round_.net(seat) for seat in sorted(round_.positions)},
    }


def fault(event: str, device: str, latched: Fault) -> Body:
    """A fault ``latched`` or ``released`` on ``device``."""
    return {
        "event": event,
        "device": device,
        "code": latched.code,
        "detail": latched.detail,
        "clause": latched.clause,
    }


def faults(table: Any) -> list[Plain]:  # Any: a table of any game
    """Every fault latched at the table, with the device it is latched on."""
    return [
        {"device": machine.name, "code": f.code, "detail": f.detail, "clause": f.clause}
        for machine in table.equipment
        for f in machine.latch.faults
    ]


def meters(table: Any) -> list[Plain] | None:  # Any: a table of any game
    """The progressive's levels as its controller last reported them, each with its limit (the most
    the controller holds on it: the floor stops a linked level at the lowest of its tables', decision
    0050); None at a table without one."""
    progressive = table.progressive
    if progressive is None:
        return None
    frozen = set(progressive.frozen_levels)
    return [
        {
            "level": level,
            "value_cents": info.value_cents,
            "limit_cents": info.limit_cents,
            "in_cents": info.in_cents,
            "hits": info.hits,
            "wins_cents": info.wins_cents,
            "frozen": level in frozen,
        }
        for level, info in sorted(progressive.levels.items())
    ]


def head(trail_head: Head | None) -> Body | None:
    """The audit trail's newest record (docs/audit.md §9): its file, its number in the trail
    (``record``: ``seq`` is the floor message's own), its hash and its sealing epoch."""
    if trail_head is None:
        return None
    return {
        "file": trail_head.file,
        "record": trail_head.seq,
        "hash": trail_head.hash,
        "epoch": trail_head.epoch,
    }


def now() -> str:
    """A message's time: UTC, to the millisecond."""
    return datetime.now(UTC).isoformat(timespec="milliseconds")
