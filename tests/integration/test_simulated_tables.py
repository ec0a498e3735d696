"""Every game's simulated table, brought up by its slug the way ``croupier run`` and the simulator
bring it up: opened over its real transports, it plays rounds with that game's simulated players,
and the world's card count balances after each round and after the table is taken down."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Mapping
from typing import Any

import pytest

from croupier.tables.events import TableRecord
from croupier.tables.shoe_table import BURN_RECORD
from devices.shoe import COLLECTING
from firmware_sim.faults import FaultPlan
from firmware_sim.world import DISCARD, SHOE, SHOE_TRAY, TableWorld
from games import registry
from simulator.players import simulated_players, table_options
from simulator.tables import FLOORPERSON, SimulatedTable, simulated_table
from tests.integration.test_device_dropout import Trap, back_and_cleared, dead_link, latched
from tests.links import FAST, run
from vocabulary.cards import Card
from vocabulary.operators import Operator, Role

GAMES = registry.slugs()

SUPERVISOR = Operator("floor-7", Role.SUPERVISOR)
RESET_KEY = "PROG-KEY-1"  # the simulated controller's reset key


def players_for(game: str, sim: SimulatedTable[object, object]) -> object:
    """The game's simulated players, seeded, as ``croupier run`` seats them."""
    return simulated_players(game, random.Random(7), **table_options(game, sim))


async def reset_frozen_levels(sim: SimulatedTable[object, object]) -> None:
    """A progressive award freezes its level until a keyed reset; the next round waits for it."""
    levels = getattr(getattr(sim.table, "progressive", None), "levels", {})
    for level, info in sorted(levels.items()):
        if info.frozen:
            await sim.table.reset_level(level, RESET_KEY, SUPERVISOR)  # type: ignore[attr-defined]


@pytest.mark.parametrize("in_child", [False, True], ids=["devices-in-process", "devices-in-a-child"])
@pytest.mark.parametrize("game", GAMES)
def test_each_game_plays_three_rounds_on_its_simulated_table(game: str, in_child: bool) -> None:
    """In process, and with the devices in a child process as ``croupier run`` serves them
    (decision 0048): the cards they move are still the world's here, balanced after each round."""

    async def scenario() -> None:
        async with simulated_table(game, name=f"SIM-{game}", settings=FAST, in_child=in_child) as sim:
            players = players_for(game, sim)
            for number in (1, 2, 3):
                round_ = await sim.table.play_round(players)  # type: ignore[attr-defined]
                assert (round_.number, round_.state) == (number, "complete")
                sim.world.check()
                await reset_frozen_levels(sim)
            assert set(sim.devices) == set(sim.connections)
        sim.world.check()

    run(scenario(), timeout=60)


def test_an_unknown_game_is_refused_naming_the_known_ones() -> None:
    async def scenario() -> None:
        async with simulated_table("baccarat"):
            pass  # pragma: no cover

    with pytest.raises(ValueError, match="baccarat") as refused:
        run(scenario())
    assert all(game in str(refused.value) for game in GAMES)


async def _misread_cleared(table: Any) -> None:  # Any: a simulated shoe table
    """A supervisor's clear of the MISREAD the shoe latches, once it is latched."""
    await latched(table, "MISREAD")
    await table.clear("MISREAD", SUPERVISOR)


@pytest.mark.parametrize("game", [slug for slug in GAMES if slug != "crazy-4-poker"])  # no shoe there
def test_672a_7_s_a_card_the_shoe_let_out_unread_goes_to_the_rack_and_no_later_card_is_misplaced(
    game: str,
) -> None:
    """672a.7(s), 686a.7(n), 677a.10(b): every card dealt is a card the shoe read. A card the shoe
    lets out unread (MISREAD, latched until a supervisor clears it) is named by no record, so the
    dealer moves it unseen to the discard rack (``rack_unread``) before the dispense is made again;
    the round goes on with the cards the shoe read, and the shoe's tray is empty after each round.
    Before, at the blackjack tables and for a Hold 'Em stack, the unread card stayed in the tray and
    was the card placed next: from then on every card on the felt was the one out before the card
    its record named."""

    async def scenario() -> None:
        async with simulated_table(game, name="MISREAD", settings=FAST) as sim:
            table, world = sim.table, sim.world
            players = players_for(game, sim)
            await table.play_round(players)
            sim.devices["shoe"].call(lambda engine: setattr(engine.personality, "misread_next", 1))
            [unread] = world.top(SHOE, 1)  # the round's first card out
            clearing = asyncio.create_task(_misread_cleared(table))
            await asyncio.wait_for(table.play_round(players), 30)
            await clearing
            assert world.cards(SHOE_TRAY) == [], "the unread card was racked, not left in the tray"
            assert unread in world.cards(DISCARD) + world.cards(SHOE)  # Hold 'Em's shoe took it back
            for _ in range(2):
                await table.play_round(players)
                assert world.cards(SHOE_TRAY) == [], "no card left behind in the tray"
            world.check()

    run(scenario(), timeout=90)


