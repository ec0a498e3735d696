"""The round's callbacks for its end: settlement, the discard rack and a held round's ruling.
Mixed into Round (round.py)."""

from __future__ import annotations

from transitions import EventData

from devices.rules import RuleViolation
from games.common.holds import Hold
from games.common.machine_parts import message_of
from games.common.messages import Resolution
from games.common.pickup import Pickup
from games.heads_up_holdem import clauses, settlement
from games.heads_up_holdem.evaluator import best_five
from games.heads_up_holdem.irregularities import COLLECT_COUNT
from games.heads_up_holdem.records import RecordKind


class CloseSteps:
    """Guards and callbacks of settlement, the discard rack and a supervisor's ruling."""

    def hands_are_up(self, event: EventData) -> bool:
        live = [p for p in self.positions.values() if p.live]
        if self.to_act is not None:
            raise RuleViolation(clauses.SHOWDOWN_COMPLETE, f"seat {self.to_act} has not decided yet")
        waiting = [f"seat {p.seat}" for p in live if not p.faces]
        if live and not self.dealer_faces:
            waiting.append("dealer")
        if waiting:
            raise RuleViolation(clauses.SHOWDOWN_COMPLETE, f"not yet turned up: {', '.join(waiting)}")
        return True

    def settle_wagers(self, event: EventData) -> None:
        actions = []
        for position in self.positions.values():
            if position.folded:
                actions += settlement.fold(position.stakes)
                continue
            actions += settlement.showdown(
                position.stakes, position.faces, self.dealer_faces, self.community_faces, self.rules
            )
        for place, hole in [("dealer", self.dealer_faces)] + [
            (f"seat {p.seat}", p.faces) for p in self.positions.values() if p.live
        ]:
            if hole:
                value, five = best_five([*hole, *self.community_faces])
                self.log.add(RecordKind.HAND, place=place, hand=str(value), cards=" ".join(map(str, five)))
        self._record_actions(settlement.in_order(actions))

    def collect_count_is_wrong(self, event: EventData) -> bool:
        """NOTES.md §1: every card of the round on the layout must reach the discard rack."""
        return message_of(event).cards != len(self.pickup_order())

    def hold_collect(self, event: EventData) -> None:
        cards, dealt = message_of(event).cards, len(self.pickup_order())
        detail = f"the discard rack received {cards} card(s); the round put {dealt} on the layout"
        self._hold(*COLLECT_COUNT(clauses.COLLECT_COUNT, detail))

    def record_pickup(self, event: EventData) -> None:
        self._record_pickup()

    def void_round(self, event: EventData) -> None:
        self._resolve(event)
        voided = (a for p in self.positions.values() for a in settlement.void(p.stakes, clauses.VOID))
        self._record_actions(settlement.in_order(voided))

    def continue_round(self, event: EventData) -> None:
        hold = self._resolve(event)
        if hold.kind is COLLECT_COUNT:
            self._record_pickup()

    def _resolve(self, event: EventData) -> Hold:
        """Close the hold with the supervisor's ruling; the cards held go aside for the rack."""
        message, hold = message_of(event), self.hold
        self.log.add(
            RecordKind.RESOLUTION,
            code=hold.kind.code,
            resolution=message.resolution.value,
            supervisor=message.operator.ident,
            effect=hold.kind.on_continue if message.resolution is Resolution.CONTINUE else "round voided",
        )
        for item in hold.items:
            pickup = Pickup.of(item, "set aside")
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
            )
