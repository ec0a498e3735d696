"""Free Bet Blackjack's round played straight through, for math mode's millions of rounds.

The table's Round (games/free_bet_blackjack/round.py) takes one message at a time through its
transitions machine and writes every step to its trail: some 38 messages and 83 records a round, each
card sealed with a commitment, which is what a table needs and what caps math mode at about a
thousand rounds per second per core (decision 0042). A game-math review needs none of that, only
the cards each hand and the dealer end with and how every wager is settled.

This module plays the same procedure in order over the game's own parts: the positions and hands
(games.free_bet_blackjack.positions), the totals and Blackjacks (hand.py), the legal decisions and
who stakes them (decisions.py), the order of the deal (layout.deal_sequence, 672a.7(e)), and
settlement with its pay tables and order (settlement.py). What it writes out itself is only the
order of the steps, each beside its clause: the deal, insurance and even money on an ace (f), the
peek on an ace or ten (g), the players' turns clockwise with each Blackjack paid as the dealer
reaches it (h)-(j), the dealer to 17 unless no outcome can change (l)-(m), settlement (n)-(r).
Cards come from the game's stacked shoe, the cover card noted as it comes out (672a.7(d)).

That order is a second copy of what the machine enforces, so it is checked against the machine:
``tests/integration/test_math_direct.py`` plays the same shoes both ways, strategy by strategy and
rule set by rule set, and requires the same settlements, stakes and dealer's cards round for round;
and every run of math mode replays a sample of its rounds through the table's Round as well
(simulator.math.direct), stopping on the first difference (decision 0052).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from games.common.seating import clockwise
from games.free_bet_blackjack import clauses, decisions, settlement
from games.free_bet_blackjack.dealing import check_wager
from games.free_bet_blackjack.decisions import Stake
from games.free_bet_blackjack.hand import is_ace, is_blackjack, is_pair, is_ten_value, total
from games.free_bet_blackjack.inputs import EvenMoney, Insure, PlayerAction
from games.free_bet_blackjack.layout import Slot, deal_sequence
from games.free_bet_blackjack.positions import Hand, Position, outcome_open
from games.free_bet_blackjack.rules_config import RuleSet
from games.free_bet_blackjack.settlement import Action
from games.free_bet_blackjack.stacked import StackedShoe
from vocabulary.cards import Card
from vocabulary.rules import RuleViolation


class DirectRound:
    """What math mode counts of one round played straight through: the wagers that stood when
    betting closed (``placed``: wager kind, seat, cents, as the table's wager records give them),
    every settlement in the order made (``actions``), the dealer's cards, and whether the cover card
    came out."""

    __slots__ = (
        "actions",
        "dealer_cards",
        "dealer_has_blackjack",
        "number",
        "placed",
        "positions",
        "reshuffle_required",
    )

    def __init__(self, number: int) -> None:
        self.number = number
        self.positions: dict[int, Position] = {}
        self.placed: list[tuple[str, int, int]] = []
        self.actions: list[Action] = []
        self.dealer_cards: list[Card] = []
        self.dealer_has_blackjack = False
        self.reshuffle_required = False


class DirectTable:
    """A table of ``rules`` playing rounds straight through (``play``). The decisions a hand may take
    are asked of the rules (decisions.legal) once for each kind of hand and kept: what the rules
    read of a hand is its total, whether it holds two cards, a pair and of what rank, whether it
    was split, and how many hands its position plays."""

    def __init__(self, rules: RuleSet) -> None:
        self.rules = rules
        self._legal: dict[tuple[int, bool, bool, bool, int, int], dict[PlayerAction, Stake | None]] = {}
        self._deals: dict[tuple[int, ...], tuple[Slot, ...]] = {}

    def play(self, number: int, shoe: StackedShoe, players: Any) -> DirectRound:  # Any: the players
        """One round dealt from ``shoe``, the players answering as they answer the table's Round."""
        return play_round(number, self, shoe, players)

    def deal(self, seats: list[int]) -> tuple[Slot, ...]:
        """The initial deal over ``seats`` (layout.deal_sequence, the table Round's own), made once
        for each set of seats wagered."""
        key = tuple(seats)
        found = self._deals.get(key)
        if found is None:
            found = self._deals[key] = deal_sequence(seats)
        return found

    def legal(self, hand: Hand, position: Position) -> dict[PlayerAction, Stake | None]:
        """decisions.legal's answer for ``hand``, asked once per kind of hand (the class docstring)."""
        cards, counted = hand.cards, hand.total
        kind = (
            counted.value,
            counted.soft,
            len(cards) == 2,
            hand.split,
            cards[0].rank if is_pair(cards) else 0,
            len(position.hands),
        )
        found = self._legal.get(kind)
        if found is None:
            found = self._legal[kind] = decisions.legal(hand, position, self.rules)
        return found


def play_round(
    number: int,
    table: DirectTable,
    shoe: StackedShoe,
    players: Any,  # Any: the players
) -> DirectRound:
    """One round at ``table`` dealt from ``shoe``, the players answering as they answer the table's
    Round."""
    rules, legal = table.rules, table.legal
    round_ = DirectRound(number)
    positions = round_.positions
    for wager in players.wagers(number, rules.positions):  # placing again replaces (672a.7(e)(1))
        check_wager(wager, rules)
        positions[wager.seat] = Position(wager.seat, wager.blackjack, wager.push22)
    if not positions:
        raise RuleViolation(clauses.DEAL_AFTER_WAGERS, "no Blackjack Wager has been placed")
    seats = clockwise(positions)
    for seat in seats:
        position = positions[seat]
        round_.placed.append(("blackjack", seat, position.blackjack))
        if position.push22:
            round_.placed.append(("push22", seat, position.push22))

    draw = shoe.take  # the cover card passed over: the round is finished, then the shoe changes (672a.7(d))
    dealer: list[Card] = []
    for slot in table.deal(seats):  # 672a.7(e)(1)-(4)
        if slot.seat is None:
            dealer.append(draw())
        else:
            hand = positions[slot.seat].hands[0]
            hand.cards += (draw(),)
    up, hole = dealer
    if is_ace(up):  # 672a.7(f): insurance and even money, clockwise
        _insurance(round_, players, up, seats, rules)
    if (is_ace(up) or is_ten_value(up)) and is_blackjack([up, hole]):  # 672a.7(g): the reader says yes
        round_.dealer_has_blackjack = True
        round_.dealer_cards = dealer
        _settle(round_, rules, settlement.against_dealer_blackjack)
        round_.reshuffle_required = shoe.cover_out
        return round_
    for seat in seats:  # 672a.7(h)-(j): clockwise, a position's hands in the order played
        position = positions[seat]
        index = 0
        while index < len(position.hands):  # a split adds the next hand as it is played
            _turn(round_, position.hands[index], position, up, players, draw, legal, rules)
            index += 1
    round_.dealer_cards = dealer  # 672a.7(k): the hole card turned up
    if outcome_open(positions.values()):
        while total(dealer).value < 17:  # 672a.7(l), (m)
            dealer.append(draw())
    _settle(round_, rules, lambda position, rules: settlement.showdown(position, dealer, rules))
    round_.reshuffle_required = shoe.cover_out
    return round_


def _insurance(
    round_: DirectRound,
    players: Any,  # Any: the players
    up: Card,
    seats: list[int],
    rules: RuleSet,
) -> None:
    """672a.7(f): each position asked in turn; an answer is taken for the seat it names, as the
    table takes it, or refused with the clause as the table refuses it."""
    positions = round_.positions
    for seat in seats:
        answer = players.insurance(positions[seat].dealt_hand, up)
        if answer is None:
            continue
        position = positions.get(answer.seat)
        if position is None:
            raise RuleViolation(
                clauses.INSURANCE_ON_ACE, f"seat {answer.seat} has no Blackjack Wager in this round"
            )
        if isinstance(answer, Insure):
            decisions.check_insurance(position, answer.amount)
            position.insurance = answer.amount
            round_.placed.append(("insurance", answer.seat, answer.amount))
        elif isinstance(answer, EvenMoney):
            decisions.check_even_money(position)
            position.even_money = True
            _paid_early(round_, position, settlement.even_money_payment(position, rules))


def _turn(
    round_: DirectRound,
    hand: Hand,
    position: Position,
    up: Card,
    players: Any,  # Any: the players
    draw: Callable[[], Card],
    legal: Callable[[Hand, Position], dict[PlayerAction, Stake | None]],
    rules: RuleSet,
) -> None:
    """One hand's turn: a Blackjack is paid as the dealer reaches it (672a.7(h)(1)); any other hand
    takes its missing card, then decides until it is done, each decision's card dealt (672a.7(j))."""
    if hand.blackjack and not hand.paid:
        _paid_early(round_, position, settlement.blackjack_payment(position, rules))
        return
    while True:
        if hand.card_due:
            hand.cards += (draw(),)
            hand.awaiting = False
        elif hand.done:
            return
        else:
            offered = legal(hand, position)
            action = players.decide(hand, up, dict(offered))  # the player's own copy, as the Round gives
            if action not in offered:  # the table refuses it with its clause (decisions.check)
                decisions.check(action, hand, position, rules)
            decisions.apply(action, offered[action], hand, position)


def _paid_early(round_: DirectRound, position: Position, action: Action) -> None:
    """A Blackjack or even money paid before the showdown (672a.7(h)(1), (f))."""
    position.dealt_hand.paid = True
    round_.actions.append(action)


def _settle(round_: DirectRound, rules: RuleSet, settle: Callable[[Position, RuleSet], list[Action]]) -> None:
    """Every position settled, in the order the rules designate (672a.7(r))."""
    positions = round_.positions
    actions = [action for seat in positions for action in settle(positions[seat], rules)]
    round_.actions += settlement.in_order(actions, rules.settlement_order)
