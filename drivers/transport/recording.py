"""Recording the byte exchanges with a real device, and replaying them in CI with no device at all.

A rig run (``pytest --hil RIG --record DIR``, docs/hil.md) wraps each device's transport in a
``RecordingTransport``: every chunk the host writes and every chunk it reads is appended to a
fixture file with its direction and its time since the recording began. ``Replay`` plays such a
file back as a transport: the host's writes must match the recorded ones byte for byte (a
difference is reported with its offset in the host's byte stream), and the recorded reads are
returned as the device sent them. So a real device's behaviour, captured once on the rig, keeps
testing the drivers in CI.

The fixture is JSON lines (docs/hil.md "Recorded fixtures"):

* first a header: ``{"format": "croupier-wire-recording", "version": 1, "device": ..., "url": ...}``;
* then one object per event, in order, each with ``t`` (seconds since the recording began):
  ``{"t": .., "dir": "tx" | "rx", "hex": "a5 5a 07 .."}`` for bytes written (tx) or read (rx), and
  ``{"t": .., "event": "open" | "close" | "lost", "reason": ..}`` for the link opening, the host
  closing it and the transport reporting it lost.

Face-down card values never reach a fixture: both directions go through the wire trace's
``Redactor`` (drivers/trace.py), and a masked byte is written ``**``, as in the trace. On replay a
masked write matches any byte and a masked read is returned as 0x00, so a frame with a redacted
payload fails its CRC: record such exchanges for the trace, not for replay. The Hello's session id
is random on every connection, so its payload and CRC are not compared either.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TextIO, TypeVar

from drivers.errors import LinkLost
from drivers.protocol.core import CATALOG, Hello
from drivers.protocol.message import Catalog
from drivers.trace import MASK, Redactor, masked_hex
from drivers.transport.base import DataCallback, LostCallback, Transport

FORMAT = "croupier-wire-recording"
VERSION = 1

#: Host commands whose payload differs on every run by design and is not compared on replay.
VOLATILE = (Hello,)

Argument = TypeVar("Argument")


class Recorder:
    """The fixture file of one device's exchanges, over any number of connections (reconnects)."""

    def __init__(
        self,
        path: Path,
        device: str,
        url: str,
        *,
        catalog: Catalog = CATALOG,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.path = Path(path)
        self._clock = clock
        self._start = clock()
        self._tx = Redactor(catalog)
        self._rx = Redactor(catalog)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._file: TextIO | None = self.path.open("w", encoding="utf-8")
        self._line({"format": FORMAT, "version": VERSION, "device": device, "url": url})

    def sent(self, data: bytes) -> None:
        self._bytes("tx", data, self._tx.mask(data))

    def received(self, data: bytes) -> None:
        self._bytes("rx", data, self._rx.mask(data))

    def event(self, name: str, reason: str = "") -> None:
        record: dict[str, object] = {"t": self._now(), "event": name}
        if reason:
            record["reason"] = reason
        self._line(record)

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None

    def _bytes(self, direction: str, data: bytes, secret: list[bool]) -> None:
        self._line({"t": self._now(), "dir": direction, "hex": masked_hex(data, secret)})

    def _now(self) -> float:
        return round(self._clock() - self._start, 6)

    def _line(self, record: dict[str, object]) -> None:
        if self._file is None:
            return  # the run is over; a late callback from a closing transport is not an exchange
        self._file.write(json.dumps(record) + "\n")
        self._file.flush()


class RecordingTransport(Transport):
    """``inner`` with every chunk in both directions, and the link's opening and end, recorded."""

    def __init__(self, inner: Transport, recorder: Recorder) -> None:
        self.inner = inner
        self.recorder = recorder
        self.url = inner.url
        self._opened = False

    async def open(self, on_data: DataCallback, on_lost: LostCallback) -> None:
        def data(chunk: bytes) -> None:
            self.recorder.received(chunk)
            on_data(chunk)

        def lost(exc: Exception) -> None:
            self.recorder.event("lost", str(exc))
            on_lost(exc)

        await self.inner.open(data, lost)
        self._opened = True
        self.recorder.event("open")

    def write(self, data: bytes) -> None:
        self.recorder.sent(data)
        self.inner.write(data)

    async def close(self) -> None:
        if self._opened:
            self._opened = False
            self.recorder.event("close")
        await self.inner.close()

    def present(self) -> bool:
        return self.inner.present()


class ReplayMismatch(LinkLost):
    """The host did not do what it did when the fixture was recorded."""


@dataclass
class _Event:
    line: int
    kind: str  # "tx", "rx", "open", "close" or "lost"
    data: bytes = b""
    wildcard: list[bool] = field(default_factory=list)  # tx: bytes not compared
    reason: str = ""


class Replay:
    """A recorded fixture, played back to the host by the transports ``transport()`` makes."""

    def __init__(self, path: Path, *, catalog: Catalog = CATALOG) -> None:
        self.path = Path(path)
        self.events: list[_Event] = []
        self.header: dict[str, object] = {}
        self.mismatch: ReplayMismatch | None = None
        self.tx_offset = 0  # host bytes matched so far
        self._pos = 0  # next event
        self._used = 0  # bytes of the current tx event already matched
        self._load(catalog)

    @property
    def url(self) -> str:
        return str(self.header.get("url", f"replay://{self.path.name}"))

    @property
    def finished(self) -> bool:
        """Every recorded write was made and every recorded read returned."""
        return all(event.kind not in ("tx", "rx") for event in self.events[self._pos :])

    def transport(self) -> ReplayTransport:
        return ReplayTransport(self)

    def check(self) -> None:
        """Raise the first mismatch, or say what the host never wrote."""
        if self.mismatch is not None:
            raise self.mismatch
        if not self.finished:
            event = self.events[self._pos]
            raise ReplayMismatch(
                f"{self.path}:{event.line}: the host stopped at tx offset {self.tx_offset}; the "
                f"recording goes on with {event.kind}"
            )

    def _load(self, catalog: Catalog) -> None:
        volatile = Redactor(catalog, VOLATILE)
        with self.path.open(encoding="utf-8") as f:
            for number, text in enumerate(f, 1):
                if not text.strip():
                    continue
                try:
                    record = json.loads(text)
                except json.JSONDecodeError as exc:
                    raise ValueError(f"{self.path}:{number}: not JSON: {exc}") from None
                if number == 1:
                    if record.get("format") != FORMAT or record.get("version") != VERSION:
                        raise ValueError(f"{self.path}:1: not a {FORMAT} version {VERSION} file")
                    self.header = record
                    continue
                if "dir" in record:
                    tokens = record["hex"].split()
                    data = bytes(0 if token == MASK else int(token, 16) for token in tokens)
                    masked = [token == MASK for token in tokens]
                    event = _Event(number, record["dir"], data)
                    if event.kind == "tx":
                        unstable = volatile.mask(data)
                        event.wildcard = [a or b for a, b in zip(masked, unstable, strict=True)]
                    self.events.append(event)
                else:
                    self.events.append(_Event(number, record["event"], reason=record.get("reason", "")))

    # The player, driven by the transport.

    def _fail(self, problem: str) -> ReplayMismatch:
        if self.mismatch is None:
            self.mismatch = ReplayMismatch(f"{self.path}: {problem}")
        return self.mismatch

    def _open(self) -> None:
        if self.mismatch is not None:
            raise self.mismatch
        event = self._next()
        if event is None or event.kind != "open":
            where = f"line {event.line} is {event.kind}" if event else "the recording is over"
            raise self._fail(f"the host opened the link at tx offset {self.tx_offset}, but {where}")
        self._pos += 1

    def _close(self) -> None:
        event = self._next()
        if event is not None and event.kind == "close":
            self._pos += 1

    def _next(self) -> _Event | None:
        return self.events[self._pos] if self._pos < len(self.events) else None

    def _write(self, data: bytes) -> ReplayMismatch | None:
        """Match ``data`` against the recorded writes; the first byte that differs is the mismatch."""
        for byte in data:
            event = self._next()
            if event is None or event.kind != "tx":
                where = f"line {event.line} is {event.kind}" if event else "the recording is over"
                return self._fail(f"the host wrote more at tx offset {self.tx_offset}: {where}")
            expected = event.data[self._used]
            if not event.wildcard[self._used] and byte != expected:
                return self._fail(
                    f"host write differs from the recording at tx offset {self.tx_offset} (line "
                    f"{event.line}, byte {self._used}): expected 0x{expected:02x}, got 0x{byte:02x}"
                )
            self._used += 1
            self.tx_offset += 1
            if self._used == len(event.data):
                self._pos += 1
                self._used = 0
        return None

    def _reads(self) -> list[_Event]:
        """The reads and losses recorded before the host's next write, open or close: due now."""
        due = []
        while (event := self._next()) is not None and event.kind in ("rx", "lost") and self._used == 0:
            due.append(event)
            self._pos += 1
        return due


class ReplayTransport(Transport):
    """One connection's transport over a ``Replay``: reads come as recorded, writes are checked."""

    def __init__(self, replay: Replay) -> None:
        self.replay = replay
        self.url = replay.url
        self._on_data: DataCallback | None = None
        self._on_lost: LostCallback | None = None
        self._loop: asyncio.AbstractEventLoop | None = None

    async def open(self, on_data: DataCallback, on_lost: LostCallback) -> None:
        self.replay._open()
        self._loop = asyncio.get_running_loop()
        self._on_data, self._on_lost = on_data, on_lost
        self._deliver()

    def write(self, data: bytes) -> None:
        if self._on_lost is None:
            return
        mismatch = self.replay._write(data)
        if mismatch is not None:
            self._soon(self._on_lost, mismatch)
        else:
            self._deliver()

    async def close(self) -> None:
        if self._on_data is not None:
            self._on_data = self._on_lost = None
            self.replay._close()

    def present(self) -> bool:
        return self.replay.mismatch is None

    def _deliver(self) -> None:
        for event in self.replay._reads():
            if event.kind == "rx" and self._on_data is not None:
                self._soon(self._on_data, event.data)
            elif event.kind == "lost" and self._on_lost is not None:
                self._soon(self._on_lost, LinkLost(event.reason or "link lost (recorded)"))

    def _soon(self, callback: Callable[[Argument], None], argument: Argument) -> None:
        """Callbacks run on the loop, never inside the host's own write, as a real transport's do."""
        assert self._loop is not None

        def call() -> None:
            if self._on_data is not None:  # not after the host closed this transport
                callback(argument)

        self._loop.call_soon(call)
