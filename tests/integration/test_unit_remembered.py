"""605a.4(c), decision 0017: the connection compares the unit answering with the unit kept from
before a restart (``DeviceConnection.remember``) as with one accepted during the run, whether the
kept unit is handed in before the first handshake or after a unit has already answered; and it
hands each unit it accepts to ``keep_accepted`` before taking it. Over a real pseudo-terminal."""

from __future__ import annotations

import dataclasses

import pytest

from drivers.connection import ConnectionState, DeviceConnection, DeviceSwapped
from drivers.protocol.core import Identity
from drivers.transport.serial import SerialTransport
from firmware_sim.device import SimulatedDevice
from firmware_sim.ports.pty import PtyPort
from firmware_sim.shoe import ShoePersonality
from firmware_sim.world import TableWorld
from tests.links import connected, run, wait_for_state


def _shoe() -> PtyPort:
    shoe = SimulatedDevice(ShoePersonality(world=TableWorld(), serial_number="SH-1"), name="shoe")
    return PtyPort(shoe).start()


def _swaps(conn: DeviceConnection) -> list[tuple[str, str]]:
    events = [conn.events.get_nowait() for _ in range(conn.events.qsize())]
    return [(e.old.serial_number, e.new.serial_number) for e in events if isinstance(e, DeviceSwapped)]


def _as(identity: Identity, serial: str) -> Identity:
    return dataclasses.replace(identity, serial_number=serial, boot_id=identity.boot_id + 1)


def test_a_unit_kept_from_before_the_start_is_compared_at_the_first_handshake_or_at_once() -> None:
    async def scenario() -> None:
        async with connected(_shoe(), SerialTransport) as rig:  # the unit answered first
            assert rig.conn.identity is not None and _swaps(rig.conn) == []
            kept = _as(rig.conn.identity, "SH-0")
            rig.conn.remember(kept)
            assert _swaps(rig.conn) == [("SH-0", "SH-1")] and rig.conn.accepted == kept
            rig.conn.accept_identity()
            assert rig.conn.accepted is not None and rig.conn.accepted.serial_number == "SH-1"
            rig.conn.remember(_as(rig.conn.identity, "SH-1"))  # the same unit kept: no swap
            assert _swaps(rig.conn) == []
            rig.device.reboot()  # the remembered unit is the one compared with from then on
            await wait_for_state(rig.conn, ConnectionState.BACKOFF)
            await rig.conn.wait_ready(5)
            assert _swaps(rig.conn) == []
        async with connected(_shoe(), SerialTransport, wait=False) as rig:  # handed in before it answers
            rig.conn.remember(kept)
            await rig.conn.wait_ready(5)
            assert _swaps(rig.conn) == [("SH-0", "SH-1")] and rig.conn.accepted == kept

    run(scenario())


def test_each_unit_accepted_is_kept_before_the_link_takes_it() -> None:
    """The first unit to answer (nothing remembered) and the unit a supervisor accepts are handed to
    ``keep_accepted`` first; one that cannot be kept is not accepted (the supervisor's accept fails)."""

    async def scenario() -> None:
        kept: list[str] = []
        async with connected(_shoe(), SerialTransport, wait=False) as rig:
            rig.conn.keep_accepted = lambda identity: kept.append(identity.serial_number)
            await rig.conn.wait_ready(5)
            assert kept == ["SH-1"]
            assert rig.conn.identity is not None
            rig.conn.remember(_as(rig.conn.identity, "SH-0"))

            def full(identity: Identity) -> None:
                raise OSError("disk full")

            rig.conn.keep_accepted = full
            with pytest.raises(OSError, match="disk full"):
                rig.conn.accept_identity()
            assert rig.conn.accepted is not None and rig.conn.accepted.serial_number == "SH-0"
            rig.conn.keep_accepted = lambda identity: kept.append(identity.serial_number)
            rig.conn.accept_identity()
            assert kept == ["SH-1", "SH-1"] and rig.conn.accepted.serial_number == "SH-1"

    run(scenario())
