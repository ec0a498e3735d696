"""The round's callbacks for its end: the rack's count (686a.7(n), (o)) and a held round's ruling.
Mixed into Round (round.py)."""

from __future__ import annotations

from transitions import EventData

from games.common.closing import RulingAndPickup
from games.common.machine_parts import message_of
from games.common.seating import clockwise
from games.over_under import clauses, settlement
from games.over_under.irregularities import DISCARD_COUNT
from games.over_under.round_state import RoundState
from games.over_under.settlement import Action


class CloseSteps(RoundState, RulingAndPickup[Action]):
    """Guards and callbacks of the discard rack and a supervisor's ruling."""

    def discard_count_is_wrong(self, event: EventData) -> bool:
        """686a.7(n), 686a.7(o): every card of the round must reach the rack; none may go missing."""
        return bool(message_of(event).cards != len(self.pickup_order()))

    def hold_discard(self, event: EventData) -> None:
        cards, dealt = message_of(event).cards, len(self.pickup_order())
        detail = f"the discard rack received {cards} card(s) this round; the round put {dealt} there"
        self._hold(*DISCARD_COUNT(clauses.DISCARD_COUNT, detail))

    def record_pickup(self, event: EventData) -> None:
        self._record_pickups(self.pickup_order()[len(self.pickup) :])

    def void_round(self, event: EventData) -> None:
        self._resolve(event)
        for seat in clockwise(self.positions):
            position = self.positions[seat]
            self._record_actions(settlement.void(position))
            position.settled = True

    def continue_round(self, event: EventData) -> None:
        hold = self._resolve(event)
        if hold.kind is DISCARD_COUNT:
            self.record_pickup(event)
