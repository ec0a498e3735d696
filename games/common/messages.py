"""The messages every game's round is fed and the field checks they share.

A message checks its own fields when it is made, so bad input fails with an error naming the field
before it reaches a round. These are the messages of more than one game (a card out of the shoe,
the shoe's status, the deal, the settlement, the discard rack's count, a new dealer and the burn, a
supervisor's ruling), and the face-down card's sealed form, which carries only the shoe's commitment
(SHA-256 of face and nonce, vocabulary.cards), so that no face reaches a record before it is
turned up.
Used by all four games' inputs modules.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, fields
from typing import ClassVar

from vocabulary.cards import COMMITMENT_SIZE, Card, SealedCard
from vocabulary.operators import Operator


class InputError(ValueError):
    """A message with a field the round cannot take; nothing was changed."""


class CoverCard(enum.Enum):
    COVER = "cover card"


COVER_CARD = CoverCard.COVER
Arrival = Card | SealedCard | CoverCard


def describe(item: Arrival) -> str:
    """A card for a record or a message: a face-down card by its commitment only."""
    if isinstance(item, Card):
        return str(item)
    if item is COVER_CARD:
        return "the cover card"
    return f"a face-down card (commitment {item.commitment.hex()[:16]}…)"


def check_arrival(item: object) -> None:
    if isinstance(item, Card | CoverCard):
        return
    commitment = getattr(item, "commitment", None)
    if not isinstance(commitment, bytes) or len(commitment) != COMMITMENT_SIZE:
        raise InputError(
            f"CardArrives.item: expected a Card, a sealed face-down card with a {COMMITMENT_SIZE}-byte "
            f"commitment, or COVER_CARD; got a {type(item).__name__}"
        )


def check_int(field: str, value: object, *, minimum: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise InputError(f"{field}: expected a whole number of at least {minimum}, got {value!r}")


def check_bool(field: str, value: object) -> None:
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
            check_bool(f"ShoeStatus.{name}", getattr(self, name))

    @classmethod
    def ready(cls) -> ShoeStatus:
        return cls(loaded=True, burn_due=False, reshuffle_due=False)


class Resolution(enum.StrEnum):
    """A supervisor's ruling on a held round."""

    CONTINUE = "continue"
    VOID = "void"


class Message:
    """One event for the round; ``trigger`` names the machine trigger it fires."""

    trigger: ClassVar[str]


@dataclass(frozen=True)
class PlaceWager(Message):
    """A position's wagers, in cents; placing again before the deal replaces them. Each game adds
    its wagers as fields; ``required`` names those a position must place (at least a cent), the
    others may be 0. Which combinations the game allows is the round's to refuse, with its clause."""

    trigger = "place_wager"
    required: ClassVar[frozenset[str]] = frozenset()
    seat: int

    def __post_init__(self) -> None:
        for name, label, minimum in _wager_fields(type(self)):
            check_int(label, getattr(self, name), minimum=minimum)


def _wager_fields(cls: type[PlaceWager]) -> tuple[tuple[str, str, int], ...]:
    """Each field of a game's PlaceWager: its name, its label in a refusal and its least value (the
    seat and the ``required`` wagers at least 1), read once per class rather than on every wager."""
    found = _WAGER_FIELDS.get(cls)
    if found is None:
        found = _WAGER_FIELDS[cls] = tuple(
            (
                field.name,
                f"{cls.__name__}.{field.name}",
                1 if field.name == "seat" or field.name in cls.required else 0,
            )
            for field in fields(cls)
        )
    return found


_WAGER_FIELDS: dict[type, tuple[tuple[str, str, int], ...]] = {}


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
        check_arrival(self.item)

    def __repr__(self) -> str:
        return f"CardArrives({describe(self.item)})"


@dataclass(frozen=True)
class Discard(Message):
    """The round's cards are in the discard rack: how many the rack received."""

    trigger = "discard"
    cards: int

    def __post_init__(self) -> None:
        check_int("Discard.cards", self.cards, minimum=0)


@dataclass(frozen=True)
class Settle(Message):
    """Every hand the game turns up is turned up (the dealer's draw is over, the hands are revealed):
    settle the wagers."""

    trigger = "settle"


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
