"""The round's callbacks for the deal: wagers, "no more bets", the stacks, the stub out of the shoe,
the community cards from the hand, the stub's count, and the misdeal finding (677a.10(a)-(g)).
Mixed into Round (round.py)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from transitions import EventData

from games.common.holds import Kind
from games.common.machine_parts import BETTING, message_of
from games.common.messages import describe
from games.common.pickup import Pickup
from games.common.seating import clockwise
from games.heads_up_holdem import clauses, settlement
from games.heads_up_holdem.inputs import Arrival, DeckReport
from games.heads_up_holdem.irregularities import EXTRA_CARDS, WRONG_COUNT, classify
from games.heads_up_holdem.machine import DEALING, DELIVERIES
from games.heads_up_holdem.positions import Due, Position
from games.heads_up_holdem.records import RecordKind
from games.heads_up_holdem.round_state import RoundState
from games.heads_up_holdem.settlement import Stakes
from vocabulary.rules import Irregularity, Rule, RuleViolation

if TYPE_CHECKING:
    from games.heads_up_holdem.inputs import PlaceWager
    from games.heads_up_holdem.rules_config import RuleSet

DECK = 52  # 677a.10(e): the deck holds 52 cards
COMMUNITY_CARDS = 5



def counted_wrong(deck: DeckReport) -> bool:
    """Whether a count of the deck was made and found other than 52 (677a.10(d); clauses.SHUFFLER_COUNT:
    such a deck is removed and not dealt): the round refuses it, and the table removes it."""
    return deck.shuffler_count is not None and deck.shuffler_count != DECK

class DealSteps(RoundState):
    """Guards and callbacks from the wagers to the first decision."""

    def wager_is_valid(self, event: EventData) -> bool:
        check_wager(message_of(event), self.rules)
        return True

    def accept_wager(self, event: EventData) -> None:
        m = message_of(event)
        self.positions[m.seat] = Position(Stakes(m.seat, m.ante, m.odds, m.trips_plus, m.pocket_bonus))
        placed = [(wager.value, amount) for wager, amount in self.positions[m.seat].stakes.placed()]
        self.log.place_wagers(
            m.seat, placed, (RecordKind.WAGER, RecordKind.WAGER_WITHDRAWN), clauses.WAGERS_REPLACED.clause
        )

    def deal_may_start(self, event: EventData) -> bool:
        deck = message_of(event).deck
        if not deck.in_shoe:
            raise RuleViolation(
                clauses.CARDS_IN_SHOE, "the shuffled and cut cards are not in the dealing shoe"
            )
        if deck.community_first and not deck.auto_reshuffle:
            raise RuleViolation(
                clauses.COMMUNITY_FIRST, "the shoe does not reshuffle the cards automatically"
            )
        if deck.community_first and deck.shuffler_count is None:
            raise RuleViolation(clauses.KEPT_STUB_COUNTED, "the shoe keeps the stub but reported no count")
        if counted_wrong(deck):
            raise RuleViolation(
                clauses.SHUFFLER_COUNT, f"the shuffler counted {deck.shuffler_count} cards, not {DECK}"
            )
        if not self.positions:
            raise RuleViolation(clauses.STACKS_IN_ORDER, "no position holds Ante and Odds Wagers")
        return True

    def begin_deal(self, event: EventData) -> None:
        self.deck = message_of(event).deck
        stacks = [Due(f"seat {seat}", 2, clauses.STACKS_IN_ORDER) for seat in clockwise(self.positions)]
        stacks.append(Due("dealer", 2, clauses.STACKS_IN_ORDER))
        if self.deck.community_first:
            stacks.insert(0, Due("community", COMMUNITY_CARDS, clauses.COMMUNITY_FIRST))
        self._deal = tuple(stacks)
        self.log.add(  # the deck's count, where one was made, in the trail: it stands for the stub's (d)
            RecordKind.NO_MORE_BETS,
            seats=",".join(map(str, clockwise(self.positions))),
            community_first=self.deck.community_first,
            shuffler_count=self.deck.shuffler_count,
            clause=clauses.NO_MORE_BETS.clause,
        )

    # -- deliveries --------------------------------------------------------------------------------
    def delivery_is_irregular(self, event: EventData) -> bool:
        return self._classify(event) is not None

    def hold_delivery(self, event: EventData) -> None:
        found = self._classify(event)
        assert found is not None, "delivery_is_irregular found it irregular"
        self._hold(*found, items=_items(event))

    def set_aside_while_held(self, event: EventData) -> None:
        items = _items(event)
        assert self.hold is not None, "the round is held"
        self.hold.items.extend(items)
        shown = ", ".join(describe(item) for item in items)
        self._record_irregularity(*EXTRA_CARDS(clauses.HELD, f"{shown} delivered while the round is held"))

    def completes_deal(self, event: EventData) -> bool:
        """677a.10(b): the dealer's stack is the last of the deal."""
        return self._delivered == len(self._deal) - 1

    def community_is_down(self, event: EventData) -> bool:
        """677a.10(g): the community cards came first, so no stub leaves the shoe (c)."""
        return len(self.community) == COMMUNITY_CARDS and self.deck is not None and self.deck.community_first

    def place_stack(self, event: EventData) -> None:
        due, items = self._due(), _items(event)
        if due.place == "community":
            self.community.extend(items)
        elif due.place == "dealer":
            self.dealer_stack = items
        else:
            self.positions[int(due.place.split()[1])].stack = items
        self._delivered += 1
        self._record_cards(items, due)

    def rack_unseen(self, event: EventData) -> None:
        cards = message_of(event).cards
        self.unseen += cards
        self.log.add(RecordKind.SET_ASIDE, cards=cards, unseen=True, clause=clauses.UNSEEN_OUT.clause)

    # -- 677a.10(c): the stub out of the shoe, the community cards from the hand ---------------------
    def stub_holds_the_community(self, event: EventData) -> bool:
        """677a.10(c): the five community cards are dealt from the stub, so it must hold them."""
        cards = message_of(event).cards
        if len(cards) < COMMUNITY_CARDS:
            raise RuleViolation(
                clauses.COMMUNITY_FROM_HAND,
                f"the stub removed holds {len(cards)} card(s): the {COMMUNITY_CARDS} community cards "
                "are dealt from it",
            )
        return True

    def take_stub(self, event: EventData) -> None:
        self.stub = message_of(event).cards
        self.log.add(RecordKind.STUB_REMOVED, cards=len(self.stub), clause=clauses.COMMUNITY_FROM_HAND.clause)

    def is_top_of_stub(self, event: EventData) -> bool:
        """677a.10(c): a community card comes from the dealer's hand, the top card of the stub; any
        other card (one the shoe dispensed since, say) is refused."""
        card = message_of(event).card
        if self.top_of_stub is None or card != self.top_of_stub:
            raise RuleViolation(
                clauses.COMMUNITY_FROM_HAND,
                f"{describe(card)} is not the top card of the stub in the dealer's hand",
            )
        return True

    def completes_community(self, event: EventData) -> bool:
        """677a.10(c): the fifth community card completes the deal from the hand."""
        return len(self.community) == COMMUNITY_CARDS - 1

    def place_community(self, event: EventData) -> None:
        items = _items(event)
        self.community.extend(items)
        self._record_cards(items, self._due())

    # -- the stub ----------------------------------------------------------------------------------
    def stub_count_is_given(self, event: EventData) -> bool:
        if message_of(event).counted is None and self.stub_count_due:
            raise RuleViolation(
                clauses.STUB_COUNT_DUE,
                f"{self.rounds_since_stub_count} round(s) since the last count: count the stub first",
            )
        return True

    def count_is_wrong(self, event: EventData) -> bool:
        """677a.10(e)-(f): the stub and the cards out must make the 52 cards of the deck."""
        counted = message_of(event).counted
        return counted is not None and counted + self.cards_out != DECK

    def record_wrong_count(self, event: EventData) -> None:
        counted = message_of(event).counted
        self.stub_counted = counted
        self._record_stub(counted, to_rack=False)
        out = self.cards_out
        detail = f"a stub of {counted} and {out} card(s) out make {counted + out}, not {DECK}"
        self._record_irregularity(*WRONG_COUNT(clauses.WRONG_COUNT, detail))

    def place_stub(self, event: EventData) -> None:
        self.stub_counted = message_of(event).counted
        self._record_stub(self.stub_counted, to_rack=True)

    def void_for_misdeal(self, event: EventData) -> None:
        finding = message_of(event)
        rule = (
            clauses.MISDEAL_VOIDS
            if finding.misdealt and finding.cards_in_deck == DECK
            else clauses.DECK_REMOVED
        )
        self.deck_removed = rule is clauses.DECK_REMOVED
        self.log.add(
            RecordKind.MISDEAL,
            misdealt=finding.misdealt,
            cards_in_deck=finding.cards_in_deck,
            deck_removed=self.deck_removed,
            clause=rule.clause,
        )
        self._record_actions(
            settlement.in_order(a for p in self.positions.values() for a in settlement.void(p.stakes, rule))
        )

    # -- helpers -----------------------------------------------------------------------------------
    def _due(self) -> Due:
        """The delivery due, where a callback of a regular delivery asks (the machine calls it then)."""
        due = self.expected
        assert due is not None, "a delivery is due"
        return due

    def _classify(self, event: EventData) -> tuple[Kind, Irregularity] | None:
        regular = self.state == DELIVERIES[event.event.name]
        return classify(
            _items(event),
            self.expected if regular else None,
            early=self.state == BETTING,
            nothing_due=clauses.STACKS_IN_ORDER if self.state == DEALING else clauses.COMMUNITY_FROM_HAND,
        )

    def _record_cards(self, items: tuple[Arrival, ...], due: Due) -> None:
        for item in items:
            pickup = Pickup.of(item, due.place)
            self.log.add(
                RecordKind.CARD,
                place=due.place,
                source=due.source,
                card=pickup.card,
                commitment=pickup.commitment,
                face_up=False,
                clause=due.rule.clause,
            )

    def _record_stub(self, counted: int | None, *, to_rack: bool) -> None:
        rule: Rule = clauses.STUB_UNEXPOSED if counted is None else clauses.COUNT_OF_52
        if not to_rack:
            rule = clauses.WRONG_COUNT
        self.log.add(RecordKind.STUB, counted=counted, to_rack=to_rack, exposed=False, clause=rule.clause)


def _items(event: EventData) -> tuple[Arrival, ...]:
    message = message_of(event)
    return message.cards if hasattr(message, "cards") else (message.card,)


def check_wager(message: PlaceWager, rules: RuleSet) -> None:
    """A wager the table may take, whatever the round: a betting position, equal Ante and Odds
    Wagers, and a side wager only where its pay table is configured. The round's guard and the
    dealer's screen (before a wager begins a round) both ask it."""
    if not 1 <= message.seat <= rules.positions:
        raise RuleViolation(
            clauses.POSITIONS,
            f"seat {message.seat} is not a betting position (this table has 1 to {rules.positions})",
        )
    if message.ante != message.odds:
        raise RuleViolation(
            clauses.ANTE_EQUALS_ODDS,
            f"seat {message.seat}: Ante {message.ante} and Odds {message.odds} differ",
        )
    for amount, table, name in (
        (message.trips_plus, rules.trips_plus_pay_table, "Trips Plus"),
        (message.pocket_bonus, rules.pocket_bonus_pay_table, "Pocket Bonus"),
    ):
        if amount and not table:
            raise RuleViolation(clauses.SIDE_WAGER_OFFERED, f"seat {message.seat}: {name} is not offered")
