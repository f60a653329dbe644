"""A committed move that grows, by the same side, before the other side lifts anything.

Two moves can be completed after the board has read them (board-script.md, "When a move
counts"):

- a rook moved next to its king, then the king's two-square step beside it: castling,
  rook first (touch-move off or warn; under enforce it stays a rook move, FIDE 4.4.2);
- in Chess960, a king's step onto its castling square (a legal move by itself), then its
  rook moved to the rook's castling square: castling, king first (the pieces of a
  castling may land in any order, board-script.md "Chess960 castling"), under any
  touch-move;
- a pawn placed on the last rank, then a ``choose``: the promotion takes the piece named
  (late news of the player's choice, not a change of it).

Each stays open until a lift that is not part of it (the other side's move starting). The
promoted piece lifted is either the promoting side swapping it (a piece placed there alone:
a late choice still amends) or the other side taking it (a piece of its own that can
capture there lifted: the window closed at that lift); a ``choose`` while the piece is
off its square waits for which.
:class:`Amendments` is the part of :class:`~board_driver.arbiter.tracker.Tracker` that
keeps these windows.
"""

from __future__ import annotations

from board_driver.arbiter.footprint import Footprint, bit
from board_driver.arbiter.game_events import Event, move_event, touch_move_event
from board_driver.arbiter.options import PROMOTION_PIECES
from board_driver.arbiter.parts import CastlingAmendment, TrackerParts
from board_driver.physical.events import PROMOTION_LETTERS
from rules import Move


