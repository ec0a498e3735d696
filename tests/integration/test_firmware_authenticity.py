"""Firmware authenticity on demand and every 24 hours, with a challenge (58 Pa. Code § 605a.4(c),
§ 461a.20(b); decision 0026), over real pseudo-terminals, the real codec and host link: a device
that replays its stored hash fails the challenge; a check that fails later in the day latches its own
fault, not LINK_LOST, which only a supervisor clears and only after a check passes again; the due
time is not pushed back by a reconnect; a refused device is verified again on demand."""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from croupier.commands.devices import TOKEN_ENV
from croupier.state import TableState
from devices.equipment import FIRMWARE_UNVERIFIED, FIRMWARE_UNVERIFIED_CODE, Equipment
from drivers.authenticity import MAX_INTERVAL, AuthenticityChecked, CheckKind, Trigger
from drivers.connection import ConnectionState, DeviceRebooted, FirmwareRefused, SupervisorSettings
from drivers.driver import Driver
from drivers.errors import LinkLost
from drivers.protocol.core import DeviceClass, attestation_digest
from drivers.transport.serial import SerialTransport
from firmware_sim.device import SimulatedDevice
from firmware_sim.personality import DiagnosticPersonality
from firmware_sim.ports.pty import PtyPort
from tests.integration.test_api import DEALER as API_DEALER
from tests.integration.test_api import SUPERVISOR as API_SUPERVISOR
from tests.integration.test_api import api_rig
from tests.integration.test_hardware_table import SUPERVISOR as HW_SUPERVISOR
from tests.integration.test_hardware_table import _trail as _trail_of
from tests.integration.test_hardware_table import equipment_served, in_service
from tests.integration.test_recovery import _config_with_api, _wait_for_api
from tests.integration.test_run_command import croupier
from tests.links import FAST, connected, next_event, run, wait_for_state
from tests.tokens import SUPERVISOR_TOKEN
from vocabulary.operators import SUPERVISOR_CLEARS, Operator, Role
from vocabulary.rules import RuleViolation

IMAGE = DiagnosticPersonality().firmware_image
SUPERVISOR = Operator("FLOOR-7", Role.SUPERVISOR)
DEALER = Operator("D-1", Role.DEALER)
#: A day between due checks, so that only what a test does makes one.
DAILY = SupervisorSettings(**{**FAST.__dict__, "firmware_recheck": MAX_INTERVAL})


class DiagnosticDriver(Driver):
    DEVICE_CLASS = DeviceClass.DIAGNOSTIC


def pty(*, tampered: bool = False) -> PtyPort:
    personality = DiagnosticPersonality()
    if tampered:
        personality.tamper_firmware()
    return PtyPort(SimulatedDevice(personality, seed=5)).start()


async def next_check(conn, timeout: float = 5.0) -> AuthenticityChecked:
    return await next_event(conn, AuthenticityChecked, timeout)


def test_a_device_replaying_its_stored_hash_fails_the_challenge_and_is_refused():
    """§ 605a.4(c): an altered image that still reports the approved hash passes a hash comparison
    (so the record says that only the hash was compared) but fails the challenge: the digest over a
    fresh nonce and the running image differs from the host's over the approved image."""

    async def scenario():
        port = pty(tampered=True)
        async with connected(port, SerialTransport, wait=False, firmware_images=(IMAGE,)) as rig:
            check = await next_check(rig.conn)
            await wait_for_state(rig.conn, ConnectionState.FAILED)
            assert isinstance(rig.conn.last_error, FirmwareRefused)
            assert (check.kind, check.trigger, check.passed) == (CheckKind.CHALLENGE, Trigger.STARTUP, False)
            nonce = bytes.fromhex(check.nonce)
            assert len(nonce) == 32 and check.expected == (attestation_digest(nonce, IMAGE).hex(),)
            assert check.reported and check.reported != check.expected[0]
            assert check.identity.firmware_hash == hashlib.sha256(IMAGE).digest(), "it replays the hash"
        approved = {hashlib.sha256(IMAGE).digest()}
        async with connected(pty(tampered=True), SerialTransport, firmware_allow_list=approved) as rig:
            check = await next_check(rig.conn)
            assert (check.kind, check.passed, check.nonce) == (CheckKind.HASH, True, "")
            assert check.reported == hashlib.sha256(IMAGE).hexdigest() in check.expected
        async with connected(pty(), SerialTransport, firmware_images=(IMAGE,)) as rig:
            check = await next_check(rig.conn)
            assert (check.kind, check.passed) == (CheckKind.CHALLENGE, True)
            assert check.reported == check.expected[0]

    run(scenario())


