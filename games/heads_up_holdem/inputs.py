"""What a round of the 677a Hold 'Em game is fed: one message per event, from the table's queue.

A message checks its own fields when it is made, so bad input fails with an InputError naming the
field before it reaches the round. Cards dealt face down (the two-card stacks the shoe dispenses,
the stub the shoe read as it left, the community cards dealt from it) arrive sealed: an object
carrying only the shoe's ``commitment`` (the ``SealedCard`` of drivers/shoe.py), whose face the
round learns only when the card is turned up. The shoe's and the shuffler's reports (loaded, mode,
card count) arrive as a ``DeckReport``.
"""

from __future__ import annotations

import enum
from collections.abc import Callable
from dataclasses import dataclass

from games.common import messages as common
from games.common.messages import (
    InputError,
    Message,
    Resolution,
    Settle,
    SupervisorResolve,
    check_bool,
    check_int,
    describe,
)
from vocabulary.cards import COMMITMENT_SIZE, Card, SealedCard

__all__ = [
    "Arrival",
    "Choice",
    "Collect",
    "CommunityDealt",
    "DeckReport",
    "InputError",
    "MisdealFinding",
    "NoMoreBets",
    "PlaceWager",
    "PlayerDecision",
    "Resolution",
    "RevealCommunity",
    "RevealHand",
    "SealedCard",
    "Settle",
    "StackDelivered",
    "StubRemoved",
    "StubToRack",
    "SupervisorResolve",
    "UnseenToRack",
    "Verify",
    "describe",
]

Arrival = Card | SealedCard
#: The shoe's check that ``card`` is the card sealed in ``sealed`` (devices/shoe.py provides it).
Verify = Callable[[SealedCard, Card], bool]


def _check_arrival(field: str, item: object) -> None:
    if isinstance(item, Card):
        return
    commitment = getattr(item, "commitment", None)
    if not isinstance(commitment, bytes) or len(commitment) != COMMITMENT_SIZE:
        raise InputError(
            f"{field}: expected a sealed face-down card with a {COMMITMENT_SIZE}-byte commitment "
            f"(or a Card, if it came out face up); got a {type(item).__name__}"
        )


def _check_faces(field: str, cards: object, count: int | None = None) -> None:
    if not isinstance(cards, tuple) or not all(isinstance(card, Card) for card in cards):
        raise InputError(f"{field}: expected a tuple of Cards, got {cards!r}")
    if count is not None and len(cards) != count:
        raise InputError(f"{field}: expected {count} cards, got {len(cards)}")


@dataclass(frozen=True)
class DeckReport:
    """What the equipment reports when the dealer announces "no more bets"."""

    in_shoe: bool  # 677a.10(a)(1): the shuffled and cut cards are in the automated dealing shoe
    shuffler_count: int | None = None  # a counting shuffler's count of the deck (None: none used)
    auto_reshuffle: bool = False  # the shoe reshuffles the cards itself after each round
    community_first: bool = False  # 677a.10(g): the shoe dispenses the community cards first

    def __post_init__(self) -> None:
        for name in ("in_shoe", "auto_reshuffle", "community_first"):
            check_bool(f"DeckReport.{name}", getattr(self, name))
        if self.shuffler_count is not None:
            check_int("DeckReport.shuffler_count", self.shuffler_count, minimum=0)


@dataclass(frozen=True)
class PlaceWager(common.PlaceWager):
    """A position's wagers, in cents; placing again before "no more bets" replaces them."""

    required = frozenset({"ante", "odds"})
    ante: int
    odds: int
    trips_plus: int = 0
    pocket_bonus: int = 0


@dataclass(frozen=True)
class NoMoreBets(Message):
    """677a.10(a)(2): the dealer announces "no more bets"; the deal may start if the deck is ready."""

    trigger = "no_more_bets"
    deck: DeckReport

    def __post_init__(self) -> None:
        if not isinstance(self.deck, DeckReport):
            raise InputError(f"NoMoreBets.deck: expected a DeckReport, got {type(self.deck).__name__}")


@dataclass(frozen=True, repr=False)
class StackDelivered(Message):
    """A stack the shoe dispensed, delivered by the dealer (two cards; five community cards first
    under 677a.10(g))."""

    trigger = "stack_delivered"
    cards: tuple[Arrival, ...]

    def __post_init__(self) -> None:
        if not isinstance(self.cards, tuple) or not self.cards:
            raise InputError(f"StackDelivered.cards: expected a non-empty tuple, got {self.cards!r}")
        for item in self.cards:
            _check_arrival("StackDelivered.cards", item)

    def __repr__(self) -> str:
        return f"StackDelivered({', '.join(describe(item) for item in self.cards)})"


