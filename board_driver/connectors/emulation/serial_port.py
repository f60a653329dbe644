"""The serial transport: the emulation's bytes over a serial device, on the daemon's loop.

The device is the Pi's USB gadget port (``/dev/ttyGS0``), an RFCOMM port
(``/dev/rfcomm0``, there only while a Bluetooth client is connected), a real UART, or a
pseudo-terminal in the tests. It is opened with pyserial (imported only here), at the
protocol's speed, 8N1: ChessLink's 7 data bits with odd parity are the same ten bits on
the wire as 8N1 with the parity in bit 7, which the protocol code adds and ignores
itself, so one setting serves apps of both kinds, and pseudo-terminals (which cannot do
parity) too.

Reads and writes never block the loop: the device is non-blocking, read when readable,
and what the app does not take at once waits in a bounded buffer (past
:data:`MAX_BUFFER` bytes it is dropped: the app asks for the board again). A device that
is missing, busy or gone (an app that hung up, an RFCOMM client that left) is opened
again every ``retry_s`` seconds, and each change is logged once.
"""

from __future__ import annotations

import asyncio
import errno
import logging
import os
from collections.abc import Callable
from typing import Any

log = logging.getLogger("magboard.emulation")

#: Bytes waiting for a slow app; past this they are dropped.
MAX_BUFFER = 64 * 1024
#: Each protocol's speed.
BAUDRATES = {"dgt": 9600, "chesslink": 38400}


class SerialTransport:
    """A serial device read and written on the loop; see the module docstring.

    ``on_data(bytes)`` is called with what arrives, ``on_link(up, reason)`` when the
    device is opened or lost.
    """

    def __init__(self, device: str, baudrate: int, *, retry_s: float = 2.0) -> None:
        self.device = device
        self.baudrate = baudrate
        self.retry_s = retry_s
        self.on_data: Callable[[bytes], None] = lambda data: None
        self.on_link: Callable[[bool, str], None] = lambda up, reason: None
        self._port: Any = None
        self._fd: int | None = None
        self._out = bytearray()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._retry: asyncio.TimerHandle | None = None
        self._last_problem = ""
        self._closed = False
        self._stalled = False

    @property
    def connected(self) -> bool:
        """The device is open."""
        return self._fd is not None

    def start(self, on_data: Callable[[bytes], None], on_link: Callable[[bool, str], None]) -> None:
        """Open the device now, or keep trying (call on the loop)."""
        self.on_data, self.on_link = on_data, on_link
        self._loop = asyncio.get_running_loop()
        self._open()

    def _open(self) -> None:
        self._retry = None
        if self._closed:
            return
        import serial  # pyserial: only when an emulation runs

        try:
            port = serial.Serial(
                self.device,
                self.baudrate,
                bytesize=serial.EIGHTBITS,
                parity=serial.PARITY_NONE,
                stopbits=serial.STOPBITS_ONE,
                timeout=0,
                exclusive=True,
            )
        except (OSError, serial.SerialException, ValueError) as exc:
            self._problem(f"cannot open {self.device}: {_reason(exc)}")
            self._retry_later()
            return
        self._port = port
        self._fd = port.fileno()
        os.set_blocking(self._fd, False)
        assert self._loop is not None
        self._loop.add_reader(self._fd, self._readable)
        self._last_problem = ""
        log.info("emulation: %s open", self.device)
        self.on_link(True, "")

    def _problem(self, text: str) -> None:
        if text != self._last_problem:
            log.warning("emulation: %s (trying again every %g s)", text, self.retry_s)
            self._last_problem = text

    def _retry_later(self) -> None:
        if not self._closed and self._loop is not None and self._retry is None:
            self._retry = self._loop.call_later(self.retry_s, self._open)

    def _readable(self) -> None:
        assert self._fd is not None
        try:
            data = os.read(self._fd, 4096)
        except BlockingIOError:
            return
        except OSError as exc:
            self._lost(_reason(exc))
            return
        if not data:
            self._lost("the other end hung up")
            return
        self.on_data(data)

    def write(self, data: bytes) -> None:
        """Send ``data`` (dropped while the device is not open)."""
        if not data or self._fd is None:
            return
        if self._out:
            self._queue(data)
            return
        try:
            written = os.write(self._fd, data)
        except BlockingIOError:
            written = 0
        except OSError as exc:
            self._lost(_reason(exc))
            return
        if written < len(data):
            self._queue(data[written:])
        else:
            self._stalled = False

    def _queue(self, data: bytes) -> None:
        assert self._loop is not None and self._fd is not None
        if len(self._out) + len(data) > MAX_BUFFER:
            if not self._stalled:  # once until the app reads again
                log.warning(
                    "emulation: nothing reads %s: what it is sent is dropped until it does",
                    self.device,
                )
                self._stalled = True
            self._out.clear()
            self._loop.remove_writer(self._fd)
            return
        if not self._out:
            self._loop.add_writer(self._fd, self._writable)
        self._out += data

    def _writable(self) -> None:
        assert self._fd is not None and self._loop is not None
        try:
            written = os.write(self._fd, self._out)
        except BlockingIOError:
            return
        except OSError as exc:
            self._lost(_reason(exc))
            return
        del self._out[:written]
        if not self._out:
            self._loop.remove_writer(self._fd)
            self._stalled = False

    def _lost(self, reason: str) -> None:
        self._shut()
        self._problem(f"{self.device} lost: {reason}")
        self.on_link(False, reason)
        self._retry_later()

    def _shut(self) -> None:
        if self._fd is not None and self._loop is not None:
            self._loop.remove_reader(self._fd)
            self._loop.remove_writer(self._fd)
        self._fd = None
        self._out.clear()
        if self._port is not None:
            try:
                self._port.close()
            except Exception:  # closing a port that is gone may fail: it is closed anyway
                pass
            self._port = None

    def close(self) -> None:
        """Close the device and stop trying."""
        self._closed = True
        if self._retry is not None:
            self._retry.cancel()
            self._retry = None
        self._shut()


def _reason(exc: BaseException) -> str:
    number = getattr(exc, "errno", None)
    if number == errno.ENOENT:
        return "no such device"
    if number in (errno.EACCES, errno.EPERM):
        return "permission denied (is the user in the dialout group?)"
    if number in (errno.EBUSY, errno.EAGAIN):  # EAGAIN: pyserial's exclusive lock is taken
        return "busy (another program has it open)"
    if number == errno.EIO:
        return "input/output error (the other end is gone)"
    text = str(exc).strip() or type(exc).__name__
    return text.split(": ", 1)[-1] if text.startswith("[Errno") else text
