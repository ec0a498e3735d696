"""The table configuration: every shipped example loads, and each bad file is refused with an
error naming the file, the TOML key and what is wrong."""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

import pytest

from croupier.commands.run import check_served
from croupier.config import DEFAULT_TABLE_CONFIG, ConfigError, DeviceKind, Via, load_table_config
from croupier.config.limits import Limit
from croupier.service.hardware import supervisor_settings
from drivers.protocol.core import DeviceClass
from games import registry

TABLES = Path(__file__).resolve().parents[2] / "config" / "tables"
HASH = "ab" * 32
RS485 = "/dev/serial/by-id/usb-FTDI_RS485-if00-port0"

BASE = """
[table]
game = "free-bet-blackjack"
seats = 6

[devices.shoe]
kind = "shoe"
url = "sim://shoe"

[devices.shuffler]
kind = "shuffler"
url = "sim://shuffler"

[devices.card-reader]
kind = "card-reader"
url = "sim://card-reader"
"""

#: BASE's Push 22 pay table: a table offering the wager opens only with one (none is built in).
PAID = '\n[rules.push22_pay_table]\nany = "11:1"\n'

PROGRESSIVE_LINE = f"""
[devices.progressive]
kind = "progressive"
url = "{RS485}"
firmware_allow_list = ["{HASH}"]

[devices.meter-sign]
kind = "meter-sign"
url = "{RS485}"
firmware_allow_list = ["{HASH}"]
"""

CRAZY_4 = """
[table]
game = "crazy-4-poker"

[devices.progressive]
kind = "progressive"
url = "sim://progressive"
"""


def edited(old: str, new: str) -> str:
    """BASE with one piece replaced (the piece must be there, or the case tests nothing)."""
    assert old in BASE
    return BASE.replace(old, new, 1)


def shoe_url(url: str, extra: str = "") -> str:
    return edited('url = "sim://shoe"', f'url = "{url}"\n{extra}')


def hardware_shoe(url: str, extra: str = "") -> str:
    """The shoe at a hardware ``url``, with the firmware allow list a hardware device needs."""
    return shoe_url(url, f'firmware_allow_list = ["{HASH}"]' + (f"\n{extra}" if extra else ""))


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "table.toml"
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize(
    "path", [DEFAULT_TABLE_CONFIG, *sorted(TABLES.glob("*.toml"))], ids=lambda path: path.name
)
def test_every_shipped_example_loads_and_would_be_served(path: Path) -> None:
    config = load_table_config(path)
    check_served(config)  # wholly simulated, or real with the dealer's screen's token file
    assert config.source == path
    for device in config.devices.values():
        assert device.url.via is Via.SIM or device.firmware_allow_list


def test_the_examples_cover_every_game() -> None:
    games = {load_table_config(path).game for path in TABLES.glob("*.toml")}
    assert games == set(registry.slugs())


def test_the_default_table_is_simulated_free_bet_blackjack() -> None:
    config = load_table_config(DEFAULT_TABLE_CONFIG)
    assert config.game == "free-bet-blackjack"
    assert {device.url.via for device in config.devices.values()} == {Via.SIM}
    assert (config.service.api_host, config.service.api_port) == ("127.0.0.1", 8443)


def test_the_real_table_example_reads_every_device_setting() -> None:
    config = load_table_config(TABLES / "free-bet-blackjack.toml")
    reader = config.device(DeviceKind.CARD_READER)
    assert reader is not None and reader.url.via is Via.USB
    assert len(config.devices["shuffler"].firmware_allow_list) == 2
    assert config.rules.push22_pay_table.suited.win == 50
    assert config.audit.online_days == 90


def test_the_crazy_4_example_shares_one_rs485_line() -> None:
    config = load_table_config(TABLES / "crazy-4-poker.toml")
    progressive, sign = config.devices["progressive"], config.devices["meter-sign"]
    assert progressive.url.line == sign.url.line
    assert (progressive.address, sign.address) == (1, 2)
    assert progressive.baudrate == 19200 and progressive.link.response_timeout == 0.5
    assert progressive.kind.device_class is DeviceClass.PROGRESSIVE_CONTROLLER


