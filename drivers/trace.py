"""The wire trace: every byte to and from one device, in hex, with face-down card values redacted.

It is the second of the two logs (decision 0018, "two logs, never mixed"): the audit trail says
what happened at the table, the trace says what crossed the wire, for debugging a device or a
link. It is switchable at run time (``enabled``), one file per device, capped in size with one
rotation (``.1``), and it never holds a card face that is not yet turned up.

Redaction works on the byte stream, not on decoded frames, because a chunk line is written before
its frame is complete: a frame's header (sync to MSG) always precedes its payload, so every header
that names a message in ``REDACTED`` masks the payload and CRC bytes behind it, across chunks. A
false sync in garbage can only mask too much, never too little: every sync position is checked,
also inside a frame already being masked. The CRC is masked too, as with the header it would let
the few possible payloads be brute-forced.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Collection
from pathlib import Path
from typing import TextIO, TypedDict, Unpack

from drivers.protocol.classes.shuffler import ShuffledOrderPage
from drivers.protocol.core import CATALOG
from drivers.protocol.frame import (
    BODY_HEADER_SIZE,
    CRC_SIZE,
    HEADER_SIZE,
    SYNC,
    Frame,
    FrameDecoder,
    Kind,
    Noise,
)
from drivers.protocol.message import Catalog, Message, UnknownMessage

#: Messages that carry card faces not yet turned up, and why: the one place to add a new one.
REDACTED: dict[type[Message], str] = {
    ShuffledOrderPage: "sealed shuffled order (face-down until dealt)",
}

FRAME_HEADER = HEADER_SIZE + BODY_HEADER_SIZE  # sync, LEN, ~LEN, ADDR, CTRL, SEQ, MSG
MASK = "**"
DEFAULT_MAX_BYTES = 4 * 1024 * 1024


def message_class(catalog: Catalog, kind: int, msg: int) -> type[Message] | None:
    """The message a frame of ``kind`` with id ``msg`` carries; None for ACK, NAK or an unknown id.
    A response carries the reply of the command whose id it repeats."""
    try:
        if kind == Kind.COMMAND:
            return catalog.command(msg)
        if kind == Kind.RESPONSE:
            return catalog.command(msg).REPLY
        if kind == Kind.EVENT:
            return catalog.event(msg)
    except UnknownMessage:
        return None
    return None


def masked_hex(data: bytes, secret: list[bool]) -> str:
    """``data`` in hex, a byte ``secret`` marks written as ``MASK``: a trace line's and a fixture's bytes."""
    return " ".join(MASK if hidden else f"{byte:02x}" for byte, hidden in zip(data, secret, strict=True))


class Redactor:
    """Marks, byte by byte over any chunking, which bytes of one direction's stream are secret."""

    def __init__(self, catalog: Catalog, messages: Collection[type[Message]] = REDACTED.keys()) -> None:
        self._catalog = catalog
        self._messages = messages  # whose payload and CRC are masked: face-down cards by default
        self._tail = b""  # the last bytes, which may hold the start of a header
        self._masking = 0  # secret bytes still to come, announced by an earlier header

    def mask(self, chunk: bytes) -> list[bool]:
        """For each byte of ``chunk``: True when it must not be written."""
        data = self._tail + chunk
        offset = len(self._tail)
        secret = [False] * len(chunk)
        # Bytes already announced as secret by a header in an earlier chunk.
        for i in range(min(self._masking, len(chunk))):
            secret[i] = True
        self._masking = max(0, self._masking - len(chunk))
        start = data.find(SYNC)
        while 0 <= start <= len(data) - FRAME_HEADER:
            span = self._secret_span(data[start : start + FRAME_HEADER])
            if span:
                first = start + FRAME_HEADER - offset  # headers end inside this chunk
                for i in range(first, min(first + span, len(chunk))):
                    secret[i] = True
                self._masking = max(self._masking, first + span - len(chunk))
            start = data.find(SYNC, start + 1)
        self._tail = data[-(FRAME_HEADER - 1) :]
        return secret

    def _secret_span(self, header: bytes) -> int:
        """Payload and CRC bytes behind ``header`` when it announces a redacted message, else 0."""
        length = header[2]
        if header[3] != length ^ 0xFF or length < BODY_HEADER_SIZE:
            return 0
        cls = message_class(self._catalog, header[5] & 0x0F, header[7])
        if cls is None or cls not in self._messages:
            return 0
        return length - BODY_HEADER_SIZE + CRC_SIZE


