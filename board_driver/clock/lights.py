"""Low time on the running clock, shown on the board's edge lights (as online games do).

Below ``low_time_s`` the edge squares light orange; in the last ten seconds they blink. The
squares of a move waiting to be played stay as they are, so a move to execute is never
hidden. Used by the board's own clock and by an online game's (Lichess's server clock):
each says how much time is left, :class:`LowTimeLights` lights a layer of the door's and
sets a timer on the loop for the next change. Unlike the rest of the clock package, it
acts: it runs on the daemon's loop.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from board_driver.physical.frame import Frame

#: The 28 squares around the edge of the board.
EDGE_SQUARES = tuple(sq for sq in range(64) if sq < 8 or sq >= 56 or sq % 8 in (0, 7))
#: In the last this many ms the edge blinks.
BLINK_BELOW_MS = 10_000


def low_time_frame(blink: bool, keep: frozenset[int] = frozenset()) -> Frame:
    """The edge squares orange (blinking), but for ``keep`` (squares left to others).

    >>> low_time_frame(False).rows()[0]
    'oooooooo'
    >>> low_time_frame(True, frozenset({0})).rows()[7]
    '.OOOOOOO'
    """
    frame = Frame.off()
    for square in EDGE_SQUARES:
        if square not in keep:
            frame = frame.with_square(square, "o", blink=blink)
    return frame


class LowTimeLights:
    """Lights the edge while ``time_left()`` (ms on the clock of the side at the board, or
    None when it does not run) is under ``low_time_s``, in the door's layer ``name``."""

    def __init__(
        self,
        door: Any,
        low_time_s: int,
        name: str,
        time_left: Callable[[], int | None] = lambda: None,
    ) -> None:
        self.door = door
        self.low_ms = low_time_s * 1000
        self.layer = door.light_layer(name) if low_time_s > 0 else None
        self.time_left = time_left
        self.shown: Frame | None = None
        self._timer: asyncio.TimerHandle | None = None

    def update(self) -> None:
        """Show or clear the edge for the time left now; again when it next changes."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        if self.layer is None:
            return
        left = self.time_left()
        if left is None or left > self.low_ms:
            self._show(None)
            if left is not None:
                self._later((left - self.low_ms) / 1000)
            return
        keep: frozenset[int] = frozenset()
        expected = self.door.snapshot().expected
        if expected:
            from rules import parse_square

            keep = frozenset((parse_square(expected[:2]), parse_square(expected[2:4])))
        self._show(low_time_frame(left <= BLINK_BELOW_MS, keep))
        if left > BLINK_BELOW_MS:
            self._later((left - BLINK_BELOW_MS) / 1000)
        else:
            self._later(1.0)

    def _later(self, seconds: float) -> None:
        def again() -> None:
            self._timer = None
            self.update()

        self._timer = asyncio.get_running_loop().call_later(max(seconds, 0.05), again)

    def _show(self, frame: Frame | None) -> None:
        if frame != self.shown:
            self.shown = frame
            assert self.layer is not None
            self.layer.show(frame)

    def stop(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        if self.layer is not None and self.shown is not None:
            self.layer.show(None)
            self.shown = None
