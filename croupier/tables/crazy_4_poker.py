"""One Crazy 4 Poker table dealt from the hand on its devices: shuffler, progressive system, dealer.

``Crazy4PokerTable`` is the table service's orchestration of 58 Pa. Code § 657a.9, as
free_bet_blackjack.py is of 672a.7. It owns the device machines (devices/: ``Shuffler``,
``Progressive``), feeds each connection's events to its machine (feeding.py), and plays rounds of
the game's round machine (games.crazy_4_poker), turning what the round expects into device commands
and dealer prompts:

- (a)(1): the table opens only with an automated shuffler; one 52-card deck is shuffled for each
  round and its order read sealed (devices/shuffler.py); the round gets the commitment only;
- (a)(2): the dealer takes the deck from the shuffler's output into one hand for the whole round;
- (a)(3): "no more bets" locks the progressive controller; its accepted count must equal the value
  chips the dealer collects before any card; a mismatch latches CHIP_COUNT_MISMATCH on the
  progressive (only a supervisor clears it) and holds the round until a supervisor rules;
- (b): one card at a time from the hand, the Six Card Bonus card first, then clockwise, five each;
- (c)-(f): the stub to the rack, counted when the round says so; a wrong count voids the round;
- the showdown: the sealed order revealed, the hands reconstructed from it and the deal order, or,
  at a table whose shuffler reports no order (``shuffler_reports_order = false``), each hand a
  wager is settled on reported by the dealer; a hand not reported holds the round (657a.1 Hand);
  progressive awards paid through the controller (``Progressive.award``).

No face reaches a log or an exception before the showdown: the shuffler's order stays sealed until
``RevealOrder`` opens it, after every decision.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any, Protocol

import structlog

from croupier.screen.answers import Answer, Answers, Offer, ask, each, received, take
from croupier.screen.bodies import cards_body, one_of, place_counts_body
from croupier.screen.dealer import ScreenDealer
from croupier.screen.players import KeyedPlayers
from croupier.tables.assembly import one_deck_shuffler
from croupier.tables.dealer import Dealer
from croupier.tables.feeding import Feeds
from croupier.tables.game_kept import GameKept
from croupier.tables.holding import SupervisorHolds
from croupier.tables.registry import Connections, Options, TableKind
from devices.equipment import Equipment
from devices.linked import HitRefused
from devices.progressive import LOCKED, Progressive
from devices.progressive_rules import AWARD_TO_WAGER, CHIP_COUNT, KEYED_RESET, LINK_HEARD, NO_MORE_BETS
from devices.shuffler import Batch, Shuffler
from drivers.progressive import MeterSignDriver, ProgressiveDriver
from drivers.protocol.classes.progressive import AwardResult, RoundState, seats_in
from drivers.protocol.classes.shuffler import CARDS_PER_DECK
from drivers.shuffler import SealedOrder
from games.common import stub_count
from games.common.machine_parts import HELD, VOIDED
from games.common.messages import Message
from games.crazy_4_poker import GAME, Round, RuleSet, Table, clauses
from games.crazy_4_poker import dealing as crazy_4_dealing
from games.crazy_4_poker import inputs as crazy_4
from games.crazy_4_poker.evaluator import HAND_SIZE
from games.crazy_4_poker.inputs import (
    DEALER,
    SIX_CARD,
    AwardPaid,
    CardDealt,
    ChipCount,
    ChooseHand,
    DeckHand,
    Discard,
    Fold,
    HandCounts,
    NoMoreBets,
    Place,
    PlaceWagers,
    Play,
    ProgressiveLocked,
    ReportHand,
    RevealOrder,
    Settle,
    ShuffleReport,
    StubCount,
    StubToRack,
)
from games.crazy_4_poker.machine import COUNTING, DEALING, LOCKING, MISDEAL_CHECK, SHOWDOWN
from games.crazy_4_poker.rules_config import Shuffler as ShufflerKind
from vocabulary.cards import Card
from vocabulary.events import Events
from vocabulary.operators import SUPERVISOR_CLEARS, Operator, Role
from vocabulary.rules import PUBLISHED_RULES, Rule, RuleViolation

TAKEN_BY_HAND = Rule(
    "657a.9(a)(1)-(2)",
    "the deck shuffled for the round leaves the shuffler in the dealer's hand, only as it passed",
)


class Crazy4Dealer(Dealer, Protocol):
    """The dealer's steps when dealing from the hand (simulator.games.crazy_4_poker simulates them)."""

    def take_deck(self) -> None:
        """Take the shuffled deck from the shuffler's output into the chosen hand (657a.9(a)(2))."""

    def deal_card(self, place: str) -> None:
        """One card from the top of the hand, face down, to ``place`` (657a.9(b))."""

    def count_stub(self) -> Answer[int]:
        """Count the stub face down (657a.9(d)); keyed on the dealer's screen."""

    def stub_to_rack(self) -> None:
        """Put the stub in the discard rack unexposed (657a.9(c), (e))."""

    def count_places(self, places: Sequence[str]) -> Mapping[str, int]:
        """Count the cards at each place, face down (657a.9(f))."""

    def recount_places(self, places: Sequence[str]) -> Answer[Mapping[str, int]]:
        """After a wrong stub count, count the cards at each place, face down (657a.9(f))."""

    def replace_deck(self, back: str) -> None:
        """Remove the racked deck from the table and bring a new one (657a.9(f))."""

    def report_hand(self, place: str) -> Answer[tuple[Card, ...] | None]:
        """Turn up the hand at ``place`` and report its cards (the Six Card Bonus card alone), when
        the shuffler reports no order; None: not reported."""

    def count_progressive_chips(self) -> Answer[int]:
        """Collect the value chips on the progressive sensors and count them (657a.9(a)(3));
        keyed on the dealer's screen."""