class _Direction:
    """One direction of the link: its redactor and a decoder for the frame summaries."""

    def __init__(self, label: str, catalog: Catalog) -> None:
        self.label = label
        self.redactor = Redactor(catalog)
        self.decoder = FrameDecoder()


class TraceOptions(TypedDict, total=False):
    """The keyword settings of a WireTrace, as ``WireTrace.in_directory`` passes them on."""

    max_bytes: int
    enabled: bool
    catalog: Catalog
    clock: Callable[[], float]


class WireTrace:
    """The hex trace of one device, given to its DeviceConnection (``trace=``).

    Each chunk written or received is one line: monotonic time, TX or RX, the device, the bytes in
    hex (``**`` for a redacted byte). Each complete frame adds a summary line: kind, seq, message
    and, for a redacted one, why. Both directions are tracked while disabled too, so a frame whose
    header passed while the trace was off is still masked when it is switched on mid-frame.
    """

    def __init__(
        self,
        path: Path,
        device: str,
        *,
        max_bytes: int = DEFAULT_MAX_BYTES,
        enabled: bool = True,
        catalog: Catalog = CATALOG,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if max_bytes <= 0:
            raise ValueError(f"a wire trace needs a positive size cap, got max_bytes={max_bytes}")
        self.path = Path(path)
        self.device = device
        self.max_bytes = max_bytes
        self.enabled = enabled
        self._catalog = catalog
        self._clock = clock
        self._tx = _Direction("TX", catalog)
        self._rx = _Direction("RX", catalog)
        self._file: TextIO | None = None
        self._size = 0

    @classmethod
    def in_directory(cls, directory: Path, device: str, **kwargs: Unpack[TraceOptions]) -> WireTrace:
        """The trace of ``device`` as ``<directory>/<device>.trace``: one file per device."""
        return cls(Path(directory) / f"{device}.trace", device, **kwargs)

    def sent(self, data: bytes) -> None:
        """Bytes written to the transport."""
        self._record(self._tx, data)

    def received(self, data: bytes) -> None:
        """Bytes read from the transport."""
        self._record(self._rx, data)

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None

    def __enter__(self) -> WireTrace:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _record(self, direction: _Direction, data: bytes) -> None:
        secret = direction.redactor.mask(data)
        items = direction.decoder.feed(data)
        if not self.enabled:
            return
        stamp = f"{self._clock():.6f} {direction.label} {self.device}"
        lines = [f"{stamp} {masked_hex(data, secret)}"]
        lines += [f"{stamp} = {self._summary(item)}" for item in items]
        self._write("".join(line + "\n" for line in lines))

    def _summary(self, item: Frame | Noise) -> str:
        if isinstance(item, Noise):
            return f"noise {item.reason.value} {item.discarded} bytes"
        text = f"{item.kind.name} seq={item.seq}"
        cls = message_class(self._catalog, item.kind, item.msg)
        if item.kind is Kind.RESPONSE and cls is not None:
            text += f" {self._catalog.command(item.msg).__name__}->{cls.__name__}"
        elif cls is not None:
            text += f" {cls.__name__}"
        elif item.kind in (Kind.COMMAND, Kind.RESPONSE, Kind.EVENT):
            text += f" unknown msg 0x{item.msg:02x}"
        if cls in REDACTED:
            text += f" [redacted: {REDACTED[cls]}]"
        return text

    def _write(self, text: str) -> None:
        """Append, moving the file to ``<path>.1`` first when the cap would be passed (one rotation)."""
        size = len(text.encode())
        if self._file is None:
            self._open()
        if self._size and self._size + size > self.max_bytes:
            self.close()
            self.path.replace(self.path.with_name(self.path.name + ".1"))
            self._open()
        assert self._file is not None
        self._file.write(text)
        self._file.flush()
        self._size += size

    def _open(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._file = self.path.open("a", encoding="utf-8")
        self._size = self.path.stat().st_size
