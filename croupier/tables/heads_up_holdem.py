"""One Heads Up Hold 'Em table on its devices: an automated dealing shoe and a shuffler (677a.10).

``HeadsUpHoldemTable`` plays rounds of games.heads_up_holdem.Round on the devices, as
free_bet_blackjack.py does for Free Bet Blackjack, and reuses that table's fault hold, clear and
supervisor ruling (see ``_SHARED``):

- the shuffler shuffles and counts each 52-card deck and hands it to the shoe; the shoe runs in its
  auto-reshuffling mode (docs/devices.md), taking the round's cards back after each round;
- "no more bets" is announced before any stack leaves the shoe (677a.10(a)(2));
- each stack of two comes from the shoe face down (``Shoe.deal_stack``: SealedCards), revealed only
  through the shoe at the showdown;
- after the last stack the dealer removes the remaining cards from the shoe (677a.10(c)): the shoe
  lets the stub out through its reader, read sealed card by card into its tray
  (``_remove_stub``), and the dealer takes it into the hand; the five community cards are dealt
  from the top of the hand, one at a time, each known to the table as the stub card the shoe read
  in that place, so it is proven by the shoe when turned up; then the stub is counted when due and
  put in the rack unexposed (677a.10(c)-(e); docs/decisions/0020-holdem-community-cards-from-the-hand.md);
- without a counting shuffler's report the dealer counts the stub at least every 5 rounds (d); a
  wrong count leads to the dealer's misdeal finding (f): the round is void and, unless misdealt with
  52 cards, the deck leaves the table and a new one is shuffled and loaded;
- ``community_first``: the shoe dispenses the five community cards first and keeps its stub,
  reporting its own count in place of the stub count (677a.10(g)).
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any, Protocol, TypeVar

import structlog

from croupier.screen.answers import Answer, Answers, Offer, ask, each, received, take
from croupier.screen.bodies import flag_body, message_body
from croupier.screen.dealer import ScreenDealer
from croupier.screen.players import KeyedPlayers
from croupier.tables.assembly import one_deck_shuffler
from croupier.tables.dealer import Dealer
from croupier.tables.events import TableRecord
from croupier.tables.feeding import Feeds
from croupier.tables.game_kept import GameKept
from croupier.tables.holding import SupervisorHolds
from croupier.tables.registry import Connections, Options, TableKind
from devices.equipment import Equipment
from devices.shoe import EMPTY, READY, Shoe, ShoeClauses, ShoeFault
from devices.shuffler import Shuffler
from drivers.protocol.classes.shoe import MAX_STACK
from drivers.shoe import ShoeDriver
from games.common import stub_count
from games.common.machine_parts import HELD, SETTLED, VOIDED
from games.common.messages import Arrival
from games.common.pickup import SET_ASIDE
from games.common.records import Value
from games.common.seating import clockwise
from games.heads_up_holdem import GAME, Round, RuleSet, Table
from games.heads_up_holdem import clauses as holdem_clauses
from games.heads_up_holdem import dealing as holdem_dealing
from games.heads_up_holdem import inputs as holdem
from games.heads_up_holdem.dealing import DECK
from games.heads_up_holdem.inputs import (
    Collect,
    CommunityDealt,
    DeckReport,
    MisdealFinding,
    NoMoreBets,
    PlaceWager,
    PlayerDecision,
    RevealCommunity,
    RevealHand,
    Settle,
    StackDelivered,
    StubRemoved,
    StubToRack,
    UnseenToRack,
)
from games.heads_up_holdem.machine import (
    COMMUNITY,
    FLOP,
    MISDEAL_CHECK,
    PREFLOP,
    STREETS,
    STUB,
    STUB_OUT,
)
from games.heads_up_holdem.playing import choices_on
from games.heads_up_holdem.positions import Position
from vocabulary.cards import Card, SealedCard
from vocabulary.events import Events
from vocabulary.operators import Operator
from vocabulary.rules import Rule

T = TypeVar("T")

#: The kind of the table's record of a deck removed before betting opened (a ``TableRecord``).
DECK_REMOVED = "deck_removed"


class HoldemDealer(Dealer, Protocol):
    """The dealer's steps a Hold 'Em table adds to a blackjack table's (croupier.tables.dealer)."""

    def unwrap_deck(self, back: str) -> None:
        """Bring a new 52-card deck with ``back`` onto the table, to be shuffled (677a.10(a)(1))."""

    def place_stack(self, place: str, count: int) -> None:
        """Move the stack in the shoe's tray to ``place``, face down (677a.10(b), (g))."""

    def take_stub(self) -> None:
        """Take the stub's cards the shoe let out into its tray into the hand, under those already
        there (677a.10(c))."""

    def deal_card(self, place: str) -> None:
        """One card from the top of the hand, face down, to ``place`` (677a.10(c): a community card)."""

    def count_stub(self) -> Answer[int]:
        """Count the stub in the hand, face down (677a.10(d)); keyed on the dealer's screen."""

    def stub_to_rack(self) -> None:
        """Put the stub in the discard rack unexposed (677a.10(c), (e))."""

    def misdealt(self) -> Answer[bool]:
        """After a wrong count: whether the dealer finds the cards were misdealt (677a.10(f))."""

    def rack_to_shoe(self) -> None:
        """Put the round's cards from the discard rack into the auto-reshuffling shoe, which
        shuffles them back in when told the round is over (677a.10(g))."""

    def remove_deck(self) -> int:
        """Take the whole deck off the table (677a.10(f)); returns the cards removed."""