class Crazy4Players(Protocol):
    """Whoever sits at the table: their wagers and, having looked at their cards, Play or fold."""

    def wagers(self, round_number: int, positions: int) -> Answers[PlaceWagers]:
        """The wagers placed on positions 1 to ``positions``; a progressive wager is a chip on the
        seat's sensor too."""

    def decide(self, seat: int) -> Answer[Play | Fold]:
        """The seat's Play (1x to 3x the Ante) or fold (published game rules)."""


def verify_order(sealed: object, cards: tuple[Card, ...]) -> bool:
    """The shuffler's check of a revealed order: it opens the commitment the device reported before
    the host read it, and the cards are the order read (devices/shuffler.py ORDER_SEALED)."""
    return isinstance(sealed, SealedOrder) and sealed.opens(sealed.commitment) and sealed.unseal() == cards


def layout_place(place: Place) -> str:
    """The place on the felt as the dealer's screen names it: ``"seat 3"``, ``"dealer"``, ``"six-card"``."""
    return f"seat {place}" if isinstance(place, int) else place


@dataclass(frozen=True)
class _SignFeed:
    """The meter sign's events to the progressive's ``apply_sign``, in the shape Feeds takes."""

    progressive: Progressive

    @property
    def name(self) -> str:
        return self.progressive.sign.name

    @property
    def driver(self) -> Any:  # Any: the controller's driver
        return self.progressive.sign

    def apply(self, event: object) -> None:
        self.progressive.apply_sign(event)


