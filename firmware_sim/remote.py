"""A simulated table's devices in a process of their own, their cards still the table's.

``croupier run`` and ``croupier sim`` serve the devices of a simulated table from a child process
(``croupier firmware --serve-table``), each behind a real pseudo-terminal, as a table PC's devices
are outside the table's process. The cards they move stay in the table process's TableWorld, which
the simulated dealer's hands move too: the child reaches it through ``RemoteWorld``, each move sent
over a socket to a ``WorldServer`` thread in the table process, so the card count is still kept and
proven in one place (``TableWorld.check``). The table process reaches each device's controls (the
faults a fault profile strikes, the door, a reboot) through ``RemoteDevice``.

Two socket pairs join them, passed to the child as file descriptors: the world channel (the child
asks, the table answers) and the control channel (the table asks, the child answers). The devices
go to the child pickled, world and all: ``pack_devices`` replaces the world with a placeholder the
child resolves to its RemoteWorld.
"""

from __future__ import annotations

import contextlib
import copyreg
import ctypes
import io
import os
import pickle
import random
import signal
import socket
import threading
import types
from collections.abc import Callable, Iterable, Iterator, Sequence
from multiprocessing.connection import Connection
from typing import Any, Concatenate, ParamSpec, TypeVar, cast

from firmware_sim.device import SimulatedDevice
from firmware_sim.engine import DeviceEngine
from firmware_sim.faults import FaultPlan
from firmware_sim.ports import Port, serve
from firmware_sim.progressive import ControllerPersonality
from firmware_sim.world import PhysicalCard, PhysicalFaults, TableWorld, WorldError
from vocabulary.cards import Card

T = TypeVar("T")
P = ParamSpec("P")

_WORLD = "table-world"  # the placeholder the world is pickled as
_PR_SET_PDEATHSIG = 1  # linux/prctl.h

#: What the table process may ask of a device in the child, by name: the controls a fault profile
#: or the floor uses (``call`` runs a picklable function on the device's engine under its lock).
DEVICE_CONTROLS = frozenset({"set_faults", "set_silent", "reboot", "set_door", "call"})


def _system_random(rng: random.SystemRandom) -> tuple[type[random.SystemRandom], tuple[()]]:
    """The CSPRNG has no state to send: the child draws from its own."""
    return random.SystemRandom, ()


class _DevicePickler(pickle.Pickler):
    """Pickles devices with the world they move cards in replaced by a placeholder."""

    def __init__(self, file: io.BytesIO, world: TableWorld) -> None:
        super().__init__(file, protocol=pickle.HIGHEST_PROTOCOL)
        self.world = world
        self.dispatch_table = copyreg.dispatch_table.copy()
        self.dispatch_table[random.SystemRandom] = _system_random

    def persistent_id(self, obj: object) -> str | None:
        return _WORLD if obj is self.world else None


class _DeviceUnpickler(pickle.Unpickler):
    def __init__(self, file: io.BytesIO, world: TableWorld) -> None:
        super().__init__(file)
        self.world = world

    def persistent_load(self, pid: object) -> TableWorld:
        if pid != _WORLD:
            raise pickle.UnpicklingError(f"unknown persistent id {pid!r}")
        return self.world


def pack_devices(world: TableWorld, devices: Sequence[SimulatedDevice]) -> bytes:
    """``devices``, not yet started, as bytes for the child; ``world`` travels as a placeholder."""
    buffer = io.BytesIO()
    _DevicePickler(buffer, world).dump(list(devices))
    return buffer.getvalue()


def unpack_devices(data: bytes, world: TableWorld) -> list[SimulatedDevice]:
    """The devices ``pack_devices`` packed, on ``world`` (the child's RemoteWorld)."""
    devices: list[SimulatedDevice] = _DeviceUnpickler(io.BytesIO(data), world).load()
    return devices


# -- the world channel: the child asks, the table process answers ------------------------------------

#: The TableWorld methods a device's firmware calls, run in the table process as asked.
WORLD_CALLS = frozenset(
    {
        *("add", "remove", "take", "put", "move", "move_all"),
        *("cards", "count", "top", "faces", "total"),
        "atomically",
    }
)
#: What the child sends without waiting for an answer: the lock is taken and let go in the order
#: asked, before the next question is answered, so a round trip for each would buy nothing.
UNANSWERED = frozenset({"lock", "unlock"})


