"""The hardware-in-the-loop rig file (docs/hil.md): which real devices a rig has, where they are and
which firmware each may run. Each ``[devices.NAME]`` table is read exactly as a table configuration's
(croupier/config/devices.py), so a device proven on the rig is configured the same way at the table,
and every error names the file and the key. A rig names real equipment only: ``sim://`` is refused,
and a firmware allow-list is required for each device (605a.4(c))."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from croupier.config.devices import DeviceConfig, read_devices
from croupier.config.section import Section
from croupier.config.urls import Via


@dataclass(frozen=True)
class RigConfig:
    source: Path
    name: str
    devices: Mapping[str, DeviceConfig]


def load_rig_config(path: str | Path) -> RigConfig:
    """Read and check the rig file ``path``; a ConfigError names the file, the key and what is wrong."""
    path = Path(path)
    top = Section.read(path)
    top.only(("rig", "devices"))
    rig = top.section("rig")
    rig.only(("name",))
    section = top.section("devices", required=True)
    devices = read_devices(section)
    if not devices:
        raise section.error(None, "names no device", "at least one [devices.NAME] table")
    for name, device in devices.items():
        if device.url.via is Via.SIM:
            # The simulator has its own conformance run; a rig proves the real equipment.
            raise section.section(name).error(
                "url",
                f"{device.url.url} is simulated",
                "a real device: a /dev path, a pyserial URL or usb://",
            )
    return RigConfig(source=path, name=rig.value("name", str, path.stem), devices=devices)
