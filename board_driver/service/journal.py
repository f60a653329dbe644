"""What the daemon writes to its log (the journal, under systemd): a line per
announcement that matters (a stored move, an illegal position, the end of a game), and
lines that repeat said once and then counted: a storm of the same error (a flood of
connections, a device gone mad) must not fill the journal nor slow the loop.

>>> limiter = RepeatLimiter(every_s=10.0, clock=iter([0.0, 1.0, 2.0, 12.0]).__next__)
>>> [limiter.allow("accept failed") for _ in range(4)]
[(True, 0), (False, 0), (False, 0), (True, 2)]
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from typing import Any

log = logging.getLogger("magboard")


class RepeatLimiter:
    """Allows a given line once per ``every_s`` seconds, and says how many were held back."""

    def __init__(self, every_s: float = 10.0, clock: Callable[[], float] = time.monotonic) -> None:
        self.every_s = every_s
        self._clock = clock
        self._seen: dict[Any, tuple[float, int]] = {}  # key -> (last said, held back since)

    def allow(self, key: Any) -> tuple[bool, int]:
        """(say it now?, how many like it were held back since it was last said)."""
        now = self._clock()
        last = self._seen.get(key)
        if last is not None and now - last[0] < self.every_s:
            self._seen[key] = (last[0], last[1] + 1)
            return False, 0
        held = last[1] if last is not None else 0
        if len(self._seen) > 256:  # a flood of different lines: forget the old ones
            self._seen.clear()
        self._seen[key] = (now, 0)
        return True, held


def loop_exception_handler(limiter: RepeatLimiter) -> Callable[[Any, dict], None]:
    """An asyncio exception handler that says each kind of failure once per period: an
    error of the world (OSError: out of descriptors, a connection reset) in one line, a bug
    with its traceback."""

    def handle(_loop: asyncio.AbstractEventLoop, context: dict) -> None:
        message = context.get("message", "unexpected failure on the loop")
        exc = context.get("exception")
        say, held = limiter.allow((message, type(exc)))
        if not say:
            return
        more = f" ({held} more like it held back)" if held else ""
        if exc is None or isinstance(exc, OSError):
            log.error("%s%s%s", message, f": {exc}" if exc is not None else "", more)
        else:
            log.error("%s%s", message, more, exc_info=exc)

    return handle


def log_announcement(event: dict, game_id: int | None, *, stored: bool = True) -> None:
    """One line for an announcement that matters; ``stored``: the store took the step (a
    move is said stored only then)."""
    kind = event.get("type")
    if kind == "move":
        ply = event.get("ply")  # counted in plies, as everywhere: `games`, the page, resuming
        log.info(
            "%s: %s (%s) %s in game %s%s",
            f"ply {ply}" if ply else "move",
            event.get("san"),
            event.get("uci"),
            "stored" if stored else "played",
            game_id,
            "" if stored else ", NOT stored yet (kept in memory)",
        )
    elif kind in ("illegal", "restored", "takeback", "promotion_amended", "game_over"):
        details = {k: v for k, v in event.items() if k not in ("t", "type", "leds")}
        log.info("%s: %s", kind.replace("_", " "), brief(details))
    else:
        log.debug("%s: %s", kind, brief({k: v for k, v in event.items() if k != "type"}))


def brief(details: dict) -> str:
    return ", ".join(f"{k}={v}" for k, v in details.items()) or "-"
