"""A stacked shoe and card reader, for scenarios and simulations without devices.

The shoe is games.common.stacked_shoe's; Free Bet Blackjack adds the part devices/card_reader.py
plays at a real table: it answers the peek with yes or no only (672a.7(g)).
"""

from __future__ import annotations

from games.common import stacked_shoe
from games.free_bet_blackjack.hand import is_blackjack
from vocabulary.cards import Card, SealedCard


class StackedShoe(stacked_shoe.StackedShoe):
    def reader_answer(self, up_card: Card, sealed: SealedCard) -> bool:
        """The card reader's whole answer: does the hole card give the dealer a Blackjack?"""
        return is_blackjack([up_card, self.turn_up(sealed)])
