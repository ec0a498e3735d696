"""The API tokens the tests use, and the token file as the service requires it: mode 0600 and each
token at least ``MIN_TOKEN_LENGTH`` characters (croupier.api.auth)."""

from __future__ import annotations

from pathlib import Path

DEALER_TOKEN = "dealer-token-0123456789abcdef0123456789"
SUPERVISOR_TOKEN = "floor-token-0123456789abcdef0123456789"


def write_token_file(path: Path, *operators: tuple[str, str, str]) -> Path:
    """Write ``(token, ident, role)`` operators to ``path`` as the service reads them (TOML, 0600);
    by default a dealer D-1 and a supervisor S-1."""
    operators = operators or ((DEALER_TOKEN, "D-1", "dealer"), (SUPERVISOR_TOKEN, "S-1", "supervisor"))
    path.touch(mode=0o600)
    path.chmod(0o600)
    path.write_text(
        "\n".join(
            f'[[operators]]\ntoken = "{token}"\nident = "{ident}"\nrole = "{role}"\n'
            for token, ident, role in operators
        )
    )
    return path
