"""The ``[service]`` and ``[audit]`` tables: where the service listens and keeps its records.

The API binds to loopback by default: the dealer's screen runs on the table PC, and exposing the
API to the casino network is a decision for casino IT (set ``api_bind``), not a default. Bearer
tokens cross the wire with every request, so an API bound to anything but loopback must be served
over TLS (``api_tls_cert`` and ``api_tls_key``); the configuration is refused otherwise. 8443 is the
usual unprivileged HTTPS port, so the service needs no root to bind it."""

from __future__ import annotations

import ipaddress
import ssl
from dataclasses import dataclass
from pathlib import Path

from croupier.audit.rotation import ONLINE, RECORDS
from croupier.config.section import Section
from croupier.errors import StartupError

LOG_LEVELS = ("debug", "info", "warning", "error")
ROTATIONS = ("daily", "weekly", "monthly")
DEFAULT_BIND = "127.0.0.1:8443"
KEYS = (
    *("api_bind", "api_tokens", "api_tls_cert", "api_tls_key"),
    *("audit_dir", "state_db", "log_level", "trace_dir"),
)


@dataclass(frozen=True)
class ServiceConfig:
    api_host: str
    api_port: int
    audit_dir: Path
    state_db: Path
    log_level: str = "info"
    api_tokens: Path | None = None  # the token file; without one the API is not served
    trace_dir: Path = Path("/var/log/croupier/trace")  # each device's wire trace, when switched on
    api_tls_cert: Path | None = None  # PEM certificate chain; with api_tls_key, the API speaks HTTPS
    api_tls_key: Path | None = None

    @property
    def api_url(self) -> str:
        """Where a browser finds the API and the screens."""
        return browser_url(self.api_host, self.api_port, tls=self.api_tls_cert is not None)


@dataclass(frozen=True)
class AuditConfig:
    """How the audit trail rotates and keeps its files; ``croupier.audit.Rotation.from_config``
    turns these into the trail's policy (docs/audit.md §7). The minimums are the regulations' floors
    (461a.10(s), 465a.6), checked here so a table with a shorter setting never starts."""

    rotation: str = "daily"
    online_days: int = 30
    retention_years: int = 5
    #: The table's sealing key (``croupier audit keys``), beside the state database; required on
    #: real equipment, optional on a simulated table, whose trail is then written unsealed.
    sealing_key: Path | None = None


def read_service(section: Section) -> ServiceConfig:
    section.only(KEYS)
    host, port = bind_address(section, "api_bind", DEFAULT_BIND)
    cert, key = tls_pair(section, "api_tls_cert", "api_tls_key")
    if cert is None and not is_loopback(host):
        raise section.error(
            "api_bind",
            f"{host} is not loopback: bearer tokens would cross the network in clear",
            "127.0.0.1 or ::1, or api_tls_cert and api_tls_key to serve HTTPS",
        )
    return ServiceConfig(
        api_host=host,
        api_port=port,
        audit_dir=section.path_value("audit_dir", "/var/lib/croupier/audit"),
        state_db=section.path_value("state_db", "/var/lib/croupier/state.sqlite3"),
        log_level=section.choice("log_level", LOG_LEVELS, "info"),
        api_tokens=section.path_value("api_tokens", "") if "api_tokens" in section.data else None,
        trace_dir=section.path_value("trace_dir", "/var/log/croupier/trace"),
        api_tls_cert=cert,
        api_tls_key=key,
    )


def tls_pair(section: Section, cert: str, key: str) -> tuple[Path | None, Path | None]:
    """The server's certificate and key at keys ``cert`` and ``key``, both or neither (the table's
    API; the floor view, croupier.config.floor_service)."""
    given = [name for name in (cert, key) if section.has(name)]
    if len(given) == 1:
        missing = key if given == [cert] else cert
        raise section.error(missing, "missing", f"a path: {given[0]} is set, and TLS needs both")
    if not given:
        return None, None
    return section.path_value(cert, ""), section.path_value(key, "")


def server_tls(cert: Path, key: Path, where: str) -> ssl.SSLContext:
    """A server's TLS context (TLS 1.2 or newer) from its certificate chain and key, loaded at
    start-up before anything is opened; one that cannot be loaded is a StartupError naming ``where``
    (the file and key)."""
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.minimum_version = ssl.TLSVersion.TLSv1_2
    try:
        context.load_cert_chain(cert, key)
    except (OSError, ssl.SSLError) as exc:
        raise StartupError(f"{where}: {cert} (key {key}): {exc}") from None
    return context


def url_of(scheme: str, host: str, port: int) -> str:
    """``scheme://host:port``, an IPv6 host in brackets, with no trailing slash."""
    return f"{scheme}://[{host}]:{port}" if ":" in host else f"{scheme}://{host}:{port}"


def browser_url(host: str, port: int, *, tls: bool) -> str:
    """Where a browser finds a service listening on ``host``:``port``."""
    return url_of("https" if tls else "http", host, port)


def is_loopback(host: str) -> bool:
    return host == "localhost" or ipaddress.ip_address(host).is_loopback


def bind_address(section: Section, name: str, default: str) -> tuple[str, int]:
    """``HOST:PORT`` at key ``name``, an IPv6 host in brackets (``[::1]:8443``)."""
    text = section.value(name, str, default, "HOST:PORT")
    host, sep, port = text.rpartition(":")
    host = host[1:-1] if host.startswith("[") and host.endswith("]") else host
    if not sep or not host or not port.isdigit() or not 1 <= int(port) <= 65535:
        raise section.error(name, f"got {text!r}", "HOST:PORT with a port from 1 to 65535")
    try:
        ipaddress.ip_address(host)
    except ValueError:
        if host != "localhost":
            raise section.error(name, f"{host!r} is not an IP address", "e.g. 127.0.0.1:8443") from None
    return host, int(port)


def read_audit(section: Section) -> AuditConfig:
    section.only(("rotation", "online_days", "retention_years", "sealing_key"))
    online = section.value("online_days", int, 30)
    if online < 30:
        raise section.error("online_days", f"{online} is too short ({ONLINE})", "at least 30")
    years = section.value("retention_years", int, 5)
    if years < 5:
        raise section.error("retention_years", f"{years} is too short ({RECORDS})", "at least 5")
    sealing_key = section.path_value("sealing_key", "") if "sealing_key" in section.data else None
    return AuditConfig(section.choice("rotation", ROTATIONS, "daily"), online, years, sealing_key)
