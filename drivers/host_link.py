"""The host end of one device link, sans-I/O: bytes and time in; bytes to send and outcomes out.

Stop-and-wait: one command in flight per device, retransmitted with the same sequence number until
its response arrives or the retry budget is spent. The device answers a retransmission it already
executed from its cache (docs/protocol.md §5), so a command that moves a card executes once.
Device events are acknowledged and delivered once even when the device sends them again.
"""

from __future__ import annotations

import collections
import itertools
from dataclasses import dataclass, field

from drivers.protocol.core import CATALOG, Identity
from drivers.protocol.fields import STR, PayloadError
from drivers.protocol.frame import (
    HOST_ADDRESS,
    RESERVED_ADDRESS,
    Frame,
    FrameDecoder,
    Kind,
    NakReason,
    Noise,
    NoiseReason,
    encode_frame,
)
from drivers.protocol.message import Catalog, Command, Event, Reply, Status, UnknownMessage

MAX_RETRIES = 20  # beyond this a dead device would hold its link for tens of seconds
_OK = int(Status.OK)


@dataclass(frozen=True)
class LinkTimings:
    """How long to wait and how often to retry; the defaults suit 115200 baud and USB.

    At 9600 baud a maximal frame alone takes 0.27 s on the wire: raise response_timeout there.
    """

    response_timeout: float = 0.3
    max_retries: int = 3
    partial_frame_timeout: float = 0.2

    def __post_init__(self) -> None:
        if self.response_timeout <= 0 or self.partial_frame_timeout <= 0:
            raise ValueError("link timeouts must be positive")
        if not 0 <= self.max_retries <= MAX_RETRIES:
            raise ValueError(f"max_retries must be between 0 and {MAX_RETRIES}")


@dataclass(eq=False)
class Request:
    """One command's life on the link."""

    command: Command
    number: int
    seq: int = -1
    attempts: int = 0
    deadline: float = 0.0


@dataclass(frozen=True)
class ReplyReceived:
    request: Request
    reply: Reply


@dataclass(frozen=True)
class CommandRejected:
    """The device answered with a non-OK status; ``detail`` is its explanation."""

    request: Request
    status: Status
    detail: str


@dataclass(frozen=True)
class CommandTimedOut:
    """No response after every retry. For a card-moving command the outcome is unknown."""

    request: Request


@dataclass(frozen=True)
class EventReceived:
    event: Event


@dataclass(frozen=True)
class LineNoise:
    """Bytes discarded by the decoder: counted for the line-quality statistics."""

    reason: NoiseReason
    discarded: int


@dataclass(frozen=True)
class ProtocolViolation:
    """A well-framed message that breaks the protocol (unknown id, bad payload)."""

    detail: str


LinkOutcome = (
    ReplyReceived | CommandRejected | CommandTimedOut | EventReceived | LineNoise | ProtocolViolation
)


@dataclass
class LinkCounters:
    """Line-quality figures, exposed for the status page and the wire trace."""

    frames_in: int = 0
    frames_out: int = 0
    retransmissions: int = 0
    naks_in: int = 0
    naks_out: int = 0
    noise_bytes: int = 0
    duplicate_events: int = 0
    events_held: int = 0  # event frames left unacknowledged while the host's event queue was full
    stale_responses: int = 0

    @property
    def crc_errors(self) -> int:
        """Frames that failed their CRC at either end of the link. Each end answers such a frame with
        a NAK, and a bad CRC is a NAK's one reason (docs/protocol.md §5.4), so the NAKs the host sent
        (frames it received corrupted) and received (frames the device did) count them all."""
        return self.naks_out + self.naks_in


