"""The move tracker: lifts and places in, moves out, judged like a careful arbiter.

A reed switch says only "a piece is here", so the tracker reads moves from which squares
empty and fill, and when. It keeps the occupancy of the last committed position, the
board standing now, and what happened since (which squares were lifted, which refilled,
which pieces were touched first). When the board has been still for ``settle_ms`` it
judges:

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
A committed move can still grow by the same side before the other side lifts anything:
a rook move becomes castling when its king follows (touch-move off or warn), and a
promotion takes the piece named by a late ``choose``.

Game events are JSON-able dicts with ``t`` (ms) and ``type``:

==================== ================================================================
``move``             ``san uci fen from to side ply`` (+ ``captured``, ``rook_from``
                     ``rook_to``, ``en_passant``, ``promotion``; ``replaces``: the SAN
                     of a rook move that became castling)
``check``            ``side`` (in check), ``king``, ``checkers`` (square names)
``game_over``        ``result termination winner`` (``winner`` null for a draw)
``game_resumed``     ``fen``: a late promotion choice undid an automatic ending
``illegal``          ``empty fill`` (square names, against the last position),
                     ``reason`` (``no_legal_move`` | ``touch_move``, then ``san`` of the
                     move refused, ``square`` owed a move, ``touched``)
``restored``         ``fen``: the board is back in sync (as it was, or on the way to a move)
``touch_move``       ``square mode played``: a move accepted against touch-move (warn)
``takeback``         ``san uci side fen``: the move undone, the position now
``promotion_amended`` like ``move``, with ``replaces``
``adjust``           ``side``: j'adoube announced
``draw_offer``       ``side``
``claim_refused``    ``reason``
``refused``          ``button reason``: a control that does not apply now
``new_game_pending`` ``missing extra``: squares to fill and empty for the start position
``new_game``         ``fen``
``hint_requested``   (for an engine, when one plays)
==================== ================================================================

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

from dataclasses import dataclass
from typing import Any

from board_driver.arbiter.expected import (
    NoTouchMove,
    execute_squares,
    move_details,
    paired_takeback,
)
from board_driver.arbiter.feedback import DEFAULT_COLOURS, BoardView, Colours, render
from board_driver.arbiter.footprint import Footprint, bit
from board_driver.arbiter.touch import TouchMove
from board_driver.events import PROMOTION_LETTERS, BoardEvent, Button, Choose, Lift, Place
from board_driver.frame import Frame
from board_driver.squares import square_name, squares_of
from rules import (
    BISHOP,
    KNIGHT,
    PIECE_TYPES,
    QUEEN,
    ROOK,
    WHITE,
    ClaimRefused,
    Color,
    Game,
    Move,
    Outcome,
    Position,
)

TOUCH_MOVE_MODES = ("off", "warn", "enforce")
#: The occupancy of the start position: ranks 1, 2, 7 and 8.
START_OCCUPANCY = Position().occupancy()
PROMOTION_PIECES = {"q": QUEEN, "r": ROOK, "b": BISHOP, "n": KNIGHT}

Event = dict[str, Any]


@dataclass(frozen=True, slots=True)
class GameOptions:
    """How strictly the board plays (config ``[game]``, board-script ``option`` lines).

    ``touch_move``: ``"off"``, ``"warn"`` (announce and light the touched piece, accept
    the other move) or ``"enforce"`` (the other move is illegal); ``takeback``: the board
    set back to the position before the last move undoes it; ``hints``: a lifted
    piece's legal destinations light up.
    """

    touch_move: str = "warn"
    takeback: bool = True
    hints: bool = False

    def __post_init__(self) -> None:
        if self.touch_move not in TOUCH_MOVE_MODES:
            raise ValueError(
                f"touch_move: {self.touch_move!r} is not one of {', '.join(TOUCH_MOVE_MODES)}"
            )
        for name in ("takeback", "hints"):
            if not isinstance(getattr(self, name), bool):
                raise ValueError(f"{name}: expected true or false, got {getattr(self, name)!r}")


#: The shortest settle time the tracker works with: a move is judged once the board is still.
MIN_SETTLE_MS = 1


@dataclass(frozen=True, slots=True)
class Timing:
    """``settle_ms``: how long the board must be still before a move is judged;
    ``pass_ms``: a piece resting less than this on a square only passed over it (and a
    square that empties and fills again within it only flickered)."""

    settle_ms: int = 250
    pass_ms: int = 100

    def __post_init__(self) -> None:
        for name in ("settle_ms", "pass_ms"):
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool) or value < 0:
                raise ValueError(f"{name}: expected a whole number of milliseconds, got {value!r}")
        if self.settle_ms < MIN_SETTLE_MS:
            raise ValueError(f"settle_ms: must be at least {MIN_SETTLE_MS}")


def _side(color: Color) -> str:
    return "white" if color == WHITE else "black"


def _names(mask: int) -> list[str]:
    return [square_name(sq) for sq in squares_of(mask)]


@dataclass(frozen=True, slots=True)
class _CastlingAmendment:
    """A rook move that becomes castling if its king follows (rook first)."""

    castling: Move
    footprint: Footprint  # the castling's, from the position before the rook move
    before: int  # the occupancy before the rook move


class Tracker:
    """Turns board events into game events, holding a :class:`rules.Game`.

    ``board`` is the occupancy actually standing when the tracker starts (``None``: it
    matches the game); a mismatch starts out of sync, and the lights guide the board back.
    """

    def __init__(
        self,
        game: Game | None = None,
        *,
        options: GameOptions = GameOptions(),
        timing: Timing = Timing(),
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
        self._castle_amend: _CastlingAmendment | None = None
        self._promotion_square: int | None = None  # a promotion whose piece may be amended
        self._choice: int | None = None  # the piece chosen for the next promotion
        self._warned: int | None = None  # a touched square lit after a move it did not make
        self._new_game_pending = False
        self._draw_offer: Color | None = None
        self._other_side: Color | None = None  # its moves come from elsewhere (engine)
        self._expected: Move | None = None  # the other side's move, to play on the board
        self._hint: Move | None = None  # a suggestion lit for the side to move
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
        return [self._game_over_event(t_ms, self._outcome)]

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

    def end_game(self, termination: str, winner: Color | None, t_ms: int) -> list[Event]:
        """An ending decided outside the board (a flag fall, an online game's result):
        the game is over at once (``game_over``). ValueError if it is over already, or
        if ``termination`` is one the board decides itself (see :meth:`rules.Game.end`).
        """
        if self._outcome is not None:
            raise ValueError(f"end_game: the game is over already ({self._outcome.termination})")
        return self._end(t_ms, self.game.end(termination, winner))

    def take_back(self, plies: int, t_ms: int) -> list[Event]:
        """Take back the last ``plies`` moves, decided outside the board (an online
        take-back accepted): the game goes back at once (``takeback`` events) and, until
        the pieces are put back, the lights show which squares to empty and fill.
        ValueError if there are not that many moves, or the game is over.
        """
        if not 1 <= plies <= len(self.game.moves):
            raise ValueError(
                f"take_back: {plies} plies asked, the game has {len(self.game.moves)}"
            )
        if self._outcome is not None:
            raise ValueError(f"take_back: the game is over ({self._outcome.termination})")
        self._deadline = None
        out = self._take_back(plies, t_ms)
        self._out_of_sync = self.board != self._committed
        return out

    # ------------------------------------------------------------------ state per turn

    def _new_turn(self) -> None:
        """A position was committed (or taken back): start reading the next move."""
        self._position = self.game.position
        self._committed = self._occupancies[-1]
        self._legal = self._position.legal_moves()
        self._footprints = [Footprint.of(m, self._committed) for m in self._legal]
        turn = self._position.turn
        own = 0
        for piece_type in PIECE_TYPES:
            for sq in self._position.pieces(piece_type, turn):
                own |= bit(sq)
        self._own = own  # the side to move's pieces
        self._lift_t: dict[int, int] = {}
        self._place_t: dict[int, int] = {}
        self._refill_t: dict[int, int] = {}  # a square lifted and filled again
        self._history: list[tuple[int, bool, int]] = []  # (t, lifted?, square) since the move
        # A move the board once showed done, and where it stands in the history: a move
        # whose piece the other side lifted at once (to capture it), or a capture whose
        # victim swap the switches missed (faster than the debounce time). If the board
        # later makes no sense, it may make sense after that move.
        self._shadow: tuple[Footprint, int] | None = None
        self._touch = TouchMove()
        self._adjusting = False
        self._adjusted: set[int] = set()
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
            passing = t - self._place_t.get(sq, -(1 << 62)) < self.timing.pass_ms
            if not passing and self.board != self._committed:
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
        b = bit(sq)
        self._history.append((t, True, sq))
        passing = t - self._place_t.get(sq, -(1 << 62)) < self.timing.pass_ms
        if passing:
            del self._place_t[sq]  # a sliding piece crossed this square
        self._close_windows(sq)
        exempt = (
            passing
            or sq in self._lift_t
            or self._adjusting
            or self._in_window(sq)
            or self.options.touch_move == "off"
        )
        if self._adjusting:
            self._adjusted.add(sq)
        if not exempt and self._committed & b:
            self._touch.lift(
                self._position, sq, t, together_ms=self.timing.pass_ms, legal=self._legal
            )
        self._lift_t[sq] = t

    def _place(self, t: int, sq: int) -> list[Event]:
        b = bit(sq)
        if self.board & b:
            raise ValueError(f"place {square_name(sq)} at {t} ms: a piece already stands there")
        if self._playing():
            self._warned = None
            self._note_place(t, sq)
        self.board |= b
        self._deadline = t + self.timing.settle_ms
        return []

    def _note_place(self, t: int, sq: int) -> None:
        """Record a place in the history of this move."""
        self._history.append((t, False, sq))
        lifted = self._lift_t.get(sq)
        if lifted is not None:
            self._refill_t[sq] = t
            if t - lifted < self.timing.pass_ms:
                self._touch.forget(sq, lifted)  # the square flickered: no hand touched it
        self._place_t[sq] = t
        if self._adjusting:
            if sq in self._adjusted:
                self._adjusted.discard(sq)
            else:
                self._adjusting = False  # a piece left for another square: j'adoube ends
                self._adjusted.clear()

    def _close_windows(self, sq: int) -> None:
        """A lift that is not part of the last move's completion ends its amendments."""
        amend = self._castle_amend
        if amend is not None and sq != amend.castling.from_square:
            self._castle_amend = None
        if self._promotion_square is not None and sq != self._promotion_square:
            self._promotion_square = None

    def _in_window(self, sq: int) -> bool:
        amend = self._castle_amend
        return (amend is not None and sq == amend.castling.from_square) or (
            sq == self._promotion_square
        )

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
        if self.options.touch_move == "off":
            return True
        return self._touch.allows(move, self._legal)

    def _target_refilled(self, fp: Footprint) -> bool:
        """A capture's square was emptied and filled again after the mover left its square."""
        if fp.target is None:
            return True
        refilled = self._refill_t.get(fp.target)
        return refilled is not None and refilled > self._lift_t.get(fp.move.from_square, 0)

    def _complete(self) -> Footprint | None:
        """The one legal move the board shows done, if any."""
        board = self.board
        done = [fp for fp in self._footprints if fp.after == board and self._target_refilled(fp)]
        if not done:
            return None
        if len(done) > 1:
            # Same occupancy: captures by one piece on different squares (the last square
            # filled is where it landed), or the four promotions (the player's choice).
            latest = max(self._place_t.get(fp.move.to_square, -1) for fp in done)
            done = [fp for fp in done if self._place_t.get(fp.move.to_square, -1) == latest]
            if len(done) > 1:
                wanted = self._choice or QUEEN
                chosen = [fp for fp in done if fp.move.promotion == wanted]
                done = chosen or done[:1]
        return done[0]

    def _history_allows(self, fp: Footprint) -> bool:
        """A castling rook (an en-passant victim) set back on its square after the king
        (the pawn) landed is not a move on its way: the player let go of it there."""
        move = fp.move
        if move.is_castling:
            back, landed = move.rook_from, move.to_square
        elif move.is_en_passant:
            back, landed = move.captured_square, move.to_square
        else:
            return True
        if not self.board & bit(landed) or not self.board & bit(back):
            return True
        refilled = self._refill_t.get(back)
        return refilled is None or refilled < self._place_t.get(landed, 0)

    def _on_the_way(self) -> bool:
        """Is the board in a state on the way to a legal move (allowed by touch-move)?"""
        board, before = self.board, self._committed
        strict = self.options.touch_move == "enforce"
        for fp in self._footprints:
            if strict and not self._allowed(fp.move):
                continue
            if fp.on_the_way(before, board) and self._history_allows(fp):
                return True
        amend = self._castle_amend
        if amend is not None and amend.footprint.on_the_way(amend.before, board):
            return True
        promotion = self._promotion_square
        return promotion is not None and board == before & ~bit(promotion)

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
        amend = self._castle_amend
        if amend is not None and self.board == amend.footprint.after:
            return self._amend_castling(t)
        if self.options.takeback:
            depth = self._takeback_depth()
            if self._other_side is not None:  # against an engine: the pair
                depth = paired_takeback(depth, self._position.turn == self._other_side)
                if depth < 0:
                    return self._restored(t)  # half the pair set back: wait for the rest
            if depth:
                return self._take_back(depth, t)
        if self._on_the_way():
            self._note_shadow(self._unseen_capture())
            return self._restored(t)
        if violating is None and self._shadow is not None:
            explained = self._try_shadow(t)
            if explained is not None:
                return explained
        return self._illegal(t, violating)

    def _unseen_capture(self) -> Footprint | None:
        """The one capture whose result the board shows, its victim's square never seen
        emptied and filled again (it reads as the capturer still in the hand)."""
        found = [
            fp
            for fp in self._footprints
            if fp.target is not None and fp.after == self.board and self._allowed(fp.move)
        ]
        if len({(fp.move.from_square, fp.move.to_square) for fp in found}) != 1:
            return None
        wanted = self._choice or QUEEN
        return next((fp for fp in found if fp.move.promotion in (None, wanted)), None)

    def _note_shadow(self, found: Footprint | None) -> None:
        if found is not None and (self._shadow is None or self._shadow[0] != found):
            self._shadow = (found, len(self._history))

    def _try_shadow(self, t: int) -> list[Event] | None:
        """Out of sync, unless the move the board once showed was made and the other side
        has since made a complete move: then both are committed."""
        assert self._shadow is not None
        shadow, index = self._shadow
        later = self._history[index:]
        saved = dict(self.__dict__)
        saved["_occupancies"] = list(self._occupancies)
        out = self._commit(shadow, t)
        if self._playing():
            for when, lifted, sq in later:
                if lifted:
                    self._note_lift(when, sq)
                else:
                    self._note_place(when, sq)
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

    def to_put_right(self) -> tuple[int, int]:
        """Bitmaps of the squares to empty and to fill for the board to match the game."""
        return self.board & ~self._committed, self._committed & ~self.board

    def _illegal(self, t: int, violating: Footprint | None) -> list[Event]:
        empty, fill = self.to_put_right()
        self._out_of_sync = True
        if self._announced == (empty, fill):
            return []
        self._announced = (empty, fill)
        event: Event = {"t": t, "type": "illegal", "empty": _names(empty), "fill": _names(fill)}
        if violating is not None:
            event["reason"] = "touch_move"
            event["san"] = self._position.san(violating.move)
            owed, _ = self._touch.demand(self._legal)
            event["square"] = square_name(owed) if owed is not None else None
            event["touched"] = _names(sum(bit(sq) for sq in self._touch.squares()))
        else:
            event["reason"] = "no_legal_move"
        return [event]

    def _takeback_depth(self) -> int:
        """1 or 2 when the board shows the position that many moves back."""
        for depth in (1, 2):
            if depth > len(self.game.moves):
                return 0
            if self.board != self._occupancies[-1 - depth]:
                continue
            moves = self.game.moves[-depth:]
            # A captured piece must be seen set back on its square, not only sensed.
            if all(
                not m.is_capture or m.is_en_passant or m.to_square in self._refill_t for m in moves
            ):
                return depth
        return 0

    # ------------------------------------------------------------------ changing the game

    def _move_event(self, t: int, kind: str, move: Move, san: str, mover: Color) -> Event:
        return {
            "t": t,
            "type": kind,
            **move_details(move, san, mover),
            "fen": self.game.position.fen(),
            "ply": len(self.game.moves),
        }

    def _after_move(self, t: int, was_over: Outcome | None) -> list[Event]:
        """``check`` and ``game_over`` (or ``game_resumed``) after the position changed."""
        out: list[Event] = []
        position = self.game.position
        if position.is_check():
            out.append(
                {
                    "t": t,
                    "type": "check",
                    "side": _side(position.turn),
                    "king": square_name(position.king_square(position.turn)),
                    "checkers": [square_name(sq) for sq in position.checkers()],
                }
            )
        self._outcome = self.game.outcome()
        if self._outcome is not None and self._outcome != was_over:
            out.append(self._game_over_event(t, self._outcome))
        elif self._outcome is None and was_over is not None:
            out.append({"t": t, "type": "game_resumed", "fen": position.fen()})
        return out

    def _game_over_event(self, t: int, outcome: Outcome) -> Event:
        winner = None if outcome.winner is None else _side(outcome.winner)
        return {
            "t": t,
            "type": "game_over",
            "result": outcome.result(),
            "termination": outcome.termination,
            "winner": winner,
        }

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
            touched, _ = self._touch.demand(self._legal)
            assert touched is not None
            out.append(
                {
                    "t": t,
                    "type": "touch_move",
                    "mode": self.options.touch_move,
                    "square": square_name(touched),
                    "played": before.san(move),
                }
            )
            self._warned = touched
        castling = None
        if self.options.touch_move != "enforce" and not move.is_castling:
            castling = next(
                (
                    m
                    for m in self._legal
                    if m.is_castling
                    and m.rook_from == move.from_square
                    and m.rook_to == move.to_square
                ),
                None,
            )
        was_over = self._outcome
        occupancy = self._committed
        san, mover = self._push(move)
        if move.promotion is not None:
            self._choice = None
        if self._draw_offer is not None and self._draw_offer != mover:
            self._draw_offer = None  # the other side played instead of accepting
        out.append(self._move_event(t, "move", move, san, mover))
        self._new_turn()
        out += self._after_move(t, was_over)
        playing = self._outcome is None
        self._castle_amend = (
            _CastlingAmendment(castling, Footprint.of(castling, occupancy), occupancy)
            if castling is not None and playing
            else None
        )
        self._promotion_square = move.to_square if move.promotion is not None else None
        return out

    def _amend_castling(self, t: int) -> list[Event]:
        """The king followed its rook: the rook move becomes castling (rook first)."""
        amend = self._castle_amend
        assert amend is not None
        self._castle_amend = None
        was_over = self._outcome
        rook_move, rook_san = self._pop()
        out: list[Event] = []
        if self.options.touch_move == "warn":
            # FIDE 4.4.2: a rook touched before its king may not castle.
            out.append(
                {
                    "t": t,
                    "type": "touch_move",
                    "mode": "warn",
                    "square": square_name(rook_move.from_square),
                    "played": self.game.position.san(amend.castling),
                }
            )
            self._warned = rook_move.from_square
        san, mover = self._push(amend.castling)
        event = self._move_event(t, "move", amend.castling, san, mover)
        event["replaces"] = rook_san
        out.append(event)
        self._new_turn()
        out += self._after_move(t, was_over)
        return out

    def _amend_promotion(self, piece: int, t: int) -> list[Event]:
        """Late news of the promotion piece: the last move is replayed with it."""
        was_over = self._outcome
        old, old_san = self._pop()
        new = next(
            m
            for m in self.game.position.legal_moves()
            if m.from_square == old.from_square
            and m.to_square == old.to_square
            and m.promotion == piece
        )
        san, mover = self._push(new)
        event = self._move_event(t, "promotion_amended", new, san, mover)
        event["replaces"] = old_san
        self._new_turn()
        return [event, *self._after_move(t, was_over)]

    def _take_back(self, depth: int, t: int) -> list[Event]:
        out: list[Event] = []
        for _ in range(depth):
            move, san = self._pop()
            out.append(
                {
                    "t": t,
                    "type": "takeback",
                    "san": san,
                    "uci": str(move),
                    "side": _side(self.game.position.turn),
                    "fen": self.game.position.fen(),
                }
            )
        self._castle_amend = None
        self._promotion_square = None
        self._draw_offer = None
        self._outcome = self.game.outcome()
        self._new_turn()
        return out

    # ------------------------------------------------------------------ choices and buttons

    def _choose(self, t: int, letter: str) -> list[Event]:
        if letter not in PROMOTION_LETTERS:
            raise ValueError(f"choose {letter!r} at {t} ms: expected one of q, r, b, n")
        piece = PROMOTION_PIECES[letter]
        if self._promotion_square is not None and not self._new_game_pending:
            last = self.game.moves[-1]
            if last.promotion == piece:
                return []
            return self._amend_promotion(piece, t)
        self._choice = piece  # for the next promotion only
        return []

    def _button(self, t: int, name: str) -> list[Event]:
        handler = getattr(self, f"_button_{name}", None)
        if handler is None:
            raise ValueError(f"button {name!r} at {t} ms: not a control this board knows")
        out = self._before_button(t)
        if name not in ("new_game", "hint") and not self._playing():
            reason = "a new game is being set up" if self._new_game_pending else "the game is over"
            return [*out, {"t": t, "type": "refused", "button": name, "reason": reason}]
        return out + handler(t)

    def _before_button(self, t: int) -> list[Event]:
        """A button pressed while the board shows a complete move, before it settled:
        the move is committed first, as the settle time would (a claim is judged on the
        position it made, a resignation or an offer is the side to move's after it)."""
        if not self._playing() or self._deadline is None or self.board == self._committed:
            return []
        amend = self._castle_amend
        if amend is not None and self.board == amend.footprint.after:
            return self._amend_castling(t)
        found = self._complete()
        if found is None:
            return []
        if not self._allowed(found.move) and self.options.touch_move == "enforce":
            return []
        return self._commit(found, t)

    def _button_adjust(self, t: int) -> list[Event]:
        self._adjusting = True
        self._adjusted = set()
        return [{"t": t, "type": "adjust", "side": _side(self._position.turn)}]

    def _end(self, t: int, outcome: Outcome) -> list[Event]:
        self._outcome = outcome
        self._castle_amend = None
        self._promotion_square = None
        return [self._game_over_event(t, outcome)]

    def _button_resign(self, t: int) -> list[Event]:
        loser = self._position.turn if self._other_side is None else not self._other_side
        return self._end(t, self.game.resign(loser))  # against an engine: the person

    def _button_draw_offer(self, t: int) -> list[Event]:
        self._draw_offer = self._position.turn
        return [{"t": t, "type": "draw_offer", "side": _side(self._draw_offer)}]

    def _button_draw_accept(self, t: int) -> list[Event]:
        if self._draw_offer is None:
            reason = "no draw offer stands"
            return [{"t": t, "type": "refused", "button": "draw_accept", "reason": reason}]
        self._draw_offer = None
        return self._end(t, self.game.agree_draw())

    def _button_claim_draw(self, t: int) -> list[Event]:
        try:
            outcome = self.game.claim_draw()
        except ClaimRefused as refused:
            return [{"t": t, "type": "claim_refused", "reason": str(refused)}]
        return self._end(t, outcome)

    def _button_hint(self, t: int) -> list[Event]:
        return [{"t": t, "type": "hint_requested"}]

    def _button_new_game(self, t: int) -> list[Event]:
        self._new_game_pending = True
        if self.board == START_OCCUPANCY:
            return self._start_new_game(t)
        return [
            {
                "t": t,
                "type": "new_game_pending",
                "missing": _names(START_OCCUPANCY & ~self.board),
                "extra": _names(self.board & ~START_OCCUPANCY),
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
        self.game = Game()
        self._occupancies = [START_OCCUPANCY]
        self._outcome = None
        self._castle_amend = None
        self._promotion_square = None
        self._choice = None
        self._warned = None
        self._draw_offer = None
        self._new_game_pending = False
        self._new_turn()
        return [{"t": t, "type": "new_game", "fen": self.game.position.fen()}]

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
        touched = 0
        if self.options.touch_move != "off":
            owed, _ = self._touch.demand(self._legal)
            if owed is not None and board & bit(owed):
                touched |= bit(owed)
            if self._warned is not None:
                touched |= bit(self._warned)
        return BoardView(
            empty=empty,
            fill=fill,
            check_king=check_king,
            checkers=checkers,
            half_done=0 if self._out_of_sync else self._half_done(),
            touched=touched,
            hints=(self._hints() if self.options.hints else 0) | self._hint_squares(),
            to_execute=execute_squares(self._expected) if self._expected is not None else 0,
        )

    def _half_done(self) -> int:
        """A castling king landed without its rook; an en-passant pawn beside its victim."""
        board, before = self.board, self._committed
        mask = 0
        for fp in self._footprints:
            move = fp.move
            if not (move.is_castling or move.is_en_passant):
                continue
            if not board & bit(move.to_square) or board & bit(move.from_square):
                continue
            if not fp.on_the_way(before, board) or not self._history_allows(fp):
                continue
            if move.is_castling and board != fp.after:
                mask |= bit(move.rook_from) | bit(move.rook_to)
            elif move.is_en_passant and board & bit(move.captured_square):
                mask |= bit(move.captured_square)
        return mask

    def _hints(self) -> int:
        """The legal destinations of the side to move's piece last lifted and still in hand."""
        in_hand = self._own & ~self.board
        if not in_hand:
            return 0
        lifted = max(squares_of(in_hand), key=lambda sq: self._lift_t.get(sq, -1))
        return sum(bit(m.to_square) for m in self._legal if m.from_square == lifted)

    # ------------------------------------------------------------------ the other side

    # An engine (later the web page) plays one side; a person moves its pieces for it.
    # On that side's turn only the move given to expect() is accepted, none before.

    @property
    def other_side(self) -> Color | None:
        """The side whose moves come from elsewhere (an engine), or None."""
        return self._other_side

    def set_other_side(self, color: Color | None) -> None:
        """Let ``color``'s moves come from elsewhere (None: people play both sides)."""
        if color == self._other_side:
            return
        self._other_side = color
        self._expected = None
        self._legal = self._position.legal_moves()
        self._footprints = [Footprint.of(m, self._committed) for m in self._legal]
        self._touch = TouchMove()
        self._restrict_to_expected()

    @property
    def awaiting(self) -> bool:
        """Is it the other side's turn, with its move not yet known?"""
        return (
            self._playing()
            and self._other_side is not None
            and self._position.turn == self._other_side
            and self._expected is None
        )

    @property
    def expected(self) -> Move | None:
        """The other side's move waiting to be played on the board, if any."""
        return self._expected

    def expect(self, move: Move | str, t_ms: int) -> list[Event]:
        """The other side chose ``move`` (a :class:`rules.Move` or UCI text): it is lit,
        and it is the only move the board may now show. ValueError if it is not that
        side's turn or the move is not legal."""
        if not self.awaiting:
            raise ValueError("expect: it is not the other side's turn to choose a move")
        legal = self._position.parse_uci(move) if isinstance(move, str) else move
        if not self._position.is_legal(legal):
            raise ValueError(f"expect: {legal} is not legal in {self._position.fen()}")
        self._expected = next(m for m in self._position.legal_moves() if m == legal)
        self._restrict_to_expected()
        if self.board != self._committed and self._deadline is None:
            return self._judge(t_ms)  # pieces moved while it was thinking: judge them now
        return []

    def show_hint(self, move: Move | str | None) -> None:
        """Light a suggested move for the side to move (green), until the next move."""
        if move is None:
            self._hint = None
            return
        hint = self._position.parse_uci(move) if isinstance(move, str) else move
        if not self._position.is_legal(hint):
            raise ValueError(f"hint: {hint} is not legal in {self._position.fen()}")
        self._hint = hint

    @property
    def hint(self) -> Move | None:
        return self._hint

    def _restrict_to_expected(self) -> None:
        if self._other_side is None or self._position.turn != self._other_side:
            return
        moves = [self._expected] if self._expected is not None else []
        self._legal = moves
        self._footprints = [Footprint.of(m, self._committed) for m in moves]
        self._touch = NoTouchMove()

    def _hint_squares(self) -> int:
        hint = self._hint
        return 0 if hint is None else bit(hint.from_square) | bit(hint.to_square)
