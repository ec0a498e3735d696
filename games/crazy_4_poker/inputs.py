"""What a Crazy 4 Poker round is fed: one message per event, from the table's queue.

Cards dealt from the hand pass no reading device, so no message carries a face while the cards are
face down: the dealer's screen takes one ``CardDealt`` per card (the place it went), and the faces
come later, either as the shuffler's order revealed for the round (``RevealOrder``, checked against
the commitment the shuffler sealed before the deal, ``ShuffleReport.order``) or as the dealer's
report of a hand turned up (``ReportHand``). Devices report through messages too (the shuffler's
count, the progressive system's lock), so the table service can wire the real devices without
changing the round. A message checks its own fields when it is made and names the bad one.

The message base, ``InputError``, the field checks, ``Discard`` and ``SupervisorResolve`` are
games.common.messages', imported rather than copied; ``PlaceWagers`` extends its ``PlaceWager``.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Protocol

from games.common import messages as common
from games.common.messages import (
    Discard,
    InputError,
    Message,
    Resolution,
    Settle,
    SupervisorResolve,
    check_int,
)
from games.crazy_4_poker.evaluator import HAND_SIZE
from vocabulary.cards import COMMITMENT_SIZE, Card

__all__ = [
    "DEALER",
    "SIX_CARD",
    "AwardPaid",
    "CardDealt",
    "ChipCount",
    "ChooseHand",
    "DeckHand",
    "Discard",
    "Fold",
    "HandCounts",
    "InputError",
    "Message",
    "NoMoreBets",
    "Place",
    "PlaceWagers",
    "Play",
    "ProgressiveLocked",
    "ReportHand",
    "Resolution",
    "RevealOrder",
    "SealedOrder",
    "Settle",
    "ShuffleReport",
    "StubCount",
    "StubToRack",
    "SupervisorResolve",
]

DEALER = "dealer"
SIX_CARD = "six-card"  # the area for the Six Card Bonus card (657a.9(b))
Place = int | str  # a seat number, DEALER or SIX_CARD


class SealedOrder(Protocol):
    """The order of a shuffled deck, sealed by the shuffler: its commitment, never the cards."""

    @property
    def commitment(self) -> bytes: ...


class DeckHand(enum.StrEnum):
    LEFT = "left"
    RIGHT = "right"


def check_place(field: str, place: object, *, six_card: bool = True) -> None:
    if place == DEALER or (six_card and place == SIX_CARD):
        return
    if isinstance(place, bool) or not isinstance(place, int) or place < 1:
        allowed = f"a seat number, {DEALER!r}" + (f" or {SIX_CARD!r}" if six_card else "")
        raise InputError(f"{field}: expected {allowed}, got {place!r}")


def _check_cards(field: str, cards: object, size: int | None, *, distinct: bool = True) -> None:
    if not isinstance(cards, tuple) or not all(isinstance(card, Card) for card in cards):
        raise InputError(f"{field}: expected a tuple of Cards, got {cards!r}")
    if size is not None and len(cards) != size:
        raise InputError(f"{field}: expected {size} cards, got {len(cards)}")
    if distinct and len(set(cards)) != len(cards):
        raise InputError(f"{field}: a card appears twice")
    if any(card.is_joker for card in cards):
        raise InputError(f"{field}: Crazy 4 Poker is dealt without jokers")


@dataclass(frozen=True)
class ShuffleReport(Message):
    """The automated shuffler's report of the deck it shuffled for this round (657a.9(a)(1)):
    the count of a counting shuffler (657a.9(d)), and the shuffled order sealed, if it reports one."""

    trigger = "shuffle_report"
    count: int | None = None
    order: SealedOrder | None = None

    def __post_init__(self) -> None:
        if self.count is not None:
            check_int("ShuffleReport.count", self.count, minimum=0)
        if self.order is not None:
            commitment = getattr(self.order, "commitment", None)
            if not isinstance(commitment, bytes) or len(commitment) != COMMITMENT_SIZE:
                raise InputError(
                    f"ShuffleReport.order: expected a sealed order with a {COMMITMENT_SIZE}-byte commitment"
                )

    def __repr__(self) -> str:
        sealed = f"sealed {self.order.commitment.hex()[:16]}…" if self.order is not None else "no order"
        return f"ShuffleReport(count={self.count}, {sealed})"


@dataclass(frozen=True)
class PlaceWagers(common.PlaceWager):
    """A position's wagers in cents; placing again before "no more bets" replaces them. Every wager
    may be 0 here (``required`` stays empty); which combinations are allowed is the round's to refuse."""

    trigger = "place_wagers"
    ante: int
    super_bonus: int
    queens_up: int = 0
    progressive: int = 0  # one value chip (657a.9(a)(3))
    five_card_bonus: int = 0
    six_card_bonus: int = 0


