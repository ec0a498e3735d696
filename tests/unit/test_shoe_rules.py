"""The shoe's rules (devices/shoe.py), each test named after the clause it proves.

The Shoe runs over the real driver, connection, codec and simulated shoe, joined by an in-memory
wire driven on the test's loop: no port and no thread, so each rule is checked in milliseconds and
in the same order every run. Every scenario ends with the table world's card count checked.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import json
import random
import re
import time
from collections.abc import AsyncIterator, Iterable
from dataclasses import dataclass
from pathlib import Path

import pytest

from croupier.tables.feeding import Feeds
from croupier.tables.free_bet_blackjack import FreeBetBlackjackTable
from devices.equipment import DEVICE_FAULT
from devices.faults import LATCH_BLOCKS, Fault, FaultLatch
from devices.shoe import (
    BATCH_COUNT,
    BURN_UNEXPOSED,
    COMMUNITY_FIRST,
    MODE_BETWEEN_ROUNDS,
    NEW_DEALER_BURN,
    RECONCILED,
    Burn,
    CoverCard,
    Shoe,
    ShoeFault,
)
from drivers.connection import DeviceConnection
from drivers.errors import DeviceRefused, OutcomeUnknown
from drivers.protocol.classes.shoe import CoverCardReached
from drivers.protocol.core import DeviceClass, FaultCode, Hello
from drivers.protocol.frame import Frame, Kind
from drivers.shoe import CommitmentMismatch, ShoeDriver
from drivers.transport.base import DataCallback, LostCallback, Transport
from firmware_sim.engine import DeviceEngine
from firmware_sim.shoe import ShoePersonality
from firmware_sim.world import ASIDE, DISCARD, FLOOR, SHOE, SHOE_TRAY, TableWorld, seat
from tests.conformance.profiles.shoe import BACK, eventually
from tests.links import FAST, run
from vocabulary.cards import Card, SealedCard
from vocabulary.operators import SUPERVISOR_CLEARS, Operator, Role
from vocabulary.rules import RuleViolation

DEALER = Operator("D-17", Role.DEALER)
SUPERVISOR = Operator("S-2", Role.SUPERVISOR)
DECK = [Card(rank, suit) for suit in range(4) for rank in range(1, 14)]

#: The shoe under test deals Free Bet Blackjack: its rules cite 672a.7.
CLAUSES = FreeBetBlackjackTable.shoe_clauses


class MemoryWire(Transport):
    """An in-memory wire to a device engine: the host's bytes go in, the device's answer comes back
    on the next turn of the loop. ``swallow`` loses that many of the device's next writes."""

    url = "memory://shoe"

    def __init__(self, engine: DeviceEngine) -> None:
        self.engine = engine
        self.swallow = 0
        self._on_data: DataCallback | None = None

    async def open(self, on_data: DataCallback, on_lost: LostCallback) -> None:
        self._on_data = on_data

    def write(self, data: bytes) -> None:
        self.engine.receive(data, time.monotonic())
        out = self.engine.data_to_send()
        if self.swallow and out:
            self.swallow -= 1
        elif out and self._on_data is not None:
            asyncio.get_running_loop().call_soon(self._on_data, out)

    async def close(self) -> None:
        self._on_data = None

    def present(self) -> bool:
        return True


@dataclass
class Table:
    shoe: Shoe
    device: ShoePersonality
    world: TableWorld
    wire: MemoryWire

    @property
    def driver(self) -> ShoeDriver:
        return self.shoe.driver

    def clauses(self) -> list[str]:
        return [irregularity.rule.clause for irregularity in self.shoe.irregularities]


@contextlib.asynccontextmanager
async def table(
    faces: Iterable[Card | None] = DECK, *, synced: bool = True, burns: bool = True
) -> AsyncIterator[Table]:
    """A shoe into which the dealer has just placed ``faces`` (first out first; None is a cover
    card); its rules synced with it before that, unless ``synced`` is False."""
    world = TableWorld()
    device = ShoePersonality(world=world, rng=random.Random(7))
    wire = MemoryWire(DeviceEngine(device, now=time.monotonic()))
    conn = DeviceConnection(lambda: wire, name="shoe", expected_class=DeviceClass.SHOE, settings=FAST)
    await conn.start()
    try:
        await conn.wait_ready(5.0)
        shoe = Shoe(ShoeDriver(conn), clauses=CLAUSES, burns=burns)
        async with Feeds([shoe]).running():
            if synced:
                await shoe.sync()
            world.add(SHOE, faces, BACK)
            yield Table(shoe, device, world, wire)
    finally:
        await conn.stop()
    world.check()


async def events_applied(t: Table) -> None:
    """Every event the shoe sent has been acknowledged and applied to the rules."""
    await eventually(lambda: t.wire.engine.pending_events == 0 and t.shoe.driver.conn.events.empty())


async def loaded_and_burned(t: Table, cards: int = 52) -> None:
    await t.shoe.load(cards)
    await t.shoe.burn()
    t.world.move(SHOE_TRAY, DISCARD)


async def round_dealt_on_a_reshuffling_shoe(t: Table, cards: int) -> None:
    """An auto-reshuffling shoe loaded and burned, ``cards`` dealt face up in a round and picked up
    into the discard rack: the round waits for its end."""
    await t.shoe.set_mode(auto_reshuffle=True)
    await loaded_and_burned(t)
    t.shoe.start_round()
    for _ in range(cards):
        await t.shoe.deal(face_up=True)
    t.world.move_all(SHOE_TRAY, DISCARD)


def test_no_attribute_of_the_shoe_shadows_a_trigger():
    """Decision 0019: a model method (or attribute) with a trigger's name silently wins over it."""

    async def scenario():
        async with table(synced=False) as t:
            shadowed = [
                name
                for name in t.shoe.machine.events
                if not isinstance(getattr(t.shoe, name), functools.partial)
            ]
            assert not shadowed

    run(scenario())


# -- 672a.7(a): a loaded shoe --------------------------------------------------------------------------------
def test_672a_7_a_nothing_is_burned_or_dealt_from_an_empty_shoe():
    async def scenario():
        async with table(faces=[]) as t:
            assert t.shoe.state == "empty"
            with pytest.raises(RuleViolation) as burn:
                await t.shoe.burn()
            with pytest.raises(RuleViolation) as start:
                t.shoe.start_round()
            assert burn.value.rule is CLAUSES.loaded and start.value.rule is CLAUSES.loaded
            assert t.device.dispensed == 0

    run(scenario())


