"""The players and the dealer's counts of a table driven from the dealer's screen.

Each game's players (``KeyedPlayers``, in the game's table module: croupier.tables.registry) answer
the table's questions (croupier/tables: the game's Players protocol, and the counts of its Dealer
protocol) by showing a prompt on the ``Screen`` and waiting for the answer keyed over the API; the
prompt carries what the screen needs to show (whose turn, what is allowed, the face-up cards) and
how to read the answer's JSON into the game's own message. A face-down card is never in a prompt:
the table does not know its face.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from croupier.config.limits import Limits, check_limits
from croupier.screen.bodies import message_body
from croupier.screen.dealer import (
    ScreenDealer,
)
from croupier.screen.prompts import CLOSE_BETTING, Screen

Json = Mapping[str, Any]  # Any: JSON values


class KeyedCounts:
    """The dealer's counts keyed on the screen — the stub (677a.10(d), 657a.9(d)) and the
    progressive chips (657a.9(a)(3)) — at a simulated table driven from the screen: every other
    step is done by ``hands``, the simulated dealer's."""

    def __init__(self, hands: Any, screen: Screen) -> None:  # Any: the dealer's hands of any game
        self._hands, self._screen = hands, ScreenDealer(screen)

    def __getattr__(self, name: str) -> Any:  # Any: as the hands'
        return getattr(self._hands, name)

    def count_stub(self) -> Any:  # Any: a keyed count
        """The stub in the simulated hands, counted by the person at the screen: the hands pick it
        up to count it (their own ``count_stub``, whose count is not taken), so a card a fault
        profile drops from it (``croupier run --faults``, miscount at the stub) falls first, and the
        dealer keys what is there."""
        self._hands.count_stub()
        return self._screen.count_stub()

    def count_progressive_chips(self) -> Any:  # Any: a keyed count
        return self._screen.count_progressive_chips()


class KeyedPlayers:
    """The wagers, the same for every game: the betting prompt's answers until no more bets. Each
    game's players (its table module's) add its own prompts."""

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

    def betting_shown(self) -> dict[str, Any]:  # Any: JSON values
        """What the betting prompt shows beside its answers, so that a screen offers exactly what
        the game takes: the betting positions and the wager's fields (amounts in cents), those
        required listed in ``required``."""
        model = message_body(self.wager).models[0]
        fields = {name: info for name, info in model.model_fields.items() if name not in ("prompt", "seat")}
        shown: dict[str, Any] = {  # Any: JSON values
            "wager_fields": list(fields),
            "required": [name for name, info in fields.items() if info.is_required()],
        }
        if self.rules is not None:
            shown["positions"] = list(range(1, self.rules.positions + 1))
        return shown

    def wagers(self, round_number: int, positions: int) -> Any:  # Any: wagers of any game
        return self.screen.betting()


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
