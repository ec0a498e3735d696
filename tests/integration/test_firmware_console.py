"""``croupier firmware shoe --console`` as another program would meet it: a separate process serving a
pty, driven by console commands on its stdin, its effects seen only through the real driver stack."""

from __future__ import annotations

import asyncio
import hashlib
import os
import queue
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import TypeVar

import pytest

from croupier.tables.free_bet_blackjack import FreeBetBlackjackTable
from devices.equipment import EquipmentEvent
from devices.shoe import Shoe
from drivers.connection import ConnectionState, DeviceConnection
from drivers.errors import DeviceRefused
from drivers.protocol.classes.shoe import DispenseFaceUp, DispenseOutcome
from drivers.protocol.core import ClearFault, DeviceClass, DoorChanged, FaultCode, GetStatus, fault_mask
from drivers.shoe import ShoeDriver
from drivers.transport.serial import SerialTransport
from firmware_sim.shoe import ShoePersonality
from tests.links import FAST, run, wait_for_state

ROOT = Path(__file__).resolve().parents[2]
T = TypeVar("T")


class Console:
    """The firmware process: its URL, the lines it printed before its console was ready (where to
    connect, the firmware hash, the ``[devices.X]`` block), and a way to type a command and read
    the answer."""

    def __init__(self, device: str, *options: str) -> None:
        command = [sys.executable, "-m", "croupier", "--log-level", "warning", "firmware", device, *options]
        self.proc = subprocess.Popen(
            [*command, "--console"],
            cwd=ROOT,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            env={**os.environ, "PYTHONUNBUFFERED": "1"},
        )
        self.lines: queue.Queue[str] = queue.Queue()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        try:
            self.header = [self.next_line(10.0)]
            while "console ready" not in self.header[-1]:
                self.header.append(self.next_line(5.0))
        except BaseException:
            self.close()  # a device that never got ready is not left running after the test
            raise
        self.url = self.header[0].split()[-1]

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.put(line.rstrip("\n"))

    def next_line(self, timeout: float = 5.0) -> str:
        return self.lines.get(timeout=timeout)

    def ask(self, command: str, quiet: float = 0.3) -> list[str]:
        """Type ``command``; the lines it answers (the first awaited, then until the output rests)."""
        assert self.proc.stdin is not None
        self.proc.stdin.write(command + "\n")
        self.proc.stdin.flush()
        answer = [self.next_line()]
        while True:
            try:
                answer.append(self.lines.get(timeout=quiet))
            except queue.Empty:
                return answer

    def close(self) -> int:
        if self.proc.stdin is not None:
            self.proc.stdin.close()  # end of input: the console quits and the device stops
        try:
            return self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            raise
        finally:
            self._reader.join(timeout=5)  # it ends at the end of the output: then the pipe can close
            if self.proc.stdout is not None:
                self.proc.stdout.close()


@pytest.fixture
def shoe() -> Iterator[Console]:
    console = Console("shoe")
    try:
        yield console
    finally:
        if console.proc.poll() is None:
            console.close()


def connection(url: str) -> DeviceConnection:
    return DeviceConnection(
        lambda: SerialTransport(url), name="shoe", settings=FAST, expected_class=DeviceClass.SHOE
    )


def test_jam_unplug_replug_through_the_driver(shoe: Console) -> None:
    async def scenario() -> None:
        conn = connection(shoe.url)
        await conn.start()
        try:
            await conn.wait_ready(5.0)
            assert shoe.ask("jam on") == ["jam on: shoe"]
            dispensed = await conn.request(DispenseFaceUp())
            assert dispensed.outcome == DispenseOutcome.JAM
            status = await conn.request(GetStatus())
            assert status.faults & fault_mask({FaultCode.JAM})
            assert any("JAM" in line for line in shoe.ask("status") if line.startswith("latched"))
            with pytest.raises(DeviceRefused, match="JAM condition still present"):
                await conn.request(ClearFault(int(FaultCode.JAM), "S-2"))

            assert shoe.ask("jam off")[0].startswith("jam off")
            await conn.request(ClearFault(int(FaultCode.JAM), "S-2"))  # now the supervisor's clear holds
            assert (await conn.request(GetStatus())).faults == 0

            assert shoe.ask("unplug") == [f"unplugged {shoe.url}"]
            await wait_until_not_ready(conn)
            assert shoe.ask("replug") == [f"replugged at {shoe.url}"]
            await wait_for_state(conn, ConnectionState.READY)
            assert (await conn.request(GetStatus())).faults == 0
        finally:
            await conn.stop()

    run(scenario())
    assert shoe.close() == 0


async def wait_until_not_ready(conn: DeviceConnection, timeout: float = 5.0) -> None:
    async with asyncio.timeout(timeout):
        while conn.state is ConnectionState.READY:
            await asyncio.sleep(0.01)