def test_672a_7_a_load_counts_the_batch_and_a_wrong_count_latches_for_a_supervisor():
    async def scenario():
        async with table(faces=DECK[:51]) as t:
            await t.shoe.load(52)
            assert t.shoe.state == "needs_burn"
            detail = "the shoe counts 51 cards, the batch has 52"
            assert t.shoe.latch.faults == (Fault("WRONG_COUNT", detail, BATCH_COUNT.clause, "host"),)
            assert (t.shoe.irregularities[-1].rule, t.shoe.irregularities[-1].detail) == (BATCH_COUNT, detail)
            with pytest.raises(RuleViolation) as burn:
                await t.shoe.burn()
            assert burn.value.rule is LATCH_BLOCKS
            assert str(burn.value).startswith("burn refused: latched WRONG_COUNT (the shoe counts 51")
            with pytest.raises(RuleViolation) as clear:
                await t.shoe.clear("WRONG_COUNT", DEALER)
            assert clear.value.rule is SUPERVISOR_CLEARS
            await t.shoe.clear("WRONG_COUNT", SUPERVISOR)
            assert not t.shoe.faulted

    run(scenario())


def test_a_shoe_not_yet_synced_knows_nothing_and_moves_only_by_its_rules():
    """Before its first sync the shoe's books are empty (no batch, no counts, no mode, nothing
    unrecorded or unreconciled, no cover card), and no state can be reached but by a transition of
    its rules (no ``to_<state>`` shortcuts)."""

    async def scenario():
        async with table() as t:
            shoe = Shoe(t.driver, clauses=CLAUSES)
            books = (shoe.state, shoe.batch_size, shoe.dispensed, shoe.remaining, shoe.unrecorded)
            assert books == ("offline", None, 0, 0, 0)
            assert (shoe.auto_reshuffle, shoe.community_first, shoe.unreconciled) == (False,) * 3
            assert shoe.auto_reshuffle is shoe.community_first is shoe.unreconciled is False
            assert shoe.round_cards == [] and shoe.burn_cards == [] and shoe.cover is None and shoe.burns
            assert not hasattr(shoe, "to_ready") and not hasattr(shoe, "to_in_round")

    run(scenario())


def test_a_host_restarted_mid_batch_counts_the_cards_dealt_as_part_of_the_batch():
    """A shoe that does not reshuffle, found by a restarted host after cards were dealt: the batch
    is what was dealt plus what remains; a later sync that finds nothing new records nothing."""

    async def scenario():
        async with table() as t:
            await loaded_and_burned(t)
            t.shoe.start_round()
            await t.shoe.deal(face_up=True)
            t.world.move(SHOE_TRAY, seat(1))
            again = Shoe(t.driver, clauses=CLAUSES)
            counts = await again.sync()
            assert (counts.dispensed, counts.remaining, again.batch_size) == (2, 50, 52)
            await again.sync()
            assert not again.irregularities and again.unrecorded == 0

    run(scenario())


def test_672a_7_d_a_cover_card_told_before_the_first_count_read_is_judged_by_it():
    """672a.7(d): a restarted host hears the shoe's cover card event (the answer it came with lost
    before the restart) before it has read the shoe's counts, so it cannot yet tell the event from a
    stale one. It is judged once they are read: at the shoe's dispensed count it ends the shoe there
    (COLLECTING, the cover card at the burn owed by the batch found); at another count it is stale
    and changes nothing (before, both were dropped as stale against a count of 0)."""

    async def scenario():
        async with table() as t:
            await loaded_and_burned(t)
            for told, state, cover in ((1, "collecting", "burn"), (40, "needs_burn", None)):
                again = Shoe(t.driver, clauses=CLAUSES)
                again.apply(CoverCardReached(dispensed=told, remaining=51))
                assert again.state == "offline" and again.cover is None
                await again.sync()
                assert again.state == state and (again.cover and again.cover.when) == cover
                assert not again.irregularities
            while t.world.places[SHOE]:  # the dealer emptied the ended shoe while the host was down
                t.world.move(SHOE, DISCARD)
            emptied = Shoe(t.driver, clauses=CLAUSES)
            emptied.apply(CoverCardReached(dispensed=1, remaining=51))
            await emptied.sync()
            assert emptied.state == "empty" and not emptied.irregularities

    run(scenario())


def test_the_batch_found_by_a_restarted_host_is_counted_against_the_batch_loaded():
    """``Shoe.resumed``: a restarted host counts the batch it finds against the batch the table
    loaded, not against the shoe's own count: one card fewer or more latches WRONG_COUNT once
    (not IMPOSSIBLE_COUNT besides for the card over, which the count already names), the same
    batch passes, and later counts are made against the batch as loaded."""

    async def found(extra: int) -> Shoe:
        async with table([*DECK, *DECK[:extra]] if extra > 0 else DECK[: 52 + extra]) as t:
            await loaded_and_burned(t, len(t.world.cards(SHOE)))
            again = Shoe(t.driver, clauses=CLAUSES)
            await again.sync()
            again.resumed(52)
            await again.sync()
            return again

    async def scenario() -> None:
        same = await found(0)
        assert not same.latch and same.batch_size == 52 and not same.irregularities
        for extra in (-1, 1):
            shoe = await found(extra)
            assert [fault.code for fault in shoe.latch.faults] == ["WRONG_COUNT"], extra
            assert f"at the start holds {52 + extra} cards, not 52" in shoe.latch.faults[0].detail
            assert shoe.batch_size == 52

    run(scenario())


def test_672a_7_s_a_misread_card_is_an_irregularity_and_latches():
    """672a.7(s): a card that leaves the shoe unread has no value in the record: it is counted as
    unrecorded, recorded as irregular and latched (MISREAD) for a supervisor."""

    async def scenario():
        async with table() as t:
            await loaded_and_burned(t)
            t.shoe.start_round()
            t.device.misread_next = 1
            with pytest.raises(ShoeFault) as misread:
                await t.shoe.deal(face_up=True)
            assert misread.value.code is FaultCode.MISREAD and t.shoe.unrecorded == 1
            unread = "a card left the shoe unread"
            assert t.shoe.latch.faults == (Fault("MISREAD", unread, DEVICE_FAULT.clause, "device"),)
            assert [(i.rule, i.detail) for i in t.shoe.irregularities] == [
                (CLAUSES.record_every_card, "a card left the shoe unread: its value is not in the record")
            ]
            await t.shoe.clear("MISREAD", SUPERVISOR)
            t.device.misread_next = 1
            with pytest.raises(ShoeFault):
                await t.shoe.deal(face_up=True)
            assert t.shoe.unrecorded == 2, "each unread card is counted"
            t.world.move_all(SHOE_TRAY, seat(1))

    run(scenario())


