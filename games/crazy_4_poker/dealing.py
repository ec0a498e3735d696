"""The round's callbacks up to the stub: wagers, the shuffler's report, the dealer's hand, the
progressive lock, the deal from the hand and the stub (657a.9(a)-(f)). Mixed into Round."""

from __future__ import annotations

from typing import TYPE_CHECKING

from transitions import EventData

from games.common.machine_parts import message_of
from games.crazy_4_poker import clauses, settlement
from games.crazy_4_poker.inputs import DEALER, SIX_CARD, Place
from games.crazy_4_poker.irregularities import (
    DEAL_OUT_OF_ORDER,
    MISDEAL,
    PROGRESSIVE_MISMATCH,
    PROGRESSIVE_NOT_KEYED,
    WRONG_DECK,
)
from games.crazy_4_poker.records import RecordKind
from games.crazy_4_poker.round_state import DECK, RoundState
from games.crazy_4_poker.rules_config import Shuffler
from games.crazy_4_poker.settlement import Position
from vocabulary.rules import Irregularity, RuleViolation

if TYPE_CHECKING:
    from games.crazy_4_poker.inputs import PlaceWagers
    from games.crazy_4_poker.rules_config import RuleSet

FIVE = 5


def deal_sequence(seats: list[int], six_card: bool) -> tuple[Place, ...]:
    """657a.9(b): the Six Card Bonus card first if any such wager, then one card at a time
    clockwise from the player farthest to the dealer's left (seat 1), the dealer last, five times."""
    return ((SIX_CARD,) if six_card else ()) + tuple([*sorted(seats), DEALER] * FIVE)


