"""The ``[devices.NAME]`` tables: what each device is, where it is, which firmware it may run and
how its link is timed. The checks that need all devices at once (one of each kind, distinct
addresses on a shared RS-485 line, one device per USB address) are here too."""

from __future__ import annotations

import enum
import hashlib
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

from croupier.config.section import Section
from croupier.config.urls import DeviceUrl, Via, parse_device_url
from drivers.authenticity import CLAUSE, MAX_INTERVAL
from drivers.connection import SupervisorSettings
from drivers.host_link import MAX_RETRIES
from drivers.protocol.core import DeviceClass
from vocabulary.rules import Rule

ALLOW_LIST = Rule("605a.4(c)", "control software verifiable for authenticity: a firmware allow-list")
_SHA256 = re.compile(r"[0-9a-f]{64}")


class DeviceKind(enum.StrEnum):
    SHOE = "shoe"
    SHUFFLER = "shuffler"
    CARD_READER = "card-reader"
    PROGRESSIVE = "progressive"
    METER_SIGN = "meter-sign"

    @property
    def device_class(self) -> DeviceClass:
        """The class the device must announce in its handshake."""
        return _CLASSES[self]


_CLASSES = {
    DeviceKind.SHOE: DeviceClass.SHOE,
    DeviceKind.SHUFFLER: DeviceClass.SHUFFLER,
    DeviceKind.CARD_READER: DeviceClass.CARD_READER,
    DeviceKind.PROGRESSIVE: DeviceClass.PROGRESSIVE_CONTROLLER,
    DeviceKind.METER_SIGN: DeviceClass.METER_SIGN,
}
KINDS = tuple(kind.value for kind in DeviceKind)

#: pyserial's parity letters, by the names a casino technician reads on a device's label.
PARITY = MappingProxyType({"none": "N", "even": "E", "odd": "O", "mark": "M", "space": "S"})

_KEYS = (
    "kind",
    "url",
    "address",
    "firmware_allow_list",
    "firmware_images",
    "firmware_check_interval",
    "baudrate",
    "parity",
    "heartbeat",
    "response_timeout",
    "retries",
    "trace",
    "event_queue",
)


_SUPERVISOR = SupervisorSettings()


@dataclass(frozen=True)
class LinkTiming:
    """The supervisor's timers; the defaults are the drivers' own (docs/connecting.md), so a file
    that leaves them out gets exactly what the drivers were tested with."""

    heartbeat: float = _SUPERVISOR.heartbeat_interval
    response_timeout: float = _SUPERVISOR.timings.response_timeout
    retries: int = _SUPERVISOR.timings.max_retries
    #: Seconds between two due authenticity checks: 24 hours at most (§ 461a.20(b)).
    firmware_check_interval: float = _SUPERVISOR.firmware_recheck


@dataclass(frozen=True)
class DeviceConfig:
    name: str
    kind: DeviceKind
    url: DeviceUrl
    address: int = 1
    firmware_allow_list: frozenset[bytes] = frozenset()
    #: The approved images the host holds (their contents), each on the allow-list: a device
    #: reporting one of their hashes is challenged with it (docs/protocol.md §6.6).
    firmware_images: tuple[bytes, ...] = field(default=(), repr=False)
    baudrate: int | None = None  # None: the transport's default (115200)
    parity: str | None = None  # a pyserial parity letter; None: the transport's default (none)
    link: LinkTiming = LinkTiming()
    trace: bool = False  # the hex wire trace on from the start (docs/wire-trace.md)
    # Events waiting for the table before the device's further events are left unacknowledged
    # (docs/protocol.md §5.7: it sends them again); reaching it latches EVENT_OVERFLOW.
    event_queue: int = _SUPERVISOR.event_queue_limit


def read_device(section: Section, name: str) -> DeviceConfig:
    """The ``[devices.NAME]`` table ``section``."""
    section.only(_KEYS)
    kind = DeviceKind(section.choice("kind", KINDS))
    try:
        url = parse_device_url(section.value("url", str, expected="a device URL"), KINDS)
    except ValueError as exc:
        raise section.error(
            "url", str(exc), "a /dev path, a pyserial URL, usb://VID:PID or sim://KIND"
        ) from None
    if url.sim_kind is not None and url.sim_kind != kind:
        raise section.error(
            "url", f"{url.url} simulates a {url.sim_kind}, but kind is {kind}", f"sim://{kind}"
        )
    if url.via is not Via.SERIAL:
        for setting in ("baudrate", "parity"):
            if section.has(setting):
                raise section.error(setting, f"does not apply to {url.url}", "a serial port or pyserial URL")
    defaults = LinkTiming()
    allow_list = _allow_list(section, url)
    return DeviceConfig(
        name=name,
        kind=kind,
        url=url,
        address=section.number("address", int, 1, 1, 0xFE),
        firmware_allow_list=allow_list,
        firmware_images=_images(section, allow_list),
        baudrate=section.number("baudrate", int, None, 1) if section.has("baudrate") else None,
        parity=PARITY[section.choice("parity", tuple(PARITY))] if section.has("parity") else None,
        link=LinkTiming(
            heartbeat=section.number("heartbeat", float, defaults.heartbeat, 0),
            response_timeout=section.number("response_timeout", float, defaults.response_timeout, 0),
            retries=section.number("retries", int, defaults.retries, 0, MAX_RETRIES),
            firmware_check_interval=_check_interval(section),
        ),
        trace=section.value("trace", bool, False, "true or false"),
        event_queue=section.number("event_queue", int, _SUPERVISOR.event_queue_limit, 2),
    )