def test_the_simulated_shoes_misread_strikes_the_card_it_was_set_for_then_the_first_again():
    """The simulated shoe's test hook (docs/devices.md): ``misread_card = 2`` strikes a stack's second
    card, the first read and kept (docs/protocol.md, MISREAD); once that misread is spent, the next
    ``misread_next = 1`` strikes the first card again, as documented, not the second for ever."""

    async def scenario():
        async with table() as t:
            await loaded_and_burned(t)
            t.shoe.start_round()
            t.device.misread_next, t.device.misread_card = 1, 2
            with pytest.raises(ShoeFault) as second:
                await t.shoe.deal_stack(2)
            assert len(second.value.read) == 1 and t.device.misread_card == 1
            await t.shoe.clear("MISREAD", SUPERVISOR)
            t.device.misread_next = 1
            with pytest.raises(ShoeFault) as first:
                await t.shoe.deal_stack(2)
            assert first.value.read == () and t.shoe.unrecorded == 2
            t.world.move_all(SHOE_TRAY, seat(1))

    run(scenario())


# -- 672a.7(c): the burn card --------------------------------------------------------------------------------
def test_672a_7_c_no_card_is_dealt_after_a_load_until_the_first_is_burned():
    async def scenario():
        async with table() as t:
            await t.shoe.load(52)
            with pytest.raises(RuleViolation) as start:
                t.shoe.start_round()
            with pytest.raises(RuleViolation) as deal:
                await t.shoe.deal(face_up=True)
            assert start.value.rule is CLAUSES.burn_first and deal.value.rule is CLAUSES.burn_first
            assert t.world.count(SHOE) == 52, "no card left the shoe"
            burn = await t.shoe.burn()
            assert isinstance(burn, SealedCard) and t.shoe.burn_cards == [burn]
            assert t.shoe.state == "ready"
            t.world.move(SHOE_TRAY, DISCARD)
            t.shoe.start_round()
            assert await t.shoe.deal(face_up=True) == DECK[1]

    run(scenario())


def test_677a_10_a_game_without_a_burn_card_deals_a_loaded_deck_at_once():
    """677a.10(a)(1), (e): the Hold 'Em deck is dealt whole, so a shoe made with ``burns=False``
    is ready after the load, and a new dealer burns nothing either; 672a.7(c) is blackjack's."""

    async def scenario():
        async with table(burns=False) as t:
            await t.shoe.load(52)
            assert t.shoe.state == "ready"
            t.shoe.dealer_change()
            assert t.shoe.state == "ready"
            t.shoe.start_round()
            assert await t.shoe.deal(face_up=True) == DECK[0]
            assert t.shoe.burn_cards == []

    run(scenario())


def test_672a_7_c_burn_card_is_never_exposed():
    async def scenario():
        async with table() as t:
            await t.shoe.load(52)
            burn = await t.shoe.burn()
            with pytest.raises(RuleViolation) as reveal:
                await t.shoe.reveal(burn)
            assert reveal.value.rule is BURN_UNEXPOSED
            assert str(reveal.value).startswith(f"{burn} is a burn card")
            assert str(DECK[0]) not in str(reveal.value)
            t.world.move(SHOE_TRAY, DISCARD)

    run(scenario())


def test_672a_7_c_each_new_dealer_burns_one_card_before_dealing():
    async def scenario():
        async with table() as t:
            await loaded_and_burned(t)
            t.shoe.dealer_change()
            assert t.shoe.state == "needs_burn"
            with pytest.raises(RuleViolation) as start:
                t.shoe.start_round()
            assert start.value.rule is CLAUSES.burn_first
            await t.shoe.burn()
            t.world.move(SHOE_TRAY, DISCARD)
            t.shoe.start_round()
            with pytest.raises(RuleViolation) as change:
                t.shoe.dealer_change()
            assert change.value.rule is CLAUSES.new_dealer_burns and t.shoe.state == "in_round"
            assert [c.uid for c in t.world.cards(DISCARD)] == [1, 2], "two burns, the first two cards"

    run(scenario())


def test_672a_7_c_a_new_dealer_on_a_fresh_batch_burns_twice():
    """672a.7(c): a new dealer who takes over a batch just placed in the shoe, its first card not yet
    burned, "shall also" burn one: two burns, the batch's then the new dealer's, each said by
    ``last_burn`` with the shoe's counts; no card is dealt while the second is still owed."""

    async def scenario():
        async with table() as t:
            await t.shoe.load(52)
            t.shoe.dealer_change()
            assert t.shoe.state == "needs_burn" and t.shoe.burns_owed == ("batch", "new_dealer")
            await t.shoe.burn()
            t.world.move(SHOE_TRAY, DISCARD)
            assert t.shoe.last_burn == Burn("batch", 1, 51)
            assert t.shoe.state == "needs_burn" and t.shoe.burns_owed == ("new_dealer",)
            with pytest.raises(RuleViolation) as start:
                t.shoe.start_round()
            assert start.value.rule is CLAUSES.burn_first
            with pytest.raises(RuleViolation) as deal:
                await t.shoe.deal(face_up=True)
            assert deal.value.rule is CLAUSES.burn_first and t.device.dispensed == 1, "refused, nothing dealt"
            await t.shoe.burn()
            t.world.move(SHOE_TRAY, DISCARD)
            assert t.shoe.last_burn == Burn("new_dealer", 2, 50)
            assert t.shoe.state == "ready" and t.shoe.burns_owed == ()
            t.shoe.start_round()
            assert await t.shoe.deal(face_up=True) == DECK[2], "the first two cards were burned"
            t.world.move(SHOE_TRAY, seat(1))
            assert [c.uid for c in t.world.cards(DISCARD)] == [1, 2]

    run(scenario())


def test_672a_7_c_the_new_dealers_burn_is_still_owed_after_a_cover_card_at_it():
    """672a.7(c), (d): the cover card came out where a new dealer's burn card was due, ending the
    shoe; the next batch then owes its own burn and the new dealer's, who has burned none yet."""

    async def scenario():
        async with table(faces=[DECK[0], None, *DECK[1:]]) as t:
            await loaded_and_burned(t)
            t.shoe.dealer_change()
            assert await t.shoe.burn() is None and t.shoe.state == "collecting"
            t.world.move_all(SHOE, DISCARD)
            await t.shoe.collect(52)
            assert t.shoe.burns_owed == ("new_dealer",)
            t.world.move_all(DISCARD, SHOE)
            await t.shoe.load(52)
            assert t.shoe.burns_owed == ("batch", "new_dealer")

    run(scenario())


async def new_dealers_burn_lost(t: Table) -> Burn | None:
    """A batch loaded and burned, then a new dealer's burn whose every answer is lost (the card left
    the shoe): OutcomeUnknown, LINK_LOST latched; the link back and cleared, the counts not read
    yet. Returns the shoe's last burn before it."""
    await loaded_and_burned(t)
    t.shoe.dealer_change()
    before = t.shoe.last_burn
    t.wire.swallow = 1 + FAST.timings.max_retries
    with pytest.raises(OutcomeUnknown):
        await t.shoe.burn()
    await eventually(lambda: t.shoe.faulted)
    await t.shoe.driver.conn.wait_ready(5.0)
    await t.shoe.clear("LINK_LOST", SUPERVISOR)
    return before


