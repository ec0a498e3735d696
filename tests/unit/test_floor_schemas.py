"""Every kind of floor message has its JSON Schema in croupier/floor_link/schemas/ (the package's,
which the floor service and a linked table check each message against, and docs/floor.md links to),
and each schema is itself valid: the integration tests check every message a table publishes
against them."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

from croupier.floor_link import KINDS
from croupier.floor_link.messages import SCHEMAS

FLOOR_MD = Path(__file__).resolve().parents[2] / "docs" / "floor.md"
#: What the floor sends and a table reads.
READ = ("rebirth", "counted", "host-state", "link-state")


def test_each_kind_has_a_schema_and_no_schema_is_left_over():
    assert sorted(path.name.removesuffix(".schema.json") for path in SCHEMAS.glob("*.schema.json")) == sorted(
        (*KINDS, *READ)
    )


@pytest.mark.parametrize("kind", [*KINDS, *READ])
def test_each_schema_is_valid_and_named_in_floor_md(kind):
    schema = json.loads((SCHEMAS / f"{kind}.schema.json").read_text())
    jsonschema.Draft202012Validator.check_schema(schema)
    assert f"(../croupier/floor_link/schemas/{kind}.schema.json)" in FLOOR_MD.read_text()
