"""The dealing steps the shoe games share (Free Bet Blackjack, 672a.7(a)-(e); Over/Under 686a.7(a)-(e)):
the shoe's readiness, the record of the deal's start, the irregular card, the cover card, a card
out while the round is held, and a new dealer's burn card. Mixed into each shoe game's DealSteps,
whose Round names its own clauses and irregularities modules so that every refusal cites the
game's own clause.
"""

from __future__ import annotations

from types import ModuleType
from typing import ClassVar

from transitions import EventData

from games.common.holds import Kind
from games.common.machine_parts import message_of
from games.common.messages import COVER_CARD, Arrival, describe
from games.common.records import RecordKind, Value
from games.common.round_base import A, RoundBase
from games.common.seating import clockwise
from vocabulary.rules import Irregularity, Rule, RuleViolation

#: Where every card of a shoe game comes from, as its card record says (``source``): it left the
#: dealing shoe (672a.7(a), 686a.7(a): all cards are dealt from a dealing shoe).
CARD_SOURCE = "shoe"

#: How both shoe games read their clause (c) (672a.7(c), 686a.7(c)), for docs/conformance.md.
BURN_READING = (
    "The first sentence owes the first card of each full batch placed in the shoe; the second has "
    'each new dealer "also" remove one card "before dealing any cards to the players". So a new '
    "dealer who takes over a freshly loaded batch whose first card is not yet burned burns two "
    "cards, the batch's first and then their own, not one card standing for both. The new dealer's "
    "card belongs to the dealer who is to deal: several changes before it is burned owe one card, "
    "and a new dealer whose burn brought out the cover card still owes it after the next batch's "
    "burn. A batch found in the shoe when the service starts again is burned as a freshly placed "
    'one. Each burn is a `burn` record in the audit trail (reason `batch` or `new_dealer`). "Remove '
    'the first card" and "remove one card" take one card for each burn: a burn card is never seen, '
    "so a burn card the shoe let out unread, or let out while the burn's answer was lost with the "
    "link (its counts show the card out, docs/protocol.md §5.6; the record says `reconciled`), is "
    "the burn made, not a card set aside with another burned after it, which would remove two."
)


class ShoeSteps(RoundBase[A]):
    """Guards and callbacks of the deal from a shoe. The Round sets ``clauses`` (the game's clauses
    module), ``irregularities`` (its kinds of irregular card and classify_card) and ``first_wager`` (the
    wager without which no card is dealt); the game's DealSteps says ``_nothing_due``; its RoundState
    keeps the attributes declared below."""

    irregularities: ClassVar[ModuleType]
    #: The wager every position must have before the deal, as named in a refusal.
    first_wager: ClassVar[str]
    dealer: str
    burn_due: bool  # a new dealer's burn card is owed
    reshuffle_required: bool  # the cover card came out

    def deal_may_start(self, event: EventData) -> bool:
        """The shoe is loaded and not past its cover card, no burn is owed, and a wager is placed."""
        clauses = self.clauses
        shoe = message_of(event).shoe
        if not shoe.loaded:
            raise RuleViolation(clauses.SHOE_LOADED, "the dealing shoe holds no shuffled and cut cards")
        if shoe.reshuffle_due:
            raise RuleViolation(
                clauses.RESHUFFLE_AFTER_COVER, "the cover card came out: collect and reshuffle before dealing"
            )
        if shoe.burn_due or self.burn_due:
            raise RuleViolation(clauses.BURN_DUE, "a burn card is due before any card is dealt")
        if not self.positions:
            raise RuleViolation(clauses.DEAL_AFTER_WAGERS, f"no {self.first_wager} has been placed")
        return True

    def begin_deal(self, event: EventData) -> None:
        """Record the deal's start: the seats with a wager, clockwise, and the dealer."""
        clauses = self.clauses
        seats = ",".join(map(str, clockwise(self.positions)))
        self.log.add(
            RecordKind.DEAL_STARTED, seats=seats, dealer=self.dealer, clause=clauses.DEAL_AFTER_WAGERS.clause
        )

    def arrival_is_irregular(self, event: EventData) -> bool:
        return self._classify(message_of(event).item) is not None

    def hold_arrival(self, event: EventData) -> None:
        item = message_of(event).item
        found = self._classify(item)
        assert found is not None, "arrival_is_irregular found it irregular"
        self._hold(*found, items=[item])

    def set_aside_while_held(self, event: EventData) -> None:
        clauses = self.clauses
        item = message_of(event).item
        assert self.hold is not None, "the round is held"
        self.hold.items.append(item)
        self._record_irregularity(
            *self.irregularities.EXTRA_CARD(clauses.HELD, f"{describe(item)} arrived while the round is held")
        )

    def is_cover_card(self, event: EventData) -> bool:
        """672a.7(d), 686a.7(d): the cover card, out while a card is due, is set aside and the deal
        goes on."""
        return message_of(event).item is COVER_CARD

    def set_cover_card_aside(self, event: EventData) -> None:
        self._cover_card_aside()

    def note_new_dealer(self, event: EventData) -> None:
        clauses = self.clauses
        self.dealer = message_of(event).dealer
        self.burn_due = True
        self.log.add(RecordKind.DEALER_CHANGE, dealer=self.dealer, clause=clauses.BURN_DUE.clause)

    def burn_is_done(self, event: EventData) -> bool:
        clauses = self.clauses
        if message_of(event).shoe.burn_due:
            raise RuleViolation(clauses.BURN_DUE, "the shoe still reports a burn card due")
        return True

    def clear_burn(self, event: EventData) -> None:
        clauses = self.clauses
        self.burn_due = False
        self.log.add(RecordKind.BURN_CONFIRMED, dealer=self.dealer, clause=clauses.BURN_DUE.clause)

    def _record_card(self, **fields: Value) -> None:
        """One card placed on the layout (``fields``: its place, its face or, dealt face down, its
        commitment only, the clause that called for it), recorded with its ``source``, the shoe."""
        self.log.add(RecordKind.CARD, **fields, source=CARD_SOURCE)

    def _classify(self, item: Arrival) -> tuple[Kind, Irregularity] | None:
        """What is wrong with ``item`` arriving now, or None: the cover card while no card is due, a
        card before a new dealer's burn card, a card while none is due; then the game's own checks of
        the card against the one due."""
        clauses, kinds, slot = self.clauses, self.irregularities, self.expected
        found: tuple[Kind, Irregularity] | None = None
        if item is COVER_CARD:
            if slot is None:
                found = kinds.COVER_OUT_OF_PLACE(
                    clauses.COVER_CARD_OUT_OF_PLACE,
                    f"the cover card came out while no card is due ({self._nothing_due()})",
                )
        elif self.burn_due:
            found = kinds.CARD_BEFORE_BURN(
                clauses.BURN_DUE, f"{describe(item)} was dealt before the new dealer's burn card"
            )
        elif slot is None:
            found = kinds.EXTRA_CARD(self._nothing_due(), f"{describe(item)} was dealt while no card is due")
        else:
            found = kinds.classify_card(item, slot)
        return found

    def _nothing_due(self) -> Rule:
        """The clause a card breaks when it arrives while no card is due (the game's DealSteps)."""
        raise NotImplementedError

    def _cover_card_aside(self) -> None:
        clauses = self.clauses
        self.reshuffle_required = True
        self.log.add(
            RecordKind.COVER_CARD,
            clause=clauses.COVER_CARD_SET_ASIDE.clause,
            collect=clauses.COLLECT_AFTER_COVER.clause,
            reshuffle=clauses.RESHUFFLE_AFTER_COVER.clause,
        )
