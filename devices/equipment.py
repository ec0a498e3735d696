"""The base of every device-class rule machine: driver, fault latch, and the device's events.

Subclasses declare a ``transitions.Machine`` for their own states. Per decision 0019: no
``to_<state>()`` backdoors (``auto_transitions=False``); checks and device I/O in conditions and
``before`` callbacks, which can still abort; ``on_enter``/``after`` only record.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Generic, TypeVar

from devices.faults import Fault, FaultLatch, Operator
from devices.rules import Irregularity, Rule, RuleViolation
from drivers.authenticity import CLAUSE, AuthenticityChecked
from drivers.connection import ConnectionState, DeviceSwapped, EventsHeldBack, StateChanged, describe
from drivers.driver import Driver
from drivers.protocol.core import FaultCleared, FaultCode, FaultRaised

D = TypeVar("D", bound=Driver)

DEVICE_FAULT = Rule("decision 0017; docs/protocol.md §7", "a fault the device reports latches until cleared")
LINK_LOST = Rule("decision 0017", "a lost link to a device latches until a supervisor clears it")
DEVICE_SWAPPED = Rule(
    "605a.4(c); decision 0017",
    "a device that is not the unit the table opened with (another model or serial number) latches until "
    "a supervisor has checked the new unit against the firmware allow-list and cleared it",
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


class Equipment(Generic[D]):
    """A device's rules over its driver. ``apply`` feeds it the driver's events in order.
    ``irregularities`` holds what the device's rules found irregular, each also told to the
    ``irregularity_listeners`` (the table service writes them to the audit trail)."""

    def __init__(self, driver: D, latch: FaultLatch | None = None) -> None:
        self.driver = driver
        # ``is None``, not ``or``: an empty latch is falsy, and a shared one must be kept while empty.
        self.latch = latch if latch is not None else FaultLatch()
        self._was_ready = False
        self.link: ConnectionState | None = None  # the link's state as its last event told
        self.irregularities: list[Irregularity] = []
        self.irregularity_listeners: list[Callable[[Irregularity], None]] = []
        #: Each authenticity check of the device's firmware (a meter sign's too), in order, and who
        #: hears of each (the table service records it); the last one by device.
        self.checks: list[AuthenticityChecked] = []
        self.check_listeners: list[Callable[[AuthenticityChecked], None]] = []
        self.last_check: dict[str, AuthenticityChecked] = {}
        self._unverified: dict[str, str] = {}  # a FIRMWARE_UNVERIFIED code latched: the device it names

    def irregular(self, rule: Rule, detail: str) -> Irregularity:
        """Record an irregularity the rule found: kept, and told to every listener."""
        irregularity = Irregularity(rule, detail)
        self.irregularities.append(irregularity)
        for listener in self.irregularity_listeners:
            listener(irregularity)
        return irregularity

    @property
    def name(self) -> str:
        return self.driver.name

    def apply(self, event: object) -> None:
        """Update the rules' view from one driver event; subclasses extend for their own events."""
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
        its progressive controller): told to the listeners, and a failure latches FIRMWARE_UNVERIFIED
        naming the expected and the reported digest."""
        self.checks.append(check)
        self.last_check[check.device] = check
        for listener in self.check_listeners:
            listener(check)
        if not check.passed:
            code = prefix + FIRMWARE_UNVERIFIED_CODE
            expected = ", ".join(check.expected) or "none"
            detail = (
                f"{check.device}: {check.kind.value} check ({check.trigger.value}) failed: {check.detail}; "
                f"expected {expected}, reported {check.reported or 'nothing'}"
            )
            self._unverified[code] = check.device
            self.latch.latch(Fault(code, detail, FIRMWARE_UNVERIFIED.clause, "host"))

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


def _fault_name(code: int) -> str:
    try:
        return FaultCode(code).name
    except ValueError:
        return f"FAULT_{code}"
