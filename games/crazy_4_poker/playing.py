"""The round's callbacks for play: each player's Play or fold, and the hands made known, by the
shuffler's order or the dealer's report (657a.9(a)(1)). Mixed into Round (round.py)."""

from __future__ import annotations

from collections.abc import Mapping

from transitions import EventData

from games.common.machine_parts import message_of
from games.common.records import Value
from games.crazy_4_poker import clauses
from games.crazy_4_poker.evaluator import best_four
from games.crazy_4_poker.inputs import DEALER, Place
from games.crazy_4_poker.irregularities import DUPLICATE_CARD
from games.crazy_4_poker.records import RecordKind
from games.crazy_4_poker.round_state import RoundState
from games.crazy_4_poker.settlement import Position
from games.registry import Staked
from vocabulary.cards import Card, repeats
from vocabulary.rules import Irregularity, RuleViolation

SHUFFLER_ORDER = "shuffler order"
DEALER_REPORT = "dealer report"


class PlaySteps(RoundState):
    """Guards and callbacks of the decisions and the hands made known."""

    def _decider(self, seat: int) -> Position:
        position = self.positions.get(seat)
        if position is None:
            raise RuleViolation(clauses.PLAY_OR_FOLD, f"seat {seat} has no hand in this round")
        if position.decided:
            raise RuleViolation(clauses.PLAY_OR_FOLD, f"seat {seat} has already decided")
        return position

    def play_is_valid(self, event: EventData) -> bool:
        m = message_of(event)
        self._decider(m.seat)
        if m.multiple > self.rules.max_play_multiple:
            raise RuleViolation(
                clauses.PLAY_OR_FOLD,
                f"Play is 1x to {self.rules.max_play_multiple}x the Ante, not {m.multiple}x",
            )
        return True

    def fold_is_valid(self, event: EventData) -> bool:
        self._decider(message_of(event).seat)
        return True

    def last_decision(self, event: EventData) -> bool:
        """Published game rules (not PA text): the showdown follows every player's Play or fold."""
        return sum(not p.decided for p in self.positions.values()) == 1

    def record_decision(self, event: EventData) -> None:
        m = message_of(event)
        position = self.positions[m.seat]
        position.decided = True
        position.play = position.ante * m.multiple if m.trigger == "play" else 0
        self.log.add(
            RecordKind.DECISION,
            seat=m.seat,
            decision=m.trigger,
            play=position.play,
            clause=clauses.PLAY_OR_FOLD.clause,
        )

    def order_opens(self, event: EventData) -> bool:
        cards = message_of(event).cards
        order = None if self.shuffle is None else self.shuffle.order
        if order is None:
            raise RuleViolation(
                clauses.HAND_KNOWN,
                "the shuffler sealed no order for this round: the dealer reports the hands",
            )
        if self.hands or len(cards) < len(self.deal) or not self._verify_order(order, cards):
            raise RuleViolation(clauses.ORDER_OPENS, "the order revealed does not open the shuffler's seal")
        return True

    def card_twice(self, event: EventData) -> bool:
        """Published game rules: a round is dealt from one 52-card deck; an order that holds a card
        twice shows a deck that is not one, whatever it opens."""
        return bool(repeats(message_of(event).cards))

    def hold_card_twice(self, event: EventData) -> None:
        """Held, no hand known nor wager settled, until a supervisor voids the round (and the deck
        goes: 657a.9(f), as docs/conformance.md reads it). The detail names the places in the order,
        never the face: the stub's cards are never turned up."""
        cards = message_of(event).cards
        twice = "; ".join(f"{cards.index(cards[at]) + 1} and {at + 1}" for at in repeats(cards))
        detail = f"the shuffler's order holds a card twice (places {twice} of {len(cards)})"
        self._hold(DUPLICATE_CARD, Irregularity(clauses.ONE_DECK, detail))

    def reconstruct_hands(self, event: EventData) -> None:
        """Card i of the shuffled order went to the i-th place of the enforced deal order (657a.9(b))."""
        hands: dict[Place, list[Card]] = {}
        for card, place in zip(message_of(event).cards, self.deal, strict=False):  # one pass, not one a place
            hands.setdefault(place, []).append(card)
        for place, dealt in hands.items():
            self._know(place, tuple(dealt), SHUFFLER_ORDER)

    def report_is_valid(self, event: EventData) -> bool:
        m = message_of(event)
        if self.shuffle is not None and self.shuffle.order is not None:
            raise RuleViolation(clauses.HAND_KNOWN, "the hands are known from the shuffler's order")
        if m.place not in self.deal or m.place in self.hands:
            raise RuleViolation(
                clauses.HAND_KNOWN, f"{m.place!r} is no hand of this round, or is reported already"
            )
        seen = {card for hand in self.hands.values() for card in hand}
        if seen & set(m.cards):
            raise RuleViolation(clauses.HAND_KNOWN, "a card reported is already in another hand")
        return True

    def accept_report(self, event: EventData) -> None:
        m = message_of(event)
        self._know(m.place, m.cards, DEALER_REPORT)

    def _know(self, place: Place, cards: tuple[Card, ...], how: str) -> None:
        self.hands[place] = cards
        self.known_by[place] = how
        fields = dict(
            place=place, cards=" ".join(map(str, cards)), known_by=how, clause=clauses.HAND_KNOWN.clause
        )
        if place in self.positions or place == DEALER:
            strength, four = best_four(cards)
            fields.update(best=" ".join(map(str, four)), rank=str(strength), ranked=clauses.BEST_FOUR.clause)
        self.log.add(RecordKind.HAND, **fields)


def staked(decision: Mapping[str, Value]) -> Staked | None:
    """The Play Wager a Play decision placed; a fold places none."""
    play = decision.get("play")
    return ("play", None, play) if isinstance(play, int) and play > 0 else None
