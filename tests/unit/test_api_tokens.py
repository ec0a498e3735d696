"""The token file as the service accepts it: readable by the service user alone, every token long
enough not to be guessed; anything else refused naming the file (and the entry)."""

from __future__ import annotations

from pathlib import Path

import pytest

from croupier.api.auth import MIN_TOKEN_LENGTH, Tokens
from tests.tokens import DEALER_TOKEN, SUPERVISOR_TOKEN, write_token_file
from vocabulary.operators import Role


def test_a_private_file_of_long_tokens_is_read(tmp_path: Path) -> None:
    tokens = Tokens.load(write_token_file(tmp_path / "tokens.toml"))
    dealer, supervisor = tokens.operator(DEALER_TOKEN), tokens.operator(SUPERVISOR_TOKEN)
    assert dealer is not None and (dealer.ident, dealer.role) == ("D-1", Role.DEALER)
    assert supervisor is not None and supervisor.role is Role.SUPERVISOR
    assert tokens.operator(DEALER_TOKEN[:-1]) is None


@pytest.mark.parametrize("mode", [0o640, 0o604, 0o660, 0o644])
def test_a_token_file_that_group_or_others_can_read_is_refused(tmp_path: Path, mode: int) -> None:
    path = write_token_file(tmp_path / "tokens.toml")
    path.chmod(mode)
    with pytest.raises(ValueError, match=rf"^{path}: mode {mode:04o} lets group or others read the tokens"):
        Tokens.load(path)


def test_a_short_token_is_refused_naming_its_entry(tmp_path: Path) -> None:
    short = "x" * (MIN_TOKEN_LENGTH - 1)
    operators = (DEALER_TOKEN, "D-1", "dealer"), (short, "S-1", "supervisor")
    path = write_token_file(tmp_path / "tokens.toml", *operators)
    with pytest.raises(ValueError, match=rf"^{path}: operators\[1\]\.token: shorter than 32 characters"):
        Tokens.load(path)
    write_token_file(path, ("x" * MIN_TOKEN_LENGTH, "S-1", "supervisor"))
    assert Tokens.load(path).operator("x" * MIN_TOKEN_LENGTH) is not None
