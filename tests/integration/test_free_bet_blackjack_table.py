"""Free Bet Blackjack end to end on the devices: FreeBetBlackjackTable over the Shoe, CardReader and
Shuffler machines, their drivers and DeviceConnections, to simulated devices over real transports
(the shoe and the shuffler behind pseudo-terminals, the card reader on the simulated USB bus), all
three moving the cards of one TableWorld, with the simulated dealer's hands between them. Every
scenario ends with the world's card count balanced."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import random
import re
from collections import defaultdict
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import pytest
from structlog.testing import capture_logs

from croupier.tables.feeding import DeviceEventApplied
from croupier.tables.free_bet_blackjack import FreeBetBlackjackTable
from drivers.connection import SupervisorSettings
from drivers.errors import DeviceRefused
from firmware_sim.device import SimulatedDevice
from firmware_sim.faults import ChannelFaults, FaultPlan
from firmware_sim.world import DISCARD, SHOE, SHOE_TRAY, TableWorld
from games.free_bet_blackjack import Round
from games.free_bet_blackjack.hand import is_ace, is_ten_value
from games.free_bet_blackjack.inputs import EvenMoney, Insure, PlaceWager, PlayerAction, Resolution
from games.free_bet_blackjack.records import Record, RecordKind
from simulator.games.free_bet_blackjack import BasicStrategyPlayers, simulated_free_bet_blackjack
from tests.dealing import (
    WatchingDealer,
    assert_batches_alternate,
    burns_in_the_trail,
    held_by_a_jam,
    play_after_a_dealer_change,
    stack_top,
)
from tests.links import FAST, run
from vocabulary.cards import Card
from vocabulary.events import Event
from vocabulary.operators import SUPERVISOR_CLEARS, Operator, Role
from vocabulary.rules import RuleViolation

FLOORPERSON = Operator("floor-7", Role.SUPERVISOR)
DEALER_ON_SHIFT = Operator("D-1", Role.DEALER)
BACKS = ("red", "blue")
DECKS = 6
SEATS = [1, 2, 3, 4, 5, 6]
QUIET = dataclasses.replace(FAST, heartbeat_interval=30.0)  # no heartbeat to take a dropped response
CARD_TOKEN = re.compile(r"\b[A2-9TJQK][cdhs]\b")


@dataclass
class Rig:
    table: FreeBetBlackjackTable
    world: TableWorld
    dealer: WatchingDealer
    shoe_device: SimulatedDevice
    reader_device: SimulatedDevice
    events: list[object]

    async def play(self, players: object) -> Round:
        self.dealer.new_round()
        round_ = await self.table.play_round(players)  # type: ignore[arg-type]
        self.world.check()
        return round_

    @property
    def peeks(self) -> int:
        return self.reader_device.call(lambda engine: engine.personality.peeks_since_power_on)


@contextlib.asynccontextmanager
async def table_rig(
    *, shoe_settings: SupervisorSettings = FAST, cover_depth: int | None = None
) -> AsyncIterator[Rig]:
    """A table with all three devices simulated on one world, opened for play."""
    events: list[object] = []
    async with simulated_free_bet_blackjack(
        name="BJ-1",
        dealer=WatchingDealer,
        settings=FAST,
        shoe_settings=shoe_settings,
        backs=BACKS,
        cover_depth=cover_depth,
        record_events=events,
        reader_clock=lambda: datetime(2026, 3, 2, 12, 0),
        floorperson=FLOORPERSON,
    ) as sim:
        assert isinstance(sim.dealer, WatchingDealer)
        yield Rig(sim.table, sim.world, sim.dealer, sim.devices["shoe"], sim.devices["card-reader"], events)


def records_of(round_: Round, kind: RecordKind) -> list[Record]:
    return round_.log.of(kind)


def reconstruct(round_: Round) -> dict[str, list[str]]:
    """Each place's cards from the records alone: cards placed, split moves, the hole card's face."""
    places: dict[str, list[str]] = defaultdict(list)
    for record in round_.records:
        fields = record.fields
        if record.kind is RecordKind.CARD:
            places[str(fields["place"])].append(str(fields["card"] or fields["commitment"]))
        elif record.kind is RecordKind.DECISION and fields["action"] == "split":
            moved = places[f"seat {fields['seat']} hand {fields['hand']}"].pop()
            assert moved == fields["moved"]
            places[f"seat {fields['seat']} hand {fields['new_hand']}"].append(moved)
        elif record.kind is RecordKind.HOLE_REVEALED:
            dealer = places["dealer"]
            dealer[dealer.index(str(fields["commitment"]))] = str(fields["card"])
    return dict(places)


def up_card(round_: Round) -> Card:
    first = next(r for r in records_of(round_, RecordKind.CARD) if r.fields["place"] == "dealer")
    return Card.parse(str(first.fields["card"]))


def face_up_cards(round_: Round) -> set[str]:
    return {str(r.fields["card"]) for r in records_of(round_, RecordKind.CARD) if r.fields["card"]}


def hole_windows(logs: list[dict[str, object]]) -> list[list[dict[str, object]]]:
    """The log entries from each hole card dealt face down to the moment it is turned up."""
    windows, current = [], None
    for entry in logs:
        if entry.get("event") == "card" and entry.get("face_up") is False:
            current = []
        elif entry.get("event") == "card turned up" and current is not None:
            windows.append(current)
            current = None
        elif current is not None:
            current.append(entry)
    return windows


def assert_complete_log(rig: Rig, round_: Round) -> None:
    """The round's records rebuild each hand as it lay on the felt, and its pickup records name the
    cards in the order the rack received them (672a.7(s))."""
    assert round_.state == "complete"
    assert reconstruct(round_) == rig.dealer.felt
    pickups = [str(r.fields["card"]) for r in records_of(round_, RecordKind.PICKUP)]
    assert pickups == rig.dealer.racked
    assert len(pickups) == len(records_of(round_, RecordKind.CARD))
    assert not records_of(round_, RecordKind.IRREGULARITY)


def test_six_seats_play_150_rounds_across_several_shoes_with_every_rule_kept():
    players = BasicStrategyPlayers(random.Random(672))

    async def scenario():
        async with table_rig() as rig:
            with capture_logs() as logs:
                rounds = []
                for _ in range(150):
                    assert {c.back for c in rig.world.cards(SHOE) if not c.is_cover} == {rig.table.in_shoe}
                    round_ = await rig.play(players)
                    assert_complete_log(rig, round_)
                    wagers = records_of(round_, RecordKind.WAGER)
                    assert [r.fields["seat"] for r in wagers if r.fields["wager"] == "blackjack"] == SEATS
                    assert rig.world.count(SHOE_TRAY) == 0
                    rounds.append(round_)
            peeked = [bool(records_of(r, RecordKind.PEEK)) for r in rounds]
            assert peeked == [is_ace(up_card(r)) or is_ten_value(up_card(r)) for r in rounds]
            assert rig.peeks == sum(peeked) > 0
            assert any(records_of(r, RecordKind.COVER_CARD) for r in rounds)
            decisions = [d.fields["action"] for r in rounds for d in records_of(r, RecordKind.DECISION)]
            assert "split" in decisions and "double_down" in decisions
            delivered = assert_batches_alternate(rig.events, BACKS, DECKS)
            assert len(delivered) >= 3, "at least two shoes after the first"
        windows = hole_windows(logs)
        assert len(windows) == 150
        for round_, window in zip(rounds, windows, strict=True):
            shown = {token for entry in window for token in CARD_TOKEN.findall(repr(entry))}
            assert shown <= face_up_cards(round_), f"round {round_.number}: a face-down value leaked"
        for event in rig.events:
            texts = [v for v in vars(event).values() if isinstance(v, str)]
            assert not any(CARD_TOKEN.search(text) for text in texts), event

    run(scenario(), timeout=90)


class StackedPlayers:
    """Two players who never insure and take no even money; seat 1 and seat 2, one unit each."""

    def wagers(self, round_number: int, positions: int) -> Sequence[PlaceWager]:
        return [PlaceWager(1, 1000), PlaceWager(2, 1000)]

    def insurance(self, hand: object, dealer_up: Card) -> Insure | EvenMoney | None:
        return None

    def decide(self, hand: object, dealer_up: Card, legal: object) -> object:
        raise AssertionError("no decision is asked for against a dealer Blackjack")


class InTurnPlayers:
    """Seats 1 to 3, one unit each: seat 1 hits once then stands, seat 3 stands; each decision asked
    is noted with the Blackjacks the dealer had paid by then."""

    def __init__(self, dealer: WatchingDealer) -> None:
        self.dealer = dealer
        self.asked: list[tuple[int, int]] = []  # (seat, Blackjacks paid when it was asked)

    def wagers(self, round_number: int, positions: int) -> Sequence[PlaceWager]:
        return [PlaceWager(seat, 1000) for seat in (1, 2, 3)]

    def insurance(self, hand: object, dealer_up: Card) -> Insure | EvenMoney | None:
        return None

    def decide(self, hand: Any, dealer_up: Card, legal: object) -> PlayerAction:
        self.asked.append((hand.seat, len(self.dealer.paid)))
        first = hand.seat == 1 and len(hand.cards) == 2
        return PlayerAction.HIT if first else PlayerAction.STAND


def test_672a_7_h_1_the_dealer_pays_a_blackjack_when_reaching_its_seat():
    """672a.7(h)(1) at the table: seat 2's Blackjack is announced and paid (the dealer's
    ``pay_blackjack`` step) after seat 1's hit card is placed and seat 1 has stood, before seat 3 is
    asked; its cards then go to the rack."""

    async def scenario():
        async with table_rig() as rig:
            # burn, then seats 1-3, the dealer's 8, seats 1-3, the hole card (17), seat 1's hit.
            stack_top(rig.world, ["2c", "9c", "As", "Tc", "8h", "4d", "Kd", "7d", "9s", "2s"])
            players = InTurnPlayers(rig.dealer)
            round_ = await rig.play(players)
            assert_complete_log(rig, round_)
            assert rig.dealer.paid == [("seat 2 hand 0", 1500, 9)], "after the deal's 8 cards and the hit"
            assert players.asked == [(1, 0), (1, 0), (3, 1)]
            assert rig.dealer.felt["seat 2 hand 0"] == ["As", "Kd"]
            assert rig.dealer.racked[:2] == ["As", "Kd"], "the paid Blackjack leaves the layout first"

    run(scenario())


def test_no_event_on_any_hub_names_the_hole_card_before_it_is_turned_up():
    """Secrecy on the one event path (decision 0018, decision 0031): of every event published on
    the table's, each device's and each latch's hub, none before the hole card's reveal record
    names its face, as text or as its code."""
    hole = Card.parse("9s")

    async def scenario():
        async with table_rig() as rig:
            heard: list[Event] = []
            devices = [hub for m in rig.table.equipment for hub in (m.events, m.latch.events)]
            for hub in (rig.table.events, *devices):
                hub.subscribe(heard.append)
            # burn, seats 1-3, the dealer's 8, seats 1-3, the hole card, seat 1's hit: no other card
            # is dealt before the hole card is turned up.
            stack_top(rig.world, ["2c", "9c", "As", "Tc", "8h", "4d", "Kd", "7d", "9s", "2s"])
            await rig.play(InTurnPlayers(rig.dealer))
            [reveal] = [
                i for i, e in enumerate(heard) if isinstance(e, Record) and e.kind is RecordKind.HOLE_REVEALED
            ]
            assert str(hole) in repr(heard[reveal])
            before = heard[:reveal]
            assert any(isinstance(e, Record) and e.kind is RecordKind.CARD for e in before)
            leaks = [e for e in before if str(hole) in repr(e) or hole.code in _codes(e)]
            assert not leaks, f"the hole card's face was published before it was turned up: {leaks}"

    run(scenario())


def _codes(event: Event) -> list[int]:
    """The integer fields of a device's event: where a face's code could hide."""
    if not isinstance(event, DeviceEventApplied) or not dataclasses.is_dataclass(event.event):
        return []
    values = [getattr(event.event, field.name) for field in dataclasses.fields(event.event)]
    return [value for value in values if isinstance(value, int) and not isinstance(value, bool)]


def test_dealer_blackjack_is_found_by_the_peek_and_settled_at_once():
    async def scenario():
        async with table_rig() as rig:
            # burn, then 672a.7(e): seat 1, seat 2, the dealer's ace, seat 1, seat 2, the hole card.
            stack_top(rig.world, ["2c", "9c", "As", "Ad", "7h", "Kh", "Ks"])
            round_ = await rig.play(StackedPlayers())
            assert_complete_log(rig, round_)
            states = [r.fields["dest"] for r in records_of(round_, RecordKind.STATE)]
            assert states[:4] == ["dealing", "insurance", "peeking", "dealer_blackjack"]
            assert [r.fields["dealer_blackjack"] for r in records_of(round_, RecordKind.PEEK)] == [True]
            assert rig.peeks == 1
            assert [r.fields["card"] for r in records_of(round_, RecordKind.HOLE_REVEALED)] == ["Ks"]
            assert not records_of(round_, RecordKind.DECISION)
            assert len(records_of(round_, RecordKind.CARD)) == 6, "no card after the dealer's Blackjack"
            assert (round_.net(1), round_.net(2)) == (-1000, 0), "seat 1 loses, seat 2's Blackjack pushes"
            assert rig.dealer.felt["dealer"] == ["Ad", "Ks"]

    run(scenario())


def test_a_new_dealer_burns_a_card_before_the_next_deal():
    players = BasicStrategyPlayers(random.Random(3))

    async def scenario():
        async with table_rig() as rig:
            round_, rack = await play_after_a_dealer_change(rig, players)
            dealt = len(records_of(round_, RecordKind.CARD))
            assert rig.world.count(DISCARD) == rack + 1 + dealt, "the burn card and the round's cards"
            assert_complete_log(rig, round_)

    run(scenario())


def test_672a_7_c_every_burn_is_in_the_trail_and_a_new_dealer_on_a_fresh_batch_burns_twice(tmp_path):
    """672a.7(c): the batch's burn and the new dealer's, each a ``burn`` record in the audit trail
    with its clause, reason and dealer before any card is dealt; the next batch's burn before the
    first card of the round after the shoe change; no burn card's face."""
    players = BasicStrategyPlayers(random.Random(5))

    async def scenario():
        async with table_rig(cover_depth=60) as rig:
            trail = await burns_in_the_trail(rig, players, tmp_path, "free-bet-blackjack")
            assert {b.fields["clause"] for b in trail if b.kind == "burn"} == {"672a.7(c)"}

    run(scenario(), timeout=90)