def test_672a_7_c_a_burn_lost_with_the_link_is_the_card_it_let_out():
    """672a.7(c): one card for each burn. The counts read after a burn whose answer was lost show
    its card out: that card is the burn (never seen, whatever happened to its answer), counted as
    it, not as a card unrecorded, and no other burn is owed for it."""

    async def scenario():
        async with table() as t:
            before = await new_dealers_burn_lost(t)
            await t.shoe.sync()
            assert t.shoe.last_burn is not before and t.shoe.last_burn.reason == NEW_DEALER_BURN
            assert t.shoe.state == "ready" and t.shoe.unrecorded == 0 and not t.shoe.irregularities
            t.world.move(SHOE_TRAY, DISCARD)

    run(scenario())


def test_672a_7_c_a_burn_lost_with_the_link_then_the_shoe_closed_leaves_an_unrecorded_card():
    """A shoe closed (``close_shoe``) before the counts of its lost burn were read owes no burn: the
    card that left is one unrecorded (672a.7(s)), not a burn made in a shoe that has ended. Found in
    review: the count raised MachineError (no burn from COLLECTING) and the card was in neither
    tally."""

    async def scenario():
        async with table() as t:
            before = await new_dealers_burn_lost(t)
            t.shoe.close_shoe()
            await t.shoe.sync()
            assert t.shoe.state == "collecting" and t.shoe.last_burn is before
            assert t.shoe.unrecorded == 1 and t.shoe.irregularities[-1].rule is CLAUSES.record_every_card
            t.world.move(SHOE_TRAY, DISCARD)

    run(scenario())


def test_672a_7_c_no_burn_when_none_is_due():
    async def scenario():
        async with table() as t:
            await loaded_and_burned(t)
            with pytest.raises(RuleViolation) as burn:
                await t.shoe.burn()
            assert burn.value.rule is CLAUSES.no_burn_due
            assert t.device.dispensed == 1

    run(scenario())


# -- 672a.7(e): cards go out within a round ------------------------------------------------------------------
def test_672a_7_e_cards_are_dealt_only_within_a_round():
    async def scenario():
        async with table() as t:
            await loaded_and_burned(t)
            with pytest.raises(RuleViolation) as deal:
                await t.shoe.deal(face_up=True)
            assert deal.value.rule is CLAUSES.round_first and t.device.dispensed == 1

    run(scenario())


def test_672a_7_e_one_round_at_a_time():
    async def scenario():
        async with table() as t:
            await loaded_and_burned(t)
            with pytest.raises(RuleViolation) as no_round:
                await t.shoe.end_round()
            t.shoe.start_round()
            with pytest.raises(RuleViolation) as again:
                t.shoe.start_round()
            with pytest.raises(RuleViolation) as close:
                t.shoe.close_shoe()
            assert no_round.value.rule is again.value.rule is close.value.rule is CLAUSES.one_round
            assert t.shoe.state == "in_round"

    run(scenario())


def test_dispense_reports_the_card_read_and_the_counts():
    async def scenario():
        async with table(faces=[*DECK[:20], None, *DECK[20:]]) as t:
            await loaded_and_burned(t)
            t.shoe.start_round()
            assert await t.shoe.deal(face_up=True) == DECK[1]
            t.world.move(SHOE_TRAY, seat(1))
            assert (t.shoe.dispensed, t.shoe.remaining) == (2, 50), "the cover card is not counted"
            assert t.shoe.round_cards == [DECK[1]]
            executions = t.wire.engine.executions
            await t.shoe.end_round()
            assert t.wire.engine.executions == executions, "a shoe that does not reshuffle is told nothing"
            assert t.shoe.state == "ready"

    run(scenario())


# -- 672a.7(k): face-down cards stay sealed until turned up --------------------------------------------------
def test_672a_7_k_face_down_card_is_sealed_until_revealed_and_the_reveal_is_proven():
    async def scenario():
        async with table() as t:
            await loaded_and_burned(t)
            t.shoe.start_round()
            hole = await t.shoe.deal(face_up=False)
            assert isinstance(hole, SealedCard)
            assert re.fullmatch(r"SealedCard\(#\d+, commitment [0-9a-f]{8}\.\.\.\)", repr(hole))
            assert not hasattr(hole, "face")
            t.world.move(SHOE_TRAY, seat(1))
            assert not t.shoe.opens(hole, DECK[1]), "not turned up yet: it opens nothing"
            assert await t.shoe.reveal(hole) == DECK[1]
            executions = t.wire.engine.executions
            assert await t.shoe.reveal(hole) == DECK[1], "a second look costs nothing"
            assert t.wire.engine.executions == executions, "and asks the shoe nothing"
            assert t.shoe.opens(hole, DECK[1]) and not t.shoe.opens(hole, DECK[2])
            forged = SealedCard(hole.reference, bytes(32))
            assert not t.shoe.opens(forged, DECK[1]), "a card not dealt by this shoe opens nothing"
            with pytest.raises(CommitmentMismatch):
                await t.driver.reveal(forged)
            with pytest.raises(ValueError, match="not a face-down card dealt by shoe"):
                await t.shoe.reveal(forged)

    run(scenario())


# -- faults latch (decision 0017) ---------------------------------------------------------------------------
def test_latched_jam_blocks_dealing_until_a_supervisor_clears_it():
    async def scenario():
        async with table() as t:
            await loaded_and_burned(t)
            t.shoe.start_round()
            t.world.faults.stuck.add(SHOE)
            with pytest.raises(ShoeFault) as jam:
                await t.shoe.deal(face_up=True)
            assert jam.value.code is FaultCode.JAM and t.device.dispensed == 1
            detail = "a card jammed in the shoe: nothing was dealt"
            assert jam.value.detail == detail
            assert str(jam.value) == f"shoe: {detail}: JAM latched until a supervisor clears it"
            assert t.shoe.latch.faults == (Fault("JAM", detail, DEVICE_FAULT.clause, "device"),)
            executions = t.wire.engine.executions
            with pytest.raises(RuleViolation) as blocked:
                await t.shoe.deal(face_up=True)
            assert blocked.value.rule is LATCH_BLOCKS
            assert str(blocked.value).startswith(f"deal refused: latched JAM ({detail})")
            assert t.wire.engine.executions == executions, "refused before reaching the device"
            with pytest.raises(RuleViolation) as dealer:
                await t.shoe.clear("JAM", DEALER)
            assert dealer.value.rule is SUPERVISOR_CLEARS
            with pytest.raises(DeviceRefused, match="condition still present"):
                await t.shoe.clear("JAM", SUPERVISOR)
            t.world.faults.stuck.clear()
            await t.shoe.clear("JAM", SUPERVISOR)
            assert await t.shoe.deal(face_up=True) == DECK[1]
            t.world.move(SHOE_TRAY, seat(1))

    run(scenario())