def test_a_check_failing_later_in_the_day_latches_firmware_unverified_not_link_lost():
    """§ 461a.20(b): the due check of a device tampered with after start-up fails; the link stays up,
    the device's machine latches FIRMWARE_UNVERIFIED naming the expected and reported digests (not
    LINK_LOST), a dealer cannot clear it, a supervisor cannot until a check passes again, and can
    once the approved firmware is back and verified on demand."""

    async def scenario():
        port = pty()
        async with connected(port, SerialTransport, firmware_images=(IMAGE,), settings=DAILY) as rig:
            machine = Equipment(DiagnosticDriver(rig.conn))
            machine.apply(await next_check(rig.conn))
            port.device.call(lambda engine: engine.personality.tamper_firmware())
            rig.conn.check_due = rig.conn.clock()  # the day is over
            check = await next_check(rig.conn)
            machine.apply(check)
            assert (check.trigger, check.passed) == (Trigger.DUE, False)
            assert rig.conn.state is ConnectionState.READY, "the link stays up for the table to hold on"
            (fault,) = machine.latch.faults
            assert fault.code == FIRMWARE_UNVERIFIED_CODE and fault.clause == FIRMWARE_UNVERIFIED.clause
            assert check.expected[0] in fault.detail and check.reported in fault.detail
            with pytest.raises(RuleViolation) as refused:
                await machine.clear(FIRMWARE_UNVERIFIED_CODE, DEALER)
            assert refused.value.rule is SUPERVISOR_CLEARS
            with pytest.raises(RuleViolation, match="verify") as refused:
                await machine.clear(FIRMWARE_UNVERIFIED_CODE, SUPERVISOR)
            assert refused.value.rule is FIRMWARE_UNVERIFIED and machine.latch
            assert (await rig.conn.verify()).passed is False, "still tampered: still unverified"
            machine.apply(await next_check(rig.conn))
            port.device.call(lambda engine: engine.personality.reinstall_firmware())
            again = await rig.conn.verify()
            assert (again.trigger, again.passed) == (Trigger.ON_DEMAND, True)
            machine.apply(await next_check(rig.conn))
            await machine.clear(FIRMWARE_UNVERIFIED_CODE, SUPERVISOR)
            assert not machine.latch

    run(scenario())


def test_the_due_time_is_kept_through_a_reconnect_and_moved_only_by_a_due_or_on_demand_check():
    """§ 461a.20(b): a start-up or reconnect handshake checks the firmware but leaves the due time
    (kept across restarts by the service) where it was; a due time already past is checked at once,
    and a due or on-demand check sets the next one interval seconds on."""

    async def scenario():
        port = pty()
        due = time.time() + 3600.0  # an hour from now, as a restart found it saved
        kwargs = {"firmware_images": (IMAGE,), "check_due": due, "settings": DAILY}
        async with connected(port, SerialTransport, **kwargs) as rig:
            assert (await next_check(rig.conn)).trigger is Trigger.STARTUP and rig.conn.check_due == due
            port.device.reboot()
            reconnect = await next_check(rig.conn)
            assert (reconnect.trigger, reconnect.passed, reconnect.next_due) == (Trigger.RECONNECT, True, due)
            demanded = await rig.conn.verify()
            assert demanded.trigger is Trigger.ON_DEMAND
            assert (
                rig.conn.check_due
                == demanded.next_due
                == pytest.approx(rig.conn.clock() + MAX_INTERVAL, abs=5)
            )
        past = {"firmware_images": (IMAGE,), "check_due": 1.0, "settings": DAILY}
        async with connected(pty(), SerialTransport, **past) as rig:
            assert (await next_check(rig.conn)).next_due == 1.0, "the start-up check leaves it"
            due_now = await next_check(rig.conn)
            assert due_now.trigger is Trigger.DUE and due_now.passed
            assert due_now.next_due == pytest.approx(rig.conn.clock() + MAX_INTERVAL, abs=5)
        with pytest.raises(ValueError, match="at most 86400 s"):
            SupervisorSettings(firmware_recheck=MAX_INTERVAL + 1)

    run(scenario())