class Crazy4PokerTable(GameKept[Table], SupervisorHolds):
    """One table: its shuffler and progressive machines, its dealer, its rule set and its rounds.

    Use it inside ``running()``, ``open`` it once, then ``play_round`` as often as wanted; a
    supervisor ``clear``s latched faults, ``resolve``s held rounds and ``reset_level``s a level an
    award froze (the next round opens betting only after that keyed reset).
    """

    progressive: Progressive
    dealer: Crazy4Dealer

    def __init__(
        self,
        *,
        shuffler: Shuffler | None,
        progressive: Progressive,
        dealer: Crazy4Dealer,
        rules: RuleSet | None = None,
        name: str = "table",
        back: str = "red",
        deck_hand: DeckHand = DeckHand.LEFT,
        award_levels: Mapping[str, int] | None = None,
        record_events: list[object] | None = None,
    ) -> None:
        """``award_levels``: the controller level each line of ``progressive_pay_table`` pays
        (default level 1). ``record_events``: a list to keep every device event applied."""
        self.rules = rules or RuleSet()
        self.award_levels = dict(award_levels or {})
        unknown = set(self.award_levels) - set(self.rules.progressive_pay_table)
        if unknown:
            raise ValueError(f"award_levels: {sorted(unknown)} are not lines of progressive_pay_table")
        self.shuffler, self.progressive, self.dealer = shuffler, progressive, dealer
        self.name, self.back, self.deck_hand = name, back, deck_hand
        self.game = Table(self.rules, verify_order, name)
        self.in_play: Round | None = None  # the round being dealt, for ``position``
        machines: list[Any] = [progressive, _SignFeed(progressive)]  # Any: a machine and its sign's feed
        self.events = Events()
        self.feeds = Feeds([*machines, *([shuffler] if shuffler else [])], record_events, events=self.events)
        self.log = structlog.get_logger("croupier.tables").bind(table=name)
        self._init_holds()

    @property
    def equipment(self) -> tuple[Equipment[Any], ...]:  # Any: any device's driver
        return (self.progressive, *([self.shuffler] if self.shuffler else []))

    @contextlib.asynccontextmanager
    async def running(self) -> AsyncIterator[Crazy4PokerTable]:
        """Apply every device's events to its machine while the block runs."""
        async with self.feeds.running():
            yield self

    # -- the table's day --------------------------------------------------------------------------
    async def open(
        self,
        floorperson: Operator,
        position: Mapping[str, Any] | None = None,  # Any: JSON values
    ) -> bool:
        """657a.9(a)(1): refused without an automated shuffler (configured and connected); then the
        shuffler opened (random mode only), the progressive synced and the first deck loaded.

        ``position``: where the service left the day before it restarted (``position()``): the
        deck is then already in the shuffler's input tray, where each round leaves it. Returns
        whether the day went on from ``position``."""
        self.game.open()  # the rule set names a shuffler, or the refusal names the clause
        if self.shuffler is None:
            raise RuleViolation(clauses.SHUFFLER_REQUIRED, f"{self.name}: no automated shuffler is connected")
        await self.feeds.settled()
        self._opening("opening the shuffler")
        await self.shuffler.open_table()
        if position is None:
            self._opening("reading the progressive controller's round and meters")
            await self.progressive.sync()
            self._opening("loading the first deck into the shuffler")
            self.dealer.load_shuffler(self.back)
        else:
            self._opening("reading the progressive controller's round and meters")
            await self.progressive.resume()
            self.game.rounds_since_count = position["rounds_since_stub_count"]
            await self.shuffler.resume(position["shuffler"], input_count=CARDS_PER_DECK)
        resumed = position is not None
        self.log.info("table open", back=self.back, deck_hand=self.deck_hand.value, resumed=resumed)
        return resumed

    def position(self) -> dict[str, Any]:  # Any: JSON values
        """Where the day is, for ``open`` after a restart: the rounds since the stub was counted
        (657a.9(d), a round in play among them: games.common.stub_count) and the shuffler's
        batches; the deck waits in the shuffler's input tray."""
        shuffler = None if self.shuffler is None else self.shuffler.saved()
        uncounted = stub_count.saved(self.game.rounds_since_count, in_play=self.in_play is not None)
        return {"rounds_since_stub_count": uncounted, "shuffler": shuffler}

    async def reset_level(self, level: int, key: str, operator: Operator) -> None:
        """The keyed reset of a level an award froze, by a supervisor (605a.7(a))."""
        if operator.role is not Role.SUPERVISOR:
            raise RuleViolation(SUPERVISOR_CLEARS, f"{operator.ident} may not turn the reset key")
        await self.progressive.reset_level(level, key)
        self._cleared.set()  # a round waiting for the reset goes on

    # -- a round ----------------------------------------------------------------------------------
    async def prepare_round(self) -> None:
        """Before betting opens: no fault latched, and no level frozen by a hit at this table:
        betting opens again only after its keyed reset here (605a.7(a)). A linked level a hit at
        another table locks holds nothing here: its progressive wagers are refused until the lock
        lifts (``_wager``), and the base game plays on (decision 0039). The deck is shuffled once
        it is open."""
        while True:
            await self._while_latched()
            frozen = self.progressive.frozen_here
            if not frozen:
                return
            self.log.warning("table held", jackpot_locked=frozen, clause=KEYED_RESET.clause)
            self._cleared.clear()
            await self._cleared.wait()

    def _wager(self, round_: Round, wager: Message) -> None:
        """A wager to the round; a progressive one is refused while the link is lost or not yet
        reconciled, or a hit at any table locks a linked level (decision 0039), with the reason
        naming the link (and the level and the hit)."""
        if isinstance(wager, PlaceWagers) and wager.progressive:
            refused = self.progressive.wagers_refused()
            if refused is not None:
                raise RuleViolation(LINK_HEARD, f"seat {wager.seat}: progressive wager refused: {refused}")
        self._give(round_, wager)

    async def play_round(self, players: Crazy4Players) -> Round:
        """Play one round to completion, its cards in the discard rack; returns the round."""
        await self.prepare_round()
        await self._held_on_fault(self.progressive.open_round)
        batch = await self._shuffle_deck()
        round_ = self.game.new_round()
        self.in_play = round_
        self._began(round_)
        async for wager in each(players.wagers(round_.number, self.rules.positions)):
            take(wager, partial(self._wager, round_))
        counting = self.rules.shuffler is ShufflerKind.COUNTING
        self._give(round_, ShuffleReport(count=batch.report.count if counting else None, order=batch.order))
        self._give(round_, ChooseHand(self.deck_hand))
        self.dealer.take_deck()
        await self._close_betting(round_)
        if round_.state == VOIDED:  # a supervisor voided the held round: no card was dealt
            self.dealer.stub_to_rack()
        else:
            await self._deal(round_)
            await self._stub(round_)
        if round_.state != VOIDED:
            await self._showdown(round_, players, batch.order)
        if round_.state == VOIDED:  # every wager returned (none is settled when VOID is offered)
            self.progressive.voided()
        await self._pick_up(round_)
        self.game.round_over(round_)
        self.in_play = None
        if round_.deck_removed:
            self.dealer.replace_deck(self.back)
            self.game.new_deck()
            self.dealer.load_shuffler(self.back)
        else:
            self.dealer.rack_to_shuffler()
        self._ended(round_)
        return round_

    async def _shuffle_deck(self) -> Batch:
        """One deck shuffled and counted, its order read sealed (unless the table's shuffler reports
        none: ``shuffler_reports_order``), then taken by the dealer's hand."""
        shuffler = self.shuffler
        assert shuffler is not None
        await self._held_on_fault(lambda: shuffler.configure(1, 0, self.back))
        await self._shuffle_until_it_passes(shuffler)  # a failed batch: out of play until cleared
        batch = shuffler.batch
        if batch is None or batch.report.count != CARDS_PER_DECK:
            raise RuleViolation(TAKEN_BY_HAND, "the shuffler holds no shuffled 52-card deck")
        if self.rules.shuffler_reports_order and (batch.order is None or len(batch.order) != CARDS_PER_DECK):
            raise RuleViolation(TAKEN_BY_HAND, "the shuffler holds no sealed order of a 52-card deck")
        shuffler.taken_by_hand()
        return batch

    async def _close_betting(self, round_: Round) -> None:
        """657a.9(a)(3): "no more bets", the progressive locked, the chips counted against it."""
        self._give(round_, NoMoreBets())
        if round_.state == DEALING:  # no progressive wager offered: the system locks all the same,
            await self._locked()  # with nothing accepted and nothing to count
        if round_.state != LOCKING:
            return
        state = await self._locked()
        self._give(round_, ProgressiveLocked(seats_in(state.accepted)))
        if round_.state == COUNTING:
            await self._count_chips(round_)
        if round_.state == HELD:
            await self._await_ruling(round_)

    async def _locked(self) -> RoundState:
        """The progressive locked at "no more bets"; a lock whose answer was lost is reconciled from
        the controller, never resent (``Progressive.reconcile_lock``)."""
        progressive = self.progressive
        return await self._or_reconciled(progressive.lock, progressive.reconcile_lock, "lock", NO_MORE_BETS)

    async def _awarded(self, level: int, seat: int) -> AwardResult:
        """A progressive award paid through the controller; one whose answer was lost is reconciled
        from the level's hits, never resent (``Progressive.reconcile_award``)."""
        return await self._or_reconciled(
            lambda: self.progressive.award(level, seat),
            lambda: self.progressive.reconcile_award(level, seat),
            "award",
            AWARD_TO_WAGER,
        )

    async def _count_chips(self, round_: Round) -> None:
        """The dealer's count against the accepted count: a mismatch holds the round and latches
        CHIP_COUNT_MISMATCH; after a supervisor's clear the dealer counts again until they agree."""
        chips = await received(self.dealer.count_progressive_chips)
        self._give(round_, ChipCount(chips))
        while self.progressive.state == LOCKED:
            await self._while_latched()  # a sign or sensor fault first: nothing moves while latched
            try:
                self.progressive.chip_count(chips)
            except RuleViolation as mismatch:
                if mismatch.rule is not CHIP_COUNT:
                    raise
                await self._while_latched()
                chips = await received(self.dealer.count_progressive_chips)

    async def _deal(self, round_: Round) -> None:
        """657a.9(b): the card the round expects, from the hand to its place, none before the
        progressive is reconciled."""
        await self._while_latched()
        self.progressive.begin_dealing()
        while (place := round_.expected) is not None:
            await self._while_latched()
            self.progressive.require_ready_to_deal()
            self.dealer.deal_card(layout_place(place))
            self._give(round_, CardDealt(place))

    async def _stub(self, round_: Round) -> None:
        """657a.9(c)-(f): the stub to the rack, counted first when due; a wrong count has each
        place counted and the round voided."""
        if not round_.stub_count_due:
            self.dealer.stub_to_rack()
            self._give(round_, StubToRack())
            return
        await ask(self.dealer.count_stub, lambda counted: self._give(round_, StubCount(counted)))
        if round_.state == MISDEAL_CHECK:
            places = list(dict.fromkeys(round_.deal))
            counted = await received(lambda: self.dealer.recount_places([layout_place(p) for p in places]))
            self._give(round_, HandCounts({place: counted[layout_place(place)] for place in places}))
        self.dealer.stub_to_rack()

    async def _showdown(self, round_: Round, players: Crazy4Players, order: SealedOrder | None) -> None:
        """Each seat plays or folds; the sealed order opens the hands, or without one the dealer
        reports each hand a wager is settled on; wagers settle; the awards are paid through the
        progressive controller. The round has an award only for a seat whose wager the controller
        accepted at the lock (one it refused, its sensors locked out or failed, is returned and in no
        action: clauses.PROGRESSIVE_REFUSED); one the link controller refuses is recorded as an
        irregularity, not paid, its level frozen until the keyed reset (decision 0044). A hand not
        reported holds the round (657a.1 Hand): on a supervisor's CONTINUE the dealer is asked for
        it again, and the round settles once known."""
        for seat in sorted(round_.positions):
            await ask(partial(players.decide, seat), partial(self._give, round_))
        if order is not None:
            self._give(round_, RevealOrder(tuple(card for card in order.unseal() if card is not None)))
        while round_.state in (SHOWDOWN, HELD):
            if round_.state == HELD:
                await self._await_ruling(round_)
                continue
            if order is None:
                await self._reports(round_)
            self._give(round_, Settle())
        for seat, line, _award in round_.awards:
            try:
                result = await self._awarded(self.award_levels.get(line, 1), seat)
            except HitRefused:  # recorded as an irregularity; the level holds for its keyed reset
                continue
            self._give(round_, AwardPaid(seat, result.level, result.amount_cents, result.hit_number))
            self.log.info("progressive award", seat=seat, hand=line, cents=result.amount_cents)

    async def _reports(self, round_: Round) -> None:
        """The dealer turns up and reports each hand not known yet that a wager is settled on, the
        dealer's own first (asked until given: nothing settles without it); a player's hand the
        dealer does not report stays unknown, and the settlement holds the round for it."""
        for place in round_.unreported:

            def report(cards: tuple[Card, ...] | None, place: Place = place) -> None:
                if cards is not None:
                    self._give(round_, ReportHand(place, cards))
                elif place == DEALER:
                    raise RuleViolation(clauses.DEALER_HAND_KNOWN, "the dealer's hand must be reported")

            await ask(partial(self.dealer.report_hand, layout_place(place)), report)

    async def _pick_up(self, round_: Round) -> None:
        """657a.9(c): every card on the layout to the discard rack, counted."""
        before = self.dealer.count_rack()
        places = [layout_place(place) for place in dict.fromkeys((*round_.deal, *round_.misplaced))]
        counted = self.dealer.count_places(places)
        self.dealer.pick_up([place for place in places for _ in range(counted[place])])
        self._give(round_, Discard(self.dealer.count_rack() - before))
        if round_.state == HELD:
            await self._await_ruling(round_)


