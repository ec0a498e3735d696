"""What one round of the 677a Hold 'Em game holds, and what it derives from it: the typed base every
step class of the round (dealing.py, playing.py, closing.py) extends, so each reads and
changes the round through declared attributes and methods. round.py combines the steps
into the Round the machine runs.
"""

from __future__ import annotations

from collections.abc import Iterable
from types import ModuleType
from typing import ClassVar

from games.common import stub_count
from games.common.holds import Hold
from games.common.pickup import Pickup
from games.common.records import RoundLog
from games.common.round_base import RoundBase
from games.common.seating import clockwise, counterclockwise
from games.heads_up_holdem import clauses
from games.heads_up_holdem.inputs import Arrival, DeckReport, Verify
from games.heads_up_holdem.machine import COMMUNITY, DEALING, STREETS, shared_machine
from games.heads_up_holdem.positions import Due, Position
from games.heads_up_holdem.records import RecordKind
from games.heads_up_holdem.rules_config import RuleSet
from games.heads_up_holdem.settlement import Action
from vocabulary.cards import Card


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
        verify: Verify,
        rounds_since_stub_count: int = 0,
        table: str = "table",
    ) -> None:
        self.number = number
        self.rules = rules
        self.rounds_since_stub_count = rounds_since_stub_count  # rounds dealt since the last count
        self.log = RoundLog(number, table, clauses.GAME_ID)
        self.positions: dict[int, Position] = {}
        self.dealer_stack: tuple[Arrival, ...] = ()
        self.dealer_faces: tuple[Card, ...] = ()
        self.stub: tuple[Arrival, ...] = ()  # 677a.10(c): the stub in the dealer's hand, as the shoe read it
        self.community: list[Arrival] = []
        self.community_faces: list[Card] = []
        self.deck: DeckReport | None = None
        self.stub_counted: int | None = None
        self.deck_removed = False  # 677a.10(f): the deck must leave the table
        self.actions: list[Action] = []
        self.set_aside: list[Pickup] = []
        self.unseen = 0  # cards racked unseen after a dispense's unknown outcome (UnseenToRack)
        self.folded_order: list[int] = []
        self.hold: Hold | None = None
        self.pickup: tuple[Pickup, ...] = ()
        self._verify = verify
        self._deal: tuple[Due, ...] = ()
        self._delivered = 0

    @property
    def expected(self) -> Due | None:
        """The delivery due next (a stack from the shoe, or a community card from the hand)."""
        if self.state == DEALING:
            return self._deal[self._delivered]
        if self.state == COMMUNITY:
            return Due("community", 1, clauses.COMMUNITY_FROM_HAND, source="hand")
        return None

    @property
    def top_of_stub(self) -> Arrival | None:
        """The card the dealer's hand gives next (677a.10(c)): the stub's cards in the order the
        shoe read them leaving, less the community cards already dealt (None: none in hand)."""
        dealt = len(self.community)
        return self.stub[dealt] if dealt < len(self.stub) else None

    @property
    def to_act(self) -> int | None:
        """The seat whose decision is awaited on this street, clockwise (None: none)."""
        if self.state not in STREETS:
            return None
        return next(
            (
                seat
                for seat in clockwise(self.positions)
                if self.positions[seat].live
                and not self.positions[seat].played
                and self.state not in self.positions[seat].decided
            ),
            None,
        )

    @property
    def stub_count_due(self) -> bool:
        """677a.10(d): without a counting shuffler, at least once every ``stub_count_interval`` rounds."""
        counted_by_shuffler = self.deck is not None and self.deck.shuffler_count is not None
        return not counted_by_shuffler and stub_count.due(
            self.rounds_since_stub_count, self.rules.stub_count_interval
        )

    @property
    def rounds_since_stub_count_after(self) -> int:
        """What the next round is given as ``rounds_since_stub_count``."""
        counted = self.stub_counted is not None or (
            self.deck is not None and self.deck.shuffler_count is not None
        )
        return stub_count.after(self.rounds_since_stub_count, counted=counted)

    @property
    def cards_out(self) -> int:
        """Cards that left the shoe or the hand this round: stacks, community cards, cards set aside
        and cards racked unseen."""
        stacks = sum(len(p.stack) for p in self.positions.values()) + len(self.dealer_stack)
        return stacks + len(self.community) + len(self.set_aside) + self.unseen

    def _record_actions(self, actions: Iterable[Action], **cited: str) -> None:
        """Every settlement is recorded with the order it follows."""
        super()._record_actions(actions, order=clauses.SETTLEMENT_ORDER.clause, **cited)

    def pickup_order(self) -> list[Pickup]:
        """Every card of the round on the layout, in the order it goes to the discard rack: folded
        hands as they folded (face down), the hands from the dealer's right, the dealer's hand, the
        community cards, then cards set aside. A card never turned up is listed by its commitment."""
        order = [
            p for seat in self.folded_order for p in _pickups(self.positions[seat].stack, (), f"seat {seat}")
        ]
        for seat in counterclockwise(self.positions):
            position = self.positions[seat]
            if position.live:
                order += _pickups(position.stack, position.faces, f"seat {seat}")
        order += _pickups(self.dealer_stack, self.dealer_faces, "dealer")
        order += _pickups(tuple(self.community), tuple(self.community_faces), "community")
        return [*order, *self.set_aside]


def _pickups(items: tuple[Arrival, ...], faces: tuple[Card, ...], place: str) -> list[Pickup]:
    """Cards by face once turned up (faces in the order of ``items``), by commitment before."""
    return [
        Pickup(place, str(faces[i])) if i < len(faces) else Pickup.of(item, place)
        for i, item in enumerate(items)
    ]
