"""The base of every device-class rule machine: driver, fault latch, and the device's events.

Subclasses declare a ``transitions.Machine`` for their own states. Per decision 0019: no
``to_<state>()`` backdoors (``auto_transitions=False``); checks and device I/O in conditions and
``before`` callbacks, which can still abort; ``on_enter``/``after`` only record.
"""

from __future__ import annotations

import asyncio
import collections
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Generic, TypeVar

from devices.faults import Fault, FaultLatch
from drivers.authenticity import CLAUSE, AuthenticityChecked, identity_fields
from drivers.connection import (
    ConnectionState,
    DeviceConnection,
    DeviceRebooted,
    DeviceSwapped,
    EventsHeldBack,
    StateChanged,
    describe,
)
from drivers.driver import Driver
from drivers.protocol.core import DoorChanged, FaultCleared, FaultCode, FaultRaised
from vocabulary.events import Event, Events, Listener
from vocabulary.operators import Operator
from vocabulary.rules import Irregularity, Rule, RuleViolation

D = TypeVar("D", bound=Driver)

DEVICE_FAULT = Rule("decision 0017; docs/protocol.md §7", "a fault the device reports latches until cleared")
LINK_LOST = Rule("decision 0017", "a lost link to a device latches until a supervisor clears it")
DEVICE_SWAPPED = Rule(
    "605a.4(c); decision 0017",
    "a device that is not the unit it last accepted, before a restart too (another model or serial number), "
    "latches until a supervisor has checked the new unit against the firmware allow-list and cleared it",
)
IMPOSSIBLE_COUNT = Rule(
    "COMAR 36.05.03.27(C) (analog); decision 0017",
    "a device counting more cards than it was given (a shoe's dispensed and remaining above its batch, "
    "a shuffler delivering more cards than it counted) latches a count fault at once",
)
#: The code of the fault IMPOSSIBLE_COUNT latches, on the host (the device did not find it).
IMPOSSIBLE_COUNT_CODE = "IMPOSSIBLE_COUNT"
EVENTS_OUTRAN = Rule(
    "decision 0017; docs/protocol.md §5.7",
    "a device whose events outrun the table (more waiting than the device's event_queue) latches until a "
    "supervisor clears it; its further events wait unacknowledged on the device, none is lost",
)
DOOR_ACCESS = Rule(
    "461a.10(s); decision 0027",
    "every door or lid of a device opened or closed is an access record in the audit trail, with the "
    "round in play; the device latches DOOR_OPEN while it is open, which holds dealing until a "
    "supervisor clears it with the door closed",
)
DEVICE_REBOOT = Rule(
    "461a.10(s); decision 0027",
    "a device that restarted (a new boot id at the handshake: a power loss, a watchdog) is recorded as "
    "a reboot, with both boot ids",
)
LINK_BACK = Rule(
    "461a.10(s); decision 0017; decision 0027",
    "a lost link that comes back is recorded; its LINK_LOST stays latched until a supervisor clears it",
)
LINE_ERRORS = Rule(
    "461a.10(s); docs/protocol.md §5; decision 0027",
    "errors on a device's line (frames corrupted, lost and sent again, noise) are recorded, each device's "
    "since its last such record, at the end of the round they came in",
)
#: The line-error counters of a link (drivers.host_link.LinkCounters) a record reports.
LINE_ERROR_COUNTERS = (
    "retransmissions",
    "naks_in",
    "naks_out",
    "noise_bytes",
    "stale_responses",
    "duplicate_events",
)
FIRMWARE_UNVERIFIED = Rule(
    f"{CLAUSE}; decision 0026",
    "a device whose firmware fails an authenticity check latches FIRMWARE_UNVERIFIED, which holds the "
    "table until a check passes again and a supervisor clears it",
)
#: The code of the fault FIRMWARE_UNVERIFIED latches (a meter sign's: SIGN_FIRMWARE_UNVERIFIED).
FIRMWARE_UNVERIFIED_CODE = "FIRMWARE_UNVERIFIED"
LINK_REQUIRED = Rule(
    "docs/protocol.md §6.4", "a device is used only over a live link, its identity and firmware checked"
)