def test_defaults(tmp_path: Path) -> None:
    """What an absent key means: documented in docs/configuration.md."""
    path = write(tmp_path, BASE + PAID)
    config = load_table_config(path)
    shoe = config.devices["shoe"]
    assert (shoe.address, shoe.baudrate, shoe.parity) == (1, None, None)
    assert (shoe.link.heartbeat, shoe.link.response_timeout, shoe.link.retries) == (1.0, 0.3, 3)
    assert shoe.event_queue == 1000
    assert config.name == "table"
    assert config.service.log_level == "info"
    assert config.service.audit_dir == Path("/var/lib/croupier/audit")
    assert (config.audit.rotation, config.audit.online_days, config.audit.retention_years) == ("daily", 30, 5)
    assert config.rules.decks == 6


def test_5_7_the_event_queue_bound_is_a_device_setting(tmp_path: Path) -> None:
    """docs/protocol.md §5.7: ``event_queue`` bounds the device's events waiting for the table (its
    connection supervisor holds the rest back unacknowledged); fewer than 2 is refused."""
    path = write(tmp_path, BASE.replace('url = "sim://shoe"', 'url = "sim://shoe"\nevent_queue = 50') + PAID)
    assert supervisor_settings(load_table_config(path).devices["shoe"]).event_queue_limit == 50
    path = write(tmp_path, BASE.replace('url = "sim://shoe"', 'url = "sim://shoe"\nevent_queue = 1'))
    with pytest.raises(ConfigError, match=r"devices\.shoe\.event_queue: got 1"):
        load_table_config(path)


def test_relative_paths_are_relative_to_the_file(tmp_path: Path) -> None:
    path = write(tmp_path, BASE + PAID + '\n[service]\naudit_dir = "audit"\n')
    assert load_table_config(path).service.audit_dir == tmp_path / "audit"


def test_seats_set_the_games_positions(tmp_path: Path) -> None:
    config = load_table_config(write(tmp_path, edited("seats = 6", "seats = 3") + PAID))
    assert config.seats == config.rules.positions == 3


def test_a_shared_line_with_distinct_addresses_loads(tmp_path: Path) -> None:
    """A game that uses the progressive controller and its meter sign (Crazy 4 Poker), both on one line."""
    example = (TABLES / "simulated-crazy-4-poker.toml").read_text(encoding="utf-8")
    simulated = example[example.index("[devices.progressive]") : example.index("[service]")]
    text = example.replace(simulated, "") + PROGRESSIVE_LINE.replace(
        'kind = "meter-sign"', 'kind = "meter-sign"\naddress = 2'
    )
    config = load_table_config(write(tmp_path, text))
    assert config.devices["meter-sign"].address == 2


