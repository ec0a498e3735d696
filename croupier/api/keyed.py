"""The players and the dealer's counts of a table driven from the dealer's screen, one class a game.

Each answers the table's questions (croupier/tables: the game's Players protocol, and the counts
of its Dealer protocol) by showing a prompt on the ``Screen`` and waiting for the answer keyed over
the API; the prompt carries what the screen needs to show (whose turn, what is allowed, the face-up
cards) and how to read the answer's JSON into the game's own message. A face-down card is never in
a prompt: the table does not know its face.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from functools import partial
from typing import Any

from croupier.api.bodies import enum_value, from_json, one_of
from croupier.service.screen import Screen
from croupier.service.screen_dealer import ScreenDealer
from croupier.tables.inputs import Offer
from devices.rules import Rule
from drivers.protocol.cards import Card
from games.crazy_4_poker import inputs as crazy_4
from games.free_bet_blackjack import clauses as fbb_clauses
from games.free_bet_blackjack import inputs as fbb
from games.heads_up_holdem import clauses as holdem_clauses
from games.heads_up_holdem import inputs as holdem
from games.heads_up_holdem.play import choices_on
from games.over_under import clauses as ou_clauses
from games.over_under import inputs as ou

Body = Mapping[str, Any]

INSURANCE_IN_TURN = Rule("672a.7(f)", "the insurance offer is answered by each player in turn, clockwise")
CRAZY_4_IN_TURN = Rule(
    "657a.9; published game rules", "each player in turn Plays or folds, having seen the hand"
)


class KeyedCounts:
    """The dealer's counts keyed on the screen — the stub (677a.10(d), 657a.9(d)) and the
    progressive chips (657a.9(a)(3)) — at a simulated table driven from the screen: every other
    step is done by ``hands``, the simulated dealer's."""

    def __init__(self, hands: Any, screen: Screen) -> None:
        self._hands, self._screen = hands, ScreenDealer(screen)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._hands, name)

    def count_stub(self) -> Any:
        return self._screen.count_stub()

    def count_progressive_chips(self) -> Any:
        return self._screen.count_progressive_chips()


class _Keyed:
    """The wagers, the same for every game: the betting prompt's answers until no more bets."""

    wager: type

    def __init__(
        self, screen: Screen, *, rules: Any = None, cover: Callable[[int], object] | None = None
    ) -> None:
        """``rules``: the table's, for what a prompt offers; ``cover``: puts a progressive wager's
        chip on the seat's sensor (a simulated table)."""
        self.screen, self.rules, self._cover = screen, rules, cover

    def parse_wager(self, body: Body) -> Any:
        wager = from_json(self.wager, body)
        if self._cover is not None and getattr(wager, "progressive", 0):
            self._cover(wager.seat)
        return wager

    def wagers(self, round_number: int, positions: int) -> Any:
        return self.screen.betting()


class KeyedFreeBetBlackjack(_Keyed):
    wager = fbb.PlaceWager

    async def insurance(self, hand: Any, dealer_up: Card) -> Offer[Any]:
        return await self.screen.ask(
            "insurance",
            partial(one_of, "choice", {"decline": None, "insure": fbb.Insure, "even_money": fbb.EvenMoney}),
            seat=hand.seat,
            turn=INSURANCE_IN_TURN,
            hand=hand.label,
            dealer_up=str(dealer_up),
        )

    async def decide(self, hand: Any, dealer_up: Card, legal: Mapping[Any, Any]) -> Offer[Any]:
        return await self.screen.ask(
            "decision",
            lambda body: enum_value(fbb.PlayerAction, "action", body),
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

    async def choose(self, position: Any) -> Offer[Any]:
        return await self.screen.ask(
            "election",
            lambda body: enum_value(ou.Choice, "choice", body),
            seat=position.seat,
            turn=ou_clauses.DECISION_ORDER,
            first_card=str(position.cards[0]),
            legal=[choice.value for choice in ou.Choice],
        )


class KeyedHeadsUpHoldem(_Keyed):
    wager = holdem.PlaceWager

    async def decide(self, position: Any, street: str, community: Sequence[Card]) -> Offer[Any]:
        return await self.screen.ask(
            "decision",
            lambda body: from_json(holdem.PlayerDecision, body),
            seat=position.seat,
            turn=holdem_clauses.DECISION_ORDER,
            street=street,
            community=[str(card) for card in community],
            legal=sorted(choice.value for choice in choices_on(street)),
            multiples=list(self.rules.multiples(street)),
        )


class KeyedCrazy4Poker(_Keyed):
    wager = crazy_4.PlaceWagers

    async def decide(self, seat: int) -> Offer[Any]:
        parse = partial(one_of, "action", {"play": crazy_4.Play, "fold": crazy_4.Fold})
        return await self.screen.ask("decision", parse, seat=seat, turn=CRAZY_4_IN_TURN)


KEYED: dict[str, type[_Keyed]] = {
    "free-bet-blackjack": KeyedFreeBetBlackjack,
    "over-under": KeyedOverUnder,
    "heads-up-holdem": KeyedHeadsUpHoldem,
    "crazy-4-poker": KeyedCrazy4Poker,
}
