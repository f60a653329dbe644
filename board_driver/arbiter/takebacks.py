"""Take-backs: the board set back to the position before the last move undoes it.

With ``takeback`` on, pieces put back where they stood before the last move (a captured
piece seen set back on its square, not only sensed), each resting the pass time, take that
move back (``takeback``); then the position before that takes that one back too, without
waiting for the settle time between, as often as wanted.
Against a player not at the board (an engine, an online opponent) a take-back undoes the
pair: the person's move and its reply. A take-back decided elsewhere (an online opponent
accepting one) goes through :meth:`TakeBacks.take_back`. :class:`TakeBacks` is the part of
:class:`~board_driver.arbiter.tracker.Tracker` that does this.
"""

from __future__ import annotations

from board_driver.arbiter.expected import paired_takeback
from board_driver.arbiter.footprint import Footprint
from board_driver.arbiter.game_events import Event, takeback_event
from board_driver.arbiter.parts import TrackerParts


class TakeBacks(TrackerParts):
    """The board set back to an earlier position, or a take-back decided elsewhere."""

    def take_back(self, plies: int, t_ms: int) -> list[Event]:
        """Take back the last ``plies`` moves, decided outside the board (an online
        take-back accepted): the game goes back at once (``takeback`` events) and, until
        the pieces are put back, the lights show which squares to empty and fill.
        ValueError if there are not that many moves, or the game is over.
        """
        if not 1 <= plies <= len(self.game.moves):
            raise ValueError(f"take_back: {plies} plies asked, the game has {len(self.game.moves)}")
        if self._outcome is not None:
            raise ValueError(f"take_back: the game is over ({self._outcome.termination})")
        self._deadline = None
        self._forget_choices()
        out = self._take_back(plies, t_ms)
        self._out_of_sync = self.board != self._committed
        return out

    def _takeback_shown(self) -> bool:
        """Does the board show the position one or two moves back (take-backs on)?"""
        if not self.options.takeback:
            return False
        occupancies, board = self._occupancies, self.board
        return any(
            len(occupancies) > depth and board == occupancies[-1 - depth] and self._undone(depth)
            for depth in (1, 2)
        )

    def _undone(self, depth: int) -> bool:
        """Is a board showing the occupancy ``depth`` moves back a take-back of them? Not
        if that is the occupancy of the position itself (after a Chess960 castling that
        swapped king and rook), unless the hands swapped them back (what was seen counts)."""
        occupancies = self._occupancies
        return occupancies[-1 - depth] != occupancies[-1] or (depth == 1 and self._swapped_back())

    def _swapped_back(self) -> bool:
        """Was the last move a Chess960 castling that swapped king and rook, and have the
        hands since swapped them back?"""
        moves, occupancies = self.game.moves, self._occupancies
        if not self.options.takeback or not moves or not moves[-1].is_castling:
            return False
        if occupancies[-1] != occupancies[-2]:
            return False
        return self._reading.swapped_back(Footprint.of(moves[-1], occupancies[-2]))

    def _takeback_depth(self, quick: bool = False) -> int:
        """How many moves back the board shows (0: none, or take-backs off). Still for the
        pass time, one or two (one at a time, as often as wanted); still for the settle
        time, any number."""
        if not self.options.takeback:
            return 0
        moves, occupancies = self.game.moves, self._occupancies
        deepest = min(len(moves), 2) if quick else len(moves)
        for depth in range(1, deepest + 1):
            if self.board != occupancies[-1 - depth] or not self._undone(depth):
                continue
            if quick and depth == 2 and occupancies[-2] not in self._reading.boards():
                continue  # one at a time: the last move is taken back first
            # A captured piece must be seen set back on its square, not only sensed.
            if self._reading.victims_set_back(moves[-depth:]):
                return depth
        return 0

    def _judge_takeback(self, t: int, depth: int) -> list[Event] | None:
        """Take back ``depth`` moves (None: nothing to take back); against a player not at
        the board, only whole pairs."""
        if self._other_side is not None:
            depth = paired_takeback(depth, self._position.turn == self._other_side)
            if depth < 0:
                return self._restored(t)  # half the pair set back: wait for the rest
        if depth:
            return self._take_back(depth, t)
        return None

    def _take_back(self, depth: int, t: int) -> list[Event]:
        out: list[Event] = []
        for _ in range(depth):
            move, san = self._pop()
            out.append(takeback_event(self.game, t, move, san))
        self._forget_windows()
        self._draw_offer = None
        self._outcome = self.game.outcome()
        self._new_turn()
        return out