class HoldemPlayers(Protocol):
    """Whoever sits at the table."""

    def wagers(self, round_number: int, positions: int) -> Answers[PlaceWager]:
        """The Ante and Odds (and side) wagers placed for a round (none: no round)."""

    def decide(self, position: Position, street: str, community: Sequence[Card]) -> Answer[PlayerDecision]:
        """The decision of ``position`` on ``street``, seeing the community cards turned up."""


@dataclass
class _Play:
    """One round in progress and who plays it."""

    round: Round
    players: HoldemPlayers


#: The automated dealing shoe's rules as 677a.10 lays them down: the deck placed in it ((a)(1)), no
#: stack before "no more bets" ((a)(2)), no card burned (the first stack dispensed goes to the first
#: player, (b)), the round's cards reshuffled by the shoe itself ((g)), and a deck found short or long
#: removed from the table ((f)), which is when this shoe's cards are collected and counted. There is
#: no cover card in a deck dealt whole; where the section is silent the rule cites its standard.
HOLDEM_SHOE = Rule(
    "677a.10(b)", "no card is burned: the first stack the shoe dispenses goes to the first player"
)
DECK_REMOVED_FROM_SHOE = Rule(
    "677a.10(f)", "a deck removed from the table is collected from the shoe and counted, and not dealt again"
)
SHOE_CLAUSES = ShoeClauses(
    loaded=Rule(
        "677a.10(a)(1)", "cards are dealt from the automated dealing shoe in which the deck was placed"
    ),
    burn_first=HOLDEM_SHOE,
    new_dealer_burns=HOLDEM_SHOE,
    no_burn_due=HOLDEM_SHOE,
    round_first=Rule(
        "677a.10(a)(2)", "no stack is dispensed before 'no more bets': cards are dealt within a round"
    ),
    one_round=Rule("677a.10(b)-(c)", "one round at a time: its stacks and the stub, then the next round"),
    cover_ends=DECK_REMOVED_FROM_SHOE,
    cover_placement=Rule(
        "NJ 13:69F-2.5 (analog)", "a deck dealt whole has no cover card: one that comes out is irregular"
    ),
    collect_and_count=DECK_REMOVED_FROM_SHOE,
    reshuffle=Rule(
        "677a.10(g)", "the shoe reshuffles the round's cards into the deck before they are dealt again"
    ),
    record_every_card=Rule(
        "decision 0018", "every card is recorded so that each hand can be reconstructed in a dispute"
    ),
)


