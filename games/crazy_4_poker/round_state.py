"""What one round of Crazy 4 Poker holds, and what it derives from it: the typed base every
step class of the round (dealing.py, playing.py, closing.py) extends, so each reads and
changes the round through declared attributes and methods. round.py combines the steps
into the Round the machine runs.
"""

from __future__ import annotations

from collections.abc import Callable
from types import ModuleType
from typing import ClassVar

from games.common.holds import Hold
from games.common.records import RoundLog
from games.common.round_base import RoundBase
from games.crazy_4_poker import clauses
from games.crazy_4_poker.evaluator import Strength, strength
from games.crazy_4_poker.inputs import DeckHand, Place, SealedOrder, ShuffleReport
from games.crazy_4_poker.machine import DEALING, shared_machine
from games.crazy_4_poker.records import RecordKind
from games.crazy_4_poker.rules_config import RuleSet
from games.crazy_4_poker.settlement import Action, Position
from vocabulary.cards import Card

#: The shuffler's check that ``cards`` is the order it sealed (devices/shuffler.py provides it).
VerifyOrder = Callable[[SealedOrder, tuple[Card, ...]], bool]

DECK = 52  # 603a.15, 657a.9(e)


class RoundState(RoundBase[Action]):
    """The round's state and its helpers; the steps (round.py: the Round) change it."""

    shared_machine = staticmethod(shared_machine)
    clauses: ClassVar[ModuleType] = clauses  # the module: RoundBase cites its PROCEDURE_ORDER and HELD
    kinds = RecordKind

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
        self.accepted_seats: tuple[int, ...] = ()  # whose progressive wager the system accepted
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
        self.awards_paid: set[int] = set()  # the seats whose award the system paid (AwardPaid)
        self.hold: Hold | None = None
        self._verify_order = verify_order

    @property
    def accepted(self) -> int:
        """How many progressive wagers the system accepted at the lock: the chips the dealer counts."""
        return len(self.accepted_seats)

    @property
    def expected(self) -> Place | None:
        """The place the next card from the hand goes to, or None when no card is due."""
        return self.deal[len(self.dealt)] if self.state == DEALING else None

    @property
    def stub_size(self) -> int:
        return DECK - len(self.deal)

    def strength(self, place: Place) -> Strength | None:
        cards = self.hands.get(place)
        return None if cards is None else strength(cards)
