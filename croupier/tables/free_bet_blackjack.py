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
  meanwhile, goes into the shoe (672a.7(d); batches alternate, 633a.3(b), analog).

The shoe's life, the fault hold and held rounds are every shoe game's (shoe_table.py, holding.py);
this module adds Free Bet Blackjack's round: its reader, its insurance, peek, decisions and reveal.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import partial
from typing import Any, Protocol

from croupier.screen.answers import Answer, Answers, Offer, ask
from croupier.screen.bodies import choice_body, one_of
from croupier.screen.players import KeyedPlayers
from croupier.tables.assembly import shoe_game_shuffler
from croupier.tables.registry import Connections, Options, TableKind
from croupier.tables.shoe_table import Play, ShoeTable
from devices.card_reader import CardReader
from devices.equipment import Equipment
from devices.shoe import Shoe, ShoeClauses
from drivers.card_reader import CardReaderDriver
from drivers.shoe import ShoeDriver
from games.common.machine_parts import SETTLED, VOIDED
from games.common.seating import clockwise
from games.free_bet_blackjack import GAME, Round, RuleSet
from games.free_bet_blackjack import clauses as fbb_clauses
from games.free_bet_blackjack import dealing as fbb_dealing
from games.free_bet_blackjack import inputs as fbb
from games.free_bet_blackjack.clauses import BLACKJACK_PAID, BURN_DUE
from games.free_bet_blackjack.decisions import Stake
from games.free_bet_blackjack.discard import hand_pickup
from games.free_bet_blackjack.inputs import (
    CloseInsurance,
    Decision,
    EvenMoney,
    Insure,
    Message,
    PeekAnswer,
    PlaceWager,
    PlayerAction,
    RevealHole,
    Settle,
)
from games.free_bet_blackjack.machine import (
    DEALER_BLACKJACK,
    DEALER_TURN,
    INSURANCE,
    PEEKING,
    PLAYER_TURNS,
)
from games.free_bet_blackjack.positions import Hand
from vocabulary.cards import Card, SealedCard
from vocabulary.operators import Operator
from vocabulary.rules import Rule

Legal = Mapping[PlayerAction, Stake | None]


class Players(Protocol):
    """Whoever sits at the table: on a real table the players act and the dealer keys it in; a
    simulation (``croupier sim``) or a test stands in through this. The table offers only what the
    round allows (``legal_decisions()``), and the round still refuses anything against the rules."""

    def wagers(self, round_number: int, positions: int) -> Answers[PlaceWager]:
        """The wagers placed for a round on positions 1 to ``positions`` (none: no round)."""

    def insurance(self, hand: Hand, dealer_up: Card) -> Answer[Insure | EvenMoney | None]:
        """The player's answer to the insurance offer (672a.7(f)); None declines."""

    def decide(self, hand: Hand, dealer_up: Card, legal: Legal) -> Answer[PlayerAction]:
        """A decision for ``hand``, one of ``legal`` (672a.7(h)(2)), asked when the dealer reaches
        it, clockwise; a Blackjack is never asked: it is paid when reached (672a.7(h)(1))."""


_Play = Play[Round]