def _allow_list(section: Section, url: DeviceUrl) -> frozenset[bytes]:
    """Required for real equipment: without it any firmware would be accepted (605a.4(c))."""
    if url.via is not Via.SIM and not section.has("firmware_allow_list"):
        raise section.error(
            "firmware_allow_list",
            f"missing for {url.url}: real equipment runs only approved firmware ({ALLOW_LIST})",
            "a list of SHA-256 hashes, 64 hex digits each",
        )
    hashes = section.strings("firmware_allow_list", [])
    if url.via is not Via.SIM and not hashes:
        raise section.error("firmware_allow_list", f"empty ({ALLOW_LIST})", "at least one SHA-256 hash")
    for index, text in enumerate(hashes):
        if not _SHA256.fullmatch(text.lower()):
            raise section.error(
                f"firmware_allow_list[{index}]", f"{text!r} is not a SHA-256 hash", "64 hex digits"
            )
    return frozenset(bytes.fromhex(text) for text in hashes)


def _images(section: Section, allow_list: frozenset[bytes]) -> tuple[bytes, ...]:
    """The approved images named by ``firmware_images``, read now: each must be readable and its
    SHA-256 on the allow-list, so that a file swapped or mistyped is found before a device is."""
    images = []
    for index, text in enumerate(section.strings("firmware_images", [])):
        key, where = f"firmware_images[{index}]", section.resolve(text)
        try:
            image = where.read_bytes()
        except OSError as exc:
            problem = f"{where}: cannot be read: {exc.strerror or exc}"
            raise section.error(key, problem, "a firmware image file") from None
        digest = hashlib.sha256(image).hexdigest()
        if bytes.fromhex(digest) not in allow_list:
            problem = f"{where}: its SHA-256 {digest} is not on firmware_allow_list"
            raise section.error(key, problem, "the image of an approved hash")
        images.append(image)
    return tuple(images)


def _check_interval(section: Section) -> float:
    """``firmware_check_interval``: seconds, more than 0 and at most a day (§ 461a.20(b))."""
    interval = section.value("firmware_check_interval", float, MAX_INTERVAL)
    if not 0 < interval <= MAX_INTERVAL:
        raise section.error(
            "firmware_check_interval",
            f"got {interval:g}: the firmware must be checked at least every 24 hours ({CLAUSE})",
            f"seconds, above 0 and at most {MAX_INTERVAL:g}",
        )
    return interval


def read_devices(section: Section) -> Mapping[str, DeviceConfig]:
    """Every ``[devices.NAME]``, checked against each other."""
    devices: dict[str, DeviceConfig] = {}
    for name in section.data:
        device = read_device(section.section(name, required=True), name)
        _check_against(section, device, devices.values())
        devices[name] = device
    return MappingProxyType(devices)


def _check_against(section: Section, device: DeviceConfig, earlier: Iterable[DeviceConfig]) -> None:
    """A table has one device of each kind (so the service knows which is which); devices on one
    RS-485 line need distinct addresses and the same line settings (docs/decisions/0007); USB is
    point to point."""
    here = section.section(device.name)
    for other in earlier:
        if other.kind is device.kind:
            raise here.error(
                "kind", f"a second {device.kind} (devices.{other.name} is one)", "one of each kind"
            )
        if other.url.line != device.url.line:
            continue
        if device.url.via is Via.USB:
            raise here.error(
                "url", f"devices.{other.name} is at {device.url.url}", "one device per USB address"
            )
        if other.address == device.address:
            raise here.error(
                "address",
                f"{device.address} is taken by devices.{other.name} on the same line {device.url.url}",
                "distinct addresses on a shared line",
            )
        for name in ("baudrate", "parity"):
            if getattr(other, name) != getattr(device, name):
                raise here.error(
                    name,
                    f"differs from devices.{other.name} on the same line {device.url.url}",
                    "one setting per line",
                )
