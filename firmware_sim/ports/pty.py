"""A simulated device behind a real pseudo-terminal.

The driver opens the slave side with pyserial, exactly as it opens /dev/ttyUSB0. The port also
keeps a stable symlink to the current /dev/pts/N, as udev keeps /dev/serial/by-id/...; unplugging
closes the master (the driver's reads fail with EIO) and replugging makes a new pty behind the same
link.
"""

from __future__ import annotations

import contextlib
import os
import select
import tempfile
import threading
import tty
from pathlib import Path

from firmware_sim.device import SimulatedDevice

#: A port's own directory for its link: ``croupier-pty-<pid of the process serving it>-<random>``.
LINK_DIR_PREFIX = "croupier-pty-"


def _link_dir() -> str:
    """A new directory for a port's link, named for this process; those of processes that are gone
    (killed before ``stop`` could remove them) are removed first, so that a table PC or a test rig
    whose simulated devices are killed and started again does not fill the temporary directory."""
    for stale in Path(tempfile.gettempdir()).glob(f"{LINK_DIR_PREFIX}*-*"):
        pid = stale.name.removeprefix(LINK_DIR_PREFIX).split("-", 1)[0]
        if pid.isdigit() and not _alive(int(pid)):
            with contextlib.suppress(OSError):  # another process may be removing it too
                for link in stale.iterdir():
                    link.unlink()
                stale.rmdir()
    return tempfile.mkdtemp(prefix=f"{LINK_DIR_PREFIX}{os.getpid()}-")


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process: alive
        pass
    return True


class PtyPort:
    """Serve ``device`` on a pseudo-terminal; ``path`` is the stable name to open."""

    def __init__(self, device: SimulatedDevice, link_dir: Path | None = None) -> None:
        self.device = device
        self._own_dir = link_dir is None
        self._dir = Path(link_dir or _link_dir())
        self.path = str(self._dir / f"{device.name.replace('@', '-')}")
        self.pts_path = ""
        self._master = -1
        self._slave = -1
        self._wake_r, self._wake_w = os.pipe()
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()

    @property
    def url(self) -> str:
        """What a driver opens: the stable link, as a table PC opens /dev/serial/by-id/..."""
        return self.path

    def start(self) -> PtyPort:
        self.device.start()
        self.replug()
        return self

    def replug(self) -> None:
        """A new pty appears behind the stable link; the device's bytes flow to it."""
        with self._lock:
            if self._master >= 0:
                return
            master, slave = os.openpty()
            tty.setraw(slave)
            os.set_blocking(master, False)
            self._master, self._slave = master, slave
            self.pts_path = os.ttyname(slave)
            tmp = self.path + ".new"
            with contextlib.suppress(FileNotFoundError):
                os.unlink(tmp)
            os.symlink(self.pts_path, tmp)
            os.replace(tmp, self.path)
            self._thread = threading.Thread(
                target=self._read_loop, args=(master,), name=f"pty-{self.device.name}", daemon=True
            )
            self._thread.start()
        self.device.attach(self._write)

    def unplug(self) -> None:
        """The cable is pulled: the link disappears and the driver's next read fails."""
        self.device.attach(None)
        with self._lock:
            if self._master < 0:
                return
            thread = self._thread
            os.write(self._wake_w, b"x")
        if thread is not None:
            thread.join(timeout=5)
        with self._lock:
            os.read(self._wake_r, 64)
            with contextlib.suppress(FileNotFoundError):
                os.unlink(self.path)
            os.close(self._master)
            os.close(self._slave)
            self._master = self._slave = -1
            self._thread = None

    def stop(self) -> None:
        self.unplug()
        self.device.stop()
        os.close(self._wake_r)
        os.close(self._wake_w)
        if self._own_dir:
            with contextlib.suppress(OSError):
                self._dir.rmdir()

    def _write(self, data: bytes) -> None:
        with self._lock:
            master = self._master
            if master < 0:
                return
            # Nobody reads the other end and its buffer is full: an overrun, the bytes are lost.
            with contextlib.suppress(BlockingIOError):
                os.write(master, data)

    def _read_loop(self, master: int) -> None:
        """Wait for the host's bytes and hand them to the device on this thread. The wait is an
        epoll set made once per plug, not a ``select`` over fresh lists on every wake-up: each
        request wakes this loop once, and what it costs is on every round trip (decision 0048)."""
        with select.epoll(2) as watch:
            watch.register(master, select.EPOLLIN)
            watch.register(self._wake_r, select.EPOLLIN)
            wake, wait, read, deliver = self._wake_r, watch.poll, os.read, self.device.deliver
            while True:
                if any(fd == wake for fd, _ in wait()):
                    return
                try:
                    data = read(master, 4096)
                except BlockingIOError:
                    continue
                except OSError:
                    return
                if data:
                    deliver(data)