def test_a_reboot_found_by_an_on_demand_check_drops_the_link_and_is_reported_at_the_reconnect():
    """docs/protocol.md §6.3, decision 0027: a device that restarted under the session has lost it.
    A check made while the link is up (on demand, or due) that finds a new boot id drops the link
    as the heartbeat does, so LINK_LOST latches and the reconnect's handshake reports the reboot and
    checks the firmware again. Before, the check took the new boot id as the session's and the link
    stayed up: no LINK_LOST, the device's lost state unnoticed (found in review)."""

    async def scenario():
        port = pty()
        quiet = SupervisorSettings(**{**DAILY.__dict__, "heartbeat_interval": 30.0})
        async with connected(port, SerialTransport, firmware_images=(IMAGE,), settings=quiet) as rig:
            machine = Equipment(DiagnosticDriver(rig.conn))
            assert (await next_check(rig.conn)).trigger is Trigger.STARTUP
            port.device.reboot()  # between heartbeats: only the check can find it
            with pytest.raises(LinkLost, match="device rebooted"):
                await rig.conn.verify()
            seen = []
            async with asyncio.timeout(10):
                while not any(isinstance(e, DeviceRebooted) for e in seen) or not any(
                    isinstance(e, AuthenticityChecked) for e in seen
                ):
                    event = await rig.conn.events.get()
                    machine.apply(event)
                    seen.append(event)
            assert FIRMWARE_UNVERIFIED_CODE not in {f.code for f in machine.latch.faults}
            assert "LINK_LOST" in {f.code for f in machine.latch.faults}
            assert [e.trigger for e in seen if isinstance(e, AuthenticityChecked)] == [Trigger.RECONNECT]

    run(scenario())


def test_a_due_time_further_off_than_one_interval_is_brought_back_to_it():
    """§ 461a.20(b): the check comes at least every interval. A due time saved further off (the
    clock stepped forward and corrected back, or the interval shortened since) is brought back to
    one interval from now, so it cannot push the daily check back (found in review)."""

    async def scenario():
        hourly = SupervisorSettings(**{**FAST.__dict__, "firmware_recheck": 3600.0})
        kwargs = {"firmware_images": (IMAGE,), "check_due": 4_000_000_000.0, "settings": hourly}
        async with connected(pty(), SerialTransport, **kwargs) as rig:
            await next_check(rig.conn)
            async with asyncio.timeout(5):
                while rig.conn.check_due == 4_000_000_000.0:
                    await asyncio.sleep(0.05)
            assert rig.conn.check_due == pytest.approx(time.time() + 3600.0, abs=5)

    run(scenario())


def test_waiting_for_a_device_refused_for_good_ends_at_once_with_its_refusal():
    """``wait_ready`` on a device refused for its firmware (state ``failed``, never retried) raises
    the refusal as it happens, not a "not ready" after the whole timeout; so does a wait begun
    after the refusal."""

    async def scenario():
        loop = asyncio.get_running_loop()
        async with connected(pty(), SerialTransport, wait=False, firmware_allow_list={bytes(32)}) as rig:
            began = loop.time()
            with pytest.raises(FirmwareRefused, match=r"605a\.4\(c\)"):
                await rig.conn.wait_ready(30.0)
            assert loop.time() - began < 5.0, "it waited out the timeout"
            began = loop.time()
            with pytest.raises(FirmwareRefused):
                await rig.conn.wait_ready(30.0)
            assert loop.time() - began < 0.5

    run(scenario(), timeout=60.0)


def test_a_device_refused_for_its_firmware_is_verified_again_on_demand():
    """§ 605a.4(c): a device refused at start-up stays refused until a supervisor asks for a check
    on demand after the approved firmware is installed; that check is its handshake."""

    async def scenario():
        port = pty(tampered=True)
        async with connected(port, SerialTransport, wait=False, firmware_images=(IMAGE,)) as rig:
            await wait_for_state(rig.conn, ConnectionState.FAILED)
            assert (await next_check(rig.conn)).passed is False
            port.device.call(lambda engine: engine.personality.reinstall_firmware())
            check = await rig.conn.verify()
            assert (check.trigger, check.kind, check.passed) == (Trigger.ON_DEMAND, CheckKind.CHALLENGE, True)
            await rig.conn.wait_ready(5.0)

    run(scenario())


