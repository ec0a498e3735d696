"""The ``[floor]`` table: the casino floor's MQTT broker this table publishes to (docs/floor.md).

Absent, the table publishes nothing. Present, it names the broker (``mqtt://`` or ``mqtts://``), the
group (the property) the table belongs to, and the table's own credential: a password file, a
client certificate, or both. The table's password would cross the network in clear over plain
``mqtt://``, so plain MQTT is refused to anything but loopback, as the API's bearer tokens are
([service] api_bind). Every problem names the key (decision 0035)."""

from __future__ import annotations

import dataclasses
import ipaddress
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

from croupier.config.linked import TableLink, read_table_link
from croupier.config.section import LEVEL, Section

#: The keys saying how the table reaches the broker: ``read_floor``'s ``login`` stands in for them.
LOGIN = (*("broker", "group", "username", "password_file", "tls_ca", "tls_cert", "tls_key"), "protocol")
KEYS = (*LOGIN, "keepalive", "spool", "link")
#: MQTT 5 by default; 3.1.1 for a broker that speaks only that (the embedded amqtt broker).
PROTOCOLS = ("5", "3.1.1")
_PORTS = {"mqtt": 1883, "mqtts": 8883}


@dataclass(frozen=True)
class FloorConfig:
    host: str
    port: int
    tls: bool  # mqtts://
    group: str  # the property: the topic level above the table's (docs/floor.md)
    username: str | None  # None: the table's name
    password_file: Path | None
    tls_ca: Path | None  # None with mqtts://: the system's trusted authorities
    tls_cert: Path | None
    tls_key: Path | None
    protocol: str  # one of PROTOCOLS
    keepalive: int  # seconds; the broker sends the table's death within 1.5 times this of silence
    spool: Path | None  # None: beside the state database (``floor-TABLE.sqlite3``)
    link: TableLink | None = None  # [floor.link]: the linked progressive's levels; None: none linked


def read_floor(section: Section, login: Mapping[str, str] | None = None) -> FloorConfig | None:
    """The floor link, or None when the configuration has no ``[floor]`` table. ``login`` (keys of
    LOGIN) stands in for the table's own broker, group, protocol and credentials, which it need not
    name then: a simulated floor's tables (croupier sim --floor) each log in to the floor's broker."""
    if not section.data:
        return None
    section.only(KEYS)
    if login is not None:
        kept = {key: value for key, value in section.data.items() if key not in LOGIN}
        section = dataclasses.replace(section, data={**kept, **login})
    scheme, host, port = broker_url(section)
    tls = scheme == "mqtts"
    if not tls and not _loopback(host):
        raise section.error(
            "broker",
            f"{host} is not loopback: the table's credential would cross the network in clear",
            "mqtts://HOST:PORT",
        )
    given = [name for name in ("tls_ca", "tls_cert", "tls_key") if section.has(name)]
    if given and not tls:
        raise section.error(given[0], "set, but the broker is mqtt://", "mqtts:// in broker, or no TLS key")
    if section.has("tls_cert") != section.has("tls_key"):
        missing = "tls_key" if section.has("tls_cert") else "tls_cert"
        raise section.error(missing, "missing", "a path: a client certificate and its key go together")
    group = section.value("group", str, expected="the property's name: letters, digits, '-' or '_'")
    if not LEVEL.match(group):
        raise section.error("group", f"got {group!r}", "letters, digits, '-' or '_' (it is a topic level)")
    username = section.value("username", str, None)
    if username is not None and not LEVEL.match(username):
        raise section.error("username", f"got {username!r}", "letters, digits, '-' or '_'")
    return FloorConfig(
        host=host,
        port=port,
        tls=tls,
        group=group,
        username=username,
        password_file=optional_path(section, "password_file"),
        tls_ca=optional_path(section, "tls_ca"),
        tls_cert=optional_path(section, "tls_cert"),
        tls_key=optional_path(section, "tls_key"),
        protocol=section.choice("protocol", PROTOCOLS, "5"),
        keepalive=section.number("keepalive", int, 10, 1, 3600),
        spool=optional_path(section, "spool"),
        link=read_table_link(section.section("link")),
    )


def optional_path(section: Section, name: str) -> Path | None:
    return section.path_value(name, "") if section.has(name) else None


def broker_url(section: Section) -> tuple[str, str, int]:
    """``mqtt://HOST[:PORT]`` or ``mqtts://HOST[:PORT]`` (1883 and 8883 by default)."""
    text = section.value("broker", str, expected="mqtts://HOST:PORT")
    expected = "mqtt://HOST:PORT or mqtts://HOST:PORT"
    parts = urlsplit(text)
    if parts.scheme not in _PORTS or not parts.hostname or parts.path not in ("", "/"):
        raise section.error("broker", f"got {text!r}", expected)
    if parts.username or parts.password:
        raise section.error("broker", "holds a credential", "the credential in password_file, not in the URL")
    try:
        port = parts.port or _PORTS[parts.scheme]
    except ValueError:
        raise section.error("broker", f"got {text!r}", f"{expected} with a port from 1 to 65535") from None
    return parts.scheme, parts.hostname, port


def _loopback(host: str) -> bool:
    try:
        return host == "localhost" or ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False