class HeadsUpHoldemTable(GameKept[Table], SupervisorHolds):
    """One table: its shoe and shuffler machines, its dealer, its rule set, and the rounds it plays.

    Use it inside ``running()``, ``open`` it once, then ``play_round`` as often as wanted; a
    supervisor ``clear``s a latched fault and ``resolve``s a held round.
    """

    shoe: Shoe
    dealer: HoldemDealer
    #: The game's clauses for its shoe: the table's shoe is built with them.
    shoe_clauses = SHOE_CLAUSES

    def __init__(
        self,
        *,
        shoe: Shoe,
        shuffler: Shuffler,
        dealer: HoldemDealer,
        rules: RuleSet | None = None,
        name: str = "table",
        community_first: bool = False,
        record_events: list[object] | None = None,
    ) -> None:
        """``community_first``: the shoe dispenses the community cards first (677a.10(g))."""
        self.rules = rules or RuleSet()
        self.shoe, self.shuffler, self.dealer = shoe, shuffler, dealer
        self.name = name
        self.community_first = community_first
        self.game = Table(self.rules, self.shoe.opens, name)
        self.decks = 0  # decks put in play so far
        self.in_play: Round | None = None  # the round being dealt, for ``position``
        self.events = Events()
        self.feeds = Feeds(self.equipment, record_events, events=self.events)
        self.log = structlog.get_logger("croupier.tables").bind(table=name)
        self._init_holds()

    @property
    def equipment(self) -> tuple[Equipment[Any], ...]:  # Any: any device's driver
        return (self.shoe, self.shuffler)

    @contextlib.asynccontextmanager
    async def running(self) -> AsyncIterator[HeadsUpHoldemTable]:
        async with self.feeds.running():
            yield self

    async def open(
        self,
        floorperson: Operator,
        position: Mapping[str, Any] | None = None,  # Any: JSON values
    ) -> bool:
        """Read the shoe, open the shuffler (random mode only), set the shoe's mode, and put the
        first deck in play.

        ``position``: where the service left the day before it restarted (``position()``). With
        the shoe still holding its deck, that deck plays on, and the rounds since the stub was
        last counted go on being counted (677a.10(d)); with the shoe emptied (the deck taken out
        of play after a round cut off), a new deck is opened, numbered on. Returns whether the day
        went on."""
        self.rules.check_pay_tables()  # no pay table is built in: a ConfigError names the key
        await self.feeds.settled()  # the links' READY is in every machine
        self._opening("reading the shoe")
        counts = await self._shoe_read(self.shoe)  # what it told a service before this one applied first
        self._opening("opening the shuffler")
        await self.shuffler.open_table()
        self._opening("setting the shoe's mode")
        await self.shoe.set_mode(auto_reshuffle=True, community_first=self.community_first)
        if position is not None:
            self.decks = position["decks"]  # a new deck after a restart is numbered on
            if counts.remaining:
                self.game.rounds_since_stub_count = position["rounds_since_stub_count"]
                self._opening("taking back the deck held in the shuffler")
                await self.shuffler.resume(position["shuffler"], input_count=0)
                self.shoe.batch = _back(self.decks)  # the shoe's records name it, as before the restart
                self.shoe.resumed(DECK)  # once the equipment is found as left: counted as loaded
                self.log.info("table open", community_first=self.community_first, resumed=True)
                return True
        self._opening("putting the first deck in play: shuffled, counted, into the shoe")
        await self._new_deck()
        self.log.info("table open", community_first=self.community_first)
        return False

    def position(self) -> dict[str, Any]:  # Any: JSON values
        """Where the day is, for ``open`` after a restart: the decks put in play, the rounds since
        the stub was counted (677a.10(d), a round in play among them: games.common.stub_count), the
        shuffler's batches."""
        return {
            "decks": self.decks,
            "rounds_since_stub_count": stub_count.saved(
                self.game.rounds_since_stub_count, in_play=self.in_play is not None
            ),
            "shuffler": self.shuffler.saved(),
        }

    # -- a round ----------------------------------------------------------------------------------
    async def play_round(self, players: HoldemPlayers) -> Round:
        """Play one round to completion, its cards back in the shoe (or the deck removed)."""
        await self.prepare_round()
        round_ = self.game.new_round()
        self.in_play = round_
        self._began(round_)
        async for wager in each(players.wagers(round_.number, self.rules.positions)):
            take(wager, partial(self._give, round_))
        self._give(round_, NoMoreBets(self._deck_report()))  # 677a.10(a)(2): before any stack
        self.shoe.start_round()
        play = _Play(round_, players)
        while round_.state != "complete":
            await self._step(play)
        self.game.round_over(round_)
        self.in_play = None
        self.dealer.rack_to_shoe()
        await self._shoe_round_ended(self.shoe)  # the shoe counts the deck as it shuffles it again
        if round_.deck_removed:
            removed = await self._shoe_emptied()
            self.log.warning("deck removed", round=round_.number, cards=removed, clause="677a.10(f)")
        self._ended(round_)
        return round_

    async def _shoe_emptied(self) -> int:
        """The shoe closed and emptied, its cards collected to the rack (and counted there) and taken
        off the table: how many."""
        self.shoe.close_shoe()
        self.dealer.empty_shoe(self.shoe.remaining)
        await self._collected(self.shoe)
        return self.dealer.remove_deck()

    async def _deck_counted_wrong_removed(self) -> None:
        """677a.10(d), (f), (g): a shoe that keeps its stub counts the deck as it reshuffles, and that
        count stands for the stub's; one other than 52 finds the deck wrong with no round dealt from
        it to void, so the deck is removed before betting opens, the removal in the trail (a table
        record), and a new deck is put in play (the supervisor's clear of the shoe's WRONG_COUNT
        lets the table go on, not the deck: clauses.SHUFFLER_COUNT)."""
        counted = self.shoe.remaining
        removed = await self._shoe_emptied()
        rule = holdem_clauses.SHUFFLER_COUNT
        detail = f"the shoe counted {counted} cards, not {DECK}: the deck is removed, not dealt"
        fields: dict[str, Value] = {
            "clause": rule.clause, "counted": counted, "cards": removed, "detail": detail
        }  # fmt: skip
        self.events.publish(TableRecord(DECK_REMOVED, fields))
        self.log.warning("deck removed", counted=counted, cards=removed, clause=rule.clause)

    def _deck_report(self) -> DeckReport:
        """What the equipment says at "no more bets"; a shoe that keeps its stub reports its count."""
        return DeckReport(
            in_shoe=self.shoe.state == READY,
            shuffler_count=self.shoe.remaining if self.shoe.community_first else None,
            auto_reshuffle=self.shoe.auto_reshuffle,
            community_first=self.shoe.community_first,
        )

    async def _step(self, play: _Play) -> None:
        round_ = play.round
        state = round_.state
        if state == COMMUNITY:
            self._deal_community(play)
        elif round_.expected is not None:
            await self._deliver(play)
        elif state == STUB_OUT:
            await self._remove_stub(play)
        elif state == STUB:
            await self._stub(play)
        elif state == MISDEAL_CHECK:
            await self._misdeal_finding(play)
        elif state in STREETS and round_.to_act is not None:
            position, community = round_.positions[round_.to_act], tuple(round_.community_faces)
            await ask(lambda: play.players.decide(position, state, community), partial(self._give, round_))
        elif state in (PREFLOP, FLOP):
            await self._reveal_community(play)
        elif state in (SETTLED, VOIDED):
            self._collect(play)
        elif state == HELD:
            await self._await_ruling(play.round)
        else:
            await self._showdown(play)

    async def _deliver(self, play: _Play) -> None:
        """677a.10(b), (g): the stack due, sealed, from the shoe; a stack whose dispense's outcome
        was unknown is reconciled (``_reconciled``), its cards that left racked unseen and counted
        out of the deck (677a.10(e)). A stack the shoe stopped in at a card it let out unread keeps
        the cards it read before it (in the tray, recorded): the unread card racked, only the rest
        of the stack is dispensed again."""
        round_ = play.round
        due = round_.expected
        assert due is not None
        read: list[SealedCard] = []

        async def rest_of_stack() -> tuple[SealedCard, ...]:
            try:
                return (*read, *await self.shoe.deal_stack(due.count - len(read)))
            except ShoeFault as fault:
                read.extend(card for card in fault.read if isinstance(card, SealedCard))
                raise

        cards, unseen = await self._reconciled(self.shoe, rest_of_stack)
        if unseen:  # out of the shoe unrecorded while the outcome was unknown: racked unseen
            self._give(round_, UnseenToRack(unseen))
        self._give(play.round, StackDelivered(cards))
        self.dealer.place_stack(SET_ASIDE if round_.state == HELD else due.place, len(cards))

    async def _remove_stub(self, play: _Play) -> None:
        """677a.10(c): the remaining cards out of the shoe into the dealer's hand. The shoe lets
        them out through its reader into the tray, at most a frame's worth of commitments at a time
        (``MAX_STACK``), and the dealer takes each lot into the hand under the last, so the hand
        holds the stub in the order the shoe read it: the order the round deals the community
        cards in. A card that left unread (a misread, the last the shoe let out) is racked unseen
        before the lot goes on, and a lot whose outcome was unknown is reconciled as a stack is,
        its unrecorded cards racked unseen: either way the hand holds only cards the shoe read, and
        those racked count out of the deck (677a.10(e))."""
        round_ = play.round
        first = len(self.shoe.round_cards)

        async def next_lot() -> tuple[SealedCard, ...]:
            left = self.shoe.remaining
            if not left:  # reconciling found the shoe already empty
                return ()
            return await self.shoe.deal_stack(min(MAX_STACK, left))

        while self.shoe.remaining:
            _, unseen = await self._reconciled(self.shoe, next_lot)
            if unseen:
                self._give(round_, UnseenToRack(unseen))
            self.dealer.take_stub()
        stub = tuple(card for card in self.shoe.round_cards[first:] if isinstance(card, SealedCard))
        self._give(round_, StubRemoved(stub))

    def _deal_community(self, play: _Play) -> None:
        """677a.10(c): the top card of the hand, face down, to the community cards."""
        card = play.round.top_of_stub
        assert card is not None
        self.dealer.deal_card("community")
        self._give(play.round, CommunityDealt(card))

    async def _stub(self, play: _Play) -> None:
        """677a.10(c)-(e): the stub in the hand, counted face down when due, to the rack."""
        if play.round.stub_count_due:
            await ask(self.dealer.count_stub, lambda counted: self._give(play.round, StubToRack(counted)))
        else:
            self._give(play.round, StubToRack(None))
        if play.round.state != MISDEAL_CHECK:
            self.dealer.stub_to_rack()

    async def _misdeal_finding(self, play: _Play) -> None:
        """677a.10(f): the dealer determines whether the cards were misdealt, and counts the deck."""
        in_deck = await received(self.dealer.count_stub) + play.round.cards_out
        self._give(play.round, MisdealFinding(await received(self.dealer.misdealt), in_deck))
        self.dealer.stub_to_rack()

    async def _reveal_community(self, play: _Play) -> None:
        """The flop, then the turn and river, each proven by the shoe against its seal."""
        community = play.round.community
        cards = community[:3] if play.round.state == PREFLOP else community[3:]
        self._give(play.round, RevealCommunity(await self._faces(cards)))

    async def _showdown(self, play: _Play) -> None:
        """The dealer's hand and every live hand turned up (never a folded one), then settlement."""
        round_ = play.round
        live = [seat for seat in clockwise(round_.positions) if round_.positions[seat].live]
        if live and not round_.dealer_faces:
            self._give(play.round, RevealHand(None, await self._faces(round_.dealer_stack)))
        for seat in live:
            if round_.state == HELD:  # a card turned up held the round: the ruling comes first
                return
            if not round_.positions[seat].faces:
                self._give(play.round, RevealHand(seat, await self._faces(round_.positions[seat].stack)))
        if round_.state != HELD:
            self._give(play.round, Settle())

    async def _faces(self, cards: Sequence[Arrival]) -> tuple[Card, ...]:
        """The faces of sealed cards being turned up, each proven by the shoe (Shoe.reveal)."""
        faces = []
        for card in cards:
            assert isinstance(card, SealedCard)
            faces.append(await self._held_on_fault(partial(self.shoe.reveal, card)))
        return tuple(faces)

    def _collect(self, play: _Play) -> None:
        """Every card of the round on the layout to the rack, in the round's pickup order."""
        before = self.dealer.count_rack()
        self.dealer.pick_up([pickup.place for pickup in play.round.pickup_order()])
        self._give(play.round, Collect(self.dealer.count_rack() - before))

    # -- the deck's life --------------------------------------------------------------------------
    async def prepare_round(self) -> None:
        """Before betting opens: no fault latched, and a deck in the shoe (a new one after a
        removal). ``play_round`` does it too; the service calls it first."""
        await self._while_latched()
        if (report := self._deck_report()).in_shoe and holdem_dealing.counted_wrong(report):
            await self._deck_counted_wrong_removed()
            await self._while_latched()  # the removed deck's count at the rack latches in turn
        if self.shoe.state == EMPTY:
            await self._new_deck()

    async def _new_deck(self) -> None:
        """A new deck unwrapped, shuffled and counted by the shuffler, loaded into the shoe, which
        burns no card for this game (``Shoe(burns=False)``): the deck dealt holds all 52 (677a.10(e))."""
        self.decks += 1
        back = _back(self.decks)
        self.dealer.unwrap_deck(back)
        self.dealer.load_shuffler(back)
        await self._held_on_fault(lambda: self.shuffler.configure(1, 0, back))
        await self._shuffle_until_it_passes(self.shuffler)
        await self._delivered_to_shoe(
            self.shoe, self.shuffler, lambda: self._shuffle_until_it_passes(self.shuffler)
        )
        await self._held_on_fault(lambda: self.shoe.load(DECK, back))
        self.log.info("deck in play", back=back)


