"""One Over/Under table on its devices: shoe and shuffler, dealer and players (58 Pa. Code § 686a.7).

``OverUnderTable`` plays rounds of the game's round machine (games.over_under.Round) on the shoe
and the shuffler, turning what the round expects into device commands and dealer prompts:

- (e): one card face up to each Ante position, clockwise; every card of this game is dealt face up,
  so the round gets the card's face from the shoe;
- (f)-(h): every player in turn, clockwise, elects Over 23, Under 18 or Surrender before any
  additional card is dealt: the table asks for the elections one by one and deals nothing meanwhile;
- (i)-(j): then, player by player, clockwise: two more cards face up, even after a surrender; the
  third card settles the player at once; the dealer puts that player's three cards in the rack, in
  the order dealt, before the next player's cards are dealt (so the rack reconstructs each Hand, (n));
- the shoe's life is Free Bet Blackjack's, to the card: the burn after each batch is loaded and for
  each new dealer (c), the cover card ends the shoe (d), the remaining cards are collected and
  counted, and the two batches alternate between the shoe and the shuffler (633a.3(b), analog).

The shoe's life, the fault hold and a supervisor's ``resolve`` are every shoe game's (shoe_table.py,
holding.py); this module adds only the round of this game. A latched fault holds the table until a
supervisor ``clear``s it, with nothing dealt twice or lost.
"""

from __future__ import annotations

from functools import partial
from typing import Protocol

from croupier.screen.answers import Answer, Answers, Offer, ask
from croupier.screen.bodies import choice_body
from croupier.screen.players import KeyedPlayers
from croupier.tables.assembly import shoe_game_shuffler
from croupier.tables.registry import Connections, Options, TableKind
from croupier.tables.shoe_table import Play, ShoeTable
from devices.shoe import Shoe, ShoeClauses
from drivers.shoe import ShoeDriver
from games.over_under import GAME, Round, RuleSet
from games.over_under import clauses as ou_clauses
from games.over_under import dealing as ou_dealing
from games.over_under import inputs as ou
from games.over_under.clauses import BURN_DUE
from games.over_under.inputs import Choice, Choose, ClearHand, PlaceWager
from games.over_under.machine import CLEARING, DECIDING, SETTLED, VOIDED
from games.over_under.positions import Position


class Players(Protocol):
    """Whoever sits at the table: their wagers and, in turn, their election (686a.7(e)-(g)), every
    player's before any additional card (686a.7(f))."""

    def wagers(self, round_number: int, positions: int) -> Answers[PlaceWager]:
        """The wagers placed for a round on positions 1 to ``positions``."""

    def choose(self, position: Position) -> Answer[Choice]:
        """The election of ``position``, whose first card is on the layout beside every other
        player's first card, and no additional card yet (686a.7(f))."""


_Play = Play[Round]


class OverUnderTable(ShoeTable[Round]):
    """One Over/Under table: shoe and shuffler, its dealer, its rule set. No card reader: every card
    is dealt face up."""

    burn_rule = BURN_DUE  # 686a.7(c)
    shoe_clauses = ShoeClauses.of_batch_game("686a.7", reconstruct="n")
    rules: RuleSet

    def __init__(self, *, rules: RuleSet | None = None, **table: object) -> None:
        """As ShoeTable's; ``rules`` is Over/Under's RuleSet (its ``decks`` size the batches, its
        ``positions`` the layout)."""
        super().__init__(rules=rules or RuleSet(), **table)  # type: ignore[arg-type]

    def _new_round(self) -> Round:
        return Round(self.rounds, rules=self.rules, dealer=self.dealer_on_duty, table=self.name)

    async def _step_in(self, play: _Play, state: str) -> None:
        """What the round waits for when it expects no card: the next election (every one before any
        additional card, 686a.7(f)), the clearing of a settled player, or the rack."""
        if state == DECIDING:
            await self._elect(play)
        elif state == CLEARING:
            self._clear(play)
        else:
            assert state in (SETTLED, VOIDED), state
            self._pick_up(play)  # the cards not cleared yet, then the count

    async def _elect(self, play: _Play) -> None:
        """686a.7(f)-(g): the player in turn, clockwise, elects; the round refuses an election out
        of turn, and expects no card until the last player has elected."""
        position = play.round.current
        assert position is not None
        await ask(lambda: play.players.choose(position), partial(self._choose, play, position.seat))

    def _choose(self, play: _Play, seat: int, choice: Choice) -> None:
        self._handle(play, Choose(seat, choice))

    def _clear(self, play: _Play) -> None:
        """686a.7(j), (n): the settled player's cards to the rack, in the order dealt, then the
        round told; only then are the next player's two cards dealt."""
        position = play.round.current
        assert position is not None
        self.dealer.pick_up([position.label] * len(position.cards))
        play.removed += len(position.cards)
        self._handle(play, ClearHand(position.seat))


# -- the table as the service knows it (croupier.tables.registry) ---------------------------------

#: The election the players key, read by its model (croupier.screen.bodies).
OU_ELECTION = choice_body("choice", ou.Choice, "OverUnderElection")


class KeyedOverUnder(KeyedPlayers):
    """The table asks for each seat's election in turn, clockwise, every one before any additional
    card is dealt (686a.7(f)); a seat keyed out of turn is refused with (f)."""

    wager = ou.PlaceWager
    check = staticmethod(ou_dealing.check_wager)

    async def choose(self, position: Position) -> Offer[Choice]:
        return await self.screen.ask(
            "election",
            OU_ELECTION,
            seat=position.seat,
            turn=ou_clauses.DECISION_ORDER,
            first_card=str(position.cards[0]),
            legal=[choice.value for choice in ou.Choice],
        )


def assemble(connections: Connections, options: Options) -> OverUnderTable:
    """The table over its shoe and shuffler; no card reader: every card is dealt face up."""
    return OverUnderTable(
        shoe=Shoe(ShoeDriver(connections["shoe"]), clauses=OverUnderTable.shoe_clauses),
        shuffler=shoe_game_shuffler(connections, allow_seeded=options.pop("allow_seeded", False)),
        **options,
    )


TABLE = TableKind(game=GAME, assemble=assemble, players=KeyedOverUnder, answers={"election": (OU_ELECTION,)})
