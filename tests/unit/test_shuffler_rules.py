"""The shuffler's rules, each test named after the clause it enforces.

The machine (devices/shuffler.py) runs over the real driver and a real simulated shuffler, joined in
memory by the real codec: a host link and a device engine exchanging bytes, no port and no thread,
so every rule is checked at both ends and nothing depends on timing.
"""

from __future__ import annotations

import re

import pytest
from structlog.testing import capture_logs
from transitions import MachineError

from devices.equipment import FIRMWARE_UNVERIFIED, FIRMWARE_UNVERIFIED_CODE, EquipmentEvent
from devices.faults import Fault
from devices.shuffler import (
    BATCH_UNVERIFIED,
    BATCHES_ALTERNATE,
    COUNT_AFTER_SHUFFLE,
    FAILED_BATCH_OUT_OF_PLAY,
    NO_FOREIGN_CARD,
    ORDER_SEALED,
    OUTCOME_RECONCILED,
    RANDOM_ON_OPEN_TABLE,
    RESUMED_AS_LEFT,
    SETTINGS_RECORDED,
    SHUFFLED_BY_VERIFIED_FIRMWARE,
    UNSEEDED_ON_OPEN_TABLE,
    WHOLE_BATCH_DELIVERED,
    Shuffler,
)
from drivers.errors import DeviceRefused, OutcomeUnknown
from drivers.host_link import CommandRejected, EventReceived, HostLink, ReplyReceived
from drivers.protocol.classes.shuffler import (
    ConfigureBatch,
    DeliveredToShoe,
    DeliverToShoe,
    ReadShuffledOrder,
    SetShuffleMode,
    Shuffle,
    ShuffleCompleted,
    ShuffledOrderPage,
    ShuffleMode,
    ShuffleModeChanged,
    commit_order,
)
from drivers.protocol.core import PROTOCOL_VERSION, DeviceClass, FaultCode, FaultRaised, Hello
from drivers.protocol.fields import PayloadError
from drivers.protocol.message import Command, Reply, Status
from drivers.shuffler import SealedOrder, ShufflerDriver
from firmware_sim.engine import DeviceEngine
from firmware_sim.personality import Refusal
from firmware_sim.shuffler import ShufflerPersonality
from firmware_sim.world import (
    ASIDE,
    FLOOR,
    SHOE,
    SHUFFLER_INPUT,
    SHUFFLER_OUTPUT,
    TableWorld,
)
from tests.links import run
from vocabulary.cards import Card, standard_deck
from vocabulary.events import Event
from vocabulary.operators import Operator, Role
from vocabulary.rules import RuleViolation

DEALER = Operator("dealer-7", Role.DEALER)
SUPERVISOR = Operator("super-1", Role.SUPERVISOR)
_WORLDS: list[TableWorld] = []


@pytest.fixture(autouse=True)
def cards_are_conserved():
    """After every scenario, every world it built still accounts for every card."""
    _WORLDS.clear()
    yield
    for world in _WORLDS:
        world.check()


class Loopback:
    """Stands where a DeviceConnection stands: the driver's commands go through the real host link
    and codec into a real device engine, and the answers come back the same way. Events are
    acknowledged and kept in ``events``. ``lose_next_response`` loses the device's next answer
    after the device has executed the command, as a dead line would."""

    def __init__(self, personality: ShufflerPersonality) -> None:
        self.name = "shuffler-loopback"
        self.expected_class = DeviceClass.SHUFFLER
        self.engine = DeviceEngine(personality)
        self.link = HostLink(1)
        self.events: list[object] = []
        self.lose_next_response = False
        self.identity = self._exchange(Hello(session_id=1, protocol_version=PROTOCOL_VERSION))

    async def request(self, command: Command) -> Reply:
        return self._exchange(command)

    def _exchange(self, command: Command) -> Reply:
        self.link.submit(command, 0.0)
        self.engine.receive(self.link.data_to_send(), 0.0)
        if self.lose_next_response:
            self.lose_next_response = False
            self.engine.data_to_send()
            self.link.abort_all()
            raise OutcomeUnknown(f"{self.name}: {type(command).__name__}: response lost")
        while data := self.engine.data_to_send():
            self.link.receive(data, 0.0)
            self.engine.receive(self.link.data_to_send(), 0.0)  # ACKs of events
        outcomes = self.link.outcomes()
        self.events += [outcome.event for outcome in outcomes if isinstance(outcome, EventReceived)]
        for outcome in outcomes:
            if isinstance(outcome, ReplyReceived):
                return outcome.reply
            if isinstance(outcome, CommandRejected):
                raise DeviceRefused(type(command).__name__, outcome.status.name, outcome.detail)
        raise AssertionError(f"no answer to {command!r}")


