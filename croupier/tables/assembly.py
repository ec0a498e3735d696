"""Each game's table put together from its devices' connections: the same assembly for equipment on
the felt and for simulated devices, so the table a test plays is the table a casino runs.

``assemble`` takes the connections by device kind (``"shoe"``, ``"shuffler"``, ``"card-reader"``,
``"progressive"``, ``"meter-sign"``) and the dealer (the simulated dealer's hands, or the human
dealer on the screen), and returns the game's table, not yet opened. Each game's own assembly is
in its table module (``TABLE``, croupier.tables.registry); the two ways a shuffler works are here,
shared.
"""

from __future__ import annotations

from croupier.tables.registry import Connections, Table, table_kind
from devices.shuffler import Shuffler
from drivers.shuffler import ShufflerDriver

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


def assemble(game: str, connections: Connections, *, dealer: object, **options: object) -> Table:
    """``game``'s table over ``connections`` (by device kind), dealt by ``dealer``; ``options`` go
    to the table (rules, name, backs, cover_depth, award_levels, record_events...), with
    ``allow_seeded`` and ``reader_clock`` for the devices. The dealer on duty is UNASSIGNED unless
    given. The dealer and the options are the game's table's to check: each game takes its own
    kind of dealer (croupier.tables.dealer.Dealer and the steps the game adds) and its own options."""
    kind = table_kind(game)
    missing = [device for device in kind.game.devices if device not in connections]
    if missing:
        raise ValueError(f"{game} needs a {missing[0]} (devices: {', '.join(kind.game.devices)})")
    options.setdefault("dealer_on_duty", UNASSIGNED)
    return kind.assemble(connections, {"dealer": dealer, **options})
