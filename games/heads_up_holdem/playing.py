"""The round's callbacks for play: the decisions street by street, the community cards turned up
between them, and the hands turned up at the showdown (published game rules, not PA text; 677a.10(g)
for the reveal of community cards dispensed first). Mixed into Round (round.py)."""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Mapping, Sequence

from transitions import EventData

from games.common.machine_parts import message_of
from games.common.records import Value
from games.heads_up_holdem import clauses
from games.heads_up_holdem.inputs import Arrival, Choice, Verify
from games.heads_up_holdem.irregularities import DUPLICATE_CARD, JOKER, REVEAL_MISMATCH
from games.heads_up_holdem.machine import FLOP, PREFLOP, RIVER
from games.heads_up_holdem.positions import Position
from games.heads_up_holdem.records import RecordKind
from games.heads_up_holdem.round_state import RoundState
from games.registry import Staked
from vocabulary.cards import Card, repeats
from vocabulary.rules import RuleViolation

STREET_RULES = {PREFLOP: clauses.PLAY_PREFLOP, FLOP: clauses.PLAY_FLOP, RIVER: clauses.PLAY_RIVER}
#: How many community cards each reveal turns up, by the state it is made in.
REVEALS = {PREFLOP: slice(0, 3), FLOP: slice(3, 5)}


class PlaySteps(RoundState):
    """Guards and callbacks from the first decision to the showdown."""

    def decision_is_legal(self, event: EventData) -> bool:
        decision, street = message_of(event), self.state
        position = self._position(decision.seat)
        if position.folded or position.played:
            raise RuleViolation(clauses.ONE_PLAY, f"seat {decision.seat} has already played or folded")
        if self.to_act != decision.seat:
            raise RuleViolation(
                clauses.DECISION_ORDER, f"seat {self.to_act} decides before seat {decision.seat}"
            )
        rule = STREET_RULES[street]
        if decision.choice is Choice.PLAY and decision.multiple not in self.rules.multiples(street):
            allowed = " or ".join(f"{m}x" for m in self.rules.multiples(street))
            raise RuleViolation(
                rule, f"seat {decision.seat}: Play {allowed} the Ante here, not {decision.multiple}x"
            )
        if decision.choice not in choices_on(street):
            raise RuleViolation(rule, f"seat {decision.seat} may not {decision.choice.value} on the {street}")
        return True

    def apply_decision(self, event: EventData) -> None:
        decision, street = message_of(event), self.state
        position = self.positions[decision.seat]
        position.decided.add(street)
        play = decision.multiple * position.stakes.ante
        if decision.choice is Choice.PLAY:
            position.stakes = dataclasses.replace(position.stakes, play=play)
        if decision.choice is Choice.FOLD:
            position.folded = True
            self.folded_order.append(decision.seat)
        self.log.add(
            RecordKind.DECISION,
            seat=decision.seat,
            street=street,
            choice=decision.choice.value,
            play=play,
            clause=STREET_RULES[street].clause,
        )

    # -- community cards ---------------------------------------------------------------------------
    def community_may_turn_up(self, event: EventData) -> bool:
        wanted = REVEALS[self.state]
        cards = message_of(event).cards
        if self.to_act is not None:
            raise RuleViolation(clauses.REVEAL_AFTER_DECISIONS, f"seat {self.to_act} has not decided yet")
        if len(cards) != wanted.stop - wanted.start:
            raise RuleViolation(
                clauses.REVEAL_AFTER_DECISIONS,
                f"{wanted.stop - wanted.start} community cards are turned up now, not {len(cards)}",
            )
        return True

    def community_mismatches(self, event: EventData) -> bool:
        """Published game rules (not PA text): a community card turned up must open the commitment it
        was dealt under; one that does not holds the round (reveal-mismatch), and so does a joker
        (603a.15), which no face-down delivery could show before, and a card already turned up in
        the round (duplicate-card): one deck holds each card once."""
        cards = message_of(event).cards
        sealed = self.community[REVEALS[self.state]]
        return _has_joker(cards) or bool(self._twice(cards)) or _ordered(sealed, cards, self._verify) is None

    def turn_up_community(self, event: EventData) -> None:
        sealed = self.community[REVEALS[self.state]]
        faces = _ordered(sealed, message_of(event).cards, self._verify)
        assert faces is not None, "community_mismatches found them to open the commitments"
        self.community_faces.extend(faces)
        self._record_reveal("community", sealed, faces)

    # -- the showdown ------------------------------------------------------------------------------
    def hand_may_turn_up(self, event: EventData) -> bool:
        seat = message_of(event).seat
        if self.to_act is not None:
            raise RuleViolation(clauses.REVEAL_AFTER_DECISIONS, f"seat {self.to_act} has not decided yet")
        if seat is not None and self._position(seat).folded:
            raise RuleViolation(clauses.FOLDED_UNEXPOSED, f"seat {seat} folded: its cards stay face down")
        if self.dealer_faces if seat is None else self.positions[seat].faces:
            raise RuleViolation(clauses.PROCEDURE_ORDER, f"{_place(seat)}'s cards are already turned up")
        return True

    def hand_mismatches(self, event: EventData) -> bool:
        """Published game rules (not PA text): a hand turned up must open the commitments of its stack;
        one that does not holds the round (reveal-mismatch), and so does a joker (603a.15) and a
        card already turned up in the round (duplicate-card)."""
        message = message_of(event)
        return (
            _has_joker(message.cards)
            or bool(self._twice(message.cards))
            or _ordered(self._stack_of(message.seat), message.cards, self._verify) is None
        )

    def turn_up_hand(self, event: EventData) -> None:
        message = message_of(event)
        stack = self._stack_of(message.seat)
        faces = _ordered(stack, message.cards, self._verify)
        assert faces is not None, "hand_mismatches found them to open the commitments"
        if message.seat is None:
            self.dealer_faces = faces
        else:
            self.positions[message.seat].faces = faces
        self._record_reveal(_place(message.seat), stack, faces)

    def hold_reveal(self, event: EventData) -> None:
        cards = message_of(event).cards
        shown = ", ".join(map(str, cards))
        if _has_joker(cards):
            self._hold(*JOKER(clauses.NO_JOKERS, f"a joker turned up among {shown}"))
        elif twice := self._twice(cards):
            again = ", ".join(map(str, twice))
            self._hold(*DUPLICATE_CARD(clauses.ONE_DECK, f"{again} turned up twice in the round ({shown})"))
        else:
            self._hold(*REVEAL_MISMATCH(clauses.REVEAL_MATCHES, f"{shown} do not open the commitments dealt"))

    def _twice(self, cards: tuple[Card, ...]) -> list[Card]:
        """The faces of ``cards`` already turned up in the round, or shown twice among them. Each
        card could open its own commitment and the deck still not be one deck: a shoe or its host
        that proves a card it read before (a foreign card, a face kept too long); settling on them
        would rank a hand of seven cards with one twice."""
        shown = [face for position in self.positions.values() for face in position.faces]
        return [cards[at] for at in repeats(cards, [*self.community_faces, *self.dealer_faces, *shown])]

    def _stack_of(self, seat: int | None) -> tuple[Arrival, ...]:
        return self.dealer_stack if seat is None else self.positions[seat].stack

    def _position(self, seat: int) -> Position:
        try:
            return self.positions[seat]
        except KeyError:
            raise RuleViolation(
                clauses.POSITIONS, f"seat {seat} has no Ante and Odds Wagers in this round"
            ) from None

    def _record_reveal(self, place: str, sealed: Sequence[Arrival], faces: tuple[Card, ...]) -> None:
        for item, face in zip(sealed, faces, strict=True):
            assert not isinstance(item, Card), "a card turned up was dealt face down"
            self.log.add(RecordKind.REVEALED, place=place, card=str(face), commitment=item.commitment.hex())


