"""A simulated device with its own thread and clock: engine, fault shaping and line pacing.

Ports (pty, TCP, RFC 2217, USB) hand it the host's bytes with ``deliver`` and give it a ``sink`` for
its own; everything that touches the engine runs under one lock, so tests may inspect and inject
from any thread through ``call``.
"""

from __future__ import annotations

import contextlib
import heapq
import itertools
import random
import threading
import time
from collections.abc import Callable
from typing import Protocol, TypeVar

from firmware_sim.engine import DeviceEngine
from firmware_sim.faults import ChannelShaper, FaultPlan
from firmware_sim.personality import Door, Personality

T = TypeVar("T")
Sink = Callable[[bytes], None]

_IN, _OUT = 0, 1
_BITS_PER_BYTE = 10  # start + 8 data + stop


class DeviceControl(Protocol):
    """What a simulated table's fault profile, floor and players do to one of its devices, in this
    process (a SimulatedDevice) or in the devices' own (firmware_sim.remote.RemoteDevice)."""

    name: str

    @property
    def has_door(self) -> bool: ...

    def set_faults(self, plan: FaultPlan) -> None: ...

    def set_silent(self, silent: bool) -> None: ...

    def reboot(self) -> None: ...

    def set_door(self, is_open: bool) -> None: ...

    def call(self, fn: Callable[[DeviceEngine], T]) -> T: ...