class Amendments(TrackerParts):
    """The castling and promotion windows of the last committed move (a Tracker part)."""

    _castle_amend: CastlingAmendment | None
    _promotion_square: int | None  # a promotion whose piece may be amended
    _choice: int | None  # the piece chosen for the next promotion
    _pending_choice: int | None  # chosen while the promoted piece is off its square
    _held_choice: tuple[int, int] | None  # chosen while the new piece is off, not yet judged

    def _castling_to_come(self, move: Move) -> tuple[Move, int] | None:
        """The castling that ``move``, about to be committed, may become, and the square
        of the piece still to move: a rook move (its king's), or a Chess960 king's step
        onto its castling square (its rook's)."""
        if move.is_castling:
            return None
        for m in self._reading.legal:
            if not m.is_castling or m.rook_from is None or m.rook_to is None:
                continue
            if (m.from_square, m.to_square) == (move.from_square, move.to_square):
                if m.rook_from != m.rook_to:
                    return m, m.rook_from
            elif (m.rook_from, m.rook_to) == (
                move.from_square,
                move.to_square,
            ) and self.options.touch_move != "enforce":  # FIDE 4.4.2: a rook move
                return m, m.from_square
        return None

    def _open_windows(self, move: Move, castling: tuple[Move, int] | None, occupancy: int) -> None:
        """``move`` was just committed from ``occupancy``: what may still amend it."""
        playing = self._outcome is None
        self._castle_amend = (
            CastlingAmendment(
                castling[0], Footprint.of(castling[0], occupancy), occupancy, castling[1]
            )
            if castling is not None and playing
            else None
        )
        self._promotion_square = move.to_square if move.promotion is not None else None
        self._pending_choice = None

    def _close_windows(self, sq: int) -> None:
        """A lift that is not part of the last move's completion ends its amendments."""
        amend = self._castle_amend
        if amend is not None and sq != amend.follower:
            self._castle_amend = None
        if self._promotion_square is not None and sq != self._promotion_square:
            self._promotion_square = None
            if self._pending_choice is not None:  # the promoted piece was taken: too late
                self._choice, self._pending_choice = self._pending_choice, None

    def _forget_windows(self) -> None:
        self._castle_amend = None
        self._promotion_square = None
        self._pending_choice = None

    def _promoted_piece_back(self, t: int) -> list[Event]:
        """A piece placed alone on the promoted square: the promoting side swapped it, and a
        choice made meanwhile amends the promotion."""
        piece, self._pending_choice = self._pending_choice, None
        if piece is None or self.game.moves[-1].promotion == piece:
            return []
        return self._amend_promotion(piece, t)

    def _in_window(self, sq: int) -> bool:
        amend = self._castle_amend
        return (amend is not None and sq == amend.follower) or (sq == self._promotion_square)

    def _castling_shown(self) -> bool:
        """Does the board show the castling that the last rook move may become?"""
        amend = self._castle_amend
        return amend is not None and self.board == amend.footprint.after

    def _castling_on_the_way(self) -> bool:
        amend = self._castle_amend
        return amend is not None and amend.footprint.on_the_way(amend.before, self.board)

    def _amend_castling(self, t: int) -> list[Event]:
        """The king followed its rook (the rook move becomes castling, rook first), or in
        Chess960 the rook followed its king's step (castling, king first)."""
        amend = self._castle_amend
        assert amend is not None
        self._castle_amend = None
        was_over = self._outcome
        first_move, first_san = self._pop()
        out: list[Event] = []
        if self.options.touch_move == "warn" and amend.rook_first:
            # FIDE 4.4.2: a rook touched before its king may not castle.
            played = self.game.position.san(amend.castling)
            out.append(touch_move_event(t, "warn", first_move.from_square, played))
            self._warned = first_move.from_square
        footprint = amend.footprint
        released = self._reading.released_at(footprint.lifts | footprint.places, t)
        san, mover = self._push(amend.castling)
        event = move_event(self.game, t, "move", amend.castling, san, mover, released)
        event["replaces"] = first_san
        out.append(event)
        self._new_turn()
        out += self._after_move(t, was_over)
        return out

    def _choose(self, t: int, letter: str) -> list[Event]:
        if letter not in PROMOTION_LETTERS:
            raise ValueError(f"choose {letter!r} at {t} ms: expected one of q, r, b, n")
        piece = PROMOTION_PIECES[letter]
        if self._promotion_square is not None and self._setup is None:
            if not self.board & bit(self._promotion_square):
                self._pending_choice = piece  # swapped or taken: what follows says
                return []
            last = self.game.moves[-1]
            if last.promotion == piece:
                return []
            return self._amend_promotion(piece, t)
        lifted = self._promotion_lifted()
        if lifted is not None:
            # The new piece is off its square before the promotion was judged: set down
            # there alone, it is this promotion's; taken there, too late.
            self._held_choice = (piece, lifted)
            return []
        self._choice = piece  # for the next promotion only
        return []

    def _promotion_lifted(self) -> int | None:
        """The last-rank square a promoting pawn of this move landed on and has left again
        (the move not judged yet), or None."""
        reading, board = self._reading, self.board
        for fp in reading.footprints:
            move = fp.move
            to = move.to_square
            if move.promotion is None or board & bit(to) or board & bit(move.from_square):
                continue
            if any(not lifted and sq == to for _, lifted, sq in reading.history):
                return to
        return None

    def _held_choice_set_down(self, sq: int, taken: bool) -> None:
        """A piece set down on ``sq`` while a choice waits for the new piece (see
        :meth:`_choose`): on its square and not the other side's capture there, the
        promotion takes it; else it came too late."""
        held, self._held_choice = self._held_choice, None
        if held is not None and held[1] == sq and not taken:
            self._choice = held[0]

    def _amend_promotion(self, piece: int, t: int) -> list[Event]:
        """Late news of the promotion piece: the last move is replayed with it (and the
        hands since read again from the new position: the same squares)."""
        was_over = self._outcome
        history = self._reading.history
        old, old_san = self._pop()
        new = next(
            m
            for m in self.game.position.legal_moves()
            if m.from_square == old.from_square
            and m.to_square == old.to_square
            and m.promotion == piece
        )
        san, mover = self._push(new)
        event = move_event(self.game, t, "promotion_amended", new, san, mover)
        event["replaces"] = old_san
        self._new_turn()
        for when, lifted, sq in history:
            if lifted:
                self._note_lift(when, sq)  # the promoted square: inside the window
            else:
                self._reading.note_place(when, sq)
        return [event, *self._after_move(t, was_over)]
