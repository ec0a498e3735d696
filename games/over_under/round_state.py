"""What one round of Over/Under holds, and what it derives from it: the typed base every
step class of the round (dealing.py, playing.py, closing.py) extends, so each reads and
changes the round through declared attributes and methods. round.py combines the steps
into the Round the machine runs.
"""

from __future__ import annotations

from collections.abc import Iterable
from types import ModuleType
from typing import ClassVar

from games.common.holds import Hold
from games.common.pickup import Pickup
from games.common.records import RecordKind, RoundLog
from games.common.round_base import RoundBase
from games.common.seating import clockwise
from games.over_under import clauses, irregularities
from games.over_under.machine import CLEARING, DEALING, DECIDING, DRAWING, REFUSALS, shared_machine
from games.over_under.positions import Position, Slot
from games.over_under.rules_config import RuleSet
from games.over_under.settlement import Action


class RoundState(RoundBase[Action]):
    """The round's state and its helpers; the steps (round.py: the Round) change it."""

    shared_machine = staticmethod(shared_machine)
    clauses: ClassVar[ModuleType] = clauses  # the module: RoundBase cites its PROCEDURE_ORDER and HELD
    kinds = RecordKind
    irregularities = irregularities  # the module: ShoeSteps classifies arrivals by it
    first_wager = "Ante Wager"
    refusals = REFUSALS

    def __init__(self, number: int, *, rules: RuleSet, dealer: str, table: str = "table") -> None:
        self.number = number
        self.rules = rules
        self.dealer = dealer
        self.log = RoundLog(number, table, clauses.GAME_ID)
        self.positions: dict[int, Position] = {}
        self.burn_due = False  # a new dealer came to the table mid-round (686a.7(c))
        self.reshuffle_required = False  # the cover card came out (686a.7(d))
        self.actions: list[Action] = []  # every settlement action, in the order made
        self.set_aside: list[Pickup] = []
        self.hold: Hold | None = None
        self.pickup: list[Pickup] = []  # cards recorded into the discard rack, in order (686a.7(j), (n))
        self._dealt = 0
        # The player in turn as last found, with the state it was found in: every player before
        # it had elected (or been cleared) then and still has (an election or a clearing is never
        # undone), so it stays in turn until it has itself, and the search runs once per player,
        # not on each of the some 50 times a round asks (decision 0042).
        self._turn: tuple[str, Position] | None = None

    @property
    def current(self) -> Position | None:
        """The player being dealt with, clockwise from the dealer's left: while the players elect,
        the first who has not (686a.7(f)); then the first whose cards are not in the rack yet, whose
        two cards, settlement or clearing is awaited (686a.7(i), (j))."""
        state = self.state
        if state == DECIDING:
            waiting = _has_not_elected
        elif state in (DRAWING, CLEARING):
            waiting = _not_cleared
        else:
            return None
        turn = self._turn
        if turn is not None and turn[0] == state and waiting(turn[1]):
            return turn[1]
        found = next((position for position in self._clockwise() if waiting(position)), None)
        self._turn = None if found is None else (state, found)
        return found

    @property
    def in_turn(self) -> Position:
        """The current player, in the states that have one (where the machine calls for one)."""
        current = self.current
        assert current is not None, f"no player is in turn while the round is {self.state}"
        return current

    @property
    def expected(self) -> Slot | None:
        """The card due from the shoe next, or None when no card is due."""
        if self.state == DEALING:
            return Slot(clockwise(self.positions)[self._dealt], clauses.FIRST_CARDS)
        if self.state == DRAWING:
            return Slot(self.in_turn.seat, clauses.TWO_MORE_CARDS)
        return None

    def pickup_order(self) -> list[Pickup]:
        """Every card of the round in the order it goes to the discard rack (686a.7(j), (n)): each
        player's Hand as it was cleared, in the order dealt; then the Hands still on the layout
        (after a void), clockwise; last the cards set aside. The cover card goes to the side."""
        left = [
            Pickup(position.label, str(card))
            for seat in clockwise(self.positions)
            if not (position := self.positions[seat]).cleared
            for card in position.cards
        ]
        return [*self.pickup, *left, *self.set_aside]

    def _clockwise(self) -> list[Position]:
        return [self.positions[seat] for seat in clockwise(self.positions)]

    def _record_pickups(self, pickups: Iterable[Pickup]) -> None:
        for pickup in pickups:
            self.pickup.append(pickup)
            self.log.add(
                RecordKind.PICKUP,
                order=len(self.pickup),
                place=pickup.place,
                card=pickup.card,
                commitment=pickup.commitment,
                clause=clauses.DISCARD_ORDER.clause,
            )

    def _record_actions(self, actions: Iterable[Action]) -> None:  # type: ignore[override]  # records the Hand's total
        for action in actions:
            self.actions.append(action)
            self.log.add(
                RecordKind.SETTLEMENT,
                seat=action.seat,
                wager=action.wager.value,
                movement=action.movement.value,
                amount=action.amount,
                net=action.net,
                total=action.total,
                clause=action.rule.clause,
            )


def _has_not_elected(position: Position) -> bool:
    return position.choice is None


def _not_cleared(position: Position) -> bool:
    return not position.cleared
