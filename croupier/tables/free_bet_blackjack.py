"""One Free Bet Blackjack table on its devices: shoe, card reader and shuffler, dealer and players.

``FreeBetBlackjackTable`` is the table service's orchestration of one table (58 Pa. Code § 672a.7).
It owns the device machines (devices/: ``Shoe``, ``CardReader``, ``Shuffler``), feeds each
connection's events to its machine (feeding.py), and plays rounds of the game's round machine
(games.free_bet_blackjack.Round), turning what the round expects into device commands and dealer
prompts, and what the devices report into the round's messages:

- a card due face up is dispensed face up, a hole card face down: the round gets the shoe's
  SealedCard and never its face before 672a.7(k), where ``Shoe.reveal`` turns it up and the
  round checks it against the seal (``Shoe.opens`` is its ``verify``);
- the peek (672a.7(g)): the dealer slides the hole card into the reader, the reader answers yes or
  no for the up card, the dealer takes the card back;
- the shoe's life: the burn after each batch is loaded and for each new dealer (672a.7(c)); after
  the cover card the round is completed, the shoe's remaining cards are collected to the discard
  rack and counted, the batch goes back to the shuffler, and the other batch, shuffled and held
  meanwhile, goes into the shoe (672a.7(d); batches alternate, NOTES.md §1).

A latched fault on any device (a jam, a wrong count, a lost link) holds the table: the step that
met it waits, with nothing dealt twice and nothing lost, until a supervisor ``clear``s it, then
goes on. Only what the section already resolves happens without a supervisor.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from typing import Any, TypeVar

import structlog

from croupier.tables.dealer import Dealer
from croupier.tables.feeding import Feeds
from croupier.tables.players import Players
from devices.card_reader import CardReader
from devices.equipment import Equipment
from devices.faults import LATCH_BLOCKS, Fault, Operator
from devices.rules import Rule, RuleViolation
from devices.shoe import COLLECTING, COVER_PLACEMENT, EMPTY, ENDING, NEEDS_BURN, OFFLINE, Shoe, ShoeFault
from devices.shuffler import BATCHES_ALTERNATE, Shuffler
from drivers.protocol.classes.shuffler import CARDS_PER_DECK
from drivers.shoe import SealedCard
from games.free_bet_blackjack import Round, RuleSet
from games.free_bet_blackjack.discard import SET_ASIDE, hand_pickup
from games.free_bet_blackjack.inputs import (
    COVER_CARD,
    CardArrives,
    CloseInsurance,
    Decision,
    Discard,
    Message,
    PeekAnswer,
    PlayerAction,
    Resolution,
    RevealHole,
    Settle,
    ShoeStatus,
    StartDeal,
    SupervisorResolve,
)
from games.free_bet_blackjack.layout import Slot, clockwise
from games.free_bet_blackjack.machine import (
    COMPLETE,
    DEALER_BLACKJACK,
    DEALER_TURN,
    HELD,
    INSURANCE,
    PEEKING,
    PLAYER_TURNS,
    SETTLED,
    VOIDED,
)

T = TypeVar("T")

#: NOTES.md §1 (NJ 13:69F-2.5 analog): the cover card at least this many cards from either end.
COVER_MARGIN = 10
#: NOTES.md §1: "about one quarter of the way in from the back".
DEFAULT_PENETRATION = 0.75
HOLD_FOR_SUPERVISOR = Rule(
    "NOTES.md §3 (enforcement history); ARCHITECTURE.md (faults latch)",
    "a latched device fault holds the table's dealing until a supervisor clears it",
)


def shoe_status(shoe: Shoe) -> ShoeStatus:
    """The shoe's state as the round asks for it before the deal (672a.7(a), (c), (d))."""
    return ShoeStatus(
        loaded=shoe.state not in (OFFLINE, EMPTY),
        burn_due=shoe.state == NEEDS_BURN,
        reshuffle_due=shoe.state in (ENDING, COLLECTING),
    )


@dataclass
class _Play:
    """One round in progress: the round, who plays it, and what has gone to the rack so far."""

    round: Round
    players: Players
    rack_before: int  # cards in the discard rack when the deal started
    removed: int = 0  # cards of hands paid early already moved to the rack (672a.7(h)(1))


