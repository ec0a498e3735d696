"""Ways to reach a simulated device: a pseudo-terminal, TCP, RFC 2217, or the simulated USB bus.

Every port offers ``start()``, ``stop()``, ``unplug()``, ``replug()`` and ``url``: the address a
driver opens (a path, ``socket://``, ``rfc2217://`` or ``usb://`` URL).
"""

from __future__ import annotations

from typing import Protocol

from firmware_sim.device import SimulatedDevice


class Port(Protocol):
    device: SimulatedDevice

    @property
    def url(self) -> str: ...

    def start(self) -> Port: ...

    def stop(self) -> None: ...

    def unplug(self) -> None: ...

    def replug(self) -> None: ...


def serial_port_kinds() -> tuple[str, ...]:
    """The kinds of port ``serve`` can open for another process to connect to."""
    return tuple(_SERVERS)


def serve(kind: str, device: SimulatedDevice) -> Port:
    """Start ``device`` behind a port of ``kind`` (see serial_port_kinds)."""
    try:
        factory = _SERVERS[kind]
    except KeyError:
        raise ValueError(f"unknown port kind {kind!r}; choose from {', '.join(_SERVERS)}") from None
    return factory(device).start()


def _pty(device: SimulatedDevice) -> Port:
    from firmware_sim.ports.pty import PtyPort

    return PtyPort(device)


def _tcp(device: SimulatedDevice) -> Port:
    from firmware_sim.ports.tcp import TcpPort

    return TcpPort(device)


def _rfc2217(device: SimulatedDevice) -> Port:
    from firmware_sim.ports.rfc2217 import Rfc2217Port

    return Rfc2217Port(device)


_SERVERS = {"pty": _pty, "tcp": _tcp, "rfc2217": _rfc2217}
