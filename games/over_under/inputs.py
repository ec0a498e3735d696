"""What an Over/Under round is fed: one message per event, from the table's queue.

The messages every shoe game shares (a card out of the shoe, the shoe's status, "no more bets", a
new dealer and the burn, the discard rack's count, a supervisor's ruling) are games.common.messages',
re-exported here so a table service imports one module per game; the messages of this game are
the wagers, the player's election under 686a.7(g) and the dealer's clearing of a settled hand (j).
Each message checks its own fields when it is made, so bad input fails naming the field before it
reaches the round. Every card of this game is dealt face up (686a.7(e), (i)): a sealed card is an
irregularity, recorded by its commitment only.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from games.common import messages as common
from games.common.messages import (
    COVER_CARD,
    Arrival,
    CardArrives,
    ChangeDealer,
    ConfirmBurn,
    Discard,
    InputError,
    Message,
    Resolution,
    ShoeStatus,
    StartDeal,
    SupervisorResolve,
    check_int,
    describe,
)
from vocabulary.cards import SealedCard

__all__ = [
    "COVER_CARD",
    "Arrival",
    "CardArrives",
    "ChangeDealer",
    "Choice",
    "Choose",
    "ClearHand",
    "ConfirmBurn",
    "Discard",
    "InputError",
    "Message",
    "PlaceWager",
    "Resolution",
    "SealedCard",
    "ShoeStatus",
    "StartDeal",
    "SupervisorResolve",
    "describe",
]


class Choice(enum.StrEnum):
    """A player's election under 686a.7(g)."""

    OVER_23 = "over_23"  # (g)(1)
    UNDER_18 = "under_18"  # (g)(2)
    SURRENDER = "surrender"  # (g)(3)


@dataclass(frozen=True)
class PlaceWager(common.PlaceWager):
    """A position's wagers, in cents; placing again before the deal replaces them. A Bonus Wager
    without an Ante Wager is refused by the round, with its source."""

    ante: int
    bonus: int = 0


@dataclass(frozen=True)
class Choose(Message):
    """The player's election when the dealer asks (686a.7(f)-(g)). ``amount`` is the Over 23 or
    Under 18 Wager as keyed in, or None for "equal to the Ante"; a surrender stakes nothing."""

    trigger = "choose"
    seat: int
    choice: Choice
    amount: int | None = None

    def __post_init__(self) -> None:
        check_int("Choose.seat", self.seat, minimum=1)
        if not isinstance(self.choice, Choice):
            raise InputError(f"Choose.choice: expected a Choice, got {self.choice!r}")
        if self.amount is not None:
            check_int("Choose.amount", self.amount, minimum=1)
            if self.choice is Choice.SURRENDER:
                raise InputError("Choose.amount: a surrender places no wager; leave it None")


@dataclass(frozen=True)
class ClearHand(Message):
    """The dealer has settled ``seat`` and put its three cards in the discard rack (686a.7(j))."""

    trigger = "clear_hand"
    seat: int

    def __post_init__(self) -> None:
        check_int("ClearHand.seat", self.seat, minimum=1)
