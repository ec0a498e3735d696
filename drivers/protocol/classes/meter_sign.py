"""Progressive meter sign: the display visible from the front of the table (605a.7(a)).

Commands 0x30-0x33 (0x32-0x33 unassigned); the sign defines no events of its own (0xB0-0xB3
reserved): its faults travel as core FaultRaised events. The sign keeps no meters: the host shows
the controller's values on it after each change, and each reply says what the sign now shows, so the
host can prove the meter shown is the meter kept (docs/protocol.md §11.4).
"""

from __future__ import annotations

from typing import Annotated

from drivers.protocol.core import CATALOG
from drivers.protocol.fields import BOOL, U8, U32
from drivers.protocol.message import Command, Reply


class Shown(Reply):
    """What the sign shows for ``level`` after the command: a meter value, or a win and its seat."""

    level: Annotated[int, U8]
    amount_cents: Annotated[int, U32]
    win: Annotated[bool, BOOL]
    seat: Annotated[int, U8]


@CATALOG.add
class Display(Command):
    """Show ``amount_cents`` as the level's current value (ends a win shown for the level)."""

    MSG_ID = 0x30
    REPLY = Shown
    level: Annotated[int, U8]
    amount_cents: Annotated[int, U32]


@CATALOG.add
class ShowWin(Command):
    """Announce a win of ``amount_cents`` on ``level`` by ``seat``, until the next Display."""

    MSG_ID = 0x31
    REPLY = Shown
    level: Annotated[int, U8]
    seat: Annotated[int, U8]
    amount_cents: Annotated[int, U32]
