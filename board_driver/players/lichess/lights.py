"""Low time on our clock in an online game, shown on the board's edge lights (the
player's own layer): the board clock's low-time lights (:mod:`board_driver.clock.lights`)
fed with the server's clock. The layer is cleared when our clock stops (our move sent, the
game over).
"""

from __future__ import annotations

from typing import Any

from board_driver.clock.lights import BLINK_BELOW_MS, EDGE_SQUARES, LowTimeLights, low_time_frame

__all__ = ["BLINK_BELOW_MS", "EDGE_SQUARES", "LowTime", "low_time_frame"]


class LowTime(LowTimeLights):
    """Watches our clock on the server and lights the edge."""

    def __init__(self, door: Any, low_time_s: int) -> None:
        super().__init__(door, low_time_s, "lichess", self._left)
        self._args: tuple[Any, int, bool] | None = None

    def update(self, *state: Any) -> None:
        """Show or clear the edge for ``game`` as its state arrived at ``state_at`` ms
        (``update(game, state_at, on_board)``; with no arguments: the state given last)."""
        if state:
            game, state_at, on_board = state
            self._args = (game, state_at, on_board)
        super().update()

    def _left(self) -> int | None:
        if self._args is None:
            return None
        game, state_at, on_board = self._args
        return self.our_time_left(game, state_at) if on_board else None

    def our_time_left(self, game: Any, state_at: int) -> int | None:
        """ms left on our clock now, if it is the one running; else None."""
        if game is None or not game.clock_running or game.turn() != game.color:
            return None
        left = game.wtime if game.color == "white" else game.btime
        return left - (self.door.now_ms() - state_at)
