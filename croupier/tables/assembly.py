"""Each game's table put together from its devices' connections: the same assembly for equipment on
the felt and for simulated devices, so the table a test plays is the table a casino runs.

``assemble`` takes the connections by device kind (``"shoe"``, ``"shuffler"``, ``"card-reader"``,
``"progressive"``, ``"meter-sign"``) and the dealer (the simulated dealer's hands, or the human
dealer on the screen), and returns the game's table, not yet opened.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from croupier.config.table import NEEDS
from croupier.tables.crazy_4_poker import Crazy4PokerTable
from croupier.tables.free_bet_blackjack import FreeBetBlackjackTable
from croupier.tables.heads_up_holdem import HeadsUpHoldemTable
from croupier.tables.over_under import OverUnderTable
from devices.card_reader import CardReader
from devices.progressive import Progressive
from devices.shoe import Shoe
from devices.shuffler import Shuffler
from drivers.card_reader import CardReaderDriver
from drivers.connection import DeviceConnection
from drivers.progressive import MeterSignDriver, ProgressiveDriver
from drivers.shoe import ShoeDriver
from drivers.shuffler import ShufflerDriver

Connections = Mapping[str, DeviceConnection]

#: The devices each game's table needs, by kind (the configuration's NEEDS, each with its clause).
DEVICES: dict[str, tuple[str, ...]] = {
    game: tuple(kind.value for kind in needs) for game, needs in NEEDS.items()
}
#: Who deals until the dealer's screen names the dealer on duty (a dealer change).
UNASSIGNED = "unassigned"


def shoe_game_shuffler(connections: Connections, *, allow_seeded: bool = False) -> Shuffler:
    """A shoe game's shuffler: two batches take turns at the shoe (633a.3(b), analog)."""
    return Shuffler(ShufflerDriver(connections["shuffler"]), allow_seeded=allow_seeded)


def one_deck_shuffler(
    connections: Connections, *, allow_seeded: bool = False, read_order: bool = True
) -> Shuffler:
    """The shuffler of a game dealt from one deck: it shuffles that deck again and again, rather
    than alternating two batches. ``allow_seeded``: the simulator's seeded shuffle may reach the
    table (``croupier sim --seed``), never otherwise; ``read_order``: False for a shuffler that
    reports no shuffled order (the dealer then reports the hands)."""
    driver = ShufflerDriver(connections["shuffler"])
    return Shuffler(driver, alternate_batches=False, allow_seeded=allow_seeded, read_order=read_order)


def _free_bet_blackjack(
    connections: Connections, options: dict[str, Any]  # Any: TOML values
) -> FreeBetBlackjackTable:
    reader_options = {"clock": options.pop("reader_clock")} if options.get("reader_clock") else {}
    options.pop("reader_clock", None)
    return FreeBetBlackjackTable(
        shoe=Shoe(ShoeDriver(connections["shoe"]), clauses=FreeBetBlackjackTable.shoe_clauses),
        reader=CardReader(CardReaderDriver(connections["card-reader"]), **reader_options),
        shuffler=shoe_game_shuffler(connections, allow_seeded=options.pop("allow_seeded", False)),
        **options,
    )


def _over_under(connections: Connections, options: dict[str, Any]) -> OverUnderTable:  # Any: TOML values
    return OverUnderTable(
        shoe=Shoe(ShoeDriver(connections["shoe"]), clauses=OverUnderTable.shoe_clauses),
        shuffler=shoe_game_shuffler(connections, allow_seeded=options.pop("allow_seeded", False)),
        **options,
    )


def _heads_up_holdem(
    connections: Connections, options: dict[str, Any]  # Any: TOML values
) -> HeadsUpHoldemTable:
    options.pop("dealer_on_duty", None)  # a Hold 'Em round does not name its dealer
    return HeadsUpHoldemTable(
        shoe=Shoe(  # 677a.10 burns no card
            ShoeDriver(connections["shoe"]), clauses=HeadsUpHoldemTable.shoe_clauses, burns=False
        ),
        shuffler=one_deck_shuffler(connections, allow_seeded=options.pop("allow_seeded", False)),
        **options,
    )


def _crazy_4_poker(connections: Connections, options: dict[str, Any]) -> Crazy4PokerTable:  # Any: TOML values
    options.pop("dealer_on_duty", None)
    progressive = Progressive(
        ProgressiveDriver(connections["progressive"]),
        MeterSignDriver(connections["meter-sign"]),
        **({"win_deadline": options.pop("win_deadline")} if "win_deadline" in options else {}),
    )
    rules = options.get("rules")
    read_order = rules is None or rules.shuffler_reports_order
    return Crazy4PokerTable(
        shuffler=one_deck_shuffler(
            connections, allow_seeded=options.pop("allow_seeded", False), read_order=read_order
        ),
        progressive=progressive,
        **options,
    )


_ASSEMBLERS: dict[str, Callable[[Connections, dict[str, Any]], Any]] = {  # Any: TOML values; any table
    "free-bet-blackjack": _free_bet_blackjack,
    "over-under": _over_under,
    "heads-up-holdem": _heads_up_holdem,
    "crazy-4-poker": _crazy_4_poker,
}


def assemble(
    game: str, connections: Connections, *, dealer: Any, **options: Any  # Any: any game's dealer; TOML
) -> Any:  # Any: a table of any game
    """``game``'s table over ``connections`` (by device kind), dealt by ``dealer``; ``options`` go
    to the table (rules, name, backs, cover_depth, award_levels, record_events...), with
    ``allow_seeded`` and ``reader_clock`` for the devices. The dealer on duty is UNASSIGNED unless
    given."""
    missing = [kind for kind in DEVICES[game] if kind not in connections]
    if missing:
        raise ValueError(f"{game} needs a {missing[0]} (devices: {', '.join(DEVICES[game])})")
    options.setdefault("dealer_on_duty", UNASSIGNED)
    return _ASSEMBLERS[game](connections, {"dealer": dealer, **options})