def test_empty_shoe_latches_empty_and_loses_nothing():
    async def scenario():
        async with table(faces=DECK[:2]) as t:
            await loaded_and_burned(t, cards=2)
            t.shoe.start_round()
            with pytest.raises(ShoeFault) as stack:
                await t.shoe.deal_stack(2)
            assert stack.value.code is FaultCode.EMPTY
            assert t.world.count(SHOE) == 1 and t.world.count(SHOE_TRAY) == 0, "nothing moved"

    run(scenario())


# -- 672a.7(d): the cover card -------------------------------------------------------------------------------
def test_672a_7_d_cover_card_during_play_completes_the_round_then_no_new_round():
    async def scenario():
        async with table(faces=[*DECK[:3], None, *DECK[3:]]) as t:
            await loaded_and_burned(t)
            t.shoe.start_round()
            assert await t.shoe.deal(face_up=True) == DECK[1]
            assert await t.shoe.deal(face_up=True) == DECK[2]
            assert await t.shoe.deal(face_up=True) == DECK[3], "the cover card is set aside, the next dealt"
            assert t.shoe.state == "ending" and t.shoe.cover == CoverCard("during-play", 3)
            assert t.world.count(ASIDE) == 1 and t.world.cards(ASIDE)[0].is_cover
            assert await t.shoe.deal(face_up=True) == DECK[4], "the round is completed"
            t.world.move_all(SHOE_TRAY, DISCARD)
            executions = t.wire.engine.executions
            await t.shoe.end_round()
            assert t.wire.engine.executions == executions, "a shoe that does not reshuffle is told nothing"
            assert t.shoe.state == "collecting"
            with pytest.raises(RuleViolation) as start:
                t.shoe.start_round()
            assert start.value.rule is CLAUSES.cover_ends
            assert t.shoe.cover is not None and not t.shoe.irregularities

    run(scenario())


def test_672a_7_d_cover_card_at_the_start_of_a_round():
    async def scenario():
        async with table(faces=[DECK[0], None, *DECK[1:]]) as t:
            await loaded_and_burned(t)
            t.shoe.start_round()
            assert await t.shoe.deal(face_up=True) == DECK[1]
            assert t.shoe.cover.when == "round-start" and t.shoe.state == "ending"
            t.world.move(SHOE_TRAY, seat(1))

    run(scenario())


def test_672a_7_d_cover_card_reported_by_reply_and_event_counts_once():
    async def scenario():
        async with table(faces=[DECK[0], None, *DECK[1:]]) as t:
            await loaded_and_burned(t)
            t.shoe.start_round()
            await t.shoe.deal(face_up=True)
            await events_applied(t)  # CoverCardReached, after the reply reported the same cover
            await t.shoe.deal(face_up=True)
            assert t.shoe.state == "ending" and not t.shoe.irregularities
            t.world.move_all(SHOE_TRAY, seat(1))

    run(scenario())


def test_672a_7_d_a_late_cover_card_event_from_the_last_batch_does_not_end_the_next():
    async def scenario():
        async with table() as t:
            await t.shoe.load(52)
            t.shoe.apply(CoverCardReached(dispensed=40, remaining=11))
            assert t.shoe.state == "needs_burn" and t.shoe.cover is None

    run(scenario())


def test_672a_7_d_cover_card_at_a_new_dealers_burn_ends_the_shoe_at_once():
    async def scenario():
        async with table(faces=[DECK[0], None, *DECK[1:]]) as t:
            await loaded_and_burned(t)
            t.shoe.dealer_change()
            assert await t.shoe.burn() is None
            assert t.shoe.state == "collecting" and t.shoe.cover == CoverCard("burn", 1)
            await events_applied(t)  # CoverCardReached, after the burn's reply reported it
            assert t.shoe.state == "collecting" and not t.shoe.irregularities

    run(scenario())


def test_672a_7_d_a_cover_card_reported_between_rounds_is_irregular_each_time():
    """672a.7(d): a cover card comes out only while cards are dealt; one reported while the shoe
    waits between rounds is recorded as misplaced, and a second report at the same count is a
    second card, recorded again."""

    async def scenario():
        async with table() as t:
            await loaded_and_burned(t)
            for _ in range(2):
                t.shoe.apply(CoverCardReached(dispensed=t.shoe.dispensed, remaining=t.shoe.remaining))
            detail = "a cover card came out while the shoe was ready"
            assert [(i.rule, i.detail) for i in t.shoe.irregularities] == [
                (CLAUSES.cover_placement, detail)
            ] * 2
            assert t.shoe.state == "ready" and t.shoe.cover is None

    run(scenario())


def test_cover_card_as_the_burn_card_is_misplaced_and_set_aside():
    async def scenario():
        async with table(faces=[None, *DECK]) as t:
            await t.shoe.load(52)
            with pytest.raises(ShoeFault) as burn:
                await t.shoe.burn()
            assert burn.value.code is FaultCode.COVER_CARD_MISPLACED
            assert t.clauses() == [CLAUSES.cover_placement.clause] and t.world.count(ASIDE) == 1
            out_of_place = "the cover card is out of place"
            fault = Fault("COVER_CARD_MISPLACED", out_of_place, DEVICE_FAULT.clause, "device")
            assert t.shoe.latch.faults == (fault,)
            misplaced = "the cover card came out as the burn card or inside a stack"
            assert t.shoe.irregularities[0].detail == misplaced
            await t.shoe.clear("COVER_CARD_MISPLACED", SUPERVISOR)
            await t.shoe.burn()
            t.world.move(SHOE_TRAY, DISCARD)
            assert t.shoe.state == "ready"

    run(scenario())


def test_cover_card_inside_a_stack_is_misplaced_and_nothing_moves():
    async def scenario():
        async with table(faces=[DECK[0], DECK[1], None, *DECK[2:]]) as t:
            await loaded_and_burned(t)
            t.shoe.start_round()
            with pytest.raises(ShoeFault) as stack:
                await t.shoe.deal_stack(2)
            assert stack.value.code is FaultCode.COVER_CARD_MISPLACED
            assert t.world.count(SHOE_TRAY) == 0 and t.world.count(SHOE) == 52

    run(scenario())


def test_672a_7_d_a_second_cover_card_in_the_same_shoe_is_irregular():
    """672a.7(d): one cover card per batch; a second one out while the round completes is recorded
    as a misplaced cover card, set aside, and the shoe still ends after the round."""

    async def scenario():
        async with table(faces=[*DECK[:2], None, DECK[2], None, *DECK[3:]]) as t:
            await loaded_and_burned(t)
            t.shoe.start_round()
            assert await t.shoe.deal(face_up=True) == DECK[1]
            assert await t.shoe.deal(face_up=True) == DECK[2]
            assert t.shoe.state == "ending" and not t.shoe.irregularities
            assert await t.shoe.deal(face_up=True) == DECK[3]
            assert t.clauses() == [CLAUSES.cover_placement.clause]
            assert t.shoe.irregularities[0].detail == "a second cover card came out in the same shoe"
            assert t.shoe.state == "ending" and t.world.count(ASIDE) == 2
            t.world.move_all(SHOE_TRAY, DISCARD)

    run(scenario())


