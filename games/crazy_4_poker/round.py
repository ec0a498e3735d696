"""One round of Crazy 4 Poker dealt from the hand (58 Pa. Code § 657a.9), the model of the shared
round machine.

As Free Bet Blackjack's round: the table service makes a ``Round`` and feeds it every event of the
table in order through ``handle``; ``expected`` is the place the next card goes; ``accepts`` the
messages taken now; a refusal is a RuleViolation naming its clause, and nothing changes. Rounds
are made by ``Table.new_round`` (table.py), which knows whether the stub count is due (657a.9(d)).

The round never sees a face while the cards are face down: the deal records places only; faces
arrive with the shuffler's revealed order (checked with ``verify_order``, the shuffler's check of
its seal) or the dealer's report, and each hand's record says which.
"""

from __future__ import annotations

from collections.abc import Callable

from transitions import EventData

from devices.rules import Irregularity, RuleViolation
from drivers.protocol.cards import Card
from games.crazy_4_poker import clauses
from games.crazy_4_poker.dealing import DECK, DealSteps
from games.crazy_4_poker.evaluator import Strength, strength
from games.crazy_4_poker.inputs import DeckHand, Message, Place, SealedOrder, ShuffleReport
from games.crazy_4_poker.irregularities import Hold, Kind
from games.crazy_4_poker.machine import COMPLETE, DEALING, shared_machine
from games.crazy_4_poker.records import Record, RecordKind, RoundLog
from games.crazy_4_poker.rules_config import RuleSet
from games.crazy_4_poker.settlement import Action, Position
from games.crazy_4_poker.showdown import ShowdownSteps

#: The shuffler's check that ``cards`` is the order it sealed (devices/shuffler.py provides it).
VerifyOrder = Callable[[SealedOrder, tuple[Card, ...]], bool]


class Round(DealSteps, ShowdownSteps):
    state: str  # set by the machine

    def __init__(
        self,
        number: int,
        *,
        rules: RuleSet,
        verify_order: VerifyOrder,
        stub_count_due: bool = False,
        table: str = "table",
    ) -> None:
        self.number = number
        self.rules = rules
        self.stub_count_due = stub_count_due
        self.log = RoundLog(number, table, clauses.GAME_ID)
        self.positions: dict[int, Position] = {}
        self.shuffle: ShuffleReport | None = None
        self.deck_hand: DeckHand | None = None
        self.accepted = 0
        self.deal: tuple[Place, ...] = ()
        self.dealt: list[Place] = []
        self.misplaced: list[Place] = []
        self.stub_counted = False
        self.stub_cards = 0
        self.deck_removed = False
        self.layout_cards = 0
        self.hands: dict[Place, tuple[Card, ...]] = {}
        self.known_by: dict[Place, str] = {}
        self.actions: list[Action] = []
        self.awards: list[
            tuple[int, str, str]
        ] = []  # (seat, hand, award): outputs for the progressive system
        self.hold: Hold | None = None
        self._verify_order = verify_order
        shared_machine().add_model(self)

    def handle(self, message: Message) -> tuple[Record, ...]:
        """Apply one message; returns the records it produced. Raises RuleViolation (nothing changed)."""
        start = len(self.log)
        machine = shared_machine()
        accepted = self.state != COMPLETE and message.trigger in machine.get_triggers(self.state)
        if not accepted or not machine.events[message.trigger].trigger(self, message):
            raise RuleViolation(
                clauses.PROCEDURE_ORDER,
                f"{message.trigger} is not accepted while round {self.number} is {self.state}; "
                f"it accepts {', '.join(self.accepts) or 'nothing more'}",
            )
        if self.state == COMPLETE:
            self.close()
        return self.log.since(start)

    def close(self) -> None:
        """Leave the shared machine (done on completion; call it for a round abandoned mid-way)."""
        if self in shared_machine().models:
            shared_machine().remove_model(self)

    @property
    def accepts(self) -> tuple[str, ...]:
        return () if self.state == COMPLETE else tuple(sorted(shared_machine().get_triggers(self.state)))

    @property
    def expected(self) -> Place | None:
        """The place the next card from the hand goes to, or None when no card is due."""
        return self.deal[len(self.dealt)] if self.state == DEALING else None

    @property
    def stub_size(self) -> int:
        return DECK - len(self.deal)

    @property
    def records(self) -> tuple[Record, ...]:
        return tuple(self.log)

    def strength(self, place: Place) -> Strength | None:
        cards = self.hands.get(place)
        return None if cards is None else strength(cards)

    def net(self, seat: int) -> int:
        return sum(action.net for action in self.actions if action.seat == seat)

    def __repr__(self) -> str:
        return f"<Round {self.number} {self.state}, seats {sorted(self.positions)}>"

    def record_state(self, event: EventData) -> None:
        source, dest = event.transition.source, event.transition.dest
        if dest is not None and dest != source:
            self.log.add(RecordKind.STATE, source=source, dest=dest, trigger=event.event.name)

    def _hold(self, kind: Kind, irregularity: Irregularity) -> None:
        self.hold = Hold(kind, irregularity, self.state)
        self._record_irregularity(kind, irregularity)

    def _record_irregularity(self, kind: Kind, irregularity: Irregularity) -> None:
        self.log.add(
            RecordKind.IRREGULARITY,
            code=kind.code,
            clause=irregularity.rule.clause,
            rule=irregularity.rule.summary,
            detail=irregularity.detail,
            outcome=kind.outcome.value,
        )

    def _settle(self, actions: list[Action]) -> None:
        for action in actions:
            self.actions.append(action)
            self.log.add(
                RecordKind.SETTLEMENT,
                seat=action.seat,
                wager=action.wager.value,
                movement=action.movement.value,
                amount=action.amount,
                net=action.net,
                clause=action.rule.clause,
            )