def cover_card_at(world: TableWorld, depth: int) -> None:
    """The cover card moved to ``depth`` in the shoe (0: the next card out), as a dealer inserting it
    there would have placed it."""
    with world.lock:
        cards = world.places[SHOE]
        cover = next(card for card in cards if card.is_cover)
        cards.remove(cover)
        cards.insert(depth, cover)


async def _burns_owed(
    sim: SimulatedTable[object, object], game: str, owed: tuple[str, ...]
) -> list[Mapping[str, object]]:
    """A new dealer at ``sim``'s table owing the burns ``owed``: both on the fresh batch, or only the
    dealer's once a round has burned the batch's. Returns the fields of the burn records made from
    then on, as they are made."""
    burns: list[Mapping[str, object]] = []
    sim.table.events.subscribe(
        lambda event: (
            isinstance(event, TableRecord) and event.kind == BURN_RECORD and burns.append(event.fields)
        )
    )
    if owed == ("new_dealer",):  # the batch's burn made, a round played
        await sim.table.play_round(players_for(game, sim))
    sim.table.dealer_change("D-2")
    assert sim.table.shoe.burns_owed == owed
    return burns


@pytest.mark.parametrize("owed", [("batch", "new_dealer"), ("new_dealer",)], ids=["two-owed", "one-owed"])
@pytest.mark.parametrize("game", ["free-bet-blackjack", "over-under"])
def test_672a_7_c_a_burn_card_the_shoe_let_out_unread_is_the_burn_and_each_burn_owed_is_recorded(
    game: str, owed: tuple[str, ...]
) -> None:
    """672a.7(c), 686a.7(c): a burn card is never seen, so one the shoe let out unread (MISREAD) is
    burned all the same: racked, recorded as that burn, and not burned again; MISREAD holds the
    next dispense until a supervisor clears it. With a fresh batch and a new dealer two burns are
    owed: both are made and recorded, the first the unread one. Before (found in review), the unread card was
    racked and the burn asked again, which the shoe refused as not due: the table stopped before
    betting opened, or, with two owed, the batch's burn was never recorded."""

    async def scenario() -> None:
        async with simulated_table(game, name="MISBURN", settings=FAST) as sim:
            table, world = sim.table, sim.world
            burns = await _burns_owed(sim, game, owed)
            sim.devices["shoe"].call(lambda engine: setattr(engine.personality, "misread_next", 1))
            clearing = asyncio.create_task(_misread_cleared(table))
            await asyncio.wait_for(table.prepare_round(), 20)
            await clearing
            assert [burn["reason"] for burn in burns[-len(owed) :]] == list(owed)
            assert world.cards(SHOE_TRAY) == []
            await asyncio.wait_for(table.play_round(players_for(game, sim)), 20)
            world.check()

    run(scenario(), timeout=90)