def _trail(audit: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for path in sorted(audit.glob("*.jsonl")) for line in path.open()]


def test_a_supervisor_verifies_a_device_on_demand_through_the_api_and_every_check_is_recorded(tmp_path):
    """§ 461a.20(b) on demand, § 461a.10(s) a record of each check: POST /v1/devices/{name}/verify is a
    supervisor's (403 for a dealer, 404 for no such device); a tampered shoe fails the challenge and
    FIRMWARE_UNVERIFIED shows in /v1/faults and holds the table; its clear is refused (409, the
    clause) until a check passes again; every check, the start-up ones included, is an
    ``authenticity_check`` record naming the unit, the kind of check, expected and reported digests."""

    async def scenario():
        async with api_rig(tmp_path) as rig:
            shoe = rig.sim.devices["shoe"]
            status, body = await rig.post("/v1/devices/shoe/verify", headers=API_DEALER)
            assert status == 403
            status, body = await rig.post("/v1/devices/roulette/verify", headers=API_SUPERVISOR)
            assert status == 404 and "shoe" in body["error"]
            status, body = await rig.post("/v1/devices/shoe/verify", headers=API_SUPERVISOR)
            assert status == 200 and (body["result"], body["check"], body["trigger"]) == (
                "passed",
                "challenge",
                "on demand",
            )
            assert body["by"] == "FLOOR-7" and body["reported"] == body["expected"][0]
            shoe.call(lambda engine: engine.personality.tamper_firmware())
            status, body = await rig.post("/v1/devices/shoe/verify", headers=API_SUPERVISOR)
            assert status == 200 and body["result"] == "failed" and body["reported"] != body["expected"][0]
            status, faults = await rig.get("/v1/faults", API_SUPERVISOR)
            (fault,) = faults["faults"]
            assert fault["code"] == FIRMWARE_UNVERIFIED_CODE and "461a.20(b)" in fault["clause"]
            assert rig.service.waiting_for() == f"held: {FIRMWARE_UNVERIFIED_CODE}"
            status, body = await rig.post(
                f"/v1/faults/{FIRMWARE_UNVERIFIED_CODE}/clear", headers=API_SUPERVISOR
            )
            assert status == 409 and "461a.20(b)" in body["clause"]
            shoe.call(lambda engine: engine.personality.reinstall_firmware())
            status, body = await rig.post("/v1/devices/shoe/verify", headers=API_SUPERVISOR)
            assert status == 200 and body["result"] == "passed"
            status, body = await rig.post(
                f"/v1/faults/{FIRMWARE_UNVERIFIED_CODE}/clear", headers=API_SUPERVISOR
            )
            assert status == 200 and body["faults"] == []
            due = rig.service.journal.state.check_due("shoe")
        records = _trail(tmp_path / "audit")
        checks = [r["fields"] for r in records if r["kind"] == "authenticity_check"]
        started = {c["device"] for c in checks if c["trigger"] == "start-up"}
        assert started == {"shoe", "shuffler", "card-reader"}
        demanded = [c["result"] for c in checks if c["trigger"] == "on demand"]
        assert demanded == ["passed", "failed", "passed"]
        for check in checks:
            assert check["check"] == "challenge" and check["model"] and check["serial"]
            assert check["expected"] and check["nonce"] and "461a.20(b)" in check["clause"]
        assert due == pytest.approx(time.time() + MAX_INTERVAL, abs=60)
        latched = [r["fields"]["code"] for r in records if r["kind"] == "fault_latched"]
        assert latched == [FIRMWARE_UNVERIFIED_CODE] and "LINK_LOST" not in latched
        actions = [r["fields"]["action"] for r in records if r["kind"] == "operator_action"]
        assert actions.count("verify") == 3 and "clear" in actions

    run(scenario(), timeout=60)


