"""The round's callbacks for its end: settlement, the discard rack, and a held round's ruling
(672a.7(n)-(s)). Mixed into Round (round.py)."""

from __future__ import annotations

from transitions import EventData

from games.common.closing import RulingAndPickup
from games.common.machine_parts import message_of
from games.free_bet_blackjack import clauses, settlement
from games.free_bet_blackjack.irregularities import DISCARD_COUNT
from games.free_bet_blackjack.round_state import RoundState
from games.free_bet_blackjack.settlement import Action


class CloseSteps(RoundState, RulingAndPickup[Action]):
    """Guards and callbacks of settlement, the discard rack and a supervisor's ruling."""

    def settle_wagers(self, event: EventData) -> None:
        if self.dealer_has_blackjack:
            actions = [
                a
                for seat in self.positions
                for a in settlement.against_dealer_blackjack(self.positions[seat], self.rules)
            ]
        else:
            actions = [
                a
                for seat in self.positions
                for a in settlement.showdown(self.positions[seat], self.dealer_cards, self.rules)
            ]
        self._settle(actions)

    def discard_count_is_wrong(self, event: EventData) -> bool:
        """672a.7(s), 672a.7(t): every card of the round must reach the rack; none may go missing."""
        return bool(message_of(event).cards != len(self.pickup_order()))

    def hold_discard(self, event: EventData) -> None:
        cards, dealt = message_of(event).cards, len(self.pickup_order())
        detail = f"the discard rack received {cards} card(s); the round put {dealt} on the layout"
        self._hold(*DISCARD_COUNT(clauses.DISCARD_COUNT, detail))

    def record_pickup(self, event: EventData) -> None:
        self._record_pickup(clause=clauses.DISCARD_ORDER.clause)

    def void_round(self, event: EventData) -> None:
        hold = self._resolve(event)
        if hold.shown is not None:  # the card turned up goes to the rack face up
            self.hole_face = hold.shown
        self._settle([a for position in self.positions.values() for a in settlement.void(position)])

    def continue_round(self, event: EventData) -> None:
        hold = self._resolve(event)
        if hold.shown is not None:
            self._turn_up(hold.shown)
        if hold.kind is DISCARD_COUNT:
            self._record_pickup(clause=clauses.DISCARD_ORDER.clause)

    def _settle(self, actions: list[Action]) -> None:
        order = self.rules.settlement_order
        self._record_actions(settlement.in_order(actions, order), order.procedure)