@pytest.mark.parametrize("lost", ["answer", "command"])
@pytest.mark.parametrize("owed", [("batch", "new_dealer"), ("new_dealer",)], ids=["two-owed", "one-owed"])
@pytest.mark.parametrize("game", ["free-bet-blackjack", "over-under"])
def test_672a_7_c_a_burn_lost_with_the_link_is_one_card_and_each_burn_owed_is_recorded_once(
    game: str, owed: tuple[str, ...], lost: str
) -> None:
    """672a.7(c), 686a.7(c): one card is burned for each burn owed. The shoe dies with the first burn
    out (docs/protocol.md §5.6): its ``answer`` lost, the card left the shoe unrecorded, and since a
    burn card is never seen that card is the burn, racked and recorded as it; its ``command`` lost,
    nothing left and the burn is made once the shoe is back. Either way each burn owed takes one card
    out of the shoe and one record, and no card is left unrecorded. Before, the card that left was
    racked as set aside and the burn asked again: two cards out for one burn."""

    async def scenario() -> None:
        async with simulated_table(game, name="LOSTBURN", settings=FAST) as sim:
            table, world, shoe = sim.table, sim.world, sim.devices["shoe"]
            burns = await _burns_owed(sim, game, owed)
            made, before, racked = len(burns), table.shoe.dispensed, len(world.cards(DISCARD))
            irregular = len(table.shoe.irregularities)
            Trap(table.shoe, "burn", lambda *_: shoe.set_faults(dead_link(lost)))
            preparing = asyncio.create_task(table.prepare_round())
            await latched(table, "LINK_LOST")
            await back_and_cleared(sim, "shoe")
            await asyncio.wait_for(preparing, 20)
            assert [burn["reason"] for burn in burns[made:]] == list(owed), "each burn owed recorded once"
            reconciled = [burn["reconciled"] for burn in burns[made:]]
            assert reconciled == [lost == "answer", *[False] * (len(owed) - 1)], (
                "the lost one from the counts"
            )
            assert table.shoe.dispensed == before + len(owed), "one card out of the shoe for each burn"
            assert len(world.cards(DISCARD)) == racked + len(owed) and world.cards(SHOE_TRAY) == []
            assert table.shoe.irregularities[irregular:] == [], "the card that left is recorded as the burn"
            await asyncio.wait_for(table.play_round(players_for(game, sim)), 20)
            world.check()

    run(scenario(), timeout=90)


@pytest.mark.parametrize("cleared", ["once-told", "at-once"])
@pytest.mark.parametrize("game", ["free-bet-blackjack", "over-under"])
def test_672a_7_d_a_cover_card_at_a_burn_lost_with_the_link_ends_the_shoe_there(
    game: str, cleared: str
) -> None:
    """672a.7(c), (d); 686a.7(c), (d): the cover card is next as a new dealer burns, and the shoe dies
    with the burn out: the cover card came out and its answer was lost, the counts as they were. The
    shoe's event says so once the link is back, and the table applies it before judging the counts:
    the burn finds the shoe ended, the table records the cover card at the burn, changes the shoe,
    and burns the next batch's card and then the new dealer's, still owed. ``cleared``: the
    floorperson clears once the shoe has told, or as soon as its link is back, before its event
    has come. Before, the burn asked again was refused (the shoe had ended) and the step stopped
    with the refusal, the cover card unrecorded; or, cleared at once, a card was burned from the
    ended shoe and the cover card's event, come after it, was ignored as stale: the shoe dealt on."""

    async def scenario() -> None:
        async with simulated_table(game, name="LOSTCOVER", settings=FAST) as sim:
            table, world, shoe = sim.table, sim.world, sim.devices["shoe"]
            records: list[tuple[str, object]] = []
            table.events.subscribe(
                lambda event: (
                    isinstance(event, TableRecord)
                    and records.append((event.kind, event.fields.get("reason") or event.fields.get("at")))
                )
            )
            await table.play_round(players_for(game, sim))
            cover_card_at(world, 0)  # the next card out
            table.dealer_change("D-2")
            made = len(records)
            Trap(table.shoe, "burn", lambda *_: shoe.set_faults(dead_link("answer")))
            preparing = asyncio.create_task(table.prepare_round())
            await latched(table, "LINK_LOST")
            if cleared == "at-once":
                await back_and_cleared(sim, "shoe")
            else:
                shoe.set_faults(FaultPlan())
                async with asyncio.timeout(10):
                    while table.shoe.cover is None:
                        await asyncio.sleep(0.01)
                await table.clear("LINK_LOST", FLOORPERSON)
            await asyncio.wait_for(preparing, 30)
            kinds = [kind for kind in records[made:] if kind[0] in ("cover_card", BURN_RECORD)]
            assert kinds == [("cover_card", "burn"), (BURN_RECORD, "batch"), (BURN_RECORD, "new_dealer")]
            await asyncio.wait_for(table.play_round(players_for(game, sim)), 20)
            world.check()

    run(scenario(), timeout=90)