# -- 672a.7(d)(1)-(2): collect, count, reshuffle -------------------------------------------------------------
async def to_collecting(t: Table) -> None:
    await loaded_and_burned(t)
    t.shoe.start_round()
    await t.shoe.deal(face_up=True)
    await t.shoe.deal(face_up=True)  # the cover card, then the next card
    t.world.move_all(SHOE_TRAY, DISCARD)
    await t.shoe.end_round()


def test_672a_7_d_1_cards_left_in_the_shoe_are_removed_before_the_count():
    async def scenario():
        async with table(faces=[*DECK[:2], None, *DECK[2:]]) as t:
            await to_collecting(t)
            with pytest.raises(RuleViolation) as early:
                await t.shoe.collect(52)
            assert early.value.rule is CLAUSES.collect_and_count and "49 card(s) still in the shoe" in str(
                early.value
            )
            with pytest.raises(RuleViolation) as load:
                await t.shoe.load(52)
            assert load.value.rule is CLAUSES.collect_and_count
            t.world.move_all(SHOE, DISCARD)
            await t.shoe.collect(t.world.count(DISCARD))
            assert t.shoe.state == "empty" and not t.shoe.faulted

    run(scenario())


def test_672a_7_d_1_a_card_missing_at_collection_latches_wrong_count_for_a_supervisor():
    async def scenario():
        async with table(faces=[*DECK[:2], None, *DECK[2:]]) as t:
            await to_collecting(t)
            t.world.move_all(SHOE, DISCARD)
            t.world.move(DISCARD, FLOOR)  # a card gone from the rack
            await t.shoe.collect(t.world.count(DISCARD))
            assert t.shoe.state == "empty" and t.shoe.remaining == 0
            detail = "51 cards counted in the discard rack, the batch has 52"
            assert t.shoe.latch.faults == (
                Fault("WRONG_COUNT", detail, CLAUSES.collect_and_count.clause, "host"),
            )
            assert t.clauses() == [CLAUSES.collect_and_count.clause]
            with pytest.raises(RuleViolation):
                await t.shoe.clear("WRONG_COUNT", DEALER)
            await t.shoe.clear("WRONG_COUNT", SUPERVISOR)

    run(scenario())


def test_672a_7_d_2_a_batch_in_play_is_collected_before_another_is_loaded():
    async def scenario():
        async with table() as t:
            await loaded_and_burned(t)
            with pytest.raises(RuleViolation) as load:
                await t.shoe.load(52)
            assert load.value.rule is CLAUSES.reshuffle
            t.shoe.close_shoe()
            t.world.move_all(SHOE, DISCARD)
            await t.shoe.collect(52)
            t.world.move_all(DISCARD, SHOE)
            await t.shoe.load(52)
            assert t.shoe.state == "needs_burn" and t.shoe.dispensed == 0

    run(scenario())


# -- 677a.10(b), (g): stacks and the auto-reshuffling shoe ---------------------------------------------------
def test_677a_10_b_stacks_of_two_are_dealt_face_down_and_revealed_one_by_one():
    async def scenario():
        async with table() as t:
            await loaded_and_burned(t)
            t.shoe.start_round()
            first, second = await t.shoe.deal_stack(2), await t.shoe.deal_stack(2)
            assert all(isinstance(card, SealedCard) for card in first + second)
            assert len({card.reference for card in first + second}) == 4
            t.world.move_all(SHOE_TRAY, seat(1))
            assert [await t.shoe.reveal(card) for card in first + second] == DECK[1:5]
            with pytest.raises(ValueError, match="1 to 7"):
                await t.shoe.deal_stack(8)
            assert t.shoe.dispensed == 5

    run(scenario())


def test_677a_10_g_community_cards_first_only_from_a_shoe_that_reshuffles():
    async def scenario():
        async with table() as t:
            with pytest.raises(RuleViolation) as host:
                await t.shoe.set_mode(auto_reshuffle=False, community_first=True)
            assert host.value.rule is COMMUNITY_FIRST
            assert str(host.value).startswith(
                "community cards first asked of a shoe that does not reshuffle automatically"
            )
            with pytest.raises(DeviceRefused, match=r"677a\.10\(g\)"):
                await t.driver.set_mode(auto_reshuffle=False, community_first=True)
            await t.shoe.set_mode(auto_reshuffle=True, community_first=True)
            assert t.shoe.auto_reshuffle and t.shoe.community_first

    run(scenario())


def test_auto_reshuffling_shoe_takes_the_discards_back_after_each_round():
    async def scenario():
        async with table() as t:
            await t.shoe.set_mode(auto_reshuffle=True)
            assert t.shoe.auto_reshuffle and t.shoe.community_first is False, "community first only if asked"
            await loaded_and_burned(t)
            t.shoe.start_round()
            dealt = [await t.shoe.deal(face_up=True) for _ in range(4)]
            assert dealt == DECK[1:5]
            with pytest.raises(RuleViolation) as mode:
                await t.shoe.set_mode(auto_reshuffle=False)
            assert mode.value.rule is MODE_BETWEEN_ROUNDS
            t.world.move_all(SHOE_TRAY, DISCARD)
            await t.shoe.end_round()
            assert t.shoe.state == "ready" and t.world.count(SHOE) == 52 and t.world.count(DISCARD) == 0
            assert not t.shoe.faulted
            t.shoe.start_round()
            await t.shoe.deal(face_up=True)
            t.world.faults.drop_next = 1  # the dealer drops the card on its way to the rack
            t.world.move(SHOE_TRAY, DISCARD)
            await t.shoe.end_round()
            detail = "after the reshuffle the shoe holds 51 of 52 cards"
            assert t.shoe.latch.faults == (Fault("WRONG_COUNT", detail, BATCH_COUNT.clause, "host"),)
            assert t.clauses() == [BATCH_COUNT.clause]

    run(scenario())


def test_auto_reshuffling_shoe_found_after_a_host_restart_counts_its_deck_as_loaded():
    """A restarted host syncs a shoe that has dealt and reshuffled rounds already: its dispensed
    count runs on, so the deck is what remains, and the next round's reshuffle checks 52."""

    async def scenario():
        async with table() as t:
            await round_dealt_on_a_reshuffling_shoe(t, 4)
            await t.shoe.end_round()
            again = Shoe(t.shoe.driver, burns=True, clauses=CLAUSES)
            counts = await again.sync()
            assert counts.dispensed == 5 and again.batch_size == 52
            t.shoe = again
            await t.shoe.burn()
            t.shoe.start_round()
            await t.shoe.deal(face_up=True)
            t.world.move_all(SHOE_TRAY, DISCARD)
            await t.shoe.end_round()
            assert not t.shoe.faulted, "the whole deck is back, as loaded"

    run(scenario())


