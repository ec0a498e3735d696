"""The rules and pay tables in force, as plain values, for recomputing settlements.

A trail from this version records them itself (a ``rules_in_force`` record at table open, written
by croupier.service.journal), so a regulator holding only the trail can judge it. An older trail
is judged with the ``[rules]`` of the table configuration given by ``--config``, or the game's
defaults: the game's configuration schema reads them (it is configuration, not round code).
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

from croupier.audit.record import AuditError
from games import registry

RULES_IN_FORCE = "rules_in_force"


def configured(game: str, config: Path | None) -> dict[str, Any]:  # Any: configured values (TOML)
    """``game``'s rules from ``config``'s ``[rules]`` (all defaults without it), as plain values."""
    mapping: dict[str, Any] = {}  # Any: configured values (TOML)
    if config is not None:
        try:
            document = tomllib.loads(Path(config).read_text())
        except (OSError, tomllib.TOMLDecodeError) as exc:
            raise AuditError(f"--config {config}: {exc}") from None
        if document.get("table", {}).get("game", game) == game:
            mapping = dict(document.get("rules", {}))
    try:
        return registry.game(game).rules.from_mapping(mapping).plain()
    except (KeyError, ValueError) as exc:
        raise AuditError(f"--config {config}: the rules of {game} cannot be read: {exc}") from None
