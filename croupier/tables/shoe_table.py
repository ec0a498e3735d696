"""What every game dealt from a dealing shoe does the same way: the shoe's life and the round loop.

The batches alternate between the shoe and the shuffler (633a.3(b), analog); a card is burned after each
batch is loaded and for each new dealer; after the cover card the round is completed, the shoe's
remaining cards are collected to the discard rack and counted against the batch, and the other
batch, shuffled and held meanwhile, goes into the shoe (672a.7(c)-(d), 686a.7(c)-(d)). A game's
table adds only its own round: how it is made and what each of its states asks of the table.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass
from functools import partial
from typing import Any, ClassVar, Generic, Protocol, TypeVar

import structlog

from croupier.screen.answers import each, take
from croupier.tables.dealer import Dealer
from croupier.tables.events import PlayedRound, TableRecord
from croupier.tables.feeding import DeviceEventApplied, Feeds
from croupier.tables.holding import SupervisorHolds
from devices.equipment import Equipment
from devices.shoe import (
    COLLECTING,
    EMPTY,
    ENDING,
    NEEDS_BURN,
    NEW_DEALER_BURN,
    OFFLINE,
    Burn,
    CoverCard,
    Shoe,
    ShoeClauses,
    ShoeFault,
)
from devices.shuffler import BATCHES_ALTERNATE, Shuffler
from drivers.protocol.classes.shoe import CoverCardReached
from drivers.protocol.classes.shuffler import CARDS_PER_DECK
from drivers.protocol.core import FaultCode
from games.common.holds import Hold
from games.common.machine_parts import COMPLETE, HELD
from games.common.messages import COVER_CARD, CardArrives, Discard, Message, ShoeStatus, StartDeal
from games.common.pickup import SET_ASIDE
from games.common.records import RecordKind, Value
from vocabulary.events import Event, Events
from vocabulary.operators import Operator
from vocabulary.rules import Rule

#: The kind of the record each burn card makes in the audit trail (a ``TableRecord`` event).
BURN_RECORD = "burn"
#: NJ 13:69F-2.5 (analog): the cover card at least this many cards from either end.
COVER_MARGIN = 10
#: NJ 13:69F-2.5 (analog): "about one quarter of the way in from the back".
DEFAULT_PENETRATION = 0.75


def default_cover_depth(batch_size: int) -> int:
    """Where the dealer inserts the cover card unless the table says: three quarters into the batch,
    in cards from the top (the table's rounds and ``croupier sim --math`` cut the shoe alike)."""
    return round(batch_size * DEFAULT_PENETRATION)


def shoe_status(shoe: Shoe) -> ShoeStatus:
    """The shoe's state as a round asks for it before the deal (672a.7(a), (c), (d))."""
    return ShoeStatus(
        loaded=shoe.state not in (OFFLINE, EMPTY),
        burn_due=shoe.state == NEEDS_BURN,
        reshuffle_due=shoe.state in (ENDING, COLLECTING),
    )


class ShoeRound(PlayedRound, Protocol):
    """What the loop needs of a round of any shoe game."""

    hold: Hold | None

    @property
    def expected(self) -> Any:  # Any: the game's own slot
        """The Slot of the card the round expects next, None when it expects none."""

    def pickup_order(self) -> Any: ...  # Any: the game's own pickup order


class ShoeRules(Protocol):
    @property
    def decks(self) -> int: ...

    @property
    def positions(self) -> int: ...

    def check_pay_tables(self) -> None: ...


class Slot(Protocol):
    place: str
    face_up: bool


R = TypeVar("R", bound=ShoeRound)


@dataclass
class Play(Generic[R]):
    """One round in progress: the round, who plays it, and what has gone to the rack so far."""

    round: R
    players: Any  # Any: the players of any game
    rack_before: int  # cards in the discard rack when the deal started
    removed: int = 0  # cards already in the rack before the final pickup (paid early, cleared)


class ShoeTable(SupervisorHolds, Generic[R]):
    """A table dealt from a shoe fed by a shuffler. Use it inside ``running()``, ``open`` it once,
    then ``play_round`` as often as wanted; ``dealer_change`` between rounds; ``clear`` a latched
    fault and ``resolve`` a held round as a supervisor."""

    shoe: Shoe
    dealer_on_duty: str
    #: The game's burn clause (e.g. 672a.7(c)), cited by each burn's record.
    burn_rule: ClassVar[Rule]
    #: The game's clauses for its shoe (ShoeClauses): the table's shoe is built with them.
    shoe_clauses: ClassVar[ShoeClauses]

    def __init__(
        self,
        *,
        shoe: Shoe,
        shuffler: Shuffler,
        dealer: Dealer,
        dealer_on_duty: str,
        rules: ShoeRules,
        name: str = "table",
        backs: tuple[str, str] = ("red", "blue"),
        cover_depth: int | None = None,
        record_events: list[object] | None = None,
    ) -> None:
        """``backs``: the two batches' back colours, the first to the shoe first. ``cover_depth``:
        where the dealer inserts the cover card, in cards from the top (default: three quarters
        in). ``record_events``: a list to keep every device event applied, in order."""
        self.rules = rules
        self.batch_size = rules.decks * CARDS_PER_DECK
        if len(set(backs)) != 2:
            raise ValueError(f"backs: two different colours are needed ({BATCHES_ALTERNATE}), got {backs}")
        depth = default_cover_depth(self.batch_size) if cover_depth is None else cover_depth
        if not COVER_MARGIN <= depth <= self.batch_size - COVER_MARGIN:
            raise ValueError(
                f"cover_depth: {depth} is not {COVER_MARGIN} to {self.batch_size - COVER_MARGIN} cards "
                f"into a batch of {self.batch_size} ({self.shoe_clauses.cover_placement})"
            )
        self.cover_depth = depth
        self.shoe, self.shuffler, self.dealer = shoe, shuffler, dealer
        self.dealer_on_duty = dealer_on_duty
        self.name = name
        self.rounds = 0
        self.in_shoe, self.held = backs  # the batch in play and the one waiting in the shuffler
        self.log = structlog.get_logger("croupier.tables").bind(table=name)
        self._init_holds()
        self.events = Events()
        self.feeds = Feeds(self.equipment, record_events, events=self.events)
        self._cover_recorded: CoverCard | None = None  # the shoe's cover card the trail has
        self._cards_placed = False  # ``open`` has placed the day's cards (a cover told before: ``open``'s)
        self.events.subscribe(self._cover_told)

    @property
    def equipment(self) -> tuple[Equipment[Any], ...]:  # Any: any device's driver
        return (self.shoe, self.shuffler)

    @contextlib.asynccontextmanager
    async def running(self) -> AsyncIterator[ShoeTable[R]]:
        """Apply every device's events to its machine while the block runs."""
        async with self.feeds.running():
            yield self

    # -- the table's day --------------------------------------------------------------------------
    async def open(
        self, floorperson: Operator, position: Mapping[str, Any] | None = None  # Any: JSON values
    ) -> bool:
        """Open the table: read the shoe, open the shuffler (random mode only), the game's own
        checks, the first batch shuffled, counted and in the shoe with its cover card, the second
        shuffled and held. The first round burns a card first.

        ``position``: where the service left the day's cards before it restarted (``position()``,
        saved by the journal). With the shoe still holding its batch, the day goes on from there:
        the held batch taken back from the shuffler as left, and a card burned before the next
        deal, as after a batch is placed in the shoe (672a.7(c)): the shoe was out of the table's
        sight. Returns whether the day went on from ``position``."""
        self.rules.check_pay_tables()  # no pay table is built in: a ConfigError names the key
        await self.feeds.settled()  # the links' READY is in every machine
        self._opening("reading the shoe")
        counts = await self._shoe_read(self.shoe)  # what it told a service before this one applied first
        self._opening("opening the shuffler")
        await self.shuffler.open_table()
        await self._inspect(floorperson)
        if position is not None and counts.remaining:
            self.in_shoe, self.held = position["in_shoe"], position["held"]
            self.dealer_on_duty = position["dealer"]
            self.shoe.batch = self.in_shoe  # the shoe's records name it, as they did before the restart
            self._opening("taking back the batch held in the shuffler")
            await self.shuffler.resume(position["shuffler"], input_count=0)
            self.shoe.resumed(self.batch_size)  # once the equipment is found as left: counted as loaded
            self.dealer.rack_found(counts.dispensed)
            if position.get("cover_out"):
                self._cover_came_out_before()
            elif self.shoe.state == COLLECTING:  # told by the shoe's event only now (``_shoe_read``)
                self._record_cover_between_rounds(at="restart")
            if position.get("new_dealer_burn"):
                self.shoe.dealer_change()  # the dealer on duty owes a burn still (672a.7(c))
            self.log.info("table open", in_shoe=self.in_shoe, held=self.held, resumed=True)
            self._cards_placed = True
            return True
        self._opening(f"shuffling the first batch ({self.in_shoe} backs)")
        self.dealer.load_shuffler(self.in_shoe)
        await self._shuffle(self.in_shoe)
        self._opening("counting the first batch into the shoe, with its cover card")
        await self._to_shoe(self.in_shoe)
        self._opening(f"shuffling the second batch ({self.held} backs), to be held")
        self.dealer.load_shuffler(self.held)
        await self._shuffle(self.held)
        self.shuffler.hold()
        self.log.info("table open", in_shoe=self.in_shoe, held=self.held, cover_depth=self.cover_depth)
        self._cards_placed = True
        return False

    def _cover_came_out_before(self) -> None:
        """The batch found in the shoe is one whose cover card came out before the restart (the
        round cut off after it, or the service stopped before the shoe was changed): the cover card
        ended it (672a.7(d), 686a.7(d)), so the shoe is closed, not burned and dealt on, and
        ``prepare_round`` changes it before the next round: its cards collected to the rack and
        counted, the batch reshuffled."""
        self.shoe.close_shoe()
        clause = self.shoe_clauses.cover_ends.clause
        self.log.warning("the cover card came out before the restart: the shoe is changed", clause=clause)

    def position(self) -> dict[str, Any]:  # Any: JSON values
        """Where the day's cards are, for ``open`` after a restart: the batch in the shoe and the
        one held, the dealer on duty, the shuffler's batches, whether the batch in the shoe has had
        its cover card come out (``cover_out``: the journal saves the position as the cover card is
        recorded, so a restart before the shoe is changed still changes it), and whether the dealer
        on duty still owes a burn (``new_dealer_burn``: a cover card that came out at it)."""
        return {
            "in_shoe": self.in_shoe,
            "held": self.held,
            "dealer": self.dealer_on_duty,
            "shuffler": self.shuffler.saved(),
            "cover_out": shoe_status(self.shoe).reshuffle_due,
            "new_dealer_burn": NEW_DEALER_BURN in self.shoe.burns_owed,
        }

    async def _inspect(self, floorperson: Operator) -> None:
        """A game's start-of-day checks of its own equipment (none for the shoe and shuffler)."""

    def dealer_change(self, new_dealer: str) -> None:
        """A new dealer takes over between rounds; the new dealer burns a card before the next deal,
        after the batch's own burn if that is still due (672a.7(c): "shall also"). The dealer on
        duty named again (a request repeated) is no new dealer: nothing changes, no card is owed."""
        if new_dealer == self.dealer_on_duty:
            return
        self.shoe.dealer_change()
        self.dealer_on_duty = new_dealer
        self.log.info("dealer change", dealer=new_dealer)

    # -- a round ----------------------------------------------------------------------------------
    async def play_round(self, players: Any) -> R:  # Any: the players of any game
        """Play one round to completion, its cards in the discard rack; returns the round, whose
        ``records`` are its log. After the cover card the shoe is changed before this returns."""
        await self.prepare_round()
        self.rounds += 1
        round_ = self._new_round()
        self._began(round_)
        async for wager in each(players.wagers(self.rounds, self.rules.positions)):
            take(wager, partial(self._give, round_))
        self._give(round_, StartDeal(shoe_status(self.shoe)))
        self.shoe.start_round()
        play = Play(round_, players, self.dealer.count_rack())
        while round_.state != COMPLETE:
            if round_.state == HELD:
                await self._await_ruling(round_)
            else:
                await self._step(play)
        await self._shoe_round_ended(self.shoe)
        self._round_ended()
        self._ended(round_)
        if self.shoe.state == COLLECTING:
            await self._change_shoe()
        return round_

    def _new_round(self) -> R:
        raise NotImplementedError

    async def _step(self, play: Play[R]) -> None:
        """What the game's round waits for next, in a state other than held or complete: the card it
        expects, dealt from the shoe, else what its state asks for (``_step_in``)."""
        slot = play.round.expected
        if slot is not None:
            await self._deal(play, slot)
        else:
            await self._step_in(play, play.round.state)

    async def _step_in(self, play: Play[R], state: str) -> None:
        """What the game's round in ``state`` waits for, when it expects no card."""
        raise NotImplementedError

    def _round_ended(self) -> None:
        """The game's own equipment told the round is over (the shoe already is)."""

    async def _deal(self, play: Play[R], slot: Slot) -> None:
        """The card the round expects, from the shoe to its place; a cover card that came out first
        is set aside and told to the round (672a.7(d)); a card the round would not take (it holds)
        waits beside the layout, not in the hand."""
        cover = self.shoe.cover
        card, aside = await self._reconciled(self.shoe, lambda: self.shoe.deal(face_up=slot.face_up))
        play.rack_before += aside  # unseen cards in the rack are not the round's
        if self.shoe.cover is not cover:
            self._handle(play, CardArrives(COVER_CARD))
        self._handle(play, CardArrives(card))
        self.dealer.place(SET_ASIDE if play.round.state == HELD else slot.place, slot.face_up)

    def _pick_up(self, play: Play[R]) -> None:
        """The round's cards not yet in the rack, to the rack in its pickup order, and the rack's
        count (672a.7(s), 686a.7(n))."""
        order = play.round.pickup_order()
        self.dealer.pick_up([pickup.place for pickup in order[play.removed :]])
        self._handle(play, Discard(self.dealer.count_rack() - play.rack_before))

    def _handle(self, play: Play[R], message: Message) -> None:
        """Give the round one message."""
        self._give(play.round, message)

    # -- the shoe's life --------------------------------------------------------------------------
    async def prepare_round(self) -> None:
        """Before betting opens: every burn that is owed, each recorded (672a.7(c)), the shoe changed
        after a cover card that came out at a burn (672a.7(d)), and no fault latched. ``play_round``
        does it too; the service calls it first so that no wager waits on a burn."""
        while True:
            await self._while_latched()
            if self.shoe.state == NEEDS_BURN:
                burned, _aside = await self._reconciled(self.shoe, partial(self._burned, self.shoe.last_burn))
                if burned:
                    self.dealer.burn()
                    self._record_burn()
                else:
                    self._record_cover_between_rounds(at="burn")
            elif self.shoe.state == COLLECTING:
                await self._change_shoe()
            else:
                return

    async def _burned(self, made: Burn | None) -> bool:
        """The next burn owed: whether a card was burned (False: the cover card came out at it). A
        burn card is never seen, so one the shoe let out unread is burned all the same (``Shoe.burn``
        counts the burn made), and so is one that left while the burn's outcome was unknown
        (``Shoe.sync`` counts it, after ``made``, the shoe's last burn before this one): each is
        racked and recorded as the burn it is, not burned again, which would take two cards for one
        (672a.7(c)). A MISREAD stays latched, holding the next dispense for a supervisor. A burn asked
        again after the shoe ended is one whose card was the cover card, its event come while the
        answer was lost: the shoe ended there (672a.7(d)), and no card is burned from it."""
        if self.shoe.last_burn is not made:  # made as its answer was lost, and asked again
            return True
        if self.shoe.state == COLLECTING:  # the cover card came out at it, as its answer was lost
            return False
        try:
            return await self.shoe.burn() is not None
        except ShoeFault as fault:
            if fault.code is not FaultCode.MISREAD:
                raise
            return True

    def _cover_told(self, event: Event) -> None:
        """The shoe's cover card event, applied: one that ended the shoe at a burn (its answer lost
        with the link, the burn held for a supervisor's clear) is recorded at once, and the journal
        saves the position with it, so a service stopped before the clear still changes the shoe
        at the restart; the shoe no longer holds the event to tell the next service."""
        if (
            self._cards_placed
            and isinstance(event, DeviceEventApplied)
            and event.device == self.shoe.name
            and isinstance(event.event, CoverCardReached)
            and self.shoe.state == COLLECTING
            and self.shoe.cover is not None
            and self.shoe.cover.when == "burn"
        ):
            self._record_cover_between_rounds(at="burn")

    def _record_cover_between_rounds(self, at: str) -> None:
        """The cover card came out where no round records it: at a burn between rounds (``at``
        "burn"), or before a restart, told by the shoe only to the service started since (``at``
        "restart": its answer and its event were lost with the link). A record of the table's own,
        of the kind a round's cover card makes, so the trail shows the batch ended there, and the
        journal saves the position with it (``cover_out``): a service stopped before the shoe is
        changed changes it at the restart rather than dealing on (672a.7(d), 686a.7(d))."""
        if self.shoe.cover is not None and self.shoe.cover is self._cover_recorded:
            return  # recorded as its event was applied (``_cover_told``)
        clause = self.shoe_clauses.cover_ends.clause
        fields: dict[str, Value] = {"clause": clause, "at": at, "batch": self.in_shoe}
        self.events.publish(TableRecord(RecordKind.COVER_CARD.value, fields))
        # Only once written: a write that failed in ``_cover_told`` (a listener, whose failure is
        # logged) is made again by ``prepare_round``, whose failure stops the table.
        self._cover_recorded = self.shoe.cover

    def _record_burn(self) -> None:
        """The burn just made, to the listeners (the journal writes it to the audit trail) before
        any card of the next deal: its clause, why it was owed (the batch's first card, a new
        dealer's), the dealer who burned it, the batch by its back colour and the shoe's counts
        after it, so a reviewer can show from the trail alone that every batch and every new dealer
        burned, and whether the burn was counted from the shoe's counts, its answer lost with the
        link (``reconciled``). Never the card's face: a burn card is never turned up."""
        burn = self.shoe.last_burn
        assert burn is not None
        self.events.publish(
            TableRecord(
                BURN_RECORD,
                {
                    "clause": self.burn_rule.clause,
                    "reason": burn.reason,
                    "dealer": self.dealer_on_duty,
                    "batch": self.in_shoe,
                    "dispensed": burn.dispensed,
                    "remaining": burn.remaining,
                    "reconciled": burn.reconciled,
                },
            )
        )

    async def _change_shoe(self) -> None:
        """672a.7(d)(1)-(2): the remaining cards to the rack and the batch counted; the held batch
        into the shoe with the cover card; the played batch back to the shuffler, shuffled, held."""
        self.dealer.empty_shoe(self.shoe.remaining)
        await self._collected(self.shoe)
        played = self.in_shoe
        await self._to_shoe(self.held)
        self.in_shoe, self.held = self.held, played
        self.dealer.rack_to_shuffler()
        await self._shuffle(played)
        self.shuffler.hold()
        self.log.info("shoe changed", in_shoe=self.in_shoe, held=self.held)

    async def _shuffle(self, back: str) -> None:
        """The batch in the shuffler's input, configured, shuffled and counted (decision 0017)."""
        await self._held_on_fault(lambda: self.shuffler.configure(self.rules.decks, 0, back))
        await self._shuffle_until_it_passes(self.shuffler)

    async def _to_shoe(self, back: str) -> None:
        """The shuffled ``back`` batch into the shoe (672a.7(a)), the cover card inserted, the shoe
        told."""
        await self._delivered_to_shoe(self.shoe, self.shuffler, lambda: self._shuffle(back))
        self.dealer.insert_cover_card(self.cover_depth)
        await self._held_on_fault(lambda: self.shoe.load(self.batch_size, back))
