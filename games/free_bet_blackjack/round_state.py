"""What one round of Free Bet Blackjack holds, and what it derives from it: the typed base every
step class of the round (dealing.py, playing.py, closing.py) extends, so each reads and
changes the round through declared attributes and methods. round.py combines the steps
into the Round the machine runs.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator
from types import ModuleType
from typing import ClassVar

from games.common.holds import Hold
from games.common.pickup import Pickup
from games.common.records import RecordKind, RoundLog
from games.common.round_base import RoundBase
from games.common.seating import clockwise
from games.free_bet_blackjack import clauses, decisions, discard, irregularities
from games.free_bet_blackjack.decisions import Stake
from games.free_bet_blackjack.hand import Total, total
from games.free_bet_blackjack.inputs import PlayerAction
from games.free_bet_blackjack.layout import Slot
from games.free_bet_blackjack.machine import DEALER_TURN, DEALING, PLAYER_TURNS, REFUSALS, shared_machine
from games.free_bet_blackjack.positions import Hand, Position, any_live, outcome_open
from games.free_bet_blackjack.rules_config import RuleSet
from games.free_bet_blackjack.settlement import Action
from vocabulary.cards import Card, SealedCard
from vocabulary.rules import Rule, RuleViolation

#: The shoe's check that ``card`` is the card sealed in ``sealed`` (devices/shoe.py provides it).
Verify = Callable[[SealedCard, Card], bool]


class RoundState(RoundBase[Action]):
    """The round's state and its helpers; the steps (round.py: the Round) change it."""

    shared_machine = staticmethod(shared_machine)
    clauses: ClassVar[ModuleType] = clauses  # the module: RoundBase cites its PROCEDURE_ORDER and HELD
    kinds = RecordKind
    irregularities = irregularities  # the module: ShoeSteps classifies arrivals by it
    first_wager = "Blackjack Wager"
    refusals = REFUSALS

    def __init__(
        self, number: int, *, rules: RuleSet, verify: Verify, dealer: str, table: str = "table"
    ) -> None:
        self.number = number
        self.rules = rules
        self.dealer = dealer
        self.log = RoundLog(number, table, clauses.GAME_ID)
        self.positions: dict[int, Position] = {}
        self.dealer_up: Card | None = None
        self.hole: SealedCard | None = None
        self.hole_face: Card | None = None  # known from 672a.7(k) on
        self.dealer_draws: list[Card] = []
        self.peek: bool | None = None  # the card reader's answer, if asked
        self.dealer_has_blackjack = False  # the reader said so and the hole card bore it out
        self.burn_due = False  # a new dealer came to the table mid-round (672a.7(c))
        self.reshuffle_required = False  # the cover card came out (672a.7(d))
        self.actions: list[Action] = []  # every settlement action, in the order made
        self.removed: list[Hand] = []  # hands whose cards went to the rack early (672a.7(h)(1))
        self.set_aside: list[Pickup] = []
        self.hold: Hold | None = None
        self.pickup: tuple[Pickup, ...] = ()
        self._verify = verify
        self._verified: tuple[Card, bool] | None = None
        self._deal: tuple[Slot, ...] = ()
        self._dealt = 0
        # The hand in turn as last found: every hand before it was done then and still is (a hand
        # never becomes undone; a split's new hand goes after the hand split), so it stays the hand
        # in turn until it is done itself, and the search runs once per hand, not once per message,
        # going on from it rather than from the first seat.
        self._turn: Hand | None = None
        # The hand the dealer's last pass over the Blackjacks stopped at (PlaySteps), for the same reason.
        self._reached: Hand | None = None
        self._order: list[Hand] | None = None  # the play order as last listed (_hands_in_play_order)

    @property
    def expected(self) -> Slot | None:
        """The card due from the shoe next, or None when no card is due."""
        if self.state == DEALING:
            return self._deal[self._dealt]
        if self.state == PLAYER_TURNS:
            hand = self.current_hand
            if hand is not None and hand.card_due:
                return _decision_card(hand.seat, hand.number)
        if self.state == DEALER_TURN and self._dealer_must_draw():
            live = any_live(self.positions.values())
            return Slot(None, None, True, clauses.DEALER_DRAWS_TO_17 if live else clauses.DRAW_FOR_PUSH_22)
        return None

    @property
    def current_hand(self) -> Hand | None:
        """The hand whose decision (or card) is awaited, clockwise from the dealer's left (672a.7(h))."""
        if self.state != PLAYER_TURNS:
            return None
        turn = self._turn
        if turn is None or turn.done:
            turn = self._turn = next((hand for hand in self._hands_from(turn) if not hand.done), None)
        return turn

    def legal_decisions(self) -> dict[PlayerAction, Stake | None]:
        hand = self.current_hand
        if hand is None or hand.card_due:
            return {}
        return decisions.legal(hand, self.positions[hand.seat], self.rules)

    @property
    def dealer_cards(self) -> list[Card]:
        """The dealer's cards seen face up so far, in the order dealt."""
        seen = [self.dealer_up] if self.dealer_up else []
        return seen + ([self.hole_face] if self.hole_face else []) + self.dealer_draws

    @property
    def dealer_total(self) -> Total:
        return total(self.dealer_cards)

    def _dealer_must_draw(self) -> bool:
        """672a.7(l): to 17, standing on all 17s; (m): not when no outcome can change, unless Push 22
        Wagers are on the table."""
        if self.dealer_has_blackjack or self.dealer_total.value >= 17:
            return False
        return outcome_open(self.positions.values())

    def _hands_in_play_order(self) -> list[Hand]:
        """Every hand, clockwise, each position's in the order played. Listed again only when the
        hands change, which is only by a position placed (``accept_wager``) or a hand split
        (``apply_decision``), each of which drops the list (``_hands_changed``): the round walks
        the hands some 200 times a round, and sorting the seats for each walk was some 3 % of a math
        round (decision 0042)."""
        order = self._order
        if order is None:
            positions = self.positions
            order = self._order = [hand for seat in clockwise(positions) for hand in positions[seat].hands]
        return order

    def _hands_changed(self) -> None:
        """A position placed or a hand split: the play order is listed again when next read."""
        self._order = None

    def _hands_from(self, start: Hand | None) -> Iterator[Hand]:
        """The hands in play order from ``start`` on (all of them for None): a search that stopped at
        a hand goes on from there, the hands before it passed by without a look."""
        hands = iter(self._hands_in_play_order())
        if start is not None:
            for hand in hands:
                if hand is start:
                    yield hand
                    break
        yield from hands

    def _position(self, seat: int, rule: Rule) -> Position:
        try:
            return self.positions[seat]
        except KeyError:
            raise RuleViolation(rule, f"seat {seat} has no Blackjack Wager in this round") from None

    def _record_actions(self, actions: list[Action], order: Rule) -> None:  # type: ignore[override]  # cites the order
        for action in actions:
            self.actions.append(action)
            self.log.add(
                RecordKind.SETTLEMENT,
                seat=action.seat,
                hand=action.hand,
                wager=action.wager.value,
                movement=action.movement.value,
                amount=action.amount,
                net=action.net,
                clause=action.rule.clause,
                order=order.clause,
            )

    # Declared here, done in playing.py: a card dealt or a ruling may need them too.
    def _pay_blackjacks_reached(self) -> None:
        """Pay each Blackjack the dealer's turn has reached (PlaySteps)."""
        raise NotImplementedError

    def _turn_up(self, card: Card) -> None:
        """Take the hole card turned up (PlaySteps)."""
        raise NotImplementedError

    def _announce_dealer_total(self) -> None:
        dealer = self.dealer_total
        self.log.add(
            RecordKind.DEALER_TOTAL,
            total=dealer.value,
            soft=dealer.soft,
            clause=clauses.DEALER_DRAWS_TO_17.clause,
        )

    def pickup_order(self) -> list[Pickup]:
        """Every card of the round in the order it goes to the discard rack (672a.7(s))."""
        dealer = [Pickup("dealer", str(card)) for card in ([self.dealer_up] if self.dealer_up else [])]
        if self.hole is not None:
            dealer.append(
                Pickup("dealer", str(self.hole_face)) if self.hole_face else Pickup.of(self.hole, "dealer")
            )
        dealer += [Pickup("dealer", str(card)) for card in self.dealer_draws]
        return discard.pickup_order(self.removed, self.positions, dealer, self.set_aside)


@functools.cache
def _decision_card(seat: int, hand: int) -> Slot:
    """The slot of a card a hand's decision calls for (672a.7(j)): one per hand, made once, as the
    round asks for the card due some three times a card (decision 0042)."""
    return Slot(seat, hand, True, clauses.CARDS_FOR_DECISION)
