"""The move tracker: lifts and places in, moves out, judged like a careful arbiter.

A reed switch says only "a piece is here", so the tracker reads moves from which squares
empty and fill, and when. It keeps the occupancy of the last committed position, the
board standing now, and what happened since (a :class:`~.reading.MoveReading`: which
squares were lifted, which refilled, which pieces were touched first). When the board has
been still for ``settle_ms`` it judges:

- the board matches the last position: nothing to do (or ``restored`` after an error);
- it shows exactly one legal move done (a capture's square seen emptied and filled
  again): the move is committed (``move``, then ``check`` and ``game_over`` if so);
- it shows the position before the last move (take-backs on): ``takeback``;
- it is on the way to a legal move (a piece in hand, a victim lifted, a castling king
  waiting for its rook, an en-passant victim still standing): it waits, no complaint;
- anything else: ``illegal``, out of sync, the lights show what to empty and fill.

It judges earlier when an event can only belong to the next move: the board shows a
complete move and a piece that took no part in it is lifted (the other side's turn), or a
button is pressed (a claim, a resignation or an offer comes after the move the board shows).
A committed move can still grow by the same side before the other side lifts anything
(:mod:`.amendments`). The game events it announces are listed in :mod:`.game_events`.

The tracker's parts: :mod:`.reading` (one move read from the hands), :mod:`.amendments`
(castling rook first, a late promotion choice), :mod:`.controls` (buttons, offers,
claims, endings), :mod:`.takebacks`, :mod:`.setup` (a new game), :mod:`.expected` (the
other side's move).

>>> from board_driver.events import Lift, Place
>>> from board_driver.squares import square
>>> tracker = Tracker()
>>> events = tracker.handle(Lift(0, square("e2"))) + tracker.handle(Place(300, square("e4")))
>>> [e["san"] for e in events + tracker.tick(600) if e["type"] == "move"]
['e4']
>>> tracker.game.position.fen()
'rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1'
"""

from __future__ import annotations

from board_driver.arbiter.amendments import Amendments, CastlingAmendment
from board_driver.arbiter.controls import Controls
from board_driver.arbiter.expected import OtherSide, execute_squares
from board_driver.arbiter.feedback import DEFAULT_COLOURS, BoardView, Colours, render
from board_driver.arbiter.footprint import Footprint, bit
from board_driver.arbiter.game_events import (
    Event,
    check_event,
    game_over_event,
    move_event,
    square_names,
    touch_move_event,
)
from board_driver.arbiter.options import (
    DEFAULT_OPTIONS,
    DEFAULT_TIMING,
    MIN_SETTLE_MS,
    PROMOTION_PIECES,
    TOUCH_MOVE_MODES,
    GameOptions,
    Timing,
)
from board_driver.arbiter.reading import MoveReading
from board_driver.arbiter.setup import START_OCCUPANCY, NewGameSetup
from board_driver.arbiter.takebacks import TakeBacks
from board_driver.events import BoardEvent, Button, Choose, Lift, Place
from board_driver.frame import Frame
from board_driver.squares import square_name
from rules import WHITE, Color, Game, Move, Outcome

__all__ = [
    "MIN_SETTLE_MS",
    "PROMOTION_PIECES",
    "START_OCCUPANCY",
    "TOUCH_MOVE_MODES",
    "GameOptions",
    "Timing",
    "Tracker",
]


