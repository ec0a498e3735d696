"""The full driver stack against a simulated device served as a serial device server serves one:
raw TCP (``socket://``) and RFC 2217 (``rfc2217://``), where the client's line settings reach the
device's side of the wire."""

from __future__ import annotations

import asyncio
import dataclasses
import functools
import select
import signal
import socket
import subprocess
import sys
from pathlib import Path

import pytest
import serial

from drivers.connection import ConnectionState, DeviceConnection
from drivers.errors import NotConnected, TransportError
from drivers.host_link import LinkTimings
from drivers.protocol.core import DeviceClass, Echo, EchoReply, IncrementTestCounter, ReadTestCounter
from drivers.protocol.frame import Frame, Kind
from drivers.protocol.message import Status
from drivers.transport import serial as serial_transport
from drivers.transport.serial import SerialTransport
from firmware_sim.device import SimulatedDevice
from firmware_sim.personality import DiagnosticPersonality
from firmware_sim.ports.rfc2217 import Rfc2217Port
from firmware_sim.ports.tcp import TcpPort
from tests.links import FAST, connected, run, wait_for_state

REPO_ROOT = Path(__file__).resolve().parents[2]
# 200 byte values up to 0xFF, Telnet's IAC: RFC 2217 must escape it both ways and hand it on intact.
ALL_BYTES = bytes(range(56, 256))


def device() -> SimulatedDevice:
    return SimulatedDevice(DiagnosticPersonality(), seed=5)


async def wait_idle(conn) -> None:
    """Until no command is in flight: the device's last answer has then left it and been read."""
    while conn.link.busy:
        await asyncio.sleep(0.005)


# -- raw TCP -------------------------------------------------------------------------------------
def test_a_tcp_connection_whose_option_cannot_be_set_is_closed_and_named(monkeypatch):
    """Setting TCP_NODELAY can fail (a peer that reset the connection at once): the port is closed,
    not leaked, and the failure is a TransportError naming the URL, as any other open failure."""
    closed: list[bool] = []
    real_open = serial.serial_for_url

    def opened(url: str, **kwargs):
        port = real_open(url, **kwargs)
        close = port.close
        port.close = lambda: (closed.append(True), close())[1]
        return port

    def refuse(port) -> None:
        raise OSError(22, "Invalid argument")

    monkeypatch.setattr(serial_transport.serial, "serial_for_url", opened)
    monkeypatch.setattr(serial_transport, "_send_at_once", refuse)
    port = TcpPort(device()).start()
    try:
        with pytest.raises(TransportError, match=rf"{port.url}: cannot set the connection up"):
            SerialTransport(port.url)._open_port()
        assert closed == [True]
    finally:
        port.stop()


def test_tcp_and_rfc2217_send_each_packet_at_once():
    """Nagle's algorithm is off on the host's connection to a serial device server, raw TCP and RFC
    2217 alike: with it on, a command written just after the acknowledgement of a device event (two
    small writes, the first not answered) waited some 40 ms for the server's delayed
    acknowledgement."""
    opened: list[SerialTransport] = []

    def transport(url: str) -> SerialTransport:
        opened.append(SerialTransport(url))
        return opened[-1]

    async def scenario(port) -> int:
        async with connected(port, transport, expected_class=DeviceClass.DIAGNOSTIC):
            connection = getattr(opened[-1]._port, "_socket", None)
            assert isinstance(connection, socket.socket), f"{port.url}: no TCP connection found"
            return connection.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY)

    for kind in (TcpPort, Rfc2217Port):  # each stopped by ``connected``
        port = kind(device()).start()
        assert run(scenario(port)), f"{port.url}: Nagle's algorithm left on"


def test_tcp_reaches_ready_and_round_trips():
    async def scenario():
        port = TcpPort(device()).start()
        assert port.url == f"socket://127.0.0.1:{port.port}"
        async with connected(port, SerialTransport, expected_class=DeviceClass.DIAGNOSTIC) as rig:
            assert (await rig.conn.request(Echo(ALL_BYTES))).data == ALL_BYTES
            assert (await rig.conn.request(IncrementTestCounter(3))).value == 3
            assert (await rig.conn.request(IncrementTestCounter(4))).value == 7
            assert rig.device.engine.personality.counter == 7

    run(scenario())


def test_tcp_unplug_backs_off_and_replug_recovers():
    async def scenario():
        async with connected(TcpPort(device()).start(), SerialTransport) as rig:
            rig.port.unplug()
            await wait_for_state(rig.conn, ConnectionState.BACKOFF)
            with pytest.raises(NotConnected):
                await rig.conn.request(Echo(b"while unplugged"))
            with pytest.raises(ConnectionRefusedError):
                socket.create_connection(("127.0.0.1", rig.port.port), timeout=1).close()
            rig.port.replug()
            await wait_for_state(rig.conn, ConnectionState.READY)
            assert (await rig.conn.request(Echo(b"back"))).data == b"back"
            assert rig.port.url.endswith(f":{rig.port.port}")  # the same URL serves again

    run(scenario())


def test_tcp_refuses_a_second_client_while_one_is_connected():
    async def scenario():
        async with connected(TcpPort(device()).start(), SerialTransport) as rig:
            intruder = socket.create_connection(("127.0.0.1", rig.port.port), timeout=2)
            try:
                assert intruder.recv(1) == b""  # accepted, then closed at once
            finally:
                intruder.close()
            assert (await rig.conn.request(Echo(b"still mine"))).data == b"still mine"
            assert rig.conn.state is ConnectionState.READY

    run(scenario())


