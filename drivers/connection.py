"""Connection supervision for one device: connect, handshake, heartbeat, reconnect.

The supervisor owns the device's transport and sans-I/O link on the asyncio loop and offers the
layers above one call, ``request``. It keeps the link alive on its own: a device that goes silent
or disappears is reconnected with capped exponential backoff, at once when it reappears; a device
that rebooted is handshaken again; a device that is not the configured one, or whose firmware fails
its authenticity check at a handshake, is refused for good. The firmware is checked at every
handshake, when the next check falls due (``check_due``, a wall-clock time the service keeps across
restarts) and on demand (``verify``); each check is reported (``AuthenticityChecked``), and a check
that fails while the link is up leaves it up for the table to hold on (58 Pa. Code § 605a.4(c),
§ 461a.20(b); decision 0026). A unit
of another model or serial number answering after a reconnect or a reboot is reported
(``DeviceSwapped``): the table holds until a supervisor accepts it (``accept_identity``). The unit
last accepted before a restart is handed in (``remember``) and each unit accepted handed out
(``keep_accepted``), so that a unit exchanged while the table was off is a swap too (decision 0017).
"""

from __future__ import annotations

import asyncio
import contextlib
import enum
import hmac
import itertools
import os
import time
from collections.abc import Callable, Collection, Coroutine
from dataclasses import dataclass, field

import structlog

from drivers.authenticity import (
    CLAUSE,
    MAX_INTERVAL,
    AuthenticityChecked,
    CheckKind,
    Trigger,
    hash_check,
    images_by_hash,
)
from drivers.errors import (
    BadAddress,
    CommandTimeout,
    DeviceRefused,
    DriverError,
    HandshakeRejected,
    LinkLost,
    NotConnected,
    OutcomeUnknown,
    Severity,
)
from drivers.host_link import (
    CommandRejected,
    CommandTimedOut,
    EventReceived,
    HostLink,
    LineNoise,
    LinkTimings,
    ProtocolViolation,
    ReplyReceived,
    Request,
)
from drivers.outage import OutageLog
from drivers.protocol.core import (
    CATALOG,
    NONCE_SIZE,
    PROTOCOL_VERSION,
    Attest,
    Attestation,
    DeviceClass,
    DeviceStatus,
    GetStatus,
    Hello,
    Identity,
    attestation_digest,
)
from drivers.protocol.message import Catalog, Command, Event, Reply, Status
from drivers.trace import WireTrace
from drivers.transport.base import Transport


class ConnectionState(enum.Enum):
    STOPPED = "stopped"
    CONNECTING = "connecting"
    HANDSHAKING = "handshaking"
    READY = "ready"
    BACKOFF = "backoff"
    FAILED = "failed"  # a fatal error: not retried until reconfigured


@dataclass(frozen=True)
class SupervisorSettings:
    """Timers of the supervisor; the defaults suit a table PC with USB-serial adapters."""

    heartbeat_interval: float = 1.0  # silence is found by a heartbeat that exhausts its retries
    backoff_initial: float = 0.1
    backoff_max: float = 5.0
    presence_poll: float = 0.1  # how often to look for a device that disappeared
    # § 461a.20(b): authenticity checked every 24 hours at most; the service may set it shorter.
    firmware_recheck: float = MAX_INTERVAL
    # Device events waiting for the table: at this many the device's further events are left
    # unacknowledged (it sends them again, docs/protocol.md §5.7) until half have been applied.
    event_queue_limit: int = 1000
    # While a device stays away (unplugged, powered off, refused), the log says so once per this.
    outage_log_interval: float = 60.0
    timings: LinkTimings = field(default_factory=LinkTimings)

    def __post_init__(self) -> None:
        if self.heartbeat_interval <= 0:
            raise ValueError("heartbeat_interval must be positive")
        if not 0 < self.backoff_initial <= self.backoff_max:
            raise ValueError("need 0 < backoff_initial <= backoff_max")
        if self.event_queue_limit < 2:
            raise ValueError("event_queue_limit must be at least 2")
        if self.outage_log_interval <= 0:
            raise ValueError("outage_log_interval must be positive")
        if not 0 < self.firmware_recheck <= MAX_INTERVAL:
            most = f"at most {MAX_INTERVAL:g} s ({CLAUSE})"
            raise ValueError(f"firmware_recheck must be more than 0 and {most}")


