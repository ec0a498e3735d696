"""A simulated table's devices in a process of their own (decision 0048): ``croupier run`` starts a
``croupier firmware --serve-table`` child that serves every device behind a real pseudo-terminal,
the table plays on it, and the child ends with the table however the table ends: stopped, or killed
outright (the kernel's parent-death signal), never left behind as an orphan holding its ptys."""

from __future__ import annotations

import asyncio
import os
import random
import signal
import time
from collections import Counter
from pathlib import Path

import pytest

from firmware_sim import remote
from firmware_sim.remote import RemoteDevice
from simulator.players import simulated_players, table_options
from simulator.tables import simulated_table
from tests.integration.test_run_command import croupier, simulated_config
from tests.links import run


def children(pid: int) -> list[int]:
    """The processes ``pid`` started that are still its children."""
    found: list[int] = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        found += [int(child) for child in (task / "children").read_text().split()]
    return found


def devices_process(pid: int) -> int:
    """The devices' process ``pid`` started: ``croupier firmware --serve-table``."""
    served = [
        child for child in children(pid) if b"--serve-table" in Path(f"/proc/{child}/cmdline").read_bytes()
    ]
    assert len(served) == 1, f"{pid} has no devices' process among {children(pid)}"
    return served[0]


def ptys(pid: int) -> set[str]:
    """The /dev/pts/N that ``pid`` holds open."""
    held = {os.readlink(fd) for fd in Path(f"/proc/{pid}/fd").iterdir() if fd.exists()}
    return {path for path in held if path.startswith("/dev/pts/")}


def gone(pid: int, within: float) -> bool:
    """Whether ``pid`` has ended (exited, reaped or a zombie) within ``within`` seconds."""
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except FileNotFoundError:
            return True
        if state == "Z":
            return True
        time.sleep(0.05)
    return False


def test_the_devices_run_in_a_child_the_table_starts_plays_on_and_stops():
    run(the_table_plays_on_its_devices_process(), timeout=120)


async def the_table_plays_on_its_devices_process() -> None:
    before = ptys(os.getpid())
    async with simulated_table("over-under", in_child=True) as sim:
        child = devices_process(os.getpid())
        assert all(isinstance(device, RemoteDevice) for device in sim.devices.values())
        opened = ptys(os.getpid()) - before  # the table's connections, one pty a device
        assert len(opened) == len(sim.connections) == 2
        assert opened <= ptys(child)  # each the slave of a pty the child serves the device on
        players = simulated_players("over-under", random.Random(3), **table_options("over-under", sim))
        await sim.table.play_round(players)
        assert sim.table.rounds == 1
        shoe = sim.devices["shoe"]
        assert not sim.table.faults
        shoe.set_door(True)  # a control reaches the device in the child: the shoe latches DOOR_OPEN
        async with asyncio.timeout(10):
            while not sim.table.faults:
                await asyncio.sleep(0.01)
        assert "DOOR_OPEN" in str(sim.table.faults)
        shoe.set_door(False)
        with pytest.raises(TypeError, match="lambda"):
            shoe.call(lambda engine: engine.boot_id)
    assert gone(child, within=5.0)  # and the world's card count was proven as the table closed


@pytest.mark.parametrize("game", ["free-bet-blackjack", "heads-up-holdem"])
def test_a_dispense_is_one_question_to_the_tables_world(monkeypatch, game):
    """Each of a shoe's dispenses (a card, or a Hold 'Em stack) asks the table process's world once:
    the jam, the cards ahead, the cover card, the moves and the faces left are one action there
    (``TableWorld.atomically``), not a round trip between the processes for each look and move."""
    asked: Counter[str] = Counter()
    answer = remote.WorldServer._answer

    def counted(self: remote.WorldServer, name: str, args: tuple[object, ...], kwargs: dict[str, object]):
        asked[name if name != "atomically" else getattr(args[0], "__name__", name)] += 1
        return answer(self, name, args, kwargs)

    monkeypatch.setattr(remote.WorldServer, "_answer", counted)
    run(a_round_in_a_child(game, asked), timeout=120)


async def a_round_in_a_child(game: str, asked: Counter[str]) -> None:
    async with simulated_table(game, in_child=True) as sim:
        players = simulated_players(game, random.Random(5), **table_options(game, sim))
        dispenses: Counter[str] = Counter()
        request = sim.connections["shoe"].request

        async def counting(command, *args, **kwargs):
            dispenses[type(command).__name__] += 1
            return await request(command, *args, **kwargs)

        sim.connections["shoe"].request = counting  # type: ignore[method-assign]
        asked.clear()  # the batch loaded before the round is not the round's
        await sim.table.play_round(players)
    dispensed = sum(n for name, n in dispenses.items() if name.startswith("Dispense"))
    assert dispensed > 0
    assert asked["_dispense"] == dispensed, (asked, dispenses)
    assert not {"top", "move", "faults"} & set(asked), asked  # each only inside a dispense


@pytest.mark.parametrize("how", [signal.SIGTERM, signal.SIGKILL])
def test_no_devices_process_outlives_its_table(tmp_path, how):
    process = croupier("run", "--config", str(simulated_config(tmp_path)), "--seed", "7", "--no-live")
    assert process.stderr is not None
    try:
        for line in process.stderr:  # the child served: the table played a round on its devices
            if '"round complete"' in line:
                break
        child = devices_process(process.pid)
        assert len(ptys(child)) == 3  # the shoe, the shuffler and the card reader
        process.send_signal(how)
        process.communicate(timeout=60)
        assert gone(child, within=10.0), f"the devices' process {child} outlived its table ({how.name})"
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()