BAD = [
    # -- the file
    (
        "toml-syntax",
        BASE + "\n[service\n",
        "TOML syntax error: Expected ']' at the end of a table declaration (at line 18, column 9)",
    ),
    (
        "unknown-top-key",
        BASE + "\n[tables]\n",
        "table.toml: tables: unknown key "
        "(expected one of table, rules, limits, devices, service, audit, floor)",
    ),
    (
        "no-table",
        BASE.replace("[table]", "[rules]").replace('game = "free-bet-blackjack"\nseats = 6', ""),
        "table: missing (expected a table)",
    ),
    (
        "unknown-table-key",
        edited("seats = 6", "seats = 6\ndealer = 'x'"),
        "table.dealer: unknown key (expected one of name, game, seats)",
    ),
    # -- the game and its rules
    (
        "missing-game",
        edited('game = "free-bet-blackjack"', ""),
        "table.game: missing (expected one of free-bet-blackjack",
    ),
    (
        "unknown-game",
        edited('"free-bet-blackjack"', '"baccarat"'),
        "table.game: got 'baccarat' (expected one of",
    ),
    ("game-not-a-string", edited('"free-bet-blackjack"', "7"), "table.game: got 7 (expected one of"),
    ("seats-too-many", edited("seats = 6", "seats = 7"), "table.seats: 1 to 6 (672a.2"),
    ("seats-zero", edited("seats = 6", "seats = 0"), "table.seats: 1 to 6"),
    (
        "seats-wrong-type",
        edited("seats = 6", 'seats = "six"'),
        "table.seats: got 'six' (expected a whole number)",
    ),
    (
        "positions-in-rules",
        BASE + "\n[rules]\npositions = 4\n",
        "rules.positions: the seats are set by table.seats",
    ),
    (
        "rules-unknown-key",
        BASE + "\n[rules]\nsurrender = true\n",
        "rules.surrender: unknown key; the keys are",
    ),
    ("rules-bad-value", BASE + "\n[rules]\ndecks = 5\n", "rules.decks: 6 or 8 (published game rules), got 5"),
    (
        "pay-table-unknown-key",
        BASE + '\n[rules.push22_pay_table]\nsuited = "50:1"\nrainbow = "9:1"\n',
        "rules.push22_pay_table: give either 'any' or all of suited, same_colour, other",
    ),
    (
        "pay-table-bad-odds",
        BASE + '\n[rules.push22_pay_table]\nany = "eleven"\n',
        "rules.push22_pay_table.any: 'eleven' is not odds",
    ),
    (
        "crazy-4-unknown-hand",
        CRAZY_4 + '\n[devices.shuffler]\nkind = "shuffler"\nurl = "sim://shuffler"\n'
        '\n[rules.super_bonus_pay_table]\nfive_aces = "999:1"\n',
        "rules.super_bonus_pay_table.five_aces: not a hand",
    ),
    (
        "pay-table-missing",
        BASE,
        "rules.push22_pay_table: required because the table offers the Push 22 Wager",
    ),
    # -- devices the game needs
    ("crazy-4-without-shuffler", CRAZY_4, "devices: crazy-4-poker needs a shuffler (657a.9(a)(1)"),
    (
        "blackjack-without-reader",
        edited('[devices.card-reader]\nkind = "card-reader"\nurl = "sim://card-reader"\n', ""),
        "devices: free-bet-blackjack needs a card-reader (673a.2(d) (analog)",
    ),
    (
        "over-under-without-shuffler",
        '[table]\ngame = "over-under"\n\n[devices.shoe]\nkind = "shoe"\nurl = "sim://shoe"\n',
        "devices: over-under needs a shuffler (686a.7(d)(2)",
    ),
    # -- devices the game never uses (the table would pass its check and never connect them)
    (
        "blackjack-with-progressive",
        BASE + PAID + PROGRESSIVE_LINE.replace('kind = "meter-sign"', 'kind = "meter-sign"\naddress = 2'),
        "devices.progressive: a progressive device is never used by free-bet-blackjack "
        "(it uses: shoe, shuffler, card-reader)",
    ),
    (
        "over-under-with-card-reader",
        '[table]\ngame = "over-under"\n\n[devices.shoe]\nkind = "shoe"\nurl = "sim://shoe"\n'
        '\n[devices.shuffler]\nkind = "shuffler"\nurl = "sim://shuffler"\n'
        '\n[devices.peek]\nkind = "card-reader"\nurl = "sim://card-reader"\n',
        "devices.peek: a card-reader device is never used by over-under (it uses: shoe, shuffler)",
    ),
    ("no-devices", "[table]\ngame = 'over-under'\n", "devices: missing (expected a table)"),
    # -- one device
    (
        "device-unknown-key",
        edited('url = "sim://shoe"', 'url = "sim://shoe"\nspeed = 9600'),
        "devices.shoe.speed: unknown key (expected one of kind, url, address",
    ),
    (
        "device-unknown-kind",
        edited('kind = "shoe"', 'kind = "roulette-wheel"'),
        "devices.shoe.kind: got 'roulette-wheel' "
        "(expected one of shoe, shuffler, card-reader, progressive, meter-sign)",
    ),
    (
        "device-missing-url",
        edited('url = "sim://shoe"', ""),
        "devices.shoe.url: missing (expected a device URL)",
    ),
    ("unknown-scheme", shoe_url("ftp://shoe"), "devices.shoe.url: unknown scheme ftp://"),
    (
        "relative-path",
        shoe_url("ttyUSB0"),
        "devices.shoe.url: 'ttyUSB0' is neither an absolute serial port path",
    ),
    (
        "usb-without-pid",
        hardware_shoe("usb://1209"),
        "devices.shoe.url: usb://1209: expected usb://VID:PID",
    ),
    (
        "usb-bad-vid",
        hardware_shoe("usb://12g9:0001"),
        "devices.shoe.url: usb://12g9:0001: VID must be 4 hex digits",
    ),
    (
        "usb-unknown-parameter",
        hardware_shoe("usb://1209:0001?bus=3"),
        "only serial= is accepted",
    ),
    (
        "socket-without-port",
        hardware_shoe("socket://10.0.0.5"),
        "devices.shoe.url: 'socket://10.0.0.5' needs host:port",
    ),
    (
        "sim-unknown-kind",
        edited('"sim://shoe"', '"sim://roulette"'),
        "devices.shoe.url: 'sim://roulette' names no simulated device kind",
    ),
    (
        "sim-other-kind",
        edited('"sim://shoe"', '"sim://shuffler"'),
        "devices.shoe.url: sim://shuffler simulates a shuffler, but kind is shoe (expected sim://shoe)",
    ),
    (
        "real-device-without-allow-list",
        shoe_url("/dev/ttyUSB0"),
        "devices.shoe.firmware_allow_list: missing for /dev/ttyUSB0: "
        "real equipment runs only approved firmware (605a.4(c)",
    ),
    (
        "empty-allow-list",
        shoe_url("/dev/ttyUSB0", "firmware_allow_list = []"),
        "devices.shoe.firmware_allow_list: empty (605a.4(c)",
    ),
    (
        "short-hash",
        shoe_url("/dev/ttyUSB0", 'firmware_allow_list = ["abc123"]'),
        "devices.shoe.firmware_allow_list[0]: 'abc123' is not a SHA-256 hash (expected 64 hex digits)",
    ),
    (
        "non-hex-hash",
        shoe_url("/dev/ttyUSB0", f'firmware_allow_list = ["{HASH}", "{"zz" * 32}"]'),
        "devices.shoe.firmware_allow_list[1]:",
    ),
    (
        "hash-not-a-string",
        shoe_url("/dev/ttyUSB0", "firmware_allow_list = [7]"),
        "devices.shoe.firmware_allow_list[0]: got 7 (expected a string)",
    ),
    (
        "address-zero",
        edited('url = "sim://shoe"', 'url = "sim://shoe"\naddress = 0'),
        "devices.shoe.address: got 0 (expected a whole number of at least 1 and at most 254)",
    ),
    (
        "address-broadcast",
        edited('url = "sim://shoe"', 'url = "sim://shoe"\naddress = 255'),
        "devices.shoe.address: got 255",
    ),
    (
        "negative-heartbeat",
        edited('url = "sim://shoe"', 'url = "sim://shoe"\nheartbeat = -1.0'),
        "devices.shoe.heartbeat: got -1.0 (expected a number above 0)",
    ),
    (
        "heartbeat-string",
        edited('url = "sim://shoe"', 'url = "sim://shoe"\nheartbeat = "1s"'),
        "devices.shoe.heartbeat: got '1s' (expected a number)",
    ),
    (
        "zero-response-timeout",
        edited('url = "sim://shoe"', 'url = "sim://shoe"\nresponse_timeout = 0'),
        "devices.shoe.response_timeout: got 0.0 (expected a number above 0)",
    ),
    (
        "too-many-retries",
        edited('url = "sim://shoe"', 'url = "sim://shoe"\nretries = 21'),
        "devices.shoe.retries: got 21 (expected a whole number of at least 0 and at most 20)",
    ),
    (
        "retries-bool",
        edited('url = "sim://shoe"', 'url = "sim://shoe"\nretries = true'),
        "devices.shoe.retries: got True (expected a whole number)",
    ),
    (
        "bad-parity",
        hardware_shoe("/dev/ttyUSB0", 'parity = "X"'),
        "devices.shoe.parity: got 'X' (expected one of none, even, odd, mark, space)",
    ),
    (
        "baudrate-on-usb",
        hardware_shoe("usb://1209:0001", "baudrate = 9600"),
        "devices.shoe.baudrate: does not apply to usb://1209:0001",
    ),
    # -- devices against each other
    (
        "duplicate-rs485-address",
        BASE + PROGRESSIVE_LINE,
        f"devices.meter-sign.address: 1 is taken by devices.progressive on the same line {RS485}",
    ),
    (
        "rs485-baudrate-differs",
        BASE
        + PROGRESSIVE_LINE.replace(
            'kind = "meter-sign"', 'kind = "meter-sign"\naddress = 2\nbaudrate = 9600'
        ),
        "devices.meter-sign.baudrate: differs from devices.progressive on the same line",
    ),
    (
        "two-on-one-usb",
        BASE + PROGRESSIVE_LINE.replace(RS485, "usb://1209:0001"),
        "devices.meter-sign.url: devices.progressive is at usb://1209:0001 "
        "(expected one device per USB address)",
    ),
    (
        "second-shoe",
        BASE + '\n[devices.shoe2]\nkind = "shoe"\nurl = "sim://shoe"\n',
        "devices.shoe2.kind: a second shoe (devices.shoe is one)",
    ),
    (
        "device-not-a-table",
        BASE.replace("[devices.shoe]", "[devices]\nsign = 3\n\n[devices.shoe]"),
        "devices.sign: got 3 (expected a table)",
    ),
    # -- the service and the audit trail
    (
        "service-unknown-key",
        BASE + "\n[service]\nport = 80\n",
        "service.port: unknown key (expected one of api_bind",
    ),
    (
        "bind-without-port",
        BASE + '\n[service]\napi_bind = "127.0.0.1"\n',
        "service.api_bind: got '127.0.0.1' (expected HOST:PORT with a port from 1 to 65535)",
    ),
    (
        "bind-port-too-big",
        BASE + '\n[service]\napi_bind = "0.0.0.0:70000"\n',
        "service.api_bind: got '0.0.0.0:70000'",
    ),
    (
        "bind-hostname",
        BASE + '\n[service]\napi_bind = "table-pc:8443"\n',
        "service.api_bind: 'table-pc' is not an IP address",
    ),
    (
        "bind-beyond-loopback-without-tls",
        BASE + '\n[service]\napi_bind = "0.0.0.0:8443"\n',
        "service.api_bind: 0.0.0.0 is not loopback: bearer tokens would cross the network in clear "
        "(expected 127.0.0.1 or ::1, or api_tls_cert and api_tls_key to serve HTTPS)",
    ),
    (
        "tls-cert-without-key",
        BASE + '\n[service]\napi_tls_cert = "api.pem"\n',
        "service.api_tls_key: missing (expected a path: api_tls_cert is set, and TLS needs both)",
    ),
    (
        "bad-log-level",
        BASE + '\n[service]\nlog_level = "verbose"\n',
        "service.log_level: got 'verbose' (expected one of debug, info, warning, error)",
    ),
    ("empty-audit-dir", BASE + '\n[service]\naudit_dir = ""\n', "service.audit_dir: empty (expected a path)"),
    (
        "online-days-too-short",
        BASE + "\n[audit]\nonline_days = 7\n",
        "audit.online_days: 7 is too short "
        "(461a.10(s): logs of transactions, errors and access kept at least 30 days on line)",
    ),
    (
        "retention-too-short",
        BASE + "\n[audit]\nretention_years = 1\n",
        "audit.retention_years: 1 is too short (465a.6",
    ),
    (
        "limits-unknown-wager-kind",
        BASE + PAID + "\n[limits]\nante = {min = 500, max = 50000}\n",
        "limits.ante: unknown key (expected one of blackjack, push22)",
    ),
    (
        "limits-max-below-min",
        BASE + PAID + "\n[limits]\nblackjack = {min = 500, max = 100}\n",
        "limits.blackjack.max: got 100 (expected a whole number of cents, at least min (500))",
    ),
    (
        "limits-min-missing",
        BASE + PAID + "\n[limits]\nblackjack = {max = 100}\n",
        "limits.blackjack.min: missing",
    ),
    (
        "limits-min-zero",
        BASE + PAID + "\n[limits]\nblackjack = {min = 0, max = 100}\n",
        "limits.blackjack.min: got 0 (expected a whole number of cents, at least 1)",
    ),
    (
        "bad-rotation",
        BASE + '\n[audit]\nrotation = "hourly"\n',
        "audit.rotation: got 'hourly' (expected one of daily, weekly, monthly)",
    ),
]


