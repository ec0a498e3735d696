"""A table's configuration file: the game, its seats and rules, its devices and the service.

``load_table_config`` reads the TOML and checks it whole before anything is started, so a bad
file is refused with one error naming the file, the key and what was expected; a table offering a
wager whose pay table the file does not give is refused too (no pay table is built in: a casino
pays by the tables the Board approved in its Rules Submission). The game's own
rules (pay tables and options) are read by the game's ``RuleSet.from_mapping``: the game knows
its keys; this module only re-raises its error with the file and the TOML key path."""

from __future__ import annotations

import dataclasses
import hashlib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from croupier.config.devices import DeviceConfig, DeviceKind, read_devices
from croupier.config.floor import FloorConfig, read_floor
from croupier.config.limits import Limits, read_limits
from croupier.config.section import Section
from croupier.config.service import AuditConfig, ServiceConfig, read_audit, read_service
from games import registry
from games.common.config import ConfigError as RulesError
from games.common.config import Configurable

#: Package data, so that a table PC's release (a wheel, no source tree) runs it too (decision 0038).
DEFAULT_TABLE_CONFIG = Path(__file__).with_name("simulated.toml")


@dataclass(frozen=True)
class TableConfig:
    source: Path
    name: str
    game: str
    seats: int
    rules: Configurable  # the game's RuleSet (games.<game>.RuleSet)
    devices: Mapping[str, DeviceConfig]
    service: ServiceConfig
    audit: AuditConfig
    limits: Limits = dataclasses.field(default_factory=dict)  # [limits]: posted, per wager kind
    floor: FloorConfig | None = None  # [floor]: the casino floor's broker; None publishes nothing

    def device(self, kind: DeviceKind) -> DeviceConfig | None:
        """The table's device of ``kind``, if it has one."""
        return next((device for device in self.devices.values() if device.kind is kind), None)


def file_sha256(path: Path) -> str:
    """The SHA-256 of a configuration file's bytes, in hex: how the trail's ``service_started``
    record (the table service) and a math report (``croupier sim --math``) name the file a table ran
    or a review was played from, so that both name it alike and a reviewer can match the very file
    submitted with ``sha256sum``."""
    return hashlib.sha256(path.read_bytes()).hexdigest()


def load_table_config(path: str | Path, floor_login: Mapping[str, str] | None = None) -> TableConfig:
    """Read and check ``path``; a ConfigError names the file, the key and what is wrong.
    ``floor_login`` stands in for its ``[floor]`` broker, group, protocol and credentials
    (croupier.config.floor.read_floor): a simulated floor's tables log in to the floor's broker."""
    path = Path(path)
    top = Section.read(path)
    top.only(("table", "rules", "limits", "devices", "service", "audit", "floor"))
    table = top.section("table", required=True)
    table.only(("name", "game", "seats"))
    game = table.choice("game", registry.slugs())
    rules, seats = _rules(top.section("rules"), table, game)
    devices = read_devices(top.section("devices", required=True))
    _check_devices(top.section("devices"), devices, game)
    service, audit = read_service(top.section("service")), read_audit(top.section("audit"))
    try:  # a casino pays by its approved tables: none is built in (Configurable.check_pay_tables)
        rules.check_pay_tables(given=set(top.section("rules").data))
    except RulesError as exc:
        raise top.section("rules").error(exc.key, str(exc).removeprefix(f"{exc.key}: ")) from None
    floor = read_floor(top.section("floor"), floor_login)
    if floor is not None and floor.link is not None and not any(
        device.kind is DeviceKind.PROGRESSIVE for device in devices.values()
    ):
        raise top.section("floor").error("link", f"{game} has no progressive system to link")
    return TableConfig(
        source=path,
        name=table.value("name", str, path.stem),
        game=game,
        seats=seats,
        rules=rules,
        devices=devices,
        service=service,
        audit=audit,
        limits=read_limits(top.section("limits"), game),
        floor=floor,
    )


def _check_devices(section: Section, devices: Mapping[str, DeviceConfig], game: str) -> None:
    """Every device ``game`` needs is configured, and no other: a device the game's rounds never
    use would pass the check and never be connected, so the file would promise equipment (a
    progressive's meters, 605a.7(a)) that the table does not run."""
    needs = {DeviceKind(kind): rule for kind, rule in registry.game(game).devices.items()}
    for kind, rule in needs.items():
        if not any(device.kind is kind for device in devices.values()):
            raise section.error(None, f"{game} needs a {kind} ({rule})", f"a device of kind {kind}")
    for name, device in devices.items():
        if device.kind not in needs:
            uses = ", ".join(needs)
            raise section.error(name, f"a {device.kind} device is never used by {game} (it uses: {uses})")


def _rules(rules: Section, table: Section, game: str) -> tuple[Configurable, int]:
    """The game's RuleSet from ``[rules]`` and ``table.seats`` (the game's betting positions, whose
    limits the game knows: at most six for Free Bet Blackjack, 672a.2)."""
    rule_set = registry.game(game).rules
    if rules.has("positions"):
        raise rules.error("positions", "the seats are set by table.seats", "table.seats")
    mapping = dict(rules.data)
    if table.has("seats"):
        mapping["positions"] = table.value("seats", int)
    try:
        made = rule_set.from_mapping(mapping)
    except RulesError as exc:
        problem = str(exc).removeprefix(f"{exc.key}: ")
        section, key = (table, "seats") if exc.key == "positions" else (rules, exc.key)
        raise section.error(key, problem) from None
    return made, made.positions
