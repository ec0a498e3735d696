"""Errors raised by drivers, each classed by who can fix it.

The supervisor decides from the class: a transient failure is retried with backoff, one that needs
an operator is retried slowly and raised to the dealer's screen, a fatal one stops the device
until the configuration or the equipment changes.
"""

from __future__ import annotations

import enum


class Severity(enum.Enum):
    TRANSIENT = "transient"  # noise, a timeout, an unplug: retry on its own
    NEEDS_OPERATOR = "needs-operator"  # a port in use, a permission, a latched fault: a person acts
    FATAL = "fatal"  # wrong device, firmware not authorised, bad configuration: never retried


class DriverError(Exception):
    """Base of driver errors; ``severity`` says who can fix it."""

    severity = Severity.TRANSIENT


class TransportError(DriverError):
    """The byte stream failed: open, read or write."""


class DeviceNotFound(TransportError):
    """Nothing at the configured address (unplugged, powered off, wrong path)."""


class PortBusy(TransportError):
    """Another program holds the port exclusively."""

    severity = Severity.NEEDS_OPERATOR


class PortPermissionDenied(TransportError):
    """The service account may not open the port (udev rules, group membership)."""

    severity = Severity.NEEDS_OPERATOR


class LinkLost(TransportError):
    """The link dropped while open (unplug, cable, device power)."""


class CommandTimeout(DriverError):
    """No response after every retry."""


class OutcomeUnknown(DriverError):
    """A card-moving command was sent but its result never came back: the host must not resend it
    blindly. Reconcile with the device's counts before dealing on (docs/protocol.md §5)."""

    severity = Severity.NEEDS_OPERATOR


class DeviceRefused(DriverError):
    """The device answered with a non-OK status; ``status`` and the device's own words."""

    severity = Severity.NEEDS_OPERATOR

    def __init__(self, command: str, status: str, detail: str) -> None:
        super().__init__(f"{command} refused by device: {status}: {detail}")
        self.command = command
        self.status = status
        self.detail = detail


class HandshakeRejected(DriverError):
    """The device is not the one configured, speaks another protocol version, or runs firmware that
    is not on the allow-list (605a.4(c) software authenticity)."""

    severity = Severity.FATAL


class BadAddress(DriverError):
    """The configured device URL cannot name a device (a malformed usb:// or serial URL)."""

    severity = Severity.FATAL


class NotConnected(DriverError):
    """A command was asked of a device that is not ready."""