class Table:
    """A world, a simulated shuffler in it, and the host's Shuffler over the loopback."""

    def __init__(
        self,
        device: dict[str, object] | None = None,
        personality: type[ShufflerPersonality] = ShufflerPersonality,
        **shuffler_options: bool,
    ) -> None:
        self.world = TableWorld()
        _WORLDS.append(self.world)
        self.device = personality(world=self.world, **(device or {}))  # type: ignore[arg-type]
        self.conn = Loopback(self.device)
        self.driver = ShufflerDriver(self.conn)  # type: ignore[arg-type]
        self.shuffler = Shuffler(self.driver, **shuffler_options)
        self.events_seen: list[object] = []

    def apply_events(self) -> list[object]:
        events, self.conn.events = self.conn.events, []
        self.events_seen += events
        for event in events:
            self.shuffler.apply(event)
        return events

    async def shuffled_batch(self, back: str = "red", decks: int = 1, jokers: int = 0) -> None:
        self.world.add_batch(SHUFFLER_INPUT, back, decks, jokers=jokers)
        await self.shuffler.configure(decks, jokers, back)
        await self.shuffler.shuffle()
        self.apply_events()

    def end_of_shoe(self) -> None:
        """The dealer empties the shoe into the discard rack, and the rack is taken away."""
        self.world.move_all(SHOE, "discard-rack")
        self.world.remove("discard-rack")


def latched(shuffler: Shuffler) -> set[str]:
    return {fault.code for fault in shuffler.latch.faults}


# -- decision 0017: count after every shuffle --------------------------------------------------------
def test_5_3_right_count_puts_the_batch_in_play_with_its_order_sealed():
    async def scenario():
        table = Table()
        await table.shuffled_batch(decks=2)
        batch = table.shuffler.batch
        assert table.shuffler.state == "ready" and not table.shuffler.latch
        assert (batch.report.count, batch.report.expected, batch.report.foreign) == (104, 104, 0)
        assert not batch.report.seeded
        assert batch.order.opens(batch.report.commitment)
        faces = [card.face for card in table.world.cards(SHUFFLER_OUTPUT)]
        assert list(batch.order.unseal()) == faces
        assert await table.shuffler.deliver_to_shoe() == 104
        assert [card.face for card in table.world.cards(SHOE)] == faces  # top card first
        assert table.shuffler.state == "idle" and table.shuffler.in_play is batch

    run(scenario())


def test_5_3_wrong_count_latches_takes_the_batch_out_of_play_and_needs_a_supervisor():
    async def scenario():
        table = Table()
        table.world.add_batch(SHUFFLER_INPUT, "red", 1)
        table.world.faults.drop_next = 1  # a card falls while the batch is loaded
        await table.shuffler.configure(1, 0, "red")
        report = await table.shuffler.shuffle()
        assert (report.count, report.expected) == (51, 52)
        assert table.shuffler.state == "failed" and latched(table.shuffler) == {"WRONG_COUNT"}
        assert table.shuffler.irregularities[0].rule is COUNT_AFTER_SHUFFLE
        events = table.apply_events()
        assert FaultRaised(int(FaultCode.WRONG_COUNT), "shuffle 1: counted 51 cards, expected 52") in events
        with pytest.raises(RuleViolation) as refused:
            await table.shuffler.deliver_to_shoe()
        assert refused.value.rule is FAILED_BATCH_OUT_OF_PLAY
        with pytest.raises(DeviceRefused, match="FAULT_LATCHED"):  # the device refuses on its own
            await table.driver.deliver_to_shoe(report.shuffle_id)
        with pytest.raises(RuleViolation, match="dealer-7 \\(dealer\\) may not clear WRONG_COUNT"):
            await table.shuffler.clear("WRONG_COUNT", DEALER)
        with pytest.raises(DeviceRefused, match="condition still present"):  # the batch is still there
            await table.shuffler.clear("WRONG_COUNT", SUPERVISOR)
        assert table.shuffler.state == "failed" and table.world.count(SHOE) == 0
        table.world.remove(SHUFFLER_OUTPUT)  # the deck is taken out of play
        table.world.remove(FLOOR)
        await table.shuffler.clear("WRONG_COUNT", SUPERVISOR)
        assert table.shuffler.state == "idle" and not table.shuffler.latch and table.shuffler.batch is None

    run(scenario())