class FreeBetBlackjackTable(ShoeTable[Round]):
    """One Free Bet Blackjack table: shoe, shuffler and card reader, its dealer, its rule set."""

    burn_rule = BURN_DUE  # 672a.7(c)
    shoe_clauses = ShoeClauses.of_batch_game("672a.7", reconstruct="s")
    rules: RuleSet

    def __init__(self, *, reader: CardReader, rules: RuleSet | None = None, **table: object) -> None:
        """As ShoeTable's, with the card reader for the peek; ``rules`` defaults to the published game."""
        self.reader = reader
        super().__init__(rules=rules or RuleSet(), **table)  # type: ignore[arg-type]

    @property
    def equipment(self) -> tuple[Equipment[Any], ...]:  # Any: any device's driver
        return (self.shoe, self.reader, self.shuffler)

    async def _inspect(self, floorperson: Operator) -> None:
        """The reader's start-of-day inspection (673a.2(d), analog)."""
        self._opening(f"the card reader's start-of-day inspection, by {floorperson.ident}")
        await self._held_on_fault(lambda: self.reader.record_inspection(floorperson), runs_latched=True)

    def _new_round(self) -> Round:
        return Round(
            self.rounds, rules=self.rules, verify=self.shoe.opens, dealer=self.dealer_on_duty, table=self.name
        )

    def _round_ended(self) -> None:
        self.reader.end_round()

    async def _step_in(self, play: _Play, state: str) -> None:
        """What the round waits for when it expects no card: a choice, an answer, or the pickup."""
        if state == INSURANCE:
            await self._offer_insurance(play)
        elif state == PEEKING:
            await self._peek(play)
        elif state == PLAYER_TURNS and play.round.current_hand is not None:
            await self._decide(play)
        elif state in (PLAYER_TURNS, DEALER_BLACKJACK):
            await self._turn_hole_card_up(play)
        elif state == DEALER_TURN:
            self._handle(play, Settle())
        else:
            assert state in (SETTLED, VOIDED), state
            self._pick_up(play)

    async def _offer_insurance(self, play: _Play) -> None:
        """672a.7(f): each player answers the insurance offer, clockwise; then the offer closes."""
        round_, up = play.round, play.round.dealer_up
        assert up is not None
        for seat in clockwise(round_.positions):
            hand = round_.positions[seat].dealt_hand
            await ask(partial(play.players.insurance, hand, up), partial(self._insure, play))
        self._handle(play, CloseInsurance())

    def _insure(self, play: _Play, choice: Insure | EvenMoney | None) -> None:
        if choice is not None:  # None: the player declines
            self._handle(play, choice)

    async def _peek(self, play: _Play) -> None:
        """672a.7(g): the reader says whether the hole card gives the dealer a Blackjack; nothing more."""
        up = play.round.dealer_up
        assert up is not None
        await self._while_latched()
        self.dealer.hole_card_to_reader()
        try:
            blackjack = await self._held_on_fault(lambda: self.reader.peek(up))
        finally:
            self.dealer.hole_card_from_reader()
        self._handle(play, PeekAnswer(blackjack))

    async def _decide(self, play: _Play) -> None:
        """672a.7(h)-(j): the hand in turn decides among what the rules allow it."""
        round_ = play.round
        hand = round_.current_hand
        assert hand is not None and round_.dealer_up is not None
        legal = round_.legal_decisions()
        await ask(lambda: play.players.decide(hand, round_.dealer_up, legal), partial(self._act, play, hand))

    def _act(self, play: _Play, hand: Hand, action: PlayerAction) -> None:
        """One decision to the round; a split's second card moves to start the new hand."""
        self._handle(play, Decision(hand.seat, action))
        if action is PlayerAction.SPLIT:
            hands = play.round.positions[hand.seat].hands
            self.dealer.split(hand.label, hands[hands.index(hand) + 1].label)

    async def _turn_hole_card_up(self, play: _Play) -> None:
        """672a.7(k): the hole card turned up, its face proven by the shoe against its seal."""
        hole = play.round.hole
        assert isinstance(hole, SealedCard)
        face = await self._held_on_fault(lambda: self.shoe.reveal(hole))
        self._handle(play, RevealHole(face))

    def _handle(self, play: _Play, message: Message) -> None:
        """Give the round one message. A Blackjack it paid on it, the dealer having reached its seat,
        is announced and paid now, and its hand leaves the layout unless tucked under its Push 22
        Wager (672a.7(h)(1))."""
        round_, settled = play.round, len(play.round.actions)
        self._give(round_, message)
        for action in round_.actions[settled:]:
            if action.rule is BLACKJACK_PAID:
                self.dealer.pay_blackjack(round_.positions[action.seat].dealt_hand.label, action.amount)
        early = [pickup.place for hand in play.round.removed for pickup in hand_pickup(hand)]
        if len(early) > play.removed:
            self.dealer.pick_up(early[play.removed :])
            play.removed = len(early)


# -- the table as the service knows it (croupier.tables.registry) ---------------------------------

INSURANCE_IN_TURN = Rule("672a.7(f)", "the insurance offer is answered by each player in turn, clockwise")

#: The answers the players key, read by their models (croupier.screen.bodies).
FBB_INSURANCE = one_of(
    "choice",
    {"decline": None, "insure": fbb.Insure, "even_money": fbb.EvenMoney},
    "FreeBetBlackjackInsurance",
)
FBB_DECISION = choice_body("action", fbb.PlayerAction, "FreeBetBlackjackDecision")


class KeyedFreeBetBlackjack(KeyedPlayers):
    wager = fbb.PlaceWager
    check = staticmethod(fbb_dealing.check_wager)

    async def insurance(self, hand: Hand, dealer_up: Card) -> Offer[Insure | EvenMoney | None]:
        return await self.screen.ask(
            "insurance",
            FBB_INSURANCE,
            seat=hand.seat,
            turn=INSURANCE_IN_TURN,
            hand=hand.label,
            dealer_up=str(dealer_up),
            legal=["decline", "insure", *(["even_money"] if hand.blackjack else [])],
            insurance_limit=hand.wager // 2,
        )

    async def decide(self, hand: Hand, dealer_up: Card, legal: Legal) -> Offer[PlayerAction]:
        return await self.screen.ask(
            "decision",
            FBB_DECISION,
            seat=hand.seat,
            turn=fbb_clauses.PLAY_ORDER,
            hand=hand.label,
            cards=[str(card) for card in hand.cards],
            dealer_up=str(dealer_up),
            legal=sorted(action.value for action in legal),
        )


def assemble(connections: Connections, options: Options) -> FreeBetBlackjackTable:
    """The table over its shoe, card reader (with ``reader_clock``, a test's clock) and shuffler."""
    reader_options = {"clock": options.pop("reader_clock")} if options.get("reader_clock") else {}
    options.pop("reader_clock", None)
    return FreeBetBlackjackTable(
        shoe=Shoe(ShoeDriver(connections["shoe"]), clauses=FreeBetBlackjackTable.shoe_clauses),
        reader=CardReader(CardReaderDriver(connections["card-reader"]), **reader_options),
        shuffler=shoe_game_shuffler(connections, allow_seeded=options.pop("allow_seeded", False)),
        **options,
    )


TABLE = TableKind(
    game=GAME,
    assemble=assemble,
    players=KeyedFreeBetBlackjack,
    answers={"decision": (FBB_DECISION,), "insurance": (FBB_INSURANCE,)},
)