@dataclass(frozen=True)
class ChooseHand(Message):
    """657a.9(a)(2): the hand the dealer holds the deck in, for the whole round."""

    trigger = "choose_hand"
    hand: DeckHand

    def __post_init__(self) -> None:
        if not isinstance(self.hand, DeckHand):
            raise InputError(f"ChooseHand.hand: expected DeckHand.LEFT or DeckHand.RIGHT, got {self.hand!r}")


@dataclass(frozen=True)
class NoMoreBets(Message):
    trigger = "no_more_bets"


@dataclass(frozen=True)
class ProgressiveLocked(Message):
    """The progressive system's report that it locked its wagers, and the seats whose Progressive
    Payout Wager it accepted: a wager it refused (its sensors locked out, or the seat's sensor failed:
    decision 0043) is not in action, its chip returned by the dealer."""

    trigger = "progressive_locked"
    seats: tuple[int, ...]

    def __post_init__(self) -> None:
        if not isinstance(self.seats, tuple) or len(set(self.seats)) != len(self.seats):
            raise InputError(
                f"ProgressiveLocked.seats: expected distinct seats in a tuple, got {self.seats!r}"
            )
        for seat in self.seats:
            check_int("ProgressiveLocked.seats", seat, minimum=1)

    @property
    def accepted(self) -> int:
        """How many wagers the system accepted: the value chips the dealer must count."""
        return len(self.seats)


@dataclass(frozen=True)
class AwardPaid(Message):
    """The progressive system's answer to a seat's award (657a.1): the ``level`` that paid, the
    ``amount`` paid in cents (the level's value at the hit) and ``hit``, the hit's number in the
    level's hit history, so the round's record matches the controller's meters (605a.7(a))."""

    trigger = "award_paid"
    seat: int
    level: int
    amount: int
    hit: int

    def __post_init__(self) -> None:
        check_int("AwardPaid.seat", self.seat, minimum=1)
        check_int("AwardPaid.level", self.level, minimum=0)
        check_int("AwardPaid.amount", self.amount, minimum=0)
        check_int("AwardPaid.hit", self.hit, minimum=0)


@dataclass(frozen=True)
class ChipCount(Message):
    """The value chips the dealer collected for Progressive Payout Wagers (657a.9(a)(3))."""

    trigger = "chip_count"
    chips: int

    def __post_init__(self) -> None:
        check_int("ChipCount.chips", self.chips, minimum=0)


@dataclass(frozen=True)
class CardDealt(Message):
    """One card from the hand, face down, to ``place`` (the dealer's screen or the layout says where)."""

    trigger = "card_dealt"
    place: Place

    def __post_init__(self) -> None:
        check_place("CardDealt.place", self.place)


@dataclass(frozen=True)
class StubToRack(Message):
    """657a.9(c), (e): the stub went to the discard rack unexposed."""

    trigger = "stub_to_rack"


@dataclass(frozen=True)
class StubCount(Message):
    """657a.9(d): the stub counted face down on the layout."""

    trigger = "stub_count"
    cards: int

    def __post_init__(self) -> None:
        check_int("StubCount.cards", self.cards, minimum=0)


@dataclass(frozen=True)
class HandCounts(Message):
    """657a.9(f): after a wrong stub count, the cards the dealer counts at each place."""

    trigger = "hand_counts"
    counts: Mapping[Place, int]

    def __post_init__(self) -> None:
        if not isinstance(self.counts, Mapping) or not self.counts:
            raise InputError(f"HandCounts.counts: expected a mapping of place to cards, got {self.counts!r}")
        for place, count in self.counts.items():
            check_place("HandCounts.counts", place)
            check_int(f"HandCounts.counts[{place!r}]", count, minimum=0)


@dataclass(frozen=True)
class Play(Message):
    """The Play Wager: ``multiple`` times the Ante (published game rules, not PA text)."""

    trigger = "play"
    seat: int
    multiple: int = 1

    def __post_init__(self) -> None:
        check_int("Play.seat", self.seat, minimum=1)
        check_int("Play.multiple", self.multiple, minimum=1)


@dataclass(frozen=True)
class Fold(Message):
    trigger = "fold"
    seat: int

    def __post_init__(self) -> None:
        check_int("Fold.seat", self.seat, minimum=1)


@dataclass(frozen=True)
class RevealOrder(Message):
    """The shuffled order, top card first, revealed for the round by the shuffler. A card twice in
    it is what the shuffler read from the deck it was given, not a malformed message: the round
    holds on it (duplicate-card)."""

    trigger = "reveal_order"
    cards: tuple[Card, ...]

    def __post_init__(self) -> None:
        _check_cards("RevealOrder.cards", self.cards, None, distinct=False)


@dataclass(frozen=True)
class ReportHand(Message):
    """The five cards of a hand turned up, or the Six Card Bonus card, as the dealer reports them
    (no shuffler order)."""

    trigger = "report_hand"
    place: Place
    cards: tuple[Card, ...]

    def __post_init__(self) -> None:
        check_place("ReportHand.place", self.place)
        _check_cards("ReportHand.cards", self.cards, 1 if self.place == SIX_CARD else HAND_SIZE)
