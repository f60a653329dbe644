"""Setting up a new game: the ``new_game`` button, or all 32 pieces put home after a game.

Until the start position stands, the lights show the squares still to fill (blue) and to
empty (red); when it stands, the new game begins (``new_game``). After a game has ended
the board is frozen for moves, and setting the pieces home starts the next one without a
button. :class:`NewGameSetup` is the part of :class:`~board_driver.arbiter.tracker.Tracker`
that does this.
"""

from __future__ import annotations

from board_driver.arbiter.game_events import Event, square_names
from board_driver.arbiter.parts import TrackerParts
from rules import Game, Position

#: The occupancy of the start position: ranks 1, 2, 7 and 8.
START_OCCUPANCY = Position().occupancy()


class NewGameSetup(TrackerParts):
    """A new game waiting for its pieces (a Tracker part)."""

    _new_game_pending: bool
    _keep_game: bool = False  # the game waiting is the one to play (wait_for_pieces)

    def wait_for_pieces(self, t: int) -> list[Event]:
        """This game, from the start position with no move yet, was begun on pieces that
        stand elsewhere (the last game's): as after ``new_game``, nothing is read as a move
        until all 32 stand home, and then this game begins (no other is made)."""
        if self.board == START_OCCUPANCY or self.game.moves or self._outcome is not None:
            return []
        if self.game.start.fen() != Game().start.fen():
            raise ValueError("wait_for_pieces: a game from the start position only")
        self._keep_game = True
        return self._button_new_game(t)

    def _button_new_game(self, t: int) -> list[Event]:
        self._new_game_pending = True
        if self.board == START_OCCUPANCY:
            return self._start_new_game(t)
        return [
            {
                "t": t,
                "type": "new_game_pending",
                "missing": square_names(START_OCCUPANCY & ~self.board),
                "extra": square_names(self.board & ~START_OCCUPANCY),
            }
        ]

    def _judge_setup(self, t: int) -> list[Event]:
        """After the game (or ``new_game``): all 32 pieces home start a new game."""
        if self.board == START_OCCUPANCY and (
            self._new_game_pending or self.board != self._committed
        ):
            return self._start_new_game(t)
        return []

    def _start_new_game(self, t: int) -> list[Event]:
        if not self._keep_game:
            self.game = Game()
        self._keep_game = False
        self._occupancies = [START_OCCUPANCY]
        self._outcome = None
        self._forget_windows()
        self._choice = None
        self._warned = None
        self._draw_offer = None
        self._new_game_pending = False
        self._forget_choices()
        self._new_turn()
        return [{"t": t, "type": "new_game", "fen": self.game.position.fen()}]