@pytest.mark.parametrize("game", ["free-bet-blackjack", "over-under"])
def test_672a_7_d_a_cover_card_at_a_dispense_lost_with_the_link_is_told_to_the_round(game: str) -> None:
    """672a.7(d), 686a.7(d): the cover card is next as the round's first card is dispensed, and the
    shoe dies with the dispense out: the cover card came out, its answer lost, the counts as they
    were. Cleared as soon as the link is back, the table applies the shoe's cover-card event before
    it reads the counts: the round is told of the cover card (it completes, then the shoe ends) and
    its card is dispensed again. Judged from the counts alone, the card came out as if nothing had
    been dispensed, and the event that followed it was ignored as stale: the shoe dealt on."""

    async def scenario() -> None:
        async with simulated_table(game, name="LOSTCOVER", settings=FAST) as sim:
            table, world, shoe = sim.table, sim.world, sim.devices["shoe"]
            await table.play_round(players_for(game, sim))
            await table.prepare_round()
            batch = table.in_shoe
            cover_card_at(world, 0)  # the next card out
            Trap(table.shoe, "deal", lambda *_: shoe.set_faults(dead_link("answer")))
            playing = asyncio.create_task(table.play_round(players_for(game, sim)))
            await latched(table, "LINK_LOST")
            await back_and_cleared(sim, "shoe")
            round_ = await asyncio.wait_for(playing, 30)
            assert [r.kind for r in round_.records].count("cover_card") == 1
            assert table.shoe.state == COLLECTING or table.in_shoe != batch, "the shoe ended"
            await asyncio.wait_for(table.play_round(players_for(game, sim)), 30)
            assert table.in_shoe != batch, "the next round is dealt from the next batch"
            world.check()

    run(scenario(), timeout=90)


@pytest.mark.parametrize("lost", [False, True], ids=["cleared", "rest-lost-with-the-link"])
@pytest.mark.parametrize("community_first", [False, True], ids=["stacks-of-two", "community-first"])
def test_677a_10_b_a_stack_the_shoe_stopped_in_at_an_unread_card_keeps_the_cards_it_read(
    community_first: bool, lost: bool
) -> None:
    """677a.10(b), (g), docs/protocol.md (MISREAD: the cards up to and including the unreadable one
    left the shoe): the round's first stack stops at its second card, let out unread. The card read
    before it is kept (in the tray, recorded), the unread one racked unseen, and only the rest of the
    stack is dispensed again: every stack on the felt holds the cards its record names. ``lost``:
    that rest is lost with the link too, its card out unrecorded and racked from the end of the
    tray. Before (found in review), the whole stack was dispensed again and the read card went out
    with the next one, every stack and the community cards off by one from then; and a card out
    unrecorded was racked as a burn, the tray's first card: the read one."""

    async def scenario() -> None:
        game = "heads-up-holdem"
        async with simulated_table(game, name="STACK", settings=FAST, community_first=community_first) as sim:
            table, world, shoe = sim.table, sim.world, sim.devices["shoe"]
            players = players_for(game, sim)
            await table.play_round(players)

            def second_card_unread(engine: Any) -> None:
                engine.personality.misread_next, engine.personality.misread_card = 1, 2

            shoe.call(second_card_unread)
            stacks, struck = table.shoe.deal_stack, []

            async def rest_lost(count: int) -> Any:  # Any: the stack dealt
                if lost and count in (1, 4) and not struck:  # the rest of the stack the misread stopped
                    struck.append(count)
                    shoe.set_faults(dead_link("answer"))
                return await stacks(count)

            table.shoe.deal_stack = rest_lost
            felt: dict[str, tuple[list[Card], list[Card]]] = {}
            decide = players.decide

            def layout_seen(*asked: Any) -> Any:  # Any: the players' question and answer
                if not felt:  # the layout as dealt, at the first decision
                    round_ = table.in_play
                    faces = shoe.call(lambda engine: dict(engine.personality._sealed))
                    stacks = {f"seat {seat}": p.stack for seat, p in round_.positions.items()}
                    stacks["dealer"] = round_.dealer_stack
                    for place, stack in stacks.items():
                        recorded = sorted(faces[card.reference][0] for card in stack)
                        felt[place] = (recorded, sorted(card.face for card in world.cards(place)))
                return decide(*asked)

            players.decide = layout_seen
            playing = asyncio.create_task(table.play_round(players))
            await latched(table, "MISREAD")
            await table.clear("MISREAD", SUPERVISOR)
            if lost:
                await latched(table, "LINK_LOST")
                await back_and_cleared(sim, "shoe")
            round_ = await asyncio.wait_for(playing, 30)
            assert felt and all(recorded == laid for recorded, laid in felt.values()), felt
            assert world.cards(SHOE_TRAY) == [] and not round_.deck_removed
            await table.play_round(players)
            world.check()

    run(scenario(), timeout=90)
