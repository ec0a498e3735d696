"""The round's callbacks for the deal: wagers, the shoe's readiness, every card out of the shoe, a
new dealer (686a.7(a)-(e), (i)). Mixed into Round (round.py), whose state they read and change."""

from __future__ import annotations

from transitions import EventData

from devices.rules import Irregularity, Rule, RuleViolation
from games.common.holds import Kind
from games.common.machine_parts import BETTING, HELD, SETTLED, VOIDED, message_of
from games.common.messages import COVER_CARD, Arrival, describe
from games.common.pickup import Pickup
from games.common.records import RecordKind
from games.common.seating import clockwise
from games.over_under import clauses
from games.over_under.irregularities import EXTRA_CARD, classify_arrival
from games.over_under.machine import CLEARING, DEALING, DECIDING, DRAWING
from games.over_under.points import HAND_SIZE
from games.over_under.positions import Position, check_seat

#: The clause a card breaks when it arrives while no card is due, by state.
NOTHING_DUE = {
    BETTING: clauses.DEAL_AFTER_WAGERS,
    DEALING: clauses.FIRST_CARDS,
    DECIDING: clauses.DECIDE_AFTER_FIRST_CARDS,
    DRAWING: clauses.TWO_MORE_CARDS,
    CLEARING: clauses.SETTLE_THEN_NEXT,
    SETTLED: clauses.DISCARD_ORDER,
    VOIDED: clauses.DISCARD_ORDER,
    HELD: clauses.HELD,
}


class DealSteps:
    """Guards and callbacks of the wagers, the deal and every card arriving from the shoe."""

    def wager_is_valid(self, event: EventData) -> bool:
        message = message_of(event)
        check_seat(message.seat, self.rules.positions)
        if not message.ante:
            raise RuleViolation(clauses.ANTE_REQUIRED, f"seat {message.seat}: no Ante Wager placed")
        if message.bonus and self.rules.bonus_pay_table is None:
            raise RuleViolation(
                clauses.BONUS_POSTED, f"seat {message.seat}: this table posts no Bonus pay table"
            )
        return True

    def accept_wager(self, event: EventData) -> None:
        message = message_of(event)
        self.positions[message.seat] = Position(message.seat, message.ante, message.bonus)
        self.log.add(RecordKind.WAGER, seat=message.seat, wager="ante", amount=message.ante)
        if message.bonus:
            self.log.add(RecordKind.WAGER, seat=message.seat, wager="bonus", amount=message.bonus)

    def deal_may_start(self, event: EventData) -> bool:
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
            raise RuleViolation(clauses.DEAL_AFTER_WAGERS, "no Ante Wager has been placed")
        return True

    def begin_deal(self, event: EventData) -> None:
        seats = ",".join(map(str, clockwise(self.positions)))
        self.log.add(
            RecordKind.DEAL_STARTED, seats=seats, dealer=self.dealer, clause=clauses.DEAL_AFTER_WAGERS.clause
        )

    def arrival_is_irregular(self, event: EventData) -> bool:
        return self._classify(message_of(event).item) is not None

    def hold_arrival(self, event: EventData) -> None:
        item = message_of(event).item
        self._hold(*self._classify(item), items=[item])

    def set_aside_while_held(self, event: EventData) -> None:
        item = message_of(event).item
        self.hold.items.append(item)
        self._record_irregularity(
            *EXTRA_CARD(clauses.HELD, f"{describe(item)} arrived while the round is held")
        )

    def is_cover_card(self, event: EventData) -> bool:
        """686a.7(d): the cover card, out while a card is due, is set aside and the deal goes on."""
        return message_of(event).item is COVER_CARD

    def set_cover_card_aside(self, event: EventData) -> None:
        self._cover_card_aside()

    def completes_first_cards(self, event: EventData) -> bool:
        """686a.7(e), (f): the last Ante position's first card ends the deal; the decisions follow."""
        return self.expected.seat == clockwise(self.positions)[-1]

    def completes_hand(self, event: EventData) -> bool:
        """686a.7(i), (j): the second of the two more cards completes the Hand; settlement follows."""
        return len(self.positions[self.expected.seat].cards) == HAND_SIZE - 1

    def place_card(self, event: EventData) -> None:
        item: Arrival = message_of(event).item
        slot = self.expected
        self.positions[slot.seat].cards.append(item)
        if self.state == DEALING:
            self._dealt += 1
        self.log.add(
            RecordKind.CARD,
            place=slot.place,
            seat=slot.seat,
            card=str(item),
            face_up=True,
            clause=slot.rule.clause,
        )

    def note_new_dealer(self, event: EventData) -> None:
        self.dealer = message_of(event).dealer
        self.burn_due = True
        self.log.add(RecordKind.DEALER_CHANGE, dealer=self.dealer, clause=clauses.BURN_DUE.clause)

    def burn_is_done(self, event: EventData) -> bool:
        if message_of(event).shoe.burn_due:
            raise RuleViolation(clauses.BURN_DUE, "the shoe still reports a burn card due")
        return True

    def clear_burn(self, event: EventData) -> None:
        self.burn_due = False
        self.log.add(RecordKind.BURN_CONFIRMED, dealer=self.dealer, clause=clauses.BURN_DUE.clause)

    def _classify(self, item: Arrival) -> tuple[Kind, Irregularity] | None:
        return classify_arrival(item, self.expected, burn_due=self.burn_due, nothing_due=self._nothing_due())

    def _nothing_due(self) -> Rule:
        return NOTHING_DUE[self.state]

    def _cover_card_aside(self) -> None:
        self.reshuffle_required = True
        self.log.add(
            RecordKind.COVER_CARD,
            clause=clauses.COVER_CARD_SET_ASIDE.clause,
            collect=clauses.COLLECT_AFTER_COVER.clause,
            reshuffle=clauses.RESHUFFLE_AFTER_COVER.clause,
        )

    def _set_aside(self, item: Arrival, code: str) -> None:
        """A card held for a ruling goes to the discard rack after the round's Hands (the cover card
        to the side, 686a.7(d)); one dealt face down stays face down, known by its commitment."""
        if item is COVER_CARD:
            self._cover_card_aside()
            return
        pickup = Pickup.of(item, "set aside")
        self.set_aside.append(pickup)
        self.log.add(RecordKind.SET_ASIDE, card=pickup.card, commitment=pickup.commitment, code=code)
