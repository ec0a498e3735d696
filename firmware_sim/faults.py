"""Fault injection on the simulated wire, from a test API or from configuration.

Each direction has its own rules: one-shot counts (``drop_next=1``: lose the next write) for tests
that need an exact fault at an exact step, and rates for soak runs. Counts are taken before rates.
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Mapping
from dataclasses import dataclass, field


@dataclass
class ChannelFaults:
    """Faults applied to the writes of one direction (a write = one chunk handed to the wire)."""

    drop_next: int = 0
    corrupt_next: int = 0
    duplicate_next: int = 0
    drop_rate: float = 0.0
    corrupt_rate: float = 0.0
    duplicate_rate: float = 0.0
    delay: float = 0.0  # seconds added before each write reaches the other side
    split_size: int = 0  # deliver writes in pieces of this many bytes (0: whole)
    split_gap: float = 0.0  # seconds between the pieces
    merge: bool = False  # hold each write and deliver it with the next one

    def __post_init__(self) -> None:
        for name in ("drop_rate", "corrupt_rate", "duplicate_rate"):
            value = getattr(self, name)
            if not 0.0 <= value <= 1.0:
                raise ValueError(f"{name} must be between 0 and 1, got {value}")
        for name in ("drop_next", "corrupt_next", "duplicate_next", "split_size"):
            if getattr(self, name) < 0:
                raise ValueError(f"{name} must not be negative")
        if self.delay < 0 or self.split_gap < 0:
            raise ValueError("delay and split_gap must not be negative")


@dataclass
class FaultPlan:
    """Everything that can go wrong between host and simulated device."""

    inbound: ChannelFaults = field(default_factory=ChannelFaults)  # host -> device
    outbound: ChannelFaults = field(default_factory=ChannelFaults)  # device -> host
    silent: bool = False  # the device hears nothing and says nothing (a hung CPU)
    pace_baud: int = 0  # deliver device output no faster than this line rate (0: unpaced)

    @classmethod
    def from_mapping(cls, data: Mapping[str, object], where: str = "faults") -> FaultPlan:
        """Build from a config table; an unknown key or bad value raises ValueError naming it."""
        known = {f.name for f in dataclasses.fields(cls)}
        unknown = set(data) - known
        if unknown:
            raise ValueError(f"{where}: unknown key(s) {sorted(unknown)}; known: {sorted(known)}")
        kwargs: dict[str, object] = {}
        for key, value in data.items():
            if key in ("inbound", "outbound"):
                if not isinstance(value, Mapping):
                    raise ValueError(f"{where}.{key} must be a table")
                channel_keys = {f.name for f in dataclasses.fields(ChannelFaults)}
                bad = set(value) - channel_keys
                if bad:
                    raise ValueError(
                        f"{where}.{key}: unknown key(s) {sorted(bad)}; known: {sorted(channel_keys)}"
                    )
                try:
                    kwargs[key] = ChannelFaults(**value)
                except (TypeError, ValueError) as exc:
                    raise ValueError(f"{where}.{key}: {exc}") from None
            else:
                kwargs[key] = value
        if not isinstance(kwargs.get("silent", False), bool):
            raise ValueError(f"{where}.silent must be true or false")
        pace = kwargs.get("pace_baud", 0)
        if not isinstance(pace, int) or isinstance(pace, bool) or pace < 0:
            raise ValueError(f"{where}.pace_baud must be a non-negative integer")
        return cls(**kwargs)  # type: ignore[arg-type]


class ChannelShaper:
    """Turns one write into the timed pieces the other side receives, per ChannelFaults."""

    def __init__(self, faults: ChannelFaults, rng: random.Random) -> None:
        self.faults = faults
        self._rng = rng
        self._held = b""

    @property
    def clean(self) -> bool:
        """No fault on this channel: every write passes whole and at once. Looked at on every write,
        as a test or the console may arm a fault in place; the fields compared as one dict, the
        cheapest of the exact comparisons."""
        return vars(self.faults) == _NO_FAULTS

    def _take(self, count_name: str, rate: float) -> bool:
        count = getattr(self.faults, count_name)
        if count:
            setattr(self.faults, count_name, count - 1)
            return True
        return rate > 0 and self._rng.random() < rate

    def shape(self, data: bytes) -> list[tuple[float, bytes]]:
        """(delay from now, bytes) pieces for one write; empty when the write is lost."""
        f = self.faults
        if self.clean:
            return [(0.0, data)] if data else []
        if not data or self._take("drop_next", f.drop_rate):
            return []
        if self._take("corrupt_next", f.corrupt_rate):
            index = self._rng.randrange(len(data))
            data = data[:index] + bytes((data[index] ^ (1 << self._rng.randrange(8)),)) + data[index + 1 :]
        if self._take("duplicate_next", f.duplicate_rate):
            data = data + data
        if f.merge:
            if not self._held:
                self._held = data
                return []
            data, self._held = self._held + data, b""
        if f.split_size:
            pieces = [data[i : i + f.split_size] for i in range(0, len(data), f.split_size)]
            return [(f.delay + n * f.split_gap, piece) for n, piece in enumerate(pieces)]
        return [(f.delay, data)]


_NO_FAULTS = vars(ChannelFaults())
