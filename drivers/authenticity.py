"""Firmware authenticity: what the host holds to verify a device's firmware, and the result of each check.

Control software must be verifiable for authenticity, and verified at start-up, on demand and every
24 hours, with a report of each check (58 Pa. Code § 605a.4(c), § 461a.20(b), § 461a.10(s)). The
host holds the approved firmware of each device: the SHA-256 hashes of the allow-list and, where it
has them, the approved images themselves. For a reported hash whose image the host holds, the check
is a challenge (docs/protocol.md §6.6): the host sends a fresh nonce and compares the device's
HMAC-SHA256 over nonce and running image with its own over the approved image, so a device cannot
pass by replaying a stored hash. For a hash with no image, the check is the comparison of the hash the
device reports with the allow-list, and the result says which kind of check was made (decision 0026).
"""

from __future__ import annotations

import enum
import hashlib
import time
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

from drivers.protocol.core import Identity
from vocabulary.events import Event

#: The clauses every check serves, named in its record and in the fault a failed check latches.
CLAUSE = "58 Pa. Code § 605a.4(c), § 461a.20(b)"
#: The longest (and default) time between two due checks: every 24 hours (§ 461a.20(b)).
MAX_INTERVAL = 24 * 3600.0


class Trigger(enum.StrEnum):
    """Why a check was made."""

    STARTUP = "start-up"  # the first handshake since the service started
    RECONNECT = "reconnect"  # a handshake after the link was lost or the device rebooted
    DUE = "due"  # the interval since the last due or on-demand check ran out
    ON_DEMAND = "on demand"  # a supervisor asked (croupier devices verify, POST /v1/devices/{name}/verify)


class CheckKind(enum.StrEnum):
    """What was compared."""

    HASH = "hash"  # the SHA-256 the device reports against the allow-list
    CHALLENGE = "challenge"  # the device's HMAC-SHA256 over a nonce and its image against the host's


def images_by_hash(images: Iterable[bytes]) -> Mapping[bytes, bytes]:
    """The approved images the host holds, by their SHA-256: what a reported hash is challenged with."""
    return MappingProxyType({hashlib.sha256(image).digest(): image for image in images})


@dataclass(frozen=True)
class AuthenticityChecked(Event):
    """One authenticity check of a device's firmware, passed or failed: a connection event, applied
    to the device's machine (a failure latches FIRMWARE_UNVERIFIED) and written to the audit trail.

    ``expected``: the allow-listed hashes (a hash check) or the digest of the approved image (a
    challenge), hex; ``reported``: the device's hash or digest, hex ("" when it gave none);
    ``nonce``: the challenge's, hex ("" for a hash check); ``next_due``: when the next due check is,
    in seconds since the epoch."""

    device: str
    trigger: Trigger
    kind: CheckKind
    identity: Identity
    expected: tuple[str, ...]
    reported: str
    passed: bool
    detail: str
    next_due: float
    nonce: str = ""
    #: When it was made (``time.monotonic_ns``): a check made before the service listened is written
    #: in order with the equipment events of the same time (croupier.service.journal).
    made: int = field(default_factory=time.monotonic_ns, compare=False)

    def fields(self) -> dict[str, object]:
        """The audit record's fields (docs/audit.md §4, ``authenticity_check``)."""
        return {
            "device": self.device,
            **identity_fields(self.identity),
            "check": self.kind.value,
            "trigger": self.trigger.value,
            "nonce": self.nonce,
            "expected": list(self.expected),
            "reported": self.reported,
            "result": "passed" if self.passed else "failed",
            "detail": self.detail,
            "clause": CLAUSE,
        }


def identity_fields(identity: Identity | None) -> dict[str, str | None]:
    """The unit a record is about, as the handshake identified it: model (vendor and model),
    serial number, firmware version and the firmware's hash (hex), which a regulator compares with
    the approved list (605a.4(c)). A device not yet identified (no handshake since the service
    started) gives nulls: the record still says which device, by its configured name."""
    if identity is None:
        return {"model": None, "serial": None, "firmware": None, "firmware_hash": None}
    return {
        "model": f"{identity.vendor} {identity.model}",
        "serial": identity.serial_number,
        "firmware": identity.firmware_version,
        "firmware_hash": identity.firmware_hash.hex(),
    }


def hash_check(allow_list: Collection[bytes], identity: Identity) -> tuple[bool, str]:
    """Whether the hash ``identity`` reports is on the allow-list, and what people are told."""
    reported = identity.firmware_hash.hex()
    if identity.firmware_hash in allow_list:
        return True, f"firmware {identity.firmware_version} hash {reported} is on the allow-list"
    return False, f"firmware {identity.firmware_version} hash {reported} is not on the allow-list"