class SimulatedDevice:
    """One simulated device; start() before use, stop() to end its thread."""

    def __init__(
        self,
        personality: Personality,
        *,
        address: int = 0x01,
        faults: FaultPlan | None = None,
        seed: int | None = None,
        name: str | None = None,
        multidrop: bool = False,
    ) -> None:
        rng = random.Random(seed) if seed is not None else random.SystemRandom()
        engine = DeviceEngine(
            personality, address=address, multidrop=multidrop, rng=rng, now=time.monotonic()
        )
        name = name or f"{personality.device_class.name.lower()}@{address}"
        self._setup(engine, faults or FaultPlan(), name, rng)

    def _setup(self, engine: DeviceEngine, faults: FaultPlan, name: str, rng: random.Random) -> None:
        self.name = name
        self._rng = rng
        self.faults = faults
        self._shape(faults)
        self.engine = engine
        self._cond = threading.Condition()
        self._heap: list[tuple[float, int, int, bytes]] = []
        self._order = itertools.count()
        self._sink: Sink | None = None
        self._line_free_at = 0.0
        # When the device thread wakes of itself (None: only when notified); read under the lock.
        self._wakes_at: float | None = None
        self._running = False
        self._thread: threading.Thread | None = None

    def __reduce__(self) -> tuple[Callable[..., SimulatedDevice], tuple[object, ...]]:
        """A device not yet started goes to another process (firmware_sim.remote) as its engine,
        faults, name and generator: its thread, schedule and sink are made where it runs."""
        if self._running:
            raise TypeError(f"{self.name}: a running device cannot be sent to another process")
        return _revived, (self.engine, self.faults, self.name, self._rng)

    # -- lifecycle --------------------------------------------------------------------------
    def start(self) -> None:
        with self._cond:
            if self._running:
                return
            self._running = True
        self._thread = threading.Thread(target=self._run, name=f"sim-{self.name}", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        with self._cond:
            self._running = False
            self._cond.notify()
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None

    # -- port side --------------------------------------------------------------------------
    def attach(self, sink: Sink | None) -> None:
        """Where the device's bytes go; None while unplugged (they are lost, as on a real wire)."""
        with self._cond:
            self._sink = sink
            if sink is None:
                self._heap = [item for item in self._heap if item[2] != _OUT]
                heapq.heapify(self._heap)

    def deliver(self, data: bytes) -> None:
        """Bytes from the host, from any thread.

        With nothing scheduled and no delay injected, the bytes are handled and the answer sent
        on the caller's thread, as a device's UART interrupt would: a hand-off to the device thread
        would add a thread wake-up to every round trip. Anything timed goes through the schedule,
        and only then is the device thread woken.
        """
        now = time.monotonic()
        with self._cond:
            if self.faults.silent:
                return
            if not self._heap and self._clean_line():  # the common case: nothing to delay or order behind
                self.engine.receive(data, now)
                out = self.engine.data_to_send()
                if out and self._sink is not None:
                    self._send_all([(self._sink, out)])
                self._wake_for(self.engine.next_deadline())
                return
            timers_before = (len(self._heap), self.engine.next_deadline())
            for delay, piece in self._inbound.shape(data):
                if delay or self._heap:
                    heapq.heappush(self._heap, (now + delay, next(self._order), _IN, piece))
                else:
                    self.engine.receive(piece, now)
            self._schedule_output(now)
            sends: list[tuple[Sink, bytes]] = []
            while self._heap and self._heap[0][0] <= now and self._heap[0][2] == _OUT:
                piece = heapq.heappop(self._heap)[3]
                if self._sink is not None:
                    sends.append((self._sink, piece))
            self._send_all(sends)
            if (len(self._heap), self.engine.next_deadline()) != timers_before:
                self._cond.notify()

    def _wake_for(self, deadline: float | None) -> None:
        """Wake the device thread only if ``deadline`` comes before it would wake of itself: each
        event sent and each acknowledged moves the deadline, and a thread woken for a later one only
        went back to sleep, some seven times a Crazy 4 Poker round (decision 0048, amended). A later
        deadline is met when the thread wakes at its own and looks again."""
        if deadline is not None and (self._wakes_at is None or deadline < self._wakes_at):
            self._cond.notify()

    def _clean_line(self) -> bool:
        """No fault shaping either direction and no pacing: an answer goes out as it is made."""
        return not self.faults.pace_baud and self._inbound.clean and self._outbound.clean

    # -- test and console API -------------------------------------------------------------
    def call(self, fn: Callable[[DeviceEngine], T]) -> T:
        """Run ``fn(engine)`` under the device lock and wake the device to send what it queued."""
        with self._cond:
            result = fn(self.engine)
            self._cond.notify()
            return result

    def reboot(self) -> None:
        """Power cycle: the host sees a new boot id and must handshake again."""
        self.call(lambda engine: engine.reboot(time.monotonic()))

    @property
    def has_door(self) -> bool:
        """Whether the device has a door or lid to open (the shoe's loading gate, the shuffler's lid)."""
        return isinstance(self.engine.personality, Door)

    def set_door(self, is_open: bool) -> None:
        """Someone opens or closes the device's door: it sends DoorChanged, and latches DOOR_OPEN as it
        opens (docs/protocol.md §7). A device without one raises ValueError naming it."""
        personality = self.engine.personality
        if not isinstance(personality, Door):
            raise ValueError(f"the {type(personality).__name__} has no door or lid")
        self.call(lambda engine: (personality.open_door if is_open else personality.close_door)(engine))

    def set_faults(self, plan: FaultPlan) -> None:
        """Arm a new fault plan on a running device (the console and tests use this)."""
        with self._cond:
            self._shape(plan)
            self._cond.notify()

    def _shape(self, plan: FaultPlan) -> None:
        self.faults = plan
        self._inbound = ChannelShaper(plan.inbound, self._rng)
        self._outbound = ChannelShaper(plan.outbound, self._rng)

    def set_silent(self, silent: bool) -> None:
        with self._cond:
            self.faults.silent = silent

    # -- the device thread -------------------------------------------------------------------
    def _run(self) -> None:
        with self._cond:
            while self._running:
                now = time.monotonic()
                sends: list[tuple[Sink, bytes]] = []
                while self._heap and self._heap[0][0] <= now:
                    _, _, direction, data = heapq.heappop(self._heap)
                    if direction == _IN:
                        self.engine.receive(data, now)
                    elif self._sink is not None:
                        sends.append((self._sink, data))
                self.engine.tick(now)
                self._schedule_output(now)
                if sends:
                    # Written under the lock, so pieces of one frame never reorder with bytes
                    # that deliver() sends from another thread.
                    self._send_all(sends)
                    continue
                deadlines = [self._heap[0][0]] if self._heap else []
                engine_deadline = self.engine.next_deadline()
                if engine_deadline is not None:
                    deadlines.append(engine_deadline)
                self._wakes_at = min(deadlines) if deadlines else None
                self._cond.wait(max(0.0, self._wakes_at - now) if self._wakes_at is not None else None)

    @staticmethod
    def _send_all(sends: list[tuple[Sink, bytes]]) -> None:
        for sink, data in sends:
            # The port may go away mid-write: the bytes are lost, as on a real wire.
            with contextlib.suppress(OSError):
                sink(data)

    def _schedule_output(self, now: float) -> None:
        out = self.engine.data_to_send()
        if not out or self.faults.silent:
            return
        for delay, piece in self._outbound.shape(out):
            due = now + delay
            if self.faults.pace_baud:
                due = max(due, self._line_free_at)
                self._line_free_at = due + len(piece) * _BITS_PER_BYTE / self.faults.pace_baud
                due = self._line_free_at
            heapq.heappush(self._heap, (due, next(self._order), _OUT, piece))


def _revived(engine: DeviceEngine, faults: FaultPlan, name: str, rng: random.Random) -> SimulatedDevice:
    """A device as ``SimulatedDevice.__reduce__`` sent it."""
    device = SimulatedDevice.__new__(SimulatedDevice)
    device._setup(engine, faults, name, rng)
    return device
