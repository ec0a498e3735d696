"""The interactive console of ``croupier firmware``: what a technician does to a device on the bench.

Other software talks to the served device over its port; the console stands for everything that
happens around it: a noisy wire, a cable pulled, a card that sticks, a dealer moving cards. It reads
stdin line by line (stdlib ``cmd``), so it works from a terminal and from a pipe alike (the tests
drive it that way). Every answer is one or more lines on stdout; a refusal starts with ``error:`` and
says what was expected, so a script can tell a typo from an effect.
"""

from __future__ import annotations

import cmd
import dataclasses
import inspect
import random
import sys
from typing import IO

from drivers.protocol.core import FaultCode
from firmware_sim.device import SimulatedDevice
from firmware_sim.engine import DeviceEngine
from firmware_sim.faults import ChannelFaults, FaultPlan
from firmware_sim.ports import Port
from firmware_sim.world import (
    DEALER_HAND,
    READER,
    SHOE,
    SHOE_TRAY,
    SHUFFLER_INPUT,
    SHUFFLER_OUTPUT,
    TableWorld,
    WorldError,
    seat,
)
from vocabulary.cards import standard_deck

#: Where each device takes its cards from: a batch is loaded there, a foreign card slipped in there,
#: and ``jam`` makes its next card stick there. Devices without cards are absent.
INPUT_PLACE: dict[str, str] = {"shoe": SHOE, "shuffler": SHUFFLER_INPUT, "card-reader": DEALER_HAND}

#: Devices whose mechanism can jam (the card reader only reads what is slid in: nothing to stick).
JAMMABLE = ("shoe", "shuffler")

#: ``deal``: the dealer's next physical step at each device, from where to where.
DEAL_STEP: dict[str, tuple[str, str]] = {
    "shoe": (SHOE_TRAY, seat(1)),  # the card the shoe dispensed goes to the first seat
    "shuffler": (SHUFFLER_OUTPUT, SHOE),  # a shuffled batch carried to the shoe by hand
    "card-reader": (DEALER_HAND, READER),  # the hole card slid into the reader
}

_FAULT_KINDS = ("drop", "corrupt", "duplicate", "delay")
_DIRECTIONS = {"to-host": "outbound", "to-device": "inbound"}
_BACKS = ("green", "yellow", "purple", "black")  # backs of the batches the console loads


class ConsoleError(ValueError):
    """A command the console cannot carry out; the message says what was expected."""


