"""The conformance suite: every device class, over every transport, passes the same checks.

In CI the devices are simulated; on a hardware rig the same checks run against real devices named
by configuration, and those that need an injected fault skip. Profiles live in
tests/conformance/profiles/, one per device class.
"""

from __future__ import annotations

import asyncio
import dataclasses
import importlib
import pkgutil
import time

import pytest

from drivers.connection import ConnectionState
from drivers.errors import CommandTimeout, DeviceRefused, LinkLost, NotConnected, OutcomeUnknown
from drivers.protocol.core import PROTOCOL_VERSION, FaultCode
from firmware_sim.faults import ChannelFaults, FaultPlan
from tests.conformance import profiles
from tests.conformance.profile import ConformanceProfile
from tests.conformance.targets import TRANSPORTS, connect
from tests.hil import needs_injected_faults, rig_cases
from tests.links import FAST, run, wait_for_state


def _profiles() -> list[ConformanceProfile]:
    found = []
    for module in pkgutil.iter_modules(profiles.__path__):
        found.append(importlib.import_module(f"{profiles.__name__}.{module.name}").PROFILE)
    return found


PROFILES = _profiles()
CASES = [pytest.param(p, t, id=f"{p.device_class.name.lower()}-{t}") for p in PROFILES for t in TRANSPORTS]
pytestmark = pytest.mark.hil


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """Every check over every profile and simulated transport; with ``--hil``, over the rig's real
    devices instead (tests/hil.py), the checks that inject faults skipping there."""
    if {"profile", "transport"} <= set(metafunc.fixturenames):
        cases = rig_cases(metafunc.config, metafunc.function, PROFILES) or CASES
        metafunc.parametrize(("profile", "transport"), cases)


def test_handshake_reports_class_version_and_firmware_hash(profile, transport):
    async def scenario():
        async with connect(profile, transport) as target:
            identity = target.conn.identity
            assert identity.device_class == profile.device_class
            assert identity.protocol_version == PROTOCOL_VERSION
            assert len(identity.firmware_hash) == 32 and identity.serial_number

    run(scenario())


def test_firmware_hash_is_checked_against_the_allow_list(profile, transport):
    """605a.4(c) software authenticity: listed firmware connects, unlisted firmware never does."""

    async def scenario():
        async with connect(profile, transport) as target:
            good = target.conn.identity.firmware_hash
        async with connect(profile, transport, firmware_allow_list={good}) as target:
            assert target.conn.state is ConnectionState.READY
        async with connect(profile, transport, wait=False, firmware_allow_list={bytes(32)}) as target:
            await wait_for_state(target.conn, ConnectionState.FAILED)
            assert "605a.4(c)" in str(target.conn.last_error)

    run(scenario())


def test_open_and_close_are_idempotent(profile, transport):
    async def scenario():
        async with connect(profile, transport) as target:
            await target.conn.start()  # a second start changes nothing
            assert target.conn.state is ConnectionState.READY
            extra = target.transport()
            await extra.close()  # closing a transport that never opened
            await extra.close()
            await target.conn.stop()
            await target.conn.stop()
            assert target.conn.state is ConnectionState.STOPPED
            with pytest.raises(NotConnected):
                await profile.move_one_card(target.driver)

    run(scenario())


@needs_injected_faults
def test_silent_device_times_out_within_the_bound(profile, transport):
    async def scenario():
        async with connect(profile, transport) as target:
            target.sim.device.set_silent(True)
            bound = FAST.timings.response_timeout * (FAST.timings.max_retries + 1)
            started = time.monotonic()
            with pytest.raises((OutcomeUnknown, CommandTimeout)):
                await profile.move_one_card(target.driver)
            assert time.monotonic() - started <= bound + 1.0
            target.sim.device.set_silent(False)
            await target.conn.wait_ready(5.0)

    run(scenario())


@needs_injected_faults
def test_unplug_mid_command_and_reconnect(profile, transport):
    async def scenario():
        async with connect(profile, transport) as target:
            target.sim.device.set_faults(FaultPlan(outbound=ChannelFaults(delay=0.08)))
            pending = asyncio.ensure_future(profile.move_one_card(target.driver))
            await asyncio.sleep(0.03)
            target.sim.port.unplug()
            with pytest.raises((OutcomeUnknown, LinkLost)):
                await pending
            await wait_for_state(target.conn, ConnectionState.BACKOFF)
            target.sim.port.replug()
            await wait_for_state(target.conn, ConnectionState.READY)

    run(scenario())


@needs_injected_faults
def test_fault_latches_until_cleared(profile, transport):
    async def scenario():
        async with connect(profile, transport) as target:
            code: FaultCode = profile.fault
            target.sim.device.call(lambda engine: engine.raise_fault(code, "conformance"))
            with pytest.raises(DeviceRefused, match="FAULT_LATCHED"):
                await profile.move_one_card(target.driver)
            with pytest.raises(DeviceRefused, match="operator"):
                await target.driver.clear_fault(code, "")
            await target.driver.clear_fault(code, "supervisor-1")
            await profile.move_one_card(target.driver)

    run(scenario())


@needs_injected_faults
def test_card_movement_executes_exactly_once_under_retransmission(profile, transport):
    async def scenario():
        # No heartbeat may take the dropped response: the card-moving command must.
        quiet = dataclasses.replace(FAST, heartbeat_interval=30.0)
        async with connect(profile, transport, settings=quiet) as target:
            world = target.sim.world
            personality = target.sim.device.engine.personality
            before = profile.movements(personality, world)
            target.sim.device.set_faults(FaultPlan(outbound=ChannelFaults(drop_next=1)))
            await profile.move_one_card(target.driver)
            assert target.conn.link.counters.retransmissions == 1
            assert profile.movements(personality, world) == before + 1

    run(scenario())
