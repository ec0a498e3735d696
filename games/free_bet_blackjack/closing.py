"""The round's callbacks for its end: settlement, the discard rack, and a held round's ruling
(672a.7(n)-(s)). Mixed into Round (round.py)."""

from __future__ import annotations

from transitions import EventData

from games.common.holds import Hold
from games.common.machine_parts import message_of
from games.common.messages import COVER_CARD, Resolution
from games.common.pickup import SET_ASIDE, Pickup
from games.common.records import RecordKind
from games.free_bet_blackjack import clauses, settlement
from games.free_bet_blackjack.irregularities import DISCARD_COUNT
from games.free_bet_blackjack.settlement import Action


class CloseSteps:
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
        return message_of(event).cards != len(self.pickup_order())

    def hold_discard(self, event: EventData) -> None:
        cards, dealt = message_of(event).cards, len(self.pickup_order())
        detail = f"the discard rack received {cards} card(s); the round put {dealt} on the layout"
        self._hold(*DISCARD_COUNT(clauses.DISCARD_COUNT, detail))

    def record_pickup(self, event: EventData) -> None:
        self._record_pickup()

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
            self._record_pickup()

    def _settle(self, actions: list[Action]) -> None:
        order = self.rules.settlement_order
        self._record_actions(settlement.in_order(actions, order), order.procedure)

    def _resolve(self, event: EventData) -> Hold:
        """Close the hold with the supervisor's ruling; the cards held go aside (the cover card to
        the side, any other card to the discard rack)."""
        message, hold = message_of(event), self.hold
        self.log.add(
            RecordKind.RESOLUTION,
            code=hold.kind.code,
            resolution=message.resolution.value,
            supervisor=message.operator.ident,
            effect=hold.kind.on_continue if message.resolution is Resolution.CONTINUE else "round voided",
        )
        for item in hold.items:
            if item is COVER_CARD:
                self._cover_card_aside()
                continue
            pickup = Pickup.of(item, SET_ASIDE)
            self.set_aside.append(pickup)
            self.log.add(
                RecordKind.SET_ASIDE, card=pickup.card, commitment=pickup.commitment, code=hold.kind.code
            )
        self.hold = None
        return hold

    def _record_pickup(self) -> None:
        self.pickup = tuple(self.pickup_order())
        for number, pickup in enumerate(self.pickup, start=1):
            self.log.add(
                RecordKind.PICKUP,
                order=number,
                place=pickup.place,
                card=pickup.card,
                commitment=pickup.commitment,
                clause=clauses.DISCARD_ORDER.clause,
            )
