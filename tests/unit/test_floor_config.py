"""The ``[floor]`` table (croupier.config.floor; docs/configuration.md): read whole, and each bad
value refused with an error naming the file and the key, before anything is opened."""

from __future__ import annotations

from pathlib import Path

import pytest

from croupier.config import ConfigError, load_table_config
from croupier.errors import StartupError
from croupier.floor_link import broker_settings
from tests.unit.test_table_config import BASE, PAID


def config(tmp_path: Path, floor: str) -> Path:
    path = tmp_path / "T1.toml"
    path.write_text(BASE.replace("[table]\n", '[table]\nname = "T1"\n') + PAID + "\n[floor]\n" + floor)
    return path


def test_no_floor_table_publishes_nothing(tmp_path):
    path = tmp_path / "T1.toml"
    path.write_text(BASE + PAID)
    assert load_table_config(path).floor is None


def test_a_floor_is_read_with_its_defaults_and_the_tables_credential(tmp_path):
    (tmp_path / "ca.pem").write_text("")
    floor = load_table_config(
        config(tmp_path, 'broker = "mqtts://broker.casino.lan"\ngroup = "main"\ntls_ca = "ca.pem"\n')
    ).floor
    assert floor is not None
    assert (floor.host, floor.port, floor.tls, floor.group) == ("broker.casino.lan", 8883, True, "main")
    assert (floor.protocol, floor.keepalive, floor.username, floor.spool) == ("5", 10, None, None)
    assert floor.tls_ca == tmp_path / "ca.pem"  # relative to the configuration file
    plain = load_table_config(config(tmp_path, 'broker = "mqtt://127.0.0.1:1884"\ngroup = "g"\n')).floor
    assert plain is not None and (plain.port, plain.tls) == (1884, False)


@pytest.mark.parametrize(
    ("floor", "key", "says"),
    [
        ('group = "main"\n', "floor.broker", "missing"),
        ('broker = "mqtt://127.0.0.1"\n', "floor.group", "missing"),
        ('broker = "http://127.0.0.1"\ngroup = "g"\n', "floor.broker", "mqtts://HOST:PORT"),
        ('broker = "mqtt://127.0.0.1:99999"\ngroup = "g"\n', "floor.broker", "port from 1 to 65535"),
        ('broker = "mqtt://T1:pw@127.0.0.1"\ngroup = "g"\n', "floor.broker", "holds a credential"),
        ('broker = "mqtt://broker.casino.lan"\ngroup = "g"\n', "floor.broker", "in clear"),
        ('broker = "mqtt://127.0.0.1"\ngroup = "a/b"\n', "floor.group", "topic level"),
        ('broker = "mqtt://127.0.0.1"\ngroup = "#"\n', "floor.group", "topic level"),
        ('broker = "mqtt://127.0.0.1"\ngroup = "g"\nusername = "+"\n', "floor.username", "got '+'"),
        ('broker = "mqtt://127.0.0.1"\ngroup = "g"\ntls_ca = "a"\n', "floor.tls_ca", "is mqtt://"),
        ('broker = "mqtts://b"\ngroup = "g"\ntls_cert = "c.pem"\n', "floor.tls_key", "missing"),
        ('broker = "mqtts://b"\ngroup = "g"\ntls_key = "k.pem"\n', "floor.tls_cert", "missing"),
        ('broker = "mqtt://127.0.0.1"\ngroup = "g"\nprotocol = "4"\n', "floor.protocol", "one of 5, 3.1.1"),
        ('broker = "mqtt://127.0.0.1"\ngroup = "g"\nkeepalive = 0\n', "floor.keepalive", "at least 1"),
        ('broker = "mqtt://127.0.0.1"\ngroup = "g"\npassword = "x"\n', "floor.password", "unknown key"),
    ],
)
def test_a_bad_floor_is_refused_naming_the_key(tmp_path, floor, key, says):
    path = config(tmp_path, floor)
    with pytest.raises(ConfigError) as refused:
        load_table_config(path)
    assert str(refused.value).startswith(f"{path}: {key}: "), refused.value
    assert says in str(refused.value)


def test_a_password_file_that_cannot_be_read_stops_the_start_up(tmp_path):
    path = config(tmp_path, 'broker = "mqtt://127.0.0.1"\ngroup = "g"\npassword_file = "missing"\n')
    with pytest.raises(StartupError, match=r"floor\.password_file: .*missing"):
        broker_settings(load_table_config(path))


def test_the_settings_name_the_table_and_put_its_spool_beside_the_state(tmp_path):
    (tmp_path / "pw").write_text("secret\n")
    path = config(tmp_path, 'broker = "mqtt://[::1]:1883"\ngroup = "g"\npassword_file = "pw"\n')
    settings = broker_settings(load_table_config(path))
    assert settings is not None
    assert (settings.host, settings.username, settings.password) == ("::1", "T1", "secret")
    assert settings.topics.of("round") == "croupier/v1/g/table/T1/round"
    assert settings.spool.name == "floor-T1.sqlite3"
