"""Forward-secure sealing of the audit trail (docs/audit.md §8, docs/decisions/0021).

The trail's hash chain shows a changed record only to someone who did not recompute the chain;
whoever can write the audit directory can recompute it. Each record is therefore also sealed: an
HMAC-SHA256 tag under the key of its *epoch*. Epoch keys form a one-way chain,
``k(i+1) = SHA-256("croupier-fss-evolve" || k(i))`` (the hash-chain forward-secure generator of
Bellare and Yee, 2003): the table PC holds only the current key and overwrites it with the next at
each epoch's end, so whoever takes the PC at epoch i learns k(i) and can seal from epoch i on, never
before. An epoch ends when a new file begins or ``period`` seconds after it began, whichever comes
first; its number is all a verifier needs. The verification key is k(0), generated once
(``croupier audit keys``) and kept off the PC; from it the verifier recomputes every k(i).

k(0) can also seal any epoch: it must be kept like the casino's own seals (docs/audit.md).
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import secrets
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from croupier.audit.record import AuditError, canonical
from croupier.audit.rotation import sync_directory

#: Seconds of wall time in one epoch: the longest a key stays on the PC while records are written.
PERIOD = 15 * 60
MIN_PERIOD = 60
KEY_BYTES = 32
_EVOLVE = b"croupier-fss-evolve"
_IDENT = b"croupier-fss-key-id"
VERIFICATION = "croupier-verification-key"
SEALING = "croupier-sealing-key"


def evolve(key: bytes) -> bytes:
    """The next epoch's key; the previous one cannot be computed from it."""
    return hashlib.sha256(_EVOLVE + key).digest()


def tag(key: bytes, data: bytes) -> str:
    return hmac.new(key, data, hashlib.sha256).hexdigest()


def key_id(seed: bytes) -> str:
    """Names the key pair in each sealed file's header, so that a verifier holding the wrong
    verification key is told so rather than shown every record as forged. Reveals nothing of the key."""
    return hashlib.sha256(_IDENT + seed).hexdigest()[:16]


@dataclass(frozen=True)
class VerificationKey:
    """k(0) with what it seals: the table, and when it was made."""

    table: str
    start: datetime
    seed: bytes

    @property
    def ident(self) -> str:
        return key_id(self.seed)

    def keys(self) -> KeyWalk:
        return KeyWalk(self.seed)

    def text(self) -> bytes:
        return _key_text(VERIFICATION, self.table, self.ident, self.seed, start=_time(self.start))

    @classmethod
    def read(cls, path: Path) -> VerificationKey:
        data = _read_key(path, VERIFICATION, ("start",))
        return cls(data["table"], datetime.fromisoformat(data["start"]), data["key"])


class KeyWalk:
    """Epoch keys from k(0) upwards, for a verifier reading records in order (epochs never go back)."""

    def __init__(self, seed: bytes) -> None:
        self._epoch, self._key = 0, seed

    def key(self, epoch: int) -> bytes:
        if epoch < self._epoch:
            raise AuditError(f"epoch {epoch} comes after epoch {self._epoch}")
        while self._epoch < epoch:
            self._key, self._epoch = evolve(self._key), self._epoch + 1
        return self._key


