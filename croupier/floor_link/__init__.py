"""The table on the casino floor's MQTT broker (docs/floor.md; decision 0035): what ``croupier run``
publishes when its configuration names a broker, spooled on the table PC and delivered in order."""

from croupier.floor_link.publisher import BrokerSettings, FloorLink, broker_settings, open_spool, publishing
from croupier.floor_link.spool import Spool
from croupier.floor_link.topics import DATA, KINDS, Topics

__all__ = [
    "DATA", "KINDS", "BrokerSettings", "FloorLink", "Spool", "Topics",
    "broker_settings", "open_spool", "publishing",
]
