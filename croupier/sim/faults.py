"""Fault profiles for ``croupier sim --faults``: what goes wrong, at random or on a script, so a
developer can watch the rules react (docs/sim.md).

A profile is TOML. A file of FaultPlan keys alone (config/faults/lossy-line.toml) applies to every
device's wire. Otherwise ``[devices.NAME]`` holds one device's FaultPlan, and each ``[[script]]``
entry strikes at the start of a round: ``{round = 3, fault = "jam", device = "shoe"}``.
"""

from __future__ import annotations

import asyncio
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from croupier.errors import ConfigError
from firmware_sim.faults import ChannelFaults, FaultPlan
from firmware_sim.world import SHOE, SHUFFLER_INPUT

#: The scripted faults, and what each does to the simulated table.
SCRIPTED = {
    "unplug": "the device hears and says nothing for `seconds` (default 1.0), then comes back",
    "reboot": "the device restarts, as after a power blip",
    "corrupt": "the device's next frame reaches the host with one bit flipped",
    "drop": "the host's next frame to the device is lost",
    "jam": "the device's card path jams (the shoe, or the shuffler's input) until the floor clears it",
}


@dataclass(frozen=True)
class Strike:
    """One scripted fault: at the start of ``round``, ``fault`` on ``device``."""

    round: int
    fault: str
    device: str
    seconds: float = 1.0


@dataclass
class FaultProfile:
    plans: dict[str, FaultPlan] = field(default_factory=dict)  # by device; "*" for every device
    script: list[Strike] = field(default_factory=list)

    @classmethod
    def load(cls, path: Path) -> FaultProfile:
        """Read a profile; any mistake is a ConfigError naming the file and the key."""
        try:
            data = tomllib.loads(path.read_text())
        except (OSError, tomllib.TOMLDecodeError) as exc:
            raise ConfigError(f"{path}: {exc}") from None
        try:
            return cls.from_mapping(data, str(path))
        except ValueError as exc:
            raise ConfigError(str(exc)) from None

    @classmethod
    def from_mapping(cls, data: Mapping[str, Any], where: str) -> FaultProfile:
        if not set(data) & {"devices", "script"}:
            return cls(plans={"*": FaultPlan.from_mapping(data, where)})
        unknown = set(data) - {"devices", "script"}
        if unknown:
            raise ValueError(f"{where}: unknown key(s) {sorted(unknown)}; known: ['devices', 'script']")
        plans = {
            name: FaultPlan.from_mapping(plan, f"{where}: devices.{name}")
            for name, plan in dict(data.get("devices", {})).items()
        }
        script = []
        for n, entry in enumerate(data.get("script", [])):
            at = f"{where}: script[{n}]"
            if entry.get("fault") not in SCRIPTED:
                raise ValueError(f"{at}: fault {entry.get('fault')!r}; known: {', '.join(SCRIPTED)}")
            if not isinstance(entry.get("round"), int) or entry["round"] < 1:
                raise ValueError(f"{at}: round must be a round number from 1")
            bad = set(entry) - {"round", "fault", "device", "seconds"}
            if bad:
                raise ValueError(f"{at}: unknown key(s) {sorted(bad)}")
            device = entry.get("device", "shoe" if entry["fault"] == "jam" else "shuffler")
            script.append(Strike(entry["round"], entry["fault"], device, float(entry.get("seconds", 1.0))))
        return cls(plans=plans, script=script)

    def check(self, devices: Mapping[str, Any]) -> None:
        """Every device the profile names is one of this table's, said before a round is played."""
        named = {name for name in self.plans if name != "*"} | {strike.device for strike in self.script}
        missing = sorted(named - set(devices))
        if missing:
            raise ConfigError(f"fault profile names {missing}; this table's devices: {sorted(devices)}")


class FaultScript:
    """A round watcher that applies the profile: the plans when the table is up, each strike as
    its round begins. ``world`` and ``devices`` are the SimulatedTable's."""

    def __init__(self, profile: FaultProfile, sim: Any) -> None:
        self.profile, self.sim = profile, sim
        self.struck: list[Strike] = []
        for name, device in sim.devices.items():
            plan = profile.plans.get(name) or profile.plans.get("*")
            if plan is not None:
                device.set_faults(plan)

    def round_began(self, round_: Any) -> None:
        for strike in self.profile.script:
            if strike.round == round_.number:
                self._strike(strike)

    def record(self, record: Any) -> None:
        pass

    def round_ended(self, round_: Any) -> None:
        pass

    def _strike(self, strike: Strike) -> None:
        device, world = self.sim.devices[strike.device], self.sim.world
        self.struck.append(strike)
        match strike.fault:
            case "unplug":
                device.set_silent(True)
                asyncio.get_running_loop().call_later(strike.seconds, device.set_silent, False)
            case "reboot":
                device.reboot()
            case "corrupt":
                device.set_faults(FaultPlan(outbound=ChannelFaults(corrupt_next=1)))
            case "drop":
                device.set_faults(FaultPlan(inbound=ChannelFaults(drop_next=1)))
            case "jam":
                with world.lock:
                    world.faults.stuck.add(SHOE if strike.device == "shoe" else SHUFFLER_INPUT)

    def repair(self) -> None:
        """What the floor person's hands do before clearing: free a jammed card path."""
        with self.sim.world.lock:
            self.sim.world.faults.stuck.clear()
