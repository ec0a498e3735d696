"""Over/Under end to end on the devices: OverUnderTable over the Shoe and Shuffler machines, their
drivers and DeviceConnections, to simulated devices over real transports (the product's simulated
table: the shoe behind a pseudo-terminal, the shuffler on the simulated USB bus), both moving the
cards of one TableWorld, with the simulated dealer's hands between them. Every round ends with the
world's card count balanced."""

from __future__ import annotations

import asyncio
import contextlib
import random
import re
from collections import defaultdict
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass

import pytest
from structlog.testing import capture_logs

from croupier.tables.over_under import OverUnderTable
from firmware_sim.world import DISCARD, SHOE, SHOE_TRAY, TableWorld
from games.free_bet_blackjack.records import Record, RecordKind
from games.over_under import Round
from games.over_under.inputs import Choice, PlaceWager, Resolution
from games.over_under.positions import Position
from simulator.games.over_under import FirstCardPlayers, simulated_over_under
from tests import dealing
from tests.dealing import assert_batches_alternate, held_by_a_jam, play_after_a_dealer_change, stack_top
from tests.games.test_over_under_helpers import steps
from tests.links import FAST, run
from vocabulary.cards import Card
from vocabulary.operators import SUPERVISOR_CLEARS, Operator, Role
from vocabulary.rules import RuleViolation

FLOORPERSON = Operator("floor-7", Role.SUPERVISOR)
DEALER_ON_SHIFT = Operator("D-1", Role.DEALER)
BACKS = ("red", "blue")
DECKS = 6
SEATS = [1, 2, 3, 4, 5, 6]
CARD_TOKEN = re.compile(r"\b[A2-9TJQK][cdhs]\b")


class WatchingDealer(dealing.WatchingDealer):
    """The dealer with a camera, watching also the burn cards and the Hands left on the felt when
    a later player drew (686a.7(j): each player's cards are racked before the next player's two
    cards are dealt)."""

    def __init__(self, world: TableWorld) -> None:
        super().__init__(world)
        self.burned: list[str] = []
        self.uncleared: list[str] = []

    def burn(self) -> None:
        super().burn()
        self.burned.append(str(self.world.cards(DISCARD)[-1].face))

    def place(self, place: str, face_up: bool) -> None:
        super().place(place, face_up)
        if self.world.count(place) > 1:  # (i): one of the two more cards; (j): earlier Hands racked
            self.uncleared += [
                p for p in self.world.places if p.startswith("seat ") and p < place and self.world.count(p)
            ]

    def new_round(self) -> None:
        super().new_round()
        self.uncleared = []


@dataclass
class Rig:
    table: OverUnderTable
    world: TableWorld
    dealer: WatchingDealer
    events: list[object]

    async def play(self, players: object) -> Round:
        self.dealer.new_round()
        round_ = await self.table.play_round(players)  # type: ignore[arg-type]
        self.world.check()
        return round_


@contextlib.asynccontextmanager
async def table_rig(*, cover_depth: int | None = None) -> AsyncIterator[Rig]:
    """The product's simulated Over/Under table, with the watching dealer, opened for play."""
    events: list[object] = []
    async with simulated_over_under(
        name="OU-1",
        dealer=WatchingDealer,
        settings=FAST,
        cover_depth=cover_depth,
        record_events=events,
    ) as sim:  # its batches' backs are BACKS
        assert isinstance(sim.dealer, WatchingDealer)
        yield Rig(sim.table, sim.world, sim.dealer, events)


def records_of(round_: Round, kind: RecordKind) -> list[Record]:
    return round_.log.of(kind)


def reconstruct(round_: Round) -> dict[str, list[str]]:
    """Each place's cards from the records alone (686a.7(n)): every card is dealt face up."""
    places: dict[str, list[str]] = defaultdict(list)
    for record in records_of(round_, RecordKind.CARD):
        places[str(record.fields["place"])].append(str(record.fields["card"]))
    return dict(places)


def assert_procedure(round_: Round, seats: Sequence[int]) -> None:
    """686a.7(e): one first card to each Ante position, clockwise; (f): every player's election,
    clockwise, before any additional card (a surrendered Ante collected at once, (g)(3)); (i): then
    each player's two more cards, surrender or not; (j): settled and cleared into the rack before
    the next player's cards; (n): the rack's records rebuild each Hand in the order dealt. A card set
    aside by a ruling reaches the rack last."""
    first = " ".join(f"C{seat}" for seat in seats)
    elections = " ".join(rf"D{s}(?: S{s})?" for s in seats)
    turns = " ".join(rf"C{s} C{s}(?: S{s})* P{s} P{s} P{s}" for s in seats)
    assert re.fullmatch(rf"{first} {elections} {turns}(?: Pset aside)*", steps(round_)), steps(round_)


