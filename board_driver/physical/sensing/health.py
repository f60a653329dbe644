"""Squares whose switch looks broken: stuck for many games, or chattering faster than a hand.

Fed the changed scans (the scan loop's observers), it flags:

* *flickering*: a square that changes ``flicker_changes`` times within
  ``flicker_window_ms`` (a hand lifting and putting back a piece makes 2 changes; a
  loose wire or a magnet at the edge of a reed's range makes dozens);
* *stuck*: a square that has not changed over ``stuck_games`` games (call
  :meth:`game_over` at the end of each game). Pieces that truly never moved look the same,
  so this is a suspicion worth a look with ``magboard diagnose``, not a verdict.

Debounce (30 ms) already keeps chatter from inventing moves; this tells the builder.

>>> health = SquareHealth()
>>> for t in range(0, 400, 40):
...     _ = health.feed(t, (t // 40 % 2) << 28)   # e4 chatters every 40 ms
>>> health.flickering()
[28]
"""

from __future__ import annotations

import logging
from collections import deque

from board_driver.physical.squares import square_name, squares_of

log = logging.getLogger(__name__)


class SquareHealth:
    """Watches scans for stuck and flickering squares; see the module docstring."""

    def __init__(
        self,
        *,
        flicker_changes: int = 8,
        flicker_window_ms: int = 1000,
        stuck_games: int = 10,
        log_problems: bool = True,
    ) -> None:
        self.log_problems = log_problems
        self.flicker_changes = flicker_changes
        self.flicker_window_ms = flicker_window_ms
        self.stuck_games = stuck_games
        self._last: int | None = None
        self._changes: list[deque[int]] = [deque() for _ in range(64)]
        self._flickering = 0
        self._changed_ever = 0
        self._changed_this_game = 0
        self._games_unchanged = [0] * 64

    def feed(self, t_ms: int, bitmap: int) -> list[str]:
        """Take one scan; returns the problems newly found (also logged as warnings)."""
        problems = []
        if self._last is not None:
            diff = bitmap ^ self._last
            self._changed_ever |= diff
            self._changed_this_game |= diff
            for sq in squares_of(diff):
                times = self._changes[sq]
                times.append(t_ms)
                while times and t_ms - times[0] > self.flicker_window_ms:
                    times.popleft()
                if len(times) >= self.flicker_changes and not self._flickering >> sq & 1:
                    self._flickering |= 1 << sq
                    problems.append(
                        f"{square_name(sq)} flickers: {len(times)} changes within "
                        f"{self.flicker_window_ms} ms, faster than any hand "
                        "(a loose wire, a cracked reed, or a magnet at the edge of its range)"
                    )
        self._last = bitmap
        if self.log_problems:
            for problem in problems:
                log.warning("sensing: %s", problem)
        return problems

    def game_over(self) -> list[str]:
        """Count a finished game; returns the squares newly suspected of being stuck."""
        problems = []
        for sq in range(64):
            if self._changed_this_game >> sq & 1:
                self._games_unchanged[sq] = 0
                continue
            self._games_unchanged[sq] += 1
            if self._games_unchanged[sq] == self.stuck_games:
                state = "closed" if (self._last or 0) >> sq & 1 else "open"
                problems.append(
                    f"{square_name(sq)} has read {state} for {self.stuck_games} games: "
                    "check its reed switch and diode with `magboard diagnose`"
                )
        self._changed_this_game = 0
        if self.log_problems:
            for problem in problems:
                log.warning("sensing: %s", problem)
        return problems

    def flickering(self) -> list[int]:
        """Squares seen flickering since the start."""
        return squares_of(self._flickering)

    def stuck(self) -> list[int]:
        """Squares unchanged for at least ``stuck_games`` games."""
        return [sq for sq in range(64) if self._games_unchanged[sq] >= self.stuck_games]

    def never_changed(self) -> list[int]:
        """Squares that have not changed once since the first scan."""
        return squares_of(~self._changed_ever & ((1 << 64) - 1))