def test_reconcile_end_round_after_a_lost_answer_takes_nothing_twice():
    """672a.7(d)(2)/677a.10(g): the end of a round whose answer was lost, the shoe having taken the
    discards back: the counts say so (the whole batch in the shoe), and the round ends on them
    without a second EndRound."""

    async def scenario():
        async with table() as t:
            await round_dealt_on_a_reshuffling_shoe(t, 3)
            t.wire.swallow = 1 + FAST.timings.max_retries  # every answer to EndRound is lost
            with pytest.raises(OutcomeUnknown):
                await t.shoe.end_round()
            await eventually(lambda: t.shoe.faulted)
            await t.shoe.driver.conn.wait_ready(5.0)
            await t.shoe.clear("LINK_LOST", SUPERVISOR)
            executions = t.wire.engine.executions
            await t.shoe.reconcile_end_round()
            assert t.wire.engine.executions == executions + 1, "the counts read, no EndRound sent"
            assert t.shoe.state == "ready" and not t.shoe.faulted
            assert t.world.count(SHOE) == 52 and t.shoe.remaining == 52

    run(scenario())


def test_reconcile_end_round_sends_the_end_the_shoe_never_received():
    """The end of a round the shoe never took: its counts show the round's cards out, so it is
    asked to take the discards back now, and the round ends with the whole batch counted."""

    async def scenario():
        async with table() as t:
            await round_dealt_on_a_reshuffling_shoe(t, 3)
            await t.shoe.reconcile_end_round()
            assert t.shoe.state == "ready" and not t.shoe.faulted
            assert t.world.count(SHOE) == 52 and t.world.count(DISCARD) == 0
            assert (t.shoe.dispensed, t.shoe.remaining) == (4, 52)

    run(scenario())


def test_a_latch_given_to_the_shoe_is_shared_even_while_empty():
    """A fault latch handed to the shoe (one the table shares, or restores after a restart) is the
    one it keeps and checks, empty or not: a fault latched there blocks dealing (LATCH_BLOCKS), and
    the shoe's own faults land there."""

    async def scenario():
        async with table() as t:
            shared = FaultLatch()
            shoe = Shoe(t.driver, shared, clauses=CLAUSES)
            assert shoe.latch is shared
            await shoe.sync()  # finds the batch the dealer placed: a card to burn
            shared.latch(Fault("JAM", "held by the table", "672a.7(d)", "host"))
            assert shoe.faulted
            with pytest.raises(RuleViolation) as blocked:
                await shoe.burn()
            assert blocked.value.rule is LATCH_BLOCKS
            shared.release("JAM")
            t.world.move_all(SHOE, DISCARD)
            shoe.close_shoe()
            await shoe.collect(51)
            assert [f.code for f in shared.faults] == ["WRONG_COUNT"]

    run(scenario())


# -- docs/protocol.md §5.6: an unknown outcome is reconciled before dealing on -------------------------------
def test_unknown_outcome_blocks_dealing_until_the_counts_are_read():
    async def scenario():
        async with table() as t:
            await loaded_and_burned(t)
            t.shoe.start_round()
            t.wire.swallow = 1 + FAST.timings.max_retries  # every answer to the dispense is lost
            with pytest.raises(OutcomeUnknown):
                await t.shoe.deal(face_up=False)
            await eventually(lambda: t.shoe.faulted)  # the link was lost: LINK_LOST latched
            await t.shoe.driver.conn.wait_ready(5.0)
            await t.shoe.clear("LINK_LOST", SUPERVISOR)
            with pytest.raises(RuleViolation) as deal:
                await t.shoe.deal(face_up=True)
            assert deal.value.rule is RECONCILED
            assert str(deal.value).startswith("a dispense's outcome is unknown: sync the counts first")
            await t.shoe.sync()
            assert t.shoe.unrecorded == 1 and t.clauses() == [CLAUSES.record_every_card.clause]
            unseen = "1 card(s) left the shoe while the outcome was unknown: not recorded"
            assert t.shoe.irregularities[0].detail == unseen and not t.shoe.unreconciled
            assert await t.shoe.deal(face_up=True) == DECK[2]
            t.world.move_all(SHOE_TRAY, seat(1))

    run(scenario())


def test_a_shoe_found_holding_cards_is_burned_before_dealing():
    async def scenario():
        async with table(synced=False) as t:
            with pytest.raises(RuleViolation) as early:
                await t.shoe.load(52)
            assert early.value.rule is RECONCILED
            await t.shoe.sync()
            assert t.shoe.state == "needs_burn" and t.shoe.batch_size == 52

    run(scenario())


def test_672a_7_a_a_batch_of_one_card_is_a_batch():
    async def scenario():
        async with table(faces=DECK[:1]) as t:
            await t.shoe.load(1)
            assert t.shoe.state == "needs_burn" and not t.shoe.faulted

    run(scenario())


def test_bad_input_is_named_and_moves_nothing():
    async def scenario():
        async with table() as t:
            with pytest.raises(ValueError, match="at least one card"):
                await t.shoe.load(0)
            await loaded_and_burned(t)
            t.shoe.start_round()
            with pytest.raises(ValueError, match="not 0"):
                await t.shoe.deal_stack(0)
            with pytest.raises(ValueError, match="negative"):
                await t.shoe.collect(-1)
            with pytest.raises(RuleViolation) as nothing:
                await t.shoe.collect(0)  # a count of none is a count: refused here only as out of turn
            assert nothing.value.rule is CLAUSES.cover_ends
            with pytest.raises(DeviceRefused, match="no face-down card with reference 999"):
                await t.driver.reveal(SealedCard(999, bytes(32)))
            assert t.world.count(SHOE) == 51 and t.device.dispensed == 1

    run(scenario())


# -- tests/vectors/shoe.json: the simulated shoe speaks its vectors ------------------------------------------
VECTORS = {
    vector["name"]: vector
    for vector in json.loads((Path(__file__).parents[1] / "vectors" / "shoe.json").read_text())["vectors"]
}