def _place(seat: int | None) -> str:
    return "dealer" if seat is None else f"seat {seat}"


def _ordered(sealed: Sequence[Arrival], shown: tuple[Card, ...], verify: Verify) -> tuple[Card, ...] | None:
    """``shown`` in the order of the ``sealed`` cards each opens, or None if they do not open them
    one to one (the dealer may turn the cards up in any order)."""
    if len(sealed) != len(shown):
        return None
    for faces in itertools.permutations(shown):
        if all(
            not isinstance(item, Card) and verify(item, face)
            for item, face in zip(sealed, faces, strict=True)
        ):
            return faces
    return None


def _has_joker(cards: tuple[Card, ...]) -> bool:
    return any(card.is_joker for card in cards)


def choices_on(street: str) -> frozenset[Choice]:
    """What a player may do on ``street`` (published game rules): Play or check before the river, Play or
    fold at it. The guard and the dealer's screen both ask here."""
    return frozenset({Choice.PLAY, Choice.FOLD} if street == RIVER else {Choice.PLAY, Choice.CHECK})


def staked(decision: Mapping[str, Value]) -> Staked | None:
    """The Play Wager a Play decision placed (once a round); a check or a fold places none."""
    play = decision.get("play")
    if decision.get("choice") != Choice.PLAY.value or not isinstance(play, int) or play <= 0:
        return None
    return ("play", None, play)
