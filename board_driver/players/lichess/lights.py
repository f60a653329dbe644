"""Low time on our clock, shown on the board's edge lights (the player's own layer).

Below ``low_time_s`` on our running clock the edge squares light orange; in the last ten
seconds they blink. The squares of a move waiting to be played stay as they are, so the
opponent's move is never hidden. The layer is cleared when our clock stops (our move
sent, the game over).
"""

from __future__ import annotations

import asyncio
from typing import Any

from board_driver.frame import Frame

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


class LowTime:
    """Watches our clock and lights the edge (see the module docstring)."""

    def __init__(self, door: Any, low_time_s: int) -> None:
        self.door = door
        self.low_ms = low_time_s * 1000
        self.layer = door.light_layer("lichess") if low_time_s > 0 else None
        self.shown: Frame | None = None
        self._timer: asyncio.TimerHandle | None = None
        self._args: tuple[Any, int, bool] | None = None

    def update(self, game: Any, state_at: int, on_board: bool) -> None:
        """Show or clear the edge for ``game`` as its state arrived at ``state_at`` ms."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        if self.layer is None:
            return
        self._args = (game, state_at, on_board)
        left = self.our_time_left(game, state_at) if on_board else None
        if left is None or left > self.low_ms:
            self._show(None)
            if left is not None:
                self._later((left - self.low_ms) / 1000)
            return
        keep = frozenset()
        expected = self.door.snapshot().expected
        if expected:
            from rules import parse_square

            keep = frozenset((parse_square(expected[:2]), parse_square(expected[2:4])))
        self._show(low_time_frame(left <= BLINK_BELOW_MS, keep))
        if left > BLINK_BELOW_MS:
            self._later((left - BLINK_BELOW_MS) / 1000)
        else:
            self._later(1.0)

    def our_time_left(self, game: Any, state_at: int) -> int | None:
        """ms left on our clock now, if it is the one running; else None."""
        if game is None or not game.clock_running or game.turn() != game.color:
            return None
        left = game.wtime if game.color == "white" else game.btime
        return left - (self.door.now_ms() - state_at)

    def _later(self, seconds: float) -> None:
        def again() -> None:
            self._timer = None
            if self._args is not None:
                self.update(*self._args)

        self._timer = asyncio.get_running_loop().call_later(max(seconds, 0.05), again)

    def _show(self, frame: Frame | None) -> None:
        if frame != self.shown:
            self.shown = frame
            assert self.layer is not None
            self.layer.show(frame)

    def stop(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
        if self.layer is not None and self.shown is not None:
            self.layer.show(None)