def test_461a_20_b_a_shuffle_ending_while_the_firmware_stands_unverified_fails_the_batch():
    """461a.20(b), decision 0026: the shuffler's firmware fails its due authenticity check while a
    batch is being shuffled (FIRMWARE_UNVERIFIED latched). The shuffle's result cannot be trusted:
    the batch fails (BATCH_UNVERIFIED, out of play) rather than going into play once a supervisor
    has verified and cleared the firmware. Before, it was recorded "passed", loaded and dealt
    (found in review)."""

    async def scenario():
        table = Table()
        table.world.add_batch(SHUFFLER_INPUT, "red", 1)
        await table.shuffler.configure(1, 0, "red")
        shuffle = table.driver.shuffle

        async def check_fails_meanwhile():
            report = await shuffle()
            detail = "shuffler: challenge check (due) failed"
            table.shuffler.latch.latch(
                Fault(FIRMWARE_UNVERIFIED_CODE, detail, FIRMWARE_UNVERIFIED.clause, "host")
            )
            return report

        table.driver.shuffle = check_fails_meanwhile  # type: ignore[method-assign]
        report = await table.shuffler.shuffle()
        assert report.count == report.expected == 52
        assert table.shuffler.state == "failed"
        assert latched(table.shuffler) == {FIRMWARE_UNVERIFIED_CODE, BATCH_UNVERIFIED}
        assert table.shuffler.irregularities[-1].rule is SHUFFLED_BY_VERIFIED_FIRMWARE
        with pytest.raises(RuleViolation) as refused:
            await table.shuffler.deliver_to_shoe()
        assert refused.value.rule is FAILED_BATCH_OUT_OF_PLAY

    run(scenario())


def test_5_3_a_batch_put_back_and_counted_again_plays():
    """The supervisor's other remedy: the batch goes back in the input with its missing card."""

    async def scenario():
        table = Table()
        table.world.add_batch(SHUFFLER_INPUT, "red", 1)
        table.world.move(SHUFFLER_INPUT, ASIDE)  # a card left on the table
        await table.shuffler.configure(1, 0, "red")
        assert (await table.shuffler.shuffle()).count == 51
        table.world.move_all(SHUFFLER_OUTPUT, SHUFFLER_INPUT)
        table.world.move(ASIDE, SHUFFLER_INPUT)
        await table.shuffler.clear("WRONG_COUNT", SUPERVISOR)
        report = await table.shuffler.shuffle()
        assert (report.shuffle_id, report.count) == (2, 52) and table.shuffler.state == "ready"

    run(scenario())


def test_5_3_shuffle_needs_a_configured_batch_at_both_ends():
    async def scenario():
        table = Table()
        table.world.add_batch(SHUFFLER_INPUT, "red", 1)
        with pytest.raises(RuleViolation) as refused:
            await table.shuffler.shuffle()
        assert refused.value.rule is COUNT_AFTER_SHUFFLE and table.shuffler.state == "idle"
        with pytest.raises(DeviceRefused, match="REFUSED: no batch configured"):
            await table.driver.shuffle()
        assert table.world.count(SHUFFLER_INPUT) == 52

    run(scenario())


def test_5_3_jokers_count_per_deck():
    async def scenario():
        table = Table()
        await table.shuffled_batch(decks=2, jokers=1)
        assert (table.shuffler.batch.report.count, table.shuffler.expected) == (106, 106)
        assert table.shuffler.state == "ready"

    run(scenario())


def test_5_3_configure_out_of_range_names_the_field_and_sends_nothing():
    async def scenario():
        table = Table()
        for args, field in (
            ((0, 0, "red"), "decks"),
            ((1, 3, "red"), "jokers_per_deck"),
            ((1, 0, " "), "back"),
        ):
            with pytest.raises(PayloadError, match=f"ConfigureBatch.{field} must be"):
                await table.shuffler.configure(*args)
        assert table.conn.engine.executions == 0 and table.shuffler.expected is None
        with pytest.raises(
            DeviceRefused, match=re.escape("BAD_PAYLOAD: ConfigureBatch.decks must be 1..8, got 9")
        ):
            await table.conn.request(ConfigureBatch(9, 0, "red"))

    run(scenario())


# -- 603a.15: foreign cards ----------------------------------------------------------------
def test_603a15_foreign_back_latches_and_a_supervisor_clears_once_it_is_out():
    async def scenario():
        table = Table()
        table.world.add_batch(SHUFFLER_INPUT, "red", 1)
        table.world.move(SHUFFLER_INPUT, ASIDE)
        table.world.add(SHUFFLER_INPUT, [Card.parse("Ks")], "blue", at=20)
        await table.shuffler.configure(1, 0, "red")
        report = await table.shuffler.shuffle()
        assert (report.count, report.foreign) == (52, 1)
        assert latched(table.shuffler) == {"FOREIGN_CARD"} and table.shuffler.state == "failed"
        assert table.shuffler.irregularities[0].rule is NO_FOREIGN_CARD
        with pytest.raises(DeviceRefused, match="condition still present"):
            await table.shuffler.clear("FOREIGN_CARD", SUPERVISOR)
        # The supervisor takes the batch out, sorts the blue card out and puts the red one back.
        with table.world.lock:
            cards = table.world.take(SHUFFLER_OUTPUT, 52)
            table.world.put(SHUFFLER_INPUT, [c for c in cards if c.back == "red"])
            table.world.put(ASIDE, [c for c in cards if c.back != "red"], bottom=True)
            table.world.move(ASIDE, SHUFFLER_INPUT)  # the red card set aside earlier, on top
        assert {card.back for card in table.world.cards(SHUFFLER_INPUT)} == {"red"}
        await table.shuffler.clear("FOREIGN_CARD", SUPERVISOR)
        assert (await table.shuffler.shuffle()).count_right and table.shuffler.state == "ready"

    run(scenario())


