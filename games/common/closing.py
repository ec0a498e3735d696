"""The end of a round every game shares: a supervisor's ruling closes the hold and puts the cards it
held aside (decision 0008), and the cards reach the discard rack in the recorded pick-up order. Mixed
into each game's Round, whose RoundState keeps ``set_aside`` and ``pickup`` and says ``pickup_order``.
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from typing import Protocol, cast

from transitions import EventData

from games.common.holds import Hold
from games.common.machine_parts import message_of
from games.common.messages import COVER_CARD, Arrival, Resolution
from games.common.pickup import SET_ASIDE, Pickup
from games.common.round_base import A, RoundBase


class PickupKinds(Protocol):
    @property
    def SET_ASIDE(self) -> enum.StrEnum: ...

    @property
    def PICKUP(self) -> enum.StrEnum: ...


class RulingAndPickup(RoundBase[A]):
    """The supervisor's ruling and the pick-up record, in the game's own record kinds. The game's
    RoundState says ``pickup_order``."""

    @property
    def _pickup_kinds(self) -> PickupKinds:
        """The game's record kinds of a card set aside and of the pick-up: every game's but Crazy 4
        Poker's, whose holds keep no cards and whose rack is counted, not listed."""
        return cast(PickupKinds, self.kinds)

    def _resolve(self, event: EventData) -> Hold:
        """Close the hold with the supervisor's ruling; the cards held go aside."""
        message, hold = message_of(event), self.hold
        assert hold is not None, "only a held round is ruled on"
        voided = "round voided" if hold.kind.on_void is None else f"round voided; {hold.kind.on_void}"
        self.log.add(
            self.kinds.RESOLUTION,
            code=hold.kind.code,
            resolution=message.resolution.value,
            supervisor=message.operator.ident,
            effect=hold.kind.on_continue if message.resolution is Resolution.CONTINUE else voided,
        )
        for item in hold.items:
            self._set_aside(item, hold.kind.code)
        self.hold = None
        return hold

    def _set_aside(self, item: Arrival, code: str) -> None:
        """A card held for a ruling goes to the discard rack after the round's hands (a shoe's cover
        card to the side, 672a.7(d), 686a.7(d)); one dealt face down stays face down, known by its
        commitment."""
        if item is COVER_CARD:
            self._cover_card_aside()
            return
        pickup = Pickup.of(item, SET_ASIDE)
        self.set_aside.append(pickup)
        self.log.add(self._pickup_kinds.SET_ASIDE, card=pickup.card, commitment=pickup.commitment, code=code)

    picked = 0  # cards recorded as picked up so far (a hand paid in play goes before the round ends)

    def _record_pickup(self, **cited: str) -> None:
        """Record every card of the round in the order it goes to the rack (``cited``: the clause of
        that order, where the game's section sets one), after those already picked up."""
        self.pickup = tuple(self.pickup_order())
        self._pick_up(self.pickup[self.picked :], **cited)

    def _pick_up(self, pickups: Sequence[Pickup], **cited: str) -> None:
        """Record ``pickups`` going to the rack, numbered on. Cards that leave the layout before the
        round ends (a Blackjack paid in turn, 672a.7(h)(1)) are recorded as they go, first in the
        pick-up order: the trail says where every card is at any moment, so a round cut off after
        it names only the cards still on the layout."""
        for pickup in pickups:
            self.picked += 1
            self.log.add(
                self._pickup_kinds.PICKUP,
                order=self.picked,
                place=pickup.place,
                card=pickup.card,
                commitment=pickup.commitment,
                **cited,
            )
