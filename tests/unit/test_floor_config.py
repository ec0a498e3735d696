"""The floor service's configuration file (croupier.config.floor_service; docs/floor.md): its
defaults, and each problem refused naming the key."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest

from croupier.commands import sim_floor
from croupier.config import load_table_config
from croupier.config.floor_service import DEV_GROUP, load_floor_config
from croupier.config.linked import LinkedLevel
from croupier.errors import ConfigError

ROOT = Path(__file__).resolve().parents[2]


def _load(tmp_path: Path, text: str):
    path = tmp_path / "floor.toml"
    path.write_text(text)
    return load_floor_config(path)


def test_with_no_file_the_floor_starts_its_embedded_broker_on_loopback_and_a_sqlite_store():
    config = load_floor_config(None)
    assert config.broker is None and config.embedded == ("127.0.0.1", 1883)
    assert config.group == DEV_GROUP and config.host == socket.gethostname().split(".")[0]
    assert config.store.url is None and config.store.path.name == "floor.sqlite3"
    assert (config.view.host, config.view.port, config.view.token_file) == ("127.0.0.1", 8480, None)


def test_a_broker_and_a_postgresql_store_are_read(tmp_path):
    config = _load(
        tmp_path,
        '[floor]\nbroker = "mqtts://mqtt.floor.lan"\ngroup = "main-floor"\n'
        '[store]\nurl = "postgresql://floor@db.floor.lan/floor"\n'
        '[view]\nbind = "10.0.0.5:8480"\ntoken_file = "view-token"\n'
        'tls_cert = "view.pem"\ntls_key = "view.key"\n',
    )
    assert config.broker is not None and (config.broker.host, config.broker.port) == ("mqtt.floor.lan", 8883)
    assert config.group == "main-floor" and config.store.url == "postgresql://floor@db.floor.lan/floor"
    assert config.view.token_file == tmp_path / "view-token"
    assert config.view.tls_key == tmp_path / "view.key" and config.view.url == "https://10.0.0.5:8480/"
    assert config.host == socket.gethostname().split(".")[0], "logs in under its host name"
    named = _load(tmp_path, '[floor]\nbroker = "mqtts://mqtt.floor.lan"\ngroup = "g"\nusername = "floor-2"\n')
    assert named.host == "floor-2"


def test_a_link_is_read_with_its_tables_and_levels(tmp_path):
    config = _load(
        tmp_path,
        '[links.c4p-main]\ntables = ["C4-1", "C4-2"]\nheartbeat = 1.5\n'
        "[links.c4p-main.levels.1]\nrate_bp = 500\nreset_cents = 1000000\nlimit_cents = 25000000\n",
    )
    link = config.links["c4p-main"]
    assert link.tables == ("C4-1", "C4-2") and link.heartbeat == 1.5
    assert link.levels[1] == LinkedLevel(500, 1_000_000, 25_000_000)


#: A link's level 1, its keys to follow.
LEVEL_1 = '[links.c4p]\ntables = ["T1"]\n[links.c4p.levels.1]\n'


@pytest.mark.parametrize(
    ("text", "named"),
    [
        ('[store]\nurl = "mysql://db/floor"\n', "store.url: got 'mysql://db/floor'"),
        ('[store]\nurl = "postgresql://floor:secret@db/floor"\n', "store.url: holds a password"),
        ('[store]\nurl = "postgresql://db/f"\npath = "f.sqlite3"\n', "store.path: set beside url"),
        ('[view]\nbind = "0.0.0.0:8480"\n', "view.token_file: missing"),
        ('[view]\nbind = "10.0.0.5:8480"\ntoken_file = "t"\n', "view.bind: 10.0.0.5 is not loopback"),
        ('[view]\ntls_cert = "view.pem"\n', "view.tls_key: missing"),
        ('[embedded]\nbind = "10.0.0.5:1883"\n', "embedded.bind: 10.0.0.5 is not loopback"),
        ('[floor]\nbroker = "mqtt://127.0.0.1"\ngroup = "g"\nspool = "x"\n', "floor.spool: a table's key"),
        ('[floor]\ngroup = "g"\n', "floor.broker: missing"),
        ("[stores]\n", "stores: unknown key"),
        ('[floor]\nbroker = "mqtt://127.0.0.1"\ngroup = "g"\n[floor.link]\nid = "x"\n',
         "floor.link: a table's key"),
        (LEVEL_1 + 'rate_bp = 0\nreset_cents = 1\nlimit_cents = 1\n',
         "links.c4p.levels.1.rate_bp: got 0"),
        ('[links.c4p]\ntables = ["T1"]\n[links.c4p.levels.x]\nrate_bp = 1\nreset_cents = 1\n',
         "links.c4p.levels.x: not a level"),
        ('[links.c4p]\ntables = ["T1", "T1"]\n[links.c4p.levels.1]\nrate_bp = 1\nreset_cents = 1\n',
         "links.c4p.tables: got"),
        (LEVEL_1 + 'rate_bp = 1\nreset_cents = -1\nlimit_cents = 1\n',
         "links.c4p.levels.1.reset_cents: got -1"),
        ('[links."c 4"]\ntables = ["T1"]\n', "links.c 4: not a link id"),
        (LEVEL_1 + 'rate_bp = 1\nreset_cents = 1\n', "links.c4p.levels.1.limit_cents: missing"),
        (LEVEL_1 + 'rate_bp = 1\nreset_cents = 5\nlimit_cents = 4\n',
         "links.c4p.levels.1.limit_cents: got 4 (expected at least reset_cents (5"),
    ],
)
def test_each_problem_names_its_key(tmp_path, text, named):
    with pytest.raises(ConfigError, match=named.replace(".", r"\.").replace("(", r"\(")):
        _load(tmp_path, text)


#: A linked progressive's table as a simulated floor takes it: its link only, no broker or login.
LINK_ONLY = '\n[floor.link]\nid = "c4p"\n[floor.link.levels]\n1 = 500\n2 = 100\n'
#: The same table's own broker and credentials, which a simulated floor does not use.
ITS_OWN = (
    '\n[floor]\nbroker = "mqtts://mqtt.casino.lan"\ngroup = "main"\npassword_file = "pw"\ntls_ca = "ca.pem"\n'
)


@pytest.mark.parametrize(
    ("floor_config", "broker"),
    [
        ('[embedded]\nbind = "[::1]:18830"\n', ("::1", 18830)),
        ('[floor]\nbroker = "mqtt://[::1]:1884"\ngroup = "main"\n', ("::1", 1884)),
    ],
    ids=["embedded", "configured"],
)
def test_a_simulated_floor_on_an_ipv6_broker_gives_its_tables_that_broker(tmp_path, floor_config, broker):
    """croupier sim --floor: the floor's broker at an IPv6 address, its own embedded one or one
    configured, reaches the tables' configuration as a URL with the address in brackets. Before, the
    URL was made without them and the table's configuration was refused for a ``floor.broker`` its
    author never wrote."""
    floor_path = tmp_path / "floor.toml"
    floor_path.write_text(floor_config)
    path = tmp_path / "c4p.toml"
    path.write_text((ROOT / "config" / "tables" / "simulated-crazy-4-poker.toml").read_text() + LINK_ONLY)
    table = load_table_config(path, sim_floor.floor_login(load_floor_config(floor_path)))
    assert table.floor is not None
    assert (table.floor.host, table.floor.port) == broker


@pytest.mark.parametrize("floor", [LINK_ONLY, ITS_OWN + LINK_ONLY.replace("\n[floor.link]", "[floor.link]")])
def test_a_simulated_floors_tables_log_in_to_its_broker_whatever_their_floor_names(tmp_path, floor):
    """croupier sim --floor (docs/sim.md, "A simulated floor"): every table logs in to the floor's
    broker in its group, so a ``--table-config`` need name only its ``[floor.link]``; a table's own
    broker, group and credentials are replaced. ``croupier run`` still needs the table's broker."""
    path = tmp_path / "c4p.toml"
    path.write_text((ROOT / "config" / "tables" / "simulated-crazy-4-poker.toml").read_text() + floor)
    table = load_table_config(path, sim_floor.floor_login(load_floor_config(None)))
    assert table.floor is not None and table.floor.link is not None and table.floor.link.id == "c4p"
    assert (table.floor.host, table.floor.port, table.floor.tls, table.floor.group) == (
        "127.0.0.1", 1883, False, DEV_GROUP)  # fmt: skip
    assert (table.floor.protocol, table.floor.password_file, table.floor.tls_ca) == ("3.1.1", None, None)
    if floor == LINK_ONLY:
        with pytest.raises(ConfigError, match=r"floor\.broker: missing"):
            load_table_config(path)
        misspelt = path.read_text().replace("\n[floor.link]\n", '\n[floor]\nbrokr = "x"\n[floor.link]\n')
        path.write_text(misspelt)
        with pytest.raises(ConfigError, match=r"floor\.brokr: unknown key"):
            load_table_config(path, sim_floor.floor_login(load_floor_config(None)))