class FreeBetBlackjackTable:
    """One table: its devices' machines, its dealer, its rule set, and the rounds it plays.

    Use it inside ``running()`` (the device event feeds), ``open`` it once, then ``play_round``
    as often as wanted; ``dealer_change`` between rounds; ``clear`` a latched fault as a supervisor.
    """

    def __init__(
        self,
        *,
        shoe: Shoe,
        reader: CardReader,
        shuffler: Shuffler,
        dealer: Dealer,
        dealer_on_duty: str,
        rules: RuleSet | None = None,
        name: str = "table",
        backs: tuple[str, str] = ("red", "blue"),
        cover_depth: int | None = None,
        record_events: list[object] | None = None,
    ) -> None:
        """``backs``: the two batches' back colours, the first to the shoe first. ``cover_depth``:
        where the dealer inserts the cover card, in cards from the top (default: three quarters
        in). ``record_events``: a list to keep every device event applied, in order."""
        self.rules = rules or RuleSet()
        self.batch_size = self.rules.decks * CARDS_PER_DECK
        if len(set(backs)) != 2:
            raise ValueError(f"backs: two different colours are needed ({BATCHES_ALTERNATE}), got {backs}")
        depth = round(self.batch_size * DEFAULT_PENETRATION) if cover_depth is None else cover_depth
        if not COVER_MARGIN <= depth <= self.batch_size - COVER_MARGIN:
            raise ValueError(
                f"cover_depth: {depth} is not {COVER_MARGIN} to {self.batch_size - COVER_MARGIN} cards "
                f"into a batch of {self.batch_size} ({COVER_PLACEMENT})"
            )
        self.cover_depth = depth
        self.shoe, self.reader, self.shuffler, self.dealer = shoe, reader, shuffler, dealer
        self.dealer_on_duty = dealer_on_duty
        self.name = name
        self.rounds = 0
        self.in_shoe, self.held = backs  # the batch in play and the one waiting in the shuffler
        self.feeds = Feeds(self.equipment, record_events)
        self.log = structlog.get_logger("croupier.tables").bind(table=name)
        self._cleared = asyncio.Event()
        self.held_round: Round | None = None  # a round waiting for a supervisor's ruling
        self._ruled = asyncio.Event()

    @property
    def equipment(self) -> tuple[Equipment[Any], ...]:
        return (self.shoe, self.reader, self.shuffler)

    @property
    def faults(self) -> tuple[Fault, ...]:
        """Every fault latched on the table's devices: while any is, no card is dealt."""
        return tuple(fault for machine in self.equipment for fault in machine.latch.faults)

    @contextlib.asynccontextmanager
    async def running(self) -> AsyncIterator[FreeBetBlackjackTable]:
        """Apply every device's events to its machine while the block runs."""
        async with self.feeds.running():
            yield self

    # -- the table's day --------------------------------------------------------------------------
    async def open(self, floorperson: Operator) -> None:
        """Open the table: read the shoe, open the shuffler (random mode only), the reader's daily
        inspection, the first batch shuffled, counted and in the shoe with its cover card, the
        second shuffled and held. The first round burns a card first (672a.7(c))."""
        await self.feeds.settled()  # the links' READY is in every machine
        await self.shoe.sync()
        await self.shuffler.open_table()
        await self.reader.record_inspection(floorperson)
        self.dealer.load_shuffler(self.in_shoe)
        await self._shuffle(self.in_shoe)
        await self._to_shoe()
        self.dealer.load_shuffler(self.held)
        await self._shuffle(self.held)
        self.shuffler.hold()
        self.log.info("table open", in_shoe=self.in_shoe, held=self.held, cover_depth=self.cover_depth)

    def dealer_change(self, new_dealer: str) -> None:
        """A new dealer takes over between rounds; a card is burned before the next deal (672a.7(c))."""
        self.shoe.dealer_change()
        self.dealer_on_duty = new_dealer
        self.log.info("dealer change", dealer=new_dealer)

    async def clear(self, code: str, operator: Operator) -> None:
        """A supervisor clears a latched fault (the device too, for its own faults); a held step
        then goes on. A dealer is refused (devices.faults.SUPERVISOR_CLEARS)."""
        owners = [machine for machine in self.equipment if code in {f.code for f in machine.latch.faults}]
        if not owners:
            latched = sorted({fault.code for fault in self.faults}) or "none"
            raise KeyError(f"{code} is not latched at {self.name}; latched: {latched}")
        for machine in owners:
            await machine.clear(code, operator)
        self._cleared.set()

    # -- a round ----------------------------------------------------------------------------------
    async def play_round(self, players: Players) -> Round:
        """Play one round to completion, its cards in the discard rack; returns the round, whose
        ``records`` are its log. After the cover card the shoe is changed before this returns."""
        await self._ready_shoe()
        self.rounds += 1
        round_ = Round(
            self.rounds, rules=self.rules, verify=self.shoe.opens, dealer=self.dealer_on_duty, table=self.name
        )
        try:
            for wager in players.wagers(self.rounds, self.rules.positions):
                round_.handle(wager)
            round_.handle(StartDeal(shoe_status(self.shoe)))
            self.shoe.start_round()
        except BaseException:
            round_.close()
            raise
        play = _Play(round_, players, self.dealer.count_rack())
        while round_.state != COMPLETE:
            await self._step(play)
        await self.shoe.end_round()
        self.reader.end_round()
        if self.shoe.state == COLLECTING:
            await self._change_shoe()
        return round_

    async def _step(self, play: _Play) -> None:
        """The next thing the round waits for: a card, a choice, an answer, or the pickup."""
        slot = play.round.expected
        if slot is not None:
            await self._deal(play, slot)
            return
        state = play.round.state
        if state == INSURANCE:
            self._offer_insurance(play)
        elif state == PEEKING:
            await self._peek(play)
        elif state == PLAYER_TURNS and play.round.current_hand is not None:
            self._decide(play)
        elif state in (PLAYER_TURNS, DEALER_BLACKJACK):
            await self._turn_hole_card_up(play)
        elif state == DEALER_TURN:
            self._handle(play, Settle())
        elif state in (SETTLED, VOIDED):
            self._pick_up(play)
        else:
            assert state == HELD and play.round.hold is not None
            await self._await_ruling(play)

    async def _await_ruling(self, play: _Play) -> None:
        """An irregularity the section does not resolve holds the round, cards where they lie,
        until a supervisor rules on it through ``resolve``."""
        self.log.warning(
            "round held", round=play.round.number, irregularity=str(play.round.hold.irregularity)
        )
        self.held_round = play.round
        self._ruled.clear()
        try:
            await self._ruled.wait()
        finally:
            self.held_round = None

    def resolve(self, operator: Operator, resolution: Resolution) -> None:
        """A supervisor's ruling on the held round: CONTINUE as the irregularity's kind says, or
        VOID (every unsettled wager returned, the cards picked up). A dealer's ruling, or one not
        offered for this irregularity, is refused with its rule and changes nothing."""
        if self.held_round is None:
            raise LookupError(f"{self.name}: no round is held")
        self.held_round.handle(SupervisorResolve(operator, resolution))
        self._ruled.set()

    async def _deal(self, play: _Play, slot: Slot) -> None:
        """672a.7(b), (e): the card the round expects, from the shoe to its place; a cover card
        that came out first is set aside and told to the round (672a.7(d))."""
        cover = self.shoe.cover
        card = await self._held_on_fault(lambda: self.shoe.deal(face_up=slot.face_up))
        if self.shoe.cover is not cover:
            self._handle(play, CardArrives(COVER_CARD))
        self._handle(play, CardArrives(card))
        # A card the round would not take (it holds) waits beside the layout, not in the hand.
        self.dealer.place(SET_ASIDE if play.round.state == HELD else slot.place, slot.face_up)

    def _offer_insurance(self, play: _Play) -> None:
        """672a.7(f): each player answers the insurance offer, clockwise; then the offer closes."""
        round_ = play.round
        assert round_.dealer_up is not None
        for seat in clockwise(round_.positions):
            choice = play.players.insurance(round_.positions[seat].dealt_hand, round_.dealer_up)
            if choice is not None:
                self._handle(play, choice)
        self._handle(play, CloseInsurance())

    async def _peek(self, play: _Play) -> None:
        """672a.7(g): the reader says whether the hole card gives the dealer a Blackjack; nothing more."""
        assert play.round.dealer_up is not None
        await self._while_latched()
        self.dealer.hole_card_to_reader()
        try:
            blackjack = await self.reader.peek(play.round.dealer_up)
        finally:
            self.dealer.hole_card_from_reader()
        self._handle(play, PeekAnswer(blackjack))

    def _decide(self, play: _Play) -> None:
        """672a.7(h)-(j): the hand in turn decides among what the rules allow it."""
        round_ = play.round
        hand = round_.current_hand
        assert hand is not None and round_.dealer_up is not None
        action = play.players.decide(hand, round_.dealer_up, round_.legal_decisions())
        self._handle(play, Decision(hand.seat, action))
        if action is PlayerAction.SPLIT:
            hands = round_.positions[hand.seat].hands
            self.dealer.split(hand.label, hands[hands.index(hand) + 1].label)

    async def _turn_hole_card_up(self, play: _Play) -> None:
        """672a.7(k): the hole card turned up, its face proven by the shoe against its seal."""
        hole = play.round.hole
        assert isinstance(hole, SealedCard)
        face = await self._held_on_fault(lambda: self.shoe.reveal(hole))
        self._handle(play, RevealHole(face))

    def _pick_up(self, play: _Play) -> None:
        """672a.7(s): the round's cards to the rack in its pickup order, and the rack's count."""
        order = play.round.pickup_order()
        self.dealer.pick_up([pickup.place for pickup in order[play.removed :]])
        self._handle(play, Discard(self.dealer.count_rack() - play.rack_before))

    def _handle(self, play: _Play, message: Message) -> None:
        """Give the round one message; a hand it paid at once leaves the layout now (672a.7(h)(1))."""
        play.round.handle(message)
        early = [pickup.place for hand in play.round.removed for pickup in hand_pickup(hand)]
        if len(early) > play.removed:
            self.dealer.pick_up(early[play.removed :])
            play.removed = len(early)

    # -- the shoe's life --------------------------------------------------------------------------
    async def _ready_shoe(self) -> None:
        """Before a deal: the burn that is due (672a.7(c)), the shoe changed after a cover card that
        came out at a burn (672a.7(d)), and no fault latched."""
        while True:
            await self._while_latched()
            if self.shoe.state == NEEDS_BURN:
                if await self._held_on_fault(self.shoe.burn) is not None:
                    self.dealer.burn()
            elif self.shoe.state == COLLECTING:
                await self._change_shoe()
            else:
                return

    async def _change_shoe(self) -> None:
        """672a.7(d)(1)-(2): the remaining cards to the rack and the batch counted; the held batch
        into the shoe with the cover card; the played batch back to the shuffler, shuffled, held."""
        self.dealer.empty_shoe()
        await self.shoe.collect(self.dealer.count_rack())
        played = self.in_shoe
        await self._to_shoe()
        self.in_shoe, self.held = self.held, played
        self.dealer.rack_to_shuffler()
        await self._shuffle(played)
        self.shuffler.hold()
        self.log.info("shoe changed", in_shoe=self.in_shoe, held=self.held)

    async def _shuffle(self, back: str) -> None:
        """The batch in the shuffler's input, configured, shuffled and counted (NOTES.md §5.3)."""
        await self.shuffler.configure(self.rules.decks, 0, back)
        await self.shuffler.shuffle()

    async def _to_shoe(self) -> None:
        """The shuffled batch into the shoe (672a.7(a)), the cover card inserted, the shoe told."""
        await self._while_latched()
        await self.shuffler.deliver_to_shoe()
        self.dealer.insert_cover_card(self.cover_depth)
        await self.shoe.load(self.batch_size)

    # -- holding for a supervisor -------------------------------------------------------------------
    async def _held_on_fault(self, action: Callable[[], Awaitable[T]]) -> T:
        """Run a card-moving action; if a fault is (or gets) latched, wait for the supervisor's
        clear and run it again. A jam or an empty shoe moved no card, so nothing is lost."""
        while True:
            await self._while_latched()
            try:
                return await action()
            except ShoeFault as fault:
                self.log.warning("shoe fault", fault=fault.code.name, detail=fault.detail)
            except RuleViolation as refusal:
                if refusal.rule is not LATCH_BLOCKS:
                    raise

    async def _while_latched(self) -> None:
        while faults := self.faults:
            self.log.warning(
                "table held",
                faults=[fault.code for fault in faults],
                clause=HOLD_FOR_SUPERVISOR.clause,
            )
            self._cleared.clear()
            await self._cleared.wait()
