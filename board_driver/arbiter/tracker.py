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
complete move whose piece has rested the pass time (released) and the other side lifts a
piece (its own, or the one just landed where it can capture it); the other side sets a
piece down elsewhere while the mover's piece stands (its move is a release, whatever the
rest); or a button is pressed (the board as it stands is judged first). At a player's pace
the other side's hand is often out already; each lift and place is read for the move it
can belong to (:mod:`.hands`), and a board that stops making sense is read again
(:mod:`.rereading`); so is, left alone, a still board that only a piece in the hand would
explain, if another reading reads every piece standing as moves made. A committed move
can still grow by the same side before the other side lifts anything (:mod:`.amendments`).
Take-backs go one move at a time, as soon as the pieces set back have rested the pass time
(:mod:`.takebacks`). An illegal position ends only when the board matches the last
position again or shows a legal move from it, not the remains of an action being undone
(putting right is not moving: a move shown once pieces were put back counts if its piece
was the first lifted, if the board showed it done before, or if every other piece moved
was only displaced and put back on its own square, FIDE 7.4); its ``illegal`` event says
why, once (:mod:`.words`). The
board is in sync only while one move on its way explains what it shows besides the
position (the other side's hand may hold one piece of its own). The game events it
announces are listed in :mod:`.game_events`.

The tracker's parts: :mod:`.reading` (one move read from the hands), :mod:`.hands`,
:mod:`.rereading`, :mod:`.amendments` (castling rook first, a late promotion choice),
:mod:`.takebacks`, :mod:`.controls` (buttons, offers, claims, endings), :mod:`.setup` (a new
game), :mod:`.expected` (the other side's move), :mod:`.lights` (the frame, and
:meth:`Tracker.asks`: what the lights ask, in words).

>>> from board_driver.physical.events import Lift, Place
>>> from board_driver.physical.squares import square
>>> tracker = Tracker()
>>> events = tracker.handle(Lift(0, square("e2"))) + tracker.handle(Place(300, square("e4")))
>>> [e["san"] for e in events + tracker.tick(600) if e["type"] == "move"]
['e4']
>>> tracker.game.position.fen()
'rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1'
"""

from __future__ import annotations

from board_driver.arbiter.amendments import Amendments
from board_driver.arbiter.controls import Controls
from board_driver.arbiter.expected import OtherSide
from board_driver.arbiter.feedback import DEFAULT_COLOURS, Colours
from board_driver.arbiter.footprint import Footprint, bit
from board_driver.arbiter.game_events import (
    Event,
    check_event,
    game_over_event,
    move_event,
    square_names,
    touch_move_event,
)
from board_driver.arbiter.hands import Hands
from board_driver.arbiter.lights import Lights
from board_driver.arbiter.options import (
    DEFAULT_OPTIONS,
    DEFAULT_TIMING,
    MIN_SETTLE_MS,
    PROMOTION_PIECES,
    TOUCH_MOVE_MODES,
    GameOptions,
    Timing,
)
from board_driver.arbiter.parts import CastlingAmendment, Choice
from board_driver.arbiter.reading import MoveReading
from board_driver.arbiter.rereading import Rereading
from board_driver.arbiter.setup import START_OCCUPANCY, NewGameSetup, StartPositions
from board_driver.arbiter.takebacks import TakeBacks
from board_driver.arbiter.words import why_illegal, why_touch_move
from board_driver.physical.events import BoardEvent, Button, Choose, Lift, Place
from board_driver.physical.squares import square_name
from rules import Color, Game, Move, Outcome, Position

__all__ = [
    "MIN_SETTLE_MS",
    "PROMOTION_PIECES",
    "START_OCCUPANCY",
    "TOUCH_MOVE_MODES",
    "GameOptions",
    "Timing",
    "Tracker",
]

ALL_SQUARES = (1 << 64) - 1


class Tracker(Amendments, Controls, Hands, Lights, NewGameSetup, OtherSide, Rereading, TakeBacks):
    """Turns board events into game events, holding a :class:`rules.Game`.

    ``board`` is the occupancy actually standing when the tracker starts (``None``: it
    matches the game); a mismatch starts out of sync, and the lights guide the board back.
    ``next_start`` gives the start position of a new game set up on the board (a Chess960
    one, drawn for each game, where the daemon plays Chess960).
    """

    def __init__(
        self,
        game: Game | None = None,
        *,
        options: GameOptions = DEFAULT_OPTIONS,
        timing: Timing = DEFAULT_TIMING,
        board: int | None = None,
        colours: Colours = DEFAULT_COLOURS,
        next_start: StartPositions = Position,
    ) -> None:
        if board is not None and not (isinstance(board, int) and 0 <= board < 1 << 64):
            raise ValueError(f"board: expected a 64-bit occupancy bitmap, got {board!r}")
        self.game = game if game is not None else Game()
        #: The start position of the next game set up on the board (the ``new_game``
        #: button, or the pieces put home after a game): the standard one unless the
        #: daemon says otherwise (a Chess960 start position, drawn for each game).
        self.next_start: StartPositions = next_start
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
        self._quick: int | None = None  # still for the pass time: a take-back, a re-read
        # Reading the hands again (see rereading): every event since the board was last
        # still, how many of them have been read, the readings chosen on the way, and one
        # to read the other way.
        self._log: list[BoardEvent] = []
        self._seen = 0
        self._choices: list[Choice] = []
        self._forced: tuple[str, int, int] | None = None
        # The latest move committed early read the other way: its choice's time and
        # square, and the events seen then.
        self._early_tried: tuple[int, int, int] | None = None
        self._rereading = ""  # "choice" or "turn" while the hands are read again
        self._recording = True
        self._quickly = False  # judging before the board is still (see _judge_quickly)
        self._standing = False  # reading a capture where a slide stood (not nested)
        self._hindsight: dict[int, int] | None = None  # reading again: each square's last lift
        self._castle_amend: CastlingAmendment | None = None
        self._promotion_square: int | None = None
        self._choice: int | None = None
        self._pending_choice: int | None = None
        self._held_choice: tuple[int, int] | None = None
        self._warned: int | None = None  # a touched square lit after a move it did not make
        self._setup = None  # a position being set up, kind by kind (setup)
        self._keep_game = False
        self._setup_said = None
        self._early_said = set()
        self._draw_offer: Color | None = None
        self._other_side: Color | None = None
        self._expected: Move | None = None
        self._hint: Move | None = None
        self._required: tuple[Move, ...] | None = None
        self._required_mates = False
        self._new_turn()
        self.board = self._committed if board is None else board
        self._reading.start_board = self.board  # after a restart: what stands, not the game
        # After a restart a piece may be in the hand (a move on its way): no complaint.
        self._out_of_sync = self.board != self._committed and not (
            self._playing() and self._on_the_way()
        )

    # ------------------------------------------------------------------ public

    @property
    def in_sync(self) -> bool:
        """Does the board show the committed position (or a move on its way to one)?"""
        if self._setup is not None:
            return False
        if self._outcome is not None:
            return self.board == self._committed
        return not self._out_of_sync

    def at_rest(self) -> bool:
        """Does the tracker hold nothing but its game? The board shows the last position,
        nothing is left to judge, and no move is under way nor open to amendment (no piece
        touched, no choice or offer pending): a tracker made afresh from the same game and
        options would read whatever comes next as this one does. The daemon's journal of
        the hands (which a restart replays) starts again from such moments.

        >>> from board_driver.physical.events import Lift, Place
        >>> from board_driver.physical.squares import square
        >>> tracker = Tracker()
        >>> _ = tracker.handle(Lift(0, square("e2"))) + tracker.handle(Place(300, square("e4")))
        >>> tracker.at_rest()
        False
        >>> _ = tracker.tick(600)
        >>> tracker.at_rest()
        True
        """
        reading = self._reading
        return (
            self.board == self._committed
            and not self._out_of_sync
            and self._deadline is None
            and self._quick is None
            and not self._log
            and not reading.history
            and not reading.adjusting
            and reading.touch.own is None
            and reading.touch.opponent is None
            and reading.touch.rook_first is None
            and self._castle_amend is None
            and self._promotion_square is None
            and self._choice is None
            and self._pending_choice is None
            and self._held_choice is None
            and self._draw_offer is None
            and self._setup is None
            and self._expected is None  # a player away chose a move the hands have not made
        )

    def handle(self, event: BoardEvent) -> list[Event]:
        """Take one board event; returns the game events it (and the time before it) led to.

        A judgement that fell due before the event is made first, at its own time.
        A ``lift`` of an empty square or a ``place`` on a full one cannot come from a
        board: ValueError, and the tracker keeps its state.
        """
        out = self.tick(event.t_ms)
        out += self._dispatch(event)
        self._log.append(event)  # only once it was possible (no ValueError)
        self._seen += 1
        return out

    def _dispatch(self, event: BoardEvent) -> list[Event]:
        if type(event) is Lift:
            return self._lift(event.t_ms, event.square)
        if type(event) is Place:
            return self._place(event.t_ms, event.square)
        if type(event) is Choose:
            return self._choose(event.t_ms, event.piece)
        if type(event) is Button:
            return self._button(event.t_ms, event.name)
        raise TypeError(f"not a board event: {event!r}")

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
        deadline, quick = self._deadline, self._quick
        if (deadline is None or deadline > t_ms) and (quick is None or quick > t_ms):
            return []  # the common case, at every event: nothing due yet
        due = self.next_due()
        out: list[Event] = []
        while due is not None and due <= t_ms:
            out += self._judge_due(due)
            due = self.next_due()
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

    # ------------------------------------------------------------------ state per turn

    def _new_turn(self) -> None:
        """A position was committed (or taken back): start reading the next move."""
        self._position = self.game.position
        self._committed = self._occupancies[-1]
        self._out_of_sync = False
        self._out_since = 0  # the reading's history when the board went out of sync
        self._announced: tuple[int, int] | None = None
        self._why: str | None = None  # why the position is illegal
        self._whys_said: set[str] = set()  # the reasons announced while out of sync
        self._expected = None
        self._hint = None
        self._required = None  # a requirement holds for one turn (expected.py)
        # A lift of the piece just landed whose judgment waits for the next place (see
        # hands): its time and square, and the squares the other side's captures of it
        # land on or pass over.
        self._deferred: tuple[int, int, int] | None = None
        self._held_choice = None
        self._reading = self._fresh_reading()

    def _fresh_reading(self, start_board: int | None = None) -> MoveReading:
        """A reading of the move from the committed position (only the expected move, on
        the turn of a player not at the board)."""
        reading = MoveReading(self._position, self.timing, start_board, before=self._committed)
        self._restrict_to_expected(reading)
        return reading

    def _playing(self) -> bool:
        return self._outcome is None and self._setup is None

    # ------------------------------------------------------------------ judging

    def _allowed(self, move: Move) -> bool:
        return self._reading.allowed(move, self.options.touch_move)

    def _acceptable(self, move: Move) -> bool:
        """May ``move`` be committed: allowed by touch-move, or accepted with a warning;
        and one of the moves required of the side at the board, if some are (a puzzle's)."""
        return (self.options.touch_move != "enforce" or self._allowed(move)) and self.meets(move)

    def _complete(self) -> Footprint | None:
        """The one legal move the board shows done, if any (the other side's pieces lifted
        while its piece moved are the next move's, unless it captured them). Out of sync,
        not one that is only what remains of an action being undone (putting right is not
        moving: :meth:`.reading.MoveReading.undoing`)."""
        reading = self._reading
        found = reading.complete(self.board, self._choice, reading.others_off)
        if (
            found is not None
            and self._out_of_sync
            and self._rereading != "turn"  # the hands read afresh, as several moves
            and reading.undoing(self._out_since, found)
        ):
            return None
        return found

    def _at_position(self) -> bool:
        """Does the board stand as the committed position, no move made? A Chess960
        castling seen made that leaves every square as it was (the king and the rook
        swapped squares: what was seen counts) is a move, where touch-move allows it."""
        if self.board != self._committed:
            return False
        reading = self._reading
        if not reading.transpositions or not reading.history:
            return True
        found = reading.transposed()
        return found is None or not self._acceptable(found.move)

    def _mover_first(self, found: Footprint) -> bool:
        """Is ``found`` a capture whose victim was lifted after the capturing piece?"""
        lifted = self._reading.lift_t
        target = found.target
        after = lifted.get(found.move.from_square)
        return target is not None and after is not None and lifted.get(target, -1) > after

    def _on_the_way(self, *, sliding: bool = False, still: bool = False) -> bool:
        """Is the board in a state on the way to a legal move (allowed by touch-move)?
        ``sliding``: the board is not still yet (a slider may stand on its path);
        ``still``: it has been still for the settle time: the other side's hand may hold
        one piece of its own (the start of its next move), no more (board-script.md, "Left
        alone, the board is judged")."""
        reading, mode = self._reading, self.options.touch_move
        if reading.on_the_way(self.board, mode, sliding=sliding):
            return True
        others = reading.others_off
        held = not still or not (others & (others - 1) or others & reading.own)
        if others and held and reading.on_the_way(self.board | others, mode, sliding=sliding):
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
        if not self._out_of_sync and self._deferred is None:  # a deferred lift waits on
            self._forget_choices()
        return out

    def _judge_still(self, t: int) -> list[Event]:
        if not self._playing():
            return self._judge_setup(t)
        self._reading.settled()
        if self._at_position():
            if self._swapped_back():  # a castling that swapped king and rook, undone
                return self._judge_takeback(t, 1) or self._restored(t)
            return self._restored(t)
        found = self._complete()
        violating = None
        if found is not None:
            if self._acceptable(found.move):
                if found.after == self.board:
                    return self._commit(found, t)
                # The other side's hand is out: read it all first (a capture taken mover
                # first may have been made unseen before, its "victim" lifted by the other
                # side taking it back); and what its lifts leave, the next move's hands, is
                # judged in turn.
                out = (self._mover_first(found) and self._read_whole(t)) or self._commit(found, t)
                if self._playing() and self.board != self._committed:
                    out += self._judge_still(t)
                return out
            violating = found
        if self._castling_shown():
            return self._amend_castling(t)
        taken_back = self._judge_takeback(t, self._takeback_depth())
        if taken_back is not None:
            return taken_back
        refused = violating is not None and not self.meets(violating.move)
        if refused and violating is not None and violating.after == self.board:
            return self._illegal(t, violating)  # a move made, not one asked for (require)
        if self._on_the_way(still=True):
            return self._read_whole(t, on_the_way=True) or []
        if violating is None and not self._rereading:
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
        if self._rereading or self.board == self._committed:
            return []
        self._quickly = True
        try:
            if self._on_the_way(sliding=True):
                # A move committed early whose reading leaves only a piece in the hand
                # to explain the board: the choice the other way may read every piece.
                return self._read_early_commit_again(t, recent=True) or []
            # The board makes no sense while the other side's hand is out, or after a
            # reading chosen on the way: what followed may say how the hands went.
            return self._read_again(t, choices_only=not self._reading.others_off) or []
        finally:
            self._quickly = False

    def _restored(self, t: int) -> list[Event]:
        if not self._out_of_sync:
            return []
        self._out_of_sync = False
        self._announced = None
        self._why = None
        self._whys_said = set()
        return [{"t": t, "type": "restored", "fen": self._position.fen()}]

    def _illegal(self, t: int, violating: Footprint | None) -> list[Event]:
        empty, fill = self.to_put_right()
        if not self._out_of_sync:
            self._out_since = len(self._reading.history)
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
        owed, _ = self._reading.touch.demand(self._reading.legal)
        if violating is not None and not self.meets(violating.move):
            # A legal move, but not one the side at the board is asked for (a puzzle's).
            event["reason"] = "refused"
            event["san"] = san = self._position.san(violating.move)
            event["uci"] = str(violating.move)
            why = f"{san} is not the move to play here"
        elif violating is not None:
            event["reason"] = "touch_move"
            event["san"] = self._position.san(violating.move)
            event["square"] = square_name(owed) if owed is not None else None
            event["touched"] = square_names(sum(bit(sq) for sq in self._reading.touch.squares()))
            why = why_touch_move(self._position, owed)
        else:
            event["reason"] = "no_legal_move"
            why = self._why_no_legal_move()
        if why not in self._whys_said:  # each reason said once while out of sync
            event["why"] = why
            self._whys_said.add(why)
        self._why = why
        return [event]

    def _why_no_legal_move(self) -> str:
        if self._other_side is not None and self._position.turn == self._other_side:
            if self._expected is None:
                return "the other side has not chosen its move yet"
            return f"the other side's move is {self._position.san(self._expected)}"
        reading = self._reading
        if self.options.touch_move == "enforce" and reading.on_the_way(self.board, "off"):
            # On the way to a move only touch-move forbids: say so, not "no legal move".
            owed, _ = reading.touch.demand(reading.legal)
            return why_touch_move(self._position, owed)
        return why_illegal(self._position, self.board)

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
        # Pieces displaced are set back in the mover's own time (FIDE 7.4.1): the hand
        # lets go with the last of them, the mover's own (out of sync: any put right).
        squares = ALL_SQUARES if self._out_of_sync else fp.lifts | fp.places | reading.own
        released = reading.released_at(squares, t)
        san, mover = self._push(move)
        if move.promotion is not None:
            self._choice = None
        if self._draw_offer is not None and self._draw_offer != mover:
            self._draw_offer = None  # the other side played instead of accepting
        out.append(move_event(self.game, t, "move", move, san, mover, released))
        self._new_turn()
        out += self._after_move(t, was_over)
        self._open_windows(move, castling, occupancy)
        if reading.others_off and self._playing():
            lifted = {sq: when for when, sq in reading.others}  # each square's last lift
            carried = reading.others_off & ~fp.lifts  # not the move's own victims
            for sq, when in sorted(lifted.items(), key=lambda item: item[1]):
                if carried & bit(sq) and not self.board & bit(sq):
                    self._note_lift(when, sq)  # now the side to move's: its touch
        return out
