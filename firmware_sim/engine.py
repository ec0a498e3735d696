"""The device end of one link, sans-I/O: the mirror of drivers.host_link.

It keeps what a real device must keep for the host's guarantees: a cache of recent responses by
sequence number, so a retransmitted command is answered again and never executed twice; events
sent one at a time until acknowledged; faults that latch until an authorised clear; a boot id that
changes on every reboot.
"""

from __future__ import annotations

import collections
import random
from dataclasses import dataclass

from drivers.protocol.core import (
    CATALOG,
    PROTOCOL_VERSION,
    Attest,
    Attestation,
    ClearFault,
    DeviceStatus,
    FaultCleared,
    FaultCode,
    FaultRaised,
    GetStatus,
    Hello,
    Identity,
    attestation_digest,
    fault_mask,
)
from drivers.protocol.fields import STR, PayloadError
from drivers.protocol.frame import (
    MAX_PAYLOAD,
    Frame,
    FrameDecoder,
    Kind,
    NakReason,
    Noise,
    NoiseReason,
    encode_frame,
)
from drivers.protocol.message import Catalog, Command, Empty, Event, Reply, Status, UnknownMessage
from firmware_sim.personality import Personality, Refusal

RESPONSE_CACHE_SIZE = 8
PARTIAL_FRAME_TIMEOUT = 0.2  # seconds a partial frame may wait for its rest (as on the host)
# An error response is the status byte and a str field: its text must fit the rest of a payload.
_MAX_DETAIL = MAX_PAYLOAD - 2


def _detail(text: str) -> bytes:
    """The detail field of an error response, cut to fit a frame at a character boundary."""
    raw = text.encode("utf-8")[:_MAX_DETAIL]
    return STR.encode(raw.decode("utf-8", errors="ignore"))


@dataclass
class _PendingEvent:
    event: Event
    seq: int = -1
    deadline: float = 0.0


