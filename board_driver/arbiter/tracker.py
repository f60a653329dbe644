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
from board_driver.arbiter.rereading import Choice, Rereading
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


class Tracker(Amendments, Controls, NewGameSetup, OtherSide, Rereading, TakeBacks):
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
        self._deadline: int | None = None  # the board still for the settle time: judge it
        self._quick: int | None = None  # still for the pass time: a take-back, a release
        # Reading the hands again (see rereading): every event since the board was last
        # still, how many of them have been read, the readings chosen on the way, and one
        # to read the other way.
        self._log: list[BoardEvent] = []
        self._seen = 0
        self._choices: list[Choice] = []
        self._forced: tuple[str, int, int] | None = None
        self._in_trial = False
        self._recording = True
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
        if not isinstance(event, Lift | Place | Choose | Button):
            raise TypeError(f"not a board event: {event!r}")
        out = self.tick(event.t_ms)
        out += self._dispatch(event)
        self._log.append(event)  # only once it was possible (no ValueError)
        self._seen += 1
        return out

    def _dispatch(self, event: BoardEvent) -> list[Event]:
        if isinstance(event, Lift):
            return self._lift(event.t_ms, event.square)
        if isinstance(event, Place):
            return self._place(event.t_ms, event.square)
        if isinstance(event, Choose):
            return self._choose(event.t_ms, event.piece)
        return self._button(event.t_ms, event.name)

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
        if self._quick is None:
            return self._deadline
        if self._deadline is None:
            return self._quick
        return min(self._quick, self._deadline)

    def tick(self, t_ms: int) -> list[Event]:
        """Time passes with no event: judges the board if it has been still long enough."""
        out: list[Event] = []
        while (due := self.next_due()) is not None and due <= t_ms:
            out += self._judge_due(due)
        return out

    def finish(self, t_ms: int) -> list[Event]:
        """The board is left alone for good: whatever is pending is judged (at the time
        it falls due: the board has been still since the last event)."""
        out: list[Event] = []
        while (due := self.next_due()) is not None:
            out += self._judge_due(due)
        return out

    def _judge_due(self, due: int) -> list[Event]:
        if self._quick == due:
            self._quick = None
            return self._judge_quickly(due)
        self._deadline = None
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
        self._out_of_sync = False
        self._announced: tuple[int, int] | None = None
        self._expected = None
        self._hint = None
        self._reading = self._fresh_reading()

    def _fresh_reading(self, start_board: int | None = None) -> MoveReading:
        """A reading of the move from the committed position (only the expected move, on
        the turn of a player not at the board)."""
        reading = MoveReading(self._position, self.timing, start_board)
        self._restrict_to_expected(reading)
        return reading

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
            others = False
            # A lift that commits the move before it is read again in the next one (there
            # too it may be the other side's hand reaching out).
            for _ in range(3):
                if self.board == self._committed or self._reading.passing(t, sq):
                    break
                events, others = self._before_lift(t, sq)
                out += events
                if not events or not self._playing():
                    break
            if others:
                self._reading.note_other_lift(t, sq)
            elif self._playing():
                self._note_lift(t, sq)
        self.board &= ~b
        self._after_board_event(t)
        return out

    def _before_lift(self, t: int, sq: int) -> tuple[list[Event], bool]:
        """A lift that can only belong to the next move commits the one the board shows;
        one of the other side's pieces lifted while the mover's piece still moves is the
        other side's (True: keep it apart for the next move)."""
        if self._castling_shown():
            if not self._castle_amend.footprint.touched & bit(sq):
                return self._amend_castling(t), False
            return [], False
        reading = self._reading
        theirs = bool(self._committed & ~reading.own & bit(sq))
        found = self._complete()
        if found is not None and self._acceptable(found.move):
            if reading.released(found, t):
                if not found.touched & bit(sq):
                    if self._committed & bit(sq):  # a piece that took no part
                        return self._commit(found, t), False
                elif self._snatchable(found, sq) and self._choose_reading("snatch", t, sq):
                    return self._commit(found, t), False
            elif theirs and not found.touched & bit(sq):
                return [], True  # the other side reached out before the piece was let go
        elif theirs:
            # While the mover's piece moves, the other side reaching out; else the mover
            # touching it (its victim, most often). Only what follows can tell for sure.
            reach = reading.moving(t, self.board)
            return [], self._choose_reading("reach" if reach else "touch", t, sq) == reach
        return [], False

    def _committed_early(self) -> bool:
        """Was a move committed early by inference, that what follows may overturn?"""
        return any(choice.kind in ("snatch", "release") for choice in self._choices)

    def _snatchable(self, found: Footprint, sq: int) -> bool:
        """Is a lift of ``sq``, where ``found`` just landed and rested, the other side
        taking its victim first? If it can capture there (and knows the move: not a
        player away from the board)."""
        if not found.places & bit(sq):
            return False
        after = self._position.copy()
        after.push(found.move)
        if self._other_side is not None and after.turn == self._other_side:
            return False
        return any(m.captured_square == sq for m in after.legal_moves())

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
        out: list[Event] = []
        if self._playing():
            self._warned = None
            if self._reading.others_off and not self._reading.passing(t, sq):
                out = self._before_place(t, sq)
            self._reading.note_place(t, sq)
        self.board |= b
        self._after_board_event(t)
        return out

    def _before_place(self, t: int, sq: int) -> list[Event]:
        """The other side has lifted a piece of its own while the mover's piece moved:
        once that piece rests, released, a piece placed elsewhere is the other side's
        (its move going on), and the mover's move is committed first."""
        found = self._complete()
        if (
            found is None
            or found.touched & bit(sq)
            or not self._reading.released(found, t)
            or not self._acceptable(found.move)
            or not self._choose_reading("release", t, sq)
        ):
            return []
        return self._commit(found, t)

    def _after_board_event(self, t: int) -> None:
        """Set the judgements to come: when still for the settle time; and when still for
        the pass time, where that may decide (a release, a take-back)."""
        self._deadline = t + self.timing.settle_ms
        self._quick = None
        if self._playing() and (
            self._reading.others_off or self._committed_early() or self._takeback_shown()
        ):
            self._quick = t + self.timing.pass_ms

    # ------------------------------------------------------------------ judging

    def _allowed(self, move: Move) -> bool:
        return self._reading.allowed(move, self.options.touch_move)

    def _acceptable(self, move: Move) -> bool:
        """May ``move`` be committed: allowed by touch-move, or accepted with a warning."""
        return self.options.touch_move != "enforce" or self._allowed(move)

    def _complete(self) -> Footprint | None:
        """The one legal move the board shows done, if any (the other side's pieces lifted
        while its piece moved are the next move's, unless it captured them)."""
        reading = self._reading
        return reading.complete(self.board, self._choice, reading.others_off)

    def _on_the_way(self) -> bool:
        """Is the board in a state on the way to a legal move (allowed by touch-move)?"""
        reading, mode = self._reading, self.options.touch_move
        if reading.on_the_way(self.board, mode):
            return True
        if reading.others_off and reading.on_the_way(self.board | reading.others_off, mode):
            return True
        if self._castling_on_the_way():
            return True
        promotion = self._promotion_square
        return promotion is not None and self.board == self._committed & ~bit(promotion)

    def _judge(self, t: int) -> list[Event]:
        """The board has been still since ``t - settle_ms``: what does it show?

        An illegal state ends only when the board matches the last position again, or
        shows a legal move from it (or a take-back); a move on its way does not end it.
        Still and in sync, the hands so far are read for good.
        """
        out = self._judge_still(t)
        if not self._out_of_sync:
            self._forget_choices()
        return out

    def _judge_still(self, t: int) -> list[Event]:
        if not self._playing():
            return self._judge_setup(t)
        self._reading.settled()
        if self.board == self._committed:
            return self._restored(t)
        found = self._complete()
        violating = None
        if found is not None:
            if self._acceptable(found.move):
                return self._commit(found, t)
            violating = found
        if self._castling_shown():
            return self._amend_castling(t)
        taken_back = self._judge_takeback(t, self._takeback_depth())
        if taken_back is not None:
            return taken_back
        if self._on_the_way():
            return []
        if violating is None and not self._in_trial:
            explained = self._read_again(t)
            if explained is not None:
                return explained
        return self._illegal(t, violating)

    def _judge_quickly(self, t: int) -> list[Event]:
        """The board has been still for the pass time: a take-back; or, while the other
        side's hand is out or after a move committed early, a board that makes no sense
        read again."""
        if not self._playing():
            return []
        if self._complete() is not None or self._castling_shown():
            return []
        taken_back = self._judge_takeback(t, self._takeback_depth(quick=True))
        if taken_back is not None:
            return taken_back
        if self._in_trial or self.board == self._committed or self._on_the_way():
            return []
        # The board makes no sense while the other side's hand is out, or after a reading
        # chosen on the way: what followed may say how the hands went.
        return self._read_again(t, choices_only=not self._reading.others_off) or []

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
        """Commit ``fp``'s move; the other side's lifts made while it moved start the next."""
        move = fp.move
        out: list[Event] = []
        reading = self._reading
        before = self._position
        if not self._allowed(move):  # only under warn: enforce never commits it
            touched, _ = reading.touch.demand(reading.legal)
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
        if self._playing():
            lifted = {sq: when for when, sq in reading.others}  # each square's last lift
            carried = reading.others_off & ~fp.lifts  # not the move's own victims
            for sq, when in sorted(lifted.items(), key=lambda item: item[1]):
                if carried & bit(sq) and not self.board & bit(sq):
                    self._note_lift(when, sq)  # now the side to move's: its touch
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