@pytest.mark.parametrize(("text", "fragment"), [case[1:] for case in BAD], ids=[case[0] for case in BAD])
def test_a_bad_config_is_refused_naming_file_and_key(tmp_path: Path, text: str, fragment: str) -> None:
    path = write(tmp_path, text)
    with pytest.raises(ConfigError) as caught:
        load_table_config(path)
    message = str(caught.value)
    assert message.startswith(f"{path}: ")
    assert fragment in message


@pytest.mark.parametrize(
    ("shipped", "edit", "fragment"),
    [
        (
            "crazy-4-poker.toml",
            ("progressive_offered = true", "progressive_offered = true\nsix_card_bonus_offered = true"),
            "rules.six_card_bonus_pay_table: required because the table offers the Six Card Bonus Wager",
        ),
        (
            "over-under.toml",
            ('under_18_odds = "1:1"\n', ""),
            "rules.under_18_odds: required because the table offers the Under 18 Wager",
        ),
        (
            "heads-up-holdem.toml",
            (
                '[rules.odds_pay_table]\nroyal_flush = "500:1"\nstraight_flush = "50:1"\n'
                'four_of_a_kind = "10:1"\nfull_house = "3:1"\nflush = "3:2"\nstraight = "1:1"\n',
                "",
            ),
            "rules.odds_pay_table: required because the table offers the Odds Wager",
        ),
    ],
)
def test_a_table_offering_a_wager_without_its_pay_table_is_refused_naming_the_key(
    tmp_path: Path, shipped: str, edit: tuple[str, str], fragment: str
) -> None:
    """No pay table is built in (decision 0023): a casino pays by the tables the Board approved
    in its Rules Submission, so a shipped example without one of its tables is refused, naming it."""
    text = (TABLES / shipped).read_text()
    assert edit[0] in text
    path = write(tmp_path, text.replace(edit[0], edit[1], 1))
    with pytest.raises(ConfigError) as caught:
        load_table_config(path)
    assert str(caught.value) == f"{path}: {fragment}"


