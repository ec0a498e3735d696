"""The round's callbacks for its end: settlement, the discard rack and a held round's ruling.
Mixed into Round (round.py)."""

from __future__ import annotations

from transitions import EventData

from games.common.closing import RulingAndPickup
from games.common.machine_parts import message_of
from games.common.poker_hands import best_five
from games.heads_up_holdem import clauses, settlement
from games.heads_up_holdem.irregularities import COLLECT_COUNT
from games.heads_up_holdem.records import RecordKind
from games.heads_up_holdem.round_state import RoundState
from games.heads_up_holdem.settlement import Action
from vocabulary.rules import RuleViolation


class CloseSteps(RoundState, RulingAndPickup[Action]):
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
        """House convention: every card of the round on the layout must reach the discard rack."""
        return bool(message_of(event).cards != len(self.pickup_order()))

    def hold_collect(self, event: EventData) -> None:
        cards, dealt = message_of(event).cards, len(self.pickup_order())
        detail = f"the discard rack received {cards} card(s); the round put {dealt} on the layout"
        self._hold(*COLLECT_COUNT(clauses.COLLECT_COUNT, detail))

    def record_pickup(self, event: EventData) -> None:
        self._record_pickup()

    def void_round(self, event: EventData) -> None:
        """Every wager returned; a deck shown not to be one deck (a joker, a card twice) leaves the
        table with the round (677a.10(f), as docs/conformance.md reads it)."""
        hold = self._resolve(event)
        self.deck_removed = hold.kind.removes_deck is not None
        voided = (a for p in self.positions.values() for a in settlement.void(p.stakes, clauses.VOID))
        self._record_actions(settlement.in_order(voided))

    def continue_round(self, event: EventData) -> None:
        hold = self._resolve(event)
        if hold.kind is COLLECT_COUNT:
            self._record_pickup()
