"""The systemd units' sandboxes (config/systemd/): the table service's and the floor service's, each
rated 4.0 or better by `systemd-analyze security` with every setting known to systemd; the table's
still open where the table needs it: its serial and USB devices, its state directory, the API's
sockets, sd_notify and the watchdog."""

from __future__ import annotations

import re
import shutil
import subprocess
from collections import defaultdict
from pathlib import Path

import pytest

from tests import debian

ROOT = Path(__file__).resolve().parents[2]
UNIT = ROOT / "config" / "systemd" / "croupier.service"
#: A floor server's (docs/floor.md).
FLOOR_UNIT = ROOT / "config" / "systemd" / "croupier-floor.service"
WORST_EXPOSURE = 4.0


def unit_settings() -> dict[str, list[str]]:
    """Each key of the unit's [Service] section with its values, in order (keys may repeat)."""
    settings: dict[str, list[str]] = defaultdict(list)
    section = ""
    for line in UNIT.read_text().splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("["):
            section = line
        elif section == "[Service]":
            key, _, value = line.partition("=")
            settings[key].append(value)
    return settings


def security_report(unit: Path) -> subprocess.CompletedProcess[str]:
    analyze = shutil.which("systemd-analyze")
    if analyze is None:
        debian.missing("systemd", "systemd-analyze is not installed")
    usage = subprocess.run([analyze, "security", "--help"], capture_output=True, text=True)
    if "--offline" not in usage.stdout:
        pytest.skip("this systemd-analyze cannot rate a unit file offline: systemd 250 or newer needed")
    return subprocess.run(
        [analyze, "security", "--offline=true", "--no-pager", str(unit)],
        capture_output=True,
        text=True,
        timeout=60,
    )


@pytest.mark.parametrize("unit", [UNIT, FLOOR_UNIT], ids=lambda unit: unit.name)
def test_systemd_analyze_rates_the_unit_4_0_or_better(unit: Path):
    report = security_report(unit)
    found = re.search(rf"Overall exposure level for {re.escape(unit.name)}: (\d+\.\d+)", report.stdout)
    assert found, report.stdout + report.stderr
    exposure = float(found.group(1))
    open_settings = "\n".join(line for line in report.stdout.splitlines() if line.startswith("✗"))
    assert exposure <= WORST_EXPOSURE, f"exposure {exposure}; still open:\n{open_settings}"


@pytest.mark.parametrize("unit", [UNIT, FLOOR_UNIT], ids=lambda unit: unit.name)
def test_systemd_knows_every_setting_of_the_unit(unit: Path):
    report = security_report(unit)
    assert "Unknown" not in report.stderr, report.stderr
    assert "Failed to parse" not in report.stderr, report.stderr


def test_the_sandbox_keeps_what_the_table_needs():
    settings = unit_settings()
    assert settings["Type"] == ["notify"]  # readiness and the watchdog (croupier/service/systemd.py)
    assert settings["WatchdogSec"]
    assert settings["SupplementaryGroups"] == ["dialout"]  # serial adapters
    assert settings["StateDirectory"] == ["croupier"]  # /var/lib/croupier: state, audit trail, key
    assert settings["DevicePolicy"] == ["closed"]
    allowed = {value.split()[0] for value in settings["DeviceAllow"]}
    assert {"char-ttyS", "char-ttyUSB", "char-ttyACM", "char-usb_device"} <= allowed
    families = {family for value in settings["RestrictAddressFamilies"] for family in value.split()}
    # The API and device servers; sd_notify and the journal; libusb's hotplug monitor.
    assert families == {"AF_INET", "AF_INET6", "AF_UNIX", "AF_NETLINK"}
    assert "PrivateDevices" not in settings  # it would hide /dev/tty* and /dev/bus/usb
    assert "PrivateNetwork" not in settings  # the API and the device servers