# -- the table as the service knows it (croupier.tables.registry) ---------------------------------

CRAZY_4_IN_TURN = Rule(PUBLISHED_RULES, "each player in turn Plays or folds, having seen the hand")

#: The decision the players key, read by its model (croupier.screen.bodies).
CRAZY_4_DECISION = one_of("action", {"play": crazy_4.Play, "fold": crazy_4.Fold}, "Crazy4PokerDecision")


#: A hand turned up and keyed (five cards), or the Six Card Bonus card alone; each place's cards
#: counted after a wrong stub count (657a.9(f)). Read by their models (croupier.screen.bodies).
HAND_REPORT = cards_body("cards", HAND_SIZE, "HandReport")
SIX_CARD_REPORT = cards_body("cards", 1, "SixCardReport")
PLACE_COUNTS = place_counts_body("PlaceCounts", ())


class Crazy4ScreenDealer(ScreenDealer):
    """The Crazy 4 Poker dealer's own steps on the screen (Crazy4Dealer): the deck taken from the
    shuffler and replaced, each place counted after a wrong stub count, a hand turned up where the
    shuffler reports no order."""

    def take_deck(self) -> None:
        self._step("take_deck")

    def count_places(self, places: Sequence[str]) -> Mapping[str, int]:
        """The cards at each place as the table placed them (the pickup's order)."""
        return {place: self.felt[place] for place in places}

    async def recount_places(self, places: Sequence[str]) -> Offer[Mapping[str, int]]:
        parse = place_counts_body("PlaceCounts", places)
        return await self.screen.ask("place_counts", parse, places=list(places))

    def replace_deck(self, back: str) -> None:
        self.rack = 0
        self._step("replace_deck", back=back)

    async def report_hand(self, place: str) -> Offer[tuple[Card, ...] | None]:
        """The hand at ``place`` turned up and keyed (five cards; the Six Card Bonus card alone)."""
        body = SIX_CARD_REPORT if place == SIX_CARD else HAND_REPORT
        return await self.screen.ask("hand_report", body, place=place, clause="657a.1")