def assert_complete_log(rig: Rig, round_: Round) -> None:
    """The round's records rebuild each Hand as it lay on the felt, and its pickup records name the
    cards in the order the rack received them (686a.7(n))."""
    assert round_.state == "complete"
    assert reconstruct(round_) == rig.dealer.felt
    pickups = [str(r.fields["card"]) for r in records_of(round_, RecordKind.PICKUP)]
    assert pickups == rig.dealer.racked
    assert len(pickups) == len(records_of(round_, RecordKind.CARD)) == 3 * len(round_.positions)
    assert not records_of(round_, RecordKind.IRREGULARITY)
    assert not rig.dealer.uncleared, "(j): a Hand was still on the felt when the next player drew"


def test_six_seats_play_120_rounds_across_several_shoes_with_every_rule_kept():
    players = FirstCardPlayers(random.Random(686))

    async def scenario():
        async with table_rig() as rig:
            with capture_logs() as logs:
                rounds = []
                for _ in range(120):
                    assert {c.back for c in rig.world.cards(SHOE) if not c.is_cover} == {rig.table.in_shoe}
                    round_ = await rig.play(players)
                    assert_complete_log(rig, round_)
                    assert_procedure(round_, SEATS)
                    assert rig.world.count(SHOE_TRAY) == 0
                    rounds.append(round_)
            choices = [d.fields["choice"] for r in rounds for d in records_of(r, RecordKind.DECISION)]
            assert {c.value for c in Choice} == set(choices), "every election made, surrender included"
            covers = [r.number for r in rounds if records_of(r, RecordKind.COVER_CARD)]
            assert len(covers) >= 6
            delivered = assert_batches_alternate(rig.events, BACKS, DECKS)
            assert len(delivered) == len(covers) + 1, "a new shoe after each cover card"
        burn_logs = [entry for entry in logs if "burn" in str(entry.get("event"))]
        assert burn_logs and not any(CARD_TOKEN.search(repr(entry)) for entry in burn_logs)
        assert len(rig.dealer.burned) == len(delivered), "(c): one burn card for each batch loaded"

    run(scenario(), timeout=60)


class TwoPlayers:
    """Seat 1 and seat 2, 1000 cents each; each elects as ``choices`` says."""

    def __init__(self, choices: dict[int, Choice]) -> None:
        self.choices = choices

    def wagers(self, round_number: int, positions: int) -> Sequence[PlaceWager]:
        return [PlaceWager(seat, 1000) for seat in self.choices]

    def choose(self, position: Position) -> Choice:
        return self.choices[position.seat]


def test_a_surrendered_player_still_gets_two_more_cards_and_is_cleared_before_the_next():
    async def scenario():
        async with table_rig() as rig:
            # the burn, then (e): seat 1, seat 2; (i): seat 1's two more, then seat 2's.
            stack_top(rig.world, ["2c", "7h", "Kd", "Ks", "Qs", "9c", "5d"])
            round_ = await rig.play(TwoPlayers({1: Choice.SURRENDER, 2: Choice.OVER_23}))
            assert_complete_log(rig, round_)
            assert_procedure(round_, [1, 2])
            assert rig.dealer.felt == {"seat 1": ["7h", "Ks", "Qs"], "seat 2": ["Kd", "9c", "5d"]}
            assert rig.dealer.burned == ["2c"]
            assert round_.net(1) == -1000, "(g)(3): the surrendered Ante collected"
            assert round_.net(2) == 2000, "(k)(1): 24 pays the Ante and the Over 23 Wager"
            decision_2 = next(r for r in records_of(round_, RecordKind.DECISION) if r.fields["seat"] == 2)
            cards = {
                seat: [r.seq for r in records_of(round_, RecordKind.CARD) if r.fields["seat"] == seat]
                for seat in (1, 2)
            }
            assert decision_2.seq < cards[1][1], "(f): seat 2 elects before seat 1's additional cards"
            racked_1 = [r for r in records_of(round_, RecordKind.PICKUP) if r.fields["place"] == "seat 1"]
            assert len(racked_1) == 3 and all(r.seq < cards[2][1] for r in racked_1), "(j)"

    run(scenario())


def test_the_cover_card_mid_round_completes_the_round_then_the_shoe_is_changed():
    players = FirstCardPlayers(random.Random(2))

    async def scenario():
        async with table_rig(cover_depth=10) as rig:  # the burn and nine cards, then the cover card
            first, held = rig.table.in_shoe, rig.table.held
            round_ = await rig.play(players)
            assert_complete_log(rig, round_)
            assert_procedure(round_, SEATS)
            assert len(records_of(round_, RecordKind.COVER_CARD)) == 1
            assert round_.reshuffle_required
            assert (rig.table.in_shoe, rig.table.held) == (held, first), "the batches changed places"
            assert rig.world.count(DISCARD) == 0, "the played batch collected, counted, back to the shuffler"
            assert {c.back for c in rig.world.cards(SHOE) if not c.is_cover} == {held}
            assert rig.table.shoe.state == "needs_burn"
            after = await rig.play(players)
            assert_complete_log(rig, after)
            assert len(rig.dealer.burned) == 2, "the new batch burned a card before its first deal"

    run(scenario())


