"""Fake CircuitPython ``usb_cdc``: ``data`` and ``console`` serial ports.

A test attaches the master end of a pseudo-terminal to a port (plugging the cable); the host
opens the slave end with pyserial. Writes never block, like ``write_timeout = 0`` on the
device: with nobody reading, bytes are dropped.
"""

from __future__ import annotations

import fcntl
import os
import struct
import termios

from fakehw import PowerOff, hw


class Serial:
    def __init__(self) -> None:
        self._fd: int | None = None
        self.timeout: float | None = 1.0
        self.write_timeout: float | None = None

    # test side: the cable
    def attach(self, fd: int) -> None:
        self._fd = fd

    def detach(self) -> None:
        self._fd = None

    # the CircuitPython API
    @property
    def connected(self) -> bool:
        self._power()
        return self._fd is not None

    @property
    def in_waiting(self) -> int:
        self._power()
        fd = self._fd
        if fd is None:
            return 0
        try:
            raw = fcntl.ioctl(fd, termios.FIONREAD, b"\0\0\0\0")
        except OSError:
            return 0
        return struct.unpack("i", raw)[0]

    def read(self, size: int = 1) -> bytes:
        self._power()
        fd = self._fd
        if fd is None:
            return b""
        try:
            return os.read(fd, size)
        except (BlockingIOError, OSError):
            return b""

    def write(self, data: bytes) -> int:
        self._power()
        fd = self._fd
        if fd is None:
            return 0
        written = 0
        view = memoryview(bytes(data))
        while written < len(view):
            try:
                written += os.write(fd, view[written:])
            except (BlockingIOError, OSError):
                break
        return written

    def reset_input_buffer(self) -> None:
        while self.in_waiting:
            self.read(self.in_waiting)

    @staticmethod
    def _power() -> None:
        if not hw.powered:
            raise PowerOff


console = Serial()
data: Serial | None = None


def enable(*, console: bool = True, data: bool = False) -> None:
    """Only boot.py may call this on a real board; here it creates the data port."""
    globals()["data"] = Serial() if data else None
