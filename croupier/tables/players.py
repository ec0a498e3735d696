"""The players at a Free Bet Blackjack table: their wagers, insurance choices and decisions.

On a real table the players act and the dealer keys it in; the table asks through ``Players`` so a
simulation (``croupier sim``) or a test can stand in. The table offers only what the round allows
(``legal_decisions()``), and the round still refuses anything against the rules, with its clause.

The simulated players are simulator.games.free_bet_blackjack's ``BasicStrategyPlayers``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Protocol

from croupier.tables.inputs import Answer, Answers
from games.free_bet_blackjack.decisions import Stake
from games.free_bet_blackjack.inputs import EvenMoney, Insure, PlaceWager, PlayerAction
from games.free_bet_blackjack.positions import Hand
from vocabulary.cards import Card

Legal = Mapping[PlayerAction, Stake | None]


class Players(Protocol):
    """Whoever sits at the table."""

    def wagers(self, round_number: int, positions: int) -> Answers[PlaceWager]:
        """The wagers placed for a round on positions 1 to ``positions`` (none: no round)."""

    def insurance(self, hand: Hand, dealer_up: Card) -> Answer[Insure | EvenMoney | None]:
        """The player's answer to the insurance offer (672a.7(f)); None declines."""

    def decide(self, hand: Hand, dealer_up: Card, legal: Legal) -> Answer[PlayerAction]:
        """A decision for ``hand``, one of ``legal`` (672a.7(h)(2)), asked when the dealer reaches
        it, clockwise; a Blackjack is never asked: it is paid when reached (672a.7(h)(1))."""
