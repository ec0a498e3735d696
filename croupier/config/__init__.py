"""Table configuration: ``load_table_config(path)`` reads a TOML table file (docs/configuration.md)
into frozen dataclasses, refusing a bad file with an error naming the file, the key and what is
wrong. ``DEFAULT_TABLE_CONFIG`` is the simulated table run when no file is given."""

from croupier.config.devices import PARITY, DeviceConfig, DeviceKind, LinkTiming
from croupier.config.floor import FloorConfig
from croupier.config.service import AuditConfig, ServiceConfig
from croupier.config.table import DEFAULT_TABLE_CONFIG, TableConfig, load_table_config
from croupier.config.urls import DeviceUrl, Via
from croupier.errors import ConfigError

__all__ = [
    "DEFAULT_TABLE_CONFIG",
    "PARITY",
    "AuditConfig",
    "ConfigError",
    "DeviceConfig",
    "DeviceKind",
    "DeviceUrl",
    "FloorConfig",
    "LinkTiming",
    "ServiceConfig",
    "TableConfig",
    "Via",
    "load_table_config",
]
