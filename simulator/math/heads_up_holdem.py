"""Heads Up Hold 'Em in math mode: its Round fed as HeadsUpHoldemTable feeds it, from one shuffled
deck a round, and the simulator's players.

Every round is dealt from a fresh deck of 52, as the table's shoe gives out every card each round
(677a.10(c): the stub leaves the shoe) and burns none: the stacks of two, sealed, clockwise and the
dealer's, the stub into the dealer's hand, the five community cards from its top, the stub to the
rack, counted when due (677a.10(d)); the game's stacked deck (games.heads_up_holdem.stacked) plays
the shoe. The table's state between rounds (the rounds since the stub was last counted) is the
game's own Table. The players are the simulator's (simulator.games.heads_up_holdem.StrategyPlayers:
the usual simple strategy, random stakes, Trips Plus on some positions where a table is posted),
seeing their own two cards and the community cards turned up; no strategy is claimed to maximise
the player's return.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence

from games.common.machine_parts import SETTLED, VOIDED
from games.common.poker_hands import best_five
from games.common.seating import clockwise
from games.heads_up_holdem import RuleSet
from games.heads_up_holdem.inputs import Arrival, Collect, NoMoreBets, Settle, StubToRack
from games.heads_up_holdem.machine import (
    COMMUNITY,
    DEALING,
    FLOP,
    PREFLOP,
    RIVER,
    SHOWDOWN,
    STREETS,
    STUB,
    STUB_OUT,
)
from games.heads_up_holdem.round import Round
from games.heads_up_holdem.stacked import READY, StackedDeck
from games.heads_up_holdem.table_state import Table
from simulator.games.heads_up_holdem import StrategyPlayers
from simulator.math.play import MathError, MathGame
from vocabulary.cards import Card, standard_deck


class HoldemDealing:
    """The table without devices: a deck shuffled by ``rng`` for each round, the game's Table for
    what lasts between rounds, and what HeadsUpHoldemTable._step does in each state."""

    def __init__(self, rules: RuleSet, rng: random.Random) -> None:
        self.rng = rng
        self.table = Table(rules, self._verify, name="math")
        self.decks = 1  # one deck a batch (677a.10(e))
        self.shoes = 0
        self.burns = 0  # the game's shoe burns no card (677a.10)
        self.deck = StackedDeck(())
        self.round: Round | None = None

    def _verify(self, sealed: Arrival, card: Card) -> bool:
        return self.deck.verify(sealed, card)

    def look(self, seat: int) -> Sequence[Card]:
        """The faces of the two cards at ``seat``, as the player lifts them (simulator.players.seen)."""
        assert self.round is not None, "a player looks during a round"
        return [self.deck.shoe.turn_up(card) for card in self.round.positions[seat].stack]

    def new_round(self, number: int) -> Round:
        faces = standard_deck()
        self.rng.shuffle(faces)
        self.deck = StackedDeck(faces)
        self.shoes += 1
        self.round = self.table.new_round()
        return self.round

    def begin(self, round_: Round) -> None:
        round_.handle(NoMoreBets(READY))

    def step(self, round_: Round, players: StrategyPlayers) -> None:
        state, deck = round_.state, self.deck
        if state in (DEALING, STUB_OUT, COMMUNITY):
            deck.deliver(round_)
        elif state == STUB:
            round_.handle(StubToRack(len(deck) if round_.stub_count_due else None))
        elif state in STREETS and round_.to_act is not None:
            position = round_.positions[round_.to_act]
            round_.handle(players.decide(position, state, tuple(round_.community_faces)))
        elif state in (PREFLOP, FLOP):
            deck.reveal_community(round_)
        elif state in (SETTLED, VOIDED):
            round_.handle(Collect(len(round_.pickup_order())))
        elif state in (RIVER, SHOWDOWN):  # every decision made: the showdown (HeadsUpHoldemTable._showdown)
            live = [seat for seat in clockwise(round_.positions) if round_.positions[seat].live]
            if live and not round_.dealer_faces:
                deck.reveal_hand(round_, None)
            for seat in live:
                if not round_.positions[seat].faces:
                    deck.reveal_hand(round_, seat)
            round_.handle(Settle())
        else:
            raise MathError(f"round {round_.number} waits in {state}, which math mode does not step")

    def end(self, round_: Round) -> None:
        self.table.round_over(round_)


def staked(round_: Round) -> Iterable[tuple[str, int, int]]:
    """The Play Wager each player made on a street (published game rules)."""
    return [("play", seat, p.stakes.play) for seat, p in round_.positions.items() if p.stakes.play]


def observed(round_: Round) -> Iterable[tuple[str, str]]:
    """The dealer's hand at the showdown, by category (none when every player folded)."""
    if not round_.dealer_faces:
        return []
    value = best_five([*round_.dealer_faces, *round_.community_faces])[0]
    return [("dealer hand", value.category.name.lower().replace("_", " "))]


def simulated(rng: random.Random, rules: RuleSet, dealing: HoldemDealing) -> StrategyPlayers:
    return StrategyPlayers(rng, look=dealing.look, rules=rules)


MATH = MathGame(
    dealing=HoldemDealing,
    strategies={"simulated": simulated},
    strategy_notes={
        "simulated": "the simulator's players: Play 3x on a pair, an ace or king-jack and better, 2x on "
        "a made hand after the flop, 1x on one after the river, else check or fold; random stakes"
    },
    observed=observed,
    staked=staked,
)
