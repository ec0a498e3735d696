"""Forward-secure sealing of the audit trail (docs/audit.md §8, docs/decisions/0021).

The trail's hash chain shows a changed record only to someone who did not recompute the chain;
whoever can write the audit directory can recompute it. Each record is therefore also sealed: an
HMAC-SHA256 tag under the key of its *epoch*. Epoch keys form a one-way chain,
``k(i+1) = SHA-256("croupier-fss-evolve" || k(i))`` (the hash-chain forward-secure generator of
Bellare and Yee, 2003): the table PC holds only the current key and overwrites it with the next at
each epoch (every ``period`` seconds, and at each file rotation), so whoever takes the PC at epoch i
learns k(i) and can seal from epoch i on, never before. The verification key is k(0), generated once
(``croupier audit keys``) and kept off the PC; from it the verifier recomputes every k(i).

k(0) can also seal any epoch: it must be kept like the trail's own signature stamp (docs/audit.md).
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import secrets
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from croupier.audit.record import AuditError, canonical

#: Seconds of wall time in one epoch: the longest a key stays on the PC while records are written.
PERIOD = 15 * 60
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


def epoch_at(start: datetime, period: int, when: datetime) -> int:
    """The epoch the clock alone puts ``when`` in: epoch 1 is the first ``period`` after ``start``
    (epoch 0 is the verification key itself and seals nothing)."""
    return 1 + max(0, int((when - start).total_seconds()) // period)


@dataclass(frozen=True)
class VerificationKey:
    """k(0) with what it seals: the table, when epoch 1 began and the epoch length."""

    table: str
    start: datetime
    period: int
    seed: bytes

    @property
    def ident(self) -> str:
        return key_id(self.seed)

    def keys(self) -> _KeyWalk:
        return _KeyWalk(self.seed)

    def text(self) -> bytes:
        return _key_text(VERIFICATION, self.table, self.start, self.period, 0, self.seed, self.ident)

    @classmethod
    def read(cls, path: Path) -> VerificationKey:
        data = _read_key(path, VERIFICATION)
        return cls(data["table"], datetime.fromisoformat(data["start"]), data["period"], data["key"])


class _KeyWalk:
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
    """The key the table PC holds: k(epoch) at ``path``, mode 0600, beside the state database."""

    path: Path
    table: str
    start: datetime
    period: int
    epoch: int
    key: bytes
    ident: str

    @classmethod
    def read(cls, path: Path) -> SealingKey:
        data = _read_key(path, SEALING)
        if not isinstance(data.get("epoch"), int) or data["epoch"] < 1:
            raise AuditError(f"{path}: not a sealing key: epoch must be a number from 1")
        start = datetime.fromisoformat(data["start"])
        return cls(Path(path), data["table"], start, data["period"], data["epoch"], data["key"], data["id"])

    def epoch_for(self, when: datetime) -> int:
        """The epoch to seal a record made at ``when``: never before the key's own."""
        return max(self.epoch, epoch_at(self.start, self.period, when))

    def advanced(self, epoch: int) -> SealingKey:
        """The key of ``epoch``, stored in place of this one (atomically, the old bytes
        overwritten) before it is returned: from then on this key exists nowhere on the PC."""
        if epoch <= self.epoch:
            return self
        key = self.key
        for _ in range(epoch - self.epoch):
            key = evolve(key)
        later = replace(self, epoch=epoch, key=key)
        write_secret(self.path, later.text())
        return later

    def seal(self, data: bytes) -> str:
        return tag(self.key, data)

    def text(self) -> bytes:
        return _key_text(SEALING, self.table, self.start, self.period, self.epoch, self.key, self.ident)


def generate(table: str, now: datetime, period: int = PERIOD) -> tuple[VerificationKey, bytes]:
    """A new verification key and the text of the table's first sealing key, k(1): the PC is never
    given k(0)."""
    if period < 60:
        raise AuditError(f"an epoch of {period} s is too short (at least 60 s)")
    verify = VerificationKey(table, now.astimezone(UTC), period, secrets.token_bytes(KEY_BYTES))
    first = _key_text(SEALING, table, verify.start, period, 1, evolve(verify.seed), verify.ident)
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
        _sync_directory(path.parent)
        if old is not None:
            os.pwrite(old, b"\0" * os.fstat(old).st_size, 0)
            os.fsync(old)
    finally:
        if old is not None:
            os.close(old)


def _sync_directory(directory: Path) -> None:
    fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _key_text(
    what: str, table: str, start: datetime, period: int, epoch: int, key: bytes, ident: str
) -> bytes:
    body = {
        "kind": what,
        "table": table,
        "start": start.isoformat(timespec="milliseconds"),
        "period": period,
        "epoch": epoch,
        "id": ident,
        "key": key.hex(),
    }
    return canonical(body) + b"\n"


def _read_key(path: Path, what: str) -> dict[str, Any]:
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
        datetime.fromisoformat(data["start"])
        valid = len(key) == KEY_BYTES and isinstance(data["period"], int) and data["period"] > 0
    except (KeyError, TypeError, ValueError):
        valid = False
    if not valid or not isinstance(data.get("table"), str):
        raise AuditError(f"{path}: the key file is damaged")
    return {**data, "key": key}
