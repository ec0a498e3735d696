"""The players and the dealer's counts of a table driven from the dealer's screen, one class a game.

Each answers the table's questions (croupier/tables: the game's Players protocol, and the counts
of its Dealer protocol) by showing a prompt on the ``Screen`` and waiting for the answer keyed over
the API; the prompt carries what the screen needs to show (whose turn, what is allowed, the face-up
cards) and how to read the answer's JSON into the game's own message. A face-down card is never in
a prompt: the table does not know its face.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from croupier.config.limits import Limits, check_limits
from croupier.screen.bodies import Body, choice_body, message_body, one_of, place_counts_body
from croupier.screen.dealer import (
    CHIP_COUNT,
    HAND_REPORT,
    MISDEAL_FINDING,
    SIX_CARD_REPORT,
    STUB_COUNT,
    ScreenDealer,
)
from croupier.screen.prompts import CLOSE_BETTING, NO_MORE_BETS_BODY, Screen
from croupier.tables.inputs import Offer
from games.crazy_4_poker import dealing as crazy_4_dealing
from games.crazy_4_poker import inputs as crazy_4
from games.free_bet_blackjack import clauses as fbb_clauses
from games.free_bet_blackjack import dealing as fbb_dealing
from games.free_bet_blackjack import inputs as fbb
from games.heads_up_holdem import clauses as holdem_clauses
from games.heads_up_holdem import dealing as holdem_dealing
from games.heads_up_holdem import inputs as holdem
from games.heads_up_holdem.playing import choices_on
from games.over_under import clauses as ou_clauses
from games.over_under import dealing as ou_dealing
from games.over_under import inputs as ou
from vocabulary.cards import Card
from vocabulary.rules import PUBLISHED_RULES, Rule

Json = Mapping[str, Any]  # Any: JSON values

INSURANCE_IN_TURN = Rule("672a.7(f)", "the insurance offer is answered by each player in turn, clockwise")
CRAZY_4_IN_TURN = Rule(PUBLISHED_RULES, "each player in turn Plays or folds, having seen the hand")

#: The answers the players key, read by their models (croupier.screen.bodies).
FBB_INSURANCE = one_of(
    "choice",
    {"decline": None, "insure": fbb.Insure, "even_money": fbb.EvenMoney},
    "FreeBetBlackjackInsurance",
)
FBB_DECISION = choice_body("action", fbb.PlayerAction, "FreeBetBlackjackDecision")
OU_ELECTION = choice_body("choice", ou.Choice, "OverUnderElection")
HOLDEM_DECISION = message_body(holdem.PlayerDecision)
CRAZY_4_DECISION = one_of("action", {"play": crazy_4.Play, "fold": crazy_4.Fold}, "Crazy4PokerDecision")


class KeyedCounts:
    """The dealer's counts keyed on the screen — the stub (677a.10(d), 657a.9(d)) and the
    progressive chips (657a.9(a)(3)) — at a simulated table driven from the screen: every other
    step is done by ``hands``, the simulated dealer's."""

    def __init__(self, hands: Any, screen: Screen) -> None:  # Any: the dealer's hands of any game
        self._hands, self._screen = hands, ScreenDealer(screen)

    def __getattr__(self, name: str) -> Any:  # Any: as the hands'
        return getattr(self._hands, name)

    def count_stub(self) -> Any:  # Any: a keyed count
        return self._screen.count_stub()

    def count_progressive_chips(self) -> Any:  # Any: a keyed count
        return self._screen.count_progressive_chips()


class _Keyed:
    """The wagers, the same for every game: the betting prompt's answers until no more bets."""

    wager: type
    #: The game's own check of a wager, the one its round's guard makes (games/<game>/dealing.py).
    check: Callable[[Any, Any], None]  # Any: a wager and rules of any game

    def __init__(
        self,
        screen: Screen,
        *,
        rules: Any = None,  # Any: any game's RuleSet
        cover: Callable[[int], object] | None = None,
        limits: Limits | None = None,
    ) -> None:
        """``rules``: the table's, for what a prompt offers; ``cover``: puts a progressive wager's
        chip on the seat's sensor (a simulated table); ``limits``: the posted table limits."""
        self.screen, self.rules, self._cover, self.limits = screen, rules, cover, limits or {}

    def parse_wager(self, body: Json) -> Any:  # Any: a wager of any game
        """The wager keyed, refused before it reaches the table — so before the first one begins a
        round — for an amount outside the posted limits, or anything the game's own check of a
        wager refuses (a seat that is no betting position, a combination its rules forbid)."""
        wager = message_body(self.wager)(body)
        check_limits(wager, self.limits)
        if self.rules is not None:
            self.check(wager, self.rules)
        if self._cover is not None and getattr(wager, "progressive", False):
            self._cover(wager.seat)
        return wager

    def wagers(self, round_number: int, positions: int) -> Any:  # Any: wagers of any game
        return self.screen.betting()


