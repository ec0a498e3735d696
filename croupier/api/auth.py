"""Bearer tokens and the two roles, dealer and supervisor.

Each token names an operator (employee id) and the role the table service grants; the API acts as
that ``vocabulary.operators.Operator``, so the device rules see who acted. A supervisor-only action asked by
a dealer is refused here with the rule it breaks (``SUPERVISOR_CLEARS``: there is no dealer
override); the device rules would refuse it too. Tokens are compared in constant time.

A browser cannot send the header on a WebSocket and should not keep a token where a script reads it:
it signs in once with the token for a session cookie that every route takes instead
(croupier.api.sessions; docs/decisions/0033-browser-sign-in.md).

A token is a password that deals cards and clears faults, so the file that holds them is refused if
its group or others may read it, and each token must be long enough (``MIN_TOKEN_LENGTH``) that it
cannot be guessed at the rate the API answers.
"""

from __future__ import annotations

import hmac
import json
import stat
import tomllib
from collections.abc import Mapping
from pathlib import Path

from aiohttp import web

from croupier.api.errors import error_body
from croupier.api.sessions import COOKIE, Sessions, from_cookie
from vocabulary.operators import SUPERVISOR_CLEARS, Operator, Role

#: 32 characters of a random token (for example ``openssl rand -hex 16``) are 128 bits.
MIN_TOKEN_LENGTH = 32


class Tokens:
    """The accepted tokens: token -> Operator."""

    def __init__(self, tokens: Mapping[str, Operator]) -> None:
        if any(not token for token in tokens):
            raise ValueError("tokens: an empty token would let anyone in")
        self._tokens = [(token.encode(), operator) for token, operator in tokens.items()]

    @classmethod
    def load(cls, path: Path) -> Tokens:
        """Read a token file, TOML or JSON by its suffix: a list ``operators`` of tables with
        ``token``, ``ident`` and ``role`` ("dealer" or "supervisor"). Refused, naming the file,
        when group or others may read it or a token is shorter than ``MIN_TOKEN_LENGTH``."""
        mode = path.stat().st_mode
        if mode & (stat.S_IRWXG | stat.S_IRWXO):
            raise ValueError(
                f"{path}: mode {stat.S_IMODE(mode):04o} lets group or others read the tokens "
                f"(chmod 0600 {path}, owned by the service user)"
            )
        text = path.read_text()
        try:
            data = json.loads(text) if path.suffix == ".json" else tomllib.loads(text)
        except ValueError as error:  # TOMLDecodeError and JSONDecodeError name no file
            raise ValueError(f"{path}: {error}") from None
        tokens: dict[str, Operator] = {}
        for index, entry in enumerate(data.get("operators", [])):
            try:
                token, operator = entry["token"], Operator(entry["ident"], Role(entry["role"]))
            except (KeyError, ValueError, TypeError) as error:
                raise ValueError(f"{path}: operators[{index}]: {error!r}") from None
            if not isinstance(token, str) or len(token) < MIN_TOKEN_LENGTH:
                raise ValueError(
                    f"{path}: operators[{index}].token: shorter than {MIN_TOKEN_LENGTH} characters "
                    "(make one with: openssl rand -hex 16)"
                )
            tokens[token] = operator
        return cls(tokens)

    def __len__(self) -> int:
        """How many operators hold a token."""
        return len(self._tokens)

    def operator(self, token: str) -> Operator | None:
        """The token's operator; every token is compared, so timing tells nothing of a near miss."""
        found = None
        given = token.encode()
        for known, operator in self._tokens:
            if hmac.compare_digest(given, known):
                found = operator
        return found


def authenticate(
    tokens: Tokens, sessions: Sessions[Operator], request: web.Request
) -> Operator | web.Response:
    """The request's operator, by its bearer token or else its browser session (croupier.api.sessions),
    or the 401 (a session used from another origin: 403) to return."""
    header = request.headers.get("Authorization")
    if header is None and COOKIE in request.cookies:
        return from_cookie(sessions, request)
    scheme, _, token = (header or "").partition(" ")
    if scheme.lower() != "bearer" or not token:
        return _unauthorised(
            "missing bearer token (Authorization: Bearer <token>) or session (POST /v1/session)"
        )
    operator = tokens.operator(token.strip())
    return operator if operator is not None else _unauthorised("unknown token")


def forbid_dealer(operator: Operator) -> web.Response | None:
    """A 403 naming the rule when a non-supervisor asks a supervisor-only action."""
    if operator.role is Role.SUPERVISOR:
        return None
    return error_body(
        403,
        f"{operator.ident} ({operator.role.value}) may not do this: {SUPERVISOR_CLEARS.summary}",
        SUPERVISOR_CLEARS.clause,
    )


def _unauthorised(message: str) -> web.Response:
    response = error_body(401, message)
    response.headers["WWW-Authenticate"] = 'Bearer realm="croupier"'
    return response
