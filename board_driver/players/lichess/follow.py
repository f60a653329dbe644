"""Following a stream for as long as it is wanted: reconnect with backoff, never give up.

A :class:`Follower` reads one stream (the event stream, a game's stream) in a thread of
its own, hands every line to the daemon's loop, and when the stream drops (Wi-Fi on a
Pi, a server restart, a dead link found by the read timeout) opens it again after a
pause that doubles from ``first_pause_s`` up to ``max_pause_s`` (with some jitter, so
that many boards do not come back at once). A stream that had delivered lines starts
again from the shortest pause. Only a rejected token stops it: retrying cannot help.

Everything it reports goes through ``post`` (the door's ``call_soon_threadsafe``):
``on_line(line)``, ``on_status(status, detail)`` with status ``connecting``,
``connected`` (the server answered), ``waiting`` (detail: seconds until the next try and
why), ``ended`` (the server closed the stream properly: a game stream does when its game
is over) and ``rejected``.
"""

from __future__ import annotations

import random
import threading
from collections.abc import Callable
from typing import Any

from board_driver.players.lichess.api import LichessError, Stream, TokenRejected, Unreachable

FIRST_PAUSE_S = 0.5
MAX_PAUSE_S = 30.0


class Follower:
    """A stream followed in a thread (see the module docstring).

    ``reopen_when_ended``: open the stream again when the server ends it properly (the
    event stream); a game's stream ends for good with its game.
    """

    def __init__(
        self,
        name: str,
        open_stream: Callable[[], Stream],
        post: Callable[..., None],
        on_line: Callable[[dict[str, Any]], None],
        on_status: Callable[[str, Any], None],
        *,
        reopen_when_ended: bool = True,
        first_pause_s: float = FIRST_PAUSE_S,
        max_pause_s: float = MAX_PAUSE_S,
    ) -> None:
        self.name = name
        self._open = open_stream
        self._post = post
        self._on_line = on_line
        self._on_status = on_status
        self._reopen_when_ended = reopen_when_ended
        self._current: Stream | None = None
        self._first_pause_s = first_pause_s
        self._max_pause_s = max_pause_s
        self._stop = threading.Event()
        self._wake = threading.Event()
        self._thread = threading.Thread(target=self._run, name=f"lichess-{name}", daemon=True)

    def start(self) -> Follower:
        self._thread.start()
        return self

    @property
    def running(self) -> bool:
        return self._thread.is_alive() and not self._stop.is_set()

    def stop(self) -> None:
        """Stop following (the thread ends soon after; nothing more is reported)."""
        self._stop.set()
        self._wake.set()
        self._close_current()

    def reconnect(self) -> None:
        """Drop the stream and open it again at once (a fresh ``gameFull``)."""
        self._wake.set()
        self._close_current()

    def _close_current(self) -> None:
        current = self._current
        if current is not None:
            current.close()

    def _report(self, fn: Callable[..., None], *args: Any) -> None:
        if not self._stop.is_set():
            try:
                self._post(fn, *args)
            except RuntimeError:  # the loop is closed: the daemon is gone
                self._stop.set()

    def _run(self) -> None:
        pause = self._first_pause_s
        while not self._stop.is_set():
            self._wake.clear()
            self._report(self._on_status, "connecting", None)
            got_lines = False
            try:
                self._current = self._open()
                if self._stop.is_set():
                    self._current.close()
                self._current.on_open(lambda: self._report(self._on_status, "connected", None))
                for line in self._current:
                    if self._stop.is_set():
                        return
                    got_lines = True
                    self._report(self._on_line, line)
                if self._stop.is_set():
                    return
                if not self._reopen_when_ended and not self._wake.is_set():
                    self._report(self._on_status, "ended", None)
                    return
                pause = self._first_pause_s
                wait_s = 0.0 if self._wake.is_set() else pause
            except TokenRejected as exc:
                self._report(self._on_status, "rejected", str(exc))
                return
            except LichessError as exc:
                if self._stop.is_set():
                    return
                if got_lines:
                    pause = self._first_pause_s
                if self._wake.is_set():
                    wait_s = 0.0
                else:
                    wait_s = pause * random.uniform(0.8, 1.2)
                    if isinstance(exc, Unreachable) and exc.retry_after_s:
                        wait_s = max(wait_s, exc.retry_after_s)
                    pause = min(pause * 2, self._max_pause_s)
                self._report(self._on_status, "waiting", {"seconds": wait_s, "why": str(exc)})
            if wait_s:
                self._wake.clear()
                self._wake.wait(wait_s)