@pytest.mark.parametrize(
    ("faces", "back"),
    [([Card.parse("Xr")], "red"), ([None], "cover")],
    ids=["joker-not-configured", "cover-card"],
)
def test_603a15_a_joker_or_a_cover_card_in_a_plain_batch_is_foreign(faces, back):
    async def scenario():
        table = Table()
        table.world.add_batch(SHUFFLER_INPUT, "red", 1)
        table.world.add(SHUFFLER_INPUT, faces, back)
        await table.shuffler.configure(1, 0, "red")
        report = await table.shuffler.shuffle()
        assert (report.count, report.foreign) == (53, 1)
        assert latched(table.shuffler) == {"WRONG_COUNT", "FOREIGN_CARD"}
        assert table.shuffler.batch.order.opens(report.commitment)  # a faceless card has byte 0x00

    run(scenario())


# -- 633a.3(b) (analog): batches alternate ------------------------------------------------------
def test_633a3b_batches_alternate_at_the_shoe():
    async def scenario():
        table = Table()
        await table.shuffled_batch("red")
        await table.shuffler.deliver_to_shoe()
        await table.shuffled_batch("blue")  # shuffled while red is in play
        table.shuffler.hold()
        assert table.shuffler.state == "held"
        table.end_of_shoe()
        await table.shuffler.deliver_to_shoe()
        await table.shuffled_batch("blue")  # a second blue batch: not the other colour
        table.end_of_shoe()
        with pytest.raises(RuleViolation) as refused:
            await table.shuffler.deliver_to_shoe()
        assert refused.value.rule is BATCHES_ALTERNATE and "blue batch was just played" in str(refused.value)
        assert table.shuffler.state == "ready" and table.world.count(SHOE) == 0

    run(scenario())


def test_633a3b_one_batch_colour_plays_only_without_alternation():
    async def scenario():
        table = Table(alternate_batches=False)
        for _ in range(2):
            await table.shuffled_batch("red")
            await table.shuffler.deliver_to_shoe()
            table.end_of_shoe()
        assert table.shuffler.in_play.report.shuffle_id == 2

    run(scenario())


def _restarted(table: Table) -> Shuffler:
    """The host's machine after a restart: a new one over the same driver, knowing nothing."""
    return Shuffler(table.driver)


def test_5_3_a_restarted_host_takes_back_the_held_batch_as_left_and_alternation_goes_on():
    """RESUMED_AS_LEFT: the red batch in the shoe, the blue one shuffled and held; after the host
    restarts it takes the blue batch back with its order read again, and alternation (633a.3(b))
    still refuses a second blue shoe."""

    async def scenario():
        table = Table()
        await table.shuffled_batch("red")
        await table.shuffler.deliver_to_shoe()
        await table.shuffled_batch("blue")
        table.shuffler.hold()
        saved = table.shuffler.saved()
        assert all(isinstance(value, str) for value in saved.values()), "reports as hex, no face"
        again = _restarted(table)
        await again.resume(saved, input_count=0)
        assert again.state == "held" and again.batch.report == table.shuffler.batch.report
        assert again.batch.order.opens(again.batch.report.commitment)
        table.end_of_shoe()
        assert await again.deliver_to_shoe() == 52
        table.shuffler = again  # the restarted host goes on
        await table.shuffled_batch("blue")
        table.end_of_shoe()
        with pytest.raises(RuleViolation) as refused:
            await table.shuffler.deliver_to_shoe()
        assert refused.value.rule is BATCHES_ALTERNATE

    run(scenario())


@pytest.mark.parametrize(
    ("moved", "named"),
    [
        ("shuffled again", "the shuffler's last shuffle is 2"),
        ("taken out", "its output tray holds 0 cards"),
        ("input loaded", "the input tray holds 52 cards; the table left 0 there"),
    ],
)
def test_5_3_a_restarted_host_refuses_a_held_batch_not_as_left(moved, named):
    """RESUMED_AS_LEFT: a batch shuffled again, taken out, or cards in the input tray while the
    host was down: refused naming what differs, and nothing is taken back."""

    async def scenario():
        table = Table()
        await table.shuffled_batch("blue")
        table.shuffler.hold()
        saved = table.shuffler.saved()
        if moved == "shuffled again":
            table.world.move_all(SHUFFLER_OUTPUT, SHUFFLER_INPUT)
            await table.driver.shuffle()
        elif moved == "taken out":
            table.world.move_all(SHUFFLER_OUTPUT, ASIDE)
        else:
            table.world.add_batch(SHUFFLER_INPUT, "red", 1)
        again = _restarted(table)
        with pytest.raises(RuleViolation) as refused:
            await again.resume(saved, input_count=0)
        assert refused.value.rule is RESUMED_AS_LEFT and named in str(refused.value)
        assert again.state == "idle" and again.batch is None and again.in_play is None

    run(scenario())