@dataclass(frozen=True)
class SealingKey:
    """The key the table PC holds: k(epoch) at ``path``, mode 0600, beside the state database; its
    epoch began at ``since`` and ends ``period`` seconds later."""

    path: Path
    table: str
    ident: str
    period: int
    epoch: int
    since: datetime
    key: bytes

    @classmethod
    def read(cls, path: Path) -> SealingKey:
        data = _read_key(path, SEALING, ("since",))
        if not isinstance(data.get("epoch"), int) or data["epoch"] < 1:
            raise AuditError(f"{path}: the key file is damaged (epoch)")
        if not isinstance(data.get("period"), int) or data["period"] < MIN_PERIOD:
            raise AuditError(f"{path}: the key file is damaged (period)")
        since = datetime.fromisoformat(data["since"])
        return cls(Path(path), data["table"], data["id"], data["period"], data["epoch"], since, data["key"])

    def current(self, now: datetime) -> SealingKey:
        """The key for a record made at ``now``: moved on by every whole period since this epoch
        began, so that no key seals for longer than one period of wall time."""
        periods = int((now - self.since).total_seconds()) // self.period
        if periods <= 0:
            return self
        return self._advanced(self.epoch + periods, self.since + timedelta(seconds=periods * self.period))

    def next(self, now: datetime) -> SealingKey:
        """The key of a new epoch beginning ``now`` (a new file)."""
        return self._advanced(self.epoch + 1, now)

    def _advanced(self, epoch: int, since: datetime) -> SealingKey:
        """The key of ``epoch``, stored in place of this one (atomically, the old bytes
        overwritten) before it is returned: from then on this key exists nowhere on the PC."""
        key = self.key
        for _ in range(epoch - self.epoch):
            key = evolve(key)
        later = replace(self, epoch=epoch, since=since, key=key)
        write_secret(self.path, later.text())
        return later

    def seal(self, data: bytes) -> str:
        return tag(self.key, data)

    def text(self) -> bytes:
        more = {"epoch": self.epoch, "since": _time(self.since), "period": self.period}
        return _key_text(SEALING, self.table, self.ident, self.key, **more)


def generate(table: str, now: datetime, period: int = PERIOD) -> tuple[VerificationKey, bytes]:
    """A new verification key and the text of the table's first sealing key, k(1): the PC is never
    given k(0)."""
    if period < MIN_PERIOD:
        raise AuditError(f"an epoch of {period} s is too short (at least {MIN_PERIOD} s)")
    verify = VerificationKey(table, now.astimezone(UTC), secrets.token_bytes(KEY_BYTES))
    first = _key_text(
        SEALING, table, verify.ident, evolve(verify.seed), epoch=1, since=_time(verify.start), period=period
    )
    return verify, first


def write_secret(path: Path, text: bytes) -> None:
    """Replace ``path`` with ``text`` (mode 0600) so that a crash leaves the old file or the new, and
    then overwrite the old file's bytes, so the old key is not left in the freed blocks (as far as the
    file system writes in place: docs/audit.md §8 says where it does not)."""
    path = Path(path)
    temporary = path.with_name(path.name + ".new")
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        os.write(fd, text)
        os.fsync(fd)
    finally:
        os.close(fd)
    try:
        old = os.open(path, os.O_WRONLY)
    except FileNotFoundError:
        old = None
    try:
        os.replace(temporary, path)
        sync_directory(path.parent)
        if old is not None:
            os.pwrite(old, b"\0" * os.fstat(old).st_size, 0)
            os.fsync(old)
    finally:
        if old is not None:
            os.close(old)


def _time(when: datetime) -> str:
    return when.astimezone(UTC).isoformat(timespec="milliseconds")


def _key_text(what: str, table: str, ident: str, key: bytes, **more: Any) -> bytes:  # Any: JSON values
    return canonical({"kind": what, "table": table, "id": ident, "key": key.hex(), **more}) + b"\n"


def _read_key(path: Path, what: str, times: tuple[str, ...]) -> dict[str, Any]:  # Any: JSON values
    """A key file's fields, ``key`` as bytes; the error names the file, never the key."""
    try:
        data = json.loads(Path(path).read_bytes())
    except OSError as exc:
        raise AuditError(f"{path}: cannot read the key file: {exc.strerror}") from None
    except ValueError:
        raise AuditError(f"{path}: not a key file") from None
    if not isinstance(data, dict) or data.get("kind") != what:
        raise AuditError(f"{path}: not a {what.removeprefix('croupier-').replace('-', ' ')} file")
    try:
        key = bytes.fromhex(data["key"])
        for name in times:
            datetime.fromisoformat(data[name])
        valid = len(key) == KEY_BYTES and isinstance(data["table"], str) and isinstance(data["id"], str)
    except (KeyError, TypeError, ValueError):
        valid = False
    if not valid:
        raise AuditError(f"{path}: the key file is damaged")
    return {**data, "key": key}