def test_a_shoe_jam_mid_round_holds_the_round_until_a_supervisor_clears_it():
    players = BasicStrategyPlayers(random.Random(4))

    async def scenario():
        async with table_rig() as rig:
            rig.dealer.jam_after = 4  # the burn is not placed: four cards of the deal, then a jam
            dispensed = rig.table.shoe.dispensed
            playing = asyncio.create_task(rig.play(players))
            await held_by_a_jam(rig, playing)
            assert rig.world.count(SHOE_TRAY) == 0 and rig.table.shoe.dispensed == dispensed + 5
            with pytest.raises(RuleViolation) as dealer:
                await rig.table.clear("JAM", DEALER_ON_SHIFT)
            assert dealer.value.rule is SUPERVISOR_CLEARS
            with pytest.raises(DeviceRefused, match="JAM condition still present"):
                await rig.table.clear("JAM", FLOORPERSON)
            assert not playing.done()
            rig.world.faults.stuck.clear()
            await rig.table.clear("JAM", FLOORPERSON)
            round_ = await asyncio.wait_for(playing, 10)
            assert_complete_log(rig, round_)
            assert rig.table.shoe.dispensed == dispensed + 1 + len(records_of(round_, RecordKind.CARD))
            assert not rig.table.faults

    run(scenario())