def test_5_3_a_restarted_host_with_nothing_held_finds_the_output_tray_empty():
    async def scenario():
        table = Table()
        await table.shuffled_batch("red")
        await table.shuffler.deliver_to_shoe()
        saved = table.shuffler.saved()
        assert saved["held"] is None
        again = _restarted(table)
        await again.resume(saved, input_count=0)
        assert again.state == "idle" and again.in_play.report.back == "red"
        table.world.add_batch(SHUFFLER_OUTPUT, "red", 1)  # a batch nobody shuffled here
        with pytest.raises(RuleViolation, match="output tray holds 52 cards the table did not leave"):
            await _restarted(table).resume(saved, input_count=0)

    run(scenario())


def test_device_refuses_a_second_batch_while_the_shoe_or_output_is_full():
    async def scenario():
        table = Table()
        await table.shuffled_batch("red")
        table.world.add_batch(SHUFFLER_INPUT, "blue", 1)
        with pytest.raises(DeviceRefused, match="output tray holds 52 cards"):
            await table.driver.shuffle()
        await table.shuffler.deliver_to_shoe()
        await table.shuffler.configure(1, 0, "blue")
        await table.shuffler.shuffle()
        with pytest.raises(DeviceRefused, match="the shoe still holds 52 cards") as refused:
            await table.shuffler.deliver_to_shoe()
        assert refused.value.status == "REFUSED" and table.shuffler.state == "held"
        table.end_of_shoe()
        assert await table.shuffler.deliver_to_shoe() == 52

    run(scenario())


# -- decision 0017: non-random modes --------------------------------------------------------------------
def test_5_9_non_random_mode_refused_while_the_table_is_open_by_host_and_device():
    async def scenario():
        table = Table()
        for mode in (ShuffleMode.SORT, ShuffleMode.VERIFY, ShuffleMode.DEMO):
            with pytest.raises(RuleViolation) as refused:
                await table.shuffler.set_mode(mode)
            assert refused.value.rule is RANDOM_ON_OPEN_TABLE
            with pytest.raises(DeviceRefused, match=f"REFUSED: {mode.name} mode is refused while the table"):
                await table.conn.request(SetShuffleMode(int(mode)))
        assert table.device.mode is ShuffleMode.RANDOM

    run(scenario())


def test_5_9_a_table_does_not_open_on_a_shuffler_left_in_sort_mode():
    async def scenario():
        table = Table()
        await table.shuffler.close_table()
        await table.shuffler.set_mode(ShuffleMode.SORT)
        await table.shuffled_batch("red")
        assert table.shuffler.batch.report.checked_mode() is ShuffleMode.SORT
        sorted_faces = [card.face for card in table.world.cards(SHUFFLER_OUTPUT)]
        assert sorted_faces == standard_deck()
        table.shuffler.mode = ShuffleMode.RANDOM  # a host that lost track: the device is asked
        with pytest.raises(RuleViolation) as refused:
            await table.shuffler.open_table()
        assert refused.value.rule is RANDOM_ON_OPEN_TABLE and not table.device.table_open
        await table.shuffler.set_mode(ShuffleMode.RANDOM)
        await table.shuffler.open_table()
        with pytest.raises(RuleViolation) as refused:  # the sorted batch stays off the open table
            await table.shuffler.deliver_to_shoe()
        assert refused.value.rule is RANDOM_ON_OPEN_TABLE
        with pytest.raises(DeviceRefused, match="arranged in SORT mode"):
            await table.driver.deliver_to_shoe(1)
        assert table.world.count(SHOE) == 0

    run(scenario())


def test_5_9_a_mode_change_at_the_device_panel_on_an_open_table():
    """Refused by the device; and were a device to report one, the host latches it. Every mode
    change, the device's own included, is an equipment record (461a.10(s), SETTINGS_RECORDED)."""

    async def scenario():
        table = Table()
        heard: list[Event] = []
        table.shuffler.listen(heard.append)
        with pytest.raises(Refusal, match="SORT mode is refused while the table is open"):
            table.device.change_mode(ShuffleMode.SORT, table.conn.engine)
        table.shuffler.apply(ShuffleModeChanged(mode=int(ShuffleMode.DEMO), table_open=True))
        assert latched(table.shuffler) == {"NON_RANDOM_MODE"}
        [changed] = [e for e in heard if isinstance(e, EquipmentEvent) and e.kind == "shuffler_mode"]
        assert changed.fields == {"mode": "DEMO", "by": "device", "table_open": table.shuffler.table_is_open}
        assert changed.clause == SETTINGS_RECORDED.clause
        assert table.shuffler.irregularities[-1].rule is RANDOM_ON_OPEN_TABLE
        await table.shuffler.clear("NON_RANDOM_MODE", SUPERVISOR)
        assert not table.shuffler.latch

    run(scenario())


