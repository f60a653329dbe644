"""What one lift or place means: part of the move under way, the other side's hand
reaching out for its next one, or the sign that the move before is done.

The tracker reads a move from the hands of the side to move (a :class:`~.reading.MoveReading`),
but at a player's pace the other side's hand is often already out (board-script.md, "When a
move counts" and "Rulings for fast and messy hands"):

- a lift that can only belong to the next move commits the move the board shows, once its
  piece is released (rested the pass time): a piece that took no part, or the piece just
  landed where the other side can capture it (victim first: a *snatch*), unless it could
  have slid on from there (then the lift is *deferred*, below);
- one of the other side's pieces lifted while the mover's piece still moves is the other
  side's (a *reach*): it touches nothing for the mover, and is handed to the next move;
  so is one of the mover's pieces that took no part, lifted before the mover's piece
  rested, where the other side can capture it (its victim first, at a very fast pace);
- a piece placed elsewhere while the other side's hand is out is the other side's, and
  releases the mover's piece where it stands whatever its rest (a *release*; "The other
  side's move is a release"): the move before is committed first;
- the mover's piece, rested the pass time while the other side holds a piece it lifted
  during the slide (or where the other side can capture it, on a square it could have slid
  on from), then lifted again: the judgment was *deferred*, and this lift does not settle
  it; the next place does (the other side's capture there, the slide going on, the piece
  put down again, or the other side's piece set down: the lift was the next move's).
  Nothing is committed or announced before it;
- a piece placed where a sliding piece last stood under the pass time, while the other
  side holds a piece that can capture there, is that capture (the slide had *stood* there).

Readings that only what follows can confirm are taken as choices (see :mod:`.rereading`).
:class:`Hands` is the part of :class:`~board_driver.arbiter.tracker.Tracker` that does this.
"""

from __future__ import annotations

from board_driver.arbiter.footprint import Footprint, between, bit
from board_driver.arbiter.game_events import Event
from board_driver.arbiter.parts import TrackerParts
from board_driver.arbiter.rereading import EARLY
from board_driver.physical.squares import square_name, squares_of
from rules import PAWN


