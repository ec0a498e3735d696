"""Card reader messages: the hole-card peek answers "blackjack or not" and nothing more.

58 Pa. Code 672a.7(g): with an ace or a 10-value card up, the dealer slides the hole card face down
into the reader to learn whether it gives the dealer a Blackjack. The rank of the hole card must
stay unknown to everyone, the dealer included, until the card is turned up (672a.7(k)). So no
message of this class has a field that could carry a rank or a face: the host says which of the
two peekable up cards is showing, the reader answers one bool. Every field is a bool, a u8 code
with a few fixed legal values, or a counter of peeks (docs/protocol.md §11.3, "Secrecy").

The codes are checked by both ends (``checked_up_card``, ``checked_code``) rather than by the codec:
the codec has no enum wire type yet, and the catalog-wide property tests take every value of a u8
field as legal.

Commands 0x20-0x27, events 0xA0-0xA7 (docs/protocol.md §8.1). The class defines no events of its
own: its faults (NO_CARD, MISREAD, TAMPER, SENSOR) travel as the core FaultRaised.
"""

from __future__ import annotations

import enum
from typing import Annotated

from drivers.protocol.core import CATALOG
from drivers.protocol.fields import BOOL, U8, U32, PayloadError, enum_member
from drivers.protocol.message import Command, Reply
from vocabulary.cards import Card


class UpCard(enum.IntEnum):
    """The dealer's up card, as far as the peek needs it: the only two on which 672a.7(g) allows
    a peek. The value is the card's blackjack value (an ace counts 1 here, its rank)."""

    ACE = 1
    TEN_VALUE = 10


_TEN_VALUE_RANKS = range(10, 14)  # T, J, Q, K count 10 (673a.3(d), analog)


def peek_class(card: Card) -> UpCard | None:
    """ACE or TEN_VALUE for the cards that can take part in a two-card Blackjack, else None."""
    if card.rank == UpCard.ACE:
        return UpCard.ACE
    if card.rank in _TEN_VALUE_RANKS:
        return UpCard.TEN_VALUE
    return None


def completes_blackjack(up_card: UpCard, hole: Card) -> bool:
    """What a Peek answers: an ace up needs a 10-value hole card, a 10-value card up needs an ace."""
    needed = UpCard.TEN_VALUE if up_card is UpCard.ACE else UpCard.ACE
    return peek_class(hole) is needed


class SelfTestCode(enum.IntEnum):
    """Why a self-test failed, or OK. The first failing check is reported."""

    OK = 0
    TAMPER = 1  # the case seal or tamper switch is open
    OPTICS = 2  # the reading sensor did not read the built-in reference mark
    SLOT_SENSOR = 3  # the card-present sensor did not respond
    SLOT_OCCUPIED = 4  # a card is in the slot: the self-test needs it empty


class PeekAnswer(Reply):
    """The whole answer of a peek: does the hole card give the dealer a Blackjack."""

    blackjack: Annotated[bool, BOOL]


@CATALOG.add
class Peek(Command):
    """Read the card in the slot against the up card and answer blackjack or not (672a.7(g)).

    Not card-moving: the dealer, not the reader, moves the hole card in and out. Reading it twice
    gives the same answer, so a Peek whose outcome is unknown may simply be sent again; a
    retransmission is answered from the device's cache like any command (docs/protocol.md §5.5).
    """

    MSG_ID = 0x20
    REPLY = PeekAnswer
    up_card: Annotated[int, U8]

    def checked_up_card(self) -> UpCard:
        """The up card, or PayloadError: the device answers any other value with BAD_PAYLOAD."""
        return enum_member(UpCard, self.up_card, "Peek.up_card")


class SelfTestReport(Reply):
    """The self-test a floorperson runs at the start of each gaming day (673a.2(d), analog).

    ``passed`` is true exactly when ``code`` is OK. The sensor readings are bools; the counter
    counts Peeks answered since power-on, whatever the cards were, so the host can compare it with
    the peeks it asked for.
    """

    passed: Annotated[bool, BOOL]
    code: Annotated[int, U8]
    seal_intact: Annotated[bool, BOOL]
    optics_ok: Annotated[bool, BOOL]
    slot_sensor_ok: Annotated[bool, BOOL]
    slot_empty: Annotated[bool, BOOL]
    peeks_since_power_on: Annotated[int, U32]

    def checked_code(self) -> SelfTestCode:
        """The result code, or PayloadError for an unknown code or one that contradicts ``passed``:
        the host refuses such a report as a firmware bug."""
        code = enum_member(SelfTestCode, self.code, "SelfTestReport.code")
        if self.passed != (code is SelfTestCode.OK):
            raise PayloadError(f"SelfTestReport.passed={self.passed} contradicts code {code.name}")
        return code


@CATALOG.add
class SelfTest(Command):
    """Run the reader's self-test; the slot must be empty. Not card-moving."""

    MSG_ID = 0x21
    REPLY = SelfTestReport
