"""The round's callbacks for play: insurance and even money, the peek, the players' decisions and
the hole card turned up (672a.7(f)-(k)). Mixed into Round (round.py)."""

from __future__ import annotations

from collections.abc import Mapping

from transitions import EventData

from games.common.closing import RulingAndPickup
from games.common.holds import Kind
from games.common.machine_parts import message_of
from games.common.records import RecordKind, Value
from games.free_bet_blackjack import clauses, decisions, settlement
from games.free_bet_blackjack.decisions import Stake
from games.free_bet_blackjack.discard import hand_pickup
from games.free_bet_blackjack.hand import is_ace, is_blackjack
from games.free_bet_blackjack.inputs import PlayerAction
from games.free_bet_blackjack.irregularities import (
    HOLE_CARD_MISMATCH,
    PEEK_FALSE_BLACKJACK,
    PEEK_MISSED_BLACKJACK,
)
from games.free_bet_blackjack.machine import DEALING
from games.free_bet_blackjack.positions import Hand, Position
from games.free_bet_blackjack.round_state import RoundState
from games.free_bet_blackjack.settlement import Action, WagerKind
from games.registry import Staked
from vocabulary.cards import Card
from vocabulary.rules import Irregularity, RuleViolation


class PlaySteps(RoundState, RulingAndPickup[Action]):
    """Guards and callbacks from the insurance offer to the hole card turned up."""

    def insurance_is_valid(self, event: EventData) -> bool:
        message = message_of(event)
        decisions.check_insurance(self._position(message.seat, clauses.INSURANCE_ON_ACE), message.amount)
        return True

    def accept_insurance(self, event: EventData) -> None:
        message = message_of(event)
        self.positions[message.seat].insurance = message.amount
        self.log.add(RecordKind.WAGER, seat=message.seat, wager="insurance", amount=message.amount)

    def even_money_is_valid(self, event: EventData) -> bool:
        decisions.check_even_money(self._position(message_of(event).seat, clauses.EVEN_MONEY))
        return True

    def pay_even_money(self, event: EventData) -> None:
        position = self.positions[message_of(event).seat]
        position.even_money = True
        self._settle_early(position, settlement.even_money_payment(position, self.rules))

    def refuse_insurance(self, event: EventData) -> bool:
        if self.state == DEALING:
            why = "is offered once every second card is dealt"
        elif self.dealer_up is not None and is_ace(self.dealer_up):
            why = "has closed"
        else:
            why = f"is not offered: the dealer's first card is {self.dealer_up}"
        raise RuleViolation(clauses.INSURANCE_ON_ACE, f"{event.event.name}: insurance {why}")

    def reader_says_blackjack(self, event: EventData) -> bool:
        """672a.7(g): on the reader's yes no card is dealt; the hole card is turned up."""
        return bool(message_of(event).dealer_blackjack)

    def note_peek(self, event: EventData) -> None:
        self.peek = message_of(event).dealer_blackjack
        self.log.add(RecordKind.PEEK, dealer_blackjack=self.peek, clause=clauses.PEEK.clause)

    def pay_blackjacks(self, event: EventData) -> None:
        """672a.7(h)(1): the players' turns begin; the Blackjacks the dealer reaches before the first
        hand that decides are paid now."""
        self._pay_blackjacks_reached()

    def _pay_blackjacks_reached(self) -> None:
        """672a.7(h): the dealer goes clockwise from the player farthest to the dealer's left and
        stops at the first hand still to decide; each Blackjack on the way is announced and paid
        then, (h)(1), so no Blackjack is paid before every earlier seat has finished deciding.
        The dealer goes on from the hand the last pass stopped at: every hand before it was done and
        held no unpaid Blackjack then, and stays so, so passing them again would change nothing."""
        for hand in self._hands_from(self._reached):
            if hand.blackjack and not hand.paid:
                position = self.positions[hand.seat]
                self._settle_early(position, settlement.blackjack_payment(position, self.rules))
            elif not hand.done:
                self._reached = hand
                return

    def decision_is_legal(self, event: EventData) -> bool:
        message = message_of(event)
        hand = self._hand_for(message.seat)
        decisions.check(message.action, hand, self.positions[hand.seat], self.rules)
        return True

    def apply_decision(self, event: EventData) -> None:
        action = message_of(event).action
        hand = self.current_hand
        assert hand is not None, "decision_is_legal found the hand in turn"
        position = self.positions[hand.seat]
        stake = decisions.check(action, hand, position, self.rules)
        fields = dict(seat=hand.seat, hand=hand.number, action=action.value, total=str(hand.total))
        new = decisions.apply(action, stake, hand, position)
        if new is not None:
            self._hands_changed()
            fields.update(new_hand=new.number, moved=str(new.cards[0]))
        if stake is not None:
            fields.update(stake=stake.value, amount=position.blackjack)
        self.log.add(RecordKind.DECISION, **fields, clause=clauses.PLAYER_DECISIONS.clause)
        self._pay_blackjacks_reached()  # a hand finished: the dealer moves on (672a.7(h))

    def refuse_surrender(self, event: EventData) -> bool:
        raise RuleViolation(clauses.NO_SURRENDER, f"seat {message_of(event).seat} asked to surrender")

    def decisions_are_done(self, event: EventData) -> bool:
        hand = self.current_hand
        if hand is not None:
            raise RuleViolation(clauses.HOLE_AFTER_DECISIONS, f"{hand.label} has not finished its decisions")
        return True

    def reveal_is_irregular(self, event: EventData) -> bool:
        return self._reveal_problem(message_of(event).card) is not None

    def hold_reveal(self, event: EventData) -> None:
        card = message_of(event).card
        problem = self._reveal_problem(card)
        assert problem is not None, "reveal_is_irregular found the problem"
        self._hold(*problem, shown=card)

    def turn_hole_card_up(self, event: EventData) -> None:
        self._turn_up(message_of(event).card)

    def _hand_for(self, seat: int) -> Hand:
        """The hand a decision from ``seat`` applies to, or the clause that refuses it."""
        position = self._position(seat, clauses.PLAY_ORDER)
        current = self.current_hand
        if current is not None and current.seat == seat:
            if current.card_due:
                raise RuleViolation(clauses.CARDS_FOR_DECISION, f"{current.label} is waiting for its card")
            return current
        if all(hand.done for hand in position.hands):
            last = position.hands[-1]
            raise RuleViolation(decisions.finished_rule(last), f"{last.label} is finished with {last.total}")
        assert current is not None, "a hand is in turn while some hand is not done"
        raise RuleViolation(clauses.PLAY_ORDER, f"it is {current.label}'s turn, not seat {seat}'s")

    def _settle_early(self, position: Position, action: Action) -> None:
        """A Blackjack (paid in turn) or even money paid before the showdown; its cards leave the
        layout unless a Push 22 Wager is waiting for the dealer's hand (672a.7(h)(1): tucked under it)."""
        hand = position.dealt_hand
        hand.paid = True
        self._record_actions([action], action.rule)
        if not position.push22:
            hand.removed = True
            self.removed.append(hand)
            self._pick_up(hand_pickup(hand), clause=clauses.DISCARD_ORDER.clause)

    def _reveal_problem(self, card: Card) -> tuple[Kind, Irregularity] | None:
        assert self.dealer_up is not None, "the hole card is turned up after the deal"
        if not self._opens(card):  # first: a card other than the one dealt says nothing of the reader
            return HOLE_CARD_MISMATCH(
                clauses.HOLE_CARD_MATCHES, f"{card} was turned up but is not the card dealt face down"
            )
        gives_blackjack = is_blackjack([self.dealer_up, card])
        if self.peek is True and not gives_blackjack:
            return PEEK_FALSE_BLACKJACK(
                clauses.PEEK_CONSISTENT, f"the reader said Blackjack but the hole card turned up is {card}"
            )
        if self.peek is False and gives_blackjack:
            return PEEK_MISSED_BLACKJACK(
                clauses.PEEK_CONSISTENT, f"the reader said no Blackjack but the hole card turned up is {card}"
            )
        return None

    def _opens(self, card: Card) -> bool:
        """The verify callback, asked once per card shown (guard and callback share the answer)."""
        assert self.hole is not None, "the hole card was dealt"
        if self._verified is None or self._verified[0] != card:
            self._verified = (card, bool(self._verify(self.hole, card)))
        return self._verified[1]

    def _turn_up(self, card: Card) -> None:
        assert self.hole is not None, "the hole card was dealt"
        self.hole_face = card
        self.dealer_has_blackjack = self.peek is True
        self.log.add(
            RecordKind.HOLE_REVEALED,
            card=str(card),
            commitment=self.hole.commitment.hex(),
            clause=clauses.HOLE_AFTER_DECISIONS.clause,
        )
        self._announce_dealer_total()


def staked(decision: Mapping[str, Value]) -> Staked | None:
    """The player's own money a double down or split placed: a paid one adds a Blackjack Wager to
    the hand doubled, or to the new hand split off; a free one is the house's lammer."""
    amount = decision.get("amount")
    if decision.get("stake") != Stake.PAID.value or not isinstance(amount, int):
        return None
    split = decision.get("action") == PlayerAction.SPLIT.value
    hand = decision.get("new_hand") if split else decision.get("hand")
    return (WagerKind.BLACKJACK.value, hand if isinstance(hand, int) else None, amount)