@dataclass(frozen=True)
class EquipmentEvent(Event):
    """Something that happened to or on a device that the audit trail keeps as a record of its own
    (a door, a reboot, a shuffle, a batch loaded): its record ``kind``, the ``clause`` it serves, the
    ``device`` by its configured name and ``unit`` its identity as the link knew it then
    (``identity_fields``), and its plain ``fields`` (never a card's face). The table service adds
    the round in play (croupier.service.journal)."""

    kind: str
    clause: str
    device: str
    unit: Mapping[str, str | None]
    fields: Mapping[str, object] = field(default_factory=dict)
    #: When it was made (``time.monotonic_ns``), as an authenticity check's ``made``: the events
    #: kept before anyone listened are written in that order (``take_unheard``), not device by device.
    made: int = field(default_factory=time.monotonic_ns, compare=False)


#: Seconds between status reads while a device still holds events unacknowledged (``events_told``):
#: it sends the one in flight again every 0.3 s (docs/protocol.md §5.7).
EVENT_POLL = 0.05

#: The equipment events a machine keeps for its first listener: far more than a table makes while it
#: opens (a few shuffles and loads), before the table service takes it up.
UNHEARD_KEPT = 1000


@dataclass(frozen=True)
class DeviceIrregularity(Event):
    """An irregularity a device's rules found (the table service writes it to the audit trail)."""

    device: str
    irregularity: Irregularity


