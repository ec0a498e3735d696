"""The round's callbacks for the deal: wagers, the shoe's readiness, every card out of the shoe, a
new dealer (686a.7(a)-(e), (i)). Mixed into Round (round.py), whose state they read and change; the
steps every shoe game takes alike (the shoe's readiness, the cover card, the burn) live
in games.common.shoe_steps."""

from __future__ import annotations

from typing import TYPE_CHECKING

from transitions import EventData

from games.common.machine_parts import BETTING, HELD, SETTLED, VOIDED, message_of
from games.common.messages import Arrival
from games.common.records import RecordKind
from games.common.seating import clockwise
from games.common.shoe_steps import ShoeSteps
from games.over_under import clauses
from games.over_under.machine import CLEARING, DEALING, DECIDING, DRAWING
from games.over_under.points import HAND_SIZE
from games.over_under.positions import Position, Slot, check_seat
from games.over_under.round_state import RoundState
from games.over_under.settlement import Action
from vocabulary.cards import Card
from vocabulary.rules import Rule, RuleViolation

if TYPE_CHECKING:
    from games.over_under.inputs import PlaceWager
    from games.over_under.rules_config import RuleSet

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


class DealSteps(RoundState, ShoeSteps[Action]):
    """Guards and callbacks of the wagers, the deal and every card arriving from the shoe."""

    def wager_is_valid(self, event: EventData) -> bool:
        check_wager(message_of(event), self.rules)
        return True

    def accept_wager(self, event: EventData) -> None:
        message = message_of(event)
        self.positions[message.seat] = Position(message.seat, message.ante, message.bonus)
        placed = [("ante", message.ante), *([("bonus", message.bonus)] if message.bonus else [])]
        self.log.place_wagers(
            message.seat,
            placed,
            (RecordKind.WAGER, RecordKind.WAGER_WITHDRAWN),
            clauses.WAGERS_REPLACED.clause,
        )

    def completes_first_cards(self, event: EventData) -> bool:
        """686a.7(e), (f): the last Ante position's first card ends the deal; the decisions follow."""
        return self._due().seat == clockwise(self.positions)[-1]

    def completes_hand(self, event: EventData) -> bool:
        """686a.7(i), (j): the second of the two more cards completes the Hand; settlement follows."""
        return len(self.positions[self._due().seat].cards) == HAND_SIZE - 1

    def place_card(self, event: EventData) -> None:
        item: Arrival = message_of(event).item
        assert isinstance(item, Card), "every Over/Under card is dealt face up"
        slot = self._due()
        self.positions[slot.seat].cards.append(item)
        if self.state == DEALING:
            self._dealt += 1
        self._record_card(
            place=slot.place,
            seat=slot.seat,
            card=str(item),
            face_up=True,
            clause=slot.rule.clause,
        )

    def _due(self) -> Slot:
        """The card due, where a guard or callback of a card due asks (the machine calls them then)."""
        slot = self.expected
        assert slot is not None, "a card is due"
        return slot

    def _nothing_due(self) -> Rule:
        return NOTHING_DUE[self.state]


def check_wager(message: PlaceWager, rules: RuleSet) -> None:
    """A wager the table may take, whatever the round: a betting position, an Ante Wager, and a
    Bonus Wager only against a posted table. The round's guard and the dealer's screen (before a
    wager begins a round) both ask it."""
    check_seat(message.seat, rules.positions)
    if not message.ante:
        raise RuleViolation(clauses.ANTE_REQUIRED, f"seat {message.seat}: no Ante Wager placed")
    if message.bonus and rules.bonus_pay_table is None:
        raise RuleViolation(clauses.BONUS_POSTED, f"seat {message.seat}: this table posts no Bonus pay table")