class Tracker(Amendments, Controls, NewGameSetup, OtherSide, TakeBacks):
    """Turns board events into game events, holding a :class:`rules.Game`.

    ``board`` is the occupancy actually standing when the tracker starts (``None``: it
    matches the game); a mismatch starts out of sync, and the lights guide the board back.
    """

    def __init__(
        self,
        game: Game | None = None,
        *,
        options: GameOptions = DEFAULT_OPTIONS,
        timing: Timing = DEFAULT_TIMING,
        board: int | None = None,
        colours: Colours = DEFAULT_COLOURS,
    ) -> None:
        if board is not None and not (isinstance(board, int) and 0 <= board < 1 << 64):
            raise ValueError(f"board: expected a 64-bit occupancy bitmap, got {board!r}")
        self.game = game if game is not None else Game()
        self.options = options
        self.timing = timing
        self.colours = colours
        position = self.game.start.copy()
        self._occupancies = [position.occupancy()]
        for move in self.game.moves:
            position.push(move)
            self._occupancies.append(position.occupancy())
        self._outcome: Outcome | None = self.game.outcome()
        self._deadline: int | None = None
        self._castle_amend: CastlingAmendment | None = None
        self._promotion_square: int | None = None
        self._choice: int | None = None
        self._warned: int | None = None  # a touched square lit after a move it did not make
        self._new_game_pending = False
        self._draw_offer: Color | None = None
        self._other_side: Color | None = None
        self._expected: Move | None = None
        self._hint: Move | None = None
        self._new_turn()
        self.board = self._committed if board is None else board
        # After a restart a piece may be in the hand (a move on its way): no complaint.
        self._out_of_sync = self.board != self._committed and not (
            self._playing() and self._on_the_way()
        )

    # ------------------------------------------------------------------ public

    @property
    def in_sync(self) -> bool:
        """Does the board show the committed position (or a move on its way to one)?"""
        if self._new_game_pending:
            return False
        if self._outcome is not None:
            return self.board == self._committed
        return not self._out_of_sync

    def handle(self, event: BoardEvent) -> list[Event]:
        """Take one board event; returns the game events it (and the time before it) led to.

        A judgement that fell due before the event is made first, at its own time.
        A ``lift`` of an empty square or a ``place`` on a full one cannot come from a
        board: ValueError, and the tracker keeps its state.
        """
        out = self.tick(event.t_ms)
        if isinstance(event, Lift):
            out += self._lift(event.t_ms, event.square)
        elif isinstance(event, Place):
            out += self._place(event.t_ms, event.square)
        elif isinstance(event, Choose):
            out += self._choose(event.t_ms, event.piece)
        elif isinstance(event, Button):
            out += self._button(event.t_ms, event.name)
        else:
            raise TypeError(f"not a board event: {event!r}")
        return out

    def starting_events(self, t_ms: int = 0) -> list[Event]:
        """What the tracker has to say before any board event: ``game_over`` when the game
        it was given is already over (a script or a restart from a finished position).

        >>> from rules import Position
        >>> dead = Tracker(Game(Position.from_fen("4k3/8/8/8/8/8/8/4K3 w - - 0 1")))
        >>> [(e["type"], e["termination"]) for e in dead.starting_events()]
        [('game_over', 'insufficient_material')]
        >>> Tracker().starting_events()
        []
        """
        if self._outcome is None:
            return []
        return [game_over_event(t_ms, self._outcome)]

    def next_due(self) -> int | None:
        """When the board, if left still, is next judged (ms), or None: nothing pending.

        The daemon sets its one timer from this, so an idle board costs nothing.
        """
        return self._deadline

    def tick(self, t_ms: int) -> list[Event]:
        """Time passes with no event: judges the board if it has been still long enough."""
        if self._deadline is not None and self._deadline <= t_ms:
            due, self._deadline = self._deadline, None
            return self._judge(due)
        return []

    def finish(self, t_ms: int) -> list[Event]:
        """The board is left alone for good: whatever is pending is judged (at the time
        it falls due: the board has been still since the last event)."""
        if self._deadline is None:
            return []
        due, self._deadline = self._deadline, None
        return self._judge(due)

    def frame(self) -> Frame:
        """The steady LED frame for the current state."""
        return render(self._view(), self.colours)

    def to_put_right(self) -> tuple[int, int]:
        """Bitmaps of the squares to empty and to fill for the board to match the game."""
        return self.board & ~self._committed, self._committed & ~self.board

    # ------------------------------------------------------------------ state per turn

    def _new_turn(self) -> None:
        """A position was committed (or taken back): start reading the next move."""
        self._position = self.game.position
        self._committed = self._occupancies[-1]
        self._reading = MoveReading(self._position, self.timing)
        # A move the board once showed done, and where it stands in the history: a move
        # whose piece the other side lifted at once (to capture it), or a capture whose
        # victim swap the switches missed (faster than the debounce time). If the board
        # later makes no sense, it may make sense after that move.
        self._shadow: tuple[Footprint, int] | None = None
        self._out_of_sync = False
        self._announced: tuple[int, int] | None = None
        self._expected = None
        self._hint = None
        self._restrict_to_expected()

    def _playing(self) -> bool:
        return self._outcome is None and not self._new_game_pending

    # ------------------------------------------------------------------ board events

    def _lift(self, t: int, sq: int) -> list[Event]:
        b = bit(sq)
        if not self.board & b:
            raise ValueError(f"lift {square_name(sq)} at {t} ms: no piece stands there")
        out: list[Event] = []
        if self._playing():
            self._warned = None
            if not self._reading.passing(t, sq) and self.board != self._committed:
                out += self._before_lift(t, sq)
            self._note_lift(t, sq)
        self.board &= ~b
        self._deadline = t + self.timing.settle_ms
        return out

    def _before_lift(self, t: int, sq: int) -> list[Event]:
        """A lift that can only belong to the next move commits the one the board shows."""
        amend = self._castle_amend
        if amend is not None and self.board == amend.footprint.after:
            if not amend.footprint.touched & bit(sq):
                return self._amend_castling(t)
            return []
        early = self._early_commit(sq)
        if early is not None:
            return self._commit(early, t)
        done = self._complete()
        if done is not None and self._allowed(done.move):
            self._note_shadow(done)
        else:
            self._note_shadow(self._unseen_capture())
        return []

    def _note_lift(self, t: int, sq: int) -> None:
        """Record a lift in the history of this move (and what it touched)."""
        self._close_windows(sq)
        self._reading.note_lift(
            t, sq, touch_mode=self.options.touch_move, exempt=self._in_window(sq)
        )

    def _place(self, t: int, sq: int) -> list[Event]:
        b = bit(sq)
        if self.board & b:
            raise ValueError(f"place {square_name(sq)} at {t} ms: a piece already stands there")
        if self._playing():
            self._warned = None
            self._reading.note_place(t, sq)
        self.board |= b
        self._deadline = t + self.timing.settle_ms
        return []

    def _early_commit(self, sq: int) -> Footprint | None:
        """A piece that took no part lifted while the board shows a complete move: that
        move is done, and the lift belongs to the next one (the other side's, by 4.2.1:
        its own piece, or the victim of a capture)."""
        if not self._committed & bit(sq):
            return None
        found = self._complete()
        if found is None or found.touched & bit(sq) or not self._allowed(found.move):
            return None
        return found

    # ------------------------------------------------------------------ judging

    def _allowed(self, move: Move) -> bool:
        return self._reading.allowed(move, self.options.touch_move)

    def _complete(self) -> Footprint | None:
        """The one legal move the board shows done, if any."""
        return self._reading.complete(self.board, self._choice)

    def _unseen_capture(self) -> Footprint | None:
        return self._reading.unseen_capture(self.board, self.options.touch_move, self._choice)

    def _on_the_way(self) -> bool:
        """Is the board in a state on the way to a legal move (allowed by touch-move)?"""
        if self._reading.on_the_way(self.board, self.options.touch_move):
            return True
        if self._castling_on_the_way():
            return True
        promotion = self._promotion_square
        return promotion is not None and self.board == self._committed & ~bit(promotion)

    def _judge(self, t: int) -> list[Event]:
        """The board has been still since ``t - settle_ms``: what does it show?"""
        if not self._playing():
            return self._judge_setup(t)
        if self.board == self._committed:
            self._shadow = None
            return self._restored(t)
        found = self._complete()
        violating = None
        if found is not None:
            if self._allowed(found.move) or self.options.touch_move != "enforce":
                return self._commit(found, t)
            violating = found
        if self._castling_shown():
            return self._amend_castling(t)
        taken_back = self._judge_takeback(t)
        if taken_back is not None:
            return taken_back
        if self._on_the_way():
            self._note_shadow(self._unseen_capture())
            return self._restored(t)
        if violating is None and self._shadow is not None:
            explained = self._try_shadow(t)
            if explained is not None:
                return explained
        return self._illegal(t, violating)

    def _note_shadow(self, found: Footprint | None) -> None:
        if found is not None and (self._shadow is None or self._shadow[0] != found):
            self._shadow = (found, len(self._reading.history))

    def _try_shadow(self, t: int) -> list[Event] | None:
        """Out of sync, unless the move the board once showed was made and the other side
        has since made a complete move: then both are committed."""
        assert self._shadow is not None
        shadow, index = self._shadow
        later = self._reading.history[index:]
        saved = dict(self.__dict__)
        saved["_occupancies"] = list(self._occupancies)
        out = self._commit(shadow, t)
        if self._playing():
            for when, lifted, sq in later:
                if lifted:
                    self._note_lift(when, sq)
                else:
                    self._reading.note_place(when, sq)
            found = self._complete()
            if found is not None and self._allowed(found.move):
                return out + self._commit(found, t)
        self.game.pop()
        self.__dict__.update(saved)
        return None

    def _restored(self, t: int) -> list[Event]:
        if not self._out_of_sync:
            return []
        self._out_of_sync = False
        self._announced = None
        return [{"t": t, "type": "restored", "fen": self._position.fen()}]

    def _illegal(self, t: int, violating: Footprint | None) -> list[Event]:
        empty, fill = self.to_put_right()
        self._out_of_sync = True
        if self._announced == (empty, fill):
            return []
        self._announced = (empty, fill)
        event: Event = {
            "t": t,
            "type": "illegal",
            "empty": square_names(empty),
            "fill": square_names(fill),
        }
        if violating is not None:
            event["reason"] = "touch_move"
            event["san"] = self._position.san(violating.move)
            owed, _ = self._reading.touch.demand(self._reading.legal)
            event["square"] = square_name(owed) if owed is not None else None
            event["touched"] = square_names(sum(bit(sq) for sq in self._reading.touch.squares()))
        else:
            event["reason"] = "no_legal_move"
        return [event]

    # ------------------------------------------------------------------ changing the game

    def _after_move(self, t: int, was_over: Outcome | None) -> list[Event]:
        """``check`` and ``game_over`` (or ``game_resumed``) after the position changed."""
        out: list[Event] = []
        check = check_event(self.game, t)
        if check is not None:
            out.append(check)
        self._outcome = self.game.outcome()
        if self._outcome is not None and self._outcome != was_over:
            out.append(game_over_event(t, self._outcome))
        elif self._outcome is None and was_over is not None:
            out.append({"t": t, "type": "game_resumed", "fen": self.game.position.fen()})
        return out

    def _push(self, move: Move) -> tuple[str, Color]:
        position = self.game.position
        san, mover = position.san(move), position.turn
        self.game.push(move)
        self._occupancies.append(self.game.position.occupancy())
        return san, mover

    def _pop(self) -> tuple[Move, str]:
        move = self.game.pop()
        self._occupancies.pop()
        return move, self.game.position.san(move)

    def _commit(self, fp: Footprint, t: int) -> list[Event]:
        move = fp.move
        out: list[Event] = []
        before = self._position
        if not self._allowed(move):  # only under warn: enforce never commits it
            touched, _ = self._reading.touch.demand(self._reading.legal)
            assert touched is not None
            mode = self.options.touch_move
            out.append(touch_move_event(t, mode, touched, before.san(move)))
            self._warned = touched
        castling = self._castling_to_come(move)
        was_over = self._outcome
        occupancy = self._committed
        san, mover = self._push(move)
        if move.promotion is not None:
            self._choice = None
        if self._draw_offer is not None and self._draw_offer != mover:
            self._draw_offer = None  # the other side played instead of accepting
        out.append(move_event(self.game, t, "move", move, san, mover))
        self._new_turn()
        out += self._after_move(t, was_over)
        self._open_windows(move, castling, occupancy)
        return out

    # ------------------------------------------------------------------ lights

    def _view(self) -> BoardView:
        board, committed, position = self.board, self._committed, self._position
        outcome = self._outcome
        if self._new_game_pending or (outcome is not None and board != committed):
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
            if owed is not None and board & bit(owed):
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
