"""Crazy 4 Poker dealt from the hand end to end on the devices: Crazy4PokerTable over the Shuffler and
Progressive machines, their drivers and DeviceConnections, to simulated devices over real
transports (the product's simulated table: the shuffler and the progressive controller behind
pseudo-terminals, the meter sign on the simulated USB bus), the shuffler and the simulated dealer
moving the cards of one TableWorld. Every round ends with the world's card count balanced."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import random
import re
from collections.abc import AsyncIterator, Mapping, Sequence
from dataclasses import dataclass

import pytest
from structlog.testing import capture_logs

from croupier.tables.crazy_4_poker import Crazy4PokerTable, layout_place
from croupier.tables.events import RoundListener
from firmware_sim.device import SimulatedDevice
from firmware_sim.world import DEALER_HAND, SHUFFLER_INPUT, TableWorld
from games.crazy_4_poker import Round, RuleSet
from games.crazy_4_poker.dealing import deal_sequence
from games.crazy_4_poker.inputs import Resolution
from games.crazy_4_poker.machine import COMPLETE
from games.crazy_4_poker.records import RecordKind
from simulator.games.crazy_4_poker import LEVELS, RULES, SimulatedCrazy4Dealer, simulated_crazy_4_poker
from simulator.players import simulated_players, table_options
from simulator.tables import FLOORPERSON
from tests.links import FAST, run
from vocabulary.cards import Card
from vocabulary.operators import Operator, Role
from vocabulary.rules import RuleViolation

SUPERVISOR = Operator("floor-7", Role.SUPERVISOR)
DEALER = Operator("D-1", Role.DEALER)
KEY = "PROG-KEY-1"
QUIET = dataclasses.replace(FAST, heartbeat_interval=30.0)
CARD_TOKEN = re.compile(r"\b[A2-9TJQK][cdhs]\b")


@dataclass
class Rig:
    table: Crazy4PokerTable
    world: TableWorld
    dealer: SimulatedCrazy4Dealer
    controller: SimulatedDevice
    players: object


@contextlib.asynccontextmanager
async def table_rig(
    rules: RuleSet | None = None, award_levels: Mapping[str, int] = LEVELS
) -> AsyncIterator[Rig]:
    """The product's simulated Crazy 4 Poker table (its rules and award levels unless ``rules`` and
    ``award_levels``), opened for play."""
    async with simulated_crazy_4_poker(
        rules=rules or RuleSet.example(**RULES),
        name="C4-1",
        settings=QUIET,
        award_levels=award_levels,
        win_deadline=1.0,
    ) as sim:
        game = "crazy-4-poker"
        players = simulated_players(game, random.Random(7), **table_options(game, sim))
        yield Rig(sim.table, sim.world, sim.dealer, sim.devices["progressive"], players)


async def play(rig: Rig) -> Round:
    round_ = await rig.table.play_round(rig.players)
    rig.world.check()
    await reset_frozen(rig)
    return round_


async def reset_frozen(rig: Rig) -> None:
    for level, info in sorted(rig.table.progressive.levels.items()):
        if info.frozen:  # an award froze it: the keyed reset before the next round opens betting
            await rig.table.reset_level(level, KEY, SUPERVISOR)


def test_sixty_rounds_dealt_from_the_hand_with_progressive_and_stub_counts():
    async def scenario():
        with capture_logs() as logs:
            async with table_rig() as rig:
                rounds = [await play(rig) for _ in range(60)]
                driver = rig.table.progressive.driver
                history = {level: await driver.hits(level) for level in rig.table.progressive.levels}
        awards = 0
        for round_ in rounds:
            assert round_.state == COMPLETE
            kinds = [record.kind for record in round_.records]
            # (a)(3): no more bets, the lock and the chip count all come before the first card
            first_card = kinds.index(RecordKind.CARD)
            assert kinds.index(RecordKind.NO_MORE_BETS) < first_card
            assert kinds.index(RecordKind.PROGRESSIVE_LOCKED) < first_card
            progressive = sum(1 for p in round_.positions.values() if p.progressive)
            locked = round_.log.of(RecordKind.PROGRESSIVE_LOCKED)[0].fields
            assert locked["accepted"] == progressive
            if progressive:
                assert round_.log.of(RecordKind.CHIP_COUNT)[0].fields["chips"] == progressive
            # (b): the Six Card Bonus card first when wagered, then clockwise, five each
            places = [record.fields["place"] for record in round_.log.of(RecordKind.CARD)]
            six = any(p.six_card_bonus for p in round_.positions.values())
            assert places == list(deal_sequence(sorted(round_.positions), six))
            assert (places[0] == "six-card") == six
            # no face in any record before the hands are known
            hand_at = kinds.index(RecordKind.HAND)
            assert not any(CARD_TOKEN.search(str(r.fields)) for r in round_.records[:hand_at])
            # every hand known from the sealed order, reconstructed from the deal order
            hands = {r.fields["place"]: r.fields["cards"] for r in round_.log.of(RecordKind.HAND)}
            assert set(hands) == set(dict.fromkeys(places))
            assert all(r.fields["known_by"] == "shuffler order" for r in round_.log.of(RecordKind.HAND))
            # (c)-(e): the stub to the rack, counted in every fifth round without a counting shuffler
            stub = [r.fields for r in round_.log.of(RecordKind.STUB)]
            assert stub[-1]["to"] == "discard rack"
            assert round_.stub_counted == (round_.number % 5 == 0)
            if round_.stub_counted:
                assert stub[-1]["cards"] == 52 - len(places)
            assert round_.log.of(RecordKind.DISCARD)[0].fields["cards"] == len(places)
            awards += len(round_.awards)
        assert awards > 0  # the pay table is wide enough that some hands hit in 60 rounds
        hits = sum(info.hits for info in rig.table.progressive.levels.values())
        assert hits == awards
        # 657a.1, 605a.7(a): each award record names the level, the amount and the hit the controller paid
        recorded = [r.fields for round_ in rounds for r in round_.log.of(RecordKind.AWARD)]
        paid = {(f["level"], f["hit"], f["seat"], f["amount"]) for f in recorded}
        kept = {(level, h.number, h.seat, h.amount_cents) for level, hs in history.items() for h in hs}
        assert len(paid) == len(recorded) == awards and all(amount > 0 for *_, amount in paid)
        assert kept and kept <= paid  # the controller keeps its last 25 hits a level (HITS_KEPT)
        # secrecy: the only log lines with a face are the hands made known at the showdown
        faced = [entry for entry in logs if CARD_TOKEN.search(str(entry))]
        assert faced and all(entry["event"] == RecordKind.HAND for entry in faced)

    run(scenario())


def test_the_hands_on_the_felt_are_the_ones_the_record_reconstructs():
    async def scenario():
        async with table_rig() as rig:
            felt: dict[str, list[Card | None]] = {}
            picked = rig.dealer.pick_up

            def watch(places: Sequence[str]) -> None:
                for place in dict.fromkeys(places):
                    felt[place] = [card.face for card in rig.world.cards(place)]
                picked(places)

            rig.dealer.pick_up = watch  # type: ignore[method-assign]
            round_ = await play(rig)
        for place, cards in round_.hands.items():
            assert tuple(felt[layout_place(place)]) == cards

    run(scenario())


def test_657a_9_f_a_deck_holding_a_card_twice_is_voided_and_removed_at_the_table():
    """657a.9(f), as docs/conformance.md reads it: a card of the deck swapped for a second copy of
    another (still 52 cards of the table's back, so neither the shuffler nor a count finds it). The
    shuffler's order revealed at the showdown holds it twice: the round holds (duplicate-card), the
    floorperson voids it, every wager is returned (the progressive's too), and the deck leaves the
    table; the next round is dealt from a new deck. Before, the round ended in an error at the
    showdown, its wagers neither settled nor returned."""

    async def scenario():
        async with table_rig() as rig:
            await play(rig)
            doubled = rig.dealer.slip_copy(SHUFFLER_INPUT)
            task = asyncio.create_task(rig.table.play_round(rig.players))
            async with asyncio.timeout(10):
                while rig.table.held_round is None:
                    await asyncio.sleep(0.01)
            held = rig.table.held_round
            assert held.hold is not None and held.hold.kind.code == "duplicate-card"
            assert str(doubled) not in held.hold.irregularity.detail, "the face stays secret"
            rig.table.resolve(SUPERVISOR, Resolution.VOID)
            round_ = await asyncio.wait_for(task, 10)
            assert round_.state == COMPLETE and round_.deck_removed
            assert all(round_.net(seat) == 0 for seat in round_.positions), "every wager returned"
            assert rig.world.removed == 52, "the deck left the table, its copy with it"
            rig.world.check()
            await reset_frozen(rig)
            assert (await play(rig)).state == COMPLETE, "dealt from a new deck"
            faces = [card.face for place in rig.world.places.values() for card in place if card.face]
            assert len(faces) == len(set(faces)) == 52

    run(scenario(), timeout=60)


def test_a_chip_count_mismatch_holds_the_round_for_a_supervisor():
    async def scenario():
        async with table_rig() as rig:
            rig.dealer.miscount = 1
            task = asyncio.create_task(rig.table.play_round(rig.players))
            async with asyncio.timeout(5):
                while "CHIP_COUNT_MISMATCH" not in {f.code for f in rig.table.faults}:
                    await asyncio.sleep(0.01)
            assert rig.world.count(DEALER_HAND) == 52  # no card left the hand
            with pytest.raises(RuleViolation, match="may not clear"):
                await rig.table.clear("CHIP_COUNT_MISMATCH", DEALER)
            await rig.table.clear("CHIP_COUNT_MISMATCH", SUPERVISOR)
            async with asyncio.timeout(5):
                while rig.table.held_round is None:
                    await asyncio.sleep(0.01)
            assert rig.world.count(DEALER_HAND) == 52
            with pytest.raises(RuleViolation, match="may not resolve"):
                rig.table.resolve(DEALER, Resolution.CONTINUE)
            rig.table.resolve(SUPERVISOR, Resolution.CONTINUE)
            round_ = await asyncio.wait_for(task, 10)
            rig.world.check()
            assert round_.state == COMPLETE
            irregularity = round_.log.of(RecordKind.IRREGULARITY)[0].fields
            assert (irregularity["code"], irregularity["clause"]) == (
                "progressive-count-mismatch",
                "657a.9(a)(3)",
            )
            assert round_.log.of(RecordKind.RESOLUTION)[0].fields["supervisor"] == "floor-7"
            assert len(round_.log.of(RecordKind.CARD)) == len(round_.deal)
            await reset_frozen(rig)
            await play(rig)  # the table goes on

    run(scenario())


def test_a_table_without_an_automated_shuffler_refuses_to_open():
    async def scenario():
        async with table_rig() as rig:
            bare = Crazy4PokerTable(
                shuffler=None, progressive=rig.table.progressive, dealer=rig.dealer, rules=rig.table.rules
            )
            with pytest.raises(RuleViolation, match=re.escape("657a.9(a)(1)")):
                await bare.open(FLOORPERSON)
            unconfigured = Crazy4PokerTable(
                shuffler=rig.table.shuffler,
                progressive=rig.table.progressive,
                dealer=rig.dealer,
                rules=RuleSet.example(**{**RULES, "shuffler": "none"}),
            )
            with pytest.raises(RuleViolation, match=re.escape("657a.9(a)(1)")):
                await unconfigured.open(FLOORPERSON)
            with pytest.raises(RuleViolation, match=re.escape("657a.9(a)(1)")):
                unconfigured.game.new_round()

    run(scenario())


def test_657a_9_d_a_round_in_play_is_saved_as_a_round_whose_stub_was_not_counted():
    """657a.9(d): the position saved as a round begins (what a restart goes on from if the service
    stops in that round) counts the round in play as one dealt without a stub count, so a round
    cut off and voided still brings the next count nearer; between rounds it is the rounds dealt
    since the last count."""

    class Saved(RoundListener):
        def __init__(self, table: Crazy4PokerTable) -> None:
            self.table, self.saved = table, []

        def round_began(self, round_: Round) -> None:
            self.saved.append(
                (self.table.game.rounds_since_count, self.table.position()["rounds_since_stub_count"])
            )

    async def scenario():
        async with table_rig() as rig:
            saved = Saved(rig.table)
            rig.table.events.subscribe(saved)
            for _ in range(3):
                await play(rig)
            assert [position for _, position in saved.saved] == [since + 1 for since, _ in saved.saved]
            assert rig.table.position()["rounds_since_stub_count"] == rig.table.game.rounds_since_count

    run(scenario(), timeout=60)
