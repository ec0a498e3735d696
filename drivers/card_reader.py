"""The hole-card reader's driver: a peek that answers one bool, and the reader's self-test.

It knows the card reader protocol (drivers/protocol/classes/card_reader.py) and nothing of when a
peek is allowed or who may inspect the reader: those rules live in devices/card_reader.py.
"""

from __future__ import annotations

from drivers.driver import Driver, ProtocolMismatch
from drivers.protocol.classes.card_reader import Peek, PeekAnswer, SelfTest, SelfTestReport, UpCard
from drivers.protocol.core import DeviceClass
from drivers.protocol.fields import PayloadError


class CardReaderDriver(Driver):
    """Peek and self-test over one supervised connection to a card reader."""

    DEVICE_CLASS = DeviceClass.CARD_READER

    async def peek(self, up_card: UpCard) -> bool:
        """Whether the card in the reader's slot gives the dealer a Blackjack with ``up_card``.

        An up card that is not ACE or TEN_VALUE raises ValueError before anything is sent. A Peek
        moves no card, so one that timed out (CommandTimeout) may be sent again.
        """
        command = Peek(int(up_card))
        command.checked_up_card()
        answer = await self.call(command, PeekAnswer)
        return answer.blackjack

    async def self_test(self) -> SelfTestReport:
        """Run the reader's self-test; a report whose code is unknown or contradicts its verdict is
        a firmware bug (ProtocolMismatch), never taken as a pass."""
        report = await self.call(SelfTest(), SelfTestReport)
        try:
            report.checked_code()
        except PayloadError as exc:
            raise ProtocolMismatch(f"{self.name}: {exc}") from None
        return report
