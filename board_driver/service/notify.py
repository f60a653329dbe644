"""systemd's notify protocol: READY, WATCHDOG, STOPPING, STATUS over ``$NOTIFY_SOCKET``.

A datagram of ``KEY=value`` lines to a Unix socket; an ``@`` first means the abstract
namespace. Outside systemd (no ``$NOTIFY_SOCKET``) every call does nothing, so the
daemon calls it unconditionally.

>>> notifier = Notifier(environ={})
>>> notifier.ready(), notifier.watchdog_interval()
(False, None)
"""

from __future__ import annotations

import os
import socket
from collections.abc import Mapping


class Notifier:
    """Talks to the service manager, if there is one."""

    def __init__(self, environ: Mapping[str, str] | None = None) -> None:
        env = os.environ if environ is None else environ
        address = env.get("NOTIFY_SOCKET", "")
        if address.startswith("@"):
            address = "\0" + address[1:]
        self._address = address or None
        self._watchdog_usec: int | None = None
        usec = env.get("WATCHDOG_USEC", "")
        pid = env.get("WATCHDOG_PID", "")
        if usec.isdigit() and int(usec) > 0 and (not pid or pid == str(os.getpid())):
            self._watchdog_usec = int(usec)

    def watchdog_interval(self) -> float | None:
        """Seconds between watchdog pings (half of ``WatchdogSec=``), None if no watchdog."""
        if self._watchdog_usec is None:
            return None
        return self._watchdog_usec / 1_000_000 / 2

    def send(self, *fields: str) -> bool:
        """Send ``KEY=value`` fields; True if sent. Never raises: the board comes first."""
        if self._address is None:
            return False
        try:
            with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM | socket.SOCK_CLOEXEC) as sock:
                sock.connect(self._address)
                sock.sendall("\n".join(fields).encode())
        except OSError:
            return False
        return True

    def ready(self, status: str = "") -> bool:
        return self.send("READY=1", *([f"STATUS={status}"] if status else []))

    def watchdog(self) -> bool:
        return self.send("WATCHDOG=1")

    def stopping(self) -> bool:
        return self.send("STOPPING=1")

    def status(self, text: str) -> bool:
        return self.send(f"STATUS={text}")