class WorldServer:
    """Serves ``world`` to the child's RemoteWorld on one thread, so the world's re-entrant lock,
    taken for the child (``lock``), is held by that thread until the child lets it go. Ends when
    the child's end closes, letting go of any lock the child still held."""

    def __init__(self, world: TableWorld, channel: Connection) -> None:
        self.world, self.channel = world, channel
        self._held = 0
        self._thread = threading.Thread(target=self._serve, name="world-server", daemon=True)

    def start(self) -> WorldServer:
        self._thread.start()
        return self

    def join(self, timeout: float) -> None:
        self._thread.join(timeout)

    def _serve(self) -> None:
        try:
            while True:  # until the child's end closes (or it dies), mid-question or not
                name, args, kwargs = self.channel.recv()
                answer = self._answer(name, args, kwargs)
                if name not in UNANSWERED:
                    self.channel.send(answer)
        except (EOFError, OSError):
            return
        finally:
            for _ in range(self._held):
                self.world.lock.release()
            self._held = 0

    def _answer(self, name: str, args: tuple[object, ...], kwargs: dict[str, object]) -> tuple[bool, object]:
        try:
            if name == "lock":
                self.world.lock.acquire()
                self._held += 1
                return True, None
            if name == "unlock":
                self._held -= 1
                self.world.lock.release()
                return True, None
            if name == "faults":
                with self.world.lock:
                    faults = self.world.faults
                    return True, PhysicalFaults(faults.drop_next, set(faults.stuck))
            if name not in WORLD_CALLS:
                raise WorldError(f"the world does not {name}")
            return True, getattr(self.world, name)(*args, **kwargs)
        except Exception as exc:  # the child raises it, where its device asked
            return False, exc


class _RemoteLock:
    """The table process's world lock, taken for the child. Re-entrant within the child's thread
    that takes it; the child's other threads wait for the channel meanwhile, as they would for the
    lock itself."""

    def __init__(self, world: RemoteWorld) -> None:
        self.world = world

    def __enter__(self) -> _RemoteLock:
        self.world.channel_lock.acquire()
        try:
            self.world.ask("lock")
        except BaseException:
            self.world.channel_lock.release()
            raise
        return self

    def __exit__(self, *exc: object) -> None:
        try:
            self.world.ask("unlock")
        finally:
            self.world.channel_lock.release()


class RemoteWorld(TableWorld):
    """The table process's TableWorld as the child's devices see it: every look and move is asked
    over the world channel and answered there, so its places hold nothing here."""

    def __init__(self, channel: Connection) -> None:
        super().__init__()
        self.channel = channel
        self.channel_lock = threading.RLock()
        self.lock = _RemoteLock(self)  # type: ignore[assignment]  # taken with ``with``, as the RLock

    def ask(self, name: str, *args: object, **kwargs: object) -> Any:  # Any: the asked method's answer
        with self.channel_lock:
            self.channel.send((name, args, kwargs))
            if name in UNANSWERED:
                return None
            ok, value = self.channel.recv()
        if not ok:
            raise value
        return value

    @property  # type: ignore[override]
    def faults(self) -> PhysicalFaults:
        """The accidents pending in the table process's world, as they are now."""
        return self.ask("faults")

    @faults.setter
    def faults(self, value: PhysicalFaults) -> None:  # TableWorld.__init__ sets its own; not sent
        pass

    def add(
        self, place: str, faces: Iterable[Card | None], back: str, *, at: int | None = None
    ) -> list[PhysicalCard]:
        return self.ask("add", place, list(faces), back, at=at)

    def remove(self, place: str) -> list[PhysicalCard]:
        return self.ask("remove", place)

    def take(self, place: str, count: int = 1) -> list[PhysicalCard]:
        return self.ask("take", place, count)

    def put(self, place: str, cards: Sequence[PhysicalCard], *, bottom: bool = False) -> None:
        self.ask("put", place, list(cards), bottom=bottom)

    def move(self, src: str, dst: str, count: int = 1, *, bottom: bool = True) -> list[PhysicalCard]:
        return self.ask("move", src, dst, count, bottom=bottom)

    def move_all(self, src: str, dst: str) -> list[PhysicalCard]:
        return self.ask("move_all", src, dst)

    def atomically(
        self, step: Callable[Concatenate[TableWorld, P], T], *args: P.args, **kwargs: P.kwargs
    ) -> T:
        """``step`` run in the table process under its world's lock: one round trip for the whole
        mechanical action. ``step`` goes by name (a module's function) and its answer by value."""
        return cast(T, self.ask("atomically", step, *args, **kwargs))

    def shuffle(self, place: str, rng: random.Random) -> None:
        """Shuffled here with the device's own generator (its sequence, seeded or not, stays the
        device's), the cards taken out and put back under the table's lock."""
        with self.lock:
            cards = self.take(place, self.count(place))
            rng.shuffle(cards)
            self.put(place, cards, bottom=True)

    def cards(self, place: str) -> list[PhysicalCard]:
        return self.ask("cards", place)

    def count(self, place: str) -> int:
        return self.ask("count", place)

    def top(self, place: str, count: int) -> list[PhysicalCard]:
        return self.ask("top", place, count)

    def faces(self, place: str) -> int:
        return self.ask("faces", place)

    def total(self) -> int:
        return self.ask("total")

    def check(self) -> None:
        raise WorldError("the card count is proven in the table's process, where the world is")


# -- the control channel: the table process asks, the child answers ----------------------------------


