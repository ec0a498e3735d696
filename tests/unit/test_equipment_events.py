"""The one path of an equipment event (decision 0027): a device's machine reports it with the device,
the unit's identity and the clause, and keeps what it reports before anyone listens."""

from __future__ import annotations

from croupier.tables.free_bet_blackjack import FreeBetBlackjackTable
from devices.equipment import EquipmentEvent
from devices.shoe import Shoe
from drivers.connection import ConnectionState, DeviceConnection, DeviceRebooted, StateChanged
from drivers.protocol.core import DeviceClass, DoorChanged
from drivers.shoe import ShoeDriver
from drivers.transport.serial import SerialTransport


def unidentified_shoe() -> Shoe:
    """A shoe whose link never reached its handshake (never started): no identity yet."""
    conn = DeviceConnection(
        lambda: SerialTransport("/dev/null"), name="shoe", expected_class=DeviceClass.SHOE
    )
    return Shoe(ShoeDriver(conn), clauses=FreeBetBlackjackTable.shoe_clauses)


def test_461a10s_a_device_not_yet_identified_is_named_with_null_identity_and_its_events_kept():
    """Events made before anyone listened reach the first listener, in order; a device with no
    handshake yet is named by its configured name, its model, serial, firmware and hash null."""
    shoe = unidentified_shoe()
    shoe.apply(DoorChanged(1, True))
    shoe.apply(DoorChanged(1, False))
    heard: list[EquipmentEvent] = []
    shoe.listen(heard.append)
    shoe.apply(DeviceRebooted(7, 8))
    assert [e.kind for e in heard] == ["door_opened", "door_closed", "device_reboot"]
    assert all(e.device == "shoe" and set(e.unit.values()) == {None} for e in heard)
    assert heard[0].clause == "461a.10(s); decision 0027" and heard[2].fields == {
        "old_boot_id": 7,
        "new_boot_id": 8,
    }


def test_decision_0027_a_lost_link_is_one_fault_record_and_its_return_one_record():
    """The loss latches LINK_LOST (its ``fault_latched`` record); coming back is ``link_restored``, once;
    a link that was never up does not come back."""
    shoe = unidentified_shoe()
    heard: list[EquipmentEvent] = []
    shoe.listen(heard.append)
    shoe.apply(StateChanged(ConnectionState.READY, "first"))
    shoe.apply(StateChanged(ConnectionState.BACKOFF, "no response"))
    shoe.apply(StateChanged(ConnectionState.CONNECTING))
    shoe.apply(StateChanged(ConnectionState.READY, "unit"))
    shoe.apply(StateChanged(ConnectionState.READY, "unit"))
    assert [(e.kind, e.fields) for e in heard] == [("link_restored", {"lost": "no response", "unit": "unit"})]
    assert [f.code for f in shoe.latch.faults] == ["LINK_LOST"]
