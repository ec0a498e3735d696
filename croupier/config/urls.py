"""Device URLs as docs/connecting.md lists them: a serial path, a pyserial URL, ``usb://`` or
``sim://``. Checked here so a typo is reported with the file and key before any port is opened;
``line`` names the physical line, so devices sharing one RS-485 line can be found."""

from __future__ import annotations

import enum
from dataclasses import dataclass
from urllib.parse import urlsplit

from drivers.transport.usb import parse_usb_url


class Via(enum.StrEnum):
    """How a device is reached."""

    SERIAL = "serial"  # a serial port: a path or a pyserial URL
    USB = "usb"  # bulk endpoints, point to point
    SIM = "sim"  # a simulated device served by the service itself


#: pyserial URL handlers docs/connecting.md supports, and whether each needs host:port.
_PYSERIAL = {"socket": True, "rfc2217": True, "spy": False, "hwgrep": False}


@dataclass(frozen=True)
class DeviceUrl:
    url: str
    via: Via
    line: str  # devices with the same line share one wire
    sim_kind: str | None = None  # for sim://: the kind of device simulated


def parse_device_url(url: str, kinds: tuple[str, ...]) -> DeviceUrl:
    """Parse ``url``; a ValueError says what is wrong (``kinds``: what ``sim://`` may name)."""
    if url.startswith("/"):
        return DeviceUrl(url, Via.SERIAL, url)
    scheme, sep, rest = url.partition("://")
    if not sep:
        raise ValueError(f"{url!r} is neither an absolute serial port path nor a URL")
    if scheme == "usb":
        address = parse_usb_url(url)
        return DeviceUrl(url, Via.USB, f"usb://{address}")
    if scheme == "sim":
        if rest not in kinds:
            raise ValueError(f"{url!r} names no simulated device kind; the kinds are {', '.join(kinds)}")
        return DeviceUrl(url, Via.SIM, url, sim_kind=rest)
    if scheme not in _PYSERIAL:
        known = ", ".join(f"{name}://" for name in ("usb", "sim", *_PYSERIAL))
        raise ValueError(f"unknown scheme {scheme}:// in {url!r}; the schemes are {known} or a /dev path")
    if not rest:
        raise ValueError(f"{url!r} names nothing after {scheme}://")
    if _PYSERIAL[scheme]:
        _host_port(url)
    return DeviceUrl(url, Via.SERIAL, url)


def _host_port(url: str) -> None:
    parts = urlsplit(url)
    try:
        port = parts.port
    except ValueError:
        port = None
    if not parts.hostname or port is None or port == 0:
        raise ValueError(f"{url!r} needs host:port with a port from 1 to 65535")