class DeviceEngine:
    """Protocol engine of one simulated device at ``address``."""

    def __init__(
        self,
        personality: Personality,
        *,
        address: int = 0x01,
        catalog: Catalog = CATALOG,
        event_timeout: float = 0.3,
        multidrop: bool = False,
        rng: random.Random | None = None,
        now: float = 0.0,
    ) -> None:
        self.personality = personality
        self.address = address
        # On a shared RS-485 bus a device may talk only when addressed: its events then ride
        # behind its responses (resent behind each one until acknowledged), never on a timer.
        self.multidrop = multidrop
        self.catalog = catalog
        self.event_timeout = event_timeout
        self._rng = rng or random.SystemRandom()
        self.latched: dict[FaultCode, str] = {}
        self.executions = 0  # commands executed (not replayed from cache): for exactly-once tests
        self._events: collections.deque[_PendingEvent] = collections.deque()
        self._power_on(now)

    # -- power ----------------------------------------------------------------------------
    def _power_on(self, now: float) -> None:
        self.boot_id = self._rng.getrandbits(32)
        self._booted_at = now
        self._session: int | None = None
        self._cache: collections.OrderedDict[int, tuple[int, bytes, bytes]] = collections.OrderedDict()
        self._decoder = FrameDecoder()
        self._last_rx = now
        self._outbox = bytearray()
        self._event_seq = 0
        self._last_response = b""
        for pending in self._events:
            pending.seq = -1

    def reboot(self, now: float) -> None:
        """Power cycle: session, caches and sequence numbers are lost; latched faults persist
        (they live in non-volatile memory on regulated equipment); unsent events are kept."""
        self.personality.on_reboot()
        self._power_on(now)

    # -- inputs ---------------------------------------------------------------------------
    def receive(self, data: bytes, now: float) -> None:
        if data:
            self._last_rx = now
        self._handle(self._decoder.feed(data), now)

    def _handle(self, items: list[Frame | Noise], now: float) -> None:
        for item in items:
            if isinstance(item, Noise):
                # A multidrop device keeps quiet on a bad frame: it may not have been addressed,
                # and answering could collide with the device that was. The host times out.
                if item.reason is NoiseReason.BAD_CRC and not self.multidrop:
                    self._send(Kind.NAK, 0, 0, bytes((NakReason.BAD_CRC,)))
                continue
            if item.from_device or item.address != self.address:
                continue
            if item.kind is Kind.COMMAND:
                self._on_command(item, now)
            elif item.kind is Kind.ACK:
                self._on_ack(item, now)
            elif item.kind is Kind.NAK:
                self._on_nak(now)

    def tick(self, now: float) -> None:
        if self._decoder.buffered and now - self._last_rx >= PARTIAL_FRAME_TIMEOUT:
            self._handle(self._decoder.resync(), now)  # a false header must not swallow commands
        if self._events and self._session is not None and not self.multidrop:
            head = self._events[0]
            if head.seq < 0 or now >= head.deadline:
                self._send_event(head, now)

    def emit(self, event: Event) -> None:
        """Queue an unsolicited event; it is delivered once a session exists, in order."""
        self._events.append(_PendingEvent(event))

    def raise_fault(self, code: FaultCode, detail: str) -> None:
        """Latch a fault and report it."""
        if code not in self.latched:
            self.latched[code] = detail
            self.emit(FaultRaised(int(code), detail))

    # -- outputs --------------------------------------------------------------------------
    def data_to_send(self) -> bytes:
        out = bytes(self._outbox)
        self._outbox.clear()
        return out

    def next_deadline(self) -> float | None:
        if self._decoder.buffered:
            return self._last_rx + PARTIAL_FRAME_TIMEOUT
        if self._events and self._session is not None and self._events[0].seq >= 0 and not self.multidrop:
            return self._events[0].deadline
        return None

    @property
    def pending_events(self) -> int:
        return len(self._events)

    # -- internals ------------------------------------------------------------------------
    def _send(self, kind: Kind, seq: int, msg: int, payload: bytes = b"") -> bytes:
        data = encode_frame(self.address, kind, True, seq, msg, payload)
        self._outbox += data
        return data

    def _on_command(self, frame: Frame, now: float) -> None:
        cached = self._cache.get(frame.seq)
        if cached is not None and cached[0] == frame.msg and cached[1] == frame.payload:
            self._outbox += cached[2]  # a retransmission: answer again, execute nothing
            self._last_response = cached[2]
            self._speak_after_response(now)
            return
        status, body = self._execute(frame, now)
        data = self._send(Kind.RESPONSE, frame.seq, frame.msg, bytes((status,)) + body)
        self._last_response = data
        if self._session is not None:
            self._cache[frame.seq] = (frame.msg, frame.payload, data)
            while len(self._cache) > RESPONSE_CACHE_SIZE:
                self._cache.popitem(last=False)
        self._speak_after_response(now)

    def _speak_after_response(self, now: float) -> None:
        if self.multidrop and self._events and self._session is not None:
            self._send_event(self._events[0], now)  # addressed: the turn to speak
        else:
            self.tick(now)

    def _execute(self, frame: Frame, now: float) -> tuple[int, bytes]:
        try:
            command = self.catalog.command(frame.msg).from_payload(frame.payload)
        except UnknownMessage as exc:
            return Status.UNKNOWN_COMMAND, _detail(str(exc))
        except PayloadError as exc:
            return Status.BAD_PAYLOAD, _detail(str(exc))
        if isinstance(command, Hello):
            return Status.OK, self._hello(command).to_payload()
        if self._session is None:
            return Status.NO_SESSION, _detail("no session since power-on: send Hello")
        try:
            reply = self._dispatch(command, now)
        except Refusal as refusal:
            return refusal.status, _detail(refusal.detail)
        self.executions += 1
        try:
            body = reply.to_payload()
        except PayloadError as exc:  # a firmware bug, answered as one: raised, it ended the port's thread
            return Status.REFUSED, _detail(f"{type(reply).__name__} cannot be encoded: {exc}")
        if len(body) >= MAX_PAYLOAD:  # the status byte takes one
            return Status.REFUSED, _detail(
                f"{type(reply).__name__} of {len(body)} bytes does not fit a frame"
            )
        return Status.OK, body

    def _hello(self, hello: Hello) -> Identity:
        if hello.session_id != self._session:
            # Command sequence numbers restart with the session. The event sequence does not: it
            # runs for the whole boot, so an event the host saw but whose ACK was lost is known
            # as a duplicate when it is sent again in the next session.
            self._session = hello.session_id
            self._cache.clear()
        p = self.personality
        return Identity(
            device_class=int(p.device_class),
            vendor=p.vendor,
            model=p.model,
            serial_number=p.serial_number,
            firmware_version=p.firmware_version,
            protocol_version=PROTOCOL_VERSION,
            capabilities=p.capabilities,
            firmware_hash=p.firmware_hash,
            boot_id=self.boot_id,
        )

    def _dispatch(self, command: Command, now: float) -> Reply:
        if isinstance(command, GetStatus):
            return DeviceStatus(
                boot_id=self.boot_id,
                uptime_ms=int((now - self._booted_at) * 1000) & 0xFFFFFFFF,
                faults=fault_mask(frozenset(self.latched)),
                pending_events=min(len(self._events), 255),
            )
        if isinstance(command, ClearFault):
            return self._clear(command)
        if isinstance(command, Attest):
            return Attestation(attestation_digest(command.nonce, self.personality.running_image))
        if command.MOVES_CARDS and self.latched:
            names = ", ".join(code.name for code in self.latched)
            raise Refusal(Status.FAULT_LATCHED, f"latched fault(s) {names}: clear before moving cards")
        return self.personality.handle(command, self)

    def _clear(self, command: ClearFault) -> Empty:
        try:
            code = FaultCode(command.code)
        except ValueError:
            raise Refusal(Status.BAD_PAYLOAD, f"unknown fault code {command.code}") from None
        if not command.operator:
            raise Refusal(Status.REFUSED, "a clear must name the authorising operator")
        if code not in self.latched:
            raise Refusal(Status.REFUSED, f"{code.name} is not latched")
        if self.personality.condition_persists(code):
            raise Refusal(Status.REFUSED, f"{code.name} condition still present")
        del self.latched[code]
        self.emit(FaultCleared(int(code), command.operator))
        return Empty()

    def _send_event(self, pending: _PendingEvent, now: float) -> None:
        if pending.seq < 0:
            pending.seq = self._event_seq
            self._event_seq = (self._event_seq + 1) & 0xFF
        pending.deadline = now + self.event_timeout
        self._send(Kind.EVENT, pending.seq, pending.event.MSG_ID, pending.event.to_payload())

    def _on_ack(self, frame: Frame, now: float) -> None:
        if self._events and self._events[0].seq == frame.seq:
            self._events.popleft()
            self.tick(now)

    def _on_nak(self, now: float) -> None:
        if self._last_response:
            self._outbox += self._last_response
        if self._events and self._events[0].seq >= 0:
            if self.multidrop:
                self._send_event(self._events[0], now)  # the NAK addressed us: our turn to speak
            else:
                self._events[0].deadline = now
                self.tick(now)