class Equipment(Generic[D]):
    """A device's rules over its driver. ``apply`` feeds it the driver's events in order.
    ``irregularities`` holds what the device's rules found irregular. Its ``events`` hub publishes
    each irregularity (``DeviceIrregularity``), equipment event (``EquipmentEvent``) and firmware
    authenticity check (``AuthenticityChecked``) once (decision 0031); the table service listens."""

    def __init__(self, driver: D, latch: FaultLatch | None = None) -> None:
        self.driver = driver
        # ``is None``, not ``or``: an empty latch is falsy, and a shared one must be kept while empty.
        self.latch = latch if latch is not None else FaultLatch()
        self._was_ready = False
        self.link: ConnectionState | None = None  # the link's state as its last event told
        self.irregularities: list[Irregularity] = []
        self.events = Events()
        # Equipment events made before anyone listened (``listen``); bounded, so that a table nobody
        # journals (a simulation without a trail) does not keep its events for ever.
        self._unheard: collections.deque[EquipmentEvent] = collections.deque(maxlen=UNHEARD_KEPT)
        self._links_up: set[str] = set()  # links (by device name) that have been ready
        self._links_lost: dict[str, str] = {}  # lost since they were ready, and why: their return is recorded
        self._line_errors_seen: dict[str, dict[str, int]] = {}  # each link's counters as last reported
        #: The latest authenticity checks of the device's firmware (a meter sign's too), in order (bounded:
        #: a flapping link checks at every return), and the last by device.
        self.checks: collections.deque[AuthenticityChecked] = collections.deque(maxlen=UNHEARD_KEPT)
        self.last_check: dict[str, AuthenticityChecked] = {}
        self._unverified: dict[str, str] = {}  # a FIRMWARE_UNVERIFIED code latched: the device it names

    async def events_told(self) -> None:
        """Until the device holds no event it has not had acknowledged (``DeviceStatus.pending_events``,
        the one in flight included): what it reported while its answers were lost, a cover card
        among them, has then reached the host's event queue, before its counts are judged
        (docs/protocol.md §5.6). An event is never dropped and is sent again until acknowledged
        (§5.7), so this ends within a few resends while the link holds."""
        while (await self.driver.status()).pending_events:
            await asyncio.sleep(EVENT_POLL)

    def irregular(self, rule: Rule, detail: str) -> Irregularity:
        """Record an irregularity the rule found: kept, and published."""
        irregularity = Irregularity(rule, detail)
        self.irregularities.append(irregularity)
        self.events.publish(DeviceIrregularity(self.name, irregularity))
        return irregularity

    def notify(
        self, rule: Rule, kind: str, *, conn: DeviceConnection | None = None, **fields: object
    ) -> None:
        """Tell every listener of an equipment event ``kind`` serving ``rule``, with plain fields, on
        the device of ``conn`` (this device's own by default; a progressive's sign has its own);
        with no listener yet, keep it for the first (``listen``)."""
        conn = conn or self.driver.conn
        event = EquipmentEvent(kind, rule.clause, conn.name, identity_fields(conn.identity), fields)
        if self.events:
            self.events.publish(event)
        else:
            self._unheard.append(event)

    def listen(self, listener: Listener, *, durable: bool = False) -> None:
        """Subscribe ``listener`` to the device's events (``durable``: vocabulary.events.Events), and
        tell it first of the equipment events made before anyone listened: a table opened before the
        table service took it up (a simulated table shuffles and loads its first batches as it
        opens) keeps them for the audit trail."""
        unheard = self.take_unheard()
        self.events.subscribe(listener, durable=durable)
        for event in unheard:
            listener(event)

    def take_unheard(self) -> list[EquipmentEvent]:
        """The events made before anyone listened, handed over (and no longer kept): a listener of
        several devices takes them all first and puts them in the order they were made."""
        unheard, self._unheard = list(self._unheard), collections.deque(maxlen=UNHEARD_KEPT)
        return unheard

    def connections(self) -> tuple[DeviceConnection, ...]:
        """The links this machine's devices answer on: its own (a progressive adds its sign's)."""
        return (self.driver.conn,)

    def report_line_errors(self) -> None:
        """Tell the listeners of the errors on each of its lines since the last report, if any: a
        corrupted frame the host refused (``naks_out``) or the device did (``naks_in``), a frame sent
        again (``retransmissions``), noise on the line; each counter given as it grew."""
        for conn in self.connections():
            now = _line_errors(conn)
            before = self._line_errors_seen.get(conn.name, {})
            grown = {name: count - before.get(name, 0) for name, count in now.items()}
            self._line_errors_seen[conn.name] = now
            if any(count > 0 for count in grown.values()):
                self.notify(
                    LINE_ERRORS, "link_errors", conn=conn, **{k: v for k, v in grown.items() if v > 0}
                )

    def note_link_event(self, conn: DeviceConnection, event: object) -> None:
        """The records a link's own events make, on whichever device of this machine: a door opened
        or closed, a reboot (a new boot id at the handshake) and a lost link come back, with why it
        was lost. (The loss itself is the ``LINK_LOST`` fault the machine latches: one record, not
        two; a link lost again while that fault is still latched shows only in its return.)"""
        if isinstance(event, StateChanged):
            gone = event.state in (ConnectionState.BACKOFF, ConnectionState.FAILED)
            if event.state is ConnectionState.READY:
                if conn.name in self._links_lost:
                    lost = self._links_lost.pop(conn.name)
                    self.notify(LINK_BACK, "link_restored", conn=conn, lost=lost, unit=event.reason)
                self._links_up.add(conn.name)
            elif gone and conn.name in self._links_up:
                self._links_lost[conn.name] = event.reason or "link lost"
        elif isinstance(event, DoorChanged):
            kind = "door_opened" if event.is_open else "door_closed"
            self.notify(DOOR_ACCESS, kind, conn=conn, door=event.door)
        elif isinstance(event, DeviceRebooted):
            boots = {"old_boot_id": event.old_boot_id, "new_boot_id": event.new_boot_id}
            self.notify(DEVICE_REBOOT, "device_reboot", conn=conn, **boots)

    @property
    def name(self) -> str:
        return self.driver.name

    def apply(self, event: object) -> None:
        """Update the rules' view from one driver event; subclasses extend for their own events."""
        self.note_link_event(self.driver.conn, event)
        if isinstance(event, FaultRaised):
            self.latch.latch(Fault(_fault_name(event.code), event.detail, DEVICE_FAULT.clause, "device"))
        elif isinstance(event, StateChanged):
            self.link = event.state
            if event.state is ConnectionState.READY:
                self._was_ready = True
            elif self._was_ready and event.state in (ConnectionState.BACKOFF, ConnectionState.FAILED):
                self.latch.latch(Fault("LINK_LOST", event.reason or "link lost", LINK_LOST.clause, "host"))
        elif isinstance(event, DeviceSwapped | EventsHeldBack):
            self.latch.latch(link_fault(self.name, event))
        elif isinstance(event, AuthenticityChecked):
            self.checked(event)
        elif isinstance(event, FaultCleared):
            pass  # recorded by the service; the host latch is released by ``clear``

    def checked(self, check: AuthenticityChecked, prefix: str = "") -> None:
        """An authenticity check of this device's firmware (``prefix``: a meter sign's, latched on
        its progressive controller): published, and a failure latches FIRMWARE_UNVERIFIED
        naming the expected and the reported digest."""
        self.checks.append(check)
        self.last_check[check.device] = check
        self.events.publish(check)
        if not check.passed:
            code = prefix + FIRMWARE_UNVERIFIED_CODE
            expected = ", ".join(check.expected) or "none"
            detail = (
                f"{check.device}: {check.kind.value} check ({check.trigger.value}) failed: {check.detail}; "
                f"expected {expected}, reported {check.reported or 'nothing'}"
            )
            self._unverified[code] = check.device
            self.latch.latch(Fault(code, detail, FIRMWARE_UNVERIFIED.clause, "host"))

    def unit_of(self, code: str) -> dict[str, str | None]:
        """The identity of the unit a fault ``code`` is about, for its record: this device's."""
        return identity_fields(self.driver.conn.identity)

    def unverified_device(self, code: str) -> str:
        """The device whose failed check latched ``code`` (this one's, or its meter sign's)."""
        return self._unverified.get(code, self.name)

    def require_verified(self, code: str) -> None:
        """A FIRMWARE_UNVERIFIED clears only once the device's last check passed (decision 0026)."""
        device = self.unverified_device(code)
        last = self.last_check.get(device)
        if last is None or not last.passed:
            found = "no check since" if last is None else f"the last check ({last.trigger.value}) failed"
            raise RuleViolation(
                FIRMWARE_UNVERIFIED,
                f"{code} stays: {found}; verify {device} on demand (croupier devices verify {device}) "
                "once the approved firmware is installed, then clear",
            )

    async def clear(self, code: str, operator: Operator) -> None:
        """Clear a latched fault: a supervisor only; a device fault is cleared on the device first,
        which refuses while the condition persists. A swapped device clears only over a live link and
        once the new unit passes the host's checks again (the firmware allow-list): it is then the
        unit the table goes on with."""
        fault = self.latch.authorise_clear(code, operator)
        rule = {"LINK_LOST": LINK_LOST, "DEVICE_SWAPPED": DEVICE_SWAPPED}.get(code)
        if rule is not None and self.link is not ConnectionState.READY:
            state = self.link.value if self.link else "unknown"
            detail = f"{self.name}: the link is {state}; {code} clears once the device is back"
            raise RuleViolation(rule, detail)
        if code == "DEVICE_SWAPPED":
            self.driver.conn.accept_identity()  # HandshakeRejected: the new unit fails a check
        if code.endswith(FIRMWARE_UNVERIFIED_CODE):
            self.require_verified(code)
        if fault.origin == "device":
            await self.driver.clear_fault(FaultCode[code], operator.ident)
        self.latch.release(code)


def link_fault(device: str, event: DeviceSwapped | EventsHeldBack, prefix: str = "") -> Fault:
    """The host fault a connection's report latches on ``device`` (``prefix``: a meter sign's, latched
    on its progressive controller): DEVICE_SWAPPED naming the old and the new unit, or EVENT_OVERFLOW
    naming the bound and the event frames held back."""
    if isinstance(event, DeviceSwapped):
        detail = f"{device} swapped: was {describe(event.old)}; now {describe(event.new)}"
        return Fault(prefix + "DEVICE_SWAPPED", detail, DEVICE_SWAPPED.clause, "host")
    detail = (
        f"{device}: more than {event.limit} events waited to be applied; {event.held} event frame(s) "
        "were left unacknowledged for the device to send again"
    )
    return Fault(prefix + "EVENT_OVERFLOW", detail, EVENTS_OUTRAN.clause, "host")


def _line_errors(conn: DeviceConnection) -> dict[str, int]:
    counters = conn.link.counters
    return {name: getattr(counters, name) for name in LINE_ERROR_COUNTERS}


def _fault_name(code: int) -> str:
    try:
        return FaultCode(code).name
    except ValueError:
        return f"FAULT_{code}"
