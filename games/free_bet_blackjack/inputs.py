"""What a Free Bet Blackjack round is fed: one message per event, from the table's queue.

The table service puts every event of a table (a wager keyed in, a card out of the shoe, the
reader's answer, a player's decision, a supervisor's ruling) on one queue and hands each message to
``Round.handle`` in order. A message checks its own fields when it is made, so bad input fails with
an error naming the field before it reaches the round.

Cards arrive as the shoe dispenses them: a ``Card`` when dealt face up; for the hole card a sealed
object carrying only a ``commitment`` (the shoe's SHA-256 of face and nonce, vocabulary.cards),
whose face the round never sees before 672a.7(k); or ``COVER_CARD``. The messages more than one
game takes are games.common.messages', re-exported here so a table service imports one module.
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
    CoverCard,
    Discard,
    InputError,
    Message,
    Resolution,
    Settle,
    ShoeStatus,
    StartDeal,
    SupervisorResolve,
    check_bool,
    check_int,
    describe,
)
from vocabulary.cards import Card, SealedCard

__all__ = [
    "COVER_CARD",
    "Arrival",
    "CardArrives",
    "ChangeDealer",
    "CloseInsurance",
    "ConfirmBurn",
    "CoverCard",
    "Decision",
    "Discard",
    "EvenMoney",
    "InputError",
    "Insure",
    "Message",
    "PeekAnswer",
    "PlaceWager",
    "PlayerAction",
    "Resolution",
    "RevealHole",
    "SealedCard",
    "Settle",
    "ShoeStatus",
    "StartDeal",
    "SupervisorResolve",
    "describe",
]


class PlayerAction(enum.StrEnum):
    """A player's decision under 672a.7(h)(2); each is a trigger of the round machine."""

    STAND = "stand"
    HIT = "hit"
    DOUBLE_DOWN = "double_down"
    SPLIT = "split"
    SURRENDER = "surrender"  # offered by no Free Bet table: refused, 672a.7(h)(2)


@dataclass(frozen=True)
class PlaceWager(common.PlaceWager):
    """A position's wagers, in cents; placing again before the deal replaces them. A Push 22 Wager
    without a Blackjack Wager is refused by the round, with its clause."""

    blackjack: int
    push22: int = 0


@dataclass(frozen=True)
class Insure(Message):
    trigger = "insure"
    seat: int
    amount: int

    def __post_init__(self) -> None:
        check_int("Insure.seat", self.seat, minimum=1)
        check_int("Insure.amount", self.amount, minimum=1)


@dataclass(frozen=True)
class EvenMoney(Message):
    trigger = "even_money"
    seat: int

    def __post_init__(self) -> None:
        check_int("EvenMoney.seat", self.seat, minimum=1)


@dataclass(frozen=True)
class CloseInsurance(Message):
    """The dealer closes the insurance offer and goes on to the peek."""

    trigger = "close_insurance"


@dataclass(frozen=True)
class PeekAnswer(Message):
    """The card reader's answer: does the hole card give the dealer a Blackjack? Nothing more."""

    trigger = "peek_answer"
    dealer_blackjack: bool

    def __post_init__(self) -> None:
        check_bool("PeekAnswer.dealer_blackjack", self.dealer_blackjack)


@dataclass(frozen=True)
class Decision(Message):
    """A player's decision for the seat's hand in play."""

    seat: int
    action: PlayerAction

    def __post_init__(self) -> None:
        check_int("Decision.seat", self.seat, minimum=1)
        if not isinstance(self.action, PlayerAction):
            raise InputError(f"Decision.action: expected a PlayerAction, got {self.action!r}")

    @property
    def trigger(self) -> str:  # type: ignore[override]
        return self.action.value


@dataclass(frozen=True)
class RevealHole(Message):
    """The hole card turned face up (672a.7(k)): its face, as the shoe or reader reads it."""

    trigger = "reveal_hole"
    card: Card

    def __post_init__(self) -> None:
        if not isinstance(self.card, Card):
            raise InputError(f"RevealHole.card: expected a Card, got {type(self.card).__name__}")