def test_errors_name_what_was_wrong(shoe: Console) -> None:
    unknown = shoe.ask("wiggle")
    assert unknown[0].startswith("error: unknown command 'wiggle'; commands:")
    assert "jam" in unknown[0] and "foreign-card" in unknown[0]
    assert shoe.ask("jam maybe") == ["error: jam: expected on or off, got 'maybe'"]
    assert shoe.ask("load many") == ["error: load: expected N, the number of decks (1 or more), got 'many'"]
    assert shoe.ask("fault corrupt 1.5") == [
        "error: fault corrupt: corrupt_rate must be between 0 and 1, got 1.5"
    ]
    assert shoe.ask("move shoe") == ["error: move: expected SRC DST [N] (see places for the places)"]
    assert shoe.ask("places") == ["shoe: 312"]  # an error changed nothing


def test_cards_move_as_a_dealer_moves_them_and_faces_stay_hidden(shoe: Console) -> None:
    assert shoe.ask("load 1") == ["loaded 52 green card(s) into shoe: 364 there now"]
    assert shoe.ask("foreign-card") == ["a foreign card is now on top of shoe"]
    assert shoe.ask("move shoe discard-rack 3") == ["moved 3 card(s) from shoe to discard-rack"]
    assert shoe.ask("places") == ["discard-rack: 3, shoe: 362"]
    assert shoe.ask("deal") == ["error: shoe-tray holds 0 card(s), 1 wanted"]


def test_wire_faults_reach_the_driver(shoe: Console) -> None:
    async def scenario() -> None:
        conn = connection(shoe.url)
        await conn.start()
        try:
            await conn.wait_ready(5.0)
            assert shoe.ask("fault drop to-host 1") == ["drop the next 1 write(s) to-host"]
            # The answer is lost once; the driver's retry gets it again from the device's cache.
            assert (await conn.request(GetStatus())).faults == 0
            assert shoe.ask("silent on")[0].startswith("silent on")
            await wait_until_not_ready(conn)
            assert shoe.ask("silent off") == ["silent off"]
            await wait_for_state(conn, ConnectionState.READY)
            assert "wire: clean" in shoe.ask("status")
        finally:
            await conn.stop()

    run(scenario())


def test_461a10s_the_console_opens_a_door_and_the_shoe_records_the_access(shoe: Console) -> None:
    """``door open|close`` on the console: the shoe sends DoorChanged and latches DOOR_OPEN, whose
    clear it refuses while the gate is open; the shoe's machine makes of each an access record
    (``door_opened``, ``door_closed``) naming the unit (decision 0027)."""

    async def scenario() -> None:
        conn = connection(shoe.url)
        machine = Shoe(ShoeDriver(conn), clauses=FreeBetBlackjackTable.shoe_clauses)
        heard: list[EquipmentEvent] = []
        machine.listen(heard.append)
        await conn.start()
        try:
            await conn.wait_ready(5.0)
            assert shoe.ask("door open") == ["door open"]
            machine.apply(await next_of(conn, DoorChanged))
            assert (await conn.request(GetStatus())).faults & fault_mask({FaultCode.DOOR_OPEN})
            with pytest.raises(DeviceRefused, match="DOOR_OPEN condition still present"):
                await conn.request(ClearFault(int(FaultCode.DOOR_OPEN), "S-2"))
            assert shoe.ask("door close") == ["door closed"]
            machine.apply(await next_of(conn, DoorChanged))
            await conn.request(ClearFault(int(FaultCode.DOOR_OPEN), "S-2"))
        finally:
            await conn.stop()
        assert [(e.kind, e.device, e.fields["door"]) for e in heard] == [
            ("door_opened", "shoe", 1),
            ("door_closed", "shoe", 1),
        ]
        assert heard[0].unit["serial"] and heard[0].clause.startswith("461a.10(s)")

    run(scenario())
    assert shoe.ask("door ajar") == ["error: door: expected open or close, got 'ajar'"]


async def next_of(conn: DeviceConnection, kind: type[T], timeout: float = 3.0) -> T:
    """The next event of ``kind`` the connection queued, skipping the others."""
    async with asyncio.timeout(timeout):
        while not isinstance(event := await conn.events.get(), kind):
            pass
        return event


def test_tampered_firmware_fails_the_hosts_challenge_until_reinstalled(shoe: Console) -> None:
    """58 Pa. Code § 605a.4(c), § 461a.20(b): ``tamper on`` alters the running image while the shoe
    goes on reporting the approved hash; a host holding the approved image challenges it on demand
    and the check fails; ``tamper off`` reinstalls it and the next check passes."""
    image = ShoePersonality().firmware_image

    async def scenario() -> None:
        conn = DeviceConnection(
            lambda: SerialTransport(shoe.url), name="shoe", settings=FAST, firmware_images=(image,)
        )
        await conn.start()
        try:
            await conn.wait_ready(5.0)
            assert (await conn.verify()).passed
            assert shoe.ask("tamper on") == ["tamper on: the next challenge fails"]
            tampered = await conn.verify()
            assert not tampered.passed and tampered.identity.firmware_hash == hashlib.sha256(image).digest()
            assert shoe.ask("tamper off")[0].startswith("tamper off")
            assert (await conn.verify()).passed
        finally:
            await conn.stop()

    run(scenario())
    assert shoe.close() == 0
