"""The dealing shoe end to end: the Shoe's rules over ShoeDriver and a DeviceConnection, to the
simulated shoe behind a real pseudo-terminal and on the simulated USB bus, with cards that really
move in a table world. Every scenario runs over both, and ends with the world's card count checked
(tests.conformance.targets.simulated)."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
from collections.abc import AsyncIterator, Iterable
from dataclasses import dataclass
from pathlib import Path

import pytest
from structlog.testing import capture_logs

from croupier.tables.feeding import Feeds
from croupier.tables.free_bet_blackjack import FreeBetBlackjackTable
from devices.shoe import Shoe, ShoeFault
from drivers.connection import DeviceConnection, SupervisorSettings
from drivers.errors import DeviceRefused, HandshakeRejected
from drivers.protocol.classes.shoe import CoverCardReached
from drivers.protocol.core import DeviceClass, DoorChanged, FaultCleared, FaultCode, FaultRaised
from drivers.shoe import ShoeDriver
from firmware_sim.device import SimulatedDevice
from firmware_sim.faults import ChannelFaults, FaultPlan
from firmware_sim.shoe import DOOR, ShoePersonality
from firmware_sim.world import (
    ASIDE,
    DEALER,
    DISCARD,
    FLOOR,
    SHOE,
    SHOE_TRAY,
    TableWorld,
    read_stack_file,
    seat,
)
from tests.conformance.profiles.shoe import BACK, PROFILE, eventually
from tests.conformance.targets import TRANSPORTS, simulated
from tests.links import FAST, run
from vocabulary.cards import Card, SealedCard
from vocabulary.operators import SUPERVISOR_CLEARS, Operator, Role
from vocabulary.rules import RuleViolation

DEALER_ON_DUTY = Operator("D-17", Role.DEALER)
SUPERVISOR = Operator("S-2", Role.SUPERVISOR)
QUIET = dataclasses.replace(FAST, heartbeat_interval=30.0)  # no heartbeat to take a dropped response
EMPTY_TABLE = dataclasses.replace(PROFILE, prepare_world=lambda world: None)

# A short stacked shoe of 11 cards and a cover card, for a blackjack round (672a.7(e)): the burn,
# first cards to player 1, the dealer and player 2, second cards (the dealer's hole card Ks face
# down), hits, and the cover card coming out during play.
STACK = """
9h          # burn
7c Ad Tc    # player 1, dealer's up card, player 2
4h Ks 8d    # player 1, dealer's hole card (face down), player 2
5s          # a hit for player 1
COVER
2c 3c 4c    # more hits
"""
BATCH = 11
FIRST_CARDS = [
    (seat(1), True),
    (DEALER, True),
    (seat(2), True),
    (seat(1), True),
    (DEALER, False),
    (seat(2), True),
]

#: The shoe under test deals Free Bet Blackjack: its rules cite 672a.7.
CLAUSES = FreeBetBlackjackTable.shoe_clauses


@dataclass
class ShoeRig:
    shoe: Shoe
    world: TableWorld
    device: SimulatedDevice
    conn: DeviceConnection

    @property
    def personality(self) -> ShoePersonality:
        personality = self.device.engine.personality
        assert isinstance(personality, ShoePersonality)
        return personality

    def deal_to(self, place: str) -> None:
        """The dealer takes the dispensed card from the tray to ``place`` on the layout."""
        self.world.move(SHOE_TRAY, place)


@contextlib.asynccontextmanager
async def shoe_over(
    transport: str,
    faces: Iterable[Card | None],
    *,
    settings: SupervisorSettings = FAST,
    events: list[object] | None = None,
) -> AsyncIterator[ShoeRig]:
    """An empty simulated shoe, connected and synced; then the dealer places ``faces`` in it."""
    async with simulated(EMPTY_TABLE, transport, settings=settings) as target:
        assert target.sim is not None and isinstance(target.driver, ShoeDriver)
        shoe = Shoe(target.driver, clauses=CLAUSES)
        async with Feeds([shoe], events).running():
            await shoe.sync()
            target.sim.world.add(SHOE, faces, BACK)
            yield ShoeRig(shoe, target.sim.world, target.sim.device, target.conn)


async def burned(rig: ShoeRig, cards: int = BATCH) -> None:
    """The batch is loaded and its first card burned to the discard rack (672a.7(a), (c))."""
    await rig.shoe.load(cards)
    assert isinstance(await rig.shoe.burn(), SealedCard)
    rig.deal_to(DISCARD)


@contextlib.asynccontextmanager
async def round_over(
    transport: str,
    faces: Iterable[Card | None],
    cards: int = BATCH,
    *,
    settings: SupervisorSettings = FAST,
    events: list[object] | None = None,
) -> AsyncIterator[ShoeRig]:
    """The shoe over ``transport`` with ``faces`` loaded, its first card burned, a round started."""
    async with shoe_over(transport, faces, settings=settings, events=events) as rig:
        await burned(rig, cards)
        rig.shoe.start_round()
        yield rig


async def deal(rig: ShoeRig, plan: Iterable[tuple[str, bool]]) -> list[Card | SealedCard]:
    """Deal to each (place, face up) of ``plan`` in turn, the dealer laying each card in its place."""
    dealt = []
    for place, face_up in plan:
        dealt.append(await rig.shoe.deal(face_up=face_up))
        rig.deal_to(place)
    return dealt


async def events_delivered(rig: ShoeRig) -> None:
    """Every event the shoe sent has been acknowledged and applied to the rules."""
    await eventually(
        lambda: rig.device.call(lambda engine: engine.pending_events) == 0 and rig.conn.events.empty()
    )


def stacked(tmp_path: Path) -> list[Card | None]:
    path = tmp_path / "blackjack.stack"
    path.write_text(STACK)
    return read_stack_file(path)


def faces(*names: str) -> list[Card]:
    return [Card.parse(name) for name in names]


def codes(shoe: Shoe) -> list[str]:
    return [fault.code for fault in shoe.latch.faults]


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_deals_a_stacked_shoe_in_order_and_keeps_count(transport, tmp_path):
    async def scenario():
        async with round_over(transport, stacked(tmp_path)) as rig:
            dealt = await deal(rig, [(seat(1), True), (DEALER, True), (seat(2), True), (seat(1), True)])
            assert dealt == faces("7c", "Ad", "Tc", "4h")
            assert (rig.shoe.dispensed, rig.shoe.remaining) == (5, 6)
            assert rig.personality.dispensed == 5 and rig.world.count(SHOE) == 7, "6 cards and the cover"
            assert [c.face for c in rig.world.cards(seat(1))] == faces("7c", "4h")
            assert [c.face for c in rig.world.cards(DISCARD)] == faces("9h"), "the burn card"

    run(scenario())


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_face_down_card_travels_as_a_commitment_until_turned_up(transport, tmp_path):
    async def scenario():
        async with round_over(transport, stacked(tmp_path)) as rig:
            hole = (await deal(rig, FIRST_CARDS))[4]
            assert isinstance(hole, SealedCard) and len(hole.commitment) == 32
            assert [c.face for c in rig.world.cards(DEALER)] == faces("Ad", "Ks")
            assert await rig.shoe.reveal(hole) == Card.parse("Ks")  # 672a.7(k): turned up

    run(scenario())


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_face_down_value_reaches_no_log_event_or_record_before_it_is_turned_up(transport, tmp_path):
    """Secrecy (decision 0018): the hole card's face, as text and as its code, is nowhere in the
    structlog output, the device's events or the shoe's records until the reveal."""
    hole_face = Card.parse("Ks")
    events: list[object] = []

    async def scenario():
        async with shoe_over(transport, stacked(tmp_path), events=events) as rig:
            with capture_logs() as logs:
                await burned(rig)
                rig.shoe.start_round()
                hole = (await deal(rig, FIRST_CARDS))[4]
                await deal(rig, [(seat(1), True), (seat(1), True)])  # 5s, the cover card, 2c
                await events_delivered(rig)
                assert any(isinstance(event, CoverCardReached) for event in events)
                assert any(entry["event"] == "card dealt" for entry in logs)
                records = [repr(rig.shoe.round_cards), repr(rig.shoe.irregularities), repr(hole)]
                leaks = [
                    item
                    for item in [*logs, *events]
                    if str(hole_face) in repr(item) or hole_face.code in _integers(item)
                ] + [text for text in records if str(hole_face) in text]
                assert not leaks, f"the hole card's face leaked before it was turned up: {leaks}"
                assert await rig.shoe.reveal(hole) == hole_face
            assert any(str(hole_face) in repr(entry) for entry in logs), "the reveal is logged"

    run(scenario())


def _integers(item: object) -> list[int]:
    """The integer fields of a log entry or an event: where a face's code could hide."""
    values = item.values() if isinstance(item, dict) else vars(item).values()
    return [value for value in values if isinstance(value, int) and not isinstance(value, bool)]


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_cover_card_mid_round_completes_the_round_then_collect_and_count(transport, tmp_path):
    async def scenario():
        async with round_over(transport, stacked(tmp_path)) as rig:
            await deal(rig, [*FIRST_CARDS, (seat(1), True)])
            assert rig.shoe.state == "in_round"
            assert await rig.shoe.deal(face_up=True) == Card.parse("2c"), "the cover card is set aside"
            rig.deal_to(seat(1))
            assert rig.shoe.state == "ending" and rig.shoe.cover.when == "during-play"
            assert rig.world.count(ASIDE) == 1 and rig.world.cards(ASIDE)[0].is_cover
            await deal(rig, [(seat(2), True)])  # 672a.7(d): the round is completed
            for place in (seat(1), seat(2), DEALER):
                rig.world.move_all(place, DISCARD)
            await rig.shoe.end_round()
            with pytest.raises(RuleViolation):
                rig.shoe.start_round()
            rig.world.move_all(SHOE, DISCARD)  # 672a.7(d)(1): the remaining cards to the rack
            await rig.shoe.collect(rig.world.count(DISCARD))
            assert rig.shoe.state == "empty" and not rig.shoe.faulted and not rig.shoe.irregularities
            assert rig.world.count(DISCARD) == BATCH

    run(scenario())


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_jam_and_misread_latch_and_only_a_supervisor_clears_them(transport):
    events: list[object] = []

    async def scenario():
        async with round_over(transport, faces("9h", "7c", "Ad", "Tc", "4h"), 5, events=events) as rig:
            rig.world.faults.stuck.add(SHOE)
            with pytest.raises(ShoeFault) as jam:
                await rig.shoe.deal(face_up=True)
            assert jam.value.code is FaultCode.JAM and rig.world.count(SHOE) == 4
            with pytest.raises(RuleViolation) as dealer:
                await rig.shoe.clear("JAM", DEALER_ON_DUTY)
            assert dealer.value.rule is SUPERVISOR_CLEARS
            with pytest.raises(DeviceRefused, match="JAM condition still present"):
                await rig.shoe.clear("JAM", SUPERVISOR)
            rig.world.faults.stuck.clear()
            await rig.shoe.clear("JAM", SUPERVISOR)

            rig.device.call(lambda engine: setattr(rig.personality, "misread_next", 1))
            with pytest.raises(ShoeFault) as misread:
                await rig.shoe.deal(face_up=False)
            assert misread.value.code is FaultCode.MISREAD
            assert rig.world.count(SHOE_TRAY) == 1, "the unreadable card left the shoe"
            assert rig.shoe.unrecorded == 1 and rig.shoe.irregularities[-1].rule is CLAUSES.record_every_card
            with pytest.raises(RuleViolation):
                await rig.shoe.clear("MISREAD", DEALER_ON_DUTY)
            await rig.shoe.clear("MISREAD", SUPERVISOR)
            rig.deal_to(seat(1))
            assert await rig.shoe.deal(face_up=True) == Card.parse("Ad"), "after 9h burned, 7c misread"
            rig.deal_to(seat(1))
            await events_delivered(rig)
        raised = [e.code for e in events if isinstance(e, FaultRaised)]
        cleared = [e.code for e in events if isinstance(e, FaultCleared)]
        assert raised == cleared == [FaultCode.JAM, FaultCode.MISREAD]

    run(scenario())


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_door_open_latches_until_closed_and_cleared(transport):
    async def scenario():
        async with round_over(transport, faces("9h", "7c", "Ad"), 3) as rig:
            rig.device.call(rig.personality.open_door)
            with pytest.raises(DeviceRefused, match="FAULT_LATCHED"):
                await rig.shoe.driver.dispense(face_up=True)
            await eventually(lambda: codes(rig.shoe) == ["DOOR_OPEN"])
            with pytest.raises(DeviceRefused, match="DOOR_OPEN condition still present"):
                await rig.shoe.clear("DOOR_OPEN", SUPERVISOR)
            rig.device.call(rig.personality.close_door)
            await rig.shoe.clear("DOOR_OPEN", SUPERVISOR)
            assert await rig.shoe.deal(face_up=True) == Card.parse("7c")
            rig.deal_to(seat(1))

    run(scenario())


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_dispense_whose_response_is_lost_moves_exactly_one_card(transport):
    async def scenario():
        async with round_over(transport, faces("9h", "7c", "Ad", "Tc"), 4, settings=QUIET) as rig:
            retransmissions = rig.conn.link.counters.retransmissions
            rig.device.set_faults(FaultPlan(outbound=ChannelFaults(drop_next=1)))
            assert await rig.shoe.deal(face_up=True) == Card.parse("7c")
            assert rig.conn.link.counters.retransmissions == retransmissions + 1
            assert rig.world.count(SHOE_TRAY) == 1 and rig.world.count(SHOE) == 2
            assert rig.personality.dispensed == rig.shoe.dispensed == 2
            rig.deal_to(seat(1))

    run(scenario())


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_card_dropped_on_the_way_shows_as_a_wrong_count_at_collection(transport, tmp_path):
    async def scenario():
        async with round_over(transport, stacked(tmp_path)) as rig:
            rig.world.faults.drop_next = 1  # the next card falls to the floor as it leaves the shoe
            assert await rig.shoe.deal(face_up=True) == Card.parse("7c"), "read as it passed"
            assert rig.world.count(SHOE_TRAY) == 0 and rig.world.count(FLOOR) == 1
            await deal(rig, [*FIRST_CARDS[1:], (seat(1), True), (seat(1), True)])
            assert rig.shoe.state == "ending"
            await rig.shoe.end_round()
            for place in (seat(1), seat(2), DEALER, SHOE):
                rig.world.move_all(place, DISCARD)
            await rig.shoe.collect(rig.world.count(DISCARD))
            assert codes(rig.shoe) == ["WRONG_COUNT"]
            assert rig.shoe.irregularities[-1].rule is CLAUSES.collect_and_count
            assert "10 cards counted" in rig.shoe.irregularities[-1].detail
            with pytest.raises(RuleViolation):
                await rig.shoe.clear("WRONG_COUNT", DEALER_ON_DUTY)
            await rig.shoe.clear("WRONG_COUNT", SUPERVISOR)

    run(scenario())


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_605a4c_a_shoe_swapped_for_another_unit_latches_until_a_supervisor_accepts_it(transport):
    """605a.4(c), decision 0017: the shoe answering after a reboot is another unit (another model and
    serial number): DEVICE_SWAPPED latches, naming the old and the new unit (model, serial number,
    firmware hash); a dealer may not clear it; a supervisor's clear checks the new unit against the
    firmware allow-list first (refused while its hash is not on it), and then the table goes on with
    the new unit: a reboot of it latches nothing more."""

    async def scenario():
        async with shoe_over(transport, faces("9h", "7c", "Ad")) as rig:
            identity = rig.conn.identity
            assert identity is not None and identity.serial_number == "SH-CONF-1"
            old_hash = identity.firmware_hash
            rig.conn.allow_list = frozenset({old_hash})

            def swap(engine):
                engine.personality.model, engine.personality.serial_number = "SIM-2", "SH-OTHER-9"
                engine.personality.firmware_image = b"another build, also allowed"

            rig.device.call(swap)
            new_hash = rig.device.call(lambda engine: engine.personality.firmware_hash)
            rig.conn.allow_list = frozenset({old_hash, new_hash})
            rig.device.reboot()
            await eventually(lambda: "DEVICE_SWAPPED" in codes(rig.shoe), timeout=5)
            (fault,) = [f for f in rig.shoe.latch.faults if f.code == "DEVICE_SWAPPED"]
            assert fault.clause == "605a.4(c); decision 0017" and fault.origin == "host"
            for shown in ("SIM-SHOE s/n SH-CONF-1", old_hash.hex(), "SIM-2 s/n SH-OTHER-9", new_hash.hex()):
                assert shown in fault.detail
            await rig.conn.wait_ready(5)
            with pytest.raises(RuleViolation) as dealer:
                await rig.shoe.clear("DEVICE_SWAPPED", DEALER_ON_DUTY)
            assert dealer.value.rule is SUPERVISOR_CLEARS
            rig.conn.allow_list = frozenset({old_hash})  # the new unit's firmware is not approved
            with pytest.raises(HandshakeRejected, match="allow-list"):
                await rig.shoe.clear("DEVICE_SWAPPED", SUPERVISOR)
            assert "DEVICE_SWAPPED" in codes(rig.shoe)
            rig.conn.allow_list = frozenset({old_hash, new_hash})
            await rig.shoe.clear("DEVICE_SWAPPED", SUPERVISOR)
            assert rig.conn.accepted is not None and rig.conn.accepted.serial_number == "SH-OTHER-9"
            for code in codes(rig.shoe):  # the reboot's LINK_LOST
                await rig.shoe.clear(code, SUPERVISOR)
            rig.device.reboot()
            await eventually(lambda: "LINK_LOST" in codes(rig.shoe), timeout=5)
            await rig.conn.wait_ready(5)
            await events_delivered(rig)
            assert codes(rig.shoe) == ["LINK_LOST"], "the accepted unit rebooting is no swap"

    run(scenario())


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_an_event_told_as_the_service_stops_is_applied_there_or_kept_by_the_shoe_for_the_next(transport):
    """docs/protocol.md §5.7, 672a.7(d): an event the link acknowledged is owed to the rules. One
    acknowledged and queued when the service's feeds stop, before a feed took it, is applied as they
    stop (before, it was dropped: the shoe had it acknowledged, the table never saw it). One the shoe
    tells after the feeds stopped is left unacknowledged, so the shoe keeps it and sends it to the
    next service's connection, which applies it."""

    async def scenario():
        async with simulated(EMPTY_TABLE, transport) as target:
            assert target.sim is not None and isinstance(target.driver, ShoeDriver)
            device, personality = target.sim.device, target.sim.device.engine.personality
            assert isinstance(personality, ShoePersonality)
            shoe = Shoe(target.driver, clauses=CLAUSES)
            feeds = Feeds([shoe])
            device.call(personality.open_door)  # a door event, and the fault it raises
            await eventually(lambda: device.call(lambda engine: engine.pending_events) == 0)
            queued = list(target.conn.events._queue)  # type: ignore[attr-defined]  # link states too
            assert DoorChanged(DOOR, True) in queued, "acknowledged and queued"
            async with feeds.running():
                pass  # the service stops before a feed took them
            assert codes(shoe) == ["DOOR_OPEN"] and target.conn.events.empty()

            device.call(personality.close_door)  # told after the feeds stopped
            await asyncio.sleep(0.8)  # the shoe sends it again every 0.3 s, unacknowledged
            assert device.call(lambda engine: engine.pending_events) == 1 and target.conn.events.empty()
            await target.conn.stop()

            conn = DeviceConnection(
                target.transport, name="shoe", expected_class=DeviceClass.SHOE, settings=FAST
            )
            applied: list[object] = []
            try:
                await conn.start()
                await conn.wait_ready(5.0)
                async with Feeds([Shoe(ShoeDriver(conn), clauses=CLAUSES)], applied).running():
                    await eventually(lambda: DoorChanged(DOOR, False) in applied)
            finally:
                await conn.stop()
            assert device.call(lambda engine: engine.pending_events) == 0

    run(scenario())