def test_5_9_a_rebooted_shuffler_assumes_its_table_is_open():
    async def scenario():
        table = Table()
        await table.shuffler.close_table()
        table.conn.engine.reboot(0.0)
        table.conn.identity = table.conn._exchange(Hello(session_id=2, protocol_version=PROTOCOL_VERSION))
        assert (await table.driver.mode()).table_open
        with pytest.raises(DeviceRefused, match="refused while the table is open"):
            await table.driver.set_mode(ShuffleMode.SORT)

    run(scenario())


# -- 603a.17(d), COMAR 36.05.02.17(F) (analog): randomness; a seeded generator says so --------------
def test_5_8_a_seeded_shuffle_says_so_and_stays_off_an_open_table():
    async def scenario():
        table = Table(device={"seed": 7})
        assert "seeded" in table.conn.identity.capabilities
        await table.shuffled_batch("red")
        assert table.shuffler.batch.report.seeded
        with pytest.raises(RuleViolation) as refused:
            await table.shuffler.deliver_to_shoe()
        assert refused.value.rule is UNSEEDED_ON_OPEN_TABLE
        demo = Table(device={"seed": 7}, allow_seeded=True)  # croupier sim's demo table
        await demo.shuffled_batch("red")
        assert await demo.shuffler.deliver_to_shoe() == 52

    run(scenario())


def test_5_8_the_same_seed_gives_the_same_order_and_the_system_generator_does_not():
    async def scenario():
        orders = []
        for options in ({"seed": 3}, {"seed": 3}, {}, {}):
            table = Table(device=options)
            await table.shuffled_batch("red")
            orders.append(table.shuffler.batch.order.unseal())
        assert orders[0] == orders[1] and orders[2] != orders[3]  # 1 in 52! of a false failure

    run(scenario())


# -- decision 0018: the shuffled order is sealed ------------------------------------------------------
def test_order_is_sealed_in_logs_reprs_and_events():
    async def scenario():
        with capture_logs() as logs:
            table = Table()
            await table.shuffled_batch("red")
            await table.shuffler.deliver_to_shoe()
        order = table.shuffler.in_play.order
        faces = order.unseal()
        rendered = [" ".join(map(str, faces)), bytes(card.code for card in faces).hex()]
        text = repr(logs) + repr(order) + str(order) + repr(table.shuffler.in_play)
        assert not any(secret in text for secret in rendered)
        assert re.fullmatch(
            r"SealedOrder\(shuffle_id=1, cards=52, commitment=[0-9a-f]{16}\.\.\.\)", repr(order)
        )
        assert any(log.get("commitment") == order.commitment.hex() for log in logs)
        page = ShuffledOrderPage(1, 0, 52, tuple(card.code for card in faces), b"")
        assert "52 sealed" in repr(page) and rendered[1] not in repr(page)
        completed = [e for e in table.events_seen if isinstance(e, ShuffleCompleted)]
        assert [e.commitment for e in completed] == [order.commitment]
        assert not any(secret in repr(table.events_seen) for secret in rendered)

    run(scenario())


def _reversed_page(page: ShuffledOrderPage) -> ShuffledOrderPage:
    return ShuffledOrderPage(page.shuffle_id, page.offset, page.total, page.cards[::-1], page.nonce)


def _miscounted_page(page: ShuffledOrderPage) -> ShuffledOrderPage:
    return ShuffledOrderPage(page.shuffle_id, page.offset, page.total + 1, page.cards, page.nonce)


def _refused_page(page: ShuffledOrderPage) -> ShuffledOrderPage:
    raise Refusal(Status.REFUSED, "order memory failed its check")


@pytest.mark.parametrize(
    ("tamper", "why"),
    [
        (_reversed_page, "does not open the commitment"),
        (_miscounted_page, "could not be read \\(ProtocolMismatch"),
        (_refused_page, "could not be read \\(DeviceRefused"),
    ],
    ids=["reordered", "pages-do-not-fit", "refused"],
)
def test_an_order_unread_or_not_opening_its_commitment_fails_the_batch(tamper, why):
    class Tampering(ShufflerPersonality):
        def _read_order(self, command: ReadShuffledOrder) -> ShuffledOrderPage:
            return tamper(super()._read_order(command))

    async def scenario():
        table = Table(personality=Tampering)
        await table.shuffled_batch("red")
        assert table.shuffler.state == "failed" and latched(table.shuffler) == {"ORDER_UNSEALED"}
        (irregularity,) = table.shuffler.irregularities
        assert irregularity.rule is ORDER_SEALED and re.search(
            f"shuffle 1: the order {why}", irregularity.detail
        )
        with pytest.raises(RuleViolation):
            await table.shuffler.deliver_to_shoe()

    run(scenario())


def test_sealed_order_opens_only_its_own_commitment():
    faces, nonce = bytes(card.code for card in standard_deck()), bytes(range(16))
    order = SealedOrder(1, commit_order(faces, nonce), faces, nonce)
    assert order.opens(order.commitment) and len(order) == 52
    assert not order.opens(commit_order(faces[::-1], nonce))
    assert not order.opens(commit_order(faces, bytes(16)))


