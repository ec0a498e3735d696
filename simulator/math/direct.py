"""Math mode's direct engine: rounds played straight through, a sample of them played again through
the table's own Round and required to come out the same (decision 0052).

A game with a direct round (``MathGame.direct``, e.g. simulator/math/free_bet_blackjack/direct.py)
deals it from the same seeded shoe, with the same players, as the machine engine
(simulator.math.play.play_rounds) deals the table's Round. A worker's first round and every
``check_every``-th are first played through the table's Round, from a copy of the shoe as it
stands and a copy of the players, and then straight through from the shoe itself: both must take
the same cards, stake the same wagers, settle every wager alike, in the same order, for the same
clause, and leave the dealer the same cards and Blackjack; the first difference stops the run with
what differed. Neither copy touches what the run goes on with, so a seed and a worker count give
the same report whatever is checked.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any, Protocol

from simulator.math.play import MathError, ShoeDealing, play_round
from simulator.math.tally import placed_wagers


class DirectTable(Protocol):
    """A game's round played straight through: ``play`` deals round ``number`` from ``shoe`` (the
    game's stacked shoe) and returns what math mode counts: ``number``, ``placed`` (wager kind,
    seat, cents), ``actions`` (the settlements in the order made), ``dealer_cards``,
    ``dealer_has_blackjack`` and ``reshuffle_required``, named as the table's Round names them."""

    def play(self, number: int, shoe: Any, players: Any) -> Any: ...  # Any: the game's shoe, players, round


class RoundsDiffer(MathError):
    """A round played straight through came out otherwise than the table's Round dealt the same cards."""


def play_direct(
    rules: Any,  # Any: the game's RuleSet
    players: Any,  # Any: the game's players
    dealing: ShoeDealing,
    table: DirectTable,
    rounds: int,
    each: Callable[[Any], None],  # Any: the round played straight through
    check_every: int,
) -> int:
    """Play ``rounds`` rounds straight through, giving each to ``each``; the first and every
    ``check_every``-th are played through the table's Round first and compared. Returns the rounds
    compared."""
    checked = 0
    for number in range(1, rounds + 1):
        checking = number == 1 or number % check_every == 0  # a share shorter than check_every too
        machine = _played_by_machine(rules, players, dealing, number) if checking else None
        round_ = table.play(number, dealing.shoe, players)
        if machine is not None:
            twin_shoe, machine_round = machine
            different = difference(machine_round, round_, len(twin_shoe), len(dealing.shoe))
            if different:
                raise RoundsDiffer(f"round {number}: played straight through, {different}")
            checked += 1
        each(round_)
        dealing.end(round_)
    return checked


def _played_by_machine(
    rules: Any,  # Any: the game's RuleSet
    players: Any,  # Any: the game's players
    dealing: ShoeDealing,
    number: int,
) -> tuple[Any, Any]:  # Any: the game's shoe and Round
    """Round ``number`` through the table's Round, from a copy of the shoe and of the players: the
    shoe left, and the round."""
    twin = copy.copy(dealing)
    twin.shoe = dealing.shoe.twin()
    players_twin = copy.deepcopy(players, {id(dealing): twin})  # players that read the table read the copy
    return twin.shoe, play_round(rules, players_twin, twin, number)


def difference(
    machine: Any,  # Any: the game's Round
    direct: Any,  # Any: the game's round played straight through
    machine_left: int,
    direct_left: int,
) -> str | None:
    """What a round played straight through did otherwise than the table's Round, or None."""
    if machine_left != direct_left:
        return f"took {machine_left - direct_left:+} cards more than the table's Round"
    placed, placed_direct = sorted(placed_wagers(machine)), sorted(direct.placed)
    if placed != placed_direct:
        return f"staked {placed_direct}, the table's Round {placed}"
    if list(machine.actions) != list(direct.actions):
        return f"settled {list(direct.actions)}, the table's Round {list(machine.actions)}"
    if list(machine.dealer_cards) != list(direct.dealer_cards):
        return f"left the dealer {direct.dealer_cards}, the table's Round {machine.dealer_cards}"
    if machine.dealer_has_blackjack != direct.dealer_has_blackjack:
        return f"dealer Blackjack {direct.dealer_has_blackjack}, the table's {machine.dealer_has_blackjack}"
    if machine.reshuffle_required != direct.reshuffle_required:
        return (
            f"cover card out {direct.reshuffle_required}, in the table's Round {machine.reshuffle_required}"
        )
    return None
