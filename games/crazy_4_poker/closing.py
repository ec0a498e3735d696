"""The round's callbacks for its end: the settlement once the hands are known, the progressive
awards, the discard rack and a supervisor's ruling (657a.9(c), (f)). Mixed into Round (round.py)."""

from __future__ import annotations

from transitions import EventData

from games.common.closing import RulingAndPickup
from games.common.machine_parts import message_of
from games.common.movement import Movement
from games.crazy_4_poker import clauses, settlement
from games.crazy_4_poker.evaluator import Strength
from games.crazy_4_poker.inputs import DEALER, SIX_CARD, Place
from games.crazy_4_poker.irregularities import DISCARD_COUNT, HAND_UNREPORTED, ILLEGAL_RAISE
from games.crazy_4_poker.records import RecordKind
from games.crazy_4_poker.round_state import RoundState
from games.crazy_4_poker.settlement import Action, Wager
from vocabulary.rules import Irregularity, RuleViolation


def _named(place: Place) -> str:
    """A place as an irregularity's detail names it: ``seat 3``, the Six Card Bonus card."""
    if isinstance(place, int):
        return f"seat {place}"
    return "the Six Card Bonus card" if place == SIX_CARD else f"the {place}'s hand"


class CloseSteps(RoundState, RulingAndPickup[Action]):
    """Guards and callbacks from the showdown to the discard rack."""

    def dealer_hand_is_known(self, event: EventData) -> bool:
        if DEALER not in self.hands:
            raise RuleViolation(clauses.DEALER_HAND_KNOWN, "the dealer's hand is not known yet")
        return True

    @property
    def unreported(self) -> list[Place]:
        """The hands a wager is settled on that are not known yet (settlement.hands_needed)."""
        return [place for place in settlement.hands_needed(self.positions) if place not in self.hands]

    def hand_unreported(self, event: EventData) -> bool:
        """657a.1 (Hand); decision 0023: no wager is settled on a hand not known."""
        return bool(self.unreported)

    def hold_unreported(self, event: EventData) -> None:
        """Held, nothing settled, until the hands are reported (CONTINUE) or a supervisor voids."""
        detail = (
            f"{', '.join(map(_named, self.unreported))}: not reported; no wager is settled on a hand "
            "not known"
        )
        self._hold(HAND_UNREPORTED, Irregularity(clauses.LIVE_HAND_KNOWN, detail))

    def raise_is_illegal(self, event: EventData) -> bool:
        """Published game rules (not PA text): a Play above 1x needs a pair of aces or better."""
        return any(not settlement.legal_play(p, self.strength(p.seat)) for p in self.positions.values())

    def hold_raise(self, event: EventData) -> None:
        seats = [
            p.seat for p in self.positions.values() if not settlement.legal_play(p, self.strength(p.seat))
        ]
        self._hold(
            ILLEGAL_RAISE,
            Irregularity(clauses.RAISE_NEEDS_ACES, f"seats {seats} raised without a pair of aces or better"),
        )

    def settle_wagers(self, event: EventData) -> None:
        """Every wager of every position, from the dealer's right: the showdown wagers, the bonus
        wagers, then its progressive wager and the Envy Bonuses it earns (clauses.ENVY_BONUS), if the
        system accepted it at the lock (clauses.PROGRESSIVE_REFUSED)."""
        dealer = self.strength(DEALER)
        assert dealer is not None and not self.unreported, "the settle guards keep unknown hands out"
        held = [seat for seat, p in self.positions.items() if not p.folded]  # a fold gives up the hand
        players = {seat: strength for seat in held if (strength := self.strength(seat)) is not None}
        six = self.hands.get(SIX_CARD)
        actions = []
        for seat in sorted(self.positions, reverse=True):  # from the dealer's right
            position, hand = self.positions[seat], self.strength(seat)
            accepted = seat in self.accepted_seats
            actions += settlement.showdown(position, hand, dealer, self.rules)
            actions += settlement.progressive(position, accepted)
            actions += settlement.bonuses(position, self.hands.get(seat), six[0] if six else None, self.rules)
            actions += settlement.envy(position, accepted, players, self.rules)
            if accepted:
                self._award(seat, hand)
        self._record_actions(actions)
        self.layout_cards = len(self.deal)

    def _award(self, seat: int, hand: Strength | None) -> None:
        if not self.positions[seat].progressive or hand is None:
            return
        award = self.rules.progressive_pay_table.get(settlement.pay_line(hand))
        if award is not None:
            self.awards.append((seat, settlement.pay_line(hand), award))

    def record_award(self, event: EventData) -> None:
        """657a.1: an award is recorded when the progressive system has paid it, with what it paid
        and the hit it counted (605a.7(a)), so the trail and the controller's hit history agree;
        an answer for a seat with no award due, or paid already, is refused."""
        paid = message_of(event)
        due = [(hand, award) for seat, hand, award in self.awards if seat == paid.seat]
        if not due or paid.seat in self.awards_paid:
            raise RuleViolation(clauses.PROGRESSIVE_AWARD, f"seat {paid.seat} has no progressive award due")
        self.awards_paid.add(paid.seat)
        ((hand, award),) = due
        self.log.add(
            RecordKind.AWARD,
            seat=paid.seat,
            hand=hand,
            award=award,
            level=paid.level,
            amount=paid.amount,
            hit=paid.hit,
            clause=clauses.PROGRESSIVE_AWARD.clause,
        )

    def discard_count_is_wrong(self, event: EventData) -> bool:
        """657a.9(c); house convention (657a.11 not found): every card on the layout reaches the
        discard rack."""
        return bool(message_of(event).cards != self.layout_cards)

    def hold_discard(self, event: EventData) -> None:
        cards = message_of(event).cards
        detail = f"the discard rack received {cards} card(s); {self.layout_cards} were on the layout"
        self._hold(DISCARD_COUNT, Irregularity(clauses.DISCARD_COUNT, detail))

    def record_discard(self, event: EventData) -> None:
        self.log.add(RecordKind.DISCARD, cards=message_of(event).cards, clause=clauses.DISCARD_COUNT.clause)

    def void_round(self, event: EventData) -> None:
        """Every wager returned; a deck the shuffler's order showed holding a card twice leaves the
        table with the round (657a.9(f), as docs/conformance.md reads it)."""
        hold = self._resolve(event)
        self.deck_removed = hold.kind.removes_deck is not None
        self.layout_cards = len(self.dealt) + len(self.misplaced)
        self._record_actions([a for p in self.positions.values() for a in settlement.void(p, clauses.VOID)])

    def continue_round(self, event: EventData) -> None:
        hold = self._resolve(event)
        if hold.kind is ILLEGAL_RAISE:
            for p in self.positions.values():
                if not settlement.legal_play(p, self.strength(p.seat)):
                    self._record_actions(
                        [
                            settlement.Action(
                                p.seat, Wager.PLAY, Movement.PUSH, p.play - p.ante, clauses.RAISE_NEEDS_ACES
                            )
                        ]
                    )
                    p.play = p.ante
