"""A simulated device behind a TCP socket, as a serial device server in raw TCP mode serves one.

On a table PC the shoe or shuffler may hang off a serial device server (an RS-232-to-Ethernet box)
rather than a local port; the driver then opens ``socket://host:port`` and everything above the
transport runs unchanged. Like such a box, the port serves one session at a time: a second client
is accepted and closed at once, so it sees its connection end instead of half a conversation.

Unplugging stops listening and drops the session (the box lost power: a connect is refused);
replugging listens again on the same port, so the driver's configured URL stays valid.
"""

from __future__ import annotations

import contextlib
import os
import select
import socket
import threading

from firmware_sim.device import SimulatedDevice

_RECV_CHUNK = 4096
# A client that takes no bytes for this long is dropped, as a device server drops a dead session;
# until then the device's thread waits in the send, like a UART held off by flow control.
_SEND_TIMEOUT = 2.0


class TcpPort:
    """Serve ``device`` to one TCP client at a time on ``host``:``port`` (0: an ephemeral port)."""

    scheme = "socket"

    def __init__(self, device: SimulatedDevice, *, host: str = "127.0.0.1", port: int = 0) -> None:
        self.device = device
        self.host = host
        self.port = port  # the bound port once started; kept across unplug so replug reuses it
        self._client: socket.socket | None = None
        self._send_lock = threading.Lock()  # one writer on the client socket at a time
        self._plug_lock = threading.Lock()
        self._wake_r, self._wake_w = os.pipe()
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        """What a driver opens: ``socket://127.0.0.1:PORT``."""
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"{self.scheme}://{host}:{self.port}"

    def start(self) -> TcpPort:
        self.device.start()
        self.replug()
        return self

    def replug(self) -> None:
        """Listen again (on the same port after the first start); a client may connect."""
        with self._plug_lock:
            if self._thread is not None:
                return
            family = socket.AF_INET6 if ":" in self.host else socket.AF_INET
            # create_server sets SO_REUSEADDR: the last session's socket may linger in TIME_WAIT.
            listener = socket.create_server((self.host, self.port), family=family)
            self.port = listener.getsockname()[1]
            self._thread = threading.Thread(
                target=self._serve, args=(listener,), name=f"tcp-{self.device.name}", daemon=True
            )
            self._thread.start()

    def unplug(self) -> None:
        """Drop the session and stop listening: the client's reads end, new connects are refused."""
        with self._plug_lock:
            thread, self._thread = self._thread, None
            if thread is None:
                return
            os.write(self._wake_w, b"x")
            thread.join(timeout=5)
            os.read(self._wake_r, 64)

    def stop(self) -> None:
        self.unplug()
        self.device.stop()
        os.close(self._wake_r)
        os.close(self._wake_w)

    # -- hooks for protocols layered on the byte stream (RFC 2217) ---------------------------------
    def _session_started(self) -> None:
        """A client was accepted and can be written to; the device is not attached yet."""

    def _from_client(self, data: bytes) -> bytes:
        """What of the client's bytes reaches the device's UART: all of it on a raw socket."""
        return data

    def _to_client(self, data: bytes) -> bytes:
        """How the device's bytes go on the socket: as they are on a raw socket."""
        return data

    # -- the port thread ---------------------------------------------------------------------------
    def _serve(self, listener: socket.socket) -> None:
        client: socket.socket | None = None
        try:
            while True:
                watched: list[socket.socket | int] = [self._wake_r, listener]
                if client is not None:
                    watched.append(client)
                ready, _, _ = select.select(watched, [], [])
                if self._wake_r in ready:
                    return
                if listener in ready:
                    client = self._accept(listener, client)
                if client is not None and client in ready and not self._receive(client):
                    self._end_session(client)
                    client = None
        finally:
            if client is not None:
                self._end_session(client)
            listener.close()

    def _accept(self, listener: socket.socket, current: socket.socket | None) -> socket.socket | None:
        try:
            conn, _ = listener.accept()
        except OSError:
            return current  # the client gave up between select and accept
        if current is not None:
            conn.close()  # one session per serial port: the newcomer sees its connection end
            return current
        conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)  # frames are small and urgent
        conn.settimeout(_SEND_TIMEOUT)
        with self._send_lock:
            self._client = conn
        self._session_started()
        self.device.attach(self._device_output)
        return conn

    def _receive(self, client: socket.socket) -> bool:
        """Pass the client's bytes on; False when the session is over."""
        try:
            data = client.recv(_RECV_CHUNK)
        except OSError:
            return False
        if not data:
            return False
        payload = self._from_client(data)
        if payload:
            self.device.deliver(payload)
        return True

    def _end_session(self, client: socket.socket) -> None:
        self.device.attach(None)
        with self._send_lock:
            self._client = None
            client.close()

    # -- writing to the client, from the device's thread and the port's ----------------------------
    def _device_output(self, data: bytes) -> None:
        """The device's sink while a client is connected."""
        self._send(self._to_client(data))

    def _send(self, data: bytes) -> None:
        with self._send_lock:
            client = self._client
            if client is None:
                return  # the session ended: the bytes are lost, as on a pulled cable
            try:
                client.sendall(data)
            except OSError:
                # A dead or stuck client: end the session; the port thread sees the shutdown.
                with contextlib.suppress(OSError):
                    client.shutdown(socket.SHUT_RDWR)