def _back(deck: int) -> str:
    """The ``deck``-th deck the table put in play, by the name its records give it."""
    return f"deck {deck}"


# -- the table as the service knows it (croupier.tables.registry) ---------------------------------

#: The decision the players key, read by its model (croupier.screen.bodies).
HOLDEM_DECISION = message_body(holdem.PlayerDecision)


class KeyedHeadsUpHoldem(KeyedPlayers):
    wager = holdem.PlaceWager
    check = staticmethod(holdem_dealing.check_wager)

    async def decide(
        self, position: Position, street: str, community: Sequence[Card]
    ) -> Offer[PlayerDecision]:
        return await self.screen.ask(
            "decision",
            HOLDEM_DECISION,
            seat=position.seat,
            turn=holdem_clauses.DECISION_ORDER,
            street=street,
            community=[str(card) for card in community],
            legal=sorted(choice.value for choice in choices_on(street)),
            multiples=list(self.rules.multiples(street)),
        )


#: The dealer's finding whether the cards were misdealt (677a.10(f)), read by its model.
MISDEAL_FINDING = flag_body("misdealt", "MisdealFinding")


class HoldemScreenDealer(ScreenDealer):
    """The Hold 'Em dealer's own steps on the screen (HoldemDealer): the deck unwrapped and placed
    in stacks, the stub taken and the unread cards racked, the misdeal finding, the deck removed."""

    def unwrap_deck(self, back: str) -> None:
        self._step("unwrap_deck", back=back)

    def place_stack(self, place: str, count: int) -> None:
        self.felt[place] += count
        self._step("place_stack", place=place, count=count)

    def take_stub(self) -> None:
        self._step("take_stub")

    async def misdealt(self) -> Offer[bool]:
        return await self.screen.ask("misdeal_finding", MISDEAL_FINDING, clause="677a.10(f)")

    def rack_to_shoe(self) -> None:
        self.rack = 0
        self._step("rack_to_shoe")

    def remove_deck(self) -> int:
        removed, self.rack = self.rack, 0
        self._step("remove_deck")
        return removed


def assemble(connections: Connections, options: Options) -> HeadsUpHoldemTable:
    """The table over its shoe, which burns no card (677a.10), and its one-deck shuffler."""
    options.pop("dealer_on_duty", None)  # a Hold 'Em round does not name its dealer
    return HeadsUpHoldemTable(
        shoe=Shoe(  # 677a.10 burns no card
            ShoeDriver(connections["shoe"]), clauses=HeadsUpHoldemTable.shoe_clauses, burns=False
        ),
        shuffler=one_deck_shuffler(connections, allow_seeded=options.pop("allow_seeded", False)),
        **options,
    )


TABLE = TableKind(
    game=GAME,
    assemble=assemble,
    players=KeyedHeadsUpHoldem,
    answers={"decision": (HOLDEM_DECISION,), "misdeal_finding": (MISDEAL_FINDING,)},
    dealer=HoldemScreenDealer,
)