def test_a_new_dealer_burns_a_card_before_the_next_deal():
    players = FirstCardPlayers(random.Random(3))

    async def scenario():
        async with table_rig() as rig:
            round_, rack = await play_after_a_dealer_change(rig, players)
            assert rig.world.count(DISCARD) == rack + 1 + 3 * len(SEATS), "the burn card and the round's"
            assert_complete_log(rig, round_)

    run(scenario())


def test_686a_7_c_every_burn_is_in_the_trail_and_a_new_dealer_on_a_fresh_batch_burns_twice(tmp_path):
    """686a.7(c): the batch's burn and the new dealer's, each a ``burn`` record in the audit trail
    with its clause, reason and dealer before any card is dealt; the next batch's burn before the
    first card of the round after the shoe change; no burn card's face."""
    players = FirstCardPlayers(random.Random(5))

    async def scenario():
        async with table_rig(cover_depth=40) as rig:
            trail = await dealing.burns_in_the_trail(rig, players, tmp_path, "over-under")
            assert {b.fields["clause"] for b in trail if b.kind == "burn"} == {"686a.7(c)"}
            assert len(rig.dealer.burned) == 3

    run(scenario(), timeout=90)


def test_a_shoe_jam_mid_round_holds_the_round_until_a_supervisor_clears_it():
    players = FirstCardPlayers(random.Random(4))

    async def scenario():
        async with table_rig() as rig:
            rig.dealer.jam_after = 8  # the six first cards and two more, then a jam
            playing = asyncio.create_task(rig.play(players))
            await held_by_a_jam(rig, playing)
            with pytest.raises(RuleViolation) as dealer:
                await rig.table.clear("JAM", DEALER_ON_SHIFT)
            assert dealer.value.rule is SUPERVISOR_CLEARS
            rig.world.faults.stuck.clear()
            await rig.table.clear("JAM", FLOORPERSON)
            round_ = await asyncio.wait_for(playing, 10)
            assert_complete_log(rig, round_)
            assert_procedure(round_, SEATS)
            assert not rig.table.faults

    run(scenario())


def test_a_joker_holds_the_round_and_a_supervisor_continues_it_with_the_joker_set_aside():
    """603a.15: no joker in Over/Under. The round holds with the joker beside the
    layout; a dealer may not rule; the supervisor's CONTINUE sets it aside, the card still due is
    dealt, and the joker reaches the rack after the Hands; no card is lost.
    The joker slipped in makes the shoe count a card above its batch: IMPOSSIBLE_COUNT latches at
    the first card (decision 0017) and a supervisor clears it first."""

    async def scenario():
        async with table_rig() as rig:
            rig.world.add(SHOE, [Card.parse("Xr")], "red", at=2)  # the burn, one card, then the joker
            playing = asyncio.create_task(rig.play(TwoPlayers({1: Choice.UNDER_18, 2: Choice.OVER_23})))
            async with asyncio.timeout(5):  # one card above the batch: IMPOSSIBLE_COUNT at once
                while "IMPOSSIBLE_COUNT" not in {fault.code for fault in rig.table.faults}:
                    await asyncio.sleep(0.01)
            await rig.table.clear("IMPOSSIBLE_COUNT", FLOORPERSON)  # the supervisor looks, then holds
            async with asyncio.timeout(5):
                while rig.table.held_round is None:
                    await asyncio.sleep(0.01)
            with pytest.raises(RuleViolation):
                rig.table.resolve(DEALER_ON_SHIFT, Resolution.CONTINUE)
            rig.table.resolve(FLOORPERSON, Resolution.CONTINUE)
            round_ = await asyncio.wait_for(playing, 10)
            assert round_.state == "complete"
            assert [r.fields["code"] for r in records_of(round_, RecordKind.IRREGULARITY)] == ["joker"]
            assert_procedure(round_, [1, 2])
            racked = [str(r.fields["card"]) for r in records_of(round_, RecordKind.PICKUP)]
            assert racked[-1] == "Xr" and racked == rig.dealer.racked
            assert rig.world.count(SHOE_TRAY) == 0
            with pytest.raises(LookupError, match="no round is held"):
                rig.table.resolve(FLOORPERSON, Resolution.CONTINUE)

    run(scenario())
