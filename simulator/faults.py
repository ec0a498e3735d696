"""Fault profiles for ``croupier sim --faults``: what goes wrong, at random or on a script, so a
developer can watch the rules react (docs/sim.md).

A profile is TOML. A file of FaultPlan keys alone (config/faults/lossy-line.toml) applies to every
device's wire. Otherwise ``[devices.NAME]`` holds one device's FaultPlan, each ``[[script]]``
entry strikes at the start of a round: ``{round = 3, fault = "jam", device = "shoe"}``, and ``rate``
(with ``seed``, and ``kinds`` to choose among) strikes at random: each round, with that chance, one
kind drawn from the profile's own seeded generator, so a run with the same profile replays exactly.

The dealer's faults (``miscount``, ``foreign-card``) use the simulated dealer's own slips
(simulator.dealer), the same the table tests prove the table survives: a card that falls to the
floor, a card that does not belong. They strike only where the table has a rule for them.
"""

from __future__ import annotations

import asyncio
import random
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from croupier.errors import ConfigError
from croupier.tables.events import HeardRound, RoundListener
from firmware_sim import remote
from firmware_sim.faults import ChannelFaults, FaultPlan
from firmware_sim.world import SHOE, SHUFFLER_INPUT
from simulator.games.registry import simulation
from vocabulary.cards import Card

#: The scripted faults, and what each does to the simulated table.
SCRIPTED = {
    "unplug": "the device hears and says nothing for `seconds` (default 1.0), then comes back",
    "reboot": "the device restarts, as after a power blip",
    "corrupt": "the device's next frame reaches the host with one bit flipped",
    "drop": "the host's next frame to the device is lost",
    "jam": "the device's card path jams (the shoe, or the shuffler's input) until the floor clears it",
    "door": "someone opens the device's door or lid (the shoe's loading gate, the shuffler's lid) for "
    "`seconds` (default 1.0): an access record, and DOOR_OPEN latched until the floor clears it closed",
    "miscount": "a card falls to the floor: from the stub as it is next counted (at = 'stub', Hold 'Em "
    "and Crazy 4 Poker: a wrong stub count, 677a.10(f), 657a.9(f)) or at the pickup (at = 'pickup': "
    "the rack count is short, the round holds for a supervisor)",
    "foreign-card": "a card that does not belong: into the next batch (Crazy 4 Poker, Hold 'Em: the shuffler "
    "latches FOREIGN_CARD and WRONG_COUNT, 603a.15) or, at Free Bet Blackjack and Over/Under, a joker "
    "into the shoe (the round holds for a supervisor)",
    "tamper": "the device's firmware image is altered while it goes on reporting the approved hash; its "
    "authenticity check is brought forward, fails the challenge and latches FIRMWARE_UNVERIFIED "
    "(461a.20(b)) until the floor reinstalls the firmware, verifies it and clears",
}
#: Other names a profile may use.
ALIASES = {"extra-card": "foreign-card"}
#: The faults of a device's wire, which may also strike as a round ends: between rounds, where the
#: shoe is changed, a batch shuffled and delivered (docs/sim.md).
WIRE_FAULTS = ("unplug", "reboot", "corrupt", "drop")
#: The faults of the dealer's hands, not of a device's wire: no ``device`` to name.
DEALER_FAULTS = ("miscount", "foreign-card")
MISCOUNT_AT = ("stub", "pickup")
#: The face of the card slipped into a batch, and of the joker slipped into a shoe.
FOREIGN_FACE, JOKER = Card.parse("Ah"), Card.parse("Xr")


@dataclass(frozen=True)
class Strike:
    """One scripted fault: at the start of ``round``, ``fault`` on ``device``."""

    round: int
    fault: str
    device: str
    seconds: float = 1.0
    at: str = ""  # miscount: "stub" or "pickup" ("": the stub where the game counts one); a wire fault: "end"


@dataclass
class FaultProfile:
    """A parsed profile: wire plans by device, the script, and the random mode's chance per round
    (0: none), its seed and the kinds it draws among."""

    plans: dict[str, FaultPlan] = field(default_factory=dict)  # by device; "*" for every device
    script: list[Strike] = field(default_factory=list)
    rate: float = 0.0
    seed: int = 0
    kinds: tuple[str, ...] = tuple(SCRIPTED)

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
    def from_mapping(cls, data: Mapping[str, Any], where: str) -> FaultProfile:  # Any: TOML values
        known = {"devices", "script", "rate", "seed", "kinds"}
        if not set(data) & known:
            return cls(plans={"*": FaultPlan.from_mapping(data, where)})
        unknown = set(data) - known
        if unknown:
            raise ValueError(f"{where}: unknown key(s) {sorted(unknown)}; known: {sorted(known)}")
        plans = {
            name: FaultPlan.from_mapping(plan, f"{where}: devices.{name}")
            for name, plan in dict(data.get("devices", {})).items()
        }
        script = [_strike(entry, f"{where}: script[{n}]") for n, entry in enumerate(data.get("script", []))]
        rate = data.get("rate", 0.0)
        if not isinstance(rate, int | float) or not 0 <= rate <= 1:
            raise ValueError(f"{where}: rate must be a chance per round from 0 to 1, e.g. 0.05")
        seed = data.get("seed", 0)
        if not isinstance(seed, int):
            raise ValueError(f"{where}: seed must be a whole number")
        kinds = tuple(ALIASES.get(kind, kind) for kind in data.get("kinds", SCRIPTED))
        if not kinds or set(kinds) - set(SCRIPTED):
            raise ValueError(f"{where}: kinds {list(kinds)}; known: {', '.join(SCRIPTED)}")
        return cls(plans=plans, script=script, rate=float(rate), seed=seed, kinds=kinds)

    def check(self, devices: Mapping[str, Any]) -> None:  # Any: any device
        """Every device the profile names is one of this table's, said before a round is played."""
        named = {name for name in self.plans if name != "*"}
        named |= {strike.device for strike in self.script if strike.fault not in DEALER_FAULTS}
        missing = sorted(named - set(devices))
        if missing:
            raise ConfigError(f"fault profile names {missing}; this table's devices: {sorted(devices)}")
        doorless = sorted(
            {s.device for s in self.script if s.fault == "door" and not devices[s.device].has_door}
        )
        if doorless:
            with_doors = sorted(name for name, device in devices.items() if device.has_door)
            raise ConfigError(
                f"fault profile opens the door of {doorless}, which have none; doors: {with_doors}"
            )