class Hands(TrackerParts):
    """Lifts and places, read against the move under way (a Tracker part)."""

    def _lift(self, t: int, sq: int) -> list[Event]:
        b = bit(sq)
        if not self.board & b:
            raise ValueError(f"lift {square_name(sq)} at {t} ms: no piece stands there")
        out: list[Event] = []
        if self._setup is not None:
            self._setup.lift(sq)
        if self._playing():
            self._warned = None
            others = False
            # A lift that commits the move before it is read again in the next one (there
            # too it may be the other side's hand reaching out); a commit or two at most.
            for _ in range(3):
                if self._at_position() or self._reading.passing(t, sq):
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
        amend = self._castle_amend
        if amend is not None and self._castling_shown():
            if not amend.footprint.touched & bit(sq):
                return self._amend_castling(t), False
            return [], False
        reading = self._reading
        theirs = bool(self._committed & ~reading.own & bit(sq))
        found = self._complete()
        if found is not None and self._acceptable(found.move):
            if self._released(found, t):
                if not found.touched & bit(sq):
                    if self._committed & bit(sq):  # a piece that took no part
                        return self._commit(found, t), False
                elif found.places & bit(sq) and reading.others_off & self._committed & ~reading.own:
                    return self._deferred_lift(found, t, sq), False
                elif self._snatchable(found, sq):
                    if self._could_slide_on(found, sq):
                        # The other side's victim, or the slide going on after a pause:
                        # the next place tells, nothing announced before it.
                        return self._deferred_lift(found, t, sq), False
                    if self._choose_reading("snatch", t, sq):
                        return self._commit(found, t), False
            elif theirs and not found.touched & bit(sq):
                return [], True  # the other side reached out before the piece was let go
            elif (
                not found.touched & bit(sq)
                and self._committed & bit(sq)
                and self._capturable_after(found, sq)
            ):
                # A piece that took no part, lifted before the mover's piece rested: the
                # other side taking its victim first, most likely (judged by what follows).
                return [], self._choose_reading("reach", t, sq)
        elif theirs:
            # While the mover's piece moves (or a deferred lift waits: it may be the other
            # side's victim in hand): the other side reaching out; else: the mover
            # touching it (its victim, most often: an en-passant victim beside the pawn
            # just landed, however soon). Only what follows can tell for sure.
            moving = reading.moving(t, self.board) or self._deferred is not None
            if moving and not self._en_passant_victim(sq):
                return [], self._choose_reading("reach", t, sq)
            return [], not self._choose_reading("touch", t, sq)
        return [], False

    def _en_passant_victim(self, sq: int) -> bool:
        """Is ``sq`` the victim's square of an en-passant capture whose pawn has landed?"""
        board = self.board
        return any(
            fp.move.is_en_passant
            and fp.move.captured_square == sq
            and board & bit(fp.move.to_square)
            and not board & bit(fp.move.from_square)
            for fp in self._reading.footprints
        )

    def _deferred_lift(self, found: Footprint, t: int, sq: int) -> list[Event]:
        """The piece just landed and rested, lifted again while the other side holds a
        piece it lifted during the slide (or where the other side can capture it, on a
        square it could have slid on from: a pause on its way, or the other side's victim
        first): the judgment was deferred, and this lift does not settle it
        (board-script.md, "Released means rested"); the next place does
        (:meth:`_resolve_deferred`). Until then the slide going on is read: nothing is
        committed, nothing announced."""
        if not self._choose_reading("deferred", t, sq):
            return self._commit(found, t)  # read the other way: let go there
        self._deferred = (t, sq, self._capture_ways(found, sq))
        return []

    def _resolve_deferred(self, t: int, sq: int) -> list[Event]:
        """A piece set down on ``sq`` while a deferred lift waits. On the way of the other
        side's capture of the lifted piece (where it lands: its square, or behind it en
        passant; or a square its capturer passes over), it is that capture (the piece was
        let go where it stood), unless no piece of the other side is off (no capture can
        land: the piece put down again, or the slide going on); further
        along the line it came (where a legal move passing over its square goes), the
        slide went on; anywhere else it is the other side's piece, and the lift was the
        next move's. Read the other way, the move is committed now, before this place; the
        events of that, or none."""
        deferred, self._deferred = self._deferred, None
        assert deferred is not None  # called only while a lift is deferred
        when, lifted, capture_ways = deferred
        reading = self._reading
        if not reading.others_off & self._committed & ~reading.own:
            # No piece of the other side off the board: no capture can land; the piece
            # put down again, or the slide going on, else set down elsewhere after all.
            other_way = not (sq == lifted or self._ways_beyond(lifted) & bit(sq))
        elif capture_ways & bit(sq) or sq == lifted:
            other_way = bool(capture_ways & bit(sq))
        else:
            other_way = not self._ways_beyond(lifted) & bit(sq)
        if not other_way or self._rereading:
            return []
        named = ("deferred", when, lifted)
        choice = next((c for c in self._choices if (c.kind, c.t, c.square) == named), None)
        if choice is None:
            return []
        return self._read_again(t, choices_only=True, choices=[choice]) or []

    def _released(self, found: Footprint, t: int) -> bool:
        """Has ``found``'s piece rested the pass time by ``t``? When the hands are read
        again, with hindsight: a piece that was never lifted again afterwards rested there
        (the move is judged from everything that follows)."""
        if self._reading.released(found, t):
            return True
        last_lift = self._hindsight
        return last_lift is not None and all(
            last_lift.get(sq, -1) <= t for sq in squares_of(found.places)
        )

    def _committed_early(self) -> bool:
        """Was a move committed early by inference, that what follows may overturn?"""
        return any(choice.kind in EARLY for choice in self._choices)

    def _could_slide_on(self, found: Footprint, sq: int) -> bool:
        """Could ``found``'s piece, just landed on ``sq``, have slid on from there: does a
        legal move of that piece from its square pass over ``sq``?"""
        origin = found.move.from_square
        return any(
            m.from_square == origin and between(origin, m.to_square) & bit(sq)
            for m in self._reading.legal
        )

    def _snatchable(self, found: Footprint, sq: int) -> bool:
        """Is a lift of ``sq``, where ``found`` just landed and rested, the other side
        taking its victim first? If it can capture there (and knows the move: not a
        player away from the board)."""
        return bool(found.places & bit(sq)) and self._capturable_after(found, sq)

    def _capturable_after(self, found: Footprint, sq: int) -> bool:
        """Can the other side capture on ``sq`` once ``found`` is played (and does it
        know the move: not a player away from the board)?"""
        return bool(self._capture_ways(found, sq))

    def _capture_ways(self, found: Footprint, sq: int) -> int:
        """The squares the other side's captures of the piece on ``sq`` land on (``sq``,
        or behind it en passant) or pass over, once ``found`` is played: a bitmap, 0 if
        it has none (or does not know the move: a player away from the board)."""
        after = self._position.copy()
        after.push(found.move)
        if self._other_side is not None and after.turn == self._other_side:
            return 0
        ways = 0
        for m in after.legal_moves():
            if m.captured_square == sq:
                ways |= bit(m.to_square) | between(m.from_square, m.to_square)
        return ways

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
        stood = False
        if self._setup is not None:
            self._setup.place(sq)
        held_choice = self._held_choice is not None
        if self._playing():
            self._warned = None
            if self._deferred is not None:
                out += self._resolve_deferred(t, sq)
            reading = self._reading
            if reading.others_off:
                # A piece placed where the sliding piece just rested under the pass time,
                # while the other side holds one of its own: most likely its capture of
                # the piece where it stood (then it had stopped there).
                on = self._stood_on(sq)
                stood = on is not None and self._choose_reading("stood", t, sq)
                if not reading.passing(t, sq):
                    released = self._before_place(t, sq)
                    out += released
                    stood = stood and not released
            if held_choice:
                taken = stood or bool(out) or bool(reading.others_off & self._committed)
                self._held_choice_set_down(sq, taken)
            self._reading.note_place(t, sq)
        self.board |= b
        if self._pending_choice is not None and sq == self._promotion_square:
            out += self._promoted_piece_back(t)
        if stood and on is not None:
            out += self._captured_where_it_stood(t, on)
        self._after_board_event(t)
        return out

    def _stood_on(self, sq: int) -> int | None:
        """Where a capture landing on ``sq`` may take the sliding piece where it rested
        under the pass time: a pawn's double step that passed over ``sq`` (taken en
        passant: the pawn went on from ``sq`` to its square), or ``sq`` itself; None if
        neither."""
        passed = self._reading.passed
        if not passed:
            return None
        position = self._position
        for fp in self._reading.footprints:
            move = fp.move
            if (
                passed & bit(move.to_square)
                and abs(move.to_square - move.from_square) == 16
                and (move.from_square + move.to_square) // 2 == sq
                and (piece := position.piece_at(move.from_square)) is not None
                and piece.piece_type == PAWN
            ):
                return move.to_square if self._slide_ended_on(move.to_square) else None
        return sq if passed & bit(sq) and self._slide_ended_on(sq) else None

    def _slide_ended_on(self, sq: int) -> bool:
        """Did the slide stop on ``sq``: no piece set down after it left there, before the
        other side's hand reached out (else the slide went on: it only passed over)? A
        piece set down where the sliding piece cannot go is not it (the other side's, its
        hand out already)."""
        reading = self._reading
        history = reading.history
        left = max(i for i, (_, lifted, at) in enumerate(history) if lifted and at == sq)
        reached = set(reading.others)
        ways = self._ways_beyond(sq)
        for when, lifted, at in history[left + 1 :]:
            if not lifted:
                if not ways & bit(at) and reading.others_off:
                    continue
                return False
            if (when, at) in reached:
                return True
        return True

    def _ways_beyond(self, sq: int) -> int:
        """Where a piece of the side to move sliding over ``sq`` can go on to: the squares
        beyond it of its legal moves that pass over it (none for a jump)."""
        ways = 0
        for m in self._reading.legal:
            if between(m.from_square, m.to_square) & bit(sq):
                ways |= bit(m.to_square) | between(sq, m.to_square)
        return ways

    def _before_place(self, t: int, sq: int) -> list[Event]:
        """The other side has lifted a piece of its own while the mover's piece moved: a
        piece placed elsewhere while the mover's piece stands is the other side's (its
        move going on), and releases the mover's piece where it stands, whatever time it
        rested there (board-script.md, "The other side's move is a release"): the mover's
        move is committed first."""
        found = self._complete()
        reading = self._reading
        theirs = reading.others_off & self._committed & ~reading.own  # the other side's own
        if found is None or not self._acceptable(found.move):
            return []
        if theirs and not theirs & bit(sq):
            pass  # the other side's piece set down elsewhere (the square the mover left too)
        elif found.touched & bit(sq) or not self._released(found, t):
            return []  # not let go yet (a piece put back where it stood is no move)
        if not self._choose_reading("release", t, sq):
            return []
        return self._commit(found, t)

    def _after_board_event(self, t: int) -> None:
        """Set the judgements to come: when still for the settle time; and when still for
        the pass time, where that may decide (a take-back; a board that stops making sense
        while the other side's hand is out, or after a move committed early)."""
        timing = self.timing
        self._deadline = t + timing.settle_ms
        self._quick = None
        if (
            self._reading.others_off
            or (self._choices and self._committed_early())
            or (self.options.takeback and self._takeback_shown())
        ) and self._playing():
            self._quick = t + timing.pass_ms
