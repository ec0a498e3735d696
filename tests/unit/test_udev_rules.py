"""The udev rules (config/udev/99-croupier.rules) cover every device the example configurations and
the docs name: each usb://VID:PID gets group croupier, each /dev/croupier/NAME is made by a rule."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
RULES = ROOT / "config" / "udev" / "99-croupier.rules"
USB_ID = re.compile(r"usb://([0-9A-Fa-f]{4}):([0-9A-Fa-f]{4})")
CROUPIER_NAME = re.compile(r"/dev/croupier/([a-z0-9][a-z0-9_-]*)")
ASSIGNMENT = re.compile(r'([A-Z]+(?:\{[^}]*\})?)\s*(==|!=|\+=|-=|:=|=)\s*"([^"]*)"')


def examples() -> list[Path]:
    """The example configurations and the pages of the docs, where a user copies device names from."""
    configurations = sorted((ROOT / "config").rglob("*.toml"))
    return [*configurations, ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]


def rules() -> list[dict[str, str]]:
    """Each rule of the file as {"KEY op": value}, continued lines joined, comments left out."""
    text = re.sub(r"\\\n", " ", RULES.read_text())
    parsed = []
    for line in text.splitlines():
        if line.strip() and not line.lstrip().startswith("#"):
            parsed.append({f"{key} {op}": value for key, op, value in ASSIGNMENT.findall(line)})
    return parsed


def grants_the_service(rule: dict[str, str]) -> bool:
    return rule.get("GROUP =") == "croupier" and rule.get("MODE =") == "0660"


def usb_ids() -> set[tuple[str, str]]:
    found = (USB_ID.findall(path.read_text()) for path in examples())
    return {(vid.lower(), pid.lower()) for ids in found for vid, pid in ids}


def croupier_names() -> set[str]:
    return {name for path in examples() for name in CROUPIER_NAME.findall(path.read_text())}


def test_the_examples_name_devices_at_all():
    assert ("1209", "0003") in usb_ids()
    assert "shoe" in croupier_names()


@pytest.mark.parametrize("vid, pid", sorted(usb_ids()))
def test_each_usb_id_the_examples_use_is_given_to_the_service(vid, pid):
    covering = [
        rule
        for rule in rules()
        if rule.get("SUBSYSTEM ==") == "usb"
        and rule.get("ATTR{idVendor} ==", "").lower() == vid
        and rule.get("ATTR{idProduct} ==", "").lower() == pid
    ]
    assert covering, f"no rule in {RULES.name} for USB device {vid}:{pid}"
    assert all(grants_the_service(rule) for rule in covering), covering


@pytest.mark.parametrize("name", sorted(croupier_names()))
def test_each_croupier_name_the_examples_use_is_made_by_a_rule(name):
    making = [
        rule
        for rule in rules()
        if rule.get("SUBSYSTEM ==") == "tty" and f"croupier/{name}" in rule.get("SYMLINK +=", "").split()
    ]
    assert making, f"no rule in {RULES.name} makes /dev/croupier/{name}"
    assert all(grants_the_service(rule) for rule in making), making
