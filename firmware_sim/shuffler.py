"""The simulated automated card shuffler: it shuffles the cards of a TableWorld, not a list of its own.

A batch is loaded into the world's SHUFFLER_INPUT; Shuffle pulls it into the machine (a pending
``drop_next`` sends a card to the floor on the way, a ``stuck`` input tray jams), counts it, checks
each card's back, arranges it per the mode into SHUFFLER_OUTPUT and reports the count with a
commitment to the order. DeliverToShoe moves the batch into the SHOE, top card first. What a real
unit keeps in non-volatile memory survives ``on_reboot``: configuration, mode, counters, the latest
order; only the table-open flag resets, to open, so a rebooted shuffler refuses non-random modes
until the host says the table is closed.

The random mode draws from ``random.SystemRandom`` (the OS's CSPRNG). A ``seed`` replaces it with a
repeatable generator, for tests and the simulator only, and the device says so: the capability
``seeded`` in its Identity and ``seeded=True`` in every shuffle report.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, TypeVar

from drivers.protocol.classes.shuffler import (
    CAPABILITIES,
    LOADS_SHOE,
    NO_FACE,
    ORDER_PAGE_SIZE,
    SEEDED,
    BatchConfigured,
    BatchDelivered,
    ConfigureBatch,
    DeliveredToShoe,
    DeliverToShoe,
    GetShuffleMode,
    GetShufflerCounters,
    ReadShuffledOrder,
    SetShuffleMode,
    SetTableOpen,
    Shuffle,
    ShuffleCompleted,
    ShuffledOrderPage,
    ShuffleMode,
    ShuffleModeChanged,
    ShuffleModeReport,
    ShufflerCounters,
    ShuffleReport,
    commit_order,
    expected_count,
)
from drivers.protocol.core import DeviceClass, DoorChanged, FaultCode
from drivers.protocol.fields import PayloadError
from drivers.protocol.message import Command, Reply, Status
from firmware_sim.personality import Personality, Refusal
from firmware_sim.world import SHOE, SHUFFLER_INPUT, SHUFFLER_OUTPUT, PhysicalCard, TableWorld, WorldError
from vocabulary.cards import NONCE_SIZE

if TYPE_CHECKING:
    from firmware_sim.engine import DeviceEngine

T = TypeVar("T")

SHUFFLER_MECHANISM = "shuffler-mechanism"  # inside the machine, while the batch is counted
DOOR = 1  # the shuffler's lid: its door number in DoorChanged
DEMO_SEED = 0x0DE0  # the demo mode's fixed order: the same for every batch of the same cards


def _new_deck_position(card: PhysicalCard) -> tuple[bool, bool, int, int]:
    """Sort key of new-deck order (``standard_deck``): suits, then ranks, jokers, faceless last."""
    face = card.face
    if face is None:
        return (True, False, 0, 0)
    return (False, face.is_joker, face.suit, face.rank)


def arrange(cards: Sequence[PhysicalCard], mode: ShuffleMode, rng: random.Random) -> list[PhysicalCard]:
    """The order in which a batch leaves the machine, top card first.

    RANDOM is ``rng.shuffle``: Fisher-Yates, each swap index drawn by ``randbelow``, which rejects
    out-of-range draws rather than taking a modulo, so every permutation is equally likely when
    ``rng`` is uniform (``SystemRandom`` is). tests/unit/test_shuffle_randomness.py checks it.
    """
    arranged = list(cards)
    if mode is ShuffleMode.RANDOM:
        rng.shuffle(arranged)
    elif mode is ShuffleMode.SORT:
        arranged.sort(key=_new_deck_position)
    elif mode is ShuffleMode.DEMO:
        random.Random(DEMO_SEED).shuffle(arranged)
    return arranged  # VERIFY: as loaded


@dataclass
class _Shuffled:
    """The latest shuffle: its report, its order (face bytes) and nonce, and which physical cards
    it put in the output tray, so the device knows whether that batch is still there."""

    report: ShuffleReport
    order: bytes
    nonce: bytes
    uids: frozenset[int]
    delivered: bool = False


@dataclass
class ShufflerPersonality(Personality):
    """A batch shuffler that counts, checks backs, keeps the order sealed and loads the shoe."""

    world: TableWorld = field(default_factory=TableWorld)
    device_class: DeviceClass = DeviceClass.SHUFFLER
    model: str = "SIM-SHUFFLER"
    seed: int | None = None
    loads_shoe: bool = True
    config: ConfigureBatch | None = None
    mode: ShuffleMode = ShuffleMode.RANDOM
    table_open: bool = True  # fail safe: assumed open until the host says otherwise
    door_open: bool = False
    sensor_ok: bool = True
    last: _Shuffled | None = None
    last_delivered: int = 0

    def __post_init__(self) -> None:
        self._rng: random.Random = random.Random(self.seed) if self.seeded else random.SystemRandom()
        caps = self.capabilities or CAPABILITIES + ((LOADS_SHOE,) if self.loads_shoe else ())
        self.capabilities = caps + ((SEEDED,) if self.seeded and SEEDED not in caps else ())

    @property
    def seeded(self) -> bool:
        return self.seed is not None

    # -- commands -------------------------------------------------------------------------------
    def handle(self, command: Command, engine: DeviceEngine) -> Reply:
        match command:
            case ConfigureBatch():
                return self._configure(command)
            case Shuffle():
                return self._shuffle(engine)
            case ReadShuffledOrder():
                return self._read_order(command)
            case DeliverToShoe():
                return self._deliver(command, engine)
            case GetShuffleMode():
                return self._mode_report()
            case SetShuffleMode():
                self.change_mode(_checked(command.checked_mode), engine)
                return self._mode_report()
            case SetTableOpen():
                return self._set_table_open(command.is_open)
            case GetShufflerCounters():
                return ShufflerCounters(
                    last_shuffle=self.last.report.shuffle_id if self.last else 0,
                    last_delivered=self.last_delivered,
                    input_count=self.world.count(SHUFFLER_INPUT),
                    output_count=self.world.count(SHUFFLER_OUTPUT),
                )
        return super().handle(command, engine)

    def _configure(self, command: ConfigureBatch) -> BatchConfigured:
        self.config = _checked(command.checked)
        return BatchConfigured(expected_count(command.decks, command.jokers_per_deck))

    def _shuffle(self, engine: DeviceEngine) -> ShuffleReport:
        config = self.config
        if config is None:
            raise Refusal(Status.REFUSED, "no batch configured: send ConfigureBatch first")
        world = self.world
        with world.lock:
            if world.count(SHUFFLER_OUTPUT):
                raise Refusal(
                    Status.REFUSED,
                    f"the output tray holds {world.count(SHUFFLER_OUTPUT)} cards: deliver them or "
                    "take them out before shuffling another batch",
                )
            if not world.count(SHUFFLER_INPUT):
                raise Refusal(Status.REFUSED, "the input tray is empty: load the batch first")
            self._move_or_jam(SHUFFLER_INPUT, SHUFFLER_MECHANISM, engine)
            loaded = world.take(SHUFFLER_MECHANISM, world.count(SHUFFLER_MECHANISM))
            cards = arrange(loaded, self.mode, self._rng)
            world.put(SHUFFLER_OUTPUT, cards, bottom=True)
        order = bytes(NO_FACE if card.face is None else card.face.code for card in cards)
        nonce = self._rng.randbytes(NONCE_SIZE)
        shuffle_id = (self.last.report.shuffle_id if self.last else 0) + 1
        report = ShuffleReport(
            shuffle_id=shuffle_id,
            mode=int(self.mode),
            count=len(cards),
            expected=expected_count(config.decks, config.jokers_per_deck),
            foreign=sum(1 for card in cards if self._is_foreign(card, config)),
            back=config.back,
            seeded=self.seeded,
            commitment=commit_order(order, nonce),
        )
        self.last = _Shuffled(report, order, nonce, frozenset(card.uid for card in cards))
        engine.emit(ShuffleCompleted(**{name: getattr(report, name) for name, _ in report.LAYOUT}))
        if report.count != report.expected:
            engine.raise_fault(
                FaultCode.WRONG_COUNT,
                f"shuffle {shuffle_id}: counted {report.count} cards, expected {report.expected}",
            )
        if report.foreign:
            engine.raise_fault(
                FaultCode.FOREIGN_CARD,
                f"shuffle {shuffle_id}: {report.foreign} card(s) foreign to the {config.back} batch",
            )
        return report

    @staticmethod
    def _is_foreign(card: PhysicalCard, config: ConfigureBatch) -> bool:
        """A card that does not belong to the batch: another back, a cover card, or a joker in a
        batch configured without jokers."""
        face = card.face
        return card.back != config.back or face is None or (face.is_joker and not config.jokers_per_deck)

    def _read_order(self, command: ReadShuffledOrder) -> ShuffledOrderPage:
        last = self._latest(command.shuffle_id)
        total = len(last.order)
        if command.offset >= total:
            raise Refusal(
                Status.BAD_PAYLOAD,
                f"ReadShuffledOrder.offset {command.offset} is past the end of shuffle "
                f"{command.shuffle_id} ({total} cards)",
            )
        end = min(command.offset + ORDER_PAGE_SIZE, total)
        return ShuffledOrderPage(
            shuffle_id=command.shuffle_id,
            offset=command.offset,
            total=total,
            cards=tuple(last.order[command.offset : end]),
            nonce=last.nonce if end == total else b"",
        )

    def _deliver(self, command: DeliverToShoe, engine: DeviceEngine) -> DeliveredToShoe:
        if not self.loads_shoe:
            raise Refusal(Status.UNKNOWN_COMMAND, "this shuffler does not load a shoe")
        last = self._latest(command.shuffle_id)
        shuffle_id = command.shuffle_id
        if last.delivered:
            raise Refusal(Status.REFUSED, f"shuffle {shuffle_id} is already in the shoe")
        if not last.report.count_right:
            raise Refusal(Status.REFUSED, f"shuffle {shuffle_id} failed its count: the batch is out of play")
        if self.table_open and last.report.mode != ShuffleMode.RANDOM:
            raise Refusal(
                Status.REFUSED,
                f"shuffle {shuffle_id} was arranged in {last.report.checked_mode().name} mode: "
                "it cannot go to an open table",
            )
        world = self.world
        with world.lock:
            if {card.uid for card in world.cards(SHUFFLER_OUTPUT)} != last.uids:
                raise Refusal(
                    Status.REFUSED,
                    f"the output tray no longer holds shuffle {shuffle_id} as shuffled: shuffle again",
                )
            if world.count(SHOE):
                raise Refusal(
                    Status.REFUSED, f"the shoe still holds {world.count(SHOE)} cards: empty it first"
                )
            moved = self._move_or_jam(SHUFFLER_OUTPUT, SHOE, engine)
        last.delivered = True
        self.last_delivered = shuffle_id
        engine.emit(BatchDelivered(shuffle_id, len(moved)))
        return DeliveredToShoe(shuffle_id, len(moved))

    def _latest(self, shuffle_id: int) -> _Shuffled:
        last = self.last
        if last is None or last.report.shuffle_id != shuffle_id:
            latest = f"the latest is {last.report.shuffle_id}" if last else "none has run yet"
            raise Refusal(Status.REFUSED, f"shuffle {shuffle_id} is not the latest shuffle ({latest})")
        return last

    def _move_or_jam(self, src: str, dst: str, engine: DeviceEngine) -> list[PhysicalCard]:
        """Move every card of ``src``; a stuck tray latches JAM and moves nothing."""
        try:
            return self.world.move_all(src, dst)
        except WorldError as exc:
            engine.raise_fault(FaultCode.JAM, f"jam: {exc}")
            raise Refusal(Status.FAULT_LATCHED, f"JAM: {exc}") from None

    def _mode_report(self) -> ShuffleModeReport:
        return ShuffleModeReport(mode=int(self.mode), table_open=self.table_open)

    def _set_table_open(self, is_open: bool) -> ShuffleModeReport:
        if is_open and self.mode is not ShuffleMode.RANDOM:
            raise Refusal(
                Status.REFUSED, f"the shuffler is in {self.mode.name} mode: set RANDOM before the table opens"
            )
        self.table_open = is_open
        return self._mode_report()

    # -- the operator at the device, and the physical world -------------------------------------
    def change_mode(self, mode: ShuffleMode, engine: DeviceEngine) -> None:
        """Change the mode, from SetShuffleMode or from the front panel: a non-random mode is refused
        while the table is open (decision 0017), whoever asks."""
        if self.table_open and mode is not ShuffleMode.RANDOM:
            raise Refusal(Status.REFUSED, f"{mode.name} mode is refused while the table is open")
        if mode is not self.mode:
            self.mode = mode
            engine.emit(ShuffleModeChanged(mode=int(mode), table_open=self.table_open))

    def open_door(self, engine: DeviceEngine) -> None:
        self.door_open = True
        engine.emit(DoorChanged(DOOR, True))
        engine.raise_fault(FaultCode.DOOR_OPEN, "shuffler lid open")

    def close_door(self, engine: DeviceEngine) -> None:
        self.door_open = False
        engine.emit(DoorChanged(DOOR, False))

    def fail_sensor(self, engine: DeviceEngine, detail: str = "card sensor failed its self-test") -> None:
        self.sensor_ok = False
        engine.raise_fault(FaultCode.SENSOR, detail)

    def repair_sensor(self) -> None:
        self.sensor_ok = True

    def condition_persists(self, code: FaultCode) -> bool:
        if code is FaultCode.JAM:
            return bool({SHUFFLER_INPUT, SHUFFLER_OUTPUT} & self.world.faults.stuck)
        if code is FaultCode.DOOR_OPEN:
            return self.door_open
        if code is FaultCode.SENSOR:
            return not self.sensor_ok
        if code in (FaultCode.WRONG_COUNT, FaultCode.FOREIGN_CARD):
            return self._failed_batch_in_output()
        return False

    def _failed_batch_in_output(self) -> bool:
        """A batch that failed its count is out of play: its fault stays until it has left the
        output tray (taken off the table, or put back in the input to be shuffled again)."""
        last = self.last
        if last is None or last.report.count_right:
            return False
        return any(card.uid in last.uids for card in self.world.cards(SHUFFLER_OUTPUT))

    def on_reboot(self) -> None:
        self.table_open = True


def _checked(check: Callable[[], T]) -> T:
    """Run a message's ``checked*`` method; a bad value becomes the BAD_PAYLOAD answer."""
    try:
        return check()
    except PayloadError as exc:
        raise Refusal(Status.BAD_PAYLOAD, str(exc)) from None