# -- RFC 2217 --------------------------------------------------------------------------------------
@pytest.mark.parametrize("query", ["", "?ign_set_control"], ids=["acknowledged", "ign_set_control"])
def test_rfc2217_reaches_ready_with_or_without_ign_set_control(query):
    """PortManager answers every SET_CONTROL with the value set, so the client's check of the
    answer passes and ``ign_set_control`` (for servers that answer wrongly) is not needed; with it
    the client sleeps 0.1 s per control change instead of checking."""

    async def scenario():
        port = Rfc2217Port(device()).start()
        assert port.url == f"rfc2217://127.0.0.1:{port.port}"
        async with connected(port, lambda url: SerialTransport(url + query)) as rig:
            assert (await rig.conn.request(Echo(ALL_BYTES))).data == ALL_BYTES
            assert rig.port.line_settings.dtr and rig.port.line_settings.rts

    run(scenario())


def test_rfc2217_client_line_settings_reach_the_device_side():
    """SerialTransport sets only the baud rate, so parity and stop bits go through pyserial's own
    RFC 2217 client; so do the modem-line queries."""
    port = Rfc2217Port(device()).start()
    try:
        client = serial.serial_for_url(
            port.url + "?poll_modem",
            baudrate=19200,
            bytesize=serial.SEVENBITS,
            parity=serial.PARITY_EVEN,
            stopbits=serial.STOPBITS_TWO,
            timeout=1,
        )
        try:
            settings = port.line_settings
            assert (settings.baudrate, settings.bytesize, settings.parity, settings.stopbits) == (
                19200,
                7,
                "E",
                2,
            )
            assert port.device.faults.pace_baud == 19200
            assert (client.cts, client.dsr, client.cd, client.ri) == (True, True, True, False)
            client.dtr = False
            client.parity = serial.PARITY_ODD
            assert not port.line_settings.dtr and port.line_settings.parity == "O"
        finally:
            client.close()
    finally:
        port.stop()


def test_rfc2217_pacing_follows_the_client_baud_rate():
    """A 200-byte echo's reply must take at least its bits on the wire at the client's rate
    (10 bits a byte at 8N1), with a margin for clock granularity; no upper bound is asserted."""
    data = bytes(200)
    reply_frame = Frame(
        1, Kind.RESPONSE, True, 0, Echo.MSG_ID, bytes((Status.OK,)) + EchoReply(data).to_payload()
    )
    # At 9600 baud the reply alone takes ~0.22 s: allow it, as LinkTimings advises for slow lines.
    slow_line = dataclasses.replace(FAST, timings=LinkTimings(response_timeout=1.0))

    async def echo_time(baudrate: int) -> float:
        port = Rfc2217Port(device()).start()
        transport = functools.partial(SerialTransport, baudrate=baudrate)
        async with connected(port, transport, settings=slow_line) as rig:
            assert rig.port.line_settings.baudrate == baudrate
            assert rig.device.faults.pace_baud == baudrate
            loop = asyncio.get_running_loop()
            start = loop.time()
            assert (await rig.conn.request(Echo(data))).data == data
            return loop.time() - start

    for baudrate in (115200, 9600):
        elapsed = run(echo_time(baudrate))
        on_the_wire = len(reply_frame.encode()) * 10 / baudrate
        assert elapsed >= 0.8 * on_the_wire, f"{baudrate} baud: {elapsed:.3f} s < {on_the_wire:.3f} s"


def test_rfc2217_retransmitted_increment_executes_once():
    """The device's answer to the increment is lost, so the host sends it again; the device answers
    from its cache. The drop is armed once the link is idle: armed from the start it would take
    the handshake's answer, and armed mid-heartbeat the heartbeat's."""

    async def scenario():
        async with connected(Rfc2217Port(device()).start(), SerialTransport) as rig:
            await wait_idle(rig.conn)
            rig.device.call(lambda _engine: setattr(rig.device.faults.outbound, "drop_next", 1))
            retransmissions = rig.conn.link.counters.retransmissions
            assert (await rig.conn.request(IncrementTestCounter(5))).value == 5
            assert rig.device.faults.outbound.drop_next == 0
            assert rig.conn.link.counters.retransmissions > retransmissions
            assert (await rig.conn.request(ReadTestCounter())).value == 5
            assert rig.device.engine.personality.counter == 5

    run(scenario())


# -- the CLI ---------------------------------------------------------------------------------------
def test_firmware_command_serves_a_device_over_tcp():
    """``croupier firmware diagnostic --port tcp`` prints its URL first; the driver stack connects
    to it from this process, and SIGINT (Ctrl-C) stops it through its clean-up path."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "croupier", "firmware", "diagnostic", "--port", "tcp"],
        cwd=REPO_ROOT,  # -m puts the working directory first on sys.path: this tree's croupier
        # Ctrl-C as at a terminal, even when this suite runs as a background job (whose shell
        # starts its children with SIGINT ignored)
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        ready, _, _ = select.select([proc.stdout], [], [], 15)
        assert ready, "the firmware command printed nothing"
        line = proc.stdout.readline()
        assert ": connect to socket://127.0.0.1:" in line, line
        url = line.rsplit("connect to ", 1)[1].strip()

        async def scenario():
            conn = DeviceConnection(lambda: SerialTransport(url), name="remote", settings=FAST)
            await conn.start()
            try:
                await conn.wait_ready(5.0)
                assert (await conn.request(Echo(b"over the network"))).data == b"over the network"
            finally:
                await conn.stop()

        run(scenario())
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            _, stderr = proc.communicate(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.communicate()
            raise
    assert proc.returncode == 130, stderr
