"""What a table tells the floor, as the JSON bodies docs/floor.md gives a schema for
(croupier/floor_link/schemas/).

Read from the table in service: its state (open, closed, held and why), its latched faults, its
devices' links, its progressive meters, its audit trail's head. None of these holds a card: a round
is summarised by its number, its outcome and each seat's net once it has ended, and ``checked``
refuses any card anywhere in a body, so no face-down value can reach the floor (decision 0018). Text
is another way in: a fault's detail or a link's reason is a device's own words, which a firmware may
write a card into ("misread As"); ``checked`` withholds every card face written in such free text
(``FREE_TEXT``), so the fault still reaches the floor, without the card (decision 0035). Names (the
table's, a trail file's, a device's) are never touched: the floor knows a table by them.
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

#: A card's face written in free text (the rule docs/floor.md gives, "Cards in free text"): a
#: playing card of Unicode's block (U+1F0A0 to U+1F0FF) or a suit's sign wherever it stands, with the
#: rank beside it, before or after or both, up to two spaces between (``Q♠``, ``♠Q``, ``10 ♥``,
#: ``Ace♠``, ``3 ♠Q``: a seat's number before a sign-first card goes too, as either may be the rank);
#: in words, in any case, joined by spaces, hyphens or underscores ("queen of hearts",
#: ``QUEEN_OF_HEARTS``, "10s of hearts"); or a code standing apart from letters and digits, its rank a
#: digit or a capital: Croupier's own (``As``, ``10h``), all capitals, either first (``AS``, ``HQ``,
#: ``D10``), or a cover card (``Xr``), alone or run together (``AsKd``: withheld as one). Small
#: letters alone (``as``, ``asks``) are words, not codes; ``_ORDINARY`` leaves the few codes that are
#: ordinary words where they stand.
_SIGN = r"[\u2660-\u2667]"
_PICTURE = r"[\U0001F0A0-\U0001F0FF]"
#: A variation selector after a sign or a picture: its text (U+FE0E) or emoji (U+FE0F) presentation.
_PRESENTED = r"[\ufe0e\ufe0f]?"
_SUIT = rf"{_SIGN}{_PRESENTED}"
_NAMED = r"(?i:ace|king|queen|jack|ten|nine|eight|seven|six|five|four|three|two|deuce)"
#: A rank before ``of`` or a sign: named; a number 2 to 10 that is not the end of a longer number
#: (``12 of hearts`` counts a suit); a capital; a small letter that does not end a word (``short of
#: spades``): small letters only are words, as for a code.
_LEADING = rf"(?:{_NAMED}|(?<!\d)(?:10|[2-9])|[TJQKA]|(?<![^\W\d_])[tjqka])"
_BEFORE = rf"{_LEADING}(?i:s?)"  # one or many: ``queens of hearts``, ``10s ♥``
#: A rank after a sign (a named one, one or many: ``♠ queens``): not the start of a word or a longer
#: number (``♠ and``, ``♠100``), nor the rank of the next sign where that sign has none after it
#: (``A♠ K♦``, ``♠A ♦K``: two cards each).
_AFTER = rf"(?:{_NAMED}(?i:s?)|10|[2-9TJQKAtjqka])(?![^\W_])"
_TRAILING = rf"{_AFTER}(?!\s{{0,2}}{_SUIT}(?!\s{{0,2}}{_AFTER}))"
_RANK = r"(?:10|[2-9TJQKA])"
_CODE = rf"(?:{_RANK}[cdhsCDHS]|[CDHS]{_RANK}|X[rbRB])"
_SIGNED = rf"(?:(?:{_BEFORE}\s{{0,2}})?{_SUIT}(?:\s{{0,2}}{_TRAILING})?|{_PICTURE}{_PRESENTED})"
_FACE = rf"(?:{_SIGNED}|{_CODE})"  # the sign first: ``10s ♥`` is one card, not a time and a sign
_WORDS = rf"{_BEFORE}(?i:[\s_-]+of[\s_-]+(?:spades?|hearts?|diamonds?|clubs?|{_SUIT}))"
#: Only a code must stand apart (a run of faces with one among them is taken whole where it does);
#: a card in words is taken whatever stands after it, and a named rank whatever stands before it
#: (``misreadqueen of hearts``); a sign with the rank beside it whatever touches them (``misreadQ♠``,
#: ``K♦s``): the sign alone withheld would leave the rank of a face-down card.
CARD_TEXT = re.compile(rf"{_WORDS}|(?<![^\W_]){_FACE}+(?![^\W_])|{_SIGNED}")
#: A number and a small ``s`` standing alone (``5s``, ``10s``): a time in seconds, as devices write
#: one ("no reply within 5s"), not the five of spades.
_SECONDS = re.compile(r"(?:10|[2-9])s")
#: Codes that are an ordinary word before the words named: ``AC`` (alternating current).
_ORDINARY = {"AC": frozenset({"power", "mains", "supply", "adapter", "input", "line"})}
_NEXT_WORD = re.compile(r"\s+(\w+)")
#: What stands in text for a card face withheld.
WITHHELD = "[card]"
#: The fields that hold free text a device or the table wrote (a fault's ``detail``, a state's or a
#: link's ``reason``, a link's ``last_error``, why the progressive wagers are refused), at any depth
#: of a body: the only strings ``checked`` withholds card faces in. Every other string is a name or
#: a code the floor matches (a table called ``3C-1``, its trail ``3C-1-000001.jsonl``), left whole.
FREE_TEXT = frozenset({"detail", "reason", "last_error", "wagers_locked"})


def checked(body: Mapping[str, object]) -> Body:
    """``body`` as plain JSON values, every card face written in its free text (``FREE_TEXT``)
    withheld (``WITHHELD``); an AuditError if it holds a card at all (any card is treated as
    face-down: the floor is told no card) or anything JSON cannot carry exactly. A word that reads as
    a card (``As`` opening a sentence, ``AD`` in capitals) is withheld too: text loses a word rather
    than the floor learning a card."""
    plain = secret_free(body, face_down=True)
    return {key: _withheld(value, key in FREE_TEXT) for key, value in plain.items()}


def _withheld(value: Plain, free: bool) -> Plain:
    """``value`` with the card faces in its free text withheld: ``free`` once under a FREE_TEXT key."""
    if isinstance(value, str):
        return CARD_TEXT.sub(_masked, value) if free else value
    if isinstance(value, list):
        return [_withheld(item, free) for item in value]
    if isinstance(value, dict):
        return {key: _withheld(item, free or key in FREE_TEXT) for key, item in value.items()}
    return value


def _masked(face: re.Match[str]) -> str:
    """``WITHHELD`` for a card face found in free text, unless it is an ordinary word there: a time
    in seconds (``_SECONDS``), or a code before a word that makes it one (``_ORDINARY``)."""
    text = face.group()
    after = _NEXT_WORD.match(face.string, face.end())
    if _SECONDS.fullmatch(text) or (after is not None and after[1].lower() in _ORDINARY.get(text, ())):
        return text
    return WITHHELD


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