class KeyedCrazy4Poker(KeyedPlayers):
    wager = crazy_4.PlaceWagers
    check = staticmethod(crazy_4_dealing.check_wager)

    async def decide(self, seat: int) -> Offer[Play | Fold]:
        return await self.screen.ask(
            "decision",
            CRAZY_4_DECISION,
            seat=seat,
            turn=CRAZY_4_IN_TURN,
            legal=["fold", "play"],
            multiples=list(range(1, self.rules.max_play_multiple + 1)),
        )


def assemble(connections: Connections, options: Options) -> Crazy4PokerTable:
    """The table over its one-deck shuffler (reading the order unless the rules say it reports
    none) and its progressive system with the meter sign."""
    options.pop("dealer_on_duty", None)
    progressive = Progressive(
        ProgressiveDriver(connections["progressive"]),
        MeterSignDriver(connections["meter-sign"]),
        **({"win_deadline": options.pop("win_deadline")} if "win_deadline" in options else {}),
    )
    rules = options.get("rules")
    read_order = rules is None or rules.shuffler_reports_order
    return Crazy4PokerTable(
        shuffler=one_deck_shuffler(
            connections, allow_seeded=options.pop("allow_seeded", False), read_order=read_order
        ),
        progressive=progressive,
        **options,
    )


TABLE = TableKind(
    game=GAME,
    assemble=assemble,
    players=KeyedCrazy4Poker,
    answers={
        "decision": (CRAZY_4_DECISION,),
        "place_counts": (PLACE_COUNTS,),
        "hand_report": (HAND_REPORT, SIX_CARD_REPORT),
    },
    dealer=Crazy4ScreenDealer,
)