def _strike(entry: Mapping[str, Any], at: str) -> Strike:  # Any: TOML values
    """One ``[[script]]`` entry, checked; ``at`` names it in an error."""
    fault = ALIASES.get(entry.get("fault", ""), entry.get("fault"))
    if fault not in SCRIPTED:
        raise ValueError(f"{at}: fault {entry.get('fault')!r}; known: {', '.join([*SCRIPTED, *ALIASES])}")
    if not isinstance(entry.get("round"), int) or entry["round"] < 1:
        raise ValueError(f"{at}: round must be a round number from 1")
    bad = set(entry) - {"round", "fault", "device", "seconds", "at"}
    if bad:
        raise ValueError(f"{at}: unknown key(s) {sorted(bad)}")
    where = entry.get("at", "")
    allowed = MISCOUNT_AT if fault == "miscount" else ("end",) if fault in WIRE_FAULTS else ()
    if where and where not in allowed:
        raise ValueError(
            f"{at}: at = {where!r}: a miscount takes at = {' or '.join(MISCOUNT_AT)}, "
            f"a wire fault ({', '.join(WIRE_FAULTS)}) at = 'end'"
        )
    default = "shoe" if fault == "jam" else "dealer" if fault in DEALER_FAULTS else "shuffler"
    device = entry.get("device", default)
    return Strike(entry["round"], fault, device, float(entry.get("seconds", 1.0)), where)


class FaultScript(RoundListener):
    """A table listener that applies the profile: the plans when the table is up, each strike as
    its round begins, and in random mode a drawn strike with the profile's chance. ``world``,
    ``dealer`` and ``devices`` are the SimulatedTable's; ``game`` says which dealer's faults apply."""

    def __init__(
        self, profile: FaultProfile, sim: Any, game: str = ""  # Any: a simulated table of any game
    ) -> None:
        self.profile, self.sim, self.game = profile, sim, game
        self.rng = random.Random(profile.seed)
        self.struck: list[Strike] = []
        for name, device in sim.devices.items():
            plan = profile.plans.get(name) or profile.plans.get("*")
            if plan is not None:
                device.set_faults(plan)

    def round_began(self, round_: HeardRound) -> None:
        for strike in self.profile.script:
            if strike.round == round_.number and strike.at != "end":
                self._strike(strike)
        if self.profile.rate:
            drawn = self.rng.random()  # drawn every round, so one round's outcome never shifts the next's
            kind, device = self.rng.choice(self.profile.kinds), self.rng.choice(sorted(self.sim.devices))
            if drawn < self.profile.rate:  # a jam strikes the shoe where one deals, else the shuffler
                if kind in ("jam", "door"):
                    device = SHOE if SHOE in self.sim.devices else "shuffler"
                elif kind in DEALER_FAULTS:
                    device = "dealer"
                self._strike(Strike(round_.number, kind, device))

    def round_ended(self, round_: HeardRound) -> None:
        """A wire fault as the round ends, before the shoe change, shuffle or delivery between rounds:
        a scripted ``at = "end"``, and in random mode a second draw, striking a wire fault only."""
        for strike in self.profile.script:
            if strike.round == round_.number and strike.at == "end":
                self._strike(strike)
        if self.profile.rate:
            drawn = self.rng.random()
            kind, device = self.rng.choice(self.profile.kinds), self.rng.choice(sorted(self.sim.devices))
            if drawn < self.profile.rate and kind in WIRE_FAULTS:
                self._strike(Strike(round_.number, kind, device, at="end"))

    def _strike(self, strike: Strike) -> None:
        world, dealer = self.sim.world, self.sim.dealer
        self.struck.append(strike)
        if strike.fault == "miscount":
            stub = strike.at == "stub" or (not strike.at and simulation(self.game).counts_stub)
            if stub:
                dealer.drop_from_stub = True  # falls when the stub is next counted
            else:
                dealer.drop_next_pickup = True
            return
        if strike.fault == "foreign-card":
            if simulation(self.game).joker_in_shoe:
                back = world.cards(SHOE)[0].back if world.count(SHOE) else "red"
                dealer.slip_foreign_card(JOKER, SHOE, back=back, at=min(2, world.count(SHOE)))
            else:
                dealer.slip_foreign_card(FOREIGN_FACE)
            return
        device = self.sim.devices[strike.device]
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
            case "door":
                device.set_door(True)
                asyncio.get_running_loop().call_later(strike.seconds, device.set_door, False)
            case "jam":
                with world.lock:
                    world.faults.stuck.add(SHOE if strike.device == "shoe" else SHUFFLER_INPUT)
            case "tamper":
                device.call(remote.tamper_firmware)
                self.sim.connections[strike.device].check_due = 0.0  # due now: checked at the next poll

    def injected(self) -> dict[str, int]:
        """The faults struck, by kind: the summary's ``injected``."""
        counts: dict[str, int] = {}
        for strike in self.struck:
            counts[strike.fault] = counts.get(strike.fault, 0) + 1
        return dict(sorted(counts.items()))
