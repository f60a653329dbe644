"""The scan loop: scans the matrix at a steady rate in its own thread.

It hands ``(t_ms, bitmap)`` to a callback only when the bitmap differs from the last one
handed over, plus a heartbeat about once a second, so an idle board costs the daemon's
event loop nothing. A failing backend is reported to ``on_error`` (and retried once a
second), never left to kill the thread silently.

>>> from board_driver.physical.sensing.sim import SimulatedBoard
>>> seen = []
>>> loop = ScanLoop(SimulatedBoard(), lambda t, b: seen.append(b), rate_hz=500)
>>> loop.start(); _ = loop.wait_for_scans(3); loop.stop()
>>> f"{seen[0]:016x}"
'ffff00000000ffff'
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable

from board_driver.physical.ports import SensingPort

log = logging.getLogger(__name__)

ScanCallback = Callable[[int, int], None]
ErrorCallback = Callable[[BaseException], None]


def monotonic_ms() -> int:
    """Milliseconds on the monotonic clock, the daemon's time base."""
    return time.monotonic_ns() // 1_000_000


#: The scan rates a ScanLoop accepts (scans a second); ``[sensing] rate_hz`` is checked
#: against them.
MIN_RATE_HZ = 1
MAX_RATE_HZ = 5000


class ScanLoop:
    """Calls ``port.scan()`` ``rate_hz`` times a second in a daemon thread.

    ``on_scan(t_ms, bitmap)`` is called from the scan thread: hand the scan on to the
    event loop (``loop.call_soon_threadsafe``) rather than doing work in it.
    ``observers`` (for example a :class:`~board_driver.physical.sensing.health.SquareHealth`)
    are fed every change as well.
    """

    def __init__(
        self,
        port: SensingPort,
        on_scan: ScanCallback,
        *,
        rate_hz: float = 200,
        heartbeat_s: float = 1.0,
        on_error: ErrorCallback | None = None,
        retry_s: float = 1.0,
        observers: tuple[ScanCallback, ...] = (),
        clock: Callable[[], int] = monotonic_ms,
        name: str = "magboard-scan",
    ) -> None:
        if not MIN_RATE_HZ <= rate_hz <= MAX_RATE_HZ:
            raise ValueError(f"rate_hz must be {MIN_RATE_HZ}..{MAX_RATE_HZ}, got {rate_hz!r}")
        self.port = port
        self.on_scan = on_scan
        self.on_error = on_error
        self.rate_hz = rate_hz
        self.heartbeat_ms = int(heartbeat_s * 1000)
        self.retry_s = retry_s
        self.observers = observers
        self.clock = clock
        self.scans = 0
        self.errors = 0
        self.last: int | None = None
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)

    def start(self) -> None:
        """Start scanning."""
        self._thread.start()

    def stop(self, timeout: float = 2.0) -> None:
        """Stop scanning and wait for the thread (within one scan period)."""
        self._stop.set()
        if self._thread.is_alive() and threading.current_thread() is not self._thread:
            self._thread.join(timeout)

    @property
    def running(self) -> bool:
        return self._thread.is_alive()

    def wait_for_scans(self, count: int, timeout: float = 5.0) -> bool:
        """Block until ``count`` more scans have been made (for tests and diagnose)."""
        target = self.scans + count
        deadline = time.monotonic() + timeout
        while self.scans < target:
            if time.monotonic() > deadline or not self._thread.is_alive():
                return self.scans >= target
            time.sleep(0.001)
        return True

    def _report(self, exc: BaseException) -> None:
        self.errors += 1
        if self.on_error is None:
            log.error("scan failed: %s", exc, exc_info=exc)
            return
        try:
            self.on_error(exc)
        except Exception:
            log.exception("the scan error handler failed")

    def _run(self) -> None:
        period = 1.0 / self.rate_hz
        next_at = time.monotonic()
        last_sent_ms = None
        while not self._stop.is_set():
            try:
                bitmap = self.port.scan()
            except Exception as exc:
                self._report(exc)
                self._stop.wait(self.retry_s)
                next_at = time.monotonic()
                continue
            t_ms = self.clock()
            self.scans += 1
            changed = bitmap != self.last
            if changed or last_sent_ms is None or t_ms - last_sent_ms >= self.heartbeat_ms:
                self.last = bitmap
                last_sent_ms = t_ms
                try:
                    self.on_scan(t_ms, bitmap)
                    if changed:
                        for observe in self.observers:
                            observe(t_ms, bitmap)
                except Exception as exc:
                    self._report(exc)
            next_at += period
            delay = next_at - time.monotonic()
            if delay < -period:
                # Fell behind (a stalled system): start afresh instead of bursting.
                next_at = time.monotonic()
            elif delay > 0.05:
                self._stop.wait(delay)
            elif delay > 0:
                # A plain sleep costs half what an Event wait does at 200 Hz; stop() is
                # still seen within one period.
                time.sleep(delay)
