"""The ``secret_free`` contract: no face-down card's face enters the audit trail before it is turned up.

A round's records carry face-down cards as commitments already (games/common/records.py); this check
stops a caller who passes a ``Card`` where only a commitment belongs (decision 0018).
"""

from __future__ import annotations

from collections.abc import Mapping

from croupier.audit.record import AuditError
from vocabulary.cards import Card

Plain = str | int | bool | None | list["Plain"] | dict[str, "Plain"]


def secret_free(fields: Mapping[str, object], *, face_down: bool) -> dict[str, Plain]:
    """``fields`` as plain JSON values, faces of face-up cards as text (``As``).

    Refused, before anything is written: a ``Card`` under a key starting with ``hole``, any ``Card`` in
    a record marked ``face_down``, and any value JSON cannot carry exactly. The error names the key,
    never the card.
    """
    return {
        str(key): _plain(value, str(key), face_down or str(key).startswith("hole"))
        for key, value in fields.items()
    }


def _plain(value: object, path: str, secret: bool) -> Plain:
    if isinstance(value, Card):
        if secret:
            raise AuditError(f"field {path!r} holds a face-down card's face; record its commitment instead")
        return str(value)
    if value is None or isinstance(value, str | bool | int):
        return value
    if isinstance(value, list | tuple):
        return [_plain(item, f"{path}[{i}]", secret) for i, item in enumerate(value)]
    if isinstance(value, Mapping):
        return {
            str(k): _plain(v, f"{path}.{k}", secret or str(k).startswith("hole")) for k, v in value.items()
        }
    raise AuditError(
        f"field {path!r} is a {type(value).__name__}; records hold text, numbers, booleans, lists and objects"
    )