@dataclass(frozen=True, repr=False)
class StubRemoved(Message):
    """677a.10(c): after the last stack, the remaining cards removed from the automated dealing shoe
    into the dealer's hand. ``cards`` is the stub as the shoe read it leaving, sealed, top card (the
    first out) first: the hand deals from the top, so the round knows which sealed card each
    community card is (docs/decisions/0020-holdem-community-cards-from-the-hand.md)."""

    trigger = "stub_removed"
    cards: tuple[Arrival, ...]

    def __post_init__(self) -> None:
        if not isinstance(self.cards, tuple):
            raise InputError(f"StubRemoved.cards: expected a tuple, got {self.cards!r}")
        for item in self.cards:
            _check_arrival("StubRemoved.cards", item)

    def __repr__(self) -> str:
        return f"StubRemoved({len(self.cards)} cards)"


@dataclass(frozen=True, repr=False)
class CommunityDealt(Message):
    """677a.10(c): one community card dealt from the hand, face down: the top card of the stub."""

    trigger = "community_dealt"
    card: Arrival

    def __post_init__(self) -> None:
        _check_arrival("CommunityDealt.card", self.card)

    def __repr__(self) -> str:
        return f"CommunityDealt({describe(self.card)})"


@dataclass(frozen=True)
class UnseenToRack(Message):
    """Cards that left the shoe unrecorded — while a dispense's outcome was unknown (docs/protocol.md
    §5.6), or unread as the stub came out — moved unseen to the discard rack: out of the deck for
    the round's count (677a.10(e))."""

    trigger = "unseen_to_rack"
    cards: int

    def __post_init__(self) -> None:
        check_int("UnseenToRack.cards", self.cards, minimum=1)


@dataclass(frozen=True)
class StubToRack(Message):
    """677a.10(c)-(e): the stub to the discard rack; ``counted`` is its face-down count, if counted."""

    trigger = "stub_to_rack"
    counted: int | None = None

    def __post_init__(self) -> None:
        if self.counted is not None:
            check_int("StubToRack.counted", self.counted, minimum=0)


@dataclass(frozen=True)
class MisdealFinding(Message):
    """677a.10(f): after a wrong count, whether the cards were misdealt and how many the deck holds."""

    trigger = "misdeal_finding"
    misdealt: bool
    cards_in_deck: int

    def __post_init__(self) -> None:
        check_bool("MisdealFinding.misdealt", self.misdealt)
        check_int("MisdealFinding.cards_in_deck", self.cards_in_deck, minimum=0)


class Choice(enum.StrEnum):
    """A player's decision (published game rules, not PA text); each is a trigger of the round machine."""

    PLAY = "play"
    CHECK = "check"
    FOLD = "fold"


@dataclass(frozen=True)
class PlayerDecision(Message):
    """A player's decision; ``multiple`` is the Play Wager in Antes (only with PLAY)."""

    seat: int
    choice: Choice
    multiple: int = 0

    def __post_init__(self) -> None:
        check_int("PlayerDecision.seat", self.seat, minimum=1)
        if not isinstance(self.choice, Choice):
            raise InputError(f"PlayerDecision.choice: expected a Choice, got {self.choice!r}")
        check_int("PlayerDecision.multiple", self.multiple, minimum=1 if self.choice is Choice.PLAY else 0)
        if self.choice is not Choice.PLAY and self.multiple:
            raise InputError(f"PlayerDecision.multiple: only a Play has a multiple, got {self.multiple}")

    @property
    def trigger(self) -> str:  # type: ignore[override]
        return self.choice.value


@dataclass(frozen=True)
class RevealCommunity(Message):
    """Community cards turned up: the flop (three), then the turn and river (two)."""

    trigger = "reveal_community"
    cards: tuple[Card, ...]

    def __post_init__(self) -> None:
        _check_faces("RevealCommunity.cards", self.cards)


@dataclass(frozen=True)
class RevealHand(Message):
    """A hand's two cards turned up at the showdown; ``seat`` None is the dealer's hand."""

    trigger = "reveal_hand"
    seat: int | None
    cards: tuple[Card, ...]

    def __post_init__(self) -> None:
        if self.seat is not None:
            check_int("RevealHand.seat", self.seat, minimum=1)
        _check_faces("RevealHand.cards", self.cards, 2)


@dataclass(frozen=True)
class Collect(Message):
    """The round's cards are in the discard rack: how many the rack received."""

    trigger = "collect"
    cards: int

    def __post_init__(self) -> None:
        check_int("Collect.cards", self.cards, minimum=0)