class FirmwareConsole(cmd.Cmd):
    """Commands against one served device, its port and the table world it lives in."""

    intro = "console ready: type help for the commands, quit to stop the device"

    def __init__(
        self,
        kind: str,
        device: SimulatedDevice,
        port: Port,
        world: TableWorld,
        *,
        stdin: IO[str] | None = None,
        stdout: IO[str] | None = None,
        rng: random.Random | None = None,
    ) -> None:
        stdin = stdin or sys.stdin
        super().__init__(stdin=stdin, stdout=stdout or sys.stdout)
        # input() only echoes a prompt usefully on a terminal; from a pipe a prompt would be glued
        # to the front of every answer a script reads.
        self.use_rawinput = stdin is sys.stdin and stdin.isatty()
        self.prompt = f"{kind}> " if stdin.isatty() else ""
        self.kind = kind
        self.device = device
        self.port = port
        self.world = world
        self.plugged = True
        self._rng = rng or random.Random()
        self._batches = 0

    # -- plumbing --------------------------------------------------------------------------------
    def say(self, text: str) -> None:
        self.stdout.write(text + "\n")
        self.stdout.flush()

    def onecmd(self, line: str) -> bool:
        """Run one command; a ConsoleError or WorldError is an answer, never the end of the console."""
        try:
            return bool(super().onecmd(line))
        except (ConsoleError, WorldError) as exc:
            self.say(f"error: {exc}")
            return False

    def emptyline(self) -> bool:
        return False  # not the cmd default of repeating the last command: it could move cards twice

    def default(self, line: str) -> None:
        word = line.split()[0]
        raise ConsoleError(f"unknown command {word!r}; commands: {', '.join(self.commands())}")

    def commands(self) -> list[str]:
        return sorted(
            name[3:].replace("_", "-") for name in dir(self) if name.startswith("do_") and name != "do_EOF"
        )

    def do_help(self, arg: str) -> None:
        """help [COMMAND]: the commands, or what one of them does."""
        if arg:
            method = getattr(self, f"do_{arg.replace('-', '_')}", None)
            if method is None or arg == "EOF":
                raise ConsoleError(f"no command {arg!r}; commands: {', '.join(self.commands())}")
            self.say(inspect.cleandoc(method.__doc__ or arg))
            return
        for name in self.commands():
            self.say((getattr(self, f"do_{name.replace('-', '_')}").__doc__ or name).strip().splitlines()[0])

    # -- the device ------------------------------------------------------------------------------
    def do_status(self, arg: str) -> None:
        """status: link, boot id, latched faults, wire faults and cards of the device."""
        self._no_args("status", arg)

        def read(engine: DeviceEngine) -> tuple[int, dict[FaultCode, str], int, int]:
            return engine.boot_id, dict(engine.latched), engine.pending_events, engine.executions

        boot_id, latched, pending, executions = self.device.call(read)
        faults = self.device.faults
        link = "plugged" if self.plugged else "unplugged"
        silent = ", silent" if faults.silent else ""
        self.say(f"device: {self.device.name} at {self.port.url} ({link}{silent})")
        self.say(f"boot id: {boot_id:#010x}, commands executed: {executions}, events pending: {pending}")
        if latched:
            self.say("latched: " + "; ".join(f"{code.name} ({detail})" for code, detail in latched.items()))
        else:
            self.say("latched: none")
        self.say(f"wire: {_describe_wire(faults)}")
        if self.kind in JAMMABLE:
            jammed = INPUT_PLACE[self.kind] in self.world.faults.stuck
            self.say(f"jam: {'on' if jammed else 'off'}")
        if self.kind in INPUT_PLACE:
            self.say(f"cards: {_describe_places(self.world) or 'none on the table'}")

    def do_fault(self, arg: str) -> None:
        """fault drop|corrupt|duplicate|delay|clear ...: spoil the wire (help fault for the forms).

        fault drop|corrupt|duplicate [to-host|to-device] [N|RATE]: spoil the next N writes
        (default 1), or each write with probability RATE (0.0-1.0, written with a point);
        fault delay [to-host|to-device] SECONDS: hold every write that long;
        fault clear: a clean wire again. The direction defaults to to-host (the device's answers).
        """
        words = arg.split()
        if not words:
            raise ConsoleError(f"fault needs a kind: {'|'.join(_FAULT_KINDS)} or clear")
        kind, rest = words[0], words[1:]
        if kind == "clear":
            self._no_args("fault clear", " ".join(rest))
            plan = self.device.faults
            self.device.set_faults(FaultPlan(silent=plan.silent, pace_baud=plan.pace_baud))
            self.say("wire clean")
            return
        if kind not in _FAULT_KINDS:
            raise ConsoleError(f"unknown fault {kind!r}; expected {'|'.join(_FAULT_KINDS)} or clear")
        direction = "to-host"
        if rest and rest[0] in _DIRECTIONS:
            direction, rest = rest[0], rest[1:]
        if len(rest) > 1:
            got = " ".join(rest)
            raise ConsoleError(f"fault {kind}: expected [to-host|to-device] and one value, got {got!r}")
        value = rest[0] if rest else None
        if kind == "delay":
            if value is None:
                raise ConsoleError("fault delay: expected [to-host|to-device] SECONDS")
            change = {"delay": _float(value, "fault delay: expected SECONDS")}
            done = f"every write {direction} delayed {change['delay']} s"
        elif value is not None and "." in value:
            change = {f"{kind}_rate": _float(value, f"fault {kind}: expected a RATE between 0.0 and 1.0")}
            done = f"{kind} each write {direction} with probability {value}"
        else:
            count = 1 if value is None else _int(value, f"fault {kind}: expected a count N >= 1 or a RATE")
            if count < 1:
                raise ConsoleError(f"fault {kind}: a count N >= 1 or a RATE, got {value}")
            change = {f"{kind}_next": count}
            done = f"{kind} the next {count} write(s) {direction}"
        plan = self.device.faults
        field = _DIRECTIONS[direction]
        try:
            channel = dataclasses.replace(getattr(plan, field), **change)
        except ValueError as exc:
            raise ConsoleError(f"fault {kind}: {exc}") from None
        self.device.set_faults(dataclasses.replace(plan, **{field: channel}))
        self.say(done)

    def do_silent(self, arg: str) -> None:
        """silent on|off: the device hears nothing and says nothing (a hung CPU), or recovers."""
        silent = self._on_off("silent", arg)
        self.device.set_silent(silent)
        self.say(f"silent {'on: the device ignores the wire' if silent else 'off'}")

    def do_unplug(self, arg: str) -> None:
        """unplug: pull the cable; the host sees the port go away."""
        self._no_args("unplug", arg)
        if not self.plugged:
            raise ConsoleError("already unplugged; replug first")
        self.port.unplug()
        self.plugged = False
        self.say(f"unplugged {self.port.url}")

    def do_replug(self, arg: str) -> None:
        """replug: put the cable back; the host reconnects at the same address."""
        self._no_args("replug", arg)
        if self.plugged:
            raise ConsoleError("already plugged in")
        self.port.replug()
        self.plugged = True
        self.say(f"replugged at {self.port.url}")

    def do_reboot(self, arg: str) -> None:
        """reboot: power cycle; a new boot id, latched faults kept, the host must handshake again."""
        self._no_args("reboot", arg)
        self.device.reboot()
        self.say(f"rebooted: boot id {self.device.call(lambda engine: engine.boot_id):#010x}")

    def do_door(self, arg: str) -> None:
        """door open|close: open or close the device's door or lid (the shoe's loading gate, the
        shuffler's lid): DoorChanged to the host, and DOOR_OPEN latched as it opens."""
        word = arg.strip()
        if word not in ("open", "close"):
            raise ConsoleError(f"door: expected open or close, got {word!r}")
        if not self.device.has_door:
            raise ConsoleError(f"the {self.kind} has no door or lid; door is for the shoe and the shuffler")
        self.device.set_door(word == "open")
        self.say(f"door {'open' if word == 'open' else 'closed'}")

    def do_tamper(self, arg: str) -> None:
        """tamper on|off: alter the running firmware image (the device goes on reporting the approved
        hash, so only a challenge finds it, docs/protocol.md §6.6), or reinstall the approved one."""
        on = self._on_off("tamper", arg)

        def image(engine: DeviceEngine) -> None:
            if on:
                engine.personality.tamper_firmware()
            else:
                engine.personality.reinstall_firmware()

        self.device.call(image)
        after = ": the next challenge fails" if on else ": approved image reinstalled"
        self.say(f"tamper {'on' if on else 'off'}{after}")

    # -- the cards -------------------------------------------------------------------------------
    def do_jam(self, arg: str) -> None:
        """jam on|off: the next card in the device's mechanism sticks (a JAM on the next move), or frees."""
        on = self._on_off("jam", arg)
        if self.kind not in JAMMABLE:
            raise ConsoleError(
                f"the {self.kind} has no mechanism that jams; jam is for {', '.join(JAMMABLE)}"
            )
        place = INPUT_PLACE[self.kind]
        with self.world.lock:
            (self.world.faults.stuck.add if on else self.world.faults.stuck.discard)(place)
        after = "" if on else " (a latched JAM is cleared from the host)"
        self.say(f"jam {'on' if on else 'off'}: {place}{after}")

    def do_foreign_card(self, arg: str) -> None:
        """foreign-card: slip a card with a foreign back on top of the device's input."""
        self._no_args("foreign-card", arg)
        place = self._input_place("foreign-card")
        face = self._rng.choice(standard_deck())
        self.world.add(place, [face], "foreign", at=0)
        self.say(f"a foreign card is now on top of {place}")

    def do_load(self, arg: str) -> None:
        """load N: a new batch of N decks (a new back colour) placed in the device's input."""
        decks = _int(arg.strip(), "load: expected N, the number of decks (1 or more)") if arg.strip() else 0
        if decks < 1:
            raise ConsoleError(f"load: expected N, the number of decks (1 or more), got {arg.strip()!r}")
        place = self._input_place("load")
        back = _BACKS[self._batches % len(_BACKS)]
        self._batches += 1
        cards = self.world.add_batch(place, back, decks)
        self.say(f"loaded {len(cards)} {back} card(s) into {place}: {self.world.count(place)} there now")

    def do_deal(self, arg: str) -> None:
        """deal: the dealer's next step at the device (help deal for what it moves).

        shoe: the dispensed card from the tray to seat-1; shuffler: the shuffled batch from the
        output to the shoe; card-reader: a card from the dealer's hand into the reader.
        """
        self._no_args("deal", arg)
        if self.kind not in DEAL_STEP:
            raise ConsoleError(f"the {self.kind} handles no cards; deal is for {', '.join(DEAL_STEP)}")
        src, dst = DEAL_STEP[self.kind]
        count = self.world.count(src) if self.kind == "shuffler" else 1
        if not count:
            raise ConsoleError(f"nothing to deal: {src} is empty")
        moved = self.world.move(src, dst, count)
        self.say(f"moved {len(moved)} card(s) from {src} to {dst}")

    def do_move(self, arg: str) -> None:
        """move SRC DST [N]: the dealer moves the top N cards (default 1) from one place to another."""
        words = arg.split()
        if len(words) not in (2, 3):
            raise ConsoleError("move: expected SRC DST [N] (see places for the places)")
        count = _int(words[2], "move: expected N, a count of 1 or more") if len(words) == 3 else 1
        if count < 1:
            raise ConsoleError(f"move: N must be 1 or more, got {count}")
        moved = self.world.move(words[0], words[1], count)
        self.say(f"moved {len(moved)} card(s) from {words[0]} to {words[1]}")

    def do_places(self, arg: str) -> None:
        """places: how many cards each place of the table holds (counts only: no face is shown)."""
        self._no_args("places", arg)
        self.say(_describe_places(self.world) or "no cards on the table")

    # -- leaving ---------------------------------------------------------------------------------
    def do_quit(self, arg: str) -> bool:
        """quit: stop the device and leave (end of input does the same)."""
        self.say("stopping")
        return True

    def do_EOF(self, arg: str) -> bool:  # the name cmd gives the end of input
        return self.do_quit(arg)

    # -- argument checks -------------------------------------------------------------------------
    def _no_args(self, command: str, arg: str) -> None:
        if arg.strip():
            raise ConsoleError(f"{command} takes no argument, got {arg.strip()!r}")

    def _on_off(self, command: str, arg: str) -> bool:
        word = arg.strip()
        if word not in ("on", "off"):
            raise ConsoleError(f"{command}: expected on or off, got {word!r}")
        return word == "on"

    def _input_place(self, command: str) -> str:
        try:
            return INPUT_PLACE[self.kind]
        except KeyError:
            raise ConsoleError(
                f"the {self.kind} holds no cards; {command} is for {', '.join(INPUT_PLACE)}"
            ) from None

    def parseline(self, line: str) -> tuple[str | None, str | None, str]:
        """Accept ``foreign-card`` as written in the help: cmd's names cannot hold a hyphen."""
        command, arg, line = super().parseline(line)
        if command is not None and "-" in line.split()[0]:
            first, _, rest = line.partition(" ")
            command = first.replace("-", "_")
            arg = rest.strip()
        return command, arg, line

    def get_names(self) -> list[str]:
        return dir(self)


def _int(text: str, expected: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise ConsoleError(f"{expected}, got {text!r}") from None


def _float(text: str, expected: str) -> float:
    try:
        return float(text)
    except ValueError:
        raise ConsoleError(f"{expected}, got {text!r}") from None


def _describe_places(world: TableWorld) -> str:
    with world.lock:
        counts = {place: len(cards) for place, cards in sorted(world.places.items()) if cards}
    return ", ".join(f"{place}: {n}" for place, n in counts.items())


def _describe_wire(plan: FaultPlan) -> str:
    clean = ChannelFaults()
    parts = []
    for direction, field in _DIRECTIONS.items():
        channel = getattr(plan, field)
        changed = [
            f"{f.name}={getattr(channel, f.name)}"
            for f in dataclasses.fields(ChannelFaults)
            if getattr(channel, f.name) != getattr(clean, f.name)
        ]
        if changed:
            parts.append(f"{direction} {' '.join(changed)}")
    return "; ".join(parts) or "clean"
