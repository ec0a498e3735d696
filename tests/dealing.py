"""Test helpers for tables on the simulated devices: a dealer with a camera over the felt, a
stacked top of the shoe, and the checks every table's end-to-end tests share."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from structlog.testing import capture_logs

from croupier.audit.record import AuditRecord
from croupier.audit.writer import AuditTrail
from croupier.service.journal import TableJournal
from croupier.state import TableState
from croupier.tables.events import Publishing
from drivers.protocol.classes.shuffler import BatchDelivered, ShuffleCompleted
from firmware_sim.world import DISCARD, SHOE, TableWorld
from games.common.records import RecordKind
from simulator.dealer import SimulatedDealer
from vocabulary.cards import Card
from vocabulary.events import Events


class WatchingDealer(SimulatedDealer):
    """The simulated dealer, with a camera over the felt: what lay at each place when the dealer
    picked it up, and the cards in the order they reached the rack; it can jam the shoe after a
    given number of cards placed."""

    def __init__(self, world: TableWorld) -> None:
        super().__init__(world)
        self.felt: dict[str, list[str]] = {}
        self.racked: list[str] = []
        self.placed = 0
        self.jam_after: int | None = None  # the shoe jams once this many cards have been placed
        self.paid: list[tuple[str, int, int]] = []  # Blackjacks paid: place, amount, cards placed before

    def place(self, place: str, face_up: bool) -> None:
        super().place(place, face_up)
        self.placed += 1
        if self.placed == self.jam_after:
            self.world.faults.stuck.add(SHOE)

    def pay_blackjack(self, place: str, amount: int) -> None:
        super().pay_blackjack(place, amount)
        self.paid.append((place, amount, self.placed))

    def pick_up(self, places: Sequence[str]) -> None:
        for place in places:
            self.felt.setdefault(place, [str(card.face) for card in self.world.cards(place)])
        super().pick_up(places)
        if places:  # each entry moved one card to the rack
            self.racked += [str(card.face) for card in self.world.cards(DISCARD)[-len(places) :]]

    def new_round(self) -> None:
        self.felt, self.racked, self.paid = {}, [], []


def stack_top(world: TableWorld, names: Sequence[str]) -> None:
    """A test's hand in the shoe: bring these faces (one physical card each) to its top, in order."""
    with world.lock:
        shoe = world.places[SHOE]
        picked = []
        for name in names:
            face = Card.parse(name)
            picked.append(shoe.pop(next(i for i, card in enumerate(shoe) if card.face == face)))
        shoe[0:0] = picked


def assert_batches_alternate(events: Sequence[object], backs: Sequence[str], decks: int) -> list[int]:
    """Every shuffle counted a whole batch with no foreign card, the batches' backs alternate, and
    each batch delivered to the shoe is the next back in turn; the delivered shuffle ids."""
    shuffles = [e for e in events if isinstance(e, ShuffleCompleted)]
    assert all(s.count == s.expected == decks * 52 and not s.foreign for s in shuffles)
    shuffled = [s.back for s in shuffles]
    assert shuffled == [backs[i % 2] for i in range(len(shuffled))], "batches alternate, each counted"
    delivered = [e.shuffle_id for e in events if isinstance(e, BatchDelivered)]
    assert [shuffled[i - 1] for i in delivered] == [backs[i % 2] for i in range(len(delivered))]
    return delivered


async def play_after_a_dealer_change(rig: Any, players: object) -> tuple[Any, int]:
    """A round, then a new dealer (D-2) and a round: the new dealer burns a card before the deal;
    the same change sent again afterwards owes nothing (672a.7(c): each *new* dealer). The second
    round, and the discard rack's count before it."""
    await rig.play(players)
    assert len(rig.table.shoe.burn_cards) == 1
    rig.table.dealer_change("D-2")
    assert rig.table.shoe.state == "needs_burn" and rig.table.shoe.burns_owed == ("new_dealer",)
    rack = rig.world.count(DISCARD)
    with capture_logs() as logs:
        round_ = await rig.play(players)
    assert len(rig.table.shoe.burn_cards) == 2
    events = [entry["event"] for entry in logs]
    assert events.index("card burned") < events.index("card dealt")
    assert round_.log.of(RecordKind.DEAL_STARTED)[0].fields["dealer"] == "D-2"
    rig.table.dealer_change("D-2")  # the change sent again after the burn: D-2 is no new dealer
    assert rig.table.shoe.burns_owed == (), "a repeated dealer change owes no second burn"
    return round_, rack