def test_croupier_devices_verify_asks_the_running_service(tmp_path):
    """§ 461a.20(b) on demand from the command line: ``croupier devices verify`` asks ``croupier run``
    over its API with a supervisor's token from a 0600 file; every device is checked and recorded;
    a token file others may read, or an unknown device, is refused before anything is sent."""
    config, base = _config_with_api(tmp_path)
    token = tmp_path / "supervisor.token"
    token.touch(mode=0o600)
    token.write_text(SUPERVISOR_TOKEN + "\n")
    verify = (sys.executable, "-m", "croupier", "devices", "verify", "--config", str(config))
    with (tmp_path / "run.log").open("w") as log:
        service = croupier("run", "--config", str(config), stderr=log)
    try:
        _wait_for_api(base, service)
        done = subprocess.run(
            [*verify, "--token-file", str(token)], capture_output=True, text=True, timeout=60
        )
        assert done.returncode == 0, done.stderr
        lines = done.stdout.splitlines()
        assert [line.split(":")[0] for line in lines] == ["shoe", "shuffler", "card-reader"]
        assert all("passed (challenge check, on demand)" in line and "next due" in line for line in lines)
        one = subprocess.run(
            [*verify, "shoe"],
            capture_output=True,
            text=True,
            timeout=60,
            env={**os.environ, TOKEN_ENV: SUPERVISOR_TOKEN},
        )
        assert one.returncode == 0 and one.stdout.startswith("shoe: passed"), one.stderr
        unknown = subprocess.run(
            [*verify, "roulette", "--token-file", str(token)], capture_output=True, text=True
        )
        assert unknown.returncode == 2 and "no [devices.roulette]" in unknown.stderr
        token.chmod(0o644)
        exposed = subprocess.run([*verify, "--token-file", str(token)], capture_output=True, text=True)
        assert exposed.returncode == 2 and "lets others read it" in exposed.stderr
    finally:
        service.send_signal(signal.SIGTERM)
        service.communicate(timeout=60)
    demanded = [
        r["fields"]["device"]
        for r in _trail(tmp_path / "state" / "audit")
        if r["kind"] == "authenticity_check" and r["fields"]["trigger"] == "on demand"
    ]
    assert demanded == ["shoe", "shuffler", "card-reader", "shoe"]


def test_on_real_equipment_a_refused_firmware_is_a_fault_and_a_record_and_the_due_time_survives_a_restart(
    tmp_path,
):
    """§ 605a.4(c): a shoe whose firmware is not approved is refused at start-up, and that is a
    FIRMWARE_UNVERIFIED in /v1/faults and an ``authenticity_check`` record, not only a log line; once
    the approved firmware is back, a check on demand connects it and the supervisor clears.
    § 461a.20(b): the due time saved by the first run is the one the restarted service keeps."""

    async def scenario():
        async with equipment_served(tmp_path, "over-under") as (hands, _world, ports, config):
            shoe = ports["shoe"].device
            approved = shoe.call(lambda engine: engine.personality.firmware_image)
            shoe.call(lambda engine: setattr(engine.personality, "firmware_image", b"unapproved build"))
            async with in_service(config, hands, "over-under") as screen:
                async with asyncio.timeout(15):
                    while not (await screen.get("/v1/faults", HW_SUPERVISOR))[1]["faults"]:
                        await asyncio.sleep(0.05)
                (fault,) = (await screen.get("/v1/faults", HW_SUPERVISOR))[1]["faults"]
                assert (
                    fault["code"] == FIRMWARE_UNVERIFIED_CODE and "not on the allow-list" in fault["detail"]
                )
                assert (await screen.state())["devices"]["shoe"] == "failed"
                shoe.call(lambda engine: setattr(engine.personality, "firmware_image", approved))
                status, body = await screen.post("/v1/devices/shoe/verify", headers=HW_SUPERVISOR)
                assert status == 200 and (body["result"], body["check"]) == ("passed", "hash")
                await screen.ok_as(HW_SUPERVISOR, f"/v1/faults/{FIRMWARE_UNVERIFIED_CODE}/clear")
            with TableState(config.service.state_db) as state:
                first = state.check_due("shuffler")
            async with in_service(config, hands, "over-under") as screen:
                async with asyncio.timeout(15):
                    while set((await screen.state())["devices"].values()) != {"ready"}:
                        await asyncio.sleep(0.05)
            with TableState(config.service.state_db) as state:
                assert first is not None and state.check_due("shuffler") == first, "not pushed back"
        checks = [r.fields for r in _trail_of(config) if r.kind == "authenticity_check"]
        shoe_checks = [(c["trigger"], c["result"]) for c in checks if c["device"] == "shoe"]
        assert shoe_checks[:2] == [("start-up", "failed"), ("on demand", "passed")]
        assert [c["trigger"] for c in checks if c["device"] == "shuffler"] == ["start-up", "start-up"]

    run(scenario(), timeout=90)
