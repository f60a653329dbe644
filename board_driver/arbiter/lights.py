"""The tracker's state as light, and what the lights ask in words.

:meth:`Lights.frame` is the steady LED frame (see :mod:`.feedback` for the colours and
which state wins a square); :meth:`Lights.asks` says what the lights ask, in short
sentences (see :mod:`.words`). :class:`Lights` is the part of
:class:`~board_driver.arbiter.tracker.Tracker` that does this.
"""

from __future__ import annotations

from board_driver.arbiter.expected import execute_squares
from board_driver.arbiter.feedback import BoardView, Colours, render
from board_driver.arbiter.footprint import bit
from board_driver.arbiter.parts import TrackerParts
from board_driver.arbiter.setup import START_OCCUPANCY
from board_driver.arbiter.words import asks, setup_asks
from board_driver.physical.frame import Frame
from rules import WHITE


class Lights(TrackerParts):
    """The frame and the words for the tracker's state (a Tracker part)."""

    _painted: tuple[BoardView, Colours, Frame] | None = None

    def frame(self) -> Frame:
        """The steady LED frame for the current state."""
        view, colours = self._view(), self.colours
        painted = self._painted
        if painted is not None and painted[0] == view and painted[1] == colours:
            return painted[2]  # most events change nothing the lights show
        frame = render(view, colours)
        self._painted = (view, colours, frame)
        return frame

    def asks(self) -> list[str]:
        """What the lights ask, in short sentences, most urgent first: what to put right
        and why the position is illegal, check, a castling rook still to move, an
        en-passant victim still to lift, a touched piece that must move, the other side's
        move to play, the pieces for a new game, the result.

        >>> from board_driver.physical.events import Lift, Place
        >>> from board_driver.physical.squares import square
        >>> from rules import Position
        >>> tracker = Tracker(Game(Position.from_fen("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1")))
        >>> _ = tracker.handle(Lift(0, square("e1"))) + tracker.handle(Place(100, square("g1")))
        >>> tracker.asks()
        ['Castling: move the rook from h1 to f1.']
        """
        if self._setup is not None:
            return setup_asks(self._setup.state())
        return asks(
            self._view(),
            self._position,
            why=self._why if self._out_of_sync else None,
            outcome=self._outcome,
            expected=self._expected,
            warned=self._warned,
        )

    def _view(self) -> BoardView:
        board, committed, position = self.board, self._committed, self._position
        outcome = self._outcome
        guide = self._setup
        if guide is not None:
            due = guide.due()
            group = due.squares if due is not None else 0
            return BoardView(
                setup_missing=group & guide.missing(),
                setup_extra=guide.extra(),
                setup_wrong=guide.wrong_squares(),
                setup_early=guide.early_squares(),
                setup_check=group & guide.unknown_squares(),
            )
        if outcome is not None and board != committed:
            return BoardView(
                setup_missing=START_OCCUPANCY & ~board, setup_extra=board & ~START_OCCUPANCY
            )
        if outcome is not None:
            white_king = position.king_square(WHITE)
            black_king = position.king_square(not WHITE)
            if outcome.winner is None:
                return BoardView(draw_kings=bit(white_king) | bit(black_king))
            winner, loser = (
                (white_king, black_king) if outcome.winner == WHITE else (black_king, white_king)
            )
            return BoardView(winner_king=winner, loser_king=loser)
        empty = fill = 0
        if self._out_of_sync:
            empty, fill = board & ~committed, committed & ~board
        check_king, checkers = None, 0
        if position.is_check():
            check_king = position.king_square(position.turn)
            checkers = sum(bit(sq) for sq in position.checkers())
        reading = self._reading
        touched = 0
        if self.options.touch_move != "off":
            owed, _ = reading.touch.demand(reading.legal)
            # Lit only where it has a move to make (a Chess960 rook touched before its
            # king that cannot move only may not castle: FIDE 4.4.2).
            if (
                owed is not None
                and board & bit(owed)
                and any(owed in (m.from_square, m.captured_square) for m in reading.legal)
            ):
                touched |= bit(owed)
            if self._warned is not None:
                touched |= bit(self._warned)
        return BoardView(
            empty=empty,
            fill=fill,
            check_king=check_king,
            checkers=checkers,
            half_done=0 if self._out_of_sync else reading.half_done(board),
            touched=touched,
            hints=(reading.hints(board) if self.options.hints else 0) | self._hint_squares(),
            to_execute=execute_squares(self._expected) if self._expected is not None else 0,
        )