@contextlib.contextmanager
def journal_of(table: Any, directory: Path, game: str) -> Iterator[list[AuditRecord]]:
    """The table's journal writing its audit trail into ``directory`` while the block runs; the list
    yielded is filled with the trail's records, in order, when the block ends."""
    records: list[AuditRecord] = []
    with AuditTrail(directory, "T1") as trail, TableState(directory / "state.db") as state:
        table.events.subscribe(TableJournal(trail, state, table="T1", game=game), durable=True)
        yield records
    records += [AuditRecord.parse(line) for path in trail.files() for line in path.read_bytes().splitlines()]


async def burns_in_the_trail(rig: Any, players: object, directory: Path, game: str) -> list[AuditRecord]:
    """A new dealer (D-2) takes over the batch the table opened with, its burn still due; a round,
    then rounds until the cover card has changed the batch and one more. Every burn is in the trail
    before the deal it precedes, two for the new dealer on the fresh batch; the trail's records."""
    assert rig.table.shoe.burns_owed == ("batch",)
    rig.table.dealer_change("D-2")
    with journal_of(rig.table, directory, game) as trail:
        await rig.play(players)
        batches = [rig.table.in_shoe]
        while len(batches) < 2:
            await rig.play(players)
            if rig.table.in_shoe != batches[-1]:
                batches.append(rig.table.in_shoe)
        await rig.play(players)
    burns = [record for record in trail if record.kind == "burn"]
    assert [(b.fields["reason"], b.fields["dealer"], b.fields["batch"]) for b in burns] == [
        ("batch", "D-2", batches[0]),
        ("new_dealer", "D-2", batches[0]),
        ("batch", "D-2", batches[1]),
    ], "one burn per batch loaded, and the new dealer's"
    assert [b.fields["dispensed"] for b in burns] == [1, 2, 1]
    assert all(b.round is None and "card" not in b.fields for b in burns), "never the burn card's face"
    kinds = [record.kind for record in trail]
    assert kinds[: kinds.index("card")].count("burn") == 2, "both burns before any card is dealt"
    last = max(i for i, record in enumerate(trail) if record.kind == "burn")
    following = next(record.round for record in trail[last:] if record.kind == "card")
    cards = [i for i, record in enumerate(trail) if record.kind == "card" and record.round == following]
    assert min(cards) > last, "the new batch's burn before any card of the round after it"
    return trail


async def held_by_a_jam(rig: Any, playing: asyncio.Task[Any]) -> None:
    """The shoe jams mid-round: the table latches JAM and the round is held."""
    async with asyncio.timeout(5):
        while not rig.table.faults:
            await asyncio.sleep(0.01)
    assert [fault.code for fault in rig.table.faults] == ["JAM"]
    await asyncio.sleep(0.1)
    assert not playing.done(), "the round is held"


class _OnePath(Publishing):
    """A table's one path of a round's records (croupier.tables.events), with nothing else of a table."""

    def __init__(self, journal: TableJournal) -> None:
        self.events = Events()
        self.events.subscribe(journal, durable=True)


def journaled(round_: Any, journal: TableJournal) -> None:
    """A round played without a table, its records taken by ``journal`` as a table takes them: those
    made so far now, then each message's before ``handle`` returns."""
    path = _OnePath(journal)
    path._published(round_, round_.records)
    handle = round_.handle
    round_.handle = lambda message: path._published(round_, handle(message))