def test_simulated_shoe_speaks_its_test_vectors_byte_for_byte():
    """The vectors' story (their file's ``story``) replayed into the simulated shoe: each host frame
    draws exactly the device frames the vectors show, so spec, vectors and simulator agree."""
    world = TableWorld()
    story = ["9h", "Ad", "COVER", "Ks", "4h", "7c", "2d"]
    world.add(SHOE, [None if name == "COVER" else Card.parse(name) for name in story], BACK)
    nonces = iter(bytes(range(16 * i, 16 * i + 16)) for i in (1, 2, 3))
    engine = DeviceEngine(ShoePersonality(world=world, nonces=lambda: next(nonces)), now=0.0)
    engine.receive(
        Frame(1, Kind.COMMAND, False, 0x1F, Hello.MSG_ID, Hello(0x5EED5EED, 1).to_payload()).encode(), 0.0
    )
    engine.data_to_send()

    def answer(name: str) -> str:
        engine.receive(bytes.fromhex(VECTORS[name]["bytes"]), 0.0)
        return engine.data_to_send().hex()

    def frames(*names: str) -> str:
        return "".join(VECTORS[name]["bytes"] for name in names)

    for name in ("batch-loaded", "dispense-face-down", "dispense-face-up"):
        assert answer(f"shoe-{name}-command") == frames(f"shoe-{name}-response"), name
    cover = answer("shoe-dispense-face-up-cover-command")
    assert cover == frames("shoe-dispense-face-up-cover-response", "shoe-cover-card-reached")
    assert answer("shoe-cover-card-reached-ack") == ""
    for name in ("set-mode", "dispense-stack", "reveal-card"):
        assert answer(f"shoe-{name}-command") == frames(f"shoe-{name}-response"), name
    world.move_all(SHOE_TRAY, DISCARD)
    for name in ("end-round", "get-counts"):
        assert answer(f"shoe-{name}-command") == frames(f"shoe-{name}-response"), name
    world.faults.stuck.add(SHOE)
    jam = answer("shoe-dispense-face-up-jam-command")
    assert jam == frames("shoe-dispense-face-up-jam-response", "shoe-jam-fault-raised")
    assert answer("shoe-jam-fault-raised-ack") == ""
    world.check()


def test_decision_0017_a_shoe_counting_more_than_its_batch_latches_a_count_fault_at_once():
    """decision 0017 (COMAR 36.05.03.27(C), analog): cards never appear inside a shoe. A card slipped
    in after the load makes the shoe's dispensed and remaining one more than its batch: the very
    dispense that reports it latches IMPOSSIBLE_COUNT, on the host, so nothing more is dealt until a
    supervisor clears it; a dealer may not. The clear accepts the excess found: only another card
    more latches it again within the batch."""

    async def scenario():
        async with table() as t:
            await loaded_and_burned(t)
            t.shoe.start_round()
            t.world.add(SHOE, [Card.parse("As")], BACK)  # one more card than the batch of 52
            await t.shoe.deal(face_up=True)
            t.world.move(SHOE_TRAY, seat(1))
            (fault,) = t.shoe.latch.faults
            assert (fault.code, fault.origin, fault.clause) == (
                "IMPOSSIBLE_COUNT",
                "host",
                "COMAR 36.05.03.27(C) (analog); decision 0017",
            )
            assert "1 more than its batch of 52" in fault.detail
            with pytest.raises(RuleViolation) as blocked:
                await t.shoe.deal(face_up=True)
            assert blocked.value.rule is LATCH_BLOCKS
            with pytest.raises(RuleViolation) as dealer:
                await t.shoe.clear("IMPOSSIBLE_COUNT", DEALER)
            assert dealer.value.rule is SUPERVISOR_CLEARS
            await t.shoe.clear("IMPOSSIBLE_COUNT", SUPERVISOR)
            await t.shoe.deal(face_up=True)
            t.world.move(SHOE_TRAY, seat(1))
            assert not t.shoe.faulted, "the excess a supervisor accepted does not latch again"
            t.world.add(SHOE, [Card.parse("Ks")], BACK)
            await t.shoe.deal(face_up=True)
            t.world.move(SHOE_TRAY, seat(1))
            assert [f.code for f in t.shoe.latch.faults] == ["IMPOSSIBLE_COUNT"]
            assert "2 more than its batch" in t.shoe.latch.faults[0].detail

    run(scenario())


def test_an_auto_reshuffling_shoes_dispensed_count_wraps_at_its_field_and_the_link_stays_up():
    """An auto-reshuffling shoe's dispensed count runs on across its reshuffles, past 65,535 cards
    (some 1,260 rounds of Hold 'Em): it wraps, as the u16 it travels in does (docs/protocol.md), and
    the shoe goes on answering. Before, the reply that did not fit raised inside the device, whose
    port then read nothing more: the link stayed down until the process ended."""

    async def scenario():
        async with table() as t:
            await round_dealt_on_a_reshuffling_shoe(t, 2)
            await t.shoe.end_round()
            t.device.dispensed = t.shoe.dispensed = 0xFFFE  # some 1,260 rounds later
            t.shoe.start_round()
            for _ in range(3):
                await t.shoe.deal(face_up=True)
            assert (t.shoe.dispensed, t.device.dispensed) == (1, 1)
            assert not t.shoe.irregularities and t.shoe.unrecorded == 0
            await t.shoe.sync()
            assert t.shoe.unrecorded == 0, "nothing new: the same count"
            t.shoe.dispensed = 0xFFFF  # as if the last two cards had left unseen, across the wrap
            await t.shoe.sync()
            assert t.shoe.unrecorded == 2

    run(scenario())


def test_a_reference_sealed_again_after_its_wrap_is_revealed_as_the_card_now_dealt_under_it():
    """References run 1 to 65,535 and then from 1 again, and a reshuffling shoe's face-down card keeps
    its reference only until EndRound (docs/protocol.md): some 1,260 Hold 'Em rounds into a table's
    life, a card is sealed under the reference of one turned up long before. Turned up, it shows the
    face the shoe proves for it now. Before, the host answered from the face it had kept for that
    reference since the first card's reveal, and a seeded Hold 'Em table turned up a dealer's 2h
    beside the flop's 2h in its round 1,261, and the round before settled on two such faces unnoticed."""

    async def scenario():
        async with table() as t:
            await t.shoe.set_mode(auto_reshuffle=True)
            await loaded_and_burned(t)
            t.shoe.start_round()
            (first,) = await t.shoe.deal_stack(1)
            assert await t.shoe.reveal(first) == DECK[1]
            t.world.move_all(SHOE_TRAY, DISCARD)
            await t.shoe.end_round()
            t.device.next_reference = 0xFFFF  # as if 65,533 face-down cards had been dealt since
            t.shoe.start_round()
            stack = await t.shoe.deal_stack(3)
            assert [card.reference for card in stack] == [0xFFFF, 1, first.reference]
            dealt = [card.face for card in t.world.cards(SHOE_TRAY)]
            assert dealt[2] != DECK[1], "the reshuffle put another card under the reused reference"
            assert [await t.shoe.reveal(card) for card in stack] == dealt
            assert t.shoe.opens(stack[2], dealt[2]) and not t.shoe.opens(stack[2], DECK[1])
            assert not t.shoe.opens(first, DECK[1]), "the first card went back into the shoe"

    run(scenario())