@dataclass(frozen=True)
class StateChanged:
    """Connection events share the device-event queue, so one consumer sees both in order."""

    state: ConnectionState
    reason: str = ""


@dataclass(frozen=True)
class DeviceRebooted:
    old_boot_id: int
    new_boot_id: int


@dataclass(frozen=True)
class DeviceSwapped:
    """The unit answering is not the one the link accepted (the first it identified, the one kept
    from before a restart, or the one a supervisor last accepted): another model or serial number,
    found at the first handshake, a reconnect, a reboot or the daily re-check."""

    old: Identity
    new: Identity


@dataclass(frozen=True)
class EventsHeldBack:
    """The device's events outran the table: ``limit`` waited to be applied, and ``held`` event frames
    were left unacknowledged meanwhile, for the device to send again (none lost). Told once the
    queue has drained to half, with the count of the whole episode."""

    limit: int
    held: int


class FirmwareRefused(HandshakeRejected):
    """A device whose firmware failed its authenticity check at a handshake: refused for good, until
    a supervisor verifies it again (``verify``) after the approved firmware is installed."""


ConnectionEvent = StateChanged | DeviceRebooted | DeviceSwapped | EventsHeldBack | AuthenticityChecked | Event


class DeviceConnection:
    """A supervised link to one device. ``start`` it, ``request`` commands, read ``events``."""

    def __init__(
        self,
        transport_factory: Callable[[], Transport],
        *,
        name: str,
        address: int = 0x01,
        expected_class: DeviceClass | None = None,
        firmware_allow_list: Collection[bytes] | None = None,
        firmware_images: Collection[bytes] = (),
        check_due: float | None = None,
        settings: SupervisorSettings | None = None,
        catalog: Catalog = CATALOG,
        trace: WireTrace | None = None,
    ) -> None:
        self.name = name
        self._factory = transport_factory
        self.trace = trace  # the hex wire trace of this device, when one is kept
        self.settings = settings or SupervisorSettings()
        self.expected_class = expected_class
        #: The approved images the host holds, by hash: a reported hash found here is challenged.
        self.images = images_by_hash(firmware_images)
        approved = None if firmware_allow_list is None else frozenset(firmware_allow_list)
        self.allow_list = approved if not self.images else (approved or frozenset()) | set(self.images)
        #: When the next due check is (seconds since the epoch); None: at the first handshake's.
        self.check_due = check_due
        self.clock: Callable[[], float] = time.time  # the wall clock the due time is kept in
        self.link = HostLink(address, catalog, self.settings.timings)
        self.state = ConnectionState.STOPPED
        self.identity: Identity | None = None
        #: The unit the link compares with: the first it identified, the one kept from before a
        #: restart (``remember``), or the one a supervisor last accepted.
        self.accepted: Identity | None = None
        #: Told each unit before it becomes the accepted one (the first to answer when none was
        #: remembered, or one a supervisor accepts), to keep it across restarts; an error it raises
        #: leaves the unit unaccepted (a handshake that fails, a supervisor's accept refused).
        self.keep_accepted: Callable[[Identity], None] | None = None
        self.last_error: DriverError | None = None
        self.events: asyncio.Queue[ConnectionEvent] = asyncio.Queue()
        self.log = structlog.get_logger("croupier.link").bind(device=name)
        self._outage = OutageLog(self.log, self.settings.outage_log_interval)
        self._transport: Transport | None = None
        self._futures: dict[int, asyncio.Future[Reply]] = {}
        self._timer: asyncio.TimerHandle | None = None
        self._timer_at = 0.0  # when the timer fires (uvloop's timer handles do not say: decision 0051)
        self._lost: asyncio.Event = asyncio.Event()
        self._ready: asyncio.Event = asyncio.Event()
        self._failed: asyncio.Event = asyncio.Event()  # set while the state is FAILED
        self._task: asyncio.Task[None] | None = None
        self._sessions = itertools.count(int.from_bytes(os.urandom(4), "little"))
        self._held_from = 0  # the link's events_held count when the present hold began
        self._kept_on_device = False  # no event acknowledged any more: the table stopped applying them
        self._session_id = 0  # the session of the present link
        #: An on-demand check waiting for the handshake of a link refused for its firmware.
        self._verifying: asyncio.Future[AuthenticityChecked] | None = None
        self._loop: asyncio.AbstractEventLoop | None = None  # the loop the link last connected on

    # -- public API ---------------------------------------------------------------------------
    async def start(self) -> None:
        if self._task is None:
            self._task = asyncio.get_running_loop().create_task(
                self._supervise(), name=f"supervise-{self.name}"
            )

    async def stop(self) -> None:
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
        await self._drop(LinkLost(f"{self.name}: connection stopped"))
        self._set_state(ConnectionState.STOPPED, "stopped")

    async def wait_ready(self, timeout: float) -> Identity:
        """Wait for the handshake; raise the last error as soon as the device failed for good (a
        refusal is never retried, so waiting out ``timeout`` would only delay the answer)."""
        ready = asyncio.ensure_future(self._ready.wait())
        failed = asyncio.ensure_future(self._failed.wait())
        try:
            await asyncio.wait((ready, failed), timeout=timeout, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for waiter in (ready, failed):
                waiter.cancel()
        # Ready at that moment is ready, even if the link is being dropped as this task resumes.
        if ready.done() and not ready.cancelled():
            assert self.identity is not None
            return self.identity
        if failed.done() and not failed.cancelled():
            assert self.last_error is not None
            raise self.last_error
        late = f"{self.name}: not ready after {timeout} s ({self.state.value}: {self.last_error})"
        raise NotConnected(late)

    async def request(self, command: Command) -> Reply:
        """Send a command and return the device's reply; errors say what happened and who can fix it."""
        if self.state is not ConnectionState.READY:
            raise NotConnected(
                f"{self.name}: {type(command).__name__} refused: link is "
                f"{self.state.value}" + (f" ({self.last_error})" if self.last_error else "")
            )
        return await self._send(command)

    async def verify(self, timeout: float = 10.0) -> AuthenticityChecked:
        """Check the firmware now, on demand (§ 461a.20(b)). A link refused for its firmware is
        tried again first (the approved firmware may have been installed since): its handshake is
        then the check, and a refusal again leaves it refused. Raises NotConnected when the device
        does not answer within ``timeout``, or when there is nothing to verify against."""
        if self.allow_list is None:
            raise NotConnected(f"{self.name}: no firmware allow-list configured: nothing to verify against")
        if self.state is ConnectionState.FAILED and isinstance(self.last_error, FirmwareRefused):
            self._task = None
            self._verifying = asyncio.get_running_loop().create_future()
            try:
                await self.start()
                return await asyncio.wait_for(asyncio.shield(self._verifying), timeout)
            except TimeoutError:
                late = f"{self.name}: no handshake within {timeout} s ({self.state.value})"
                raise NotConnected(late) from None
            finally:
                self._verifying = None
        await self.wait_ready(timeout)
        check = await self._authenticate(await self._identify(in_session=True), Trigger.ON_DEMAND)
        assert check is not None
        return check

    # -- I/O plumbing ---------------------------------------------------------------------------
    def _now(self) -> float:
        """The link's clock: its loop's, kept as the link connects (``asyncio.get_running_loop``
        costs a getpid system call, and a command looked at the clock three times)."""
        assert self._loop is not None  # connected before any command, reply or tick
        return self._loop.time()

    async def _send(self, command: Command) -> Reply:
        """Submit ``command`` to the link and await its reply. A link lost and not yet dropped (or
        dropped, its BACKOFF not yet announced while the device's presence is probed) takes none:
        queued there, its retransmissions would reach the device ahead of the next session's Hello,
        or time out during that handshake and take the link down again."""
        if self._transport is None or self._lost.is_set():
            lost = f" ({self.last_error})" if self.last_error else ""
            raise NotConnected(f"{self.name}: {type(command).__name__} refused: link lost{lost}")
        assert self._loop is not None  # a transport is open: the link connected on this loop
        future: asyncio.Future[Reply] = self._loop.create_future()
        request = self.link.submit(command, self._loop.time())
        self._futures[request.number] = future
        self._flush()
        return await future

    def _on_data(self, data: bytes) -> None:
        if self.trace is not None:
            self.trace.received(data)
        self.link.receive(data, self._now())
        self._flush()

    def _on_tick(self) -> None:
        self._timer = None
        self.link.tick(self._now())
        self._flush()

    def _flush(self) -> None:
        """Write what the link queued, settle what it decided, re-arm its timer."""
        out = self.link.data_to_send()
        if out and self._transport is not None:
            if self.trace is not None:
                self.trace.sent(out)
            self._transport.write(out)
        for outcome in self.link.outcomes():
            self._settle(outcome)
        # Re-arm only when the link needs waking earlier: a timer that fires early finds nothing
        # due and re-arms itself, which is cheaper than a new timer on every frame.
        deadline = self.link.next_deadline()
        if deadline is not None and (self._timer is None or deadline < self._timer_at):
            if self._timer is not None:
                self._timer.cancel()
            assert self._loop is not None  # a deadline is a command's or a reply's: connected
            self._timer, self._timer_at = self._loop.call_at(deadline, self._on_tick), deadline

    def _settle(self, outcome: object) -> None:
        if isinstance(outcome, EventReceived):
            self.events.put_nowait(outcome.event)
            if self.events.qsize() >= self.settings.event_queue_limit and not self.link.hold_events:
                self.link.hold_events, self._held_from = True, self.link.counters.events_held
                self.log.warning("event queue full: events left unacknowledged", queued=self.events.qsize())
        elif isinstance(outcome, ReplyReceived):
            self._resolve(outcome.request, outcome.reply)
        elif isinstance(outcome, CommandRejected):
            request = outcome.request
            name = type(request.command).__name__
            if outcome.status is Status.NO_SESSION and request.command.MOVES_CARDS and request.attempts > 1:
                # An earlier attempt may have run before the device rebooted: not a refusal.
                error: DriverError = OutcomeUnknown(
                    f"{self.name}: {name} was retransmitted into a rebooted device: whether the first "
                    "attempt executed is unknown; reconcile counts"
                )
            elif outcome.status is Status.NO_SESSION:
                # The device rebooted under the host and ran nothing: the link is lost and comes
                # back with a new handshake, like a pulled cable, not a refusal to act on.
                error = LinkLost(f"{self.name}: {name} not run: the device lost its session (rebooted?)")
            else:
                error = DeviceRefused(name, outcome.status.name, outcome.detail)
            self._resolve(request, error)
            if outcome.status is Status.NO_SESSION:
                self._lost_link(LinkLost(f"{self.name}: device lost its session (rebooted?)"))
        elif isinstance(outcome, CommandTimedOut):
            self._resolve(outcome.request, self._timeout_error(outcome.request))
            self._lost_link(LinkLost(f"{self.name}: no response after {outcome.request.attempts} attempts"))
        elif isinstance(outcome, LineNoise):
            self.log.debug("line noise", reason=outcome.reason.value, discarded=outcome.discarded)
        elif isinstance(outcome, ProtocolViolation):
            self.log.warning("protocol violation", detail=outcome.detail)

    def _timeout_error(self, request: Request) -> DriverError:
        name = type(request.command).__name__
        if request.command.MOVES_CARDS:
            return OutcomeUnknown(
                f"{self.name}: {name} sent {request.attempts} times without a "
                f"response: whether it executed is unknown; reconcile counts"
            )
        return CommandTimeout(f"{self.name}: {name}: no response after {request.attempts} attempts")

    def _resolve(self, request: Request, outcome: Reply | Exception) -> None:
        """Settle the caller's future with the reply, or with the error that ended the command."""
        future = self._futures.pop(request.number, None)
        if future is None or future.done():
            return
        if isinstance(outcome, Exception):
            future.set_exception(outcome)
        else:
            future.set_result(outcome)

    def _lost_link(self, exc: Exception) -> None:
        if not self._lost.is_set():
            self.last_error = exc if isinstance(exc, DriverError) else LinkLost(str(exc))
            self._lost.set()

    async def _drop(self, exc: DriverError) -> None:
        """Close the transport and fail every outstanding command."""
        self._ready.clear()
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        for request in self.link.abort_all():
            if request.command.MOVES_CARDS and request.attempts:
                error: DriverError = OutcomeUnknown(
                    f"{self.name}: link lost while {type(request.command).__name__} was in flight: "
                    "whether it executed is unknown; reconcile counts"
                )
            else:
                error = LinkLost(f"{self.name}: {type(request.command).__name__} not completed: {exc}")
            self._resolve(request, error)
        transport, self._transport = self._transport, None
        if transport is not None:
            await transport.close()

    def _set_state(self, state: ConnectionState, reason: str = "") -> None:
        if state is self.state:
            return
        self.state = state
        if state is ConnectionState.FAILED:
            self._failed.set()
        else:
            self._failed.clear()
        self.events.put_nowait(StateChanged(state, reason))
        if state is ConnectionState.BACKOFF:
            self._outage.failed(reason)
        elif state is ConnectionState.FAILED:  # the device refused: a person must act
            self.log.warning("link state", state=state.value, reason=reason, **self._outage.ended())
        elif self._outage.ongoing and state in (ConnectionState.CONNECTING, ConnectionState.HANDSHAKING):
            self.log.debug("link state", state=state.value, reason=reason or None)  # another attempt
        else:
            self.log.info("link state", state=state.value, reason=reason or None, **self._outage.ended())

    # -- supervision ------------------------------------------------------------------------------
    async def _supervise(self) -> None:
        backoff = self.settings.backoff_initial
        while True:
            try:
                await self._connect_once()
                backoff = self.settings.backoff_initial
                await self._serve()
            except DriverError as exc:
                self.last_error = exc
                if exc.severity is Severity.FATAL:
                    await self._drop(exc)
                    self._set_state(ConnectionState.FAILED, str(exc))
                    return
            except Exception as exc:  # a bug below must not kill supervision silently
                self.log.exception("unexpected error on the link")
                self.last_error = LinkLost(f"{self.name}: unexpected {type(exc).__name__}: {exc}")
            await self._drop(self.last_error or LinkLost("link lost"))
            probe = self._factory()
            # Looked for before BACKOFF is announced: a device plugged back in the moment the link
            # says it is down must be seen as reappearing, not taken as present all along.
            was_present = await asyncio.to_thread(probe.present)
            self._set_state(ConnectionState.BACKOFF, str(self.last_error))
            await self._wait_for_retry(backoff, probe, was_present)
            backoff = min(backoff * 2, self.settings.backoff_max)

    async def _wait_for_retry(self, backoff: float, probe: Transport, was_present: bool) -> None:
        """Sleep out the backoff, but go at once when a device that was absent reappears. A presence
        check may do I/O (USB string descriptors), so it runs off the loop."""
        loop = asyncio.get_running_loop()
        until = loop.time() + backoff
        while loop.time() < until:
            await asyncio.sleep(min(self.settings.presence_poll, max(0.0, until - loop.time())))
            present = await asyncio.to_thread(probe.present)
            if present and not was_present:
                return
            was_present = present

    async def _connect_once(self) -> None:
        self._lost.clear()
        self._loop = asyncio.get_running_loop()
        try:
            transport = self._factory()
        except ValueError as exc:
            raise BadAddress(f"{self.name}: {exc}") from exc
        self._set_state(ConnectionState.CONNECTING, transport.url)
        await transport.open(self._on_data, self._lost_link)
        self._transport = transport
        self._set_state(ConnectionState.HANDSHAKING)
        await self._handshake()
        self._set_state(ConnectionState.READY, self._describe())
        self._ready.set()

    async def _handshake(self) -> None:
        """A new session: the unit identified and its firmware checked (at start-up, at a reconnect,
        or on demand for a device refused before); a failed check refuses it (FirmwareRefused)."""
        self._session_id = next(self._sessions) & 0xFFFFFFFF
        trigger = Trigger.STARTUP if self.identity is None else Trigger.RECONNECT
        if self._verifying is not None:
            trigger = Trigger.ON_DEMAND
        check = await self._authenticate(await self._identify(), trigger)
        if check is not None and not check.passed:
            raise FirmwareRefused(f"{self.name}: {check.detail} ({CLAUSE})")

    async def _identify(self, *, in_session: bool = False) -> Identity:
        """Hello in the present session: the Identity, checked (protocol version, class), and the
        unit compared with the one accepted (a swap) and the boot before (a reboot). A Hello with
        the session's own id resets nothing on the device (docs/protocol.md §6.2), so a check
        while commands are in flight keeps them exactly-once.

        ``in_session``: a check made while the link is up (due, or on demand). A new boot id then
        means the device restarted under the session and lost it: the link is dropped as the
        heartbeat drops it (LinkLost), so LINK_LOST latches and the reconnect's handshake reports
        the reboot and checks the firmware again — never the session simply carried on."""
        hello = Hello(session_id=self._session_id, protocol_version=PROTOCOL_VERSION)
        identity = await self._await_or_lost(self._send(hello))
        assert isinstance(identity, Identity)
        if in_session and self.identity is not None and identity.boot_id != self.identity.boot_id:
            lost = LinkLost(f"{self.name}: device rebooted: its session is gone")
            self._lost_link(lost)
            raise lost
        self._check_identity(identity)
        if self.accepted is None:
            self._accept(identity)
        elif unit(identity) != unit(self.accepted):
            self._swapped(self.accepted, identity)
        if self.identity is not None and self.identity.boot_id != identity.boot_id:
            self.events.put_nowait(DeviceRebooted(self.identity.boot_id, identity.boot_id))
            self.log.warning(
                "device rebooted", old_boot_id=self.identity.boot_id, new_boot_id=identity.boot_id
            )
        self.identity = identity
        return identity

    async def _authenticate(self, identity: Identity, trigger: Trigger) -> AuthenticityChecked | None:
        """Check the firmware ``identity`` reports, report the check (AuthenticityChecked) and return
        it; None with no allow-list configured (a simulated device of a test: only its identity is
        checked). A hash whose image the host holds is challenged (docs/protocol.md §6.6), any other
        compared with the allow-list. A due or on-demand check, or the very first, sets when the
        next is due; a start-up or reconnect handshake leaves it, so neither pushes it back. A
        link lost during the check leaves it too: the check is made again once the link is back."""
        if self.allow_list is None:
            self._checked(trigger)
            return None
        passed, detail = hash_check(self.allow_list, identity)
        kind, nonce, reported = CheckKind.HASH, b"", identity.firmware_hash.hex()
        expected = tuple(sorted(approved.hex() for approved in self.allow_list))
        image = self.images.get(identity.firmware_hash) if passed else None
        if image is not None:
            kind, nonce = CheckKind.CHALLENGE, os.urandom(NONCE_SIZE)
            digest = attestation_digest(nonce, image)
            expected = (digest.hex(),)
            try:
                answer = await self._await_or_lost(self._send(Attest(nonce)))
            except DeviceRefused as exc:
                passed, reported, detail = False, "", f"the device does not answer the challenge: {exc}"
            else:
                assert isinstance(answer, Attestation)
                passed, reported = hmac.compare_digest(answer.digest, digest), answer.digest.hex()
                verdict = "matches" if passed else "differs from"
                detail = f"firmware {identity.firmware_version}: its digest {verdict} the approved image's"
        self._checked(trigger)
        assert self.check_due is not None
        check = AuthenticityChecked(
            self.name,
            trigger,
            kind,
            identity,
            expected,
            reported,
            passed,
            detail,
            self.check_due,
            nonce=nonce.hex(),
        )
        self.events.put_nowait(check)
        say = self.log.info if passed else self.log.warning
        say("firmware checked", trigger=trigger.value, check=kind.value, passed=passed, detail=detail)
        if self._verifying is not None and not self._verifying.done():
            self._verifying.set_result(check)
        return check

    def _checked(self, trigger: Trigger) -> None:
        """A check was made: a due or on-demand one, or the very first, sets when the next is due."""
        if self.check_due is None or trigger in (Trigger.DUE, Trigger.ON_DEMAND):
            self.check_due = self.clock() + self.settings.firmware_recheck

    def _check_identity(self, identity: Identity) -> None:
        if identity.protocol_version != PROTOCOL_VERSION:
            raise HandshakeRejected(
                f"{self.name}: device speaks protocol version "
                f"{identity.protocol_version}, this host speaks {PROTOCOL_VERSION}"
            )
        if self.expected_class is not None and identity.device_class != self.expected_class:
            try:
                found = DeviceClass(identity.device_class).name
            except ValueError:
                found = f"unknown class {identity.device_class}"
            raise HandshakeRejected(
                f"{self.name}: expected a {self.expected_class.name}, the device "
                f"is a {found} ({identity.vendor} {identity.model} "
                f"{identity.serial_number})"
            )

    def accept_identity(self) -> Identity:
        """A supervisor accepts the unit now answering as this device, once it passes the host's
        checks again (§6.4: protocol version, class, firmware allow-list); it is the unit the link
        compares with from then on. Raises NotConnected without a live link, HandshakeRejected for a
        unit that fails a check."""
        if self.state is not ConnectionState.READY or self.identity is None:
            raise NotConnected(f"{self.name}: the link is {self.state.value}: no unit to check")
        self._check_identity(self.identity)
        if self.allow_list is not None:
            listed, detail = hash_check(self.allow_list, self.identity)
            if not listed:
                raise HandshakeRejected(f"{self.name}: {detail} ({CLAUSE})")
        self._accept(self.identity)
        self.log.warning("device identity accepted", unit=describe(self.identity))
        return self.identity

    def remember(self, accepted: Identity) -> None:
        """The unit last accepted before this start, as the service kept it (decision 0017): the
        link compares with it as with a unit accepted during the run. A unit that has answered
        since the start already, as another unit, is reported swapped now (``DeviceSwapped``),
        as its handshake would have reported it had the remembered unit been known then."""
        self.accepted = accepted
        if self.identity is not None and unit(self.identity) != unit(accepted):
            self._swapped(accepted, self.identity)

    def _accept(self, identity: Identity) -> None:
        if self.keep_accepted is not None:
            self.keep_accepted(identity)
        self.accepted = identity

    def _swapped(self, old: Identity, new: Identity) -> None:
        self.events.put_nowait(DeviceSwapped(old, new))
        self.log.warning("device swapped", was=describe(old), now=describe(new))

    def _describe(self) -> str:
        i = self.identity
        assert i is not None
        return f"{i.vendor} {i.model} s/n {i.serial_number} fw {i.firmware_version}"

    def keep_events_on_device(self) -> None:
        """Acknowledge no new event from now on, for good: the table has stopped applying them (its
        service is stopping), so an event the device tells stays at the head of its queue and goes to
        the next service (docs/protocol.md §5.7), where one acknowledged here would be lost."""
        self._kept_on_device = True
        self.link.hold_events = True

    def _release_events(self) -> None:
        """Once the table has applied half the events that filled the queue, acknowledge events again
        (the device resends the one it holds within 0.3 s) and tell how many were held back."""
        limit = self.settings.event_queue_limit
        if self.link.hold_events and not self._kept_on_device and self.events.qsize() <= limit // 2:
            self.link.hold_events = False
            held = self.link.counters.events_held - self._held_from
            self.events.put_nowait(EventsHeldBack(limit, held))
            self.log.warning("event queue drained: events acknowledged again", limit=limit, held=held)

    async def _await_or_lost(self, coro: Coroutine[object, object, Reply]) -> Reply:
        """Await a command, but give up as soon as the link is lost underneath it."""
        task = asyncio.ensure_future(coro)
        lost = asyncio.ensure_future(self._lost.wait())
        try:
            done, _ = await asyncio.wait({task, lost}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            lost.cancel()
            if not task.done():
                task.cancel()
        if task in done:
            return task.result()
        raise self.last_error or LinkLost(f"{self.name}: link lost")

    async def _serve(self) -> None:
        """While ready: heartbeat, watch for silence, reboots and the firmware check falling due."""
        events_waiting = False
        while not self._lost.is_set():
            if not events_waiting:
                try:
                    await asyncio.wait_for(self._lost.wait(), self.settings.heartbeat_interval)
                    break
                except TimeoutError:
                    pass
            if self.check_due is not None:
                # Never further off than one interval: a due time saved before the clock was stepped
                # back, or the interval shortened since, cannot push the check back (§ 461a.20(b)).
                self.check_due = min(self.check_due, self.clock() + self.settings.firmware_recheck)
                if self.clock() >= self.check_due:
                    await self._authenticate(await self._identify(in_session=True), Trigger.DUE)
            self._release_events()
            status = await self._await_or_lost(self._send(GetStatus()))
            assert isinstance(status, DeviceStatus) and self.identity is not None
            if status.boot_id != self.identity.boot_id:
                raise LinkLost(f"{self.name}: device rebooted")  # the new handshake reports it
            # A multidrop device sends an event only behind a response: poll again at once while
            # it says more are waiting. (A point-to-point device has sent them already.)
            events_waiting = status.pending_events > 0 and not self.link.busy and not self.link.hold_events
        raise self.last_error or LinkLost(f"{self.name}: link lost")


def unit(identity: Identity) -> tuple[str, str, str]:
    """What tells one unit from another: its vendor, model and serial number."""
    return identity.vendor, identity.model, identity.serial_number


def describe(identity: Identity) -> str:
    """A unit for people and the audit trail: model, serial number, firmware version and hash."""
    return (
        f"{identity.vendor} {identity.model} s/n {identity.serial_number} "
        f"fw {identity.firmware_version} hash {identity.firmware_hash.hex()}"
    )
