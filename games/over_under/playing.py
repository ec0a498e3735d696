"""The round's callbacks for play: every player's election in turn, before any additional card
(686a.7(f)-(h)); then each player's settlement and clearing in turn ((j)-(m): at Over/Under a player
is settled as play reaches them, not at the end). Mixed into Round (round.py)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import NoReturn

from transitions import EventData

from games.common.machine_parts import BETTING, SETTLED, message_of
from games.common.pickup import Pickup
from games.common.records import RecordKind, Value
from games.common.seating import clockwise
from games.over_under import clauses, settlement
from games.over_under.inputs import Choice
from games.over_under.machine import DEALING, DECIDING
from games.over_under.positions import Position
from games.over_under.round_state import RoundState
from games.registry import Staked
from vocabulary.rules import Rule, RuleViolation

#: The Over 23 and Under 18 Wagers, each equal to the Ante (686a.7(g)(1)-(2)).
EQUAL_TO_ANTE = {Choice.OVER_23: clauses.OVER_EQUALS_ANTE, Choice.UNDER_18: clauses.UNDER_EQUALS_ANTE}


class PlaySteps(RoundState):
    """Guards and callbacks of the elections and of each player's settlement and clearing."""

    def choice_is_valid(self, event: EventData) -> bool:
        message = message_of(event)
        position = self.positions.get(message.seat)
        if position is not None and position.choice is not None:
            self._refuse_second_election(position)
        position = self._turn_of(message.seat, clauses.DECISION_ORDER)
        rule = EQUAL_TO_ANTE.get(message.choice)
        if rule is not None and message.amount not in (None, position.ante):
            raise RuleViolation(
                rule,
                f"seat {message.seat}: {message.amount} cents is not the Ante Wager of {position.ante} cents",
            )
        return True

    def completes_elections(self, event: EventData) -> bool:
        """686a.7(f): the election of the last player clockwise completes the decisions; only then
        is any additional card dealt (686a.7(i))."""
        return self.in_turn.seat == clockwise(self.positions)[-1]

    def apply_choice(self, event: EventData) -> None:
        choice = message_of(event).choice
        position = self.in_turn
        position.choice = choice
        fields = dict(seat=position.seat, choice=choice.value, first_card=str(position.cards[0]))
        if choice is Choice.SURRENDER:
            self.log.add(RecordKind.DECISION, **fields, clause=clauses.SURRENDER_COLLECTS_ANTE.clause)
            self._record_actions([settlement.surrender(position)])
            if position.bonus:
                self.log.add(
                    RecordKind.WAGER,
                    seat=position.seat,
                    wager="bonus",
                    amount=position.bonus,
                    stays=True,
                    clause=clauses.SURRENDER_KEEPS_BONUS.clause,
                )
            return
        position.stake = position.ante
        self.log.add(
            RecordKind.DECISION, **fields, amount=position.stake, clause=EQUAL_TO_ANTE[choice].clause
        )

    def refuse_choice(self, event: EventData) -> bool:
        seat = message_of(event).seat
        if self.state in (BETTING, DEALING):
            raise RuleViolation(
                clauses.DECIDE_AFTER_FIRST_CARDS, f"seat {seat}: the first cards are not all dealt"
            )
        if seat not in self.positions:
            raise RuleViolation(clauses.DECISION_ORDER, f"seat {seat} has no Ante Wager in this round")
        if self.state == SETTLED:
            raise RuleViolation(
                clauses.ONE_ELECTION, f"seat {seat}: every player has elected and been settled"
            )
        self._refuse_second_election(self.positions[seat])

    def refuse_clear(self, event: EventData) -> bool:
        seat = message_of(event).seat
        current = self.current
        if current is None:
            raise RuleViolation(
                clauses.SETTLE_THEN_NEXT, f"seat {seat}: no Hand is settled and waiting for the rack"
            )
        if self.state == DECIDING:
            raise RuleViolation(
                clauses.DECIDE_AFTER_FIRST_CARDS,
                f"seat {seat}: no additional card is dealt until every player has elected "
                f"({current.label} is next)",
            )
        raise RuleViolation(
            clauses.TWO_MORE_CARDS,
            f"seat {seat}: {current.label} holds {len(current.cards)} card(s), not yet settled",
        )

    def settle_player(self, event: EventData) -> None:
        """686a.7(j): the Hand is complete: the player's wagers are settled at once by (k)-(m)."""
        position = self.in_turn
        position.settled = True
        self._record_actions(settlement.settle(position, self.rules))

    def hand_is_current(self, event: EventData) -> bool:
        self._turn_of(message_of(event).seat, clauses.SETTLE_THEN_NEXT)
        return True

    def players_remain(self, event: EventData) -> bool:
        """686a.7(j): the dealer moves to the next player, if one is left; else (n) follows."""
        current = self.current
        return any(not position.cleared for position in self.positions.values() if position is not current)

    def clear_player(self, event: EventData) -> None:
        position = self.in_turn
        pickups = [Pickup(position.label, str(card)) for card in position.cards]
        position.cleared = True
        self._record_pickups(pickups)

    def _refuse_second_election(self, position: Position) -> NoReturn:
        """686a.7(g): a player elects once."""
        assert position.choice is not None, "only an election made is refused again"
        raise RuleViolation(clauses.ONE_ELECTION, f"{position.label} has elected {position.choice.value}")

    def _turn_of(self, seat: int, rule: Rule) -> Position:
        """The position whose turn it is, if ``seat`` is it; else the clause that refuses it."""
        if seat not in self.positions:
            raise RuleViolation(rule, f"seat {seat} has no Ante Wager in this round")
        current = self.in_turn
        if current.seat != seat:
            raise RuleViolation(rule, f"it is {current.label}'s turn, not seat {seat}'s")
        return current


def staked(decision: Mapping[str, Value]) -> Staked | None:
    """The Over 23 or Under 18 Wager an election placed (686a.7(g)(1)-(2)); a surrender places none."""
    amount = decision.get("amount")
    return (str(decision["choice"]), None, amount) if isinstance(amount, int) else None
