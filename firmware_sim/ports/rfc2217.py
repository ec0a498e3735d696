"""A simulated device behind an RFC 2217 server: TCP, plus the client's line settings.

A pseudo-terminal or a raw socket ignores baud rate, parity and stop bits, so a driver that sets
them wrongly passes every test. An RFC 2217 device server applies the client's settings to its
UART; here pyserial's own ``PortManager`` speaks the Telnet side and a ``VirtualUart`` stands in
for the UART: it records what the client set (``Rfc2217Port.line_settings``) and, with pacing on,
makes the device send no faster than the client's baud rate, so a 9600-baud client sees 9600-baud
timing.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import serial
from serial.rfc2217 import PortManager

from firmware_sim.device import SimulatedDevice
from firmware_sim.ports.tcp import TcpPort


@dataclass(frozen=True)
class LineSettings:
    """What the client has set on the device server's UART, and its modem outputs."""

    baudrate: int
    bytesize: int
    parity: str
    stopbits: float
    xonxoff: bool
    rtscts: bool
    dtr: bool
    rts: bool
    break_condition: bool


class VirtualUart:
    """The device server's UART as ``PortManager`` drives it, in place of a ``serial.Serial``.

    PortManager sets ``baudrate``, ``bytesize``, ``parity``, ``stopbits``, flow control, ``dtr``,
    ``rts`` and ``break_condition``, and answers the client with the value read back; a setting
    rejected here (ValueError, as pyserial's own setters raise) is answered with the old value, so
    the client learns it was refused. It reads ``cts``, ``dsr``, ``ri`` and ``cd`` to notify the
    client's modem-status queries, and purges with ``reset_input_buffer``/``reset_output_buffer``.
    """

    # The device's modem outputs: a powered, cabled device asserts CTS, DSR and carrier; no ring.
    cts = True
    dsr = True
    cd = True
    ri = False

    def __init__(self, on_baudrate: Callable[[int], None] | None = None) -> None:
        self._on_baudrate = on_baudrate
        self._baudrate = 115200
        self._bytesize = serial.EIGHTBITS
        self._parity = serial.PARITY_NONE
        self._stopbits: float = serial.STOPBITS_ONE
        self.xonxoff = False
        self.rtscts = False
        self.dtr = False
        self.rts = False
        self.break_condition = False

    @property
    def baudrate(self) -> int:
        return self._baudrate

    @baudrate.setter
    def baudrate(self, value: int) -> None:
        if not isinstance(value, int) or value <= 0:
            raise ValueError(f"not a valid baud rate: {value!r}")
        self._baudrate = value
        if self._on_baudrate is not None:
            self._on_baudrate(value)

    @property
    def bytesize(self) -> int:
        return self._bytesize

    @bytesize.setter
    def bytesize(self, value: int) -> None:
        if value not in serial.SerialBase.BYTESIZES:
            raise ValueError(f"not a valid byte size: {value!r}")
        self._bytesize = value

    @property
    def parity(self) -> str:
        return self._parity

    @parity.setter
    def parity(self, value: str) -> None:
        if value not in serial.SerialBase.PARITIES:
            raise ValueError(f"not a valid parity: {value!r}")
        self._parity = value

    @property
    def stopbits(self) -> float:
        return self._stopbits

    @stopbits.setter
    def stopbits(self, value: float) -> None:
        if value not in serial.SerialBase.STOPBITS:
            raise ValueError(f"not a valid stop bit count: {value!r}")
        self._stopbits = value

    def reset_input_buffer(self) -> None:
        """Nothing to purge: the port puts the device's bytes on the socket as they come."""

    def reset_output_buffer(self) -> None:
        """Nothing to purge: the port hands the client's bytes to the device as they come."""

    def settings(self) -> LineSettings:
        return LineSettings(
            baudrate=self._baudrate,
            bytesize=self._bytesize,
            parity=self._parity,
            stopbits=self._stopbits,
            xonxoff=self.xonxoff,
            rtscts=self.rtscts,
            dtr=self.dtr,
            rts=self.rts,
            break_condition=self.break_condition,
        )


@dataclass(frozen=True)
class _ClientWriter:
    """PortManager's ``connection``: anything with a thread-safe ``write``."""

    write: Callable[[bytes], None]


class Rfc2217Port(TcpPort):
    """Serve ``device`` over RFC 2217 to one client at a time.

    ``pace`` (default on) sets ``device.faults.pace_baud`` to the UART's baud rate, now and each
    time the client changes it: a serial device server cannot send faster than its line, and tests
    of slow-line timing need that. The device paces 10 bits a character (8N1) whatever parity and
    stop bits the client chose. Turn pacing off to keep a FaultPlan's own ``pace_baud``. The
    settings persist across sessions, as a device server's UART keeps them; RFC 2217 clients set
    all of them when they open anyway.
    """

    scheme = "rfc2217"

    def __init__(
        self, device: SimulatedDevice, *, host: str = "127.0.0.1", port: int = 0, pace: bool = True
    ) -> None:
        super().__init__(device, host=host, port=port)
        self.pace = pace
        self.uart = VirtualUart(on_baudrate=self._set_pace if pace else None)
        self._manager: PortManager | None = None

    @property
    def line_settings(self) -> LineSettings:
        """What the current (or last) client set: baud rate, data bits, parity, stop bits, lines."""
        return self.uart.settings()

    def start(self) -> Rfc2217Port:
        if self.pace:
            self._set_pace(self.uart.baudrate)
        super().start()
        return self

    def _set_pace(self, baudrate: int) -> None:
        self.device.call(lambda _engine: setattr(self.device.faults, "pace_baud", baudrate))

    def _session_started(self) -> None:
        # A fresh Telnet state per client; its constructor sends our option requests at once.
        # pyserial's stubs ask for two Serials; PortManager uses only what these stand-ins give.
        self._manager = PortManager(self.uart, _ClientWriter(self._send))  # type: ignore[arg-type]

    def _from_client(self, data: bytes) -> bytes:
        assert self._manager is not None
        return b"".join(self._manager.filter(data))

    def _to_client(self, data: bytes) -> bytes:
        assert self._manager is not None
        return b"".join(self._manager.escape(data))