def test_the_posted_limits_are_read_per_wager_kind_of_the_game(tmp_path: Path) -> None:
    """Decision 0022: [limits] gives each wager kind of the game its posted minimum and maximum."""
    path = write(tmp_path, BASE + PAID + "\n[limits]\nblackjack = {min = 500, max = 50000}\n")
    assert load_table_config(path).limits == {"blackjack": Limit(500, 50_000)}
    assert load_table_config(write(tmp_path, BASE + PAID)).limits == {}


def test_an_api_beyond_loopback_is_served_only_over_tls(tmp_path: Path) -> None:
    """Bearer tokens cross the wire with every request: a bind beyond loopback loads only with a
    certificate and key, which the service then serves HTTPS with."""
    tls = 'api_tls_cert = "api.pem"\napi_tls_key = "api.key"\n'
    text = BASE + PAID + f'\n[service]\napi_bind = "10.1.2.3:8443"\n{tls}'
    service = load_table_config(write(tmp_path, text)).service
    assert (service.api_host, service.api_tls_cert, service.api_tls_key) == (
        "10.1.2.3",
        tmp_path / "api.pem",
        tmp_path / "api.key",
    )
    loopback = load_table_config(write(tmp_path, BASE + PAID + '\n[service]\napi_bind = "[::1]:8443"\n'))
    assert loopback.service.api_tls_cert is None


