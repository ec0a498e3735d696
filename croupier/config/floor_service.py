"""The floor service's configuration file (``croupier floor --config FILE``; docs/floor.md).

Five tables, each optional. ``[floor]`` is the broker and the property as a table names them, read
by the same reader as a table's (croupier.config.floor), so both ends are configured alike; absent,
the service starts the embedded broker on loopback (decision 0036). ``[store]`` is where the floor
keeps what it has counted: a SQLite file by default, a PostgreSQL database when ``url`` names one.
``[view]`` is where the floor view is served and the file holding its read-only token;
``[embedded]``, where the embedded broker listens; ``[links.ID]``, each linked progressive the
floor's link controller runs (croupier.config.linked). Every problem names the file and the key."""

from __future__ import annotations

import socket
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

from croupier.config.floor import LEVEL, FloorConfig, optional_path, read_floor
from croupier.config.linked import FloorLink, read_floor_links
from croupier.config.section import Section
from croupier.config.service import bind_address, browser_url, is_loopback, tls_pair

#: The property's name when the embedded broker is used: what a developer's tables say.
DEV_GROUP = "dev"
DEFAULT_STORE = "~/.local/state/croupier/floor.sqlite3"
DEFAULT_VIEW = "127.0.0.1:8480"
DEFAULT_EMBEDDED = "127.0.0.1:1883"
_PG = ("postgresql", "postgres")


@dataclass(frozen=True)
class StoreConfig:
    url: str | None  # a PostgreSQL connection URL; None: the SQLite file at ``path``
    path: Path


@dataclass(frozen=True)
class ViewConfig:
    host: str
    port: int
    token_file: Path | None  # None: the view is open (loopback only)
    tls_cert: Path | None = None  # PEM certificate chain; with tls_key, the view speaks HTTPS
    tls_key: Path | None = None

    @property
    def url(self) -> str:
        """Where a browser finds the view."""
        return browser_url(self.host, self.port, tls=self.tls_cert is not None) + "/"


@dataclass(frozen=True)
class FloorServiceConfig:
    source: Path  # ``(defaults)`` when no file was given
    broker: FloorConfig | None  # None: the embedded broker on loopback
    group: str
    store: StoreConfig
    view: ViewConfig
    embedded: tuple[str, int]  # where the embedded broker listens when ``broker`` is None
    #: The floor service's name on the broker: the user it logs in as and its host state's topic
    #: level (``[floor] username``, by default the machine's host name), so that two floor services of
    #: a property are told apart and each may write only its own host state (config/mosquitto/).
    host: str
    links: dict[str, FloorLink]  # [links]: the linked progressives the floor's controller runs


def load_floor_config(path: Path | None) -> FloorServiceConfig:
    """The file at ``path`` (every default without one); a ConfigError names the key at fault."""
    top = Section.read(path) if path is not None else Section(Path("(defaults)"), "", {})
    top.only(("floor", "store", "view", "embedded", "links"))
    floor_section = top.section("floor")
    if floor_section.has("spool"):
        raise floor_section.error("spool", "a table's key", "none: the floor keeps no spool")
    if floor_section.has("link"):
        raise floor_section.error("link", "a table's key", "the floor's links in [links.ID]")
    broker = read_floor(floor_section)
    host = (broker.username if broker else None) or socket.gethostname().split(".")[0]
    if not LEVEL.match(host):
        raise floor_section.error(
            "username",
            f"missing, and the host name {host!r} is not a topic level",
            "letters, digits, '-' or '_'",
        )
    return FloorServiceConfig(
        source=top.file,
        broker=broker,
        group=broker.group if broker else DEV_GROUP,
        store=_store(top.section("store")),
        view=_view(top.section("view")),
        embedded=_embedded(top.section("embedded"), broker),
        host=host,
        links=read_floor_links(top.section("links")),
    )


def _store(section: Section) -> StoreConfig:
    section.only(("url", "path"))
    if section.has("url") and section.has("path"):
        raise section.error("path", "set beside url", "one of url (PostgreSQL) or path (SQLite)")
    url = section.value("url", str, None, "postgresql://USER@HOST[:PORT]/DATABASE")
    if url is not None and urlsplit(url).scheme not in _PG:
        raise section.error("url", f"got {url!r}", "postgresql://USER@HOST[:PORT]/DATABASE")
    if url is not None and urlsplit(url).password:
        raise section.error(
            "url", "holds a password", "the password in ~/.pgpass or PGPASSFILE, not in the URL"
        )
    return StoreConfig(url, section.path_value("path", DEFAULT_STORE))


def _view(section: Section) -> ViewConfig:
    """Beyond loopback the view needs its token and TLS: the token (and the session cookie a browser
    gets for it) would otherwise cross the network in clear (decisions 0010 and 0033)."""
    section.only(("bind", "token_file", "tls_cert", "tls_key"))
    host, port = bind_address(section, "bind", DEFAULT_VIEW)
    token_file = optional_path(section, "token_file")
    cert, key = tls_pair(section, "tls_cert", "tls_key")
    if token_file is None and not is_loopback(host):
        raise section.error(
            "token_file", "missing: the view is bound beyond loopback", "a token file the view asks for"
        )
    if cert is None and not is_loopback(host):
        raise section.error(
            "bind",
            f"{host} is not loopback: the view's token would cross the network in clear",
            "127.0.0.1 or ::1, or tls_cert and tls_key to serve HTTPS",
        )
    return ViewConfig(host, port, token_file, cert, key)


def _embedded(section: Section, broker: FloorConfig | None) -> tuple[str, int]:
    """The embedded broker's address: loopback only, as it lets anyone in."""
    section.only(("bind",))
    if broker is not None and section.has("bind"):
        raise section.error("bind", "set beside floor.broker", "one of them: the embedded broker or another")
    host, port = bind_address(section, "bind", DEFAULT_EMBEDDED)
    if not is_loopback(host):
        raise section.error(
            "bind", f"{host} is not loopback", "127.0.0.1:PORT: the embedded broker lets anyone in"
        )
    return host, port