class RemoteDevice:
    """A device served by the child, as the table process's fault profile, floor and players reach
    it: the same controls as a SimulatedDevice's (``DEVICE_CONTROLS``), each sent to the child."""

    def __init__(self, name: str, has_door: bool, control: Control) -> None:
        self.name, self.has_door, self._control = name, has_door, control

    def set_faults(self, plan: FaultPlan) -> None:
        self._control.ask(self.name, "set_faults", plan)

    def set_silent(self, silent: bool) -> None:
        self._control.ask(self.name, "set_silent", silent)

    def reboot(self) -> None:
        self._control.ask(self.name, "reboot")

    def set_door(self, is_open: bool) -> None:
        self._control.ask(self.name, "set_door", is_open)

    def call(self, fn: Callable[[DeviceEngine], T]) -> T:
        """``fn(engine)`` run in the child under the device's lock: ``fn`` must pickle (a function
        of a module, or a ``functools.partial`` of one), its result too."""
        if isinstance(fn, types.LambdaType) and fn.__name__ == "<lambda>":
            raise TypeError(f"{self.name}: a lambda cannot be sent to the devices' process")
        return cast(T, self._control.ask(self.name, "call", fn))


class Control:
    """The table process's end of the control channel; one question at a time, from any thread."""

    def __init__(self, channel: Connection) -> None:
        self.channel = channel
        self._lock = threading.Lock()

    def ask(self, device: str, control: str, *args: object) -> object:
        with self._lock:
            self.channel.send((device, control, args))
            ok, value = self.channel.recv()
        if not ok:
            raise value
        return value


@contextlib.contextmanager
def channels() -> Iterator[tuple[tuple[Connection, Connection], tuple[int, int]]]:
    """The world and control channels: the table process's two ends, and the child's two file
    descriptors (inheritable, closed here once the child has them: the caller starts it inside)."""
    world_here, world_there = socket.socketpair()
    control_here, control_there = socket.socketpair()
    theirs = (world_there, control_there)
    for sock in theirs:
        sock.set_inheritable(True)
    ours = (Connection(world_here.detach()), Connection(control_here.detach()))
    try:
        yield ours, (world_there.fileno(), control_there.fileno())
    except BaseException:
        for conn in ours:
            conn.close()
        raise
    finally:
        for sock in theirs:
            sock.close()


# -- what the table process does to a device, as functions that pickle (``DeviceControl.call``) --------


def firmware_image(engine: DeviceEngine) -> bytes:
    """The device's firmware image: the host's approved copy, against which it challenges it."""
    return engine.personality.firmware_image


def tamper_firmware(engine: DeviceEngine) -> None:
    """Someone alters the device's firmware (a fault profile's ``tamper``)."""
    engine.personality.tamper_firmware()


def reinstall_firmware(engine: DeviceEngine) -> None:
    """The approved firmware installed again (the floor's repair of a ``tamper``)."""
    engine.personality.reinstall_firmware()


def reset_key(engine: DeviceEngine) -> str:
    """What the progressive controller's keyed reset switch reads."""
    return str(cast(ControllerPersonality, engine.personality).reset_key)


def cover(seat: int, engine: DeviceEngine) -> None:
    """A player's progressive chip placed on the controller's sensor at ``seat``."""
    cast(ControllerPersonality, engine.personality).cover(engine, seat)


# -- the child ---------------------------------------------------------------------------------------


def die_with_parent(parent: int) -> None:
    """Ask the kernel to end this process when its parent (the table) dies, however it dies (a
    SIGKILL included); if it is already gone, end now. The kernel watches the thread that started
    this process, so the table starts it from the thread its event loop runs on, which lives as
    long as the table."""
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(_PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_PDEATHSIG)")
    if os.getppid() != parent:
        raise SystemExit(0)


def serve_table(world_fd: int, control_fd: int, port_kind: str = "pty") -> None:
    """The child's life: take the devices, serve each behind a ``port_kind`` port, say where, then
    answer the control channel until the table process closes it (or SIGTERM), and stop them all.
    Ctrl-C at the table's terminal is the table's to act on, not the devices'."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, _exit_on_term)
    control = Connection(control_fd)
    world = RemoteWorld(Connection(world_fd))
    devices = {device.name: device for device in unpack_devices(control.recv_bytes(), world)}
    ports: list[Port] = []
    try:
        served = []
        for name, device in devices.items():
            ports.append(serve(port_kind, device))
            image = device.call(firmware_image)
            served.append((name, ports[-1].url, image, device.has_door))
        control.send(served)
        while True:
            try:
                name, what, args = control.recv()
            except (EOFError, OSError):
                return
            control.send(_control(devices, name, what, args))
    finally:
        for port in ports:
            port.stop()


def _control(
    devices: dict[str, SimulatedDevice], name: str, what: str, args: tuple[object, ...]
) -> tuple[bool, object]:
    try:
        if what not in DEVICE_CONTROLS:
            raise ValueError(f"{what!r} is not a device control")
        return True, getattr(devices[name], what)(*args)
    except Exception as exc:  # the table process raises it, where it was asked
        return False, exc


def _exit_on_term(signum: int, frame: object) -> None:
    raise SystemExit(0)
