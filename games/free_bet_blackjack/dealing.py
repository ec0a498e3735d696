"""The round's callbacks for the deal: wagers, the shoe's readiness, cards out of the shoe, a new
dealer (672a.7(a)-(e)). Mixed into Round (round.py), whose state they read and change."""

from __future__ import annotations

from transitions import EventData

from devices.rules import Irregularity, Rule, RuleViolation
from games.common.holds import Kind
from games.common.machine_parts import BETTING, HELD, SETTLED, VOIDED, message_of
from games.common.messages import COVER_CARD, Arrival, describe
from games.common.pickup import Pickup
from games.common.records import RecordKind
from games.common.seating import clockwise
from games.free_bet_blackjack import clauses
from games.free_bet_blackjack.hand import is_ace, is_ten_value
from games.free_bet_blackjack.irregularities import EXTRA_CARD, classify_arrival, missing_card
from games.free_bet_blackjack.layout import check_seat, deal_sequence
from games.free_bet_blackjack.machine import (
    DEALER_BLACKJACK,
    DEALER_TURN,
    DEALING,
    INSURANCE,
    PEEKING,
    PLAYER_TURNS,
)
from games.free_bet_blackjack.positions import Position

#: The clause a card breaks when it arrives while no card is due, by state (the dealer's turn has
#: its own; while dealing a card is always due).
NOTHING_DUE = {
    BETTING: clauses.DEAL_AFTER_WAGERS,
    DEALING: clauses.DEAL_AFTER_WAGERS,
    INSURANCE: clauses.INSURANCE_ON_ACE,
    PEEKING: clauses.PEEK,
    DEALER_BLACKJACK: clauses.NO_CARDS_AFTER_DEALER_BLACKJACK,
    PLAYER_TURNS: clauses.CARDS_FOR_DECISION,
    SETTLED: clauses.DISCARD_ORDER,
    VOIDED: clauses.DISCARD_ORDER,
    HELD: clauses.HELD,
}


class DealSteps:
    """Guards and callbacks of the wagers, the deal and every card arriving from the shoe."""

    def wager_is_valid(self, event: EventData) -> bool:
        message = message_of(event)
        check_seat(message.seat, self.rules.positions)
        if not message.blackjack:
            raise RuleViolation(
                clauses.PUSH_22_NEEDS_BLACKJACK_WAGER, f"seat {message.seat}: no Blackjack Wager placed"
            )
        return True

    def accept_wager(self, event: EventData) -> None:
        message = message_of(event)
        self.positions[message.seat] = Position(message.seat, message.blackjack, message.push22)
        self.log.add(RecordKind.WAGER, seat=message.seat, wager="blackjack", amount=message.blackjack)
        if message.push22:
            self.log.add(RecordKind.WAGER, seat=message.seat, wager="push22", amount=message.push22)

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
            raise RuleViolation(clauses.DEAL_AFTER_WAGERS, "no Blackjack Wager has been placed")
        return True

    def begin_deal(self, event: EventData) -> None:
        self._deal = deal_sequence(self.positions)
        seats = ",".join(map(str, clockwise(self.positions)))
        self.log.add(
            RecordKind.DEAL_STARTED, seats=seats, dealer=self.dealer, clause=clauses.DEAL_AFTER_WAGERS.clause
        )

    def arrival_is_irregular(self, event: EventData) -> bool:
        return self._classify(message_of(event).item) is not None

    def hold_arrival(self, event: EventData) -> None:
        item = message_of(event).item
        kind, irregularity = self._classify(item)
        self._hold(kind, irregularity, items=[item])

    def set_aside_while_held(self, event: EventData) -> None:
        item = message_of(event).item
        self.hold.items.append(item)
        self._record_irregularity(
            *EXTRA_CARD(clauses.HELD, f"{describe(item)} arrived while the round is held")
        )

    def is_cover_card(self, event: EventData) -> bool:
        """672a.7(d): the cover card, out while a card is due, is set aside and the deal goes on."""
        return message_of(event).item is COVER_CARD

    def set_cover_card_aside(self, event: EventData) -> None:
        self._cover_card_aside()

    def completes_deal(self, event: EventData) -> bool:
        """672a.7(e)(4): the hole card is the last card of the deal."""
        return self.state == DEALING and self._dealt == len(self._deal) - 1

    def dealer_shows_ace(self, event: EventData) -> bool:
        """672a.7(f): insurance and even money are offered on an ace, then the peek."""
        return is_ace(self.dealer_up)

    def dealer_shows_ten(self, event: EventData) -> bool:
        """672a.7(g): a ten-value up card is peeked at once."""
        return is_ten_value(self.dealer_up)

    def place_card(self, event: EventData) -> None:
        item: Arrival = message_of(event).item
        slot = self.expected
        if slot.seat is not None:
            hand = self.positions[slot.seat].hand(slot.hand)
            hand.cards.append(item)
            hand.awaiting = False
        elif not slot.face_up:
            self.hole = item
        elif self.state == DEALING:
            self.dealer_up = item
        else:
            self.dealer_draws.append(item)
        if self.state == DEALING:
            self._dealt += 1
        pickup = Pickup.of(item, slot.place)
        self.log.add(
            RecordKind.CARD,
            place=slot.place,
            seat=slot.seat,
            hand=slot.hand,
            card=pickup.card,
            commitment=pickup.commitment,
            face_up=slot.face_up,
            clause=slot.rule.clause,
        )
        if self.state == DEALER_TURN:
            self._announce_dealer_total()

    def card_is_due(self, event: EventData) -> bool:
        return self.expected is not None

    def record_missing_card(self, event: EventData) -> None:
        self._record_irregularity(*missing_card(self.expected, event.event.name))

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
        if self.state != DEALER_TURN:
            return NOTHING_DUE[self.state]
        if self.dealer_has_blackjack:
            return clauses.NO_CARDS_AFTER_DEALER_BLACKJACK
        if self.dealer_total.value >= 17:
            return clauses.DEALER_DRAWS_TO_17
        return clauses.NO_DRAW_WITHOUT_EFFECT

    def _cover_card_aside(self) -> None:
        self.reshuffle_required = True
        self.log.add(
            RecordKind.COVER_CARD,
            clause=clauses.COVER_CARD_SET_ASIDE.clause,
            collect=clauses.COLLECT_AFTER_COVER.clause,
            reshuffle=clauses.RESHUFFLE_AFTER_COVER.clause,
        )
