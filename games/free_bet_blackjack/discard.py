"""The order in which a round's cards go to the discard rack (672a.7(s)).

The order lets each hand be rebuilt from the rack in a dispute: first the cards removed during the
round (a Blackjack paid in turn, 672a.7(h)(1), or even money), as they went; then the hands from the
player farthest to the dealer's right, counterclockwise as in settlement, each hand's cards in the
order dealt and the hands in the order played; then the dealer's cards in the order dealt; last the
cards a supervisor set aside. The cover card is not among them: it is placed to the side (672a.7(d)).
A card that was never turned up goes face down and is listed by its commitment.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from games.common.pickup import SET_ASIDE, Pickup
from games.common.seating import counterclockwise
from games.free_bet_blackjack.positions import Hand, Position

__all__ = ["SET_ASIDE", "Pickup", "hand_pickup", "pickup_order"]


def hand_pickup(hand: Hand) -> list[Pickup]:
    label = hand.label
    return [Pickup(label, str(card)) for card in hand.cards]


def pickup_order(
    removed: Iterable[Hand],
    positions: Mapping[int, Position],
    dealer: Sequence[Pickup],
    set_aside: Sequence[Pickup],
) -> list[Pickup]:
    """Every card of the round once, in the order the dealer picks them up (see the module)."""
    order = [pickup for hand in removed for pickup in hand_pickup(hand)]
    for seat in counterclockwise(positions):
        for hand in positions[seat].hands:
            if not hand.removed:
                order.extend(hand_pickup(hand))
    return [*order, *dealer, *set_aside]
