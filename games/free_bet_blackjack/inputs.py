"""What a Free Bet Blackjack round is fed: one message per event, from the table's queue.

The table service puts every event of a table (a wager keyed in, a card out of the shoe, the
reader's answer, a player's decision, a supervisor's ruling) on one queue and hands each message to
``Round.handle`` in order. A message checks its own fields when it is made, so bad input fails with
an error naming the field before it reaches the round.

Cards arrive as the shoe dispenses them: a ``Card`` when dealt face up; for the hole card a sealed
object carrying only a ``commitment`` (the shoe's SHA-256 of face and nonce, drivers.protocol.cards),
whose face the round never sees before 672a.7(k); or ``COVER_CARD``.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import ClassVar, Protocol

from devices.faults import Operator
from drivers.protocol.cards import COMMITMENT_SIZE, Card


class InputError(ValueError):
    """A message with a field the round cannot take; nothing was changed."""


class Sealed(Protocol):
    """A card dealt face down: its commitment, never its face."""

    @property
    def commitment(self) -> bytes: ...


class CoverCard(enum.Enum):
    COVER = "cover card"


COVER_CARD = CoverCard.COVER
Arrival = Card | Sealed | CoverCard


def describe(item: Arrival) -> str:
    """A card for a record or a message: a face-down card by its commitment only."""
    if isinstance(item, Card):
        return str(item)
    if item is COVER_CARD:
        return "the cover card"
    return f"a face-down card (commitment {item.commitment.hex()[:16]}…)"


def _check_arrival(item: object) -> None:
    if isinstance(item, Card | CoverCard):
        return
    commitment = getattr(item, "commitment", None)
    if not isinstance(commitment, bytes) or len(commitment) != COMMITMENT_SIZE:
        raise InputError(
            f"CardArrives.item: expected a Card, a sealed face-down card with a {COMMITMENT_SIZE}-byte "
            f"commitment, or COVER_CARD; got a {type(item).__name__}"
        )


def _check_int(field: str, value: object, *, minimum: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise InputError(f"{field}: expected a whole number of at least {minimum}, got {value!r}")


def _check_bool(field: str, value: object) -> None:
    if not isinstance(value, bool):
        raise InputError(f"{field}: expected True or False, got {value!r}")


@dataclass(frozen=True)
class ShoeStatus:
    """What the dealing shoe (devices/shoe.py) reports before cards may be dealt."""

    loaded: bool  # 672a.7(a): shuffled and cut cards are in the dealing shoe
    burn_due: bool  # 672a.7(c): a new batch or a new dealer still owes its burn card
    reshuffle_due: bool  # 672a.7(d): the cover card came out; collect and reshuffle first

    def __post_init__(self) -> None:
        for name in ("loaded", "burn_due", "reshuffle_due"):
            _check_bool(f"ShoeStatus.{name}", getattr(self, name))

    @classmethod
    def ready(cls) -> ShoeStatus:
        return cls(loaded=True, burn_due=False, reshuffle_due=False)


class Resolution(enum.StrEnum):
    """A supervisor's ruling on a held round."""

    CONTINUE = "continue"
    VOID = "void"


class PlayerAction(enum.StrEnum):
    """A player's decision under 672a.7(h)(2); each is a trigger of the round machine."""

    STAND = "stand"
    HIT = "hit"
    DOUBLE_DOWN = "double_down"
    SPLIT = "split"
    SURRENDER = "surrender"  # offered by no Free Bet table: refused, 672a.7(h)(2)


class Message:
    """One event for the round; ``trigger`` names the machine trigger it fires."""

    trigger: ClassVar[str]


@dataclass(frozen=True)
class PlaceWager(Message):
    """A position's wagers, in cents; placing again before the deal replaces them. A Push 22 Wager
    without a Blackjack Wager is refused by the round, with its clause."""

    trigger = "place_wager"
    seat: int
    blackjack: int
    push22: int = 0

    def __post_init__(self) -> None:
        _check_int("PlaceWager.seat", self.seat, minimum=1)
        _check_int("PlaceWager.blackjack", self.blackjack, minimum=0)
        _check_int("PlaceWager.push22", self.push22, minimum=0)


@dataclass(frozen=True)
class StartDeal(Message):
    """No more bets: deal, if the shoe is ready."""

    trigger = "start_deal"
    shoe: ShoeStatus

    def __post_init__(self) -> None:
        if not isinstance(self.shoe, ShoeStatus):
            raise InputError(f"StartDeal.shoe: expected a ShoeStatus, got {type(self.shoe).__name__}")


@dataclass(frozen=True, repr=False)
class CardArrives(Message):
    """A card out of the shoe (or the cover card)."""

    trigger = "card_arrives"
    item: Arrival

    def __post_init__(self) -> None:
        _check_arrival(self.item)

    def __repr__(self) -> str:
        return f"CardArrives({describe(self.item)})"


@dataclass(frozen=True)
class Insure(Message):
    trigger = "insure"
    seat: int
    amount: int

    def __post_init__(self) -> None:
        _check_int("Insure.seat", self.seat, minimum=1)
        _check_int("Insure.amount", self.amount, minimum=1)


@dataclass(frozen=True)
class EvenMoney(Message):
    trigger = "even_money"
    seat: int

    def __post_init__(self) -> None:
        _check_int("EvenMoney.seat", self.seat, minimum=1)


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
        _check_bool("PeekAnswer.dealer_blackjack", self.dealer_blackjack)


@dataclass(frozen=True)
class Decision(Message):
    """A player's decision for the seat's hand in play."""

    seat: int
    action: PlayerAction

    def __post_init__(self) -> None:
        _check_int("Decision.seat", self.seat, minimum=1)
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


@dataclass(frozen=True)
class Settle(Message):
    """The dealer's draw is over: settle the wagers."""

    trigger = "settle"


@dataclass(frozen=True)
class Discard(Message):
    """The round's cards are in the discard rack: how many the rack received."""

    trigger = "discard"
    cards: int

    def __post_init__(self) -> None:
        _check_int("Discard.cards", self.cards, minimum=0)


@dataclass(frozen=True)
class ChangeDealer(Message):
    trigger = "change_dealer"
    dealer: str

    def __post_init__(self) -> None:
        if not isinstance(self.dealer, str) or not self.dealer.strip():
            raise InputError(f"ChangeDealer.dealer: expected an employee id, got {self.dealer!r}")


@dataclass(frozen=True)
class ConfirmBurn(Message):
    """The new dealer's burn card is in the discard rack, as the shoe reports."""

    trigger = "confirm_burn"
    shoe: ShoeStatus

    def __post_init__(self) -> None:
        if not isinstance(self.shoe, ShoeStatus):
            raise InputError(f"ConfirmBurn.shoe: expected a ShoeStatus, got {type(self.shoe).__name__}")


@dataclass(frozen=True)
class SupervisorResolve(Message):
    trigger = "supervisor_resolve"
    operator: Operator
    resolution: Resolution

    def __post_init__(self) -> None:
        if not isinstance(self.operator, Operator):
            raise InputError(f"SupervisorResolve.operator: expected an Operator, got {self.operator!r}")
        if not isinstance(self.resolution, Resolution):
            raise InputError(f"SupervisorResolve.resolution: expected a Resolution, got {self.resolution!r}")
