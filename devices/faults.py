"""Faults that latch like regulated gaming equipment, and who may clear them.

A wrong card count, a jam, a lost link or a tamper alarm blocks the device until a supervisor
clears it; a dealer cannot. Enforcement history (decision 0017): a dealer overriding a shuffler's
error light put an extra card in play for 147 hands. The latch is plain data so the table service
can persist it and restore it after a restart (a fault survives a power cycle): each fault latched
or released is published on the latch's ``events`` hub (decision 0031), where the service's journal
listens, durably, to keep it in the state store and the audit trail.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

from vocabulary.events import Event, Events
from vocabulary.operators import SUPERVISOR_CLEARS, Operator, Role
from vocabulary.rules import Rule, RuleViolation

LATCH_BLOCKS = Rule(
    "decision 0017",
    "a latched fault blocks the device until an authorised clear",
)


#: The origin of a fault a linked progressive's link latches (LINK_MISMATCH): it refuses the
#: progressive wagers until a supervisor clears it and holds nothing else, so that nothing the floor
#: tells a table can stop its base game (decision 0039).
LINK_ORIGIN = "link"
#: The fault a message for the floor the table's spool could not take latches (its disk full,
#: read-only, failing): the floor link's own messages and a linked progressive's alike.
SPOOL_UNWRITTEN_CODE = "FLOOR_SPOOL_UNWRITTEN"
SPOOL_UNWRITTEN = Rule(
    "decision 0035",
    "a message for the floor the table cannot spool holds the table until a supervisor clears it",
)


@dataclass(frozen=True)
class Fault:
    """A latched fault: ``code`` names it (a device FaultCode name, or a host-found condition such
    as ``LINK_LOST``), ``origin`` says whether the device must also be told to clear it, or that it
    is the link's (``LINK_ORIGIN``) and holds no device."""

    code: str
    detail: str
    clause: str
    origin: str  # "device", "host" or LINK_ORIGIN

    @property
    def holds(self) -> bool:
        """Whether the fault holds the table: every one but a link's."""
        return self.origin != LINK_ORIGIN


@dataclass(frozen=True)
class FaultLatched(Event):
    """A fault was latched (published once it is)."""

    fault: Fault


@dataclass(frozen=True)
class FaultReleased(Event):
    """A latched fault was released after an authorised clear (published once it is)."""

    fault: Fault


class FaultLatch:
    """The set of latched faults of one device; ``events`` hears each latched and released."""

    def __init__(self) -> None:
        self._faults: dict[str, Fault] = {}
        self.events = Events()

    @property
    def faults(self) -> tuple[Fault, ...]:
        return tuple(self._faults.values())

    @property
    def holding(self) -> tuple[Fault, ...]:
        """The faults that block the device: every one latched but a link's (``Fault.holds``). Asked
        before every card a table deals, mostly of a latch holding none."""
        if not self._faults:
            return ()
        return tuple(fault for fault in self._faults.values() if fault.holds)

    def __bool__(self) -> bool:
        """Whether a fault blocks the device (``holding``)."""
        return bool(self.holding)

    def latch(self, fault: Fault) -> bool:
        """Latch ``fault``; False if one with its code was already latched (kept, not replaced)."""
        if fault.code in self._faults:
            return False
        self._faults[fault.code] = fault
        self.events.publish(FaultLatched(fault))
        return True

    def require_clear(self, action: str) -> None:
        """Refuse ``action`` while a fault that blocks the device is latched (``holding``)."""
        if holding := self.holding:
            names = ", ".join(f"{f.code} ({f.detail})" for f in holding)
            raise RuleViolation(LATCH_BLOCKS, f"{action} refused: latched {names}")

    def authorise_clear(self, code: str, operator: Operator) -> Fault:
        """The fault a supervisor may clear; raises for a dealer or an unknown code."""
        if operator.role is not Role.SUPERVISOR:
            raise RuleViolation(
                SUPERVISOR_CLEARS, f"{operator.ident} ({operator.role.value}) may not clear {code}"
            )
        try:
            return self._faults[code]
        except KeyError:
            raise KeyError(f"{code} is not latched; latched: {sorted(self._faults) or 'none'}") from None

    def release(self, code: str) -> None:
        """Unlatch after an authorised clear (and, for a device fault, the device's own clear)."""
        released = self._faults.pop(code, None)
        if released is not None:
            self.events.publish(FaultReleased(released))

    def to_records(self) -> list[dict[str, str]]:
        return [asdict(f) for f in self._faults.values()]

    def restore(self, records: list[dict[str, str]]) -> None:
        """Latch faults persisted before a restart."""
        for record in records:
            self.latch(Fault(**record))