def test_order_pages_of_eight_decks_and_bad_reads():
    async def scenario():
        table = Table()
        await table.shuffled_batch("red", decks=8)
        report = table.shuffler.batch.report
        pages = [await table.conn.request(ReadShuffledOrder(report.shuffle_id, at)) for at in (0, 200, 400)]
        assert [len(page.cards) for page in pages] == [200, 200, 16]
        assert [len(page.nonce) for page in pages] == [0, 0, 16]
        assert table.shuffler.batch.order.opens(report.commitment) and len(table.shuffler.batch.order) == 416
        with pytest.raises(
            DeviceRefused, match=r"BAD_PAYLOAD: ReadShuffledOrder\.offset 416 is past the end"
        ):
            await table.conn.request(ReadShuffledOrder(report.shuffle_id, 416))
        with pytest.raises(DeviceRefused, match="shuffle 9 is not the latest shuffle \\(the latest is 1\\)"):
            await table.conn.request(ReadShuffledOrder(9, 0))

    run(scenario())


# -- docs/protocol.md §5.6: an unknown outcome takes the batch out of play ------------------------------
def test_5_6_shuffle_with_unknown_outcome_fails_the_batch_until_reconciled():
    async def scenario():
        table = Table()
        table.world.add_batch(SHUFFLER_INPUT, "red", 1)
        await table.shuffler.configure(1, 0, "red")
        table.conn.lose_next_response = True
        with pytest.raises(OutcomeUnknown):
            await table.shuffler.shuffle()
        assert table.shuffler.state == "failed" and latched(table.shuffler) == {"OUTCOME_UNKNOWN"}
        assert table.shuffler.irregularities[0].rule is OUTCOME_RECONCILED
        counters = await table.driver.counters()  # the reconciliation read: the shuffle did run
        assert (counters.last_shuffle, counters.input_count, counters.output_count) == (1, 0, 52)
        with pytest.raises(RuleViolation, match="dealer-7 \\(dealer\\) may not clear"):
            await table.shuffler.clear("OUTCOME_UNKNOWN", DEALER)
        with pytest.raises(RuleViolation) as refused:  # the host cannot see the tray: the counters can
            await table.shuffler.clear("OUTCOME_UNKNOWN", SUPERVISOR)
        assert refused.value.rule is OUTCOME_RECONCILED and "output tray holds 52 cards" in str(refused.value)
        assert latched(table.shuffler) == {"OUTCOME_UNKNOWN"}
        table.world.remove(SHUFFLER_OUTPUT)
        await table.shuffler.clear("OUTCOME_UNKNOWN", SUPERVISOR)
        assert table.shuffler.state == "idle"

    run(scenario())


def test_5_6_a_delivery_with_unknown_outcome_is_in_play_once_the_counters_show_it_ran():
    """OUTCOME_RECONCILED: the delivery's answer was lost; the counters show the batch reached the
    shoe, so the clear puts it in play and the next batch must be the other colour (633a.3(b))."""

    async def scenario():
        table = Table()
        await table.shuffled_batch("red")
        table.conn.lose_next_response = True
        with pytest.raises(OutcomeUnknown):
            await table.shuffler.deliver_to_shoe()
        assert table.shuffler.state == "failed" and latched(table.shuffler) == {"OUTCOME_UNKNOWN"}
        assert table.world.count(SHOE) == 52, "it ran"
        await table.shuffler.clear("OUTCOME_UNKNOWN", SUPERVISOR)
        assert table.shuffler.state == "idle" and table.shuffler.in_play.report.back == "red"
        await table.shuffled_batch("red")
        table.end_of_shoe()
        with pytest.raises(RuleViolation) as refused:
            await table.shuffler.deliver_to_shoe()
        assert refused.value.rule is BATCHES_ALTERNATE

    run(scenario())


def test_a_short_delivery_latches_and_the_batch_is_out_of_play():
    async def scenario():
        table = Table()
        await table.shuffled_batch("red")
        table.world.faults.drop_next = 1  # a card falls between shuffler and shoe
        assert await table.shuffler.deliver_to_shoe() == 51
        assert table.shuffler.state == "failed" and latched(table.shuffler) == {"DELIVERY_SHORT"}
        assert table.shuffler.irregularities[0].rule is WHOLE_BATCH_DELIVERED

    run(scenario())