@dataclass
class HostLink:
    """Host side of the link to the device at ``address``."""

    address: int
    catalog: Catalog = CATALOG
    timings: LinkTimings = field(default_factory=LinkTimings)

    def __post_init__(self) -> None:
        if not HOST_ADDRESS < self.address < RESERVED_ADDRESS:
            low, high = HOST_ADDRESS + 1, RESERVED_ADDRESS - 1
            raise ValueError(f"device address must be {low:#04x}..{high:#04x}, got {self.address:#x}")
        self._decoder = FrameDecoder()
        self._queue: collections.deque[Request] = collections.deque()
        self._in_flight: Request | None = None
        self._seq = itertools.cycle(range(256))
        self._numbers = itertools.count(1)
        self._last_event_seq: int | None = None
        self._boot_id: int | None = None
        self._identified = False
        self._outbox = bytearray()
        self._outcomes: list[LinkOutcome] = []
        self._last_rx: float | None = None
        self.counters = LinkCounters()
        #: Set by the connection while its event queue is full: a new event is left unacknowledged,
        #: so the device keeps it and sends it again (§5.7) instead of the host holding it in memory.
        self.hold_events = False

    # -- inputs ---------------------------------------------------------------------------
    def submit(self, command: Command, now: float) -> Request:
        """Queue a command; it goes out when the one in flight is done."""
        request = Request(command=command, number=next(self._numbers))
        self._queue.append(request)
        self._pump(now)
        return request

    def receive(self, data: bytes, now: float) -> None:
        """Bytes from the transport, in any chunking."""
        if data:
            self._last_rx = now
        for item in self._decoder.feed(data):
            self._handle(item, now)

    def tick(self, now: float) -> None:
        """Run timers: retransmit on timeout, give up after the retries, resync stale partials."""
        if (
            self._decoder.buffered
            and self._last_rx is not None
            and now - self._last_rx >= self.timings.partial_frame_timeout
        ):
            for item in self._decoder.resync():
                self._handle(item, now)
        request = self._in_flight
        if request is not None and now >= request.deadline:
            if request.attempts > self.timings.max_retries:
                self._in_flight = None
                self._outcomes.append(CommandTimedOut(request))
                self._pump(now)
            else:
                self._transmit(request, now)

    def abort_all(self) -> list[Request]:
        """Drop every queued and in-flight command (link lost); the caller fails them.

        Event de-duplication is kept: the device's event sequence runs for its whole boot, so an
        event delivered before the link dropped is recognised when it comes again.
        """
        aborted = ([self._in_flight] if self._in_flight else []) + list(self._queue)
        self._in_flight = None
        self._queue.clear()
        self._decoder.clear()
        # Until the next Identity says which boot the device is in, an event cannot be told from
        # a duplicate: leave it unacknowledged, and the device sends it again after the handshake.
        self._identified = False
        self._outbox.clear()
        self._last_rx = None
        return aborted

    # -- outputs --------------------------------------------------------------------------
    def data_to_send(self) -> bytes:
        """Bytes the transport must write now."""
        out = bytes(self._outbox)
        self._outbox.clear()
        return out

    def outcomes(self) -> list[LinkOutcome]:
        """Everything that happened since the last call."""
        out, self._outcomes = self._outcomes, []
        return out

    def next_deadline(self) -> float | None:
        """When ``tick`` next has work to do, or None."""
        request = self._in_flight
        deadline = None if request is None else request.deadline
        if self._decoder.buffered and self._last_rx is not None:
            partial = self._last_rx + self.timings.partial_frame_timeout
            deadline = partial if deadline is None else min(deadline, partial)
        return deadline

    @property
    def busy(self) -> bool:
        return self._in_flight is not None or bool(self._queue)

    # -- internals ------------------------------------------------------------------------
    def _pump(self, now: float) -> None:
        if self._in_flight is None and self._queue:
            request = self._queue.popleft()
            request.seq = next(self._seq)
            self._in_flight = request
            self._transmit(request, now)

    def _transmit(self, request: Request, now: float) -> None:
        if request.attempts:
            self.counters.retransmissions += 1
        request.attempts += 1
        request.deadline = now + self.timings.response_timeout
        self._send(Kind.COMMAND, request.seq, request.command.MSG_ID, request.command.to_payload())

    def _send(self, kind: Kind, seq: int, msg: int, payload: bytes = b"") -> None:
        self.counters.frames_out += 1
        self._outbox += encode_frame(self.address, kind, False, seq, msg, payload)

    def _handle(self, item: Frame | Noise, now: float) -> None:
        if isinstance(item, Noise):
            self.counters.noise_bytes += item.discarded
            self._outcomes.append(LineNoise(item.reason, item.discarded))
            if item.reason is NoiseReason.BAD_CRC:
                self.counters.naks_out += 1
                self._send(Kind.NAK, 0, 0, bytes((NakReason.BAD_CRC,)))
            return
        if not item.from_device or item.address != self.address:
            return  # our own echo on a half-duplex bus, or another device's traffic
        self.counters.frames_in += 1
        if item.kind is Kind.RESPONSE:
            self._on_response(item, now)
        elif item.kind is Kind.EVENT:
            self._on_event(item)
        elif item.kind is Kind.NAK:
            self.counters.naks_in += 1
            if self._in_flight is not None:
                self._in_flight.deadline = now  # retransmit on the next tick, within the budget
                self.tick(now)
        else:
            self._outcomes.append(ProtocolViolation(f"device sent a {item.kind.name} frame"))

    def _on_response(self, frame: Frame, now: float) -> None:
        request = self._in_flight
        if request is None or frame.seq != request.seq or frame.msg != request.command.MSG_ID:
            self.counters.stale_responses += 1
            return
        self._in_flight = None
        outcome = self._decode_response(request, frame.payload)
        if isinstance(outcome, ReplyReceived) and isinstance(outcome.reply, Identity):
            self._on_identity(outcome.reply)
        self._outcomes.append(outcome)
        self._pump(now)

    def _on_identity(self, identity: Identity) -> None:
        """A new boot restarts the device's event sequence: forget the last one seen. Done here,
        in frame order, because the device may send events right behind its Hello response."""
        self._identified = True
        if identity.boot_id != self._boot_id:
            self._boot_id = identity.boot_id
            self._last_event_seq = None

    def _decode_response(self, request: Request, payload: bytes) -> LinkOutcome:
        name = type(request.command).__name__
        if not payload:
            return CommandRejected(request, Status.BAD_PAYLOAD, f"empty response to {name}")
        if payload[0] == _OK:  # every heartbeat and nearly every command: no enum made for it
            try:
                return ReplyReceived(request, request.command.REPLY.from_payload(payload[1:]))
            except PayloadError as exc:
                return CommandRejected(request, Status.BAD_PAYLOAD, f"bad response to {name}: {exc}")
        try:
            status = Status(payload[0])
        except ValueError:
            return CommandRejected(
                request, Status.BAD_PAYLOAD, f"unknown status {payload[0]} in response to {name}"
            )
        try:
            detail, _ = STR.decode(payload, 1) if len(payload) > 1 else ("", 1)
        except PayloadError as exc:
            return CommandRejected(request, Status.BAD_PAYLOAD, f"bad response to {name}: {exc}")
        return CommandRejected(request, status, str(detail))

    def _on_event(self, frame: Frame) -> None:
        if not self._identified:
            return
        duplicate = frame.seq == self._last_event_seq
        if self.hold_events and not duplicate:
            self.counters.events_held += 1
            return
        self._send(Kind.ACK, frame.seq, frame.msg)
        if duplicate:
            self.counters.duplicate_events += 1
            return
        self._last_event_seq = frame.seq
        try:
            event = self.catalog.event(frame.msg).from_payload(frame.payload)
        except (UnknownMessage, PayloadError) as exc:
            self._outcomes.append(ProtocolViolation(f"event 0x{frame.msg:02X}: {exc}"))
            return
        self._outcomes.append(EventReceived(event))