def test_a_missing_file_is_named(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"absent\.toml: cannot be read: No such file"):
        load_table_config(tmp_path / "absent.toml")


def test_firmware_images_and_the_check_interval_are_read_and_checked(tmp_path: Path) -> None:
    """58 Pa. Code § 461a.20(b), § 605a.4(c): an approved image is read when the file is loaded and
    must be on the allow-list (a device reporting its hash is then challenged with it); the check
    interval is seconds up to 24 hours, 24 hours by default, and a longer one is refused by name."""
    image = tmp_path / "shoe-1.0.bin"
    image.write_bytes(b"approved shoe firmware")
    approved = hashlib.sha256(image.read_bytes()).hexdigest()
    extra = 'firmware_images = ["shoe-1.0.bin"]\nfirmware_check_interval = 3600'
    shoe = load_table_config(
        write(tmp_path, shoe_url("/dev/ttyUSB0", f'firmware_allow_list = ["{approved}"]\n{extra}') + PAID)
    ).devices["shoe"]
    assert shoe.firmware_images == (b"approved shoe firmware",)
    assert supervisor_settings(shoe).firmware_recheck == 3600
    default = load_table_config(write(tmp_path, hardware_shoe("/dev/ttyUSB0") + PAID)).devices["shoe"]
    assert supervisor_settings(default).firmware_recheck == 24 * 3600 and default.firmware_images == ()
    refused = {
        "firmware_check_interval = 86401": "devices.shoe.firmware_check_interval: got 86401: the firmware "
        "must be checked at least every 24 hours (58 Pa. Code § 605a.4(c), § 461a.20(b))",
        "firmware_check_interval = 0": "devices.shoe.firmware_check_interval: got 0",
        'firmware_images = ["missing.bin"]': f"devices.shoe.firmware_images[0]: {tmp_path / 'missing.bin'}: "
        "cannot be read",
        'firmware_images = ["shoe-1.0.bin"]': f"devices.shoe.firmware_images[0]: {image}: its SHA-256 "
        f"{approved} is not on firmware_allow_list",
    }
    for setting, message in refused.items():
        with pytest.raises(ConfigError, match=re.escape(message)):
            load_table_config(write(tmp_path, hardware_shoe("/dev/ttyUSB0", setting) + PAID))