def test_decision_0017_a_delivery_of_more_cards_than_counted_latches_a_count_fault_at_once():
    """decision 0017 (COMAR 36.05.03.27(C), analog): a shuffler's output cannot exceed its input. A
    shuffler reporting a delivery of 53 cards of a batch it counted at 52 (a faulty counter, or a card
    slipped into the output tray): IMPOSSIBLE_COUNT latches at once (not a short delivery), the batch is
    out of play, and only a supervisor clears it."""

    async def scenario():
        table = Table()
        await table.shuffled_batch("red")
        driver, deliver = table.shuffler.driver, table.shuffler.driver.deliver_to_shoe

        async def one_more(shuffle_id: int) -> DeliveredToShoe:
            reply = await deliver(shuffle_id)
            return DeliveredToShoe(reply.shuffle_id, reply.count + 1)

        driver.deliver_to_shoe = one_more
        assert await table.shuffler.deliver_to_shoe() == 53
        assert table.shuffler.state == "failed" and latched(table.shuffler) == {"IMPOSSIBLE_COUNT"}
        (fault,) = table.shuffler.latch.faults
        assert fault.clause == "COMAR 36.05.03.27(C) (analog); decision 0017"
        assert "53 of 52 cards" in fault.detail
        with pytest.raises(RuleViolation):
            await table.shuffler.clear("IMPOSSIBLE_COUNT", Operator("D-1", Role.DEALER))
        await table.shuffler.clear("IMPOSSIBLE_COUNT", SUPERVISOR)
        assert table.shuffler.state == "idle"

    run(scenario())


# -- device faults: jam, door, sensor latch until a supervisor clears them ----------------------------
def test_jam_latches_moves_nothing_and_clears_once_freed():
    async def scenario():
        table = Table()
        table.world.add_batch(SHUFFLER_INPUT, "red", 1)
        table.world.faults.stuck.add(SHUFFLER_INPUT)
        await table.shuffler.configure(1, 0, "red")
        with pytest.raises(DeviceRefused, match="FAULT_LATCHED: JAM"):
            await table.shuffler.shuffle()
        assert table.shuffler.state == "idle" and table.world.count(SHUFFLER_INPUT) == 52
        table.apply_events()
        with pytest.raises(RuleViolation, match="start_shuffle refused: latched JAM"):
            await table.shuffler.shuffle()
        with pytest.raises(DeviceRefused, match="JAM condition still present"):
            await table.shuffler.clear("JAM", SUPERVISOR)
        table.world.faults.stuck.clear()
        await table.shuffler.clear("JAM", SUPERVISOR)
        assert (await table.shuffler.shuffle()).count_right

    run(scenario())


def test_jam_at_delivery_keeps_the_batch_held():
    async def scenario():
        table = Table()
        await table.shuffled_batch("red")
        table.world.faults.stuck.add(SHUFFLER_OUTPUT)
        with pytest.raises(DeviceRefused, match="FAULT_LATCHED: JAM"):
            await table.shuffler.deliver_to_shoe()
        assert table.shuffler.state == "held" and table.world.count(SHUFFLER_OUTPUT) == 52
        table.apply_events()
        table.world.faults.stuck.clear()
        await table.shuffler.clear("JAM", SUPERVISOR)
        assert await table.shuffler.deliver_to_shoe() == 52

    run(scenario())


@pytest.mark.parametrize(
    ("code", "cause", "remedy"),
    [
        (FaultCode.DOOR_OPEN, lambda d, e: d.open_door(e), lambda d, e: d.close_door(e)),
        (FaultCode.SENSOR, lambda d, e: d.fail_sensor(e), lambda d, e: d.repair_sensor()),
    ],
    ids=["door", "sensor"],
)
def test_door_and_sensor_faults_latch_until_the_condition_is_gone(code, cause, remedy):
    async def scenario():
        table = Table()
        table.world.add_batch(SHUFFLER_INPUT, "red", 1)
        await table.shuffler.configure(1, 0, "red")
        cause(table.device, table.conn.engine)
        with pytest.raises(DeviceRefused, match=f"FAULT_LATCHED: latched fault\\(s\\) {code.name}"):
            await table.driver.shuffle()
        table.apply_events()
        assert latched(table.shuffler) == {code.name}
        with pytest.raises(DeviceRefused, match="condition still present"):
            await table.shuffler.clear(code.name, SUPERVISOR)
        remedy(table.device, table.conn.engine)
        await table.shuffler.clear(code.name, SUPERVISOR)
        assert (await table.shuffler.shuffle()).count_right

    run(scenario())


def test_state_errors_name_the_state():
    async def scenario():
        table = Table()
        with pytest.raises(MachineError, match="start_delivery from state idle"):
            await table.shuffler.deliver_to_shoe()
        await table.shuffled_batch("red")
        with pytest.raises(MachineError, match="configured is not possible while the shuffler is ready"):
            await table.shuffler.configure(1, 0, "blue")
        with pytest.raises(DeviceRefused, match="shuffle 5 is not the latest"):
            await table.conn.request(DeliverToShoe(5))
        with pytest.raises(DeviceRefused, match=r"BAD_PAYLOAD: SetShuffleMode\.mode must be one of"):
            await table.conn.request(SetShuffleMode(9))
        with pytest.raises(DeviceRefused, match="REFUSED: the output tray holds"):
            await table.conn.request(Shuffle())
        assert table.device.last.report.shuffle_id == 1

    run(scenario())
