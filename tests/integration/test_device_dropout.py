"""A device that drops out mid-round (it stops answering, as when its cable is pulled): the link
supervisor notices, LINK_LOST latches (decision 0017) and the round holds where
it is; a supervisor's clear is refused until the device is back; once it is back and cleared, the
round goes on to its end with every card accounted for. The same when the shoe drops out with a
dispense on the wire: its outcome is reconciled from the shoe's counts (docs/protocol.md §5.6)."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Callable
from functools import partial
from typing import Any

import pytest
from structlog.testing import capture_logs

from croupier.audit.record import AuditRecord
from croupier.audit.writer import AuditTrail
from croupier.service.journal import TableJournal
from croupier.state import TableState
from croupier.tables.events import RoundListener
from devices.equipment import LINK_LOST
from devices.shoe import COLLECTING, EMPTY
from devices.shuffler import OUTCOME_RECONCILED
from drivers.connection import ConnectionState
from firmware_sim.faults import ChannelFaults, FaultPlan
from firmware_sim.world import SHUFFLER_INPUT, SHUFFLER_OUTPUT
from games.common.machine_parts import COMPLETE
from games.free_bet_blackjack.inputs import PlayerAction
from simulator.floor import FloorSupervisor, controller_key, keyed_resets, on_the_floor, repair_world
from simulator.games.crazy_4_poker import StrategyPlayers
from simulator.games.free_bet_blackjack import BasicStrategyPlayers
from simulator.players import simulated_players, table_options
from simulator.tables import FLOORPERSON, simulated_table
from tests.links import FAST, run
from vocabulary.rules import RuleViolation


class DroppingPlayers(BasicStrategyPlayers):
    """Basic strategy, but the shoe goes silent while the first player thinks; they stand once the
    table has noticed (the link supervisor's heartbeat failed)."""

    def __init__(self, shoe: Any, connection: Any) -> None:
        super().__init__(random.Random(3))
        self.shoe, self.connection, self.dropped = shoe, connection, False

    def decide(self, hand: Any, dealer_up: Any, legal: Any) -> Any:
        if self.dropped:
            return super().decide(hand, dealer_up, legal)
        self.dropped = True
        return self._drop_then_stand()

    async def _drop_then_stand(self) -> Any:
        self.shoe.set_silent(True)
        async with asyncio.timeout(10):
            while self.connection.state is ConnectionState.READY:
                await asyncio.sleep(0.01)
        return PlayerAction.STAND


def test_a_shoe_dropping_out_mid_round_holds_it_until_back_and_cleared_by_a_supervisor() -> None:
    async def scenario() -> None:
        async with simulated_table("free-bet-blackjack", name="DROP", settings=FAST) as sim:
            table, shoe = sim.table, sim.devices["shoe"]
            players = DroppingPlayers(shoe, sim.connections["shoe"])
            with capture_logs() as logs:
                playing = asyncio.create_task(_until_asked(table, players))
                await _held_then_cleared(sim, table, shoe, playing)
            held = [entry for entry in logs if entry["event"] == "table held"]
            assert held and held[0]["faults"] == ["LINK_LOST"], "the round held on the lost link"

    run(scenario(), timeout=60)


def test_the_floor_waits_for_a_lost_link_to_come_back_before_clearing_it() -> None:
    """The simulated floor person does not try a LINK_LOST's clear on every walk while the link is
    down (each one refused, a warning each time, for as long as the device stays away): the fault
    waits for the link, and is cleared on the first walk after the device is back."""

    async def scenario() -> None:
        async with simulated_table("free-bet-blackjack", name="DROP", settings=FAST) as sim:
            table, shoe = sim.table, sim.devices["shoe"]
            players = DroppingPlayers(shoe, sim.connections["shoe"])
            floor = FloorSupervisor(table, None, None, delay=0.02)
            with capture_logs() as logs:
                async with on_the_floor(floor):
                    playing = asyncio.create_task(_until_asked(table, players))
                    await latched(table, "LINK_LOST")
                    await asyncio.sleep(0.5)  # some 25 walks past a held table
                    assert not playing.done(), "the round holds where it is"
                    shoe.set_silent(False)
                    round_ = await asyncio.wait_for(playing, 15)
            assert round_.state == COMPLETE and table.faults == ()
            refused = [entry for entry in logs if entry["event"] == "clear refused"]
            assert refused == [], "no clear tried while the link was down"

    run(scenario(), timeout=60)


async def _until_asked(table: Any, players: DroppingPlayers) -> Any:
    """Rounds until one asks a player to decide (a dealer Blackjack asks nobody)."""
    while True:
        round_ = await table.play_round(players)
        if players.dropped:
            return round_


async def _held_then_cleared(sim: Any, table: Any, shoe: Any, playing: asyncio.Task[Any]) -> None:
    """Held while the shoe is silent; the clear refused until it is back; then the round ends."""
    async with asyncio.timeout(10):
        while "LINK_LOST" not in {fault.code for fault in table.faults}:
            await asyncio.sleep(0.01)
    await asyncio.sleep(0.3)
    assert not playing.done(), "the round holds where it is"
    with pytest.raises(RuleViolation) as refused:
        await table.clear("LINK_LOST", FLOORPERSON)
    assert refused.value.rule is LINK_LOST and "once the device is back" in refused.value.detail
    shoe.set_silent(False)
    await sim.connections["shoe"].wait_ready(10)
    await table.clear("LINK_LOST", FLOORPERSON)
    round_ = await asyncio.wait_for(playing, 15)
    assert round_.state == COMPLETE and table.faults == ()
    sim.world.check()


async def latched(table: Any, *codes: str) -> None:
    """Until every one of ``codes`` is latched at ``table``."""
    async with asyncio.timeout(20):
        while not set(codes) <= {fault.code for fault in table.faults}:
            await asyncio.sleep(0.01)


async def back_and_cleared(sim: Any, name: str) -> None:
    """Device ``name``'s wire whole again, its link back, and its LINK_LOST cleared by the floor."""
    sim.devices[name].set_faults(FaultPlan())
    await sim.connections[name].wait_ready(10)
    await sim.table.clear("LINK_LOST", FLOORPERSON)


class Trap:
    """Sets ``owner.method`` to spring on its next call: ``spring(*args)`` first (a link dies), then
    the method itself, put back so that it springs once."""

    def __init__(self, owner: Any, method: str, spring: Callable[..., None]) -> None:
        self.sprung = False
        original = getattr(owner, method)

        async def springing(*args: Any, **kwargs: Any) -> Any:
            setattr(owner, method, original)
            self.sprung = True
            spring(*args)
            return await original(*args, **kwargs)

        setattr(owner, method, springing)


def dead_link(lost: str) -> FaultPlan:
    """Every write from the device lost (its ``answer``: what it was asked did run) or every write
    to it (the ``command``: it did not)."""
    faults = ChannelFaults(drop_rate=1.0)
    return FaultPlan(outbound=faults) if lost == "answer" else FaultPlan(inbound=faults)


class HitIntoADeadLink(BasicStrategyPlayers):
    """The first player to decide hits, and the shoe's answers stop from then on: the dispense
    goes out, the card leaves the shoe, and no answer comes back (the cable pulled mid-command)."""

    def __init__(self, shoe: Any) -> None:
        super().__init__(random.Random(3))
        self.shoe, self.dropped = shoe, False

    def decide(self, hand: Any, dealer_up: Any, legal: Any) -> Any:
        if self.dropped or PlayerAction.HIT not in legal:
            return super().decide(hand, dealer_up, legal)
        self.dropped = True
        self.shoe.set_faults(dead_link("answer"))
        return PlayerAction.HIT


def test_672a7s_a_dispense_lost_with_the_link_is_reconciled_and_its_card_set_aside_unseen(tmp_path) -> None:
    """The shoe dies with a dispense out: the round holds (LINK_LOST); once the shoe is back and a
    supervisor cleared it, the shoe's counts show the card left unrecorded (672a.7(s),
    written to the trail); the dealer moves it unseen to the rack, the card is
    dispensed again, and the round ends with its own cards counted and the world balanced."""

    async def scenario() -> None:
        async with simulated_table("free-bet-blackjack", name="DROP", settings=FAST) as sim:
            table, shoe = sim.table, sim.devices["shoe"]
            with AuditTrail(tmp_path / "audit", "DROP") as trail, TableState(tmp_path / "state.db") as state:
                TableJournal(trail, state, table="DROP", game="free-bet-blackjack").keep(table)
                players = HitIntoADeadLink(shoe)

                async def until_dropped() -> Any:
                    while True:
                        round_ = await table.play_round(players)
                        if players.dropped:
                            return round_

                playing = asyncio.create_task(until_dropped())
                await latched(table, "LINK_LOST")
                assert not playing.done(), "the round holds where it is"
                await back_and_cleared(sim, "shoe")
                round_ = await asyncio.wait_for(playing, 15)
                assert round_.state == COMPLETE and table.faults == ()
                assert table.shoe.irregularities[-1].rule is table.shoe_clauses.record_every_card
                lines = [line for path in trail.files() for line in path.read_bytes().splitlines()]
                records = [AuditRecord.parse(line) for line in lines]
            sim.world.check()
        irregular = [r for r in records if r.kind == "device_irregularity"]
        assert [r.fields["clause"] for r in irregular] == ["672a.7(s)"]
        assert irregular[0].round == round_.number and irregular[0].fields["device"] == "shoe"
        assert not [r for r in records if r.round == round_.number and r.kind == "irregularity"], (
            "the round's own cards were all counted at the pickup"
        )

    run(scenario(), timeout=60)


def test_5_6_a_shuffle_lost_with_the_link_holds_until_its_batch_is_shuffled_again() -> None:
    """Crazy 4 Poker's shuffler dies with a shuffle out (docs/protocol.md §5.6): the batch is out
    of play with OUTCOME_UNKNOWN latched; the clear is refused while the counters show the shuffled
    batch in the output tray; put back in the input and cleared, it is shuffled again and the round
    is played with every card accounted for."""

    async def scenario() -> None:
        # A seeded shuffler: deals known not to hit a jackpot, whose lock would hold the next round.
        async with simulated_table("crazy-4-poker", name="DROP", settings=FAST, shuffler_seed=3) as sim:
            table, device = sim.table, sim.devices["shuffler"]
            options = table_options("crazy-4-poker", sim)
            players = simulated_players("crazy-4-poker", random.Random(5), **options)
            await table.play_round(players)
            Trap(table.shuffler, "shuffle", lambda *_: device.set_faults(dead_link("answer")))
            playing = asyncio.create_task(table.play_round(players))
            await latched(table, "OUTCOME_UNKNOWN", "LINK_LOST")
            await back_and_cleared(sim, "shuffler")
            with pytest.raises(RuleViolation) as refused:
                await table.clear("OUTCOME_UNKNOWN", FLOORPERSON)
            assert refused.value.rule is OUTCOME_RECONCILED and "output tray holds 52" in refused.value.detail
            assert not playing.done(), "the round waits for its deck"
            sim.world.move_all(SHUFFLER_OUTPUT, SHUFFLER_INPUT)
            await table.clear("OUTCOME_UNKNOWN", FLOORPERSON)
            round_ = await asyncio.wait_for(playing, 15)
            assert round_.state == COMPLETE and table.faults == ()
            sim.world.check()

    run(scenario(), timeout=60)


def test_677a_10_e_a_stack_lost_with_the_link_is_racked_unseen_and_the_count_still_holds(tmp_path) -> None:
    """Heads Up Hold 'Em's shoe dies with a stack's dispense out: held on LINK_LOST; once back
    and cleared, the counts show the stack left unrecorded; it is racked unseen and counted out
    of the deck (UnseenToRack), so the stub count due this round (677a.10(d)) still makes 52
    (677a.10(e)) and the round ends with every card accounted for."""

    async def scenario() -> None:
        async with simulated_table("heads-up-holdem", name="DROP", settings=FAST) as sim:
            table, device = sim.table, sim.devices["shoe"]
            options = table_options("heads-up-holdem", sim)
            players = simulated_players("heads-up-holdem", random.Random(5), **options)
            Trap(table.shoe, "deal_stack", lambda *_: device.set_faults(dead_link("answer")))
            table.game.rounds_since_stub_count = 4  # the stub is counted this round
            playing = asyncio.create_task(table.play_round(players))
            await latched(table, "LINK_LOST")
            await back_and_cleared(sim, "shoe")
            round_ = await asyncio.wait_for(playing, 15)
            assert round_.state == COMPLETE and table.faults == ()
            assert round_.unseen == 2 and round_.stub_counted is not None
            assert not [r for r in round_.records if r.kind == "irregularity"], "the count made 52"
            assert table.shoe.irregularities[-1].rule is table.shoe_clauses.record_every_card
            sim.world.check()

    run(scenario(), timeout=60)


def test_677a_10_c_a_lot_of_the_stub_lost_with_the_link_is_racked_unseen_and_the_count_still_holds() -> None:
    """Heads Up Hold 'Em's shoe dies with the first lot of the stub on its way out to the dealer's
    hand (677a.10(c)): held on LINK_LOST; once back and cleared, the lot left unrecorded is racked
    unseen and counted out of the deck (UnseenToRack), the rest of the stub comes out read, the
    community cards are dealt from the hand, and the stub counted this round (677a.10(d)) makes 52
    with them (677a.10(e))."""

    async def scenario() -> None:
        async with simulated_table("heads-up-holdem", name="DROP", settings=FAST) as sim:
            table, device = sim.table, sim.devices["shoe"]
            options = table_options("heads-up-holdem", sim)
            players = simulated_players("heads-up-holdem", random.Random(5), **options)
            stacks, lots = table.shoe.deal_stack, []

            async def the_stub_dies_first(count: int) -> Any:
                if count > 2 and not lots:  # the first lot of the stub: every stack holds two
                    lots.append(count)
                    device.set_faults(dead_link("answer"))
                return await stacks(count)

            table.shoe.deal_stack = the_stub_dies_first  # type: ignore[method-assign]
            table.game.rounds_since_stub_count = 4  # the stub is counted this round
            playing = asyncio.create_task(table.play_round(players))
            await latched(table, "LINK_LOST")
            await back_and_cleared(sim, "shoe")
            round_ = await asyncio.wait_for(playing, 15)
            assert round_.state == COMPLETE and table.faults == ()
            dealt = sum(len(p.stack) for p in round_.positions.values()) + len(round_.dealer_stack)
            (removed,) = [r for r in round_.records if r.kind == "stub_removed"]
            assert round_.unseen == lots[0] and removed.fields["cards"] == 52 - dealt - lots[0]
            assert round_.stub_counted == 52 - dealt - lots[0] - 5
            assert not [r for r in round_.records if r.kind == "irregularity"], "the count made 52"
            sim.world.check()

    run(scenario(), timeout=60)


@pytest.mark.parametrize("lost", ["answer", "command"])
def test_5_6_a_delivery_lost_with_the_link_is_reconciled_from_the_counts(lost: str) -> None:
    """The shuffler dies delivering a batch to the shoe (docs/protocol.md §5.6), its answer lost
    (the delivery ran) or its command (it did not): held on LINK_LOST and OUTCOME_UNKNOWN; once
    cleared, the shoe's counts say which. A batch still in the output tray must go back to the
    input before the clear, and is shuffled again; a batch that reached the shoe is in play, so the
    next shoe change still alternates the colours (633a.3(b) analog)."""

    async def scenario() -> None:
        async with simulated_table("free-bet-blackjack", name="DROP", settings=FAST, cover_depth=20) as sim:
            table, device = sim.table, sim.devices["shuffler"]
            players = BasicStrategyPlayers(random.Random(3))
            trap = Trap(table.shuffler, "deliver_to_shoe", lambda *_: device.set_faults(dead_link(lost)))

            async def to_the_first_shoe_change() -> None:
                while not trap.sprung:
                    await table.play_round(players)

            playing = asyncio.create_task(to_the_first_shoe_change())
            await latched(table, "OUTCOME_UNKNOWN", "LINK_LOST")
            await back_and_cleared(sim, "shuffler")
            if lost == "command":
                with pytest.raises(RuleViolation) as refused:
                    await table.clear("OUTCOME_UNKNOWN", FLOORPERSON)
                assert refused.value.rule is OUTCOME_RECONCILED
                sim.world.move_all(SHUFFLER_OUTPUT, SHUFFLER_INPUT)
            await table.clear("OUTCOME_UNKNOWN", FLOORPERSON)
            await asyncio.wait_for(playing, 15)
            assert table.faults == () and table.shuffler.in_play.report.back == table.in_shoe
            changes = 0
            while changes < 1:  # on to the next shoe change: the other colour goes in
                before = table.in_shoe
                await table.play_round(players)
                changes += table.in_shoe != before
            assert table.faults == ()
            sim.world.check()

    run(scenario(), timeout=90)


#: Every device of every game's simulated table.
DEVICES = [
    *(("free-bet-blackjack", name) for name in ("shoe", "shuffler", "card-reader")),
    *(("over-under", name) for name in ("shoe", "shuffler")),
    *(("heads-up-holdem", name) for name in ("shoe", "shuffler")),
    *(("crazy-4-poker", name) for name in ("shuffler", "progressive", "meter-sign")),
]


@pytest.mark.parametrize(("game", "name"), DEVICES)
def test_every_device_dropping_out_between_rounds_holds_the_table_until_back_and_cleared(
    game: str, name: str
) -> None:
    """Any device of any table going silent between rounds latches its lost link (the meter sign's
    as the progressive's SIGN_LINK_LOST, 605a.7(a)); once it is back and a supervisor cleared it,
    the table plays on — the progressive controller read again, so betting opens (657a.9(a)(3))
    — with every card accounted for."""

    async def scenario() -> None:
        async with simulated_table(game, name="DROP", settings=FAST, shuffler_seed=3) as sim:
            table, device = sim.table, sim.devices[name]
            players = simulated_players(game, random.Random(5), **table_options(game, sim))
            reset_key = controller_key(sim)
            await table.play_round(players)
            await keyed_resets(table, reset_key, None)  # a jackpot's keyed reset, 605a.7(a)
            device.set_silent(True)
            async with asyncio.timeout(10):
                while not table.faults:
                    await asyncio.sleep(0.01)
            assert {fault.code for fault in table.faults} <= {"LINK_LOST", "SIGN_LINK_LOST"}
            device.set_silent(False)
            await sim.connections[name].wait_ready(10)
            for code in sorted({fault.code for fault in table.faults}):
                await table.clear(code, FLOORPERSON)
            for _ in range(2):
                round_ = await asyncio.wait_for(table.play_round(players), 15)
                assert round_.state == COMPLETE
                await keyed_resets(table, reset_key, None)
            sim.world.check()

    run(scenario(), timeout=60)


def test_657a9_a_progressive_controller_back_from_a_dropout_mid_deal_goes_on_with_the_round() -> None:
    """Crazy 4 Poker's progressive controller drops out while a round is dealt: LINK_LOST latches;
    once it is back and cleared it is read again, so the round goes on being dealt (its awards may
    follow), and betting opens on the next round (657a.9(a)(3))."""

    async def scenario() -> None:
        async with simulated_table("crazy-4-poker", name="DROP", settings=FAST, shuffler_seed=3) as sim:
            table, device = sim.table, sim.devices["progressive"]

            async def dropout() -> None:
                device.set_silent(True)
                await latched(table, "LINK_LOST")
                await back_and_cleared(sim, "progressive")

            class DroppingAtTheFirstDecision(StrategyPlayers):
                dropped = False

                def decide(self, seat: int) -> Any:
                    if self.dropped:
                        return super().decide(seat)
                    self.dropped = True
                    return self._after(dropout(), super().decide(seat))

                async def _after(self, drop: Any, decision: Any) -> Any:
                    await drop
                    return decision

            players = DroppingAtTheFirstDecision(random.Random(5), **table_options("crazy-4-poker", sim))
            round_ = await asyncio.wait_for(table.play_round(players), 15)
            assert players.dropped and round_.state == COMPLETE and table.faults == ()
            await asyncio.wait_for(table.play_round(players), 15)  # and betting opens after it
            sim.world.check()

    run(scenario(), timeout=60)


def test_672a7g_the_card_reader_dropping_out_at_the_peek_holds_until_back_then_peeks_again() -> None:
    """The card reader goes silent with the peek asked (672a.7(g)): the peek moves no card, so its
    lost answer holds the round on LINK_LOST rather than stopping the table; once the reader is
    back and cleared the peek is asked again and the round goes on."""

    async def scenario() -> None:
        async with simulated_table("free-bet-blackjack", name="DROP", settings=FAST) as sim:
            table, device = sim.table, sim.devices["card-reader"]
            players = BasicStrategyPlayers(random.Random(3))
            trap = Trap(table.reader, "peek", lambda *_: device.set_silent(True))

            async def to_the_first_peek() -> None:
                while not trap.sprung:
                    await table.play_round(players)

            playing = asyncio.create_task(to_the_first_peek())
            await latched(table, "LINK_LOST")
            assert not playing.done(), "the round holds at the peek"
            await back_and_cleared(sim, "card-reader")
            await asyncio.wait_for(playing, 15)
            assert table.faults == ()
            sim.world.check()

    run(scenario(), timeout=60)


@pytest.mark.parametrize("lost", ["answer", "command"])
def test_657a9_a_3_a_lock_lost_with_the_controller_is_reconciled_never_resent(lost: str) -> None:
    """The progressive controller dies with the lock at "no more bets" out (657a.9(a)(3); it moves
    money, so it is never resent): held on LINK_LOST; once back and cleared, the controller is read:
    a round it locked (the answer lost) is taken as locked, with the wagers it accepted; one it did
    not (the command lost) is locked now. The chips are counted against it and the round goes on."""

    async def scenario() -> None:
        async with simulated_table("crazy-4-poker", name="DROP", settings=FAST, shuffler_seed=3) as sim:
            table, device = sim.table, sim.devices["progressive"]
            options = table_options("crazy-4-poker", sim)
            players = simulated_players("crazy-4-poker", random.Random(5), **options)
            Trap(table.progressive, "lock", lambda *_: device.set_faults(dead_link(lost)))
            playing = asyncio.create_task(table.play_round(players))
            await latched(table, "LINK_LOST")
            await back_and_cleared(sim, "progressive")
            round_ = await asyncio.wait_for(playing, 15)
            assert round_.state == COMPLETE and table.faults == ()
            await keyed_resets(table, controller_key(sim), None)
            await asyncio.wait_for(table.play_round(players), 15)
            sim.world.check()

    run(scenario(), timeout=60)


@pytest.mark.parametrize("lost", ["answer", "command"])
def test_657a1_an_award_lost_with_the_controller_is_reconciled_from_its_hits_never_resent(lost: str) -> None:
    """The progressive controller dies with an award out (it moves money: never resent): held on
    LINK_LOST; once back and cleared, a hit the level counted since is the award paid (its answer
    lost), and with none (the command lost) the award is made now. Either way one hit is paid, the
    level is jackpot-locked until the keyed reset (605a.7(a)), and the table plays on."""

    async def scenario() -> None:
        async with simulated_table("crazy-4-poker", name="DROP", settings=FAST, shuffler_seed=3) as sim:
            table, device = sim.table, sim.devices["progressive"]
            options = table_options("crazy-4-poker", sim)
            players = simulated_players("crazy-4-poker", random.Random(5), **options)
            reset_key = controller_key(sim)
            paid: list[int] = []

            def before_the_award(level: int, seat: int) -> None:
                paid.append(table.progressive.levels[level].hits)
                device.set_faults(dead_link(lost))

            trap = Trap(table.progressive, "award", before_the_award)

            async def to_the_first_award() -> None:
                while not trap.sprung:  # rounds until one pays a hit
                    await table.play_round(players)

            playing = asyncio.create_task(to_the_first_award())
            await latched(table, "LINK_LOST")
            await back_and_cleared(sim, "progressive")
            await asyncio.wait_for(playing, 15)
            (level,) = table.progressive.frozen_levels
            assert table.progressive.levels[level].hits == paid[0] + 1, "paid once"
            await keyed_resets(table, reset_key, None)
            await asyncio.wait_for(table.play_round(players), 15)
            assert table.faults == ()
            sim.world.check()

    run(scenario(), timeout=90)


@pytest.mark.parametrize("lost", ["answer", "command"])
def test_677a10_the_end_of_a_round_lost_with_the_shoe_is_reconciled_from_its_counts(lost: str) -> None:
    """Heads Up Hold 'Em's auto-reshuffling shoe dies as it is told the round is over (it takes the
    discards back: card-moving): held on LINK_LOST; once back and cleared, its counts say whether
    the deck is whole again (its answer lost) or the discards are still in the rack (the command
    lost, so it takes them now). The next rounds deal from the whole deck."""

    async def scenario() -> None:
        async with simulated_table("heads-up-holdem", name="DROP", settings=FAST) as sim:
            table, device = sim.table, sim.devices["shoe"]
            options = table_options("heads-up-holdem", sim)
            players = simulated_players("heads-up-holdem", random.Random(5), **options)
            Trap(table.shoe, "end_round", lambda *_: device.set_faults(dead_link(lost)))
            playing = asyncio.create_task(table.play_round(players))
            await latched(table, "LINK_LOST")
            await back_and_cleared(sim, "shoe")
            await asyncio.wait_for(playing, 15)
            assert table.shoe.remaining == 52 and table.faults == ()
            for _ in range(2):
                await asyncio.wait_for(table.play_round(players), 15)
            assert table.faults == ()
            sim.world.check()

    run(scenario(), timeout=60)


class DropAtTheShoeChange(RoundListener):
    """As the round that ends a shoe ends (672a.7(d): its cover card came out), device ``name`` goes
    silent, so the shoe change between rounds (collect and count, delivery, shuffle) meets a lost link;
    it comes back ``after`` seconds later."""

    def __init__(self, sim: Any, name: str, after: float = 0.5) -> None:
        self.sim, self.name, self.after, self.struck = sim, name, after, 0

    def round_ended(self, round_: Any) -> None:
        if self.sim.table.shoe.state == COLLECTING and not self.struck:
            self.struck = round_.number
            device = self.sim.devices[self.name]
            device.set_silent(True)
            asyncio.get_running_loop().call_later(self.after, device.set_silent, False)


@pytest.mark.parametrize("game", ["free-bet-blackjack", "over-under"])
@pytest.mark.parametrize("name", ["shoe", "shuffler"])
def test_672a7d_a_device_dropping_out_at_the_shoe_change_holds_it_until_back_and_cleared(
    game: str, name: str
) -> None:
    """672a.7(d)(1)-(2), 686a.7(d): the shoe or the shuffler goes silent as the shoe ends; the shoe
    change between rounds (the collect and count, the delivery, the shuffle) holds on the lost link
    like a mid-round step (decision 0016) instead of raising LinkLost out of the table; the floor
    clears it once the device is back, the change completes, the next round is played and every card
    is accounted for."""

    async def scenario() -> None:
        async with simulated_table(game, name="DROP", settings=FAST, shuffler_seed=3) as sim:
            table = sim.table
            drop = DropAtTheShoeChange(sim, name)
            table.events.subscribe(drop)
            players = simulated_players(game, random.Random(5), **table_options(game, sim))
            floor = FloorSupervisor(table, None, None, repair=partial(repair_world, sim.world), delay=0.05)
            async with on_the_floor(floor):
                while not drop.struck:
                    await asyncio.wait_for(table.play_round(players), 30)
                round_ = await asyncio.wait_for(table.play_round(players), 30)
            assert round_.state == COMPLETE and round_.number == drop.struck + 1
            assert table.shoe.state not in (COLLECTING, EMPTY), "the shoe was changed"
            sim.world.check()

    run(scenario(), timeout=120)