class KeyedFreeBetBlackjack(_Keyed):
    wager = fbb.PlaceWager
    check = staticmethod(fbb_dealing.check_wager)

    async def insurance(self, hand: Any, dealer_up: Card) -> Offer[Any]:  # Any: a hand of any game
        return await self.screen.ask(
            "insurance",
            FBB_INSURANCE,
            seat=hand.seat,
            turn=INSURANCE_IN_TURN,
            hand=hand.label,
            dealer_up=str(dealer_up),
        )

    async def decide(
        self, hand: Any, dealer_up: Card, legal: Mapping[Any, Any]  # Any: a hand and its choices, of any game
    ) -> Offer[Any]:  # Any: a hand and its choices, of any game
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


class KeyedOverUnder(_Keyed):
    """The table asks for each seat's election in turn, clockwise, every one before any additional
    card is dealt (686a.7(f)); a seat keyed out of turn is refused with (f)."""

    wager = ou.PlaceWager
    check = staticmethod(ou_dealing.check_wager)

    async def choose(self, position: Any) -> Offer[Any]:  # Any: a position of any game
        return await self.screen.ask(
            "election",
            OU_ELECTION,
            seat=position.seat,
            turn=ou_clauses.DECISION_ORDER,
            first_card=str(position.cards[0]),
            legal=[choice.value for choice in ou.Choice],
        )


class KeyedHeadsUpHoldem(_Keyed):
    wager = holdem.PlaceWager
    check = staticmethod(holdem_dealing.check_wager)

    async def decide(
        self, position: Any, street: str, community: Sequence[Card]  # Any: a position of any game
    ) -> Offer[Any]:  # Any: a position of any game
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


class KeyedCrazy4Poker(_Keyed):
    wager = crazy_4.PlaceWagers
    check = staticmethod(crazy_4_dealing.check_wager)

    async def decide(self, seat: int) -> Offer[Any]:  # Any: a decision of any game
        return await self.screen.ask("decision", CRAZY_4_DECISION, seat=seat, turn=CRAZY_4_IN_TURN)


KEYED: dict[str, type[_Keyed]] = {
    "free-bet-blackjack": KeyedFreeBetBlackjack,
    "over-under": KeyedOverUnder,
    "heads-up-holdem": KeyedHeadsUpHoldem,
    "crazy-4-poker": KeyedCrazy4Poker,
}

#: The answers keyed on the screen, by route: each takes the kinds of answer listed, refused
#: unless the prompt it names awaits one (croupier.api.app).
ANSWERS: dict[str, tuple[str, ...]] = {
    "/v1/wagers": ("wager",),
    "/v1/rounds/no-more-bets": (CLOSE_BETTING,),
    "/v1/decisions": ("decision", "election"),
    "/v1/insurance": ("insurance",),
    "/v1/stub-count": ("stub_count",),
    "/v1/chip-count": ("chip_count",),
    "/v1/misdeal-finding": ("misdeal_finding",),
    "/v1/place-counts": ("place_counts",),
    "/v1/hand-report": ("hand_report",),
}

#: Each kind of answer's bodies, every game's (the API documents are generated from their models).
#: A new prompt's body is added here.
BODIES: dict[str, tuple[Body, ...]] = {
    "wager": tuple(message_body(keyed.wager) for keyed in KEYED.values()),
    CLOSE_BETTING: (NO_MORE_BETS_BODY,),
    "decision": (FBB_DECISION, HOLDEM_DECISION, CRAZY_4_DECISION),
    "election": (OU_ELECTION,),
    "insurance": (FBB_INSURANCE,),
    "stub_count": (STUB_COUNT,),
    "chip_count": (CHIP_COUNT,),
    "misdeal_finding": (MISDEAL_FINDING,),
    "place_counts": (place_counts_body("PlaceCounts", ()),),
    "hand_report": (HAND_REPORT, SIX_CARD_REPORT),
}
