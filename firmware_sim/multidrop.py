"""Several simulated devices on one RS-485 pair, served by one port as if they were one device.

On a two-wire RS-485 bus every device hears every byte and all of them drive the same pair. The
bus here does the same: bytes from the host reach every member, each member's engine ignores frames
not addressed to it, and all members write to the one sink the port attached. Members must run in
multi-drop mode (``SimulatedDevice(..., multidrop=True)``): they speak only when addressed, so two
never answer at once as long as the host waits for each exchange (drivers/transport/shared.py).

A ``MultidropBus`` has the duck type ports use for a device (``name``, ``start``, ``stop``,
``attach``, ``deliver``), so ``PtyPort(bus)`` puts the whole bus behind one pseudo-terminal. The USB
port does not take one: a USB device is point to point, it has one identity to enumerate with.
"""

from __future__ import annotations

from collections.abc import Iterable

from firmware_sim.device import SimulatedDevice, Sink


class MultidropBus:
    """Members keyed by address; ``bus[address]`` is the member's SimulatedDevice (its ``call``,
    ``set_faults`` and ``set_silent`` act on that device alone)."""

    def __init__(self, members: Iterable[SimulatedDevice], *, name: str = "rs485") -> None:
        self.name = name
        self._members: dict[int, SimulatedDevice] = {}
        for device in members:
            address = device.engine.address
            if not device.engine.multidrop:
                raise ValueError(f"{device.name} is not in multi-drop mode: it would talk out of turn")
            if address in self._members:
                raise ValueError(
                    f"{device.name} and {self._members[address].name} share address {address:#04x}"
                )
            self._members[address] = device
        if not self._members:
            raise ValueError("a bus needs at least one device")

    def __getitem__(self, address: int) -> SimulatedDevice:
        try:
            return self._members[address]
        except KeyError:
            known = ", ".join(f"{a:#04x}" for a in self._members)
            raise KeyError(f"no device at {address:#04x} on {self.name} (devices at {known})") from None

    def start(self) -> None:
        for device in self._members.values():
            device.start()

    def stop(self) -> None:
        for device in self._members.values():
            device.stop()

    def attach(self, sink: Sink | None) -> None:
        """Every member drives the same pair."""
        for device in self._members.values():
            device.attach(sink)

    def deliver(self, data: bytes) -> None:
        """Every member hears every byte."""
        for device in self._members.values():
            device.deliver(data)