def test_a_lost_response_to_a_dispense_still_deals_exactly_one_card():
    players = BasicStrategyPlayers(random.Random(5))

    async def scenario():
        async with table_rig(shoe_settings=QUIET) as rig:
            await rig.play(players)  # the burn and a first round
            async with asyncio.timeout(5):
                while rig.shoe_device.call(lambda engine: engine.pending_events):
                    await asyncio.sleep(0.01)
            shoe = rig.table.shoe
            link = shoe.driver.conn.link.counters
            retransmissions, dispensed, rack = link.retransmissions, shoe.dispensed, rig.world.count(DISCARD)
            rig.shoe_device.set_faults(FaultPlan(outbound=ChannelFaults(drop_next=1)))
            round_ = await rig.play(players)
            assert link.retransmissions == retransmissions + 1, "the first dispense's response was lost"
            dealt = len(records_of(round_, RecordKind.CARD))
            assert shoe.dispensed == dispensed + dealt
            assert rig.world.count(DISCARD) == rack + dealt
            assert_complete_log(rig, round_)

    run(scenario())


def test_a_joker_in_the_batch_holds_the_round_until_a_supervisor_voids_it():
    """672a.7 is silent on a joker dealt at a Free Bet table (603a.15: jokers only where the game
    allows them): the round holds with the cards where they lie; a dealer may not rule; the
    supervisor's VOID returns every wager and the cards go to the rack; none is lost.
    The joker slipped in makes the shoe count a card above its batch: IMPOSSIBLE_COUNT latches at
    the first card (decision 0017) and a supervisor clears it first."""

    async def scenario():
        async with table_rig() as rig:
            rig.dealer.slip_foreign_card(Card.parse("Xr"), SHOE, back="red", at=2)  # third card out
            playing = asyncio.create_task(rig.play(BasicStrategyPlayers(random.Random(8))))
            async with asyncio.timeout(5):  # one card above the batch: IMPOSSIBLE_COUNT at once
                while "IMPOSSIBLE_COUNT" not in {fault.code for fault in rig.table.faults}:
                    await asyncio.sleep(0.01)
            await rig.table.clear("IMPOSSIBLE_COUNT", FLOORPERSON)  # the supervisor looks, then holds
            async with asyncio.timeout(5):
                while rig.table.held_round is None:
                    await asyncio.sleep(0.01)
            held = rig.table.held_round
            assert not playing.done()
            with pytest.raises(RuleViolation):
                rig.table.resolve(DEALER_ON_SHIFT, Resolution.VOID)
            assert rig.table.held_round is held
            rig.table.resolve(FLOORPERSON, Resolution.VOID)
            round_ = await asyncio.wait_for(playing, 10)
            assert round_.state == "complete"
            assert all(round_.net(seat) == 0 for seat in round_.positions), "every wager returned"
            assert rig.world.count(SHOE_TRAY) == 0
            rig.world.check()
            with pytest.raises(LookupError, match="no round is held"):
                rig.table.resolve(FLOORPERSON, Resolution.CONTINUE)

    run(scenario())