class DealSteps(RoundState):
    """Guards and callbacks from the wagers to the stub."""

    def wagers_are_valid(self, event: EventData) -> bool:
        check_wager(message_of(event), self.rules)
        return True

    def accept_wagers(self, event: EventData) -> None:
        m = message_of(event)
        position = Position(
            m.seat, m.ante, m.super_bonus, m.queens_up, m.progressive, m.five_card_bonus, m.six_card_bonus
        )
        self.positions[m.seat] = position
        placed = [(wager.value, amount) for wager, amount in position.wagers().items()]
        self.log.place_wagers(
            m.seat, placed, (RecordKind.WAGER, RecordKind.WAGER_WITHDRAWN), clauses.WAGERS_REPLACED.clause
        )

    def shuffle_is_good(self, event: EventData) -> bool:
        count = message_of(event).count
        if self.rules.shuffler is Shuffler.COUNTING and count != DECK:
            raise RuleViolation(
                clauses.COUNTING_SHUFFLER, f"the counting shuffler reports {count} cards, not {DECK}"
            )
        return True

    def note_shuffle(self, event: EventData) -> None:
        m = message_of(event)
        self.shuffle = m
        sealed = m.order.commitment.hex() if m.order is not None else None
        self.log.add(
            RecordKind.SHUFFLE, count=m.count, order_commitment=sealed, clause=clauses.SHUFFLED_DECK.clause
        )

    def hand_is_kept(self, event: EventData) -> bool:
        hand = message_of(event).hand
        if self.deck_hand is not None and hand is not self.deck_hand:
            raise RuleViolation(
                clauses.ONE_HAND, f"the deck is held in the {self.deck_hand.value} hand this round"
            )
        return True

    def note_hand(self, event: EventData) -> None:
        if self.deck_hand is None:
            self.deck_hand = message_of(event).hand
            self.log.add(RecordKind.DECK_HAND, hand=self.deck_hand.value, clause=clauses.HAND_CHOSEN.clause)

    def deal_may_start(self, event: EventData) -> bool:
        if self.shuffle is None:
            raise RuleViolation(
                clauses.SHUFFLED_DECK, "the automated shuffler has not reported this round's deck"
            )
        if not self.positions:
            raise RuleViolation(clauses.REQUIRED_WAGERS, "no position holds the required wagers")
        return True

    def progressive_offered(self, event: EventData) -> bool:
        """657a.9(a)(3): the lock is needed where Progressive or Five Card Hand Bonus
        Wagers are offered."""
        return self.rules.progressive_offered or self.rules.five_card_bonus_offered

    def close_betting(self, event: EventData) -> None:
        six = any(p.six_card_bonus for p in self.positions.values())
        self.deal = deal_sequence(list(self.positions), six)
        self.log.add(
            RecordKind.NO_MORE_BETS,
            seats=",".join(map(str, sorted(self.positions))),
            clause=clauses.NO_MORE_BETS.clause,
        )

    def chips_to_count(self, event: EventData) -> bool:
        """657a.9(a)(3): chips are counted when any progressive wager was made."""
        return message_of(event).accepted > 0 or any(p.progressive for p in self.positions.values())

    def note_lock(self, event: EventData) -> None:
        locked = message_of(event)
        self.accepted_seats = locked.seats
        self.log.add(
            RecordKind.PROGRESSIVE_LOCKED,
            accepted=self.accepted,
            seats=",".join(map(str, locked.seats)),
            clause=clauses.PROGRESSIVE_LOCK.clause,
        )

    def chips_mismatch(self, event: EventData) -> bool:
        """657a.9(a)(3); decision 0008: a mismatch calls a supervisor: the chips counted against the
        wagers the system accepted, and those wagers against the ones the round holds."""
        return bool(message_of(event).chips != self.accepted or self._accepted_not_keyed())

    def _accepted_not_keyed(self) -> list[int]:
        """The seats whose Progressive Payout Wager the system accepted with none keyed there."""
        return [
            seat
            for seat in self.accepted_seats
            if seat not in self.positions or not self.positions[seat].progressive
        ]

    def hold_chip_count(self, event: EventData) -> None:
        """The count is recorded as for a match, then the round waits for a supervisor. A wager the
        system accepted where none was keyed holds it first, whatever the count: counted, collected
        and metered, it is a wager the round would neither settle nor pay an award on, so the round
        is not dealt (VOID only); otherwise the supervisor reconciles the chips with the system's
        count."""
        self.note_chip_count(event)
        chips = message_of(event).chips
        counted = f"the dealer counted {chips} value chip(s); the progressive system accepted {self.accepted}"
        if unkeyed := self._accepted_not_keyed():
            seats = ", ".join(map(str, unkeyed))
            detail = f"{counted}, at seat(s) {seats} a Progressive Payout Wager where none was keyed"
            self._hold(PROGRESSIVE_NOT_KEYED, Irregularity(clauses.PROGRESSIVE_COUNT, detail))
            return
        self._hold(PROGRESSIVE_MISMATCH, Irregularity(clauses.PROGRESSIVE_COUNT, counted))

    def note_chip_count(self, event: EventData) -> None:
        chips = message_of(event).chips
        self.log.add(
            RecordKind.CHIP_COUNT,
            chips=chips,
            accepted=self.accepted,
            clause=clauses.PROGRESSIVE_COUNT.clause,
        )

    def deck_in_chosen_hand(self, event: EventData) -> bool:
        if self.deck_hand is None:
            raise RuleViolation(clauses.HAND_CHOSEN, "the dealer has not said which hand holds the deck")
        return True

    def card_out_of_order(self, event: EventData) -> bool:
        return bool(message_of(event).place != self.expected)

    def hold_card(self, event: EventData) -> None:
        place = message_of(event).place
        rule = clauses.SIX_CARD_FIRST if SIX_CARD in (place, self.expected) else clauses.DEAL_ORDER
        self.misplaced.append(place)
        self._hold(
            DEAL_OUT_OF_ORDER, Irregularity(rule, f"a card went to {place!r} where {self.expected!r} is due")
        )

    def completes_deal(self, event: EventData) -> bool:
        """657a.9(b): until each player and the dealer have five cards."""
        return len(self.dealt) == len(self.deal) - 1

    def place_card(self, event: EventData) -> None:
        place = message_of(event).place
        self.dealt.append(place)
        rule = clauses.SIX_CARD_FIRST if place == SIX_CARD else clauses.DEAL_ORDER
        self.log.add(  # source: dealt from the dealer's hand (657a.9(b)), as every game's card records say
            RecordKind.CARD,
            place=place,
            source="hand",
            order=len(self.dealt),
            face_up=False,
            clause=rule.clause,
        )
        if len(self.dealt) == len(self.deal):  # five each: the deal is over, the stub is what is left
            self.log.add(RecordKind.STUB, cards=None, to="dealer's hand", clause=clauses.FIVE_EACH.clause)

    def stub_count_not_due(self, event: EventData) -> bool:
        if self.stub_count_due:
            raise RuleViolation(
                clauses.STUB_COUNT_DUE, "four rounds have passed without a stub count: count it now"
            )
        return True

    def stub_away(self, event: EventData) -> None:
        self.log.add(RecordKind.STUB, cards=None, to="discard rack", clause=clauses.STUB_TO_RACK.clause)

    def stub_count_is_wrong(self, event: EventData) -> bool:
        return bool(message_of(event).cards != self.stub_size)

    def stub_counted_right(self, event: EventData) -> None:
        self.stub_counted = True
        self.log.add(
            RecordKind.STUB,
            cards=message_of(event).cards,
            to="discard rack",
            clause=clauses.STUB_COUNT_RIGHT.clause,
        )

    def note_wrong_count(self, event: EventData) -> None:
        self.stub_counted = True
        self.stub_cards = message_of(event).cards
        self.log.add(
            RecordKind.STUB,
            cards=self.stub_cards,
            expected=self.stub_size,
            to="layout",
            clause=clauses.HANDS_COUNTED.clause,
        )

    def counts_cover_hands(self, event: EventData) -> bool:
        missing = set(self.deal) - set(message_of(event).counts)
        if missing:
            raise RuleViolation(
                clauses.HANDS_COUNTED, f"count every place dealt to; missing {sorted(map(str, missing))}"
            )
        return True

    def void_for_count(self, event: EventData) -> None:
        """657a.9(f): misdealt ("a player or the dealer has more or less than 5 cards") with 52 cards
        present: void; otherwise void and remove the deck. The Six Card Bonus card's area is neither
        a player nor the dealer: a wrong number of cards there alone is no misdeal (clauses.READINGS)."""
        counts = message_of(event).counts
        misdealt = any(counts[place] != FIVE for place in set(self.deal) if place != SIX_CARD)
        present = sum(counts.values()) + self.stub_cards
        self.deck_removed = not (misdealt and present == DECK)
        kind, rule = (
            (WRONG_DECK, clauses.DECK_REMOVED) if self.deck_removed else (MISDEAL, clauses.MISDEAL_VOID)
        )
        detail = f"stub {self.stub_cards} (expected {self.stub_size}); {present} cards; misdealt: {misdealt}"
        self._record_irregularity(kind, Irregularity(rule, detail))
        self.layout_cards = sum(counts.values())
        self._record_actions([a for p in self.positions.values() for a in settlement.void(p, rule)])


def check_wager(m: PlaceWagers, rules: RuleSet) -> None:
    """The wagers the table may take, whatever the round: a betting position, equal Ante and Super
    Bonus Wagers, and an optional wager only where the table offers it. The round's guard and the
    dealer's screen (before a wager begins a round) both ask it."""
    if not 1 <= m.seat <= rules.positions:
        raise RuleViolation(
            clauses.SIX_POSITIONS,
            f"seat {m.seat} is not a betting position (1 to {rules.positions})",
        )
    if not m.ante or m.ante != m.super_bonus:
        raise RuleViolation(
            clauses.REQUIRED_WAGERS,
            f"seat {m.seat}: Ante {m.ante} and Super Bonus {m.super_bonus} must be equal and placed",
        )
    offered = {
        "progressive": rules.progressive_offered,
        "five_card_bonus": rules.five_card_bonus_offered,
        "six_card_bonus": rules.six_card_bonus_offered,
    }
    for name, on in offered.items():
        if getattr(m, name) and not on:
            raise RuleViolation(
                clauses.OPTIONAL_WAGER_OFFERED, f"seat {m.seat}: this table offers no {name} wager"
            )
