"""The round's callbacks for the deal: wagers, the shoe's readiness, cards out of the shoe, a new
dealer (672a.7(a)-(e)). Mixed into Round (round.py), whose state they read and change; the steps
every shoe game takes alike (the shoe's readiness, the cover card, the burn) live
in games.common.shoe_steps."""

from __future__ import annotations

from typing import TYPE_CHECKING

from transitions import EventData

from games.common.machine_parts import BETTING, HELD, SETTLED, VOIDED, message_of
from games.common.messages import COVER_CARD, Arrival
from games.common.pickup import Pickup
from games.common.records import RecordKind
from games.common.shoe_steps import ShoeSteps
from games.free_bet_blackjack import clauses
from games.free_bet_blackjack.hand import is_ace, is_ten_value
from games.free_bet_blackjack.irregularities import missing_card
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
from games.free_bet_blackjack.round_state import RoundState
from games.free_bet_blackjack.settlement import Action
from vocabulary.cards import Card
from vocabulary.rules import Rule, RuleViolation

if TYPE_CHECKING:
    from games.free_bet_blackjack.inputs import PlaceWager
    from games.free_bet_blackjack.rules_config import RuleSet

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


class DealSteps(RoundState, ShoeSteps[Action]):
    """Guards and callbacks of the wagers, the deal and every card arriving from the shoe."""

    def wager_is_valid(self, event: EventData) -> bool:
        check_wager(message_of(event), self.rules)
        return True

    def accept_wager(self, event: EventData) -> None:
        message = message_of(event)
        self.positions[message.seat] = Position(message.seat, message.blackjack, message.push22)
        self._hands_changed()
        placed = [("blackjack", message.blackjack), *([("push22", message.push22)] if message.push22 else [])]
        self.log.place_wagers(
            message.seat,
            placed,
            (RecordKind.WAGER, RecordKind.WAGER_WITHDRAWN),
            clauses.WAGERS_REPLACED.clause,
        )

    def begin_deal(self, event: EventData) -> None:
        self._deal = deal_sequence(self.positions)
        super().begin_deal(event)

    def completes_deal(self, event: EventData) -> bool:
        """672a.7(e)(4): the hole card is the last card of the deal."""
        return self.state == DEALING and self._dealt == len(self._deal) - 1

    def dealer_shows_ace(self, event: EventData) -> bool:
        """672a.7(f): insurance and even money are offered on an ace, then the peek."""
        return self.dealer_up is not None and is_ace(self.dealer_up)

    def dealer_shows_ten(self, event: EventData) -> bool:
        """672a.7(g): a ten-value up card is peeked at once."""
        return self.dealer_up is not None and is_ten_value(self.dealer_up)

    def place_card(self, event: EventData) -> None:
        item: Arrival = message_of(event).item
        slot = self.expected
        assert slot is not None and item is not COVER_CARD, "the arrival guards place only a card due"
        if slot.seat is not None:
            assert isinstance(item, Card) and slot.hand is not None, "a player's card is dealt face up"
            hand = self.positions[slot.seat].hand(slot.hand)
            hand.cards += (item,)
            hand.awaiting = False
        elif not slot.face_up:
            assert not isinstance(item, Card), "the hole card arrives sealed"
            self.hole = item
        elif self.state == DEALING:
            assert isinstance(item, Card), "the up card arrives face up"
            self.dealer_up = item
        else:
            assert isinstance(item, Card), "the dealer's draws arrive face up"
            self.dealer_draws.append(item)
        if self.state == DEALING:
            self._dealt += 1
        pickup = Pickup.of(item, slot.place)
        self._record_card(
            place=slot.place,
            seat=slot.seat,
            hand=slot.hand,
            card=pickup.card,
            commitment=pickup.commitment,
            face_up=slot.face_up,
            clause=slot.rule.clause,
        )
        if self.state == PLAYER_TURNS:
            self._pay_blackjacks_reached()  # the card may finish the hand in turn (672a.7(h))
        elif self.state == DEALER_TURN:
            self._announce_dealer_total()

    def card_is_due(self, event: EventData) -> bool:
        return self.expected is not None

    def record_missing_card(self, event: EventData) -> None:
        slot = self.expected
        assert slot is not None, "card_is_due found one due"
        self._record_irregularity(*missing_card(slot, event.event.name))

    def _nothing_due(self) -> Rule:
        if self.state != DEALER_TURN:
            return NOTHING_DUE[self.state]
        if self.dealer_has_blackjack:
            return clauses.NO_CARDS_AFTER_DEALER_BLACKJACK
        if self.dealer_total.value >= 17:
            return clauses.DEALER_DRAWS_TO_17
        return clauses.NO_DRAW_WITHOUT_EFFECT


def check_wager(message: PlaceWager, rules: RuleSet) -> None:
    """A wager the table may take, whatever the round: a betting position, and a Blackjack Wager
    beside any Push 22 Wager (672a.2; 672a.7(e)(1)). The round's guard and the dealer's screen
    (before a wager begins a round) both ask it."""
    check_seat(message.seat, rules.positions)
    if not message.blackjack:
        raise RuleViolation(
            clauses.PUSH_22_NEEDS_BLACKJACK_WAGER, f"seat {message.seat}: no Blackjack Wager placed"
        )
