"""One half-duplex line shared by several device links: the host side of an RS-485 multi-drop bus.

A table's progressive controller and its meter sign hang on one RS-485 pair behind one serial port.
Each device keeps its own DeviceConnection (its own HostLink, sequence numbers, heartbeat and
reconnects); ``SharedLine.tap(address)`` gives each one a Transport of its own over the one port:

- the port opens with the first tap and closes with the last; a loss of the port is reported to
  every tap, and the next tap to open after it opens the port afresh;
- bytes from the line go to every tap: each link keeps the frames of its own address (§1 of
  docs/protocol.md) and ignores the rest;
- the line is half duplex, so the line arbitrates: a COMMAND frame goes out only when the exchange
  in progress is over, that is when the addressed device's RESPONSE (or NAK) has arrived and no frame
  is still arriving behind it (a multi-drop device sends its pending event right behind its
  response), or after ``exchange_timeout`` without an answer. Two devices therefore never answer at
  once. Commands waiting for the line go out in the order they came, one per tap: a retransmission
  replaces the frame its tap had waiting, and a tap's new command ends its own exchange (its link
  has stopped waiting), so a silent device cannot hold the line for longer than one timeout at a
  time;
- ACK frames go out at once: the device that sent the event is waiting for them. Every link sees a
  damaged frame and NAKs it; only the NAK of the device that had the line last is sent.

Frames are found in both streams with the protocol's FrameDecoder, never by timing. Keep
``exchange_timeout`` below the links' response timeout: a command's response timer starts when its
link hands it over, and the time it waits for the line counts against it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass

import structlog

from drivers.protocol.frame import Frame, FrameDecoder, Kind, Noise
from drivers.transport.base import DataCallback, LostCallback, Transport


@dataclass
class LineCounters:
    """How the line is shared, for the status page: commands that found the line busy, exchanges
    given up without an answer, and duplicate NAKs withheld."""

    deferred: int = 0
    exchange_timeouts: int = 0
    naks_withheld: int = 0


class SharedLine:
    """One transport shared by the taps it hands out; everything runs on the asyncio loop."""

    def __init__(self, transport_factory: Callable[[], Transport], *, exchange_timeout: float = 0.1) -> None:
        if exchange_timeout <= 0:
            raise ValueError("exchange_timeout must be positive")
        self._factory = transport_factory
        self.url = transport_factory().url
        self.exchange_timeout = exchange_timeout
        self.counters = LineCounters()
        self.log = structlog.get_logger("croupier.line").bind(line=self.url)
        self._transport: Transport | None = None
        self._lost = False
        self._taps: list[_Tap] = []
        self._open_close = asyncio.Lock()
        self._incoming = FrameDecoder()
        self._owner: _Tap | None = None
        self._last_address: int | None = None
        self._waiting: dict[_Tap, bytes] = {}  # insertion order is the order of service
        self._timer: asyncio.TimerHandle | None = None
        self._fanning_out = False

    def tap(self, address: int) -> Transport:
        """A transport for the link to the device at ``address``; cheap until opened."""
        return _Tap(self, address)

    def present(self) -> bool:
        return self._factory().present()

    @property
    def is_open(self) -> bool:
        """Whether the port is open and alive (some tap holds it)."""
        return self._transport is not None and not self._lost

    # -- taps joining and leaving ----------------------------------------------------------------
    async def _join(self, tap: _Tap, on_data: DataCallback, on_lost: LostCallback) -> None:
        async with self._open_close:
            if tap in self._taps:
                return
            if self._lost:
                await self._close_port()  # its other taps were told of the loss and are closing
            if self._transport is None:
                transport = self._factory()
                await transport.open(self._on_data, self._on_lost)
                self._transport = transport
            tap.on_data, tap.on_lost = on_data, on_lost
            tap.outgoing.clear()
            self._taps.append(tap)

    async def _leave(self, tap: _Tap) -> None:
        async with self._open_close:
            if tap not in self._taps:
                return
            self._taps.remove(tap)
            self._waiting.pop(tap, None)
            if self._owner is tap:
                self._end_exchange()
            if not self._taps:
                await self._close_port()
            self._pump()

    async def _close_port(self) -> None:
        transport, self._transport = self._transport, None
        self._lost = False
        self._taps.clear()
        self._waiting.clear()
        self._end_exchange()
        self._incoming.clear()
        if transport is not None:
            await transport.close()

    def _on_lost(self, exc: Exception) -> None:
        if self._lost or self._transport is None:
            return
        self._lost = True
        self._end_exchange()
        self._waiting.clear()
        for tap in list(self._taps):
            assert tap.on_lost is not None
            tap.on_lost(exc)

    # -- the two streams --------------------------------------------------------------------------
    def _on_data(self, data: bytes) -> None:
        items = self._incoming.feed(data)
        owner = self._owner
        if owner is not None and any(_answers(item, owner.address) for item in items):
            self._end_exchange()
        # Commands the links write while they read wait until every link has read: an ACK they
        # send for an event in this data must reach the line before anyone's next command.
        self._fanning_out = True
        try:
            for tap in list(self._taps):
                assert tap.on_data is not None
                tap.on_data(data)
        finally:
            self._fanning_out = False
        self._pump()

    def _write(self, tap: _Tap, data: bytes) -> None:
        if self._transport is None or self._lost or tap not in self._taps:
            return  # a dead or closed line: the bytes are lost, as on a cut wire
        at_once = bytearray()
        for item in tap.outgoing.feed(data):
            if not isinstance(item, Frame):
                continue  # a link writes whole frames: nothing else is worth sending
            if item.kind is Kind.COMMAND:
                if self._owner is tap:
                    self._end_exchange()  # its link has stopped waiting for the answer
                if self._owner is not None or any(other is not tap for other in self._waiting):
                    self.counters.deferred += 1
                self._waiting[tap] = item.encode()
            elif item.kind is Kind.NAK and tap.address != self._last_address:
                self.counters.naks_withheld += 1
            else:
                at_once += item.encode()
        if at_once:
            self._transport.write(bytes(at_once))
        self._pump()

    # -- arbitration -----------------------------------------------------------------------------------
    def _pump(self) -> None:
        """Start the next exchange if the line is free."""
        if self._fanning_out or self._owner is not None or not self._waiting:
            return
        if self._transport is None or self._lost:
            return
        if self._incoming.buffered:
            # A device is still mid-frame: wait for the rest of it, or for the line to go quiet.
            if self._timer is None:
                self._timer = asyncio.get_running_loop().call_later(self.exchange_timeout, self._on_timer)
            return
        tap = next(iter(self._waiting))
        frame = self._waiting.pop(tap)
        self._cancel_timer()
        self._owner, self._last_address = tap, tap.address
        self._timer = asyncio.get_running_loop().call_later(self.exchange_timeout, self._on_timer)
        self._transport.write(frame)

    def _on_timer(self) -> None:
        self._timer = None
        if self._owner is not None:
            self.counters.exchange_timeouts += 1
            self.log.warning("no answer on the shared line", address=f"{self._owner.address:#04x}")
            self._owner = None
        else:
            self._incoming.clear()  # a partial frame that never completed: the line is quiet
        self._pump()

    def _end_exchange(self) -> None:
        self._owner = None
        self._cancel_timer()

    def _cancel_timer(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None


def _answers(item: Frame | Noise, address: int) -> bool:
    """Whether ``item`` ends an exchange with the device at ``address``."""
    return (
        isinstance(item, Frame)
        and item.from_device
        and item.address == address
        and item.kind in (Kind.RESPONSE, Kind.NAK)
    )


class _Tap(Transport):
    """One device's view of the shared line."""

    def __init__(self, line: SharedLine, address: int) -> None:
        self.line = line
        self.address = address
        self.url = f"{line.url}@{address:#04x}"
        self.outgoing = FrameDecoder()
        self.on_data: DataCallback | None = None
        self.on_lost: LostCallback | None = None

    async def open(self, on_data: DataCallback, on_lost: LostCallback) -> None:
        await self.line._join(self, on_data, on_lost)

    def write(self, data: bytes) -> None:
        self.line._write(self, data)

    async def close(self) -> None:
        await self.line._leave(self)

    def present(self) -> bool:
        return self.line.present()
